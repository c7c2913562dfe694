"""Reproductions: a preset's claims beside a run's values, and the verdict.

A preset that reproduces a seed figure or table declares the seed's claims as
:class:`~scheduler.experiments.base.Claim` s (written in :mod:`scheduler.experiments.claims`).
This module

* reads a metric out of a Result (a ``summary`` key, or ``"<chart id>/<series name>"``);
* checks one claim — **reproduced** (the published number within its tolerance, and the
  declared shape holds), **same shape** (the shape holds, the number is off), **differs** (the
  shape fails, or a bare number is off), **by construction** (it holds, but the algorithm
  guarantees it: never counted as a reproduction), **not measured** (the Result lacks the
  metric, or a cross-run claim's other run is missing) — and a preset (the worst of its
  checks that are not by construction; **not run** without a Result);
* evaluates cross-run claims (``than_run``: the other preset's latest Result);
* counts the verdicts per seed and per (seed, figure) — the scoreboard;
* lists every preset with claims, finds the archive traces each needs in a directory, and runs
  them (the ``reproduce`` command and the portal's Reproductions page use this).

A "differs" (or "same shape") verdict carries the claim's ``cause``; one without a cause is
reported as such (``missing_cause``).  The engine never imports Django: the portal passes its
Results and traces in.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..labels import format_value
from ..traces.archive import archive_url
from .base import Expectation, ExperimentKind, Preset, kinds, run_experiment

__all__ = [
    "VERDICTS",
    "Check",
    "Reproduction",
    "reproductions",
    "read_metric",
    "check",
    "verdict",
    "find_trace_file",
    "fetch_hint",
    "reference_rows",
    "published_text",
    "value_text",
    "tally",
    "scoreboard",
    "archive_url",
    "REPRODUCED",
    "BY_CONSTRUCTION",
    "FITTED",
    "CONSTANT",
    "BLOCKED",
    "DEPENDS",
    "UNCOUNTED",
    "honest_rate",
    "sweep_points",
    "sweep_of",
    "NEEDS_SWEEP",
]

REPRODUCED, SAME_SHAPE, DIFFERS = "reproduced", "same shape", "differs"
BY_CONSTRUCTION, NOT_MEASURED, NOT_RUN = "by construction", "not measured", "not run"
FITTED, CONSTANT, BLOCKED = "fitted", "constant", "blocked"
DEPENDS = "depends"  # over a declared spread of an unstated choice, not within it
MATCHES = REPRODUCED  # the issue-15 name
#: Verdicts from best to worst; a preset's verdict is the worst of its counted checks.
VERDICTS = (REPRODUCED, SAME_SHAPE, DEPENDS, DIFFERS, FITTED, BY_CONSTRUCTION, CONSTANT,
            BLOCKED, NOT_MEASURED, NOT_RUN)  # fmt: skip
#: Verdicts that count (the honest rate's denominator), best first.
_RANK = {REPRODUCED: 0, SAME_SHAPE: 1, DEPENDS: 2, DIFFERS: 3}
#: Verdicts shown but never counted, with the field of the claim that says why.
UNCOUNTED = {FITTED: "fitted", BY_CONSTRUCTION: "by_construction", CONSTANT: "constant",
             BLOCKED: "blocked"}  # fmt: skip

#: Why a claim read along a figure's sweep is not measured on one run of the preset.
NEEDS_SWEEP = (
    "needs the figure's sweep: a run at every point (`python -m scheduler reproduce --preset "
    "NAME`, `make reproduce`, or Run on the Reproductions page, which starts the points)"
)

Number = float
Series = list[tuple[Any, float]]


@dataclass(frozen=True)
class Check:
    """The outcome of one expectation against one Result."""

    expectation: Expectation
    verdict: str
    ours: Number | Series | None
    detail: str

    @property
    def off(self) -> bool:
        """Whether we do not reproduce it (differs, or the number is off)."""
        return self.verdict in (DIFFERS, SAME_SHAPE)

    @property
    def cause(self) -> str:
        return self.expectation.cause if self.off else ""

    @property
    def missing_cause(self) -> bool:
        """A deviation nobody explained: shown as such on the page and in the report."""
        return self.off and not self.expectation.cause

    def as_json(self) -> dict[str, Any]:
        ours = self.ours
        if isinstance(ours, list):
            ours = [list(p) for p in ours]
        return {
            **self.expectation.as_json(),
            "verdict": self.verdict,
            "ours": ours,
            "detail": self.detail,
            "shown_cause": self.cause,
            "missing_cause": self.missing_cause,
        }


@dataclass(frozen=True)
class Reproduction:
    """A preset with published values, of one kind."""

    kind: ExperimentKind
    preset: Preset

    @property
    def key(self) -> str:
        return f"{self.kind.name}/{self.preset.name}"

    def params(self) -> dict[str, Any]:
        """The preset's parameters merged over the kind's defaults (as a run stores them)."""
        return self.kind.validate(self.preset.params)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.name,
            "kind_title": self.kind.title,
            "preset": self.preset.name,
            "title": self.preset.title,
            "params": self.preset.params,
            "traces": list(self.preset.traces),
            "minutes": self.preset.minutes,
            "published": [e.as_json() for e in self.preset.published],
        }


def reproductions(kind: str | None = None, preset: str | None = None) -> list[Reproduction]:
    """Every preset that declares published values (optionally of one kind / one name)."""
    out = []
    for k in kinds():
        if kind is not None and k.name != kind:
            continue
        for p in k.presets:
            if p.published and (preset is None or p.name == preset):
                out.append(Reproduction(k, p))
    return out


# ---------------------------------------------------------------------- reading a Result


def _finite(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None


def read_metric(result: dict[str, Any], metric: str) -> Number | Series | None:
    """A summary number, or a chart series as ``[(x, y), ...]`` sorted by x (points without a
    finite y are left out; ``"chart/series[text]"`` keeps the points whose x contains
    ``text``); None when the Result has no such metric."""
    if "/" not in metric:
        return _finite((result.get("summary") or {}).get(metric))
    chart_id, _, name = metric.partition("/")
    if chart_id == "sweep" and "sweep" in result:
        return _sweep_series(result["sweep"], name)
    name, _, select = name.partition("[")
    select = select.rstrip("]")
    for spec in result.get("charts") or []:
        if spec.get("id") != chart_id:
            continue
        for s in spec.get("series") or []:
            if s.get("name") == name:
                pts = [(p[0], _finite(p[1])) for p in s.get("points") or [] if len(p) >= 2]
                pts = [(x, y) for x, y in pts if y is not None]
                if select:  # "chart/series[32n 4h]": the points whose x label contains it
                    pts = [(x, y) for x, y in pts if select in str(x)]
                return sorted(pts, key=_xkey) or None
    return None


def _sweep_series(sweep: dict[str, Any], name: str) -> Series | None:
    """Summary number ``name`` of every point of a figure's sweep, as ``[(value, y), ...]``."""
    pts = [(run.get("value"), _finite((run.get("metrics") or {}).get(name)))
           for run in sweep.get("runs") or []]  # fmt: skip
    return sorted(((x, y) for x, y in pts if y is not None), key=_xkey) or None


