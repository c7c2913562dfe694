"""The seam between engine and portal: experiment kinds, their inputs and their Result.

An experiment kind is a module in ``scheduler/experiments`` defining a subclass of
:class:`ExperimentKind` and registering it with :func:`register`. The portal and the command
line only ever talk to kinds through :func:`run_experiment`.

A Result is plain JSON::

    {"kind": str, "params": {...}, "seed": int,
     "summary": {name: number},
     "summary_labels": {name: "human label"},
     "key": [name, ..] (optional: the 3-6 summary keys shown first as Key results),
     "tables": [{"id", "title", "columns": [..], "rows": [[..], ..]}],
     "charts": [chart spec, ..]}

A chart spec is declarative (rendered by one generic Chart.js adapter in the portal)::

    {"id": str, "type": "line" | "bar" | "scatter" | "histogram" | "gantt", "title": str,
     "x": {"label": str, "scale": "linear" | "log" | "category"},
     "y": {"label": str, "scale": "linear" | "log"},
     "series": [{"name": str, "points": [[x, y], ..], "errors": [e, ..] (optional)}],
     "priority": int (optional, lower first; default 50),
     "section": str (optional: charts of a section are shown together)}

For ``bar`` and ``histogram`` the x values are category labels (strings); for ``gantt`` a point
is ``[start, end, row_label]``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..results import CHART_TYPES, chart, series, table
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
    "document_facts",
    "input_facts",
    "result",
    "chart",
    "series",
    "table",
]


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
    """A claim a seed makes, declared by the preset that reproduces it.

    ``metric`` names what is compared in the Result: a ``summary`` key, or
    ``"<chart id>/<series name>"`` for a chart series (its y values ordered by x).  The check
    is ``value ± tolerance`` (a scalar metric; ``relative``: the tolerance is a fraction of the
    published value), ``points`` (a series: each published
    ``(x, y)`` within ``tolerance`` of ours at the same x), a ``shape`` (one of
    :data:`SHAPES`; ``than`` is a number or another metric), or a number and a shape together.
    ``source`` (alias ``where``) says where in the seed the claim is made: seed and
    section/figure; ``claim`` (alias ``quote``) quotes the seed's sentence, verbatim and short.

    What a reviewer needs to judge the check:

    * ``tolerance_why`` — why that tolerance ("read off a plotted curve", "exact value printed").
    * ``by_construction`` — non-empty when the algorithm guarantees the claim, saying what
      guarantees it (e.g. "eq. 20 at α = 1 picks the price-0 slot").  Such a claim is shown and
      checked but never counted as a reproduction.
    * ``fitted`` — non-empty when the set-up was tuned on this very number (a calibration
      target, a parameter chosen after a miss), saying what was tuned: shown, never counted,
      whatever it shows.  :mod:`~scheduler.experiments.claims` marks every target of a declared
      :class:`~scheduler.experiments.claims.calibrations.Calibration` so.
    * ``constant`` — non-empty when the metric is structurally the same in every row or
      policy (0 violations everywhere): shown, never counted.
    * ``blocked`` — non-empty when the claim's input cannot be obtained, saying where it would
      come from: never counted.
    * ``cause`` — why we differ (trace version, data missing in the seed, model choice); shown
      when the verdict is "differs".
    * ``than_run`` — ``"kind/preset"``: a cross-run claim, ``than`` is read from the latest
      run of that other preset (e.g. "price rises with load": +40 % against +20 %).
    * ``factor`` — ``than`` is scaled by it ("far worse": ``>`` 1.5 × the other).
    * ``figure`` — the scoreboard column ("Fig. 23", "Table 1"); ``seed`` — "000" (thesis) …
      "004"; both derived from ``source`` when not given.

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
    tolerance_why: str = ""
    by_construction: str = ""
    fitted: str = ""
    constant: str = ""
    blocked: str = ""
    cause: str = ""
    than_run: str = ""
    figure: str = ""
    seed: str = ""
    factor: float = 1.0

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
        if self.than_run and (not isinstance(self.than, str) or self.than_run.count("/") != 1):
            raise ValueError(
                f"expectation {self.metric}: than_run names a preset as 'kind/preset' and "
                "'than' a metric of it"
            )
        uncounted = [n for n in ("by_construction", "fitted", "constant", "blocked")
                     if getattr(self, n)]  # fmt: skip
        if len(uncounted) > 1:
            raise ValueError(
                f"expectation {self.metric}: one reason not to count it, not {uncounted}"
            )
        if not self.seed:
            object.__setattr__(self, "seed", seed_of(self.source))
        if not self.figure:
            object.__setattr__(self, "figure", figure_of(self.source))

    @property
    def quote(self) -> str:
        return self.claim

    @property
    def where(self) -> str:
        return self.source

    @property
    def numeric(self) -> bool:
        """Whether the seed prints a number for it (a value or points)."""
        return self.value is not None or bool(self.points)

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
            "tolerance_why": self.tolerance_why,
            "by_construction": bool(self.by_construction),
            "by_construction_why": self.by_construction,
            "fitted": self.fitted,
            "constant": self.constant,
            "blocked": self.blocked,
            "cause": self.cause,
            "than_run": self.than_run,
            "figure": self.figure,
            "seed": self.seed,
            "numeric": self.numeric,
            "factor": self.factor,
        }


