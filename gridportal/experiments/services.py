"""Experiment services: create (validated by the engine's schema), execute, cancel."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from gridportal.inputs.services import trace_open, workflow_open
from scheduler import experiments as catalogue
from scheduler.io import SWFError, load_input

from .models import Experiment

log = logging.getLogger(__name__)
PROGRESS_INTERVAL_S = 0.5
MAX_SEED = 2**31 - 1


@dataclass(frozen=True)
class RunInputs:
    """What a run reads: stored traces and workflows, and configuration documents (policy
    documents, co-allocation topologies) that are copied into the run's snapshot."""

    traces: tuple = ()
    workflows: tuple = ()
    policies: tuple = ()
    topologies: tuple = ()

    @classmethod
    def of(cls, traces=(), workflows=(), policies=(), topologies=()) -> RunInputs:
        return cls(tuple(traces), tuple(workflows), tuple(policies), tuple(topologies))

    def by_kind(self) -> dict[str, tuple]:
        return {
            "trace": self.traces,
            "workflow": self.workflows,
            "policies": self.policies,
            "topology": self.topologies,
        }

    def snapshot(self) -> dict[str, list]:
        """The configuration documents, as stored with the run (later edits never change it)."""
        out: dict[str, list] = {}
        if self.policies:
            out["policies"] = list(self.policies)
        if self.topologies:
            out["topology"] = list(self.topologies)
        return out

    def for_kind(self, spec: catalogue.ExperimentKind) -> dict[str, list]:
        """Inputs by the kind's input names; inputs of a kind it does not declare are errors."""
        given = self.by_kind()
        declared = {i.kind for i in spec.inputs}
        for input_kind, items in given.items():
            if items and input_kind not in declared:
                raise ValidationError(
                    {FIELD[input_kind]: [f"{spec.name} takes no {input_kind} input"]}
                )
        return {i.name: list(given.get(i.kind, ())) for i in spec.inputs}

    def identity(self) -> dict[str, Any]:
        out = {
            "traces": [t.sha256 for t in self.traces],
            "workflows": [w.sha256 for w in self.workflows],
            "policies": list(self.policies),
        }
        if self.topologies:  # (absent otherwise: earlier runs keep their fingerprints)
            out["topologies"] = list(self.topologies)
        return out


FIELD = {"trace": "traces", "workflow": "workflows", "policies": "policies", "topology": "topology"}


def validate_run(
    *, kind: str, params: dict[str, Any] | None, inputs: RunInputs, seed: int = 0
) -> tuple[catalogue.ExperimentKind, dict[str, Any]]:
    """Check a run against the kind's schema and declared inputs; errors name the field."""
    try:
        spec = catalogue.get_kind(kind)
    except KeyError as exc:
        raise ValidationError({"kind": [str(exc.args[0])]}) from None
    try:
        clean = spec.validate(params)
    except catalogue.ParamError as exc:
        raise ValidationError({"params": [f"{k}: {v}" for k, v in exc.errors.items()]}) from None
    by_name = inputs.for_kind(spec)
    try:
        catalogue.base.check_inputs(spec, by_name)
    except catalogue.InputError as exc:
        failing = next(
            (FIELD[i.kind] for i in spec.inputs if not i.min <= len(by_name[i.name]) <= i.max),
            "inputs",
        )
        raise ValidationError({failing: [str(exc)]}) from None
    for doc in inputs.policies:
        try:
            load_input("policies", doc)
        except ValueError as exc:
            raise ValidationError({"policies": [str(exc)]}) from None
    for doc in inputs.topologies:
        try:
            load_input("topology", doc)
        except ValueError as exc:
            raise ValidationError({"topology": [str(exc)]}) from None
    if not isinstance(seed, int) or seed < 0 or seed > MAX_SEED:
        raise ValidationError({"seed": [f"must be an integer in 0..{MAX_SEED}"]})
    return spec, clean


def run_fingerprint(*, kind: str, params: dict[str, Any], seed: int, inputs: RunInputs) -> str:
    """Identical runs (kind, parameters, seed, input contents) have the same fingerprint."""
    key = {"kind": kind, "params": params, "seed": seed, "inputs": inputs.identity()}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def experiment_new(
    *,
    owner,
    kind: str,
    params: dict[str, Any] | None,
    inputs: RunInputs,
    seed: int = 0,
    name: str = "",
) -> Experiment:
    """Validate and save a queued run without enqueueing it (callers enqueue after commit)."""
    _, clean = validate_run(kind=kind, params=params, inputs=inputs, seed=seed)
    exp = Experiment.objects.create(
        owner=owner,
        kind=kind,
        params=clean,
        seed=seed,
        name=name[:200],
        snapshot=inputs.snapshot(),
        fingerprint=run_fingerprint(kind=kind, params=clean, seed=seed, inputs=inputs),
    )
    exp.traces.set(inputs.traces)
    exp.workflows.set(inputs.workflows)
    return exp


