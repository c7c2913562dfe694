"""Reproductions: a preset's published values beside a run's, and the verdict (issue 15).

A preset that reproduces a seed figure or table declares the seed's published values as
:class:`~scheduler.experiments.base.Expectation` s.  This module

* reads a metric out of a Result (a ``summary`` key, or ``"<chart id>/<series name>"``);
* checks one expectation — **matches** (the published number within its tolerance, and the
  declared shape holds), **same shape** (the shape holds, the number is off), **differs** (the
  shape fails, or a bare number is off), **not measured** (the Result lacks the metric) — and
  a preset (the worst of its checks; **not run** without a Result);
* lists every preset with expectations, finds the archive traces each needs in a directory,
  and runs them (the ``reproduce`` command and the portal's Reproductions page use this).

The engine never imports Django: the portal passes its Results and traces in.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
]

MATCHES, SAME_SHAPE, DIFFERS = "matches", "same shape", "differs"
NOT_MEASURED, NOT_RUN = "not measured", "not run"
#: Verdicts from best to worst; a preset's verdict is the worst of its measured checks.
VERDICTS = (MATCHES, SAME_SHAPE, DIFFERS, NOT_MEASURED, NOT_RUN)
_RANK = {MATCHES: 0, SAME_SHAPE: 1, DIFFERS: 2}

Number = float
Series = list[tuple[Any, float]]


@dataclass(frozen=True)
class Check:
    """The outcome of one expectation against one Result."""

    expectation: Expectation
    verdict: str
    ours: Number | Series | None
    detail: str

    def as_json(self) -> dict[str, Any]:
        ours = self.ours
        if isinstance(ours, list):
            ours = [list(p) for p in ours]
        return {
            **self.expectation.as_json(),
            "verdict": self.verdict,
            "ours": ours,
            "detail": self.detail,
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
    finite y are left out); None when the Result has no such metric."""
    if "/" not in metric:
        return _finite((result.get("summary") or {}).get(metric))
    chart_id, _, name = metric.partition("/")
    for spec in result.get("charts") or []:
        if spec.get("id") != chart_id:
            continue
        for s in spec.get("series") or []:
            if s.get("name") == name:
                pts = [(p[0], _finite(p[1])) for p in s.get("points") or [] if len(p) >= 2]
                pts = [(x, y) for x, y in pts if y is not None]
                return sorted(pts, key=_xkey) or None
    return None


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


def check(e: Expectation, result: dict[str, Any]) -> Check:
    """The verdict of one expectation against one Result."""
    ours = read_metric(result, e.metric)
    if ours is None:
        return Check(e, NOT_MEASURED, None, f"the result has no {e.metric!r}")
    if e.shape:
        other = e.than if not isinstance(e.than, str) else read_metric(result, e.than)
        if isinstance(e.than, str) and other is None:
            return Check(e, NOT_MEASURED, ours, f"the result has no {e.than!r}")
        why = _shape_holds(e, ours, other)
        if why:
            return Check(e, DIFFERS, ours, why)
    has_number = e.value is not None or bool(e.points)
    off = _number_ok(e, ours) if has_number else ""
    if not off:
        return Check(e, MATCHES, ours, "within the tolerance" if has_number else "shape holds")
    return Check(e, SAME_SHAPE if e.shape else DIFFERS, ours, off)


def worst(verdicts: Iterable[str]) -> str:
    """A preset's verdict: the worst measured one; 'not measured' when none was measured."""
    measured = [v for v in verdicts if v in _RANK]
    return max(measured, key=_RANK.__getitem__) if measured else NOT_MEASURED


def verdict(preset: Preset, result: dict[str, Any] | None) -> tuple[str, list[Check]]:
    """The preset's verdict and one :class:`Check` per expectation (``not run`` without a
    Result)."""
    if result is None:
        return NOT_RUN, []
    checks = [check(e, result) for e in preset.published]
    return worst(c.verdict for c in checks), checks


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
    return f"needs trace {name}: run `manage.py fetch_trace {name}`"


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
    """Run one preset on its (loaded) traces and return the Result."""
    inputs = {"traces": traces} if traces else {}
    return run_experiment(rep.kind.name, rep.preset.params, inputs, seed=seed, progress=progress)


# ---------------------------------------------------------------------- words


def value_text(v: Any) -> str:
    """A number, or a series as "x: y, …" (at most 12 points), for tables."""
    if v is None:
        return "—"
    if isinstance(v, (list, tuple)):
        head = ", ".join(f"{p[0]}: {value_text(p[1])}" for p in list(v)[:12])
        return head + (" …" if len(v) > 12 else "")
    return f"{v:.4g}" if isinstance(v, float) else str(v)


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
        parts.append(f"{e['shape']} {value_text(than) if than is not None else ''}{tol}".strip())
    return "; ".join(parts)