#: A claim of a seed: the same object as :class:`Expectation`.
Claim = Expectation


#: The seed publications (docs/references.md) by a word of their citation, and their seed id.
SEED_AUTHORS = (
    ("takefusa", "001"),  # Takefusa et al. 2010
    ("buisson", "002"),  # Buisson et al. 2007
    ("kesselman", "003"),  # Singh, Kesselman & Deelman 2005
    ("dumitrescu", "004"),  # Dumitrescu, Wilde & Foster 2005
    ("thesis", "000"),  # Singh 2008, the thesis
    ("singh 2008", "000"),
)


def seed_of(source: str) -> str:
    """The seed id of a citation: "001" for "Takefusa et al. 2010, …" (see
    :data:`SEED_AUTHORS`), "000" for the thesis; an older "seed 00N …" source still reads as
    its id; else ""."""
    low = source.lower()
    m = re.search(r"seed\s*(\d{3})", low)
    if m:
        return m.group(1)
    return next((seed for word, seed in SEED_AUTHORS if word in low), "")


def figure_of(source: str) -> str:
    """The figure or table a source names ("Fig. 23", "Figs. 25–26", "Table 1"), else its
    section ("§3.1"), else the whole source."""
    m = re.search(
        r"(Figures?|Figs?\.?|Tables?)\s*([0-9][0-9()a-z]*(?:\s*[–-]\s*[0-9()a-z]+)?)", source
    )
    if m:
        word = m.group(1).lower()
        kind = "Table" if word.startswith("table") else "Fig."
        return f"{kind} {m.group(2).replace(' ', '')}"
    m = re.search(r"§\s*[0-9.]+", source)
    return m.group(0).replace(" ", "") if m else source


@dataclass(frozen=True)
class Spread:
    """A choice the seed does not state that a preset's claims depend on, and the plausible
    range it is run over (``choice``: ``"seed"``, the run's random seed, or a parameter name).
    The reproduction runs the preset once per value and judges each claim on the spread
    (:mod:`scheduler.experiments.reproduce`); ``why`` says what the seed leaves open and why
    that range."""

    choice: str
    values: tuple[Any, ...]
    why: str

    def __post_init__(self) -> None:
        if len(self.values) < 3:
            raise ValueError(f"spread over {self.choice}: give at least three values")

    def as_json(self) -> dict[str, Any]:
        return {"choice": self.choice, "values": list(self.values), "why": self.why}


@dataclass(frozen=True)
class Sweep:
    """The points a figure plots, for a trend claim to be checked along the whole curve: the
    reproduction runs the preset once per value of parameter ``param`` and judges every claim
    of the preset at every point (a claim holds only when it holds at each); a claim on
    ``"sweep/<summary key>"`` reads that number across the points as a series, x = the value
    (e.g. ``"sweep/makespan_ratio_a0"`` ``decreasing``).  ``why`` says which points and why
    (the figure's x axis, and what was left out to keep the run time reasonable)."""

    param: str
    values: tuple[Any, ...]
    why: str

    def __post_init__(self) -> None:
        if len(self.values) < 2:
            raise ValueError(f"sweep over {self.param}: give at least two points")

    def as_json(self) -> dict[str, Any]:
        return {"param": self.param, "values": list(self.values), "why": self.why}


