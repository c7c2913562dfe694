"""Reproductions: every preset with published values, the user's latest run of it
beside the published values, the engine's verdict, and starting runs of them.

A run "is" a reproduction when its kind and (validated) parameters equal the preset's, and its
traces are the archive logs the preset names: so a preset started from the experiment form, a
sweep point or the Reproductions page all count.  A preset that reproduces a curve (a figure
sweep, :class:`scheduler.experiments.base.Sweep`) is judged on its run plus the user's latest
run at every point of the curve: Run starts those points as one portal sweep, and until each
point has a result the claims read along the curve are "not measured" and the page shows the
project's last recorded verdict and curve (``docs/reproductions.json``).  The verdict is
computed by the engine (:mod:`scheduler.experiments.reproduce`); nothing here interprets
numbers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from gridportal.inputs.models import Trace
from gridportal.ownership import visible_to
from scheduler import engine

from .models import Experiment
from .results import stored_view
from .services import experiment_create
from .sweeps import sweep_create

PREFIX = "Reproduction: "


@dataclass(frozen=True)
class Row:
    """One preset with published values, for one user."""

    rep: engine.Reproduction
    experiment: Experiment | None
    latest_active: Experiment | None
    verdict: str
    checks: list[dict[str, Any]]
    traces: list[Trace]
    missing: list[str]
    #: A figure sweep's points: (value, the latest succeeded run, a newer queued/running one).
    points: tuple[tuple[Any, Experiment | None, Experiment | None], ...] = ()

    @property
    def points_done(self) -> int:
        return sum(1 for _, done, _ in self.points if done is not None)

    @property
    def runnable(self) -> bool:
        return not self.missing

    def as_json(self) -> dict[str, Any]:
        exp = self.experiment
        return {
            **self.rep.as_json(),
            "verdict": self.verdict,
            "checks": self.checks,
            "experiment": exp.pk if exp else None,
            "experiment_finished": exp.finished_at.isoformat() if exp and exp.finished_at else None,
            "active_experiment": self.latest_active.pk if self.latest_active else None,
            "active_progress": self.latest_active.progress if self.latest_active else None,
            "active_status": self.latest_active.status if self.latest_active else None,
            "sweep_points": [
                {
                    "value": value,
                    "experiment": done.pk if done else None,
                    "active_experiment": active.pk if active else None,
                }
                for value, done, active in self.points
            ],  # fmt: skip
            "missing_traces": self.missing,
            "needs": [engine.fetch_hint(n) for n in self.missing],
        }


def _traces_of(user) -> list[Trace]:
    """The user's traces, newest first (what a preset's archive names are matched against)."""
    return list(
        Trace.objects.filter(owner=user).order_by("-created", "-id").only(
            "id", "name", "original_filename", "created"
        )
    )  # fmt: skip


def _user_traces(
    user, names: tuple[str, ...], mine: list[Trace] | None = None
) -> tuple[list[Trace], list[str]]:
    """The user's newest trace for each archive name, and the names they do not have
    (``mine``: the user's traces, read once for many presets)."""
    found, missing = [], []
    if mine is None:
        mine = _traces_of(user)
    for name in names:
        t = next((t for t in mine if engine.trace_matches(name, t.name, t.original_filename)), None)
        if t is None:
            missing.append(name)
        else:
            found.append(t)
    return found, missing


def _is_run_of(exp: Experiment, rep: engine.Reproduction, clean: dict[str, Any]) -> bool:
    # the presets run on archive traces and generated workflows, without documents
    if exp.params != clean or exp.snapshot or exp.workflows.all():
        return False
    names = rep.preset.traces
    traces = list(exp.traces.all())
    if len(traces) != len(names):
        return False
    return all(
        any(engine.trace_matches(n, t.name, t.original_filename) for t in traces) for n in names
    )


def _runs_of(user, *kinds: str):
    """The user's runs of these kinds that may hold or become a result, newest first."""
    return (
        visible_to(Experiment.objects.filter(kind__in=kinds), user)
        .filter(owner=user)
        .exclude(status__in=[Experiment.Status.FAILED, Experiment.Status.CANCELLED])
        .defer("result")
        .prefetch_related("traces", "workflows")
        .order_by("-created", "-id")
    )


def latest_runs(
    user,
    rep: engine.Reproduction,
    runs: list[Experiment] | None = None,
    clean: dict[str, Any] | None = None,
) -> tuple[Experiment | None, Experiment | None]:
    """The user's newest succeeded run of the preset, and a newer queued/running one if any
    (``runs``: the user's runs of the preset's kind, read once for the kind's presets;
    ``clean``: other parameters than the preset's, e.g. a point of its figure sweep)."""
    clean = rep.params() if clean is None else clean
    if runs is None:
        runs = _runs_of(user, rep.kind.name)
    done = active = None
    for exp in runs:
        if not _is_run_of(exp, rep, clean):
            continue
        if exp.status == Experiment.Status.SUCCEEDED:
            done = exp
            break
        if active is None:
            active = exp
    return done, active


def reproduction_rows(*, user, kind: str | None = None) -> list[Row]:
    """Every preset with claims (of one kind), with the user's latest run; cross-run claims
    are checked against the user's latest runs of the other presets, and claims along a
    figure sweep against the user's latest run at each of its points."""
    found = []
    results: dict[str, dict[str, Any]] = {}
    wanted = engine.reproductions(kind)
    keys = {r.key for r in wanted}
    others = {c.than_run for r in wanted for c in r.preset.published if c.than_run} - keys
    mine = _traces_of(user)  # read once, and the runs of every kind in one query (and two
    # prefetches): a page of ~80 presets in 4 queries
    reps = wanted + [r for r in engine.reproductions() if r.key in others]
    runs_of: dict[str, list[Experiment]] = {r.kind.name: [] for r in reps}
    for exp in _runs_of(user, *runs_of):
        runs_of[exp.kind].append(exp)
    for rep in reps:
        traces, missing = _user_traces(user, rep.preset.traces, mine)
        done, active = latest_runs(user, rep, runs_of[rep.kind.name])
        points = tuple(
            (value, *latest_runs(user, rep, runs_of[rep.kind.name], clean))
            for value, clean in engine.sweep_points(rep)
        )
        if done is not None:
            results[rep.key] = _with_sweep(rep, stored_view(done.pk), points)
        if active is None:  # the row shows a point still running as its active run
            active = next((a for _, _, a in points if a is not None), None)
        if rep.key in keys:
            found.append((rep, done, active, traces, missing, points))
    rows = []
    for rep, done, active, traces, missing, points in found:
        verdict, checks = engine.reproduction_verdict(rep.preset, results.get(rep.key), results)
        rows.append(Row(rep, done, active, verdict, [c.as_json() for c in checks], traces,
                        missing, points))  # fmt: skip
    return rows


def _with_sweep(rep: engine.Reproduction, result: dict[str, Any] | None, points) -> dict | None:
    """The preset's Result with its figure sweep (``result["sweep"]``) when every point of it
    has a succeeded run; as it is otherwise."""
    if result is None or not points or any(done is None for _, done, _ in points):
        return result
    sweep = engine.sweep_of(rep, [stored_view(done.pk) for _, done, _ in points])
    return {**result, "sweep": sweep} if sweep is not None else result


def row_checks(row: Row) -> list[dict[str, Any]]:
    """The row's checks, or its claims marked 'not run' when it has no run yet."""
    return row.checks or [
        {**e.as_json(), "verdict": engine.NOT_RUN, "ours": None, "detail": ""}
        for e in row.rep.preset.published
    ]


def reproduction_board(*, user, kind: str | None = None) -> dict[str, Any]:
    """The scoreboard: rows, seed × figure with counts per seed, and each kind's declared
    deviations."""
    rows = reproduction_rows(user=user, kind=kind)
    board = engine.reproduction_scoreboard(
        [{"kind": r.rep.kind.name, "preset": r.rep.preset.name, "checks": row_checks(r)}
         for r in rows]
    )  # fmt: skip
    devs: dict[str, dict[str, dict[str, str]]] = {}
    for r in rows:
        if r.rep.kind.name not in devs:
            devs[r.rep.kind.name] = engine.claim_deviations(r.rep.kind)
    return {"rows": rows, "scoreboard": board,
            "deviations": {k: v for k, v in devs.items() if v}}  # fmt: skip


def _find(kind: str, preset: str) -> engine.Reproduction:
    reps = engine.reproductions(kind, preset)
    if not reps:
        raise ValidationError({"preset": [f"no preset {kind}/{preset} with published values"]})
    return reps[0]


def reproduction_run(*, user, kind: str, preset: str, seed: int = 0) -> Experiment:
    """Start one reproduction on the user's copies of its traces (ValidationError saying how
    to get a missing one: upload it on the Traces page, or ``manage.py fetch_trace``).  A
    preset with a figure sweep also starts a portal sweep over its points (identical runs,
    the preset's own point among them, are reused, not run twice)."""
    rep = _find(kind, preset)
    traces, missing = _user_traces(user, rep.preset.traces)
    if missing:
        raise ValidationError({"traces": [engine.fetch_hint(n) for n in missing]})
    name = f"{PREFIX}{rep.kind.name} / {rep.preset.name}"
    with transaction.atomic():
        exp = experiment_create(owner=user, kind=rep.kind.name, params=rep.preset.params,
                                traces=traces, seed=seed, name=name)  # fmt: skip
        sweep = rep.preset.sweep
        if sweep is not None:
            sweep_create(owner=user, kind=rep.kind.name, params=rep.preset.params,
                         traces=traces, seed=seed, name=f"{name} (figure sweep)",
                         vary=[{"param": sweep.param, "values": list(sweep.values)}])  # fmt: skip
    return exp


def reproduction_run_all(*, user, kind: str | None = None) -> tuple[list[Experiment], list[str]]:
    """Start every runnable reproduction (one run each, spread over the workers like a sweep's
    runs); returns the runs and, for the others, why not."""
    started, skipped = [], []
    for rep in engine.reproductions(kind):
        _, missing = _user_traces(user, rep.preset.traces)
        if missing:
            skipped.append(f"{rep.key}: " + "; ".join(engine.fetch_hint(n) for n in missing))
            continue
        started.append(reproduction_run(user=user, kind=rep.kind.name, preset=rep.preset.name))
    return started, skipped


def _other_results(experiment: Experiment, rep: engine.Reproduction) -> dict[str, Any]:
    """The owner's latest Results of the presets the run's cross-run claims compare with."""
    out = {}
    for key in {c.than_run for c in rep.preset.published if c.than_run}:
        kind, _, name = key.partition("/")
        for other in engine.reproductions(kind, name):
            done, _ = latest_runs(experiment.owner, other)
            if done is not None:
                out[key] = stored_view(done.pk)
    return out


def reproduction_reference(*, experiment: Experiment) -> dict[str, Any] | None:
    """For a result page: the preset this run reproduces, its published values and the
    verdict (None when the run is no reproduction or has no result yet)."""
    for rep in engine.reproductions(experiment.kind):
        clean = rep.params()
        if not _is_run_of(experiment, rep, clean):
            continue
        if experiment.status != Experiment.Status.SUCCEEDED:
            return {"kind": rep.kind.name, "preset": rep.preset.name, "verdict": "not run",
                    "checks": [], "summary": {}, "charts": {}}  # fmt: skip
        result = stored_view(experiment.pk)
        verdict, checks = engine.reproduction_verdict(
            rep.preset, result, _other_results(experiment, rep)
        )
        refs = engine.reference_rows(rep.preset, result)
        return {
            "kind": rep.kind.name,
            "preset": rep.preset.name,
            "title": rep.preset.title,
            "verdict": verdict,
            "checks": [
                {
                    **c.as_json(),
                    "published_text": engine.published_text(c.expectation.as_json()),
                    "ours_text": engine.value_text(c.ours),
                }
                for c in checks
            ],
            "summary": refs["summary"],
            "charts": refs["charts"],
        }
    return None


#: The project's own scoreboard, committed by ``make reproduce`` (a reviewer without the
#: archive traces reads what the project measured, beside their own runs).
REFERENCE = Path(settings.BASE_DIR) / "docs" / "reproductions.json"
REFERENCE_MAX_BYTES = 20 * 2**20
_reference_cache: dict = {}


def reference_report(path: Path | None = None) -> dict | None:
    """The committed scoreboard as written by ``make reproduce`` (rows with their checks, no
    Results), or None when it is absent or not a report (cached by modification time)."""
    path = path or REFERENCE
    try:
        stat = path.stat()
    except OSError:
        return None
    if stat.st_size > REFERENCE_MAX_BYTES:  # bounded at the door, even for our own file
        return None
    mtime = stat.st_mtime
    hit = _reference_cache.get(path)
    if hit and hit[0] == mtime:
        return hit[1]
    try:
        data = json.loads(path.read_text())
        ok = isinstance(data, dict) and isinstance(data.get("scoreboard"), dict)
        data = data if ok and isinstance(data.get("rows"), list) else None
    except (OSError, ValueError):
        data = None
    _reference_cache[path] = (mtime, data)
    return data


def reference_board(path: Path | None = None) -> dict | None:
    """Per-seed tallies of the committed scoreboard (the Reproductions page's folded card), or
    None when it is absent or unreadable."""
    data = reference_report(path)
    if data is None:
        return None
    try:
        board = data["scoreboard"]
        ref = {
            "seeds": [{"seed": x["seed"], "title": x["title"], "tally": x["tally"]}
                      for x in board["seeds"]],
            "tally": board["tally"],
            "elapsed_s": data.get("elapsed_s"),
            "rows_s": data.get("rows_s"),
            "merged_runs": data.get("merged_runs"),
            "seed": data.get("seed"),
            "not_run": [f"{r['kind']}/{r['preset']}" for r in data.get("rows", [])
                        if r.get("verdict") == "not run"],
        }  # fmt: skip
    except (KeyError, TypeError):
        return None
    return ref


def check_key(preset_key: str, check: dict[str, Any]) -> tuple[str, str, str, str]:
    """What names one check of a preset: its claim's quote, the metric and published points."""
    points = json.dumps(check.get("points") or [])
    return (preset_key, str(check.get("claim")), str(check.get("metric")), points)


def recorded_checks(path: Path | None = None) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    """The committed scoreboard's checks by :func:`check_key`: what the
    project last recorded for a claim (its verdict, value and curve), shown on the page
    beside a claim the user has not measured; empty when the scoreboard is absent."""
    data = reference_report(path)
    out: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for row in (data or {}).get("rows") or []:
        if not isinstance(row, dict):
            continue
        key = f"{row.get('kind')}/{row.get('preset')}"
        for c in row.get("checks") or []:
            if isinstance(c, dict) and c.get("verdict") not in (engine.NOT_RUN, "not measured"):
                out.setdefault(check_key(key, c), c)
    return out