def _xkey(point: tuple[Any, float]) -> tuple[int, Any]:
    x = point[0]
    return (0, x) if isinstance(x, (int, float)) else (1, str(x))


# ---------------------------------------------------------------------- checking


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def _comparer(e: Expectation) -> Callable[[float, float], bool]:
    if e.shape == "~=":
        return lambda a, b: abs(a - b) <= _tolerance(e, b)
    return {
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }[e.shape]


def _shape_holds(e: Expectation, ours: Number | Series, other: Number | Series | None) -> str:
    """'' when the declared shape holds, else why not."""
    op = e.shape
    if op in ("increasing", "decreasing", "non-increasing", "non-decreasing"):
        if not isinstance(ours, list) or len(ours) < 2:
            return "a shape over a series needs at least two points"
        ys = [y for _, y in ours]
        pairs = list(zip(ys, ys[1:], strict=False))
        ok = {
            "increasing": all(b > a for a, b in pairs),
            "decreasing": all(b < a for a, b in pairs),
            "non-increasing": all(b <= a for a, b in pairs),
            "non-decreasing": all(b >= a for a, b in pairs),
        }[op]
        return "" if ok else f"not {op}: {', '.join(_fmt(y) for y in ys)}"
    # "<", "<=", ">", ">=", "~=": ours (each point of a series) against a number or a metric
    holds = _comparer(e)
    if other is None:
        return f"{e.than} is missing"
    if isinstance(ours, list):
        if isinstance(other, list):
            theirs = dict(other)
            pairs = [(x, y, theirs[x]) for x, y in ours if x in theirs]
            if not pairs:
                return f"no x in common with {e.than}"
        else:
            pairs = [(x, y, other) for x, y in ours]
        bad = [(x, y, t) for x, y, t in pairs if not holds(y, t)]
        if bad:
            x, y, t = bad[0]
            return f"at x = {x}: {_fmt(y)} is not {op} {_fmt(t)}"
        return ""
    if isinstance(other, list):
        return f"{e.metric} is a number but {e.than} is a series"
    return "" if holds(ours, other) else f"{_fmt(ours)} is not {op} {_fmt(other)}"