@dataclass(frozen=True)
class Preset:
    """Named parameters ("as in thesis Figure 13").  A preset that reproduces a seed figure or
    table declares the seed's ``published`` values, the archive ``traces`` it runs on (names
    known to ``manage.py fetch_trace``, in input order) and roughly how many ``minutes`` it
    takes (None: not measured): the presets' values are one full ``make reproduce`` with the
    compiled kernels on a quiet 2-core machine, rounded up to half a minute (0.1: under 6 s),
    the seconds it took beside each."""

    name: str
    title: str
    params: dict[str, Any] = field(default_factory=dict)
    published: tuple[Expectation, ...] = ()
    traces: tuple[str, ...] = ()
    minutes: float | None = None
    spread: Spread | None = None
    sweep: Sweep | None = None

    def __post_init__(self) -> None:
        if self.spread is not None and self.sweep is not None:
            raise ValueError(f"preset {self.name}: a spread or a sweep, not both")

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "title": self.title, "params": self.params}
        if self.published:
            out["published"] = [e.as_json() for e in self.published]
            out["traces"] = list(self.traces)
            out["minutes"] = self.minutes
            if self.spread is not None:
                out["spread"] = self.spread.as_json()
            if self.sweep is not None:
                out["sweep"] = self.sweep.as_json()
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

    def upgrade(self, params: dict[str, Any]) -> dict[str, Any]:
        """``params`` as written by an older version of this kind (renamed or merged
        parameters) in today's names; the same dict when nothing is old.  :meth:`validate`
        and the portal's REST checks call it first, so stored runs stay clonable."""
        return params

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        return validate_params(self.params, self.upgrade(dict(params or {})))

    def check_facts(self, params: dict[str, Any], facts: dict[str, list[dict[str, Any]]]) -> None:
        """Refuse (:class:`ParamError`, naming the parameter) what the run would refuse given its
        inputs' headline facts — for a trace, the summary of
        :func:`scheduler.traces.stats.trace_summary` (jobs, first_submit, last_end, span_days,
        machine_procs …), which the portal stored at upload.  One check, two uses: the portal
        calls it at submit, :func:`run_experiment` before running.  Only conditions the run
        itself refuses belong here (no stricter ones)."""
        return None

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


def result(
    summary: dict[str, Any],
    labels: dict[str, str],
    key: list[str],
    tables: list[dict[str, Any]],
    charts: list[dict[str, Any]],
) -> dict[str, Any]:
    """A run's Result body (see above) whose Key results are the first six names of ``key``
    that ``summary`` has (a value may be None or absent when an arm never ran)."""
    return {
        "summary": summary,
        "summary_labels": labels,
        "key": [k for k in key if summary.get(k) is not None][:6],
        "tables": tables,
        "charts": charts,
    }


def _no_progress(fraction: float, message: str) -> None:
    return None


def input_facts(
    inputs: dict[str, list[Any]], kind: ExperimentKind | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The headline facts of loaded inputs (see :meth:`ExperimentKind.check_facts`): a trace's
    summary; a workflow's summary; a configuration document's :func:`document_facts`
    (``kind`` says which inputs are documents); ``{}`` for other inputs."""
    from ..traces.stats import trace_summary
    from ..traces.swf import Trace
    from ..workflows import summarize
    from ..workflows.dag import Workflow

    documents = {i.name: i.kind for i in kind.inputs} if kind is not None else {}

    def facts(name: str, x: Any) -> dict[str, Any]:
        if isinstance(x, Trace):
            return trace_summary(x) if x.jobs else {}
        if isinstance(x, Workflow):  # the summary the portal stores at upload
            return summarize(x)
        return document_facts(documents.get(name, ""), x)

    return {name: [facts(name, x) for x in items] for name, items in inputs.items()}


def document_facts(input_kind: str, doc: Any) -> dict[str, Any]:
    """The facts of a configuration input that validation reads: ``{"document": doc}`` for a
    co-allocation topology or a usage-policy document (a loaded policy set is written back as
    its document), what was understood of a loaded Slurm site (the summary the portal stored
    at its upload), ``{}`` otherwise.  The same function serves the portal at submit (from the
    stored document) and :func:`run_experiment` (from the loaded input), so both check the
    same thing; a kind's ``check_facts`` loads the document with the parser its run uses."""
    if input_kind == "slurm-site" and not isinstance(doc, dict):  # a loaded site
        from ..slurm.whatif import site_facts

        return site_facts(doc)
    if input_kind == "topology" and isinstance(doc, dict):
        return {"document": doc}
    if input_kind == "policies":
        if isinstance(doc, dict):
            return {"document": doc}
        from ..usage.config import PolicySet, to_document

        if isinstance(doc, PolicySet):
            return {"document": to_document(doc)}
    return {}


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
    kind.check_facts(clean, input_facts(inputs, kind))
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
    if body.get("key"):  # the summary keys that answer the question, in order
        result["key"] = [k for k in body["key"] if k in result["summary"]]
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


# Builders that keep kinds short and the shape consistent: the engine's result vocabulary,
# defined below every domain package in scheduler/results.py and re-exported here.

__all__ += ["Expectation", "Param", "ParamError", "Preset", "SHAPES", "Spread", "Sweep"]
