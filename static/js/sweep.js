/* Sweep page: poll overall and per-run progress; redraw the aggregate (mean ± std per point)
 * whenever more runs have finished, and once more at the end. */
(function () {
  "use strict";
  const box = document.getElementById("sweep-status");
  if (!box) return;
  const ACTIVE = ["queued", "running"];
  let drawnFinished = -1;

  function show(state) {
    const st = document.getElementById("status");
    st.textContent = state.status;
    st.className = "status status-" + state.status;
    const c = state.counts;
    document.getElementById("counts").textContent =
      c.succeeded + " done · " + c.running + " running · " + c.queued + " queued" +
      (c.failed ? " · " + c.failed + " failed" : "") + (c.cancelled ? " · " + c.cancelled + " cancelled" : "");
    document.getElementById("progress-bar").style.width = Math.round(100 * state.progress) + "%";
    state.runs.forEach((r) => {
      const row = document.querySelector('tr[data-run="' + r.id + '"]');
      if (!row) return;
      row.querySelector(".run-status").textContent = r.status;
      row.querySelector(".run-progress").textContent = Math.round(100 * r.progress) + " %";
      row.querySelector(".run-note").textContent = (r.reused ? "re-used " : "") + (r.computed_elsewhere ? "computed elsewhere " : "") + window.GridCharts.readable(r.error || "");
    });
    if (!ACTIVE.includes(state.status)) {
      const cancel = document.getElementById("cancel-form");
      if (cancel) cancel.remove();
    }
  }

  async function draw(finished, final) {
    if (finished === drawnFinished) return;
    drawnFinished = finished;
    const resp = await fetch(box.dataset.resultUrl, {credentials: "same-origin", headers: {Accept: "application/json"}});
    if (!resp.ok) return;
    window.GridCharts.render(document.getElementById("result"), await resp.json(), box.dataset.csvUrl);
    if (final) document.body.dataset.resultDrawn = "true";
  }

  async function poll() {
    try {
      const resp = await fetch(box.dataset.statusUrl, {credentials: "same-origin", headers: {Accept: "application/json"}});
      if (resp.ok) {
        const state = (await resp.json()).state;
        show(state);
        const final = !ACTIVE.includes(state.status);
        if (state.counts.succeeded > 0 || final) await draw(state.counts.succeeded + state.counts.failed, final);
        if (final) return;
      }
    } catch (e) { /* try again */ }
    setTimeout(poll, 1500);
  }
  poll();
})();