def _number_ok(e: Expectation, ours: Number | Series) -> str:
    """'' when the published number(s) are met within the tolerance, else how far off."""
    if e.value is not None:
        if isinstance(ours, list):
            return f"{e.metric} is a series; the published value is one number"
        tol = _tolerance(e, e.value)
        off = abs(ours - e.value)
        if off <= tol:
            return ""
        return f"{_fmt(ours)} vs published {_fmt(e.value)} ± {tol:.3g}"
    if e.points:
        if not isinstance(ours, list):
            return f"{e.metric} is a number; the published values are a series"
        mine = dict(ours)
        for x, y in e.points:
            if x not in mine:
                return f"no point at x = {x}"
            tol = _tolerance(e, y)
            if abs(mine[x] - y) > tol:
                return f"at x = {x}: {_fmt(mine[x])} vs published {_fmt(y)} ± {tol:.3g}"
    return ""


def _tolerance(e: Expectation, published: float) -> float:
    tol = e.tolerance or 0.0
    return tol * abs(published) if e.relative else tol


def _base_check(e: Expectation, result: dict[str, Any], others: dict[str, Any] | None) -> Check:
    ours = read_metric(result, e.metric)
    if ours is None and e.metric.startswith("sweep/") and "sweep" not in result:
        return Check(e, NOT_MEASURED, None, NEEDS_SWEEP)
    if ours is None:
        return Check(e, NOT_MEASURED, None, f"the result has no {e.metric!r}")
    if e.shape:
        if e.than_run:
            other_result = (others or {}).get(e.than_run)
            if other_result is None:
                return Check(e, NOT_MEASURED, ours, f"needs a run of {e.than_run}")
            other = read_metric(other_result, str(e.than))
            if other is None:
                return Check(e, NOT_MEASURED, ours, f"{e.than_run} has no {e.than!r}")
        else:
            other = e.than if not isinstance(e.than, str) else read_metric(result, e.than)
            if isinstance(e.than, str) and other is None:
                return Check(e, NOT_MEASURED, ours, f"the result has no {e.than!r}")
        if e.factor != 1.0 and other is not None:
            other = (
                [(x, y * e.factor) for x, y in other]
                if isinstance(other, list)
                else other * e.factor
            )
        why = _shape_holds(e, ours, other)
        if why:
            if e.than_run:
                why += f" ({e.than} of {e.than_run})"
            return Check(e, DIFFERS, ours, why)
    has_number = e.value is not None or bool(e.points)
    off = _number_ok(e, ours) if has_number else ""
    if not off:
        return Check(e, REPRODUCED, ours, "within the tolerance" if has_number else "shape holds")
    return Check(e, SAME_SHAPE if e.shape else DIFFERS, ours, off)


def spread_metrics(preset: Preset, result: dict[str, Any]) -> dict[str, Any]:
    """What a spread keeps of one run: every finite summary number (a cross-run claim of
    another preset may read any) and the chart series its own claims read."""
    out: dict[str, Any] = {}
    for name, v in (result.get("summary") or {}).items():
        if _finite(v) is not None:
            out[name] = v
    names = {e.metric for e in preset.published}
    names |= {e.than for e in preset.published if isinstance(e.than, str)}
    for name in sorted(n for n in names if "/" in n):
        v = read_metric(result, name)
        if v is not None:
            out[name] = [list(p) for p in v]  # type: ignore[union-attr]
    return out


