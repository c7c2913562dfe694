"""The seam between engine and portal: experiment kinds, their inputs and their Result.

An experiment kind (DESIGN.md) is a module in ``scheduler/experiments`` defining a subclass of
:class:`ExperimentKind` and registering it with :func:`register`. The portal and the command
line only ever talk to kinds through :func:`run_experiment`.

A Result is plain JSON::

    {"kind": str, "params": {...}, "seed": int,
     "summary": {name: number},
     "summary_labels": {name: "human label"},
     "tables": [{"id", "title", "columns": [..], "rows": [[..], ..]}],
     "charts": [chart spec, ..]}

A chart spec is declarative (rendered by one generic Chart.js adapter in the portal)::

    {"id": str, "type": "line" | "bar" | "scatter" | "histogram" | "gantt", "title": str,
     "x": {"label": str, "scale": "linear" | "log" | "category"},
     "y": {"label": str, "scale": "linear" | "log"},
     "series": [{"name": str, "points": [[x, y], ..], "errors": [e, ..] (optional)}]}

For ``bar`` and ``histogram`` the x values are category labels (strings); for ``gantt`` a point
is ``[start, end, row_label]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .schema import Param, ParamError, schema_as_json, validate_params

__all__ = [
    "ExperimentKind",
    "InputSpec",
    "InputError",
    "Cancelled",
    "Progress",
    "register",
    "get_kind",
    "kinds",
    "run_experiment",
    "check_inputs",
    "chart",
    "series",
    "table",
]

CHART_TYPES = ("line", "bar", "scatter", "histogram", "gantt")

Progress = Callable[[float, str], None]
"""``progress(fraction in [0, 1], message)``; it may raise :class:`Cancelled`."""


class Cancelled(Exception):
    """Raised by a progress callback when the user cancelled the run."""


class InputError(ValueError):
    """The inputs given do not match what the kind declares."""


@dataclass(frozen=True)
class InputSpec:
    """An input a kind needs: ``kind`` is "trace" or "workflow"; counts are inclusive."""

    name: str
    kind: str
    min: int = 1
    max: int = 1
    help: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "min": self.min,
            "max": self.max,
            "help": self.help,
        }


#: Relations an :class:`Expectation` may declare (``shape``).  The first five compare a value
#: (every point of a series: "for every α") with ``than`` ("~=": within ``tolerance``); the
#: last four describe a series.
SHAPES = (
    "<", "<=", ">", ">=", "~=",
    "increasing", "decreasing", "non-increasing", "non-decreasing",
)  # fmt: skip


@dataclass(frozen=True)
class Expectation:
    """A value or shape a seed publishes, declared by the preset that reproduces it (issue 15).

    ``metric`` names what is compared in the Result: a ``summary`` key, or
    ``"<chart id>/<series name>"`` for a chart series (its y values ordered by x).  The check
    is ``value ± tolerance`` (a scalar metric; ``relative``: the tolerance is a fraction of the
    published value), ``points`` (a series: each published
    ``(x, y)`` within ``tolerance`` of ours at the same x), a ``shape`` (one of
    :data:`SHAPES`; ``than`` is a number or another metric), or a number and a shape together.
    ``source`` says where in the seed the value is printed; ``claim`` quotes it in words.
    The verdict is computed by :mod:`scheduler.experiments.reproduce`.
    """

    source: str
    metric: str
    claim: str
    value: float | None = None
    tolerance: float | None = None
    shape: str = ""
    than: float | str | None = None
    points: tuple[tuple[Any, float], ...] = ()
    relative: bool = False

    def __post_init__(self) -> None:
        if self.shape and self.shape not in SHAPES:
            raise ValueError(f"expectation {self.metric}: unknown shape {self.shape!r}")
        if self.shape in SHAPES[:5] and self.than is None:
            raise ValueError(f"expectation {self.metric}: shape {self.shape!r} needs 'than'")
        if self.shape not in SHAPES[:5] and self.than is not None:
            raise ValueError(f"expectation {self.metric}: shape {self.shape!r} takes no 'than'")
        needs_tol = self.value is not None or self.points or self.shape == "~="
        if needs_tol and self.tolerance is None:
            raise ValueError(f"expectation {self.metric}: a published number needs a tolerance")
        if self.value is None and not self.points and not self.shape:
            raise ValueError(f"expectation {self.metric}: declare a value, points or a shape")

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "metric": self.metric,
            "claim": self.claim,
            "value": self.value,
            "tolerance": self.tolerance,
            "shape": self.shape,
            "than": self.than,
            "points": [list(p) for p in self.points],
            "relative": self.relative,
        }


@dataclass(frozen=True)
class Preset:
    """Named parameters ("as in thesis Figure 13").  A preset that reproduces a seed figure or
    table declares the seed's ``published`` values, the archive ``traces`` it runs on (names
    known to ``manage.py fetch_trace``, in input order) and roughly how many ``minutes`` it
    took on a 2-core machine (None: not measured)."""

    name: str
    title: str
    params: dict[str, Any] = field(default_factory=dict)
    published: tuple[Expectation, ...] = ()
    traces: tuple[str, ...] = ()
    minutes: float | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "title": self.title, "params": self.params}
        if self.published:
            out["published"] = [e.as_json() for e in self.published]
            out["traces"] = list(self.traces)
            out["minutes"] = self.minutes
        return out


class ExperimentKind:
    """Base class of an experiment kind; subclasses set the attributes and implement ``run``."""

    name: str = ""
    title: str = ""
    description: str = ""
    reproduces: str = ""
    params: tuple[Param, ...] = ()
    inputs: tuple[InputSpec, ...] = ()
    presets: tuple[Preset, ...] = ()

    def run(
        self, params: dict[str, Any], inputs: dict[str, list[Any]], seed: int, progress: Progress
    ) -> dict[str, Any]:
        """Return ``{"summary", "tables", "charts"}`` (``summary_labels`` optional)."""
        raise TypeError(f"experiment kind {self.name!r} does not define run()")

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        return validate_params(self.params, params)

    def preset(self, name: str) -> Preset:
        for p in self.presets:
            if p.name == name:
                return p
        raise KeyError(name)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "reproduces": self.reproduces,
            "params": schema_as_json(self.params),
            "inputs": [i.as_json() for i in self.inputs],
            "presets": [p.as_json() for p in self.presets],
        }


_REGISTRY: dict[str, ExperimentKind] = {}


def register(cls: type[ExperimentKind]) -> type[ExperimentKind]:
    """Class decorator: add a kind to the catalogue under its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    if cls.name in _REGISTRY:
        raise ValueError(f"experiment kind {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls()
    return cls


def kinds() -> list[ExperimentKind]:
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get_kind(name: str) -> ExperimentKind:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(
            f"unknown experiment kind {name!r} (known: {', '.join(sorted(_REGISTRY))})"
        ) from None


def check_inputs(kind: ExperimentKind, inputs: dict[str, list[Any]]) -> None:
    """Raise :class:`InputError` unless the input counts match what ``kind`` declares."""
    declared = {i.name for i in kind.inputs}
    for extra in sorted(set(inputs) - declared):
        if inputs[extra]:
            raise InputError(f"{kind.name} takes no {extra!r} input")
    for spec in kind.inputs:
        n = len(inputs.get(spec.name, []))
        if n < spec.min or n > spec.max:
            want = str(spec.min) if spec.min == spec.max else f"{spec.min}–{spec.max}"
            raise InputError(f"{kind.name} needs {want} {spec.name}; got {n}")


def _no_progress(fraction: float, message: str) -> None:
    return None


def run_experiment(
    name: str,
    params: dict[str, Any] | None,
    inputs: dict[str, list[Any]],
    *,
    seed: int = 0,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Validate, run one experiment and return its Result (JSON-ready, deterministic).

    ``inputs`` maps input names to lists of loaded objects (``scheduler.traces.swf.Trace`` for
    traces). Raises :class:`ParamError`, :class:`InputError` or :class:`Cancelled`.
    """
    kind = get_kind(name)
    clean = kind.validate(params)
    check_inputs(kind, inputs)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ParamError({"seed": f"must be a non-negative integer; got {seed!r}"})
    body = kind.run(clean, inputs, seed, progress or _no_progress)
    result = {
        "kind": kind.name,
        "params": clean,
        "seed": seed,
        "summary": body.get("summary", {}),
        "summary_labels": body.get("summary_labels", {}),
        "tables": body.get("tables", []),
        "charts": body.get("charts", []),
    }
    _check_result(result)
    return result


def _check_result(result: dict[str, Any]) -> None:
    """Guard the Result contract so the portal's renderer never meets a surprise."""
    for key, value in result["summary"].items():
        if value is not None and not isinstance(value, (int, float, str)):
            raise TypeError(f"summary {key!r} is not a number or string")
        if isinstance(value, float) and not math.isfinite(value):
            result["summary"][key] = None
    for spec in result["charts"]:
        if spec.get("type") not in CHART_TYPES:
            raise ValueError(f"chart {spec.get('id')!r} has unknown type {spec.get('type')!r}")


# Builders that keep kinds short and the shape consistent.


def series(name: str, points: list[list[Any]], errors: list[float] | None = None) -> dict:
    out: dict[str, Any] = {"name": name, "points": points}
    if errors is not None:
        out["errors"] = errors
    return out


def chart(
    id: str,
    type: str,
    title: str,
    *,
    x: str,
    y: str,
    series: list[dict],
    x_scale: str | None = None,
    y_scale: str = "linear",
) -> dict[str, Any]:
    if type not in CHART_TYPES:
        raise ValueError(f"unknown chart type {type!r}")
    default_x = "category" if type in ("bar", "histogram") else "linear"
    return {
        "id": id,
        "type": type,
        "title": title,
        "x": {"label": x, "scale": x_scale or default_x},
        "y": {"label": y, "scale": y_scale},
        "series": series,
    }


def table(id: str, title: str, columns: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"id": id, "title": title, "columns": columns, "rows": rows}


__all__ += ["Expectation", "Param", "ParamError", "Preset", "SHAPES"]