def experiment_create(
    *,
    owner,
    kind: str,
    params: dict[str, Any] | None,
    traces=(),
    workflows=(),
    policies=(),
    topologies=(),
    seed: int = 0,
    name: str = "",
) -> Experiment:
    """Validate against the kind's schema, save as queued, enqueue after commit."""
    inputs = RunInputs.of(traces, workflows, policies, topologies)
    with transaction.atomic():
        exp = experiment_new(
            owner=owner, kind=kind, params=params, inputs=inputs, seed=seed, name=name
        )
        transaction.on_commit(lambda: experiment_enqueue(experiment_id=exp.id))
    return exp


def run_inputs_of(exp) -> RunInputs:
    """The inputs of a stored run (or sweep): same traces, workflows and snapshot."""
    return RunInputs.of(
        exp.traces.order_by("id"),
        exp.workflows.order_by("id"),
        exp.snapshot.get("policies", ()),
        exp.snapshot.get("topology", ()),
    )


def experiment_clone(
    *,
    experiment: Experiment,
    owner,
    params: dict[str, Any] | None = None,
    seed: int | None = None,
    name: str | None = None,
) -> Experiment:
    """A new run with the same kind and inputs (and snapshot); ``params`` override some."""
    inputs = run_inputs_of(experiment)
    return experiment_create(
        owner=owner,
        kind=experiment.kind,
        params={**experiment.params, **(params or {})},
        traces=inputs.traces,
        workflows=inputs.workflows,
        policies=inputs.policies,
        topologies=inputs.topologies,
        seed=experiment.seed if seed is None else seed,
        name=name if name is not None else f"{experiment} (copy)",
    )


def experiment_enqueue(*, experiment_id: int) -> None:
    from .tasks import run_experiment_task

    # The queue is read at call time so that tests (and deployments) can route runs to a
    # queue of their own.
    run_experiment_task.apply_async((experiment_id,), queue=settings.CELERY_TASK_DEFAULT_QUEUE)


def experiment_cancel(*, experiment: Experiment) -> Experiment:
    """Cancel a queued or running run; the worker notices at its next progress report."""
    updated = Experiment.objects.filter(
        pk=experiment.pk, status__in=[Experiment.Status.QUEUED, Experiment.Status.RUNNING]
    ).update(
        status=Experiment.Status.CANCELLED,
        finished_at=timezone.now(),
        message="cancelled by the user",
    )
    if not updated:
        raise ValidationError(f"this run has already {experiment.status}")
    experiment.refresh_from_db()
    return experiment


def _inputs_for(exp: Experiment) -> dict[str, list[Any]]:
    """Load the run's inputs for the engine, by the kind's input names."""
    stored = run_inputs_of(exp)
    loaded = RunInputs.of(
        [trace_open(t) for t in stored.traces],
        [workflow_open(w) for w in stored.workflows],
        [load_input("policies", doc) for doc in stored.policies],
        list(stored.topologies),  # the kind reads the (validated) document itself
    )
    return loaded.for_kind(catalogue.get_kind(exp.kind))


def _progress_reporter(exp_id: int):
    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_INTERVAL_S and fraction < 1.0:
            return
        last[0] = now
        still_running = Experiment.objects.filter(
            pk=exp_id, status=Experiment.Status.RUNNING
        ).update(progress=max(0.0, min(1.0, fraction)), message=message[:200])
        if not still_running:
            raise catalogue.Cancelled()

    return progress


def _finish(exp_id: int, **fields: Any) -> None:
    Experiment.objects.filter(pk=exp_id, status=Experiment.Status.RUNNING).update(
        finished_at=timezone.now(), **fields
    )


def experiment_execute(*, experiment_id: int) -> str:
    """Run one experiment on this worker. Idempotent: a finished run is left alone.

    A run found ``running`` is taken again: with acks_late that only happens when the worker
    that had it died, and the run must not stay stuck.
    """
    with transaction.atomic():
        exp = Experiment.objects.select_for_update().filter(pk=experiment_id).first()
        if exp is None or exp.status not in (Experiment.Status.QUEUED, Experiment.Status.RUNNING):
            return exp.status if exp else "missing"
        exp.status = Experiment.Status.RUNNING
        exp.started_at = timezone.now()
        exp.progress = 0.0
        exp.message = "starting"
        exp.error = ""
        exp.save(update_fields=["status", "started_at", "progress", "message", "error"])
    try:
        inputs = _inputs_for(exp)
        result = catalogue.run_experiment(
            exp.kind, exp.params, inputs, seed=exp.seed, progress=_progress_reporter(exp.id)
        )
    except catalogue.Cancelled:
        return Experiment.Status.CANCELLED
    except (catalogue.ParamError, catalogue.InputError, SWFError, ValueError) as exc:
        _finish(exp.id, status=Experiment.Status.FAILED, error=str(exc), message="failed")
        return Experiment.Status.FAILED
    except Exception as exc:  # the user sees the failure; the log keeps the traceback
        log.exception("experiment %s failed", exp.id)
        _finish(
            exp.id,
            status=Experiment.Status.FAILED,
            error=f"internal error: {type(exc).__name__}: {exc}",
            message="failed",
        )
        return Experiment.Status.FAILED
    _finish(exp.id, status=Experiment.Status.SUCCEEDED, result=result, progress=1.0, message="done")
    return Experiment.Status.SUCCEEDED


def experiment_delete(*, experiment: Experiment) -> None:
    """Delete a run and its result; a worker still running it stops at its next report."""
    experiment.delete()
