"""The reproduction report: run every preset with published values on the traces the user has
and write ``report.json`` plus a static, self-contained HTML page (issue 15).

Each row of the report is one preset: its published values, ours, the verdict of
:mod:`scheduler.experiments.reproduce`, the wall time, and the Result.  A preset that needs an
archive trace the user does not have is reported as ``needs trace`` with the ``fetch_trace``
command instead of failing; ``max_preset_minutes`` leaves out presets declared longer, and
``budget_minutes`` stops starting new presets once the wall time is spent — both are reported.
The HTML draws the charts the expectations refer to as inline SVG (no script, no CDN), with the
published points as a dashed reference series.
"""

from __future__ import annotations

import html
import json
import math
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..traces.swf import SWFError, read_swf
from .base import InputError, ParamError
from .reproduce import (
    NOT_RUN,
    VERDICTS,
    Reproduction,
    fetch_hint,
    find_trace_file,
    published_text,
    reference_rows,
    run_reproduction,
    value_text,
    verdict,
)

__all__ = ["build_report", "report_html", "write_report"]

NEEDS_TRACE, SKIPPED, ERROR, RAN = "needs trace", "skipped", "error", "run"


def build_report(
    reps: list[Reproduction],
    *,
    trace_files: dict[str, str] | None = None,
    trace_dirs: tuple[str, ...] = (),
    seed: int = 0,
    max_preset_minutes: float | None = None,
    budget_minutes: float | None = None,
    log: Callable[[str], None] = lambda message: None,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Any]:
    """Run the reproductions and return the report (JSON-ready)."""
    given = dict(trace_files or {})
    loaded: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    start = clock()
    for i, rep in enumerate(reps, start=1):
        row: dict[str, Any] = {**rep.as_json(), "status": RAN, "message": "", "seconds": None}
        row.update(verdict=NOT_RUN, checks=[], result=None)
        rows.append(row)
        minutes = rep.preset.minutes
        if max_preset_minutes is not None and (minutes or 0) > max_preset_minutes:
            row["status"] = SKIPPED
            row["message"] = (
                f"long: about {minutes:g} min, more than the {max_preset_minutes:g} min allowed "
                "per preset (run it with --preset or raise --max-preset-minutes)"
            )
            continue
        if budget_minutes is not None and clock() - start > budget_minutes * 60:
            row["status"], row["message"] = SKIPPED, f"the {budget_minutes:g} min budget is spent"
            continue
        missing = [
            n for n in rep.preset.traces if find_trace_file(n, given, trace_dirs) is None
        ]  # fmt: skip
        if missing:
            row["status"] = NEEDS_TRACE
            row["message"] = "; ".join(fetch_hint(n) for n in missing)
            log(f"[{i}/{len(reps)}] {rep.key}: {row['message']}")
            continue
        log(f"[{i}/{len(reps)}] {rep.key} …")
        t0 = clock()
        try:
            traces = []
            for name in rep.preset.traces:
                path = find_trace_file(name, given, trace_dirs)
                if path not in loaded:
                    loaded[path] = read_swf(path)
                traces.append(loaded[path])
            result = run_reproduction(rep, traces, seed=seed)
        except (SWFError, OSError, ParamError, InputError) as exc:
            row["status"], row["message"] = ERROR, f"{type(exc).__name__}: {exc}"
            log(f"    {row['message']}")
            continue
        row["seconds"] = round(clock() - t0, 1)
        v, checks = verdict(rep.preset, result)
        row.update(verdict=v, checks=[c.as_json() for c in checks], result=result)
        log(f"    {v} ({row['seconds']} s)")
    counts = Counter(r["verdict"] for r in rows)
    return {
        "command": "python -m scheduler reproduce",
        "seed": seed,
        "max_preset_minutes": max_preset_minutes,
        "budget_minutes": budget_minutes,
        "elapsed_s": round(clock() - start, 1),
        "totals": {v: counts.get(v, 0) for v in VERDICTS},
        "rows": rows,
    }