def _as_result(run: dict[str, Any]) -> dict[str, Any]:
    """A Result holding one spread run's metrics (summary numbers and chart series)."""
    out: dict[str, Any] = {"summary": {}, "charts": []}
    for name, v in (run.get("metrics") or {}).items():
        if isinstance(v, list):
            chart, _, series = name.partition("/")
            series = series.partition("[")[0]  # the kept points are those the selection chose
            out["charts"].append({"id": chart, "series": [{"name": series, "points": v}]})
        else:
            out["summary"][name] = v
    return out


def _quantiles(values: list[float]) -> tuple[float, float, float]:
    """(10th percentile, median, 90th percentile), linear between order statistics."""
    xs = sorted(values)

    def q(p: float) -> float:
        k = (len(xs) - 1) * p
        lo = math.floor(k)
        hi = min(lo + 1, len(xs) - 1)
        return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)

    return q(0.1), q(0.5), q(0.9)


def _spread_check(
    e: Expectation, spread: dict[str, Any], others: dict[str, Any] | None
) -> Check | None:
    """A claim judged over the runs of a declared spread (``result["spread"]``): **reproduced**
    when the published value lies within our 10th–90th percentile (widened by the tolerance)
    and our median is within the tolerance, and a declared shape holds in every run;
    **depends** when it holds in some runs only; **differs** when in none.  None when the
    spread kept no value of the metric."""
    runs = spread.get("runs") or []
    choice = spread.get("choice", "?")
    theirs: dict[Any, dict[str, Any]] = {}
    if e.than_run:  # a cross-run claim: pair the runs of the same value of the same choice
        other = ((others or {}).get(e.than_run) or {}).get("spread") or {}
        if other.get("choice") != choice:
            return None
        theirs = {json.dumps(r.get("value")): _as_result(r) for r in other.get("runs") or []}
    per_run = []
    for run in runs:
        key = json.dumps(run.get("value"))
        if e.than_run and key not in theirs:
            continue
        paired = {e.than_run: theirs[key]} if e.than_run else others
        per_run.append((run.get("value"), _base_check(e, _as_result(run), paired)))
    measured = [(v, c) for v, c in per_run if c.verdict != NOT_MEASURED]
    if not measured:
        return None
    held = [v for v, c in measured if c.verdict == REPRODUCED]
    span = f"{choice} over {', '.join(str(v) for v, _ in measured)}"
    if e.value is not None and all(isinstance(c.ours, (int, float)) for _, c in measured):
        ours = [float(c.ours) for _, c in measured]  # type: ignore[arg-type]
        p10, median, p90 = _quantiles(ours)
        tol = _tolerance(e, e.value)
        # the declared shape holds in a run when its check reproduced or kept the shape
        shape_ok = not e.shape or all(c.verdict in (REPRODUCED, SAME_SHAPE) for _, c in measured)
        # inside the spread (widened by the tolerance: a metric the choice does not move has
        # a spread of width 0) and the median within the tolerance
        inside = p10 - tol <= e.value <= p90 + tol and abs(median - e.value) <= tol
        detail = (f"{len(measured)} runs, {span}: median {_fmt(median)}, 10–90 % "
                  f"{_fmt(p10)}–{_fmt(p90)}; published {_fmt(e.value)} ± {tol:.3g}; within "
                  f"tolerance in {len(held)} of {len(measured)}")  # fmt: skip
        if inside and shape_ok:
            return Check(e, REPRODUCED, median, detail)
        return Check(e, DEPENDS if held else DIFFERS, median,
                     detail + (f" — depends on {choice}" if held else ""))  # fmt: skip
    detail = f"holds in {len(held)} of {len(measured)} runs, {span}"
    ours_first = measured[0][1].ours
    if len(held) == len(measured):
        return Check(e, REPRODUCED, ours_first, detail)
    return Check(e, DEPENDS if held else DIFFERS, ours_first,
                 detail + (f" — depends on {choice}" if held else ""))  # fmt: skip


