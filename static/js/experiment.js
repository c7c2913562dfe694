/* Experiment page: poll the run's status through the API, then draw its result. */
(function () {
  "use strict";
  const box = document.getElementById("run-status");
  if (!box) return;
  const FINISHED = ["succeeded", "failed", "cancelled"];
  const statusEl = document.getElementById("status");
  const messageEl = document.getElementById("message");
  const bar = document.getElementById("progress-bar");
  const errorEl = document.getElementById("error");

  function show(exp) {
    statusEl.textContent = exp.status;
    statusEl.className = "status status-" + exp.status;
    messageEl.textContent = window.GridCharts.readableMessage(exp.message);
    bar.style.width = Math.round(100 * exp.progress) + "%";
    if (exp.error) { errorEl.textContent = window.GridCharts.readable(exp.error); errorEl.hidden = false; }
    if (FINISHED.includes(exp.status)) {
      const cancel = document.getElementById("cancel-form");
      if (cancel) cancel.remove();
    }
  }

  // The Published values card (and the reference series on the charts) are computed by the
  // server from the finished result: a run that finishes while the page is open gets them
  // from a fresh copy of the page, without a reload.
  async function refreshReference() {
    if (box.dataset.initialStatus === "succeeded") return;
    try {
      const resp = await fetch(window.location.href, {credentials: "same-origin"});
      if (!resp.ok) return;
      const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
      const anchor = document.getElementById("result");
      ["published-values", "published-reference"].forEach((id) => {
        const fresh = doc.getElementById(id), old = document.getElementById(id);
        if (!fresh) return;
        const node = document.importNode(fresh, true);
        if (old) old.replaceWith(node); else anchor.parentNode.insertBefore(node, anchor);
      });
    } catch (e) { /* the result is still drawn without it */ }
  }

  async function loadResult() {
    await refreshReference();
    const resp = await fetch(box.dataset.resultUrl, {credentials: "same-origin", headers: {Accept: "application/json"}});
    if (!resp.ok) { errorEl.textContent = "Could not load the result (" + resp.status + ")"; errorEl.hidden = false; return; }
    const result = await resp.json();
    document.getElementById("downloads").hidden = false;
    window.GridCharts.render(document.getElementById("result"), result, box.dataset.csvUrl);
    document.body.dataset.resultDrawn = "true";
  }

  async function poll() {
    try {
      const resp = await fetch(box.dataset.statusUrl, {credentials: "same-origin", headers: {Accept: "application/json"}});
      if (resp.ok) {
        const exp = await resp.json();
        show(exp);
        if (exp.status === "succeeded") return loadResult();
        if (FINISHED.includes(exp.status)) return;
      }
    } catch (e) { /* network hiccup: try again */ }
    setTimeout(poll, 1000);
  }
  poll();
})();