def write_report(report: dict[str, Any], out: str) -> tuple[Path, Path]:
    """Write ``out`` (JSON) and the HTML page beside it (same name, ``.html``)."""
    path = Path(out)
    path.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    page = path.with_suffix(".html")
    page.write_text(report_html(report))
    return path, page


# ---------------------------------------------------------------------- HTML

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b")
CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1100px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;
text-align:left;vertical-align:top}.matches{background:#dff0d8}.same-shape{background:#fcf8e3}
.differs{background:#f2dede}.not-run,.not-measured{background:#eee}
figure{display:inline-block;margin:.5em}figcaption{font-size:12px;max-width:480px}
"""


def _esc(v: Any) -> str:
    return html.escape(str(v))


def report_html(report: dict[str, Any]) -> str:
    """A self-contained page: totals, one table row per expectation, charts as inline SVG."""
    out = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        "<title>GridPortal reproductions</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>Reproductions: published values beside ours</h1>",
        f"<p>{_esc(report['command'])}, seed {report['seed']}, "
        f"{report['elapsed_s']:.0f} s. Verdicts: "
        + ", ".join(f"{_esc(k)} {v}" for k, v in report["totals"].items())
        + "</p>",
        "<table><tr><th>kind / preset</th><th>source</th><th>claim</th><th>published</th>"
        "<th>ours</th><th>verdict</th></tr>",
    ]
    for row in report["rows"]:
        name = f"{_esc(row['kind'])} / <a href='#{_esc(row['kind'])}-{_esc(row['preset'])}'>"
        name += f"{_esc(row['preset'])}</a>"
        if not row["checks"]:
            why = _esc(row["message"] or row["status"])
            out.append(
                f"<tr class='not-run'><td>{name}</td><td colspan='4'>{why}</td>"
                f"<td>{_esc(row['verdict'])}</td></tr>"
            )
            continue
        for c in row["checks"]:
            cls = c["verdict"].replace(" ", "-")
            out.append(
                f"<tr class='{cls}'><td>{name}</td><td>{_esc(c['source'])}</td>"
                f"<td>{_esc(c['claim'])}</td><td>{_esc(published_text(c))}</td>"
                f"<td>{_esc(value_text(c['ours']))}</td><td>{_esc(c['verdict'])}<br><small>"
                f"{_esc(c['detail'])}</small></td></tr>"
            )
    out.append("</table>")
    for row in report["rows"]:
        if row["result"] is None:
            continue
        out.append(
            f"<h2 id='{_esc(row['kind'])}-{_esc(row['preset'])}'>{_esc(row['title'])}</h2>"
            f"<p>{_esc(row['kind'])} / {_esc(row['preset'])}: <b>{_esc(row['verdict'])}</b>, "
            f"{row['seconds']} s</p>"
        )
        out.extend(_charts(row))
    out.append("</body></html>\n")
    return "\n".join(out)


def _charts(row: dict[str, Any]) -> list[str]:
    from .base import get_kind

    preset = get_kind(row["kind"]).preset(row["preset"])
    refs = reference_rows(preset, row["result"])["charts"]
    wanted = {c["metric"].partition("/")[0] for c in row["checks"] if "/" in c["metric"]}
    wanted |= {c["than"].partition("/")[0] for c in row["checks"]
               if isinstance(c.get("than"), str) and "/" in c["than"]}  # fmt: skip
    out = []
    for spec in row["result"]["charts"]:
        if spec["id"] in wanted or (not wanted and spec is row["result"]["charts"][0]):
            svg = svg_chart(spec, refs.get(spec["id"], []))
            if svg:
                out.append(f"<figure>{svg}<figcaption>{_esc(spec['title'])}</figcaption></figure>")
    return out


def svg_chart(spec: dict[str, Any], reference: list[dict[str, Any]] = (), w=480, h=260) -> str:  # type: ignore[assignment,no-untyped-def]
    """One line/scatter/bar/histogram chart as SVG; reference series dashed in black."""
    if spec["type"] == "gantt":
        return ""
    categorical = spec["type"] in ("bar", "histogram")
    series = [(s["name"], s["points"], COLOURS[i % len(COLOURS)], False)
              for i, s in enumerate(spec["series"])]  # fmt: skip
    series += [(r["name"], r["points"], "#000", True) for r in reference]
    logx = spec["x"].get("scale") == "log"
    logy = spec["y"].get("scale") == "log"

    def fy(v: Any) -> float | None:
        if not isinstance(v, (int, float)) or not math.isfinite(v) or (logy and v <= 0):
            return None
        return math.log10(v) if logy else float(v)

    cats: list[str] = []
    if categorical:
        for _, pts, _, _ in series:
            for p in pts:
                if str(p[0]) not in cats:
                    cats.append(str(p[0]))

    def fx(v: Any) -> float | None:
        if categorical:
            return float(cats.index(str(v)))
        if not isinstance(v, (int, float)) or not math.isfinite(v) or (logx and v <= 0):
            return None
        return math.log10(v) if logx else float(v)

    xs = [x for _, pts, _, _ in series for p in pts if (x := fx(p[0])) is not None]
    ys = [y for _, pts, _, _ in series for p in pts if (y := fy(p[1])) is not None]
    if not xs or not ys:
        return ""
    x0, x1 = (min(xs), max(xs)) if not categorical else (-0.5, len(cats) - 0.5)
    y0, y1 = min(ys + [0.0] if not logy else ys), max(ys)
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
    L, R, T, B = 50, 10, 10, 40

    def px(x: float) -> float:
        return L + (x - x0) / (x1 - x0) * (w - L - R)

    def py(y: float) -> float:
        return h - B - (y - y0) / (y1 - y0) * (h - T - B)

    def label(v: float, log: bool) -> str:
        return f"{10**v:.3g}" if log else f"{v:.3g}"

    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' font-size='10'>",
           f"<line x1='{L}' y1='{h - B}' x2='{w - R}' y2='{h - B}' stroke='#444'/>",
           f"<line x1='{L}' y1='{T}' x2='{L}' y2='{h - B}' stroke='#444'/>",
           f"<text x='{L - 4}' y='{py(y1) + 4:.1f}' text-anchor='end'>{label(y1, logy)}</text>",
           f"<text x='{L - 4}' y='{py(y0):.1f}' text-anchor='end'>{label(y0, logy)}</text>",
           f"<text x='{(L + w - R) / 2}' y='{h - 4}' text-anchor='middle'>"
           f"{_esc(spec['x']['label'])}</text>"]  # fmt: skip
    if not categorical:
        out.append(f"<text x='{L}' y='{h - B + 12}'>{label(x0, logx)}</text>")
        out.append(f"<text x='{w - R}' y='{h - B + 12}' text-anchor='end'>{label(x1, logx)}</text>")
    nbar = max(1, sum(1 for s in series if not s[3]))
    for k, (name, pts, colour, ref) in enumerate(series):
        coords = [(fx(p[0]), fy(p[1])) for p in pts]
        coords = [(x, y) for x, y in coords if x is not None and y is not None]
        if categorical and not ref:
            bw = 0.8 / nbar
            for x, y in coords:
                left = px(x - 0.4 + k * bw)
                top = py(max(y, y0))
                out.append(f"<rect x='{left:.1f}' y='{top:.1f}' width='{px(bw) - px(0):.1f}' "
                           f"height='{py(y0) - top:.1f}' fill='{colour}'/>")  # fmt: skip
        elif spec["type"] == "scatter" and not ref:
            out.extend(f"<circle cx='{px(x):.1f}' cy='{py(y):.1f}' r='1.5' fill='{colour}'/>"
                       for x, y in coords)  # fmt: skip
        else:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(coords))
            dash = " stroke-dasharray='4 3'" if ref else ""
            out.append(f"<polyline points='{path}' fill='none' stroke='{colour}'{dash}/>")
            if ref or len(coords) < 30:
                out.extend(f"<circle cx='{px(x):.1f}' cy='{py(y):.1f}' r='2.5' fill='{colour}'/>"
                           for x, y in coords)  # fmt: skip
        out.append(f"<text x='{L + 6}' y='{T + 12 + 12 * k}' fill='{colour}'>{_esc(name)}</text>")
    out.append("</svg>")
    return "".join(out)
