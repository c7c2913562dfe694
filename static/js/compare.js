// Compare runs: the overlaid charts, drawn from the json_script data.
window.GridCharts.render(document.getElementById("result"), JSON.parse(document.getElementById("compare-data").textContent), null);
document.body.dataset.resultDrawn = "true";
