"""The reproduction report: run every preset with claims on the traces the user has and write
``report.json`` plus a static, self-contained HTML page, and the scoreboard as Markdown.

Each row of the report is one preset: its claims, ours, the verdict of
:mod:`scheduler.experiments.reproduce`, the wall time, and the Result.  A preset that needs an
archive trace the user does not have is reported as ``needs trace`` (how to get it) instead of
failing; ``max_preset_minutes`` leaves out presets declared longer, and ``budget_minutes`` stops
starting new presets once the wall time is spent — both are reported.  Cross-run claims are
checked after every preset ran, against the other presets' Results.  The scoreboard (seed ×
figure, verdict counts per seed, the share of numeric claims reproduced) and every kind's
declared deviations are part of the report.

Presets run through ``execute``: in process by default, one after the other; the portal's
``manage.py reproduce`` passes one that spreads them over the Celery workers.
The HTML draws the charts the claims refer to as inline SVG (no script, no CDN), with the
published points as a dashed reference series.
"""

from __future__ import annotations

import html
import json
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..traces.archive import ARCHIVE_LOGS, UNOBTAINABLE
from ..traces.swf import SWFError, read_swf
from .base import InputError, ParamError
from .claims import deviations
from .reproduce import (
    BLOCKED,
    CONSTANT,
    FITTED,
    NOT_RUN,
    VERDICTS,
    Reproduction,
    fetch_hint,
    find_trace_file,
    published_text,
    reference_rows,
    run_reproduction,
    scoreboard,
    value_text,
    verdict,
)

__all__ = [
    "build_report",
    "merge_reports",
    "honest_lines",
    "reclassify",
    "report_html",
    "report_markdown",
    "write_report",
    "in_process",
    "claim_curve_svg",
]

NEEDS_TRACE, SKIPPED, ERROR, RAN = "needs trace", "skipped", "error", "run"

#: What ``execute`` gets: (reproduction, trace files) pairs; what it yields: (key, Result or
#: the error message, seconds).
Job = tuple[Reproduction, list[str]]
Outcome = tuple[str, "dict[str, Any] | str", float]


def in_process(
    seed: int = 0,
    log: Callable[[str], None] = lambda message: None,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[list[Job]], Iterator[Outcome]]:
    """Run the presets here, one after the other (traces read once each)."""

    def execute(jobs: Iterable[Job]) -> Iterator[Outcome]:
        loaded: dict[str, Any] = {}
        for i, (rep, files) in enumerate(jobs, start=1):
            log(f"[{i}] {rep.key} …")
            t0 = clock()
            try:
                traces = []
                for path in files:
                    if path not in loaded:
                        loaded[path] = read_swf(path)
                    traces.append(loaded[path])
                result: dict[str, Any] | str = run_reproduction(rep, traces, seed=seed)
            except (SWFError, OSError, ParamError, InputError) as exc:
                result = f"{type(exc).__name__}: {exc}"
            seconds = round(clock() - t0, 1)
            log(f"    {'error: ' + result if isinstance(result, str) else 'done'} ({seconds} s)")
            yield rep.key, result, seconds

    return execute


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
    execute: Callable[[list[Job]], Iterable[Outcome]] | None = None,
    executor: str = "in process",
) -> dict[str, Any]:
    """Run the reproductions and return the report (JSON-ready)."""
    given = dict(trace_files or {})
    rows: dict[str, dict[str, Any]] = {}
    jobs: list[Job] = []
    start = clock()
    for rep in reps:
        row: dict[str, Any] = {**rep.as_json(), "status": RAN, "message": "", "seconds": None}
        row.update(verdict=NOT_RUN, checks=[], result=None)
        rows[rep.key] = row
        minutes = rep.preset.minutes
        if max_preset_minutes is not None and (minutes or 0) > max_preset_minutes:
            row["status"] = SKIPPED
            row["message"] = (
                f"long: about {minutes:g} min, more than the {max_preset_minutes:g} min allowed "
                "per preset (run it with --preset or raise --max-preset-minutes)"
            )
            continue
        files = [find_trace_file(n, given, trace_dirs) for n in rep.preset.traces]
        missing = [n for n, f in zip(rep.preset.traces, files, strict=True) if f is None]
        if missing:
            row["status"] = NEEDS_TRACE
            row["message"] = "; ".join(fetch_hint(n) for n in missing)
            log(f"{rep.key}: {row['message']}")
            continue
        jobs.append((rep, [str(f) for f in files]))
    run = execute or in_process(seed, log, clock)
    results: dict[str, dict[str, Any]] = {}
    pending = list(jobs)
    outcomes = iter(run(_budgeted(pending, budget_minutes, start, clock, rows)))
    for key, result, seconds in outcomes:
        row = rows[key]
        row["seconds"] = seconds
        if isinstance(result, str):
            row["status"], row["message"] = ERROR, result
        else:
            results[key] = result
            row["result"] = result
    for key, result in results.items():  # cross-run claims need every Result first
        rep = next(r for r in reps if r.key == key)
        v, checks = verdict(rep.preset, result, results)
        rows[key].update(verdict=v, checks=[c.as_json() for c in checks])
    every = list(rows.values())
    counts = Counter(r["verdict"] for r in every)
    elapsed = round(clock() - start, 1)
    return {
        "command": "python -m scheduler reproduce",
        "seed": seed,
        "executor": executor,
        "max_preset_minutes": max_preset_minutes,
        "budget_minutes": budget_minutes,
        "elapsed_s": elapsed,
        "totals": {v: counts.get(v, 0) for v in VERDICTS},
        "scoreboard": scoreboard(every),
        "deviations": _deviations(reps),
        "rows": every,
    }