def _sweep_check(
    e: Expectation, sweep: dict[str, Any], others: dict[str, Any] | None
) -> Check | None:
    """A claim judged at every point of a figure's sweep (``result["sweep"]``): its verdict is
    the worst of the points' (a trend or "for all" claim holds only along the whole curve), and
    the detail names each point where it does not hold.  None when no point measured it."""
    param = sweep.get("param", "?")
    per_point = [(run.get("value"), _base_check(e, _as_result(run), others))
                 for run in sweep.get("runs") or []]  # fmt: skip
    measured = [(v, c) for v, c in per_point if c.verdict != NOT_MEASURED]
    if not measured:
        return None
    worst_ = max((c.verdict for _, c in measured), key=_RANK.__getitem__)
    where = ", ".join(str(v) for v, _ in measured)
    bad = [f"{param} = {v}: {c.detail}" for v, c in measured if c.verdict != REPRODUCED]
    ours: Any = [(v, c.ours) for v, c in measured if isinstance(c.ours, (int, float))]
    if len(ours) != len(measured):
        ours = measured[0][1].ours
    if not bad:
        return Check(e, REPRODUCED, ours, f"holds at every point, {param} = {where}")
    detail = f"{len(bad)} of {len(measured)} points ({param} = {where}) off: " + "; ".join(bad)
    return Check(e, worst_, ours, detail)


def check(e: Expectation, result: dict[str, Any], others: dict[str, Any] | None = None) -> Check:
    """The verdict of one claim against one Result (``others``: the latest Result of other
    presets by ``"kind/preset"``, for cross-run claims).

    Claims that are never counted keep their class whatever they show, and say what the check
    found: **fitted** (the set-up was tuned on this number), **constant** (the metric is the
    same in every row by structure), **blocked** (the input cannot be obtained).  A
    by-construction claim that holds is **by construction**; one that fails **differs** (a
    bug: the guarantee is broken)."""
    if e.blocked:
        return Check(e, BLOCKED, None, f"blocked: {e.blocked}")
    spread, sweep = result.get("spread"), result.get("sweep")
    c = _spread_check(e, spread, others) if spread else None
    if sweep and not e.metric.startswith("sweep/"):
        c = _sweep_check(e, sweep, others)
    c = c or _base_check(e, result, others)
    if e.fitted or e.constant:
        verdict_, why = (FITTED, e.fitted) if e.fitted else (CONSTANT, e.constant)
        if c.verdict == NOT_MEASURED:
            return c
        found = "holds" if c.verdict == REPRODUCED else f"would be {c.verdict}: {c.detail}"
        return Check(e, verdict_, c.ours, f"{verdict_} (never counted): {why}; it {found}")
    if e.by_construction and c.verdict == REPRODUCED:
        return Check(e, BY_CONSTRUCTION, c.ours, f"holds by construction: {e.by_construction}")
    if e.by_construction and c.off:
        return Check(e, DIFFERS, c.ours, f"{c.detail} — a guarantee of the algorithm fails")
    return c


def worst(verdicts: Iterable[str]) -> str:
    """A preset's verdict: the worst counted one; when none was counted, the first uncounted
    class measured (fitted, by construction, constant, blocked); 'not measured' when none
    was."""
    seen = list(verdicts)
    measured = [v for v in seen if v in _RANK]
    if measured:
        return max(measured, key=_RANK.__getitem__)
    for v in UNCOUNTED:
        if v in seen:
            return v
    return NOT_MEASURED


def verdict(
    preset: Preset, result: dict[str, Any] | None, others: dict[str, Any] | None = None
) -> tuple[str, list[Check]]:
    """The preset's verdict and one :class:`Check` per claim (``not run`` without a
    Result)."""
    if result is None:
        return NOT_RUN, []
    checks = [check(e, result, others) for e in preset.published]
    return worst(c.verdict for c in checks), checks


# ---------------------------------------------------------------------- the scoreboard


