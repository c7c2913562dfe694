/* Sweep list: the status of unfinished sweeps follows their runs without a reload. */
(function () {
  "use strict";
  const ACTIVE = ["queued", "running"];
  async function poll() {
    const cells = Array.from(document.querySelectorAll("td.sweep-state")).filter((td) => ACTIVE.includes(td.dataset.status));
    if (!cells.length) return;
    await Promise.all(cells.map(async (td) => {
      try {
        const resp = await fetch("/api/sweeps/" + td.dataset.sweep + "/", {credentials: "same-origin", headers: {Accept: "application/json"}});
        if (!resp.ok) return;
        const state = (await resp.json()).state;
        td.dataset.status = state.status;
        td.querySelector(".status").textContent = state.status;
        td.querySelector(".status").className = "status status-" + state.status;
        td.querySelector(".muted").textContent = Math.round(100 * state.progress) + " %";
      } catch (e) { /* try again */ }
    }));
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 2000);
})();
