/* GridPortal: one generic renderer for the engine's declarative chart specs (Chart.js).
 * A Result is {summary, summary_labels, tables, charts}; see scheduler/experiments/base.py.
 * Every chart gets a PNG download and a CSV link to the API's chart export. */
(function () {
  "use strict";
  const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2",
                   "#db2777", "#4b5563", "#65a30d", "#9333ea"];

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fmt(v) {
    if (v === null || v === undefined) return "–";
    if (typeof v === "number" && !Number.isInteger(v)) return v.toLocaleString(undefined, {maximumFractionDigits: 4});
    if (typeof v === "number") return v.toLocaleString();
    return String(v);
  }

  // Error bars (series.errors, one value per point) drawn over line, scatter and bar charts.
  const errorBars = {
    id: "gridErrorBars",
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      chart.data.datasets.forEach((ds, i) => {
        if (!ds.errors || chart.getDatasetMeta(i).hidden) return;
        const meta = chart.getDatasetMeta(i);
        const yScale = chart.scales[meta.yAxisID];
        ctx.save();
        ctx.strokeStyle = ds.borderColor;
        ctx.lineWidth = 1.2;
        meta.data.forEach((pt, j) => {
          const e = ds.errors[j];
          if (e === null || e === undefined) return;
          const raw = ds.data[j];
          if (raw === null || raw === undefined) return;
          const y = typeof raw === "object" ? raw.y : raw;
          const top = yScale.getPixelForValue(y + e), bottom = yScale.getPixelForValue(y - e);
          ctx.beginPath();
          ctx.moveTo(pt.x, top); ctx.lineTo(pt.x, bottom);
          ctx.moveTo(pt.x - 4, top); ctx.lineTo(pt.x + 4, top);
          ctx.moveTo(pt.x - 4, bottom); ctx.lineTo(pt.x + 4, bottom);
          ctx.stroke();
        });
        ctx.restore();
      });
    },
  };

  function axis(spec, fallback) {
    const type = spec.scale === "log" ? "logarithmic" : spec.scale === "category" ? "category" : fallback;
    return {type: type, title: {display: !!spec.label, text: spec.label}};
  }

  function config(spec) {
    const color = (i) => PALETTE[i % PALETTE.length];
    const base = {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: {legend: {display: spec.series.length > 1}, title: {display: false}},
    };
    if (spec.type === "bar" || spec.type === "histogram") {
      // Categories: the union over all series, in first-seen order, so that overlaid runs
      // with different categories still line up.
      const labels = [];
      spec.series.forEach((s) => s.points.forEach((p) => { if (!labels.includes(String(p[0]))) labels.push(String(p[0])); }));
      const hist = spec.type === "histogram";
      const align = (s, values) => {
        const at = new Map(s.points.map((p, j) => [String(p[0]), values[j]]));
        return labels.map((l) => (at.has(l) ? at.get(l) : null));
      };
      return {
        type: "bar",
        data: {
          labels: labels,
          datasets: spec.series.map((s, i) => ({
            label: s.name, data: align(s, s.points.map((p) => p[1])),
            errors: s.errors ? align(s, s.errors) : undefined,
            backgroundColor: color(i) + "cc", borderColor: color(i), borderWidth: 1,
            barPercentage: hist && spec.series.length === 1 ? 1.0 : 0.9,
            categoryPercentage: hist && spec.series.length === 1 ? 1.0 : 0.8,
          })),
        },
        options: Object.assign(base, {scales: {x: axis(spec.x, "category"), y: axis(spec.y, "linear")}}),
        plugins: [errorBars],
      };
    }
    if (spec.type === "gantt") {
      const rows = [];
      spec.series.forEach((s) => s.points.forEach((p) => { if (!rows.includes(String(p[2]))) rows.push(String(p[2])); }));
      return {
        type: "bar",
        data: {
          labels: rows,
          datasets: spec.series.map((s, i) => ({
            label: s.name, data: s.points.map((p) => ({x: [p[0], p[1]], y: String(p[2])})),
            backgroundColor: color(i) + "aa", borderColor: color(i), borderWidth: 1,
            borderSkipped: false, barPercentage: 0.9, categoryPercentage: 1.0,
          })),
        },
        options: Object.assign(base, {indexAxis: "y", scales: {x: axis(spec.x, "linear"), y: {type: "category", title: {display: !!spec.y.label, text: spec.y.label}}}}),
      };
    }
    const scatter = spec.type === "scatter";
    return {
      type: scatter ? "scatter" : "line",
      data: {
        datasets: spec.series.map((s, i) => ({
          label: s.name, data: s.points.map((p) => ({x: p[0], y: p[1]})), errors: s.errors,
          borderColor: s.reference ? "#000000" : color(i), backgroundColor: s.reference ? "#00000033" : color(i) + (scatter ? "99" : "33"),
          pointRadius: scatter ? 2.5 : (s.points.length > 60 ? 0 : 2.5), showLine: !scatter || !!s.reference,
          borderWidth: 2, tension: 0, borderDash: s.reference ? [6, 4] : undefined,
        })),
      },
      options: Object.assign(base, {
        parsing: true,
        scales: {x: axis(spec.x, "linear"), y: axis(spec.y, "linear")},
      }),
      plugins: [errorBars],
    };
  }

  function renderSummary(container, result, csvUrl) {
    const card = el("section", {class: "card", id: "summary"});
    card.appendChild(el("h2", {}, "Summary"));
    const table = el("table", {class: "kv"});
    const labels = result.summary_labels || {};
    for (const [k, v] of Object.entries(result.summary || {})) {
      const tr = el("tr", {"data-metric": k});
      tr.appendChild(el("th", {title: k}, labels[k] || k));
      tr.appendChild(el("td", {}, fmt(v)));
      table.appendChild(tr);
    }
    card.appendChild(table);
    if (csvUrl) {
      const p = el("p", {class: "downloads"});
      p.appendChild(el("a", {href: csvUrl + "?part=summary"}, "summary CSV"));
      card.appendChild(p);
    }
    container.appendChild(card);
  }

  function renderTable(container, tab, csvUrl) {
    const card = el("section", {class: "card", id: "table-" + tab.id});
    card.appendChild(el("h2", {}, tab.title));
    const table = el("table");
    const head = el("tr");
    tab.columns.forEach((c) => head.appendChild(el("th", {}, c)));
    const thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
    const body = el("tbody");
    tab.rows.forEach((r) => { const tr = el("tr"); r.forEach((c) => tr.appendChild(el("td", {}, fmt(c)))); body.appendChild(tr); });
    table.appendChild(body);
    card.appendChild(table);
    if (csvUrl) {
      const p = el("p", {class: "downloads"});
      p.appendChild(el("a", {href: csvUrl + "?part=table:" + encodeURIComponent(tab.id)}, "CSV"));
      card.appendChild(p);
    }
    container.appendChild(card);
  }

  function renderChart(container, spec, csvUrl) {
    const card = el("section", {class: "card chart-card", id: "chart-" + spec.id, "data-chart-type": spec.type});
    card.appendChild(el("h2", {}, spec.title));
    const box = el("div", {class: "chart-box"});
    const canvas = el("canvas", {"aria-label": spec.title, role: "img"});
    box.appendChild(canvas);
    card.appendChild(box);
    const p = el("p", {class: "downloads"});
    const png = el("a", {href: "#", class: "png", download: spec.id + ".png"}, "PNG");
    p.appendChild(png);
    p.appendChild(document.createTextNode(" · "));
    if (csvUrl) {
      p.appendChild(el("a", {href: csvUrl + "?part=chart:" + encodeURIComponent(spec.id), class: "csv"}, "data CSV"));
    } else {
      const csv = el("a", {href: "#", class: "csv", download: spec.id + ".csv"}, "data CSV");
      csv.addEventListener("click", () => { csv.href = "data:text/csv;charset=utf-8," + encodeURIComponent(chartCsv(spec)); });
      p.appendChild(csv);
    }
    card.appendChild(p);
    container.appendChild(card);
    const chart = new Chart(canvas, config(spec));
    png.addEventListener("click", () => { png.href = chart.toBase64Image("image/png", 1); });
    return chart;
  }

  // The same CSV as the API's chart export, for results that exist only in the page.
  function chartCsv(spec) {
    const q = (v) => (v === null || v === undefined ? "" : /[",\n]/.test(String(v)) ? '"' + String(v).replace(/"/g, '""') + '"' : String(v));
    const rows = [spec.type === "gantt" ? ["series", "start", "end", "row"] : ["series", spec.x.label, spec.y.label, "error"]];
    spec.series.forEach((s) => s.points.forEach((p, j) => {
      const row = [s.name].concat(p);
      if (spec.type !== "gantt") row.push(s.errors ? s.errors[j] : "");
      rows.push(row);
    }));
    return rows.map((r) => r.map(q).join(",")).join("\n") + "\n";
  }

  // Published values of a reproduced seed figure (issue 15): the page may embed them as
  // <script id="published-reference" type="application/json">; a "published" column in the
  // summary and a dashed reference series on the charts they belong to.
  function withReference(container, result) {
    const node = document.getElementById("published-reference");
    if (!node) return result;
    const ref = JSON.parse(node.textContent);
    const charts = (result.charts || []).map((spec) => {
      const extra = (ref.charts || {})[spec.id];
      if (!extra || !extra.length) return spec;
      return Object.assign({}, spec, {series: spec.series.concat(extra.map((s) => Object.assign({reference: true}, s)))});
    });
    container.dataset.reference = "true";
    return Object.assign({}, result, {charts: charts, reference: ref});
  }

  function markPublished(container, result) {
    const summary = (result.reference || {}).summary || {};
    container.querySelectorAll("#summary tr[data-metric]").forEach((tr) => {
      const checks = summary[tr.dataset.metric];
      if (!checks) return;
      const text = checks.map((c) => "published: " + (c.value !== null ? fmt(c.value) : c.shape + " " + c.than) + " (" + c.source + ") — " + c.verdict).join("; ");
      tr.appendChild(el("td", {class: "published muted"}, text));
    });
  }

  function render(container, result, csvUrl) {
    container.innerHTML = "";
    result = withReference(container, result);
    renderSummary(container, result, csvUrl);
    markPublished(container, result);
    const grid = el("div", {class: "charts"});
    container.appendChild(grid);
    const charts = (result.charts || []).map((spec) => renderChart(grid, spec, csvUrl));
    (result.tables || []).forEach((t) => renderTable(container, t, csvUrl));
    return charts;
  }

  window.GridCharts = {render: render, renderChart: renderChart, config: config};
})();