def claim_identity(c: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two checks the same claim of a seed: its sentence and what it states (the
    number, the points, the shape) — whichever preset checks it: Figure 13's "lower for all
    values of α", say, is one claim of the thesis checked on both clusters."""
    import json

    return (
        c.get("seed"), c.get("claim"), json.dumps(c.get("value")),
        json.dumps(c.get("points") or []), c.get("shape"), json.dumps(c.get("than")),
        json.dumps(c.get("than_run")),
    )  # fmt: skip


def claim_class(c: dict[str, Any]) -> str:
    """The verdict a check row stands for in the counts: its own verdict, or the uncounted
    class its claim declares (a fitted claim that was not run is still fitted)."""
    for verdict_, field_ in UNCOUNTED.items():
        if c.get(field_):
            return verdict_
    return c.get("verdict", NOT_RUN)


def tally(checks: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Counts of claim verdicts (from :meth:`Check.as_json` rows, or claims not run) and the
    honest rate.

    ``counts`` counts checks (one claim checked by two presets counts twice there);
    ``distinct`` counts each claim of a seed once (:func:`claim_identity`, :func:`_merged`):
    the worst counted verdict any preset measured, else its uncounted class.  The **honest
    rate** is reproduced ÷ (numeric claims − fitted − by construction − constant − blocked),
    over distinct numeric claims; a numeric claim not run or not measured stays in the
    denominator (it is not reproduced)."""
    counts = dict.fromkeys(VERDICTS, 0)
    no_cause = 0
    distinct: dict[tuple[Any, ...], str] = {}
    numeric_ids: set[tuple[Any, ...]] = set()
    for c in checks:
        v = c.get("verdict", NOT_RUN)
        counts[v] = counts.get(v, 0) + 1
        key = claim_identity(c)
        cls = claim_class(c)
        distinct[key] = _merged(distinct.get(key), cls)
        if c.get("numeric"):
            numeric_ids.add(key)
        no_cause += bool(c.get("missing_cause"))
    by_claim = dict.fromkeys(VERDICTS, 0)
    for v in distinct.values():
        by_claim[v] = by_claim.get(v, 0) + 1
    numeric = {k: v for k, v in distinct.items() if k in numeric_ids}
    excluded = sum(v in UNCOUNTED for v in numeric.values())
    counted = len(numeric) - excluded
    numeric_ok = sum(v == REPRODUCED for v in numeric.values())
    return {
        "counts": counts,
        "distinct": by_claim,
        # the same, named for templates
        "reproduced": counts[REPRODUCED],
        "same_shape": counts[SAME_SHAPE],
        "differs": counts[DIFFERS],
        "depends": counts[DEPENDS],
        "by_construction": counts[BY_CONSTRUCTION],
        "fitted": counts[FITTED],
        "constant": counts[CONSTANT],
        "blocked": counts[BLOCKED],
        "not_run": counts[NOT_RUN] + counts[NOT_MEASURED],
        "claims": sum(counts.values()),
        "distinct_claims": len(distinct),
        "numeric": len(numeric),
        "numeric_excluded": excluded,
        "numeric_counted": counted,
        "numeric_reproduced": numeric_ok,
        "honest_rate": honest_rate(numeric_ok, counted),
        "numeric_share": honest_rate(numeric_ok, counted),  # the older name
        "missing_cause": no_cause,
    }


def _merged(seen: str | None, cls: str) -> str:
    """One claim's class from two checks of it: a counted verdict beats an uncounted class
    (a claim checked both in a fitted set-up and in the seed's own counts as the seed's shows),
    the worse of two counted verdicts wins, and a measured one beats 'not run'."""
    if seen is None:
        return cls
    if seen in _RANK and cls in _RANK:
        return max(seen, cls, key=_RANK.__getitem__)
    if cls in _RANK:
        return cls
    if seen in _RANK or seen in UNCOUNTED:
        return seen
    return cls if cls in UNCOUNTED else seen


def honest_rate(reproduced: int, counted: int) -> float | None:
    """reproduced ÷ counted numeric claims, to three places (None when nothing counts)."""
    return round(reproduced / counted, 3) if counted else None


def cell_verdict(verdicts: Iterable[str]) -> str:
    """The colour of one (seed, figure) cell: the worst counted verdict; 'by construction'
    when every measured claim is; 'not run' when nothing was measured."""
    seen = list(verdicts)
    v = worst(seen)
    return NOT_RUN if v == NOT_MEASURED and not any(x == NOT_MEASURED for x in seen) else v


def scoreboard(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Seed × figure from report/page rows (``kind``, ``preset``, ``checks`` and
    ``published`` as in :meth:`Reproduction.as_json`): per seed the tally and the figures, per
    figure the verdict and the presets behind it."""
    seeds: dict[str, dict[str, Any]] = {}
    for row in rows:
        checks = row.get("checks") or [
            {**e, "verdict": NOT_RUN} for e in row.get("published") or []
        ]
        for c in checks:
            seed = c.get("seed") or "?"
            s = seeds.setdefault(seed, {"seed": seed, "title": SEED_TITLES.get(seed, seed),
                                        "figures": {}, "checks": []})  # fmt: skip
            s["checks"].append(c)
            f = s["figures"].setdefault(c.get("figure") or "?", {"verdicts": [], "presets": []})
            f["verdicts"].append(c["verdict"])
            key = f"{row['kind']}/{row['preset']}"
            if key not in f["presets"]:
                f["presets"].append(key)
    out = []
    for seed in sorted(seeds):
        s = seeds[seed]
        figures = [
            {"figure": name, "verdict": cell_verdict(f["verdicts"]), "presets": f["presets"],
             "claims": len(f["verdicts"])}
            for name, f in sorted(s["figures"].items(), key=lambda kv: _figure_key(kv[0]))
        ]  # fmt: skip
        out.append({"seed": seed, "title": s["title"], "tally": tally(s["checks"]),
                    "figures": figures})  # fmt: skip
    every = [c for s in seeds.values() for c in s["checks"]]
    return {"seeds": out, "tally": tally(every)}


def _figure_key(name: str) -> tuple[int, float, str]:
    import re

    m = re.search(r"\d+(\.\d+)?", name)
    order = 0 if name.startswith("Fig") else 1 if name.startswith("Table") else 2
    return (order, float(m.group(0)) if m else 1e9, name)


#: The seed publications (docs/references.md) by seed id: short titles for the scoreboard.
SEED_TITLES = {
    "000": "Singh 2008 (thesis): provisioning, pricing, virtual reservations",
    "001": "Takefusa et al. 2010: co-allocation of computers and network",
    "002": "Buisson et al. 2007: malleable applications in multiclusters (KOALA)",
    "003": "Singh, Kesselman & Deelman 2005: provisioning and workflow clustering",
    "004": "Dumitrescu, Wilde & Foster 2005: usage-policy enforcement",
}


def reference_rows(preset: Preset, result: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """For a result page: the published values keyed by summary key (a reference column),
    and the reference series to draw on each chart (``{"chart id": [series, ...]}`` under
    ``"charts"``)."""
    summary: dict[str, list[dict[str, Any]]] = {}
    charts: dict[str, list[dict[str, Any]]] = {}
    for c in (check(e, result) for e in preset.published):
        e = c.expectation
        if "/" not in e.metric:
            summary.setdefault(e.metric, []).append(c.as_json())
        elif e.points:
            chart_id = e.metric.partition("/")[0]
            charts.setdefault(chart_id, []).append(
                {"name": f"published ({e.source})", "points": [list(p) for p in e.points]}
            )
    return {"summary": summary, "charts": charts}  # type: ignore[dict-item]


# ---------------------------------------------------------------------- traces


def fetch_hint(name: str) -> str:
    return (
        f"needs trace {name}: upload it on the Traces page (from {archive_url(name)}) or run "
        f"`manage.py fetch_trace {name}`"
    )


def trace_matches(name: str, *labels: str) -> bool:
    """Whether a stored file or trace called ``labels`` is the archive log ``name`` (the
    archive's files are named ``<name>-<year>-<version>[-cln].swf[.gz]``)."""
    want = name.lower()
    for label in labels:
        low = Path(label or "").name.lower()
        if low == want or low.startswith(want + "-") or low.split(".swf")[0] == want:
            return True
    return False


def find_trace_file(name: str, given: dict[str, str], dirs: Iterable[str]) -> str | None:
    """The file of archive trace ``name``: given explicitly (``NAME=FILE``) or found in one of
    ``dirs``; None when the user does not have it."""
    if name in given:
        return given[name]
    for d in dirs:
        folder = Path(d)
        if not folder.is_dir():
            continue
        for f in sorted(folder.iterdir()):
            if f.is_file() and ".swf" in f.name and trace_matches(name, f.name):
                return str(f)
    return None


# ---------------------------------------------------------------------- running


def run_reproduction(
    rep: Reproduction,
    traces: list[Any],
    *,
    seed: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> dict[str, Any]:
    """Run one preset on its (loaded) traces and return the Result.  A preset with a declared
    :class:`~scheduler.experiments.base.Spread` runs once more per value of its choice; the
    Result then carries ``spread``: the choice, its values and, per run, the metrics its claims
    read (:func:`spread_metrics`), which :func:`check` judges the claims on.  A preset with a
    :class:`~scheduler.experiments.base.Sweep` runs at every point its figure plots; the
    Result carries ``sweep`` likewise, and every claim is judged at every point."""
    inputs = {"traces": traces} if traces else {}
    result = run_experiment(rep.kind.name, rep.preset.params, inputs, seed=seed,
                            progress=progress)  # fmt: skip
    if rep.preset.sweep is not None:
        result["sweep"] = _run_sweep(rep, inputs, result, seed)
    spread = rep.preset.spread
    if spread is None:
        return result
    runs = []
    for value in spread.values:
        if spread.choice == "seed":
            params, run_seed = rep.preset.params, int(value)
        else:
            params, run_seed = {**rep.preset.params, spread.choice: value}, seed
        one = run_experiment(rep.kind.name, params, inputs, seed=run_seed)
        runs.append({"value": value, "metrics": spread_metrics(rep.preset, one)})
    result["spread"] = {**spread.as_json(), "runs": runs}
    return result


def _run_sweep(
    rep: Reproduction, inputs: dict[str, Any], result: dict[str, Any], seed: int
) -> dict[str, Any]:
    """Run the preset at every point of its figure's sweep (the preset's own point reuses
    ``result``) and keep, per point, the metrics its claims read."""
    own = rep.params()
    results = [
        result if params == own else run_experiment(rep.kind.name, params, inputs, seed=seed)
        for _, params in sweep_points(rep)
    ]
    sweep = sweep_of(rep, results)
    assert sweep is not None
    return sweep


def sweep_points(rep: Reproduction) -> list[tuple[Any, dict[str, Any]]]:
    """The points of the preset's figure sweep: (value, the parameters as a run stores them,
    i.e. validated) per value of the swept parameter; empty for a preset without a sweep.  The
    portal matches a user's runs against these to judge the sweep's claims."""
    sweep = rep.preset.sweep
    if sweep is None:
        return []
    return [(value, rep.kind.validate({**rep.preset.params, sweep.param: value}))
            for value in sweep.values]  # fmt: skip


def sweep_of(rep: Reproduction, results: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """The Result's ``sweep`` from one Result per point of :func:`sweep_points` (in order):
    the sweep's declaration and, per point, the metrics the claims read; None when a point
    has no Result (its claims on ``sweep/…`` are then not measured)."""
    sweep = rep.preset.sweep
    if sweep is None or len(results) != len(sweep.values) or any(r is None for r in results):
        return None
    runs = [{"value": value, "metrics": spread_metrics(rep.preset, one)}
            for value, one in zip(sweep.values, results, strict=True)]  # fmt: skip
    return {**sweep.as_json(), "runs": runs}


# ---------------------------------------------------------------------- words


def value_text(v: Any) -> str:
    """A number, or a series as "x: y, …" (at most 12 points), for tables."""
    if v is None:
        return "—"
    if isinstance(v, (list, tuple)):
        head = ", ".join(f"{p[0]}: {value_text(p[1])}" for p in list(v)[:12])
        return head + (" …" if len(v) > 12 else "")
    return format_value(v) if isinstance(v, float) else str(v)  # 77,222 — not 7.722e+04


def published_text(e: dict[str, Any]) -> str:
    """What the seed publishes, from an expectation's JSON: "0.77 ± 0.1; < 1"."""
    parts = []
    rel = " (relative)" if e.get("relative") else ""
    if e.get("value") is not None:
        parts.append(f"{value_text(e['value'])} ± {e['tolerance']:g}{rel}")
    if e.get("points"):
        parts.append(f"{value_text(e['points'])} (± {e['tolerance']:g}{rel})")
    if e.get("shape"):
        than = e.get("than")
        tol = f" ± {e['tolerance']:g}{rel}" if e["shape"] == "~=" else ""
        scale = f"{e['factor']:g} × " if e.get("factor", 1.0) != 1.0 else ""
        run = f" of {e['than_run']}" if e.get("than_run") else ""
        shown = value_text(than) if than is not None else ""
        parts.append(f"{e['shape']} {scale}{shown}{run}{tol}".strip())
    return "; ".join(parts)
