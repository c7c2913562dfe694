/* Draw a page-embedded Result (e.g. a workflow's level chart) with the generic renderer. */
(function () {
  "use strict";
  const data = document.getElementById("preview-data");
  if (!data) return;
  const box = document.getElementById("result");
  const result = JSON.parse(data.textContent);
  const grid = document.createElement("div");
  box.appendChild(grid);
  (result.charts || []).forEach((spec) => window.GridCharts.renderChart(grid, spec, null));
  document.body.dataset.resultDrawn = "true";
})();
