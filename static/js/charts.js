/* GridPortal: one generic renderer for the engine's declarative chart specs (Chart.js).
 * A Result is {summary, summary_labels, summary_units, key, tables, charts}; see
 * scheduler/experiments/base.py.  The page opens with Key results (result.key, else the first
 * metrics), then the charts ordered by their `priority` and grouped by `section` (the first
 * few drawn, the rest folded and drawn when opened), then the tables (long ones paged).
 * A chart whose data are empty or constant becomes one sentence.  Every chart has a PNG
 * download (white background, title, 2x) and a CSV link to the API's chart export. */
(function () {
  "use strict";
  const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2",
                   "#db2777", "#4b5563", "#65a30d", "#9333ea"];
  const OPEN_CHARTS = 4;      // charts drawn before "More charts"
  const KEY_MAX = 6;          // key results shown at the top
  const PAGE_ROWS = 25;       // table rows per page
  const LONG_TABLE = 50;      // longer tables are paged
  const OPEN_TABLE = 12;      // longer tables start folded

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Numbers for people: thousands separators, 4 significant digits, never "5.404e+04";
  // durations (unit "s") as s / min / h / days, bytes as kB / MB / GB.
  function num(v, digits) {
    if (Number.isInteger(v)) return v.toLocaleString("en-US");
    const a = Math.abs(v);
    if (a >= 1e4) return Math.round(v).toLocaleString("en-US");
    if (a !== 0 && a < 1e-4) return v.toExponential(1).replace("e", "×10^");
    return v.toLocaleString("en-US", {maximumSignificantDigits: digits || 4});
  }
  function fmt(v, unit) {
    if (v === null || v === undefined || v === "") return "–";
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v !== "number") return String(v);
    if (!Number.isFinite(v)) return String(v);
    if (unit === "s") return duration(v);
    if (unit === "min") return duration(v * 60);  // "74.1 min", "5.2 h": never 4 decimals
    if (unit === "h") return duration(v * 3600);
    if (unit === "bytes") return bytes(v);
    const text = num(v);
    if (!unit) return text;
    if (unit === "%") return text + " %";
    return text + " " + unit;
  }
  function duration(s) {
    const a = Math.abs(s);
    if (a < 120) return num(s, 3) + " s";
    if (a < 7200) return num(s / 60, 3) + " min";
    if (a < 3 * 86400) return num(s / 3600, 3) + " h";
    // days and hours ("18 d 3 h"), never "18.13 days"
    const hours = Math.round(a / 3600), d = Math.floor(hours / 24), h = hours % 24;
    return (s < 0 ? "−" : "") + d.toLocaleString("en-US") + " d" + (h ? " " + h + " h" : "");
  }
  function bytes(b) {
    const a = Math.abs(b);
    if (a < 1e3) return num(b) + " B";
    if (a < 1e6) return num(b / 1e3, 3) + " kB";
    if (a < 1e9) return num(b / 1e6, 3) + " MB";
    return num(b / 1e9, 3) + " GB";
  }
  function tick(v) { return typeof v === "number" ? num(v, 3) : v; }

  // ---- data checks -------------------------------------------------------------------
  const finite = (v) => typeof v === "number" && Number.isFinite(v);
  function yOf(p, type) { return type === "gantt" ? p[1] : p[1]; }
  function hasData(s) { return (s.points || []).some((p) => finite(p[1]) || (p[1] !== null && p[1] !== undefined && typeof p[1] !== "number")); }

  // One sentence instead of a chart when there is nothing to see: no data, or every point
  // the same (a flat line, a vertical line, one bar).  Returns null when the chart is worth it.
  function triviality(spec) {
    if (spec.type === "gantt") return (spec.series || []).some((s) => s.points.length) ? null : "nothing was scheduled";
    const series = (spec.series || []).filter((s) => !s.reference && hasData(s));
    if (!series.length) return "no data";
    const ys = [], xs = [];
    series.forEach((s) => s.points.forEach((p) => { if (finite(p[1])) { ys.push(p[1]); xs.push(p[0]); } }));
    if (!ys.length) return "no data";
    const yConst = ys.every((y) => y === ys[0]);
    const hasErr = series.some((s) => (s.errors || []).some((e) => finite(e) && e > 0));
    if (ys.length === 1 && spec.type !== "bar" && spec.type !== "histogram") {
      return "only one point: " + (spec.y.label || "y") + " = " + fmt(ys[0]) + " at " + (spec.x.label || "x") + " = " + fmt(xs[0]);
    }
    if (yConst && !hasErr && (ys.length > 1 || spec.type !== "bar")) {
      return (spec.y.label || "the value") + " is " + fmt(ys[0]) + " at every point" + (ys.length > 1 ? " (" + ys.length + " points)" : "");
    }
    if ((spec.type === "line" || spec.type === "scatter") && xs.length > 1 && xs.every((x) => x === xs[0])) {
      return "every point has " + (spec.x.label || "x") + " = " + fmt(xs[0]) + " (" + xs.length + " points)";
    }
    return null;
  }

  // ---- Chart.js config -----------------------------------------------------------------
  // Error bars (series.errors, one value per point) drawn over line, scatter and bar charts;
  // `errorsLow` (when set) is the part below the point: an error bar cut at a physical bound.
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
          if (!finite(e)) return;
          const raw = ds.data[j];
          if (raw === null || raw === undefined) return;
          const y = typeof raw === "object" ? raw.y : raw;
          if (!finite(y)) return;
          const low = ds.errorsLow && finite(ds.errorsLow[j]) ? ds.errorsLow[j] : e;
          const top = yScale.getPixelForValue(y + e), bottom = yScale.getPixelForValue(y - low);
          ctx.beginPath();
          ctx.moveTo(pt.x, top); ctx.lineTo(pt.x, bottom);
          ctx.moveTo(pt.x - 4, top); ctx.lineTo(pt.x + 4, top);
          if (low === e) { ctx.moveTo(pt.x - 4, bottom); ctx.lineTo(pt.x + 4, bottom); }
          ctx.stroke();
        });
        ctx.restore();
      });
    },
  };
  const whiteBackground = {
    id: "gridWhite",
    beforeDraw(chart) {
      const ctx = chart.ctx;
      ctx.save();
      ctx.globalCompositeOperation = "destination-over";
      ctx.fillStyle = "#ffffff";
      ctx.fillRect(0, 0, chart.width, chart.height);
      ctx.restore();
    },
  };

  function axis(spec, fallback) {
    const type = spec.scale === "log" ? "logarithmic" : spec.scale === "category" ? "category" : fallback;
    const out = {type: type, title: {display: !!spec.label, text: spec.label}};
    if (type === "linear") out.ticks = {callback: tick};
    if (type === "logarithmic") {
      // Only powers of ten (and 2, 5 between them when the range is small): no overlapping labels.
      out.ticks = {autoSkip: true, maxRotation: 0, callback: function (v) {
        const m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
        const range = this.max / Math.max(this.min, 1e-300);
        const keep = Math.abs(m - 1) < 1e-6 || (range < 1e3 && (Math.abs(m - 2) < 1e-6 || Math.abs(m - 5) < 1e-6));
        return keep ? num(v, 3) : null;
      }};
    }
    return out;
  }

  // The y range covers every error bar (Chart.js only looks at the points).
  function errorRange(datasets, log) {
    let lo = Infinity, hi = -Infinity;
    datasets.forEach((ds) => {
      if (!ds.errors) return;
      ds.data.forEach((d, j) => {
        const y = d !== null && typeof d === "object" ? d.y : d;
        const e = ds.errors[j];
        if (!finite(y) || !finite(e)) return;
        const low = ds.errorsLow && finite(ds.errorsLow[j]) ? ds.errorsLow[j] : e;
        if (!log || y - low > 0) lo = Math.min(lo, y - low);
        hi = Math.max(hi, y + e);
      });
    });
    return lo <= hi ? {lo: lo, hi: hi} : null;
  }

  // Series that cannot share an axis (one is less than 1/25 of another, e.g. a violation
  // rate next to a utilisation) go to a second axis on the right; a spec may say so itself
  // with series[i].axis = "y2" (and y2: {label}).  Series of one quantity (spec.y.shared: a
  // sweep's metric family, a compare page's runs) never split: a log axis shows their range.
  function splitAxes(spec) {
    const real = spec.series.filter((s) => !s.reference);
    if (real.some((s) => s.axis === "y2")) return real.map((s) => s.axis === "y2");
    if (spec.y.shared || spec.y.scale === "log" || real.length < 2 || real.length > 4) return null;
    const peak = real.map((s) => Math.max(0, ...s.points.map((p) => (finite(p[1]) ? Math.abs(p[1]) : 0))));
    const top = Math.max(...peak);
    if (!(top > 0)) return null;
    const small = peak.map((m) => m > 0 && m < top / 25);
    return small.some(Boolean) ? small : null;
  }

  // ---- Reading aids: units, log scales, physical bounds, coinciding series ---------------
  // A spec is prepared once before drawing; what it changed is said under the chart (notes).

  // Durations in seconds on an axis are shown in the unit of their size (min, h, days).
  const SECONDS = /\s*\((s|seconds)\)/;
  function timeUnit(label, unit) {
    return unit === "s" || SECONDS.test(label || "");
  }
  function rescaleTime(spec, index, axisSpec) {
    if (!axisSpec || axisSpec.scale === "category" || !timeUnit(axisSpec.label, axisSpec.unit)) return axisSpec;
    let top = 0;
    spec.series.forEach((s) => s.points.forEach((p) => { if (finite(p[index])) top = Math.max(top, Math.abs(p[index])); }));
    const [div, name] = top >= 3 * 86400 ? [86400, "days"] : top >= 2 * 3600 ? [3600, "h"] : top >= 120 ? [60, "min"] : [1, "s"];
    const label = SECONDS.test(axisSpec.label) ? axisSpec.label.replace(SECONDS, " (" + name + ")") : axisSpec.label + " (" + name + ")";
    if (div === 1) return Object.assign({}, axisSpec, {label: label});
    spec.series = spec.series.map((s) => Object.assign({}, s, {
      points: s.points.map((p) => { const q = p.slice(); if (finite(q[index])) q[index] = q[index] / div; return q; }),
      errors: index === 1 && s.errors ? s.errors.map((e) => (finite(e) ? e / div : e)) : s.errors,
    }));
    return Object.assign({}, axisSpec, {label: label});
  }

  // Quantities that can be negative although every plotted value is not: their error bars
  // are never cut at 0.
  const SIGNED = /reduction|difference|change|gain|saving|correlation|Δ|delta|improvement|advantage|log/i;
  const FRACTION = /fraction|share|CDF|probability|%|ratio|utili[sz]ation|success/i;
  const LOG_SPAN = 100;  // more than 100× between the smallest positive and the largest value
  const DENSE = 30;      // a line with more points per series is a time series, not a sweep

  function prepare(raw) {
    const spec = Object.assign({}, raw, {series: (raw.series || []).slice(), notes: (raw.notes || []).slice()});
    if (typeof raw.note === "string" && raw.note) spec.notes.push(raw.note);  // the spec's own
    if (spec.type === "gantt") return spec;
    spec.y = rescaleTime(spec, 1, spec.y);
    if (spec.type === "line" || spec.type === "scatter") spec.x = rescaleTime(spec, 0, spec.x);
    const real = spec.series.filter((s) => !s.reference);
    const ys = [];
    real.forEach((s) => s.points.forEach((p) => { if (finite(p[1])) ys.push(p[1]); }));
    const nonNegative = ys.length > 0 && ys.every((y) => y >= 0);
    // a log scale where the values span orders of magnitude (bars and sweeps, not CDFs or
    // time series, whose linear shape is the point)
    const positive = ys.filter((y) => y > 0);
    // (a line with zeros stays linear: a log axis would break it where it touches 0)
    const sparse = spec.type === "bar" || (spec.type === "line" && real.every((s) => s.points.length <= DENSE) && !ys.some((y) => y === 0));
    if (spec.y.scale !== "log" && !spec.y.linear && sparse && nonNegative && positive.length > 1 &&
        !FRACTION.test(spec.y.label || "")) {
      const span = Math.max(...positive) / Math.min(...positive);
      if (span > LOG_SPAN) {
        spec.y = Object.assign({}, spec.y, {scale: "log"});
        const zeros = ys.length - positive.length;
        spec.notes.push("Logarithmic scale: the values span " + num(span, 2) + "× (" + fmt(Math.min(...positive)) +
                        " to " + fmt(Math.max(...positive)) + ")" + (zeros ? "; " + zeros + " zero value" + (zeros > 1 ? "s are" : " is") + " not drawn" : "") + ".");
      }
    }
    // error bars cut at 0 when no value is below it (a cost, a time, a count)
    if (nonNegative && !SIGNED.test(spec.y.label || "")) {
      let cut = false;
      spec.series = spec.series.map((s) => {
        if (!s.errors || s.reference) return s;
        const low = s.errors.map((e, j) => {
          const y = s.points[j] ? s.points[j][1] : null;
          if (!finite(e) || !finite(y) || y - e >= 0) return e;
          cut = true;
          return y;
        });
        return Object.assign({}, s, {errorsLow: low});
      });
      if (cut) spec.notes.push("Error bars are cut at 0: " + (spec.y.label || "the value") + " cannot be negative (the full ± spread is in the data CSV).");
    }
    // series drawn on top of each other: say so (once for the runs of a compare page in which
    // the same series coincide)
    const same = coinciding(real);
    const and = (names) => names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
    const where = " (" + (spec.type === "bar" ? "the same bars" : "drawn on the same line") + ").";
    const byParts = new Map();
    same.forEach((names) => {
      const members = names.map((n) => real.find((s) => s.name === n));
      const grouped = members.every((s) => s.part !== undefined && s.group !== undefined && s.group === members[0].group);
      const key = grouped ? JSON.stringify(members.map((s) => s.part)) : JSON.stringify(names);
      if (!byParts.has(key)) byParts.set(key, {names: grouped ? members.map((s) => s.part) : names, groups: []});
      if (grouped) byParts.get(key).groups.push(members[0].group);
    });
    const runs = uniq(real.map((s) => s.group).filter((g) => g !== undefined));
    byParts.forEach((x) => {
      const inRuns = !x.groups.length ? "" : x.groups.length === runs.length ? " in every run" : " in " + and(x.groups);
      spec.notes.push(and(x.names) + " coincide" + inRuns + where);
    });
    spec.coinciding = new Set(same.flatMap((names) => names.slice(1)));
    return spec;
  }

  function coinciding(series) {
    const key = (s) => JSON.stringify(s.points.map((p) => [p[0], finite(p[1]) ? Number(p[1].toPrecision(9)) : p[1]]));
    const byKey = new Map();
    series.forEach((s) => {
      if (!s.points.length || !hasData(s)) return;
      const k = key(s);
      if (!byKey.has(k)) byKey.set(k, []);
      byKey.get(k).push(s.name);
    });
    return Array.from(byKey.values()).filter((names) => names.length > 1);
  }

  // ---- Series styles: no colour twice within a chart ----------------------------------------
  // Up to 10 series take PALETTE; more get evenly spaced hues (each one distinct) with a dash
  // and a point style that change from one series to the next.  Series of a compare page carry
  // `group` (the run) and `part` (the series within a run): one hue per part, a shade, a dash
  // and a point style per run, so that one series' runs read as a family.
  const DASHES = [[], [8, 4], [2, 3], [12, 4, 2, 4], [4, 4]];
  const POINTS = ["circle", "rect", "triangle", "rectRot", "star", "crossRot"];
  const HUES = [221, 0, 142, 32, 262, 189, 330, 215, 85, 280];
  function hex(h, s, l) {
    s /= 100; l /= 100;
    const k = (n) => (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
    const f = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)))));
    return "#" + [f(0), f(8), f(4)].map((v) => v.toString(16).padStart(2, "0")).join("");
  }
  function uniq(values) { return Array.from(new Set(values)); }
  function styles(series) {
    const real = series.filter((s) => !s.reference);
    const groups = uniq(real.map((s) => s.group).filter((g) => g !== undefined));
    const parts = uniq(real.map((s) => s.part).filter((p) => p !== undefined));
    const families = groups.length > 1 && parts.length > 1 && real.every((s) => s.group !== undefined && s.part !== undefined);
    const n = real.length;
    let k = -1;
    return series.map((s) => {
      if (s.reference) return {color: "#000000", dash: [6, 4], point: "circle"};
      k += 1;
      if (families) {
        const p = parts.indexOf(s.part), g = groups.indexOf(s.group);
        const hue = p < HUES.length ? HUES[p] : (p * 360 / parts.length) % 360;
        const light = groups.length > 1 ? 34 + (30 * g) / (groups.length - 1) : 45;
        return {color: hex(hue, 75, light), dash: DASHES[g % DASHES.length], point: POINTS[g % POINTS.length]};
      }
      if (n <= PALETTE.length) return {color: PALETTE[k], dash: [], point: "circle"};
      return {color: hex((k * 360) / n, 72, k % 2 ? 36 : 52), dash: DASHES[k % DASHES.length], point: POINTS[k % POINTS.length]};
    });
  }

  function config(spec) {
    spec = spec.notes && spec.coinciding ? spec : prepare(spec);
    const look = styles(spec.series);
    const color = (i) => look[i].color;
    const dashOf = (s, i) => (spec.coinciding.has(s.name) && !look[i].dash.length ? [6, 4] : look[i].dash);
    const base = {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: {
        // The page draws its own legend under the chart (an HTML list that wraps: never
        // clipped, see renderChart); the PNG export turns this one on.
        legend: {
          display: false,
          position: "bottom",
          labels: {
            boxWidth: 12, font: {size: 11}, usePointStyle: spec.series.length > PALETTE.length,
            // No legend entry without visible data.
            filter: (item, data) => {
              const ds = data.datasets[item.datasetIndex];
              return !!ds && ds.data.some((d) => d !== null && d !== undefined && (typeof d !== "object" || finite(d.y) || Array.isArray(d.x)));
            },
          },
        },
        title: {display: false, text: spec.title},
        tooltip: {callbacks: {}},
      },
    };
    if (spec.type === "bar" || spec.type === "histogram") {
      // Categories: the union over all series, in first-seen order, so that overlaid runs
      // with different categories still line up.
      const labels = [], seen = new Set();  // a Set: 40,000 categories must not be 40,000² steps
      spec.series.forEach((s) => s.points.forEach((p) => { const l = String(p[0]); if (!seen.has(l)) { seen.add(l); labels.push(l); } }));
      const hist = spec.type === "histogram";
      const align = (s, values) => {
        const at = new Map(s.points.map((p, j) => [String(p[0]), values[j]]));
        return labels.map((l) => (at.has(l) ? at.get(l) : null));
      };
      const right = splitAxes(spec);
      const datasets = spec.series.map((s, i) => ({
        label: s.name, data: align(s, s.points.map((p) => p[1])),
        errors: s.errors ? align(s, s.errors) : undefined,
        errorsLow: s.errorsLow ? align(s, s.errorsLow) : undefined,
        backgroundColor: color(i) + "cc", borderColor: color(i), borderWidth: 1,
        borderDash: dashOf(s, i),
        barPercentage: hist && spec.series.length === 1 ? 1.0 : 0.9,
        categoryPercentage: hist && spec.series.length === 1 ? 1.0 : 0.8,
        yAxisID: right && right[i] ? "y2" : "y",
      }));
      const scales = {x: axis(spec.x, "category"), y: axis(spec.y, "linear")};
      addRight(scales, spec, right);
      fitErrors(scales, datasets);
      return {type: "bar", data: {labels: labels, datasets: datasets},
              options: Object.assign(base, {scales: scales}), plugins: [errorBars]};
    }
    if (spec.type === "gantt") {
      const rows = [], seenRows = new Set();
      spec.series.forEach((s) => s.points.forEach((p) => { const r = String(p[2]); if (!seenRows.has(r)) { seenRows.add(r); rows.push(r); } }));
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
    const right = splitAxes(spec);
    // A one-point series among longer ones is a marker (the chosen plan, best effort): drawn
    // last, on top of the others, and larger.
    const longest = Math.max(0, ...spec.series.map((s) => s.points.length));
    let k = -1;
    const datasets = spec.series.map((s, i) => {
      if (!s.reference) k += 1;
      const marker = !s.reference && s.points.length === 1 && longest > 1;
      const radius = marker ? 7 : scatter ? 2.5 : (s.points.length > 60 ? 0 : 2.5);
      return {
        label: s.name, data: s.points.map((p) => ({x: p[0], y: p[1]})), errors: s.errors, errorsLow: s.errorsLow,
        borderColor: color(i), backgroundColor: s.reference ? "#00000033" : color(i) + (marker ? "ee" : scatter ? "99" : "33"),
        pointRadius: radius, pointHoverRadius: radius + 2, pointStyle: marker ? (look[i].point === "circle" ? "rectRot" : look[i].point) : look[i].point,
        showLine: !scatter || !!s.reference,
        borderWidth: marker ? 2.5 : 2, tension: 0, borderDash: dashOf(s, i),
        order: marker ? -1 : 0,
        yAxisID: right && !s.reference && right[k] ? "y2" : "y",
      };
    });
    const scales = {x: axis(spec.x, "linear"), y: axis(spec.y, "linear")};
    addRight(scales, spec, right);
    fitErrors(scales, datasets);
    return {
      type: scatter ? "scatter" : "line",
      data: {datasets: datasets},
      options: Object.assign(base, {parsing: true, scales: scales}),
      plugins: [errorBars],
    };
  }

  function addRight(scales, spec, right) {
    if (!right || !right.some(Boolean)) return;
    const names = spec.series.filter((s) => !s.reference).filter((s, i) => right[i]).map((s) => s.name);
    const label = (spec.y2 && spec.y2.label) || names.join(", ") + " (right axis)";
    scales.y2 = {type: "linear", position: "right", grid: {drawOnChartArea: false},
                 title: {display: true, text: label}, ticks: {callback: tick}};
  }

  function fitErrors(scales, datasets) {
    for (const id of Object.keys(scales)) {
      if (id === "x") continue;
      const r = errorRange(datasets.filter((d) => (d.yAxisID || "y") === id), scales[id].type === "logarithmic");
      if (!r) continue;
      const pad = (r.hi - r.lo) * 0.04;
      scales[id].suggestedMin = r.lo - (r.lo < 0 ? pad : 0);
      scales[id].suggestedMax = r.hi + pad;
      if (scales[id].type === "logarithmic") scales[id].suggestedMin = r.lo;
    }
  }

  // ---- PNG export: white background, the title, twice the resolution -------------------
  function pngOf(spec) {
    // off screen, sized through the CSSOM (a style attribute is inline style: refused by the CSP)
    const holder = el("div");
    Object.assign(holder.style, {position: "fixed", left: "-10000px", top: "0", width: "900px", height: "480px"});
    const canvas = el("canvas");
    holder.appendChild(canvas);
    document.body.appendChild(holder);
    const cfg = config(spec);
    cfg.options.devicePixelRatio = 2;
    cfg.options.responsive = true;
    cfg.options.plugins.title = {display: true, text: spec.title, font: {size: 15, weight: "bold"}, color: "#111827"};
    cfg.options.plugins.legend.display = spec.series.filter(hasData).length > 1;  // below, every entry
    cfg.plugins = (cfg.plugins || []).concat([whiteBackground]);
    const chart = new Chart(canvas, cfg);
    const url = chart.toBase64Image("image/png", 1);
    chart.destroy();
    holder.remove();
    return url;
  }

  // ---- Key results and the summary -------------------------------------------------------
  // The server labels every key (scheduler/labels.py); a key it missed is at least not shown
  // raw: "mean_wait_h" -> "mean wait h".
  function words(key) { return String(key).replace(/_+/g, " ").trim(); }

  // Titles, axes and column headers composed by a sweep's aggregate ("first_submit mean",
  // "jobs_with_requested_time vs procs"): keys the page labelled (#key-labels) take their
  // label, any other snake_case key its words.
  let keyLabels = null;
  function readableText(text) {
    if (keyLabels === null) {
      const node = document.getElementById("key-labels");
      try { keyLabels = node ? JSON.parse(node.textContent) : {}; } catch (e) { keyLabels = {}; }
    }
    if (typeof text !== "string") return text;
    return text.replace(/[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*/g, (w) =>
      (Object.prototype.hasOwnProperty.call(keyLabels, w) ? keyLabels[w] : (w.includes("_") ? words(w) : w)));
  }

  function readableSpec(spec) {
    const axis = (a) => (a && a.label ? Object.assign({}, a, {label: readableText(a.label)}) : a);
    const out = Object.assign({}, spec, {title: readableText(spec.title), x: axis(spec.x), y: axis(spec.y)});
    if (spec.y2) out.y2 = axis(spec.y2);
    return out;
  }

  function keyMetrics(result) {
    const summary = result.summary || {};
    const ref = (result.reference || {}).summary || {};
    const declared = (result.key || []).map((k) => (typeof k === "string" ? k : k.metric)).filter((k) => k in summary);
    if (declared.length) return declared.slice(0, KEY_MAX);
    const numeric = Object.keys(summary).filter((k) => typeof summary[k] === "number");
    const published = numeric.filter((k) => k in ref);
    // Without a declaration: outcomes before the description of the inputs (counts of jobs,
    // sites, processors…) and before spreads (std) — those stay in "All metrics".
    const context = /^(sites|submissions|workflow_tasks|jobs|simulated_jobs|dropped|dropped_jobs|machine_procs|processors|procs|requests|links|cpus|cases|days|first_day|trace_jobs|reservations|change_points|submit_offset_hours|sweep_points|runs|finished_runs|failed_runs|repetitions)$|(^|_)std(_|$)|_n$/;
    const outcome = numeric.filter((k) => !(k in ref) && !context.test(k));
    const rest = outcome.length ? outcome : numeric.filter((k) => !(k in ref));
    return published.concat(rest).slice(0, Math.min(KEY_MAX, Math.max(4, published.length)));
  }

  function publishedText(checks, labels) {
    const than = (t) => (typeof t === "string" ? (labels || {})[t] || t : fmt(t));
    return checks.map((c) => "published " + (c.value !== null && c.value !== undefined ? fmt(c.value) : c.shape + " " + than(c.than)) + " — " + c.verdict).join("; ");
  }

  // A sweep's answer (result.extremes, gridportal/experiments/sweeps.py): for each main
  // metric the best and the worst point with their parameters ("highest"/"lowest" where the
  // metric has no better direction).
  function renderExtremes(container, result) {
    const card = el("section", {class: "card", id: "key-results", "data-extremes": "true"});
    card.appendChild(el("h2", {}, "Key results"));
    const grid = el("div", {class: "key-grid"});
    result.extremes.forEach((x) => {
      const tile = el("div", {class: "key key-extreme", "data-metric": x.metric});
      tile.appendChild(el("div", {class: "key-label", title: x.metric}, x.label));
      const [hi, lo] = x.better ? ["best", "worst"] : ["highest", "lowest"];
      tile.appendChild(el("div", {class: "key-value key-best"}, hi + ": " + fmt(x.best.value, x.unit)));
      tile.appendChild(el("div", {class: "key-point"}, "at " + x.best.point));
      if (x.worst) {
        tile.appendChild(el("div", {class: "key-worst"}, lo + ": " + fmt(x.worst.value, x.unit)));
        tile.appendChild(el("div", {class: "key-point"}, "at " + x.worst.point));
      }
      grid.appendChild(tile);
    });
    card.appendChild(grid);
    if (result.extremes_note) card.appendChild(el("p", {class: "muted"}, result.extremes_note));
    container.appendChild(card);
  }

  function renderKey(container, result) {
    if ((result.extremes || []).length) return renderExtremes(container, result);
    const keys = keyMetrics(result);
    if (!keys.length) return;
    const labels = result.summary_labels || {}, units = result.summary_units || {};
    const ref = (result.reference || {}).summary || {};
    const card = el("section", {class: "card", id: "key-results"});
    card.appendChild(el("h2", {}, "Key results"));
    const grid = el("div", {class: "key-grid"});
    keys.forEach((k) => {
      const tile = el("div", {class: "key", "data-metric": k});
      tile.appendChild(el("div", {class: "key-value"}, fmt(result.summary[k], units[k])));
      tile.appendChild(el("div", {class: "key-label", title: k}, labels[k] || words(k)));
      if (ref[k]) tile.appendChild(el("div", {class: "key-published muted"}, publishedText(ref[k], labels)));
      grid.appendChild(tile);
    });
    card.appendChild(grid);
    container.appendChild(card);
  }

  function renderSummary(container, result, csvUrl) {
    const n = Object.keys(result.summary || {}).length;
    const card = el("details", {class: "card", id: "summary"});
    if (n <= KEY_MAX && !(result.key || []).length) card.open = true;
    card.appendChild(el("summary", {}, "All " + n + " metric" + (n === 1 ? "" : "s")));
    const table = el("table", {class: "kv"});
    const labels = result.summary_labels || {}, units = result.summary_units || {};
    for (const [k, v] of Object.entries(result.summary || {})) {
      const tr = el("tr", {"data-metric": k});
      tr.appendChild(el("th", {title: k}, labels[k] || words(k)));
      tr.appendChild(el("td", {}, fmt(v, units[k])));
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

  // ---- Tables: long ones folded and paged -------------------------------------------------
  // A column's unit: the server's (column_units), else the one its header names ("mean wait
  // (s)", "makespan (h)"): durations are written "18 d 3 h", not 1,552,128; sizes in kB/MB/GB.
  const HEADER_UNIT = /\s*\((s|seconds|min|h|hours|days)\)\s*$/;
  const TO_SECONDS = {s: 1, seconds: 1, min: 60, h: 3600, hours: 3600, days: 86400};
  function columnUnit(tab, i, header) {
    const u = (tab.column_units || [])[i];
    if (u && u in TO_SECONDS) return {unit: "s", scale: TO_SECONDS[u], header: header.replace(HEADER_UNIT, "")};
    if (u === "bytes") return {unit: "bytes", scale: 1, header: header};
    const m = HEADER_UNIT.exec(header);
    if (m) return {unit: "s", scale: TO_SECONDS[m[1]], header: header.replace(HEADER_UNIT, "")};
    return {unit: "", scale: 1, header: header};
  }

  function renderTable(container, tab, csvUrl) {
    const long = tab.rows.length > LONG_TABLE;
    const fold = tab.rows.length > OPEN_TABLE;
    const card = el(fold ? "details" : "section", {class: "card table-card", id: "table-" + tab.id, "data-rows": String(tab.rows.length)});
    const head2 = el(fold ? "summary" : "h2", {}, tab.title + (fold ? " (" + tab.rows.length.toLocaleString("en-US") + " rows)" : ""));
    card.appendChild(head2);
    const wrap = el("div", {class: "table-wrap"});
    const table = el("table");
    const head = el("tr");
    const cols = tab.columns.map((c, i) => columnUnit(tab, i, readableText((tab.column_labels || [])[i] || c)));
    tab.columns.forEach((c, i) => head.appendChild(el("th", {title: c}, cols[i].header)));
    const thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
    const body = el("tbody");
    table.appendChild(body);
    wrap.appendChild(table);
    card.appendChild(wrap);
    let page = 0;
    const pages = Math.max(1, Math.ceil(tab.rows.length / PAGE_ROWS));
    const nav = el("p", {class: "pager"});
    const info = el("span", {class: "muted"});
    const prev = el("button", {type: "button", class: "secondary"}, "‹ previous");
    const next = el("button", {type: "button", class: "secondary"}, "next ›");
    function show() {
      body.innerHTML = "";
      const rows = long ? tab.rows.slice(page * PAGE_ROWS, (page + 1) * PAGE_ROWS) : tab.rows;
      rows.forEach((r) => {
        const tr = el("tr");
        r.forEach((c, i) => {
          const u = cols[i] || {unit: "", scale: 1};
          const text = finite(c) && u.unit ? fmt(c * u.scale, u.unit) : typeof c === "string" ? wordFor(c) : fmt(c);
          // the raw value stays in the cell's title (and in the CSV)
          tr.appendChild(el("td", text !== String(c) && c !== null && c !== undefined ? {title: String(c)} : {}, text));
        });
        body.appendChild(tr);
      });
      info.textContent = " rows " + (page * PAGE_ROWS + 1) + "–" + Math.min(tab.rows.length, (page + 1) * PAGE_ROWS) + " of " + tab.rows.length.toLocaleString("en-US") + " ";
      prev.disabled = page === 0; next.disabled = page >= pages - 1;
    }
    prev.addEventListener("click", () => { page = Math.max(0, page - 1); show(); });
    next.addEventListener("click", () => { page = Math.min(pages - 1, page + 1); show(); });
    show();
    if (long) { nav.appendChild(prev); nav.appendChild(info); nav.appendChild(next); card.appendChild(nav); }
    if (csvUrl) {
      const p = el("p", {class: "downloads"});
      p.appendChild(el("a", {href: csvUrl + "?part=table:" + encodeURIComponent(tab.id)}, "CSV (all rows)"));
      card.appendChild(p);
    }
    container.appendChild(card);
  }

  // ---- Charts ---------------------------------------------------------------------------
  // A long legend or long category labels must not squeeze the plot into a strip (issue 20:
  // the compare page's 8-18 entry legends, a phone's width): the box grows until the plot
  // area is MIN_PLOT px tall.  Only grows, so the resize it causes settles at once.
  const MIN_PLOT = 170;
  const LONG_AXIS = 30;  // characters of a y title that fit along a phone's plot
  const minPlotHeight = {
    id: "minPlotHeight",
    afterLayout(chart) {
      const area = chart.chartArea;
      const box = chart.canvas.parentNode;
      if (!area || !box || chart.height <= 0) return;
      const plot = area.bottom - area.top;
      const want = Math.ceil(chart.height + MIN_PLOT - plot);
      if (plot < MIN_PLOT && want > box.clientHeight + 1) box.style.height = want + "px";
    },
  };

  // The legend under a chart: an HTML list that wraps (never clipped, however many series and
  // however narrow the screen), each entry a swatch in the series' colour, dash and point style;
  // a click hides or shows the series.  With many series of several runs (a compare page) a
  // chooser above it shows one run at a time.
  const CHOOSER_MIN = 9;
  function swatch(ds) {
    const c = el("canvas", {class: "legend-swatch", width: "56", height: "24", "aria-hidden": "true"});
    const ctx = c.getContext("2d");
    ctx.scale(2, 2);
    ctx.strokeStyle = ds.borderColor; ctx.fillStyle = ds.borderColor; ctx.lineWidth = 2;
    if (ds.type === "bar" || ds.barPercentage !== undefined) {
      ctx.fillStyle = ds.backgroundColor; ctx.fillRect(4, 2, 20, 8); ctx.setLineDash(ds.borderDash || []); ctx.strokeRect(4, 2, 20, 8);
      return c;
    }
    ctx.setLineDash(ds.borderDash || []);
    if (ds.showLine !== false) { ctx.beginPath(); ctx.moveTo(1, 6); ctx.lineTo(27, 6); ctx.stroke(); }
    ctx.setLineDash([]);
    if (ds.pointRadius > 0 || ds.showLine === false) shape(ctx, ds.pointStyle || "circle", 14, 6, 3.5);
    return c;
  }
  // The point styles of styles() in a legend swatch.
  function shape(ctx, style, x, y, r) {
    ctx.beginPath();
    if (style === "rect") ctx.rect(x - r, y - r, 2 * r, 2 * r);
    else if (style === "rectRot") { ctx.moveTo(x, y - r - 1); ctx.lineTo(x + r + 1, y); ctx.lineTo(x, y + r + 1); ctx.lineTo(x - r - 1, y); ctx.closePath(); }
    else if (style === "triangle") { ctx.moveTo(x, y - r - 1); ctx.lineTo(x + r + 1, y + r); ctx.lineTo(x - r - 1, y + r); ctx.closePath(); }
    else if (style === "star" || style === "crossRot") {
      const d = r + 0.5;
      ctx.moveTo(x - d, y - d); ctx.lineTo(x + d, y + d); ctx.moveTo(x - d, y + d); ctx.lineTo(x + d, y - d);
      if (style === "star") { ctx.moveTo(x, y - d - 1); ctx.lineTo(x, y + d + 1); ctx.moveTo(x - d - 1, y); ctx.lineTo(x + d + 1, y); }
      ctx.stroke();
      return;
    } else ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fill();
  }
  function htmlLegend(card, chart, spec) {
    const items = chart.data.datasets.map((ds, i) => [ds, i]).filter(([ds]) =>
      ds.data.some((d) => d !== null && d !== undefined && (typeof d !== "object" || finite(d.y) || Array.isArray(d.x))));
    if (items.length < 2) return;
    const list = el("ul", {class: "chart-legend", "aria-label": "legend"});
    card.querySelector(".chart-box").after(list);
    // a compare page's series by run: the run's name once, then its series' names
    const family = (i) => spec.series[i] && spec.series[i].group !== undefined && spec.series[i].part !== undefined;
    const byRun = items.every(([, i]) => family(i)) && uniq(items.map(([, i]) => spec.series[i].group)).length > 1;
    let run = null;
    const entries = items.map(([ds, i]) => {
      if (byRun && spec.series[i].group !== run) {
        run = spec.series[i].group;
        list.appendChild(el("li", {class: "legend-group"}, run + ":"));
      }
      const li = el("li", {class: "legend-item", "data-dataset": String(i)});
      const button = el("button", {type: "button", class: "legend-button", "aria-pressed": "true", title: "hide or show " + ds.label});
      button.appendChild(swatch(ds));
      button.appendChild(el("span", {class: "legend-text"}, byRun ? spec.series[i].part : ds.label));
      button.addEventListener("click", () => {
        const on = !chart.isDatasetVisible(i);
        chart.setDatasetVisibility(i, on);
        li.classList.toggle("off", !on);
        button.setAttribute("aria-pressed", String(on));
        chart.update();
      });
      li.appendChild(button);
      list.appendChild(li);
      return [li, button, i];
    });
    const groups = uniq((spec.series || []).map((s) => s.group).filter((g) => g !== undefined));
    if (groups.length > 1 && items.length >= CHOOSER_MIN) {
      const chooser = el("p", {class: "chart-chooser"});
      chooser.appendChild(el("span", {class: "muted"}, "Show: "));
      const pick = (group) => {
        entries.forEach(([li, button, i]) => {
          const on = group === null || spec.series[i].group === group;
          chart.setDatasetVisibility(i, on);
          li.classList.toggle("off", !on);
          button.setAttribute("aria-pressed", String(on));
        });
        chooser.querySelectorAll("button").forEach((b) => b.classList.toggle("chosen", b.dataset.group === String(group)));
        chart.update();
      };
      [null].concat(groups).forEach((g) => {
        const b = el("button", {type: "button", class: "preset" + (g === null ? " chosen" : ""), "data-group": String(g)}, g === null ? "all" : g);
        b.addEventListener("click", () => pick(g));
        chooser.appendChild(b);
      });
      list.before(chooser);
    }
  }

  function renderChart(container, spec, csvUrl) {
    spec = readableSpec(spec);
    const ready = prepare(spec);
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
    ready.notes.forEach((text) => card.insertBefore(el("p", {class: "chart-note muted"}, text), p));
    container.appendChild(card);
    const cfg = config(ready);
    // A y title longer than a phone's plot is tall would be cut at both ends: above the plot.
    const yTitle = cfg.options.scales && cfg.options.scales.y && cfg.options.scales.y.title;
    if (yTitle && yTitle.display && String(yTitle.text || "").length > LONG_AXIS) {
      box.before(el("p", {class: "axis-caption muted"}, "↑ " + yTitle.text));
      yTitle.display = false;
    }
    cfg.plugins = (cfg.plugins || []).concat([minPlotHeight]);
    const chart = new Chart(canvas, cfg);
    htmlLegend(card, chart, ready);
    png.addEventListener("click", () => { png.href = pngOf(spec); });
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
      const text = publishedText(checks, result.summary_labels) + " (" + checks.map((c) => c.source).join("; ") + ")";
      tr.appendChild(el("td", {class: "published muted"}, text));
    });
  }

  // Charts in order of priority (lower first; declared order otherwise), grouped by section.
  function ordered(charts) {
    return charts.map((c, i) => [c, i]).sort((a, b) => ((a[0].priority ?? 50) - (b[0].priority ?? 50)) || (a[1] - b[1])).map((p) => p[0]);
  }

  function renderCharts(container, result, csvUrl) {
    const all = ordered(result.charts || []).map(readableSpec);
    const drawn = [], notes = [];
    all.forEach((spec) => {
      const why = triviality(spec);
      if (why) notes.push([spec, why]); else drawn.push(spec);
    });
    const charts = [];
    const sections = [];
    drawn.forEach((spec) => {
      const name = spec.section || "";
      let s = sections.find((x) => x.name === name);
      if (!s) { s = {name: name, specs: []}; sections.push(s); }
      s.specs.push(spec);
    });
    let shown = 0;
    sections.forEach((s, si) => {
      const host = el("div", {class: "chart-section", "data-section": s.name});
      if (s.name && sections.length > 1) host.appendChild(el("h2", {class: "section-title"}, s.name));
      container.appendChild(host);
      const first = si === 0 ? s.specs.slice(0, OPEN_CHARTS) : (shown < OPEN_CHARTS ? s.specs.slice(0, OPEN_CHARTS - shown) : []);
      const rest = s.specs.slice(first.length);
      shown += first.length;
      if (first.length) {
        const grid = el("div", {class: "charts"});
        host.appendChild(grid);
        first.forEach((spec) => charts.push(renderChart(grid, spec, csvUrl)));
      }
      if (rest.length) {
        const more = el("details", {class: "more-charts card", "data-count": String(rest.length)});
        more.appendChild(el("summary", {}, (first.length ? "More charts" : "Charts") + (s.name ? " — " + s.name : "") + " (" + rest.length + ")"));
        const grid = el("div", {class: "charts"});
        more.appendChild(grid);
        host.appendChild(more);
        let done = false;
        more.addEventListener("toggle", () => {
          if (done || !more.open) return;
          done = true;
          rest.forEach((spec) => charts.push(renderChart(grid, spec, csvUrl)));
        });
      }
    });
    if (notes.length) {
      const card = el("section", {class: "card", id: "chart-notes"});
      card.appendChild(el("h2", {}, "Charts with nothing to draw"));
      const ul = el("ul");
      notes.forEach(([spec, why]) => ul.appendChild(el("li", {"data-chart": spec.id}, spec.title + ": " + why + ".")));
      card.appendChild(ul);
      container.appendChild(card);
    }
    return charts;
  }

  function render(container, result, csvUrl) {
    container.innerHTML = "";
    result = withReference(container, result);
    renderKey(container, result);
    const charts = renderCharts(container, result, csvUrl);
    const tables = (result.tables || []).filter((tab) => !tab.export_only);
    if (tables.length) {
      const t = el("div", {class: "tables"});
      container.appendChild(t);
      tables.forEach((tab) => renderTable(t, tab, csvUrl));
    }
    // tables too wide to read on a page (a sweep's 3 columns per metric): their CSV only
    (result.tables || []).filter((tab) => tab.export_only && csvUrl).forEach((tab) => {
      const p = el("p", {class: "downloads card", id: "export-" + tab.id});
      p.appendChild(document.createTextNode(tab.title + " (" + tab.columns.length + " columns, " + tab.rows.length + " rows): "));
      p.appendChild(el("a", {href: csvUrl + "?part=table:" + encodeURIComponent(tab.id)}, "CSV"));
      container.appendChild(p);
    });
    renderSummary(container, result, csvUrl);
    markPublished(container, result);
    window.GridCharts.charts = charts;
    return charts;
  }

  // Error messages for people: a field named at a line's start gets the label the server sent
  // (#error-labels), as the server's readable_error writes it: "start_day: …" ->
  // "window start (start_day): …" (issue 20: no raw key in a live message).
  let errorLabels = null;
  function readable(text) {
    if (errorLabels === null) {
      const node = document.getElementById("error-labels");
      try { errorLabels = node ? JSON.parse(node.textContent) : {}; } catch (e) { errorLabels = {}; }
    }
    // at a line's start or after "; " (the engine joins the fields of one error that way)
    return String(text).replace(/(^|; )([a-z][a-z0-9_]*_[a-z0-9_]*|[a-z]+): /gm, (all, lead, key) =>
      (errorLabels[key] && errorLabels[key] !== key ? lead + errorLabels[key] + " (" + key + "): " : all));
  }

  // A run's progress message with the kind's names in words (#message-words, as the server's
  // readable_message): "simulating rm-fairshare" -> "simulating RM fair-share".
  let messageWords = null;
  function loadWords() {
    if (messageWords === null) {
      const node = document.getElementById("message-words");
      try { messageWords = node ? JSON.parse(node.textContent) : {}; } catch (e) { messageWords = {}; }
    }
    return messageWords;
  }
  // A table cell that is one of the kind's names ("spep", "rm-fairshare") in words.
  function wordFor(text) {
    const words = loadWords();
    return Object.prototype.hasOwnProperty.call(words, text) ? words[text] : text;
  }
  function readableMessage(text) {
    loadWords();
    return String(text || "").replace(/[A-Za-z][A-Za-z0-9_=-]*/g, (w) =>
      (Object.prototype.hasOwnProperty.call(messageWords, w) ? messageWords[w] : w));
  }

  window.GridCharts = {render: render, renderChart: renderChart, config: config, fmt: fmt, triviality: triviality, pngOf: pngOf, readable: readable, readableMessage: readableMessage, charts: []};
})();
