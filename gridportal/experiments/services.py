"""Experiment services: create (validated by the engine's schema), execute, cancel."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from gridportal.inputs.services import trace_open
from scheduler import experiments as catalogue
from scheduler.io import SWFError

from .models import Experiment

log = logging.getLogger(__name__)
PROGRESS_INTERVAL_S = 0.5
MAX_SEED = 2**31 - 1


def validate_run(
    *, kind: str, params: dict[str, Any] | None, traces=(), seed: int = 0
) -> tuple[catalogue.ExperimentKind, dict[str, Any], list]:
    """Check a run against the kind's schema and inputs; errors name the field."""
    try:
        spec = catalogue.get_kind(kind)
    except KeyError as exc:
        raise ValidationError({"kind": [str(exc.args[0])]}) from None
    try:
        clean = spec.validate(params)
    except catalogue.ParamError as exc:
        raise ValidationError({"params": [f"{k}: {v}" for k, v in exc.errors.items()]}) from None
    traces = list(traces)
    try:
        catalogue.base.check_inputs(spec, {"traces": traces})
    except catalogue.InputError as exc:
        raise ValidationError({"traces": [str(exc)]}) from None
    if not isinstance(seed, int) or seed < 0 or seed > MAX_SEED:
        raise ValidationError({"seed": [f"must be an integer in 0..{MAX_SEED}"]})
    return spec, clean, traces


def run_fingerprint(*, kind: str, params: dict[str, Any], seed: int, traces) -> str:
    """Identical runs (kind, parameters, seed, input contents) have the same fingerprint."""
    key = {"kind": kind, "params": params, "seed": seed, "inputs": [t.sha256 for t in traces]}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def experiment_new(
    *, owner, kind: str, params: dict[str, Any] | None, traces=(), seed: int = 0, name: str = ""
) -> Experiment:
    """Validate and save a queued run without enqueueing it (callers enqueue after commit)."""
    _, clean, traces = validate_run(kind=kind, params=params, traces=traces, seed=seed)
    exp = Experiment.objects.create(
        owner=owner,
        kind=kind,
        params=clean,
        seed=seed,
        name=name[:200],
        fingerprint=run_fingerprint(kind=kind, params=clean, seed=seed, traces=traces),
    )
    exp.traces.set(traces)
    return exp


def experiment_create(
    *, owner, kind: str, params: dict[str, Any] | None, traces=(), seed: int = 0, name: str = ""
) -> Experiment:
    """Validate against the kind's schema, save as queued, enqueue after commit."""
    with transaction.atomic():
        exp = experiment_new(
            owner=owner, kind=kind, params=params, traces=traces, seed=seed, name=name
        )
        transaction.on_commit(lambda: experiment_enqueue(experiment_id=exp.id))
    return exp


def experiment_clone(
    *,
    experiment: Experiment,
    owner,
    params: dict[str, Any] | None = None,
    seed: int | None = None,
    name: str | None = None,
) -> Experiment:
    """A new run with the same kind and inputs; ``params`` override some parameters."""
    return experiment_create(
        owner=owner,
        kind=experiment.kind,
        params={**experiment.params, **(params or {})},
        traces=list(experiment.traces.order_by("id")),
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
    return {"traces": [trace_open(t) for t in exp.traces.order_by("id")]}


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
