// A site's page: the reservation quote and the start prediction, drawn from their json_script data.
for (const [box, data] of [["quote-result", "quote-data"], ["predict-result", "predict-data"]]) {
  const source = document.getElementById(data);
  if (source) GridCharts.render(document.getElementById(box), JSON.parse(source.textContent), null);
}
