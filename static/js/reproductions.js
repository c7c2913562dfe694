// The Reproductions page: filters, figure cells that reveal their presets, live status.
(function () {
  const board = document.getElementById("scoreboard");
  const kindSel = document.getElementById("filter-kind");
  const verdictSel = document.getElementById("filter-verdict");
  const SHOWN = JSON.parse(board.dataset.verdicts);
  function esc(s) { const d = document.createElement("span"); d.textContent = s; return d.innerHTML; }
  // The summary of a kind: its presets counted per verdict (recounted as runs finish).
  function recount(group) {
    const counts = {};
    group.querySelectorAll("tr.preset").forEach((tr) => {
      counts[tr.dataset.verdict] = (counts[tr.dataset.verdict] || 0) + 1;
    });
    group.querySelector("[data-role=group-counts]").innerHTML = SHOWN.filter((v) => counts[v])
      .map((v) => `<span class="verdict ${v.replace(/ /g, "-")}">${counts[v]} ${esc(v)}</span> `)
      .join("");
  }
  function applyFilters() {
    const k = kindSel.value, v = verdictSel.value;
    if (k && board.dataset.kind && board.dataset.kind !== k || !k && board.dataset.kind) {
      // the page was filtered by kind on the server: fetch the other kind's page
      const q = new URLSearchParams();
      if (k) q.set("kind", k);
      if (v) q.set("verdict", v);
      location.assign(location.pathname + (q.toString() ? "?" + q : ""));
      return;
    }
    document.querySelectorAll("details.kind-group").forEach((g) => {
      let shown = 0;
      g.querySelectorAll("tr.preset").forEach((tr) => {
        tr.hidden = (k && tr.dataset.kind !== k) || (v && tr.dataset.verdict !== v);
        if (!tr.hidden) shown += 1;
      });
      g.hidden = shown === 0;
      if (k && g.dataset.kind === k) g.open = true;
    });
    document.querySelectorAll("#board a.cell").forEach((a) => {
      a.classList.toggle("dim", Boolean(v) && a.dataset.verdict !== v);
    });
    const q = new URLSearchParams();
    if (k) q.set("kind", k);
    if (v) q.set("verdict", v);
    history.replaceState(null, "", location.pathname + (q.toString() ? "?" + q : "") + location.hash);
  }
  // A figure cell reveals its presets: opens their kind and their claims, marks and scrolls.
  function reveal(keys) {
    document.querySelectorAll("tr.preset.chosen").forEach((tr) => tr.classList.remove("chosen"));
    let first = null;
    for (const key of keys) {
      const tr = document.querySelector(`tr.preset[data-key="${CSS.escape(key)}"]`);
      if (!tr) continue;
      if (tr.hidden) { verdictSel.value = ""; applyFilters(); }
      const group = tr.closest("details.kind-group");
      group.hidden = false;
      group.open = true;
      const claims = tr.querySelector("details");
      if (claims) claims.open = true;
      tr.classList.add("chosen");
      first = first || tr;
    }
    if (first) first.scrollIntoView({block: "start"});
  }
  board.addEventListener("click", (ev) => {
    const a = ev.target.closest("a.cell");
    if (!a) return;
    ev.preventDefault();
    reveal(a.dataset.presets.split(" "));
    history.replaceState(null, "", location.pathname + location.search + a.getAttribute("href"));
  });
  function revealHash() {
    const tr = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (tr && tr.matches("tr.preset")) reveal([tr.dataset.key]);
  }
  window.addEventListener("hashchange", revealHash);
  kindSel.addEventListener("change", applyFilters);
  verdictSel.addEventListener("change", applyFilters);
  // Poll while runs are queued or running; replace the scoreboard and the rows that changed.
  async function poll() {
    if (board.dataset.active !== "true") return;
    try {
      const resp = await fetch(board.dataset.statusUrl, {headers: {"Accept": "application/json"}});
      if (resp.ok) {
        const data = await resp.json();
        document.getElementById("scoreboard-body").outerHTML = data.scoreboard_html;
        for (const [key, row] of Object.entries(data.rows)) {
          const tr = document.querySelector(`tr.preset[data-key="${CSS.escape(key)}"]`);
          if (!tr) continue;
          const open = tr.querySelector("details")?.open;
          const chosen = tr.classList.contains("chosen");
          const tmp = document.createElement("tbody");
          tmp.innerHTML = row.html;
          const fresh = tmp.firstElementChild;
          if (open && fresh.querySelector("details")) fresh.querySelector("details").open = true;
          if (chosen) fresh.classList.add("chosen");
          tr.replaceWith(fresh);
        }
        document.querySelectorAll("details.kind-group").forEach(recount);
        board.dataset.active = data.active ? "true" : "false";
        applyFilters();
      }
    } catch (e) { /* try again */ }
    setTimeout(poll, 3000);
  }
  applyFilters();
  revealHash();
  setTimeout(poll, 3000);
})();