def rescore(report: dict[str, Any]) -> dict[str, Any]:
    """The report with every verdict recomputed from its stored Results against the claims as
    they are declared now (e.g. after a claim was rewritten), scoreboard included."""
    from .reproduce import reproductions

    current = {r.key: r for r in reproductions()}
    rows, results = [], {}
    for row in report["rows"]:
        key = f"{row['kind']}/{row['preset']}"
        if key in current:
            rows.append({**row, **current[key].as_json()})
            if row.get("result") is not None:
                results[key] = row["result"]
    for row in rows:
        key = f"{row['kind']}/{row['preset']}"
        if key in results:
            v, checks = verdict(current[key].preset, results[key], results)
            row.update(verdict=v, checks=[c.as_json() for c in checks])
    # rows kept without their Result (a slim report merged in): their checks re-declared
    rows = reclassify({"rows": rows})["rows"]
    counts = Counter(r["verdict"] for r in rows)
    return {
        **report,
        "rows": rows,
        "totals": {v: counts.get(v, 0) for v in VERDICTS},
        "scoreboard": scoreboard(rows),
        "deviations": _deviations([current[f"{r['kind']}/{r['preset']}"] for r in rows]),
    }


def reclassify(report: dict[str, Any]) -> dict[str, Any]:
    """A report without Results (``docs/reproductions.json``) with every check's claim as it is
    declared now and its verdict moved to the claim's uncounted class (fitted, by construction,
    constant, blocked) where it has one; measured values and other verdicts stay as they were
    run.  For a before/after of re-declaring claims without re-running them (``rescore`` re-checks
    the Results when the report keeps them)."""
    from .reproduce import UNCOUNTED, claim_identity, reproductions, worst

    current = {r.key: r for r in reproductions()}
    rows = []
    for row in report["rows"]:
        key = f"{row['kind']}/{row['preset']}"
        if key not in current:
            continue
        declared = {claim_identity({**e.as_json()}): e for e in current[key].preset.published}
        checks = []
        for c in row.get("checks") or []:
            e = declared.get(claim_identity(c))
            if e is None:
                continue  # a claim no longer declared
            # the claim as declared now; what this check measured (its metric) stays — two
            # checks of one sentence (α = 0 and α = 1 of one trend) share the claim
            fresh = {**c, **e.as_json(), "metric": c.get("metric", e.metric)}
            for verdict_, field_ in UNCOUNTED.items():
                if fresh.get(field_) and fresh.get("verdict") not in (NOT_RUN, "not measured"):
                    why = (
                        fresh.get("by_construction_why")
                        if field_ == "by_construction"
                        else (fresh[field_])
                    )
                    fresh["verdict"] = verdict_
                    fresh["detail"] = f"{verdict_} (never counted): {why}"
            checks.append(fresh)
        if row.get("checks"):  # claims declared since the row ran: shown, not run
            seen = {claim_identity(c) for c in checks}
            checks += [{**e.as_json(), "verdict": NOT_RUN, "ours": None,
                        "detail": "declared after this row ran: not run yet"}
                       for k, e in declared.items() if k not in seen]  # fmt: skip
        preset_verdict = worst(c["verdict"] for c in checks) if checks else row.get("verdict")
        rows.append({**row, **current[key].as_json(), "checks": checks,
                     "verdict": preset_verdict})  # fmt: skip
    return {**report, "rows": rows, "scoreboard": scoreboard(rows)}


