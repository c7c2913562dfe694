/* Compare runs: the overlaid charts, drawn from the json_script data; or, while a compared run
 * is still computing (a bundle's re-run), its status polled until every run has finished, then
 * the page reloads with the comparison. */
(function () {
  "use strict";
  const waiting = document.getElementById("compare-waiting");
  if (waiting) {
    const ids = waiting.dataset.ids.split(",");
    const FINISHED = ["succeeded", "failed", "cancelled"];
    async function poll() {
      let done = 0;
      for (const id of ids) {
        try {
          const resp = await fetch("/api/experiments/" + id + "/", {credentials: "same-origin", headers: {Accept: "application/json"}});
          if (!resp.ok) continue;
          const exp = await resp.json();
          const badge = waiting.querySelector('li[data-run="' + id + '"] .run-status');
          if (badge) { badge.textContent = exp.status; badge.className = "status status-" + exp.status + " run-status"; }
          if (FINISHED.includes(exp.status)) done += 1;
        } catch (e) { /* try again */ }
      }
      if (done === ids.length) { window.location.reload(); return; }
      setTimeout(poll, 1500);
    }
    poll();
    return;
  }
  window.GridCharts.render(document.getElementById("result"), JSON.parse(document.getElementById("compare-data").textContent), null);
  document.body.dataset.resultDrawn = "true";
})();
