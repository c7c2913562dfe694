"""Measurements of a drawn result page in the browser, shared by the readability tests and the
screenshot script (which prints them before and after a change).

``measure(page)`` returns, for the charts drawn on the page (``window.GridCharts.charts``):

- ``legend``: per chart, the series with data and how many of their legend entries a reader
  sees (inside the window and not clipped by the chart's legend box);
- ``colours``: per chart, the number of series and of distinct line colours;
- ``below``: charts whose y axis goes below 0 although no plotted value does (an axis
  stretched by an error bar below a physical bound);
and for the tables, each one's width against its card's inner width and whether the table
scrolls inside its card (the card itself never wider than the window).
"""

from __future__ import annotations

MEASURE = """() => {
  const out = {charts: [], tables: []};
  const vw = document.documentElement.clientWidth;
  const realData = (ds) => ds.data.filter((d) => d !== null && d !== undefined &&
      (typeof d !== 'object' || typeof d.y === 'number' || Array.isArray(d.x)));
  (window.GridCharts ? window.GridCharts.charts : []).forEach((chart) => {
    const card = chart.canvas.closest('.chart-card');
    const id = card ? card.id : '?';
    const sets = chart.data.datasets.filter((ds) => realData(ds).length);
    const total = sets.length;
    let visible = 0;
    const html = card && card.querySelector('.chart-legend');
    if (html) {
      const cr = card.getBoundingClientRect();
      html.querySelectorAll('.legend-item').forEach((li) => {
        const r = li.getBoundingClientRect();
        if (r.width > 0 && r.height > 0 && r.left >= cr.left - 0.5 && r.right <= cr.right + 0.5 &&
            r.right <= vw + 0.5) visible += 1;
      });
    } else if (chart.legend && chart.options.plugins.legend.display !== false) {
      const L = chart.legend;
      const boxes = L.legendHitBoxes || [];
      const rect = chart.canvas.getBoundingClientRect();
      boxes.forEach((b) => {
        const inside = b.top >= L.top - 0.5 && b.top + b.height <= L.bottom + 0.5 &&
          b.left >= L.left - 0.5 && b.left + b.width <= L.right + 0.5;
        if (inside && rect.left + b.left + b.width <= vw + 0.5) visible += 1;
      });
    } else if (total <= 1) {
      visible = total;
    }
    const colours = new Set(sets.map((ds) => String(ds.borderColor)));
    const styles = new Set(sets.map((ds) =>
      [ds.borderColor, ds.borderDash || '', ds.pointStyle || ''].map(String).join('|')));
    let lowest = Infinity;
    chart.data.datasets.forEach((ds, i) => {
      if (chart.getDatasetMeta(i).yAxisID !== 'y') return;
      realData(ds).forEach((d) => {
        const y = typeof d === 'object' ? d.y : d;
        if (typeof y === 'number') lowest = Math.min(lowest, y);
      });
    });
    const y = chart.scales.y;
    out.charts.push({id: id, title: chart.canvas.getAttribute('aria-label'), total: total,
      visible: visible, colours: colours.size, styles: styles.size,
      below: !!(y && lowest >= 0 && y.min < 0), ymin: y ? y.min : null, scale: y ? y.type : null});
  });
  document.querySelectorAll('main table').forEach((t) => {
    const card = t.closest('.card');
    if (!card || !t.offsetParent) return;
    const cs = getComputedStyle(card);
    const inner = card.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const wrap = t.closest('.table-wrap');
    out.tables.push({id: card.id || t.id || '?', table: Math.round(t.getBoundingClientRect().width),
      card: Math.round(inner), cardScrolls: card.scrollWidth > card.clientWidth + 1,
      wrap: wrap ? Math.round(wrap.getBoundingClientRect().width) : null});
  });
  return out;
}"""


def measure(page) -> dict:
    """The figures above for the page as it is drawn now (open folded charts first)."""
    return page.evaluate(MEASURE)


def open_everything(page) -> None:
    """Open every folded part (the charts inside are drawn on opening) and let them lay out."""
    page.evaluate(
        "() => document.querySelectorAll('details').forEach((d) => {"
        " if (!d.open) { d.open = true; d.dispatchEvent(new Event('toggle')); } })"
    )
    page.wait_for_timeout(300)


def summary(figures: dict) -> dict:
    """Totals for a report: legend entries visible / total, charts whose colours repeat,
    charts whose axis goes below 0 with no value below it, the widest table against its card."""
    charts, tables = figures["charts"], figures["tables"]
    widest = max(tables, key=lambda t: t["table"] - t["card"], default=None)
    return {
        "charts": len(charts),
        "legend_visible": sum(c["visible"] for c in charts if c["total"] > 1),
        "legend_total": sum(c["total"] for c in charts if c["total"] > 1),
        "clipped_legends": [c["id"] for c in charts if 1 < c["total"] > c["visible"]],
        "repeating_colours": [c["id"] for c in charts if c["colours"] < c["total"]],
        "below_zero": [c["id"] for c in charts if c["below"]],
        "widest_table": widest and (widest["id"], widest["table"], widest["card"]),
        "tables_wider_than_card": sum(t["table"] > t["card"] + 1 for t in tables),
        "cards_scrolling": sum(t["cardScrolls"] for t in tables),
    }


def with_renderer(page, base: str, path: str) -> None:
    """Open ``base + path`` and load Chart.js and the portal's chart renderer into it, for a
    test that draws chart specs of its own in the page (``window.GridCharts``)."""
    page.goto(base + path)
    page.add_script_tag(url=f"{base}/static/vendor/chart.umd.min.js")
    page.add_script_tag(url=f"{base}/static/js/charts.js")