def merge_reports(reports: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One report from several runs of ``make reproduce`` (e.g. the quick presets in one run,
    each long preset in its own), rescored together so cross-run claims see every Result.

    A preset's row comes from the last report in which it ran; a row that did not run
    anywhere keeps the first report's reason. ``elapsed_s`` is the sum of the runs' (every run
    merged, superseded rows included); ``rows_s`` the sum of the kept rows' own seconds: what
    reproducing this board takes."""
    reports = list(reports)
    if not reports:
        raise ValueError("nothing to merge")
    rows: dict[str, dict[str, Any]] = {}
    for rep in reports:
        for row in rep["rows"]:
            key = f"{row['kind']}/{row['preset']}"
            if key not in rows or row.get("result") is not None:
                rows[key] = row
    skipped = [r for r in rows.values() if r.get("status") == SKIPPED]
    limits = [r.get("max_preset_minutes") for r in reports if r.get("max_preset_minutes")]
    from .reproduce import reproductions

    for rep in reproductions():  # a preset no merged report ran is on the board as not run
        if rep.key not in rows:
            rows[rep.key] = {**rep.as_json(), "status": SKIPPED, "seconds": None,
                             "message": "not run in the merged reports", "verdict": NOT_RUN,
                             "checks": [], "result": None}  # fmt: skip
    base = {
        **reports[0],
        "command": "manage.py reproduce --merge",
        "merged_runs": sum(r.get("merged_runs") or 1 for r in reports),
        "executor": " + ".join(dict.fromkeys(r.get("executor", "?") for r in reports)),
        "elapsed_s": round(sum(r.get("elapsed_s") or 0 for r in reports), 1),
        "rows_s": round(sum(r.get("seconds") or 0 for r in rows.values()), 1),
        "max_preset_minutes": min(limits) if skipped and limits else None,
        "rows": list(rows.values()),
    }
    return rescore(base)


def _budgeted(
    jobs: list[Job],
    budget: float | None,
    start: float,
    clock: Callable[[], float],
    rows: dict[str, dict[str, Any]],
) -> Iterator[Job]:
    """The jobs, until the wall-time budget is spent (the rest are marked skipped)."""
    for rep, files in jobs:
        if budget is not None and clock() - start > budget * 60:
            row = rows[rep.key]
            row["status"], row["message"] = SKIPPED, f"the {budget:g} min budget is spent"
            continue
        yield rep, files


def _deviations(reps: list[Reproduction]) -> dict[str, dict[str, dict[str, str]]]:
    out: dict[str, dict[str, dict[str, str]]] = {}
    for rep in reps:
        if rep.kind.name not in out:
            found = deviations(rep.kind)
            if found:
                out[rep.kind.name] = found
    return out


def slim(report: dict[str, Any]) -> dict[str, Any]:
    """The report without the Results (the scoreboard committed to the docs)."""
    return {**report, "rows": [{k: v for k, v in r.items() if k != "result"}
                               for r in report["rows"]]}  # fmt: skip


def write_report(report: dict[str, Any], out: str, *, docs: str | None = None) -> tuple[Path, ...]:
    """Write ``out`` (JSON) and the HTML page beside it (same name, ``.html``); with ``docs``
    (a path without suffix, e.g. ``docs/reproductions``) also the scoreboard as ``.md`` and
    a JSON without the Results."""
    path = Path(out)
    path.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    page = path.with_suffix(".html")
    page.write_text(report_html(report))
    written = [path, page]
    if docs:
        base = Path(docs)
        base.parent.mkdir(parents=True, exist_ok=True)
        md, js = base.with_suffix(".md"), base.with_suffix(".json")
        md.write_text(report_markdown(report))
        js.write_text(json.dumps(slim(report), indent=1, sort_keys=True) + "\n")
        written += [md, js]
    return tuple(written)


# ---------------------------------------------------------------------- Markdown


def _md(v: Any) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


def _share(t: dict[str, Any]) -> str:
    """The honest rate: reproduced ÷ counted numeric claims (numeric − fitted − by
    construction − constant − blocked)."""
    if not t["numeric_counted"]:
        return "—"
    return (f"{t['numeric_reproduced']}/{t['numeric_counted']} "
            f"({100 * t['honest_rate']:.0f} %)")  # fmt: skip


def honest_lines(report: dict[str, Any]) -> list[str]:
    """The scoreboard's opening figures as text: per seed and overall, the honest rate and the
    count of each verdict (each claim of a seed once)."""
    board = report["scoreboard"]
    out = []
    for s in board["seeds"] + [{"seed": "all", "tally": board["tally"]}]:
        counts = ", ".join(f"{v} {n}" for v, n in s["tally"]["distinct"].items() if n)
        out.append(f"seed {s['seed']}: honest rate {_share(s['tally'])}; {counts}")
    return out


def _not_run_text(report: dict[str, Any]) -> str:
    skipped = [f"{r['kind']}/{r['preset']}" for r in report["rows"]
               if r.get("result") is None and r.get("status") == SKIPPED]  # fmt: skip
    if report.get("merged_runs"):
        if not skipped:
            return "; every preset ran"
        return "; not run (long; run each with --preset and merge): " + ", ".join(skipped)
    if report.get("max_preset_minutes") is not None:
        return f"; presets declared longer than {report['max_preset_minutes']:g} min were not run"
    return "; every preset"


def report_markdown(report: dict[str, Any]) -> str:
    """The scoreboard a reviewer reads: totals per seed, seed × figure, every claim with its
    verdict and, when we differ, the cause; every kind's deviations."""
    board = report["scoreboard"]
    lines = [
        "# Reproductions: the scoreboard",
        "",
        f"Generated by `make reproduce` ({_md(report['command'])}, {report['executor']}, seed "
        f"{report['seed']}) in {report['elapsed_s']:.0f} s"
        + (
            f", merged from {report['merged_runs']} runs (the rows kept ran in "
            f"{report.get('rows_s') or 0:.0f} s)"
            if report.get("merged_runs")
            else ""
        )
        + _not_run_text(report)
        + ".",
        "",
        "**The honest rate** — numeric claims reproduced ÷ (numeric claims − fitted − by "
        "construction − constant − blocked), each claim of a seed counted once — is "
        f"**{_share(board['tally'])}**.",
        "",
        "Verdicts per claim: **reproduced** (the number within its tolerance and the shape "
        "holds; over a declared spread of an unstated choice, the published value inside the "
        "10th–90th percentile and the median within tolerance), **same shape** (the shape "
        "holds, the number is off), **depends** (it holds for some values of an unstated "
        "choice only), **differs**; never counted: **fitted** (the set-up was tuned on this "
        "number), **by construction** (the algorithm guarantees it), **constant** (the metric "
        "is the same in every row by structure), **blocked** (the input cannot be obtained); "
        "**not run**. The claim columns count each claim of a seed once (the worst verdict "
        "any preset measured for it); *checks* counts every preset's check.",
        "",
        "| seed | claims (checks) | reproduced | same shape | depends | differs | fitted | "
        "by construction | constant | blocked | not run | honest rate | differs without a "
        "cause |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in board["seeds"] + [{"seed": "all", "title": "", "tally": board["tally"]}]:
        t, d = s["tally"], s["tally"]["distinct"]
        lines.append(
            f"| {s['seed']} {_md(s['title'])} | {t['distinct_claims']} ({t['claims']}) | "
            f"{d['reproduced']} | {d['same shape']} | {d['depends']} | {d['differs']} | "
            f"{d['fitted']} | {d['by construction']} | {d['constant']} | {d['blocked']} | "
            f"{d['not run'] + d['not measured']} | {_share(t)} | {t['missing_cause']} |"
        )
    lines += ["", "## Seed × figure", ""]
    for s in board["seeds"]:
        cells = ", ".join(f"{_md(f['figure'])}: **{f['verdict']}**" for f in s["figures"])
        lines.append(f"- **{s['seed']}** {_md(s['title'])} — {cells}")
    lines += ["", "## Inputs we cannot obtain", "",
              "A claim is **blocked** only when its input is one of these; every other input a "
              "seed used is public (`manage.py fetch_trace NAME` downloads the archive's logs by "
              f"name: {', '.join(ARCHIVE_LOGS)}).", ""]  # fmt: skip
    lines += [f"- **{_md(k)}**: {_md(v)}" for k, v in UNOBTAINABLE.items()]
    lines += ["", "## Every claim", "",
              "| preset | where | claim (quoted) | published | ours | verdict | cause / note |",
              "|---|---|---|---|---|---|---|"]  # fmt: skip
    for row in report["rows"]:
        name = f"{row['kind']}/{row['preset']}"
        checks = row["checks"] or [{**e, "verdict": NOT_RUN, "ours": None, "detail": ""}
                                   for e in row["published"]]  # fmt: skip
        for c in checks:
            note = c.get("shown_cause") or ""
            if _SPREAD.match(c.get("detail") or ""):  # measured over a spread: show it
                note = "; ".join(filter(None, (c["detail"], note)))
            if c.get("by_construction"):
                note = f"by construction: {c.get('by_construction_why', '')}"
            elif c["verdict"] in (FITTED, CONSTANT, BLOCKED):
                note = c.get("detail") or ""
            elif c.get("missing_cause"):
                note = "**no cause given**"
            if c["verdict"] == NOT_RUN:
                note = row.get("message") or row.get("status", "")
            lines.append(
                f"| {_md(name)} | {_md(c['source'])} | “{_md(c['claim'])}” | "
                f"{_md(published_text(c))} | {_md(value_text(c.get('ours')))} | "
                f"{c['verdict']} | {_md(note)} |"
            )
    if report.get("deviations"):
        lines += ["", "## Deviations we chose, per kind", ""]
        for kind, groups in sorted(report["deviations"].items()):
            for group, items in groups.items():
                lines.append(f"### {kind} ({group.lower()})")
                lines.append("")
                lines += [f"- **{_md(k)}**: {_md(v)}" for k, v in items.items()]
                lines.append("")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- HTML

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b")
CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1100px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;
text-align:left;vertical-align:top}.reproduced{background:#dff0d8}.same-shape{background:#fcf8e3}
.differs{background:#f2dede}.by-construction{background:#e0ecff}
.not-run,.not-measured{background:#eee}
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
        + " (presets)</p>",
        *_seed_table(report),
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
                f"{_esc(c['detail'])}</small>{_cause(c)}</td></tr>"
            )
    out.append("</table>")
    for row in report["rows"]:
        if row.get("result") is None:  # a slim row (committed scoreboard) has no Result
            continue
        out.append(
            f"<h2 id='{_esc(row['kind'])}-{_esc(row['preset'])}'>{_esc(row['title'])}</h2>"
            f"<p>{_esc(row['kind'])} / {_esc(row['preset'])}: <b>{_esc(row['verdict'])}</b>, "
            f"{row['seconds']} s</p>"
        )
        out.extend(_charts(row))
    out.append("</body></html>\n")
    return "\n".join(out)


def _seed_table(report: dict[str, Any]) -> list[str]:
    board = report.get("scoreboard")
    if not board:
        return []
    out = ["<table><tr><th>seed</th><th>figures</th><th>claims</th>"
           + "".join(f"<th class='{v.replace(' ', '-')}'>{v}</th>" for v in VERDICTS)
           + "<th>numeric reproduced</th></tr>"]  # fmt: skip
    for s in board["seeds"]:
        cells = " ".join(f"<span class='{f['verdict'].replace(' ', '-')}'>{_esc(f['figure'])}"
                         "</span>" for f in s["figures"])  # fmt: skip
        t = s["tally"]
        out.append(f"<tr><td>{_esc(s['seed'])} {_esc(s['title'])}</td><td>{cells}</td>"
                   f"<td>{t['claims']}</td>"
                   + "".join(f"<td>{t['counts'][v]}</td>" for v in VERDICTS)
                   + f"<td>{_esc(_share(t))}</td></tr>")  # fmt: skip
    out.append("</table>")
    return out


#: A check's detail that gives the spread of an unstated choice ("9 runs, submit_hour over …:
#: median …, 10–90 % …"): the board shows it beside the published value.
_SPREAD = re.compile(r"(holds in \d+ of )?\d+ runs, ")


def _cause(c: dict[str, Any]) -> str:
    if c.get("shown_cause"):
        return f"<br><small><b>cause:</b> {_esc(c['shown_cause'])}</small>"
    if c.get("missing_cause"):
        return "<br><small><b>no cause given</b></small>"
    return ""


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


def _finite(v: Any) -> float | None:
    """A finite float of a number (None for anything else: a bool, a text, an integer past
    1e308, NaN, infinity). Called per point: plain type tests, no exception handling."""
    t = type(v)
    if t is float:
        return v if v - v == 0.0 else None  # inf - inf and nan - nan are nan
    if t is int:
        return float(v) if -1e308 < v < 1e308 else None
    return None


def _per_pixel(coords: list, px, py, limit: int = 4000) -> list:
    """At most the points that differ on a 480-pixel drawing: past ``limit`` points, the first,
    lowest, highest and last of each pixel column (in order), so a spike is kept and a line of
    10^6 points draws as about 2,000 (one pass: linear)."""
    if len(coords) <= limit:
        return coords
    out: list = []
    column = None
    group: list = []
    for point in coords:
        c = int(px(point[0]))
        if c != column and group:
            out.extend(_extremes(group))
            group = []
        column = c
        group.append(point)
    out.extend(_extremes(group))
    return out


def _extremes(group: list) -> list:
    if len(group) <= 4:
        return group
    low, high = min(group, key=lambda p: p[1]), max(group, key=lambda p: p[1])
    keep = {id(group[0]): group[0], id(low): low, id(high): high, id(group[-1]): group[-1]}
    return [p for p in group if id(p) in keep]


def svg_chart(spec: dict[str, Any], reference: list[dict[str, Any]] = (), w=480, h=260) -> str:  # type: ignore[assignment,no-untyped-def]
    """One line/scatter/bar/histogram chart as SVG; reference series dashed in black.

    Linear in the number of points (categories are looked up in a dict: a bar chart of 40,000
    categories took 26 s with ``list.index``). Give it a spec of the documented shape
    (:func:`scheduler.result_view.read_result` makes one of any stored chart)."""
    if spec["type"] == "gantt":
        return ""
    categorical = spec["type"] in ("bar", "histogram")
    series = [(s["name"], s["points"], COLOURS[i % len(COLOURS)], False)
              for i, s in enumerate(spec["series"])]  # fmt: skip
    series += [(r["name"], r["points"], "#000", True) for r in reference]
    logx = spec["x"].get("scale") == "log"
    logy = spec["y"].get("scale") == "log"

    def fy(v: Any) -> float | None:
        v = _finite(v)
        if v is None or (logy and v <= 0):
            return None
        return math.log10(v) if logy else v

    cats: dict[str, int] = {}  # category -> its position, in order of first appearance
    if categorical:
        for _, pts, _, _ in series:
            for p in pts:
                cats.setdefault(str(p[0]), len(cats))

    def fx(v: Any) -> float | None:
        if categorical:
            return float(cats[str(v)])
        v = _finite(v)
        if v is None or (logx and v <= 0):
            return None
        return math.log10(v) if logx else v

    drawn = []  # each series' (x, y) in chart units, computed once
    for _, pts, _, _ in series:
        pairs = zip(map(fx, (p[0] for p in pts)), map(fy, (p[1] for p in pts)), strict=True)
        drawn.append([(x, y) for x, y in pairs if x is not None and y is not None])
    xs = [x for coords in drawn for x, _ in coords]
    ys = [y for coords in drawn for _, y in coords]
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
    for k, (name, _pts, colour, ref) in enumerate(series):
        coords = drawn[k]
        if categorical and not ref:
            bw = 0.8 / nbar
            for x, y in coords:
                left = px(x - 0.4 + k * bw)
                top = py(max(y, y0))
                out.append(f"<rect x='{left:.1f}' y='{top:.1f}' width='{px(bw) - px(0):.1f}' "
                           f"height='{py(y0) - top:.1f}' fill='{colour}'/>")  # fmt: skip
        elif spec["type"] == "scatter" and not ref:
            out.extend(f"<circle cx='{px(x):.1f}' cy='{py(y):.1f}' r='1.5' fill='{colour}'/>"
                       for x, y in _per_pixel(coords, px, py))  # fmt: skip
        else:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}"
                            for x, y in _per_pixel(sorted(coords), px, py))  # fmt: skip
            dash = " stroke-dasharray='4 3'" if ref else ""
            out.append(f"<polyline points='{path}' fill='none' stroke='{colour}'{dash}/>")
            if ref or len(coords) < 30:
                out.extend(f"<circle cx='{px(x):.1f}' cy='{py(y):.1f}' r='2.5' fill='{colour}'/>"
                           for x, y in coords)  # fmt: skip
        out.append(f"<text x='{L + 6}' y='{T + 12 + 12 * k}' fill='{colour}'>{_esc(name)}</text>")
    out.append("</svg>")
    return "".join(out)


def claim_curve_svg(check: dict[str, Any], x_label: str = "", w: int = 320, h: int = 180) -> str:
    """A claim read along a figure's sweep (``"sweep/…"``) as a small SVG line chart: our
    values at every point, and the published points dashed; '' when the check holds no such
    curve (a number, fewer than two points, or not measured)."""
    ours = check.get("ours")
    if not str(check.get("metric", "")).startswith("sweep/") or not isinstance(ours, list):
        return ""
    points = [list(p) for p in ours if isinstance(p, (list, tuple)) and len(p) == 2]
    if len(points) < 2:
        return ""
    name = str(check["metric"]).partition("/")[2]
    spec = {"type": "line", "x": {"label": x_label or "sweep"}, "y": {"label": name},
            "series": [{"name": f"ours: {name}", "points": points}]}  # fmt: skip
    published = [list(p) for p in check.get("points") or []]
    reference = [{"name": "published", "points": published}] if published else []
    return svg_chart(spec, reference, w=w, h=h)
