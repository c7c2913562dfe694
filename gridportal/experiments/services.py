"""Experiment services: create (validated by the engine's schema), execute, cancel."""

from __future__ import annotations

import ast
import hashlib
import heapq
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from gridportal.inputs.policyfiles import check_run_policies, refs_in, sandbox_limits
from gridportal.inputs.services import trace_open, workflow_open
from gridportal.inputs.slurm_sites import slurm_site_open
from gridportal.limits import KilledFromOutside, LimitExceeded, Stopped, child_report, run_limited
from gridportal.quotas.services import (
    IN_FLIGHT,
    limits_by_user,
    quota_check_queued,
    quota_check_storage,
)
from gridportal.sandbox import SandboxError, run_job
from scheduler import engine
from scheduler.engine import SWFError, load_input

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
    slurm_sites: tuple = ()

    @classmethod
    def of(cls, traces=(), workflows=(), policies=(), topologies=(), slurm_sites=()) -> RunInputs:
        return cls(
            tuple(traces), tuple(workflows), tuple(policies), tuple(topologies),
            tuple(slurm_sites),
        )  # fmt: skip

    def by_kind(self) -> dict[str, tuple]:
        return {
            "trace": self.traces,
            "workflow": self.workflows,
            "policies": self.policies,
            "topology": self.topologies,
            "slurm-site": self.slurm_sites,
        }

    def snapshot(self) -> dict[str, list]:
        """The configuration documents, as stored with the run (later edits never change it)."""
        out: dict[str, list] = {}
        if len(self.traces) > 1:  # the order matters (site 1 = trace 1); M2M rows do not keep it
            out["trace_order"] = [t.pk for t in self.traces]
        if self.policies:
            out["policies"] = list(self.policies)
        if self.topologies:
            out["topology"] = list(self.topologies)
        return out

    def for_kind(self, spec: engine.ExperimentKind) -> dict[str, list]:
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
        if self.slurm_sites:
            out["slurm_sites"] = [s.sha256 for s in self.slurm_sites]
        return out


FIELD = {
    "trace": "traces", "workflow": "workflows", "policies": "policies", "topology": "topology",
    "slurm-site": "slurm_sites",
}  # fmt: skip


def input_facts_of(
    by_name: dict[str, list], spec: engine.ExperimentKind | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The facts :meth:`ExperimentKind.check_facts` reads, from the stored rows: a trace's or a
    workflow's summary as computed at upload (the engine's ``trace_summary``, ``summarize``); a
    configuration document's
    facts by the engine's ``document_facts`` (the same call the run makes); ``{}`` otherwise."""
    kinds = {i.name: i.kind for i in spec.inputs} if spec is not None else {}

    def facts(name: str, row: Any) -> dict[str, Any]:
        if hasattr(row, "job_count") or hasattr(row, "task_count"):  # a trace or workflow
            return dict(getattr(row, "summary", None) or {})
        return engine.document_facts(kinds.get(name, ""), row)

    return {name: [facts(name, row) for row in rows] for name, rows in by_name.items()}


def validate_run(
    *, kind: str, params: dict[str, Any] | None, inputs: RunInputs, seed: int = 0
) -> tuple[engine.ExperimentKind, dict[str, Any]]:
    """Check a run against the kind's schema and declared inputs; errors name the field."""
    try:
        spec = engine.get_kind(kind)
    except KeyError as exc:
        raise ValidationError({"kind": [str(exc.args[0])]}) from None
    try:
        clean = spec.validate(params)
    except engine.ParamError as exc:
        raise ValidationError({"params": [f"{k}: {v}" for k, v in exc.errors.items()]}) from None
    by_name = inputs.for_kind(spec)
    try:
        engine.check_inputs(spec, by_name)
    except engine.InputError as exc:
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
    # what the run would refuse given its inputs (the documents read above): a window past
    # the trace, an unknown domain of the topology, a size its facts bound
    try:
        spec.check_facts(clean, input_facts_of(by_name, spec))
    except engine.ParamError as exc:
        raise ValidationError({"params": [f"{k}: {v}" for k, v in exc.errors.items()]}) from None
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
    check_run_policies(owner=owner, params=clean)
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
    exp.slurm_sites.set(inputs.slurm_sites)
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
    slurm_sites=(),
    seed: int = 0,
    name: str = "",
) -> Experiment:
    """Validate against the kind's schema, save as queued, enqueue after commit."""
    inputs = RunInputs.of(traces, workflows, policies, topologies, slurm_sites)
    with transaction.atomic():
        submit_checks(owner=owner, runs=1)
        exp = experiment_new(
            owner=owner, kind=kind, params=params, inputs=inputs, seed=seed, name=name
        )
        # A broker outage must not turn the submit into a server error nor leave a queued row
        # no task will ever take: the row says so and the sweeper enqueues it later.
        transaction.on_commit(lambda: experiment_enqueue_or_hold(experiment=exp))
    return exp


def submit_checks(*, owner, runs: int) -> None:
    """(In the submit's transaction) the owner's storage and queued-run quotas; refusals name
    them (field ``quota``). The owner's row is locked so that two submits of one user are
    counted one after the other."""
    if connection.features.has_select_for_update:
        get_user_model().objects.select_for_update().filter(pk=owner.pk).exists()
    quota_check_storage(owner=owner, field="quota")
    quota_check_queued(owner=owner, adding=runs, field="quota")


def run_inputs_of(exp) -> RunInputs:
    """The inputs of a stored run (or sweep): same traces, workflows and snapshot."""
    traces = list(exp.traces.order_by("id"))
    order = {pk: i for i, pk in enumerate(exp.snapshot.get("trace_order", ()))}
    traces.sort(key=lambda t: order.get(t.pk, len(order)))  # as given at submission
    return RunInputs.of(
        traces,
        exp.workflows.order_by("id"),
        exp.snapshot.get("policies", ()),
        exp.snapshot.get("topology", ()),
        exp.slurm_sites.order_by("id"),
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
        slurm_sites=inputs.slurm_sites,
        seed=experiment.seed if seed is None else seed,
        name=name if name is not None else f"{experiment} (copy)",
    )


#: The Celery task that runs one experiment (``tasks.run_experiment_task``). Runs are sent by
#: this name: ``tasks`` imports this module, so importing it back would close a circle.
RUN_TASK = "gridportal.experiments.run"


def run_signature(experiment_id: int):  # type: ignore[no-untyped-def]
    """The message that runs one experiment (e.g. for a group of a sweep's runs)."""
    from gridportal.celery import app

    return app.signature(RUN_TASK, args=(experiment_id,), immutable=True)


def experiment_enqueue(*, experiment_id: int) -> None:
    from gridportal.celery import app

    # The queue is read at call time so that tests (and deployments) can route runs to a
    # queue of their own. Publishing retries briefly, then raises: a user never waits long
    # on a dead broker (see experiment_enqueue_or_hold). The worker applies the task's own
    # options (time limit, acks_late, retries) to a message sent by name.
    app.send_task(
        RUN_TASK,
        args=(experiment_id,),
        queue=settings.CELERY_TASK_DEFAULT_QUEUE,
        retry=True,
        retry_policy=ENQUEUE_RETRY_POLICY,
    )


#: Publishing to an unreachable broker: 3 tries over about a second, then give up.
ENQUEUE_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.4}
#: The message of a queued run whose task could not be published (the sweeper looks for it).
NOT_ENQUEUED = "waiting for the task queue"


def experiment_enqueue_or_hold(*, experiment: Experiment) -> bool:
    """(After a submit's commit) dispatch the owner's held runs, this one among them if the
    owner has room; keep it held otherwise, with a message saying why. A broker that cannot
    take it leaves it queued with a message saying so (the user sees it; ``manage.py
    sweep_runs`` enqueues it once the broker is back). Returns whether it was published."""
    experiments_dispatch(owner_ids=[experiment.owner_id])
    experiments_mark_held(ids=[experiment.id])
    row = Experiment.objects.filter(pk=experiment.pk).values("message", "published_at").first()
    if row is not None:
        experiment.message, experiment.published_at = row["message"], row["published_at"]
    return bool(row and row["published_at"])


#: The message of a run held back by fair dispatch (its place is worked out when it is read).
HELD = "held: you have"


def held_message(in_flight: int, limit: int) -> str:
    return (
        f"{HELD} {in_flight} runs in flight (your limit is {limit}); it starts as yours "
        "finish (oldest first, users taking turns)"
    )


def experiments_mark_held(*, ids: list[int]) -> None:
    """(After a dispatch) say why runs just submitted still wait: their owner is at the
    in-flight limit. Runs published later have their message replaced."""
    still = Experiment.objects.filter(
        pk__in=ids, status=Experiment.Status.QUEUED, published_at__isnull=True, message=""
    )
    rows = sorted(set(still.values_list("owner_id", flat=True)))
    limits = limits_by_user(rows)
    for owner_id in rows:
        in_flight = Experiment.objects.filter(IN_FLIGHT, owner_id=owner_id).count()
        limit = limits[owner_id]
        message = (
            held_message(in_flight, limit)
            if 0 < limit <= in_flight
            else f"{NOT_ENQUEUED}: the broker did not take it; the run starts when it is back"
        )
        still.filter(owner_id=owner_id).update(message=message)


def held_runs():
    """Queued runs whose task message is not published: they wait for a turn (or for the
    broker). A Slurm sweep's runs are not among them: they wait for uploaded results."""
    return Experiment.objects.filter(
        status=Experiment.Status.QUEUED, published_at__isnull=True
    ).exclude(sweeps__executor="slurm")


def experiment_queue_place(experiment: Experiment) -> int | None:
    """A held run's place among its owner's held runs (1 = next to start), else None."""
    if not experiment.is_held:
        return None
    earlier = (
        held_runs()
        .filter(owner_id=experiment.owner_id)
        .filter(
            Q(created__lt=experiment.created) | Q(created=experiment.created, pk__lt=experiment.pk)
        )
    )
    return earlier.count() + 1


#: An arbitrary constant: the PostgreSQL advisory lock that serialises dispatchers.
DISPATCH_LOCK = 0x67726964


def experiments_dispatch(*, owner_ids: list[int] | None = None) -> dict[str, int]:
    """Publish held runs, users taking turns, while each has room under their in-flight limit.

    Each turn goes to the user with the fewest runs in flight (then the one whose oldest held
    run is oldest) and publishes that user's oldest held run. Called after a submit, after
    each run ends (the worker frees a slot), after a cancel or delete, and by the sweeper.
    ``owner_ids`` restricts the turns to those users (a submit: only its owner can gain).

    Dispatchers are serialised (a PostgreSQL advisory lock for the transaction), so counts
    are not raced; a run is marked published by a conditional UPDATE before its message is
    sent, so two dispatchers never publish the same run, and the run's claim (``_claim``)
    makes any duplicate message harmless. Returns counts: ``enqueued`` and ``held`` (1 when
    the broker refused, the rest waiting for the next call).
    """
    counts = {"enqueued": 0, "held": 0}
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [DISPATCH_LOCK])
        waiting = held_runs()
        if owner_ids is not None:
            waiting = waiting.filter(owner_id__in=owner_ids)
        owners = sorted(set(waiting.values_list("owner_id", flat=True)))
        if not owners:
            return counts
        limits = limits_by_user(owners)
        in_flight = dict.fromkeys(owners, 0)
        for owner_id, n in (
            Experiment.objects.filter(IN_FLIGHT, owner_id__in=owners)
            .values("owner_id")
            .annotate(n=Count("id"))
            .values_list("owner_id", "n")
        ):
            in_flight[owner_id] = n
        queues: dict[int, list[tuple]] = {}
        turns: list[tuple] = []
        for owner_id in owners:
            limit = limits[owner_id]
            room = None if limit <= 0 else limit - in_flight[owner_id]
            if room is not None and room <= 0:
                continue
            rows = list(
                held_runs()
                .filter(owner_id=owner_id)
                .order_by("created", "id")
                .values_list("created", "id")[: room if room is not None else None]
            )
            if rows:
                queues[owner_id] = rows[::-1]  # popped from the end: oldest first
                turns.append((in_flight[owner_id], rows[0][0], rows[0][1], owner_id))
        heapq.heapify(turns)
        while turns:
            n, _, _, owner_id = heapq.heappop(turns)
            _, pk = queues[owner_id].pop()
            published = _publish(pk)
            if published is None:
                continue  # taken meanwhile (cancelled, deleted): the turn goes on
            if not published:
                counts["held"] = 1
                break  # the broker refused: the others wait for the next call
            counts["enqueued"] += 1
            if queues[owner_id]:
                created, next_pk = queues[owner_id][-1]
                heapq.heappush(turns, (n + 1, created, next_pk, owner_id))
    if counts["enqueued"]:
        log.info("dispatch: %d held runs published", counts["enqueued"])
    return counts


def _publish(pk: int) -> bool | None:
    """Mark a held run published and send its task message. None: it was no longer held;
    False: the broker refused (the run is held again, with a message saying so)."""
    marked = held_runs().filter(pk=pk).update(published_at=timezone.now(), message="queued")
    if not marked:
        return None
    try:
        experiment_enqueue(experiment_id=pk)
    except Exception as exc:  # any broker/transport failure: the run must not be lost
        log.warning("run %s not enqueued: %s: %s", pk, type(exc).__name__, exc)
        Experiment.objects.filter(pk=pk).update(published_at=None)
        experiments_hold(ids=[pk], reason=exc)
        return False
    return True


def experiment_republish(*, experiment: Experiment) -> bool:
    """Send the task message of a published run again (its message was lost): it stays in
    flight. If the broker refuses, the run is held again, with a message saying so."""
    try:
        experiment_enqueue(experiment_id=experiment.id)
    except Exception as exc:
        log.warning("run %s not enqueued: %s: %s", experiment.id, type(exc).__name__, exc)
        Experiment.objects.filter(pk=experiment.pk, status=Experiment.Status.QUEUED).update(
            published_at=None
        )
        experiment.message = experiments_hold(ids=[experiment.id], reason=exc)
        return False
    return True


def experiment_cancel(*, experiment: Experiment) -> Experiment:
    """Cancel a queued or running run. The worker running it asks every
    ``STOP_POLL_S`` whether its run is still running, and kills the engine's process group
    when not (``run_limited(should_stop=...)``): the slot is free within seconds, and the
    next held runs are dispatched."""
    updated = Experiment.objects.filter(
        pk=experiment.pk, status__in=[Experiment.Status.QUEUED, Experiment.Status.RUNNING]
    ).update(
        status=Experiment.Status.CANCELLED,
        finished_at=timezone.now(),
        message="cancelled by the user",
    )
    if not updated:
        experiment.refresh_from_db()
        raise ValidationError(f"this run has already {experiment.status}")
    transaction.on_commit(dispatch_quietly)
    experiment.refresh_from_db()
    return experiment


def dispatch_quietly() -> None:
    """Dispatch held runs where a failure must not hide what just happened (after a run, a
    cancel or a delete): the sweeper dispatches again on its next pass."""
    try:
        experiments_dispatch()
    except Exception:  # noqa: BLE001 (logged; the sweeper retries)
        log.exception("dispatch of held runs failed; the sweeper will try again")


def _inputs_for(exp: Experiment) -> dict[str, list[Any]]:
    """Load the run's inputs for the engine, by the kind's input names."""
    stored = run_inputs_of(exp)
    loaded = RunInputs.of(
        [trace_open(t) for t in stored.traces],
        [workflow_open(w) for w in stored.workflows],
        [load_input("policies", doc) for doc in stored.policies],
        list(stored.topologies),  # the kind reads the (validated) document itself
        [slurm_site_open(s) for s in stored.slurm_sites],
    )
    return loaded.for_kind(engine.get_kind(exp.kind))


def _progress_reporter(exp_id: int):
    """(In the worker) store a run's progress; raises Cancelled once it is no longer running."""

    def progress(fraction: float, message: str) -> None:
        still_running = Experiment.objects.filter(
            pk=exp_id, status=Experiment.Status.RUNNING
        ).update(progress=max(0.0, min(1.0, fraction)), message=message[:200])
        if not still_running:
            raise engine.Cancelled()

    return progress


def _engine_run(kind: str, params: dict, inputs: dict, seed: int):
    """(In the run's limited child) the engine run; progress goes to the worker by pipe."""
    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_INTERVAL_S and fraction < 1.0:
            return
        last[0] = now
        child_report((float(fraction), str(message)))

    return engine.run_experiment(kind, params, inputs, seed=seed, progress=progress)


def _finish(exp_id: int, **fields: Any) -> None:
    Experiment.objects.filter(pk=exp_id, status=Experiment.Status.RUNNING).update(
        finished_at=timezone.now(), **fields
    )


def _claim(experiment_id: int, token: str) -> tuple[Experiment | None, str]:
    """Take a run for this task message: queued -> running in one conditional UPDATE.

    Returns (the run, "") when this message may run it, else (run or None, why not). A run
    found ``running`` under the same message (or with no message named) was re-delivered
    because its worker died: it is taken again, counting the loss. Under another message it
    is a duplicate message's: it is left alone, never run twice.
    """
    now = timezone.now()
    fields = dict(progress=0.0, message="starting", error="", claim=token, started_at=now)
    taken = Experiment.objects.filter(pk=experiment_id, status=Experiment.Status.QUEUED).update(
        status=Experiment.Status.RUNNING, **fields
    )
    exp = Experiment.objects.filter(pk=experiment_id).first()
    if taken:
        return exp, ""
    if exp is None:
        return None, "missing"
    if exp.status != Experiment.Status.RUNNING:
        return exp, exp.status
    if exp.claim and exp.claim != token:
        log.warning("run %s: duplicate task message %s ignored (taken by %s)", exp.pk, token,
                    exp.claim)  # fmt: skip
        return exp, "duplicate"
    # Re-delivered: its worker died. A run that kills every worker would come back forever.
    losses = int(exp.snapshot.get(WORKER_LOSSES, 0)) + 1
    snapshot = {**exp.snapshot, WORKER_LOSSES: losses}
    same = Experiment.objects.filter(
        pk=exp.pk, status=Experiment.Status.RUNNING, claim=exp.claim, started_at=exp.started_at
    )
    if losses > MAX_WORKER_LOSSES:
        same.update(
            status=Experiment.Status.FAILED,
            message="failed",
            finished_at=now,
            error=worker_lost_error(losses),
            snapshot=snapshot,
        )
        exp.refresh_from_db()
        return exp, exp.status
    if not same.update(snapshot=snapshot, **fields):
        exp.refresh_from_db()
        return exp, exp.status  # someone else changed it meanwhile (cancelled, swept)
    exp.refresh_from_db()
    return exp, ""


def experiment_execute(*, experiment_id: int, token: str = "") -> str:
    """Run one experiment on this worker. Idempotent: a finished run is left alone, and a run
    another task message took is not run again (``token`` names this message).

    The engine works in a child process under GRIDPORTAL_RUN_MEMORY_MB and
    GRIDPORTAL_RUN_TIME_LIMIT (gridportal.limits): past either the child is killed and the run
    fails naming the limit; the worker lives on and the message is acknowledged (a run that
    needs too much is never re-delivered as if its worker had crashed).
    """
    token = (token or "")[:64]
    exp, why_not = _claim(experiment_id, token)
    if why_not:
        return why_not
    mine = Experiment.objects.filter(pk=exp.id, status=Experiment.Status.RUNNING, claim=token)
    try:
        store_progress = _progress_reporter(exp.id)
        result = experiment_compute(
            exp,
            on_report=lambda report: store_progress(*report),
            # cancelled, deleted, or taken by another message (re-queued): stop now
            should_stop=lambda: not mine.exists(),
        )
    except (engine.Cancelled, Stopped):
        log.info("experiment %s stopped: it is no longer running here", exp.id)
        return Experiment.Status.CANCELLED
    except KilledFromOutside as exc:
        log.warning("experiment %s: %s", exp.id, exc.message)
        _finish(exp.id, status=Experiment.Status.FAILED, error=exc.message, message="failed")
        return Experiment.Status.FAILED
    except LimitExceeded as exc:
        log.warning("experiment %s stopped: %s", exp.id, exc.message)
        _finish(exp.id, status=Experiment.Status.FAILED, error=exc.message, message="failed")
        return Experiment.Status.FAILED
    except (engine.ParamError, engine.InputError, SWFError, ValueError) as exc:
        _finish(exp.id, status=Experiment.Status.FAILED, error=str(exc), message="failed")
        return Experiment.Status.FAILED
    except (OperationalError, InterfaceError):
        raise  # the database went away: the task retries (the same message re-takes the run)
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


def experiment_compute(
    exp: Experiment, *, what: str = "the run", on_report=None, should_stop=None
) -> dict[str, Any]:
    """The run's Result, computed by the engine in a child process under
    GRIDPORTAL_RUN_MEMORY_MB and GRIDPORTAL_RUN_TIME_LIMIT (raises LimitExceeded past either,
    the engine's own errors as they are); nothing is stored.  A run naming a user's policy
    runs whole in the sandbox instead (:func:`_sandboxed_compute`)."""
    if refs_in(exp.params):
        return _sandboxed_compute(exp, on_report=on_report, should_stop=should_stop)
    return run_limited(
        _engine_run,
        exp.kind,
        exp.params,
        _inputs_for(exp),
        exp.seed,
        timeout=settings.GRIDPORTAL_RUN_TIME_LIMIT,
        memory_mb=settings.GRIDPORTAL_RUN_MEMORY_MB,
        what=what,
        on_report=on_report,
        should_stop=should_stop,
        poll_s=STOP_POLL_S,
    )


def experiment_delete(*, experiment: Experiment) -> None:
    """Delete a run and its result; a worker still running it stops within ``STOP_POLL_S``
    (it finds the row gone) and the next held runs are dispatched."""
    experiment.delete()
    transaction.on_commit(dispatch_quietly)


def _sandboxed_compute(exp: Experiment, *, on_report=None, should_stop=None) -> dict[str, Any]:
    """The run's Result computed in the sandbox (gridportal/sandbox.py): its trace files and
    policy files in, the Result out; the user's code never runs in this process.  The Result
    names each user policy, its class and its sha256."""
    try:
        policies = check_run_policies(owner=exp.owner, params=exp.params)
    except ValidationError as exc:  # turned off, or gone, since the submit
        raise ValueError("; ".join(exc.messages)) from None
    stored = run_inputs_of(exp)
    if stored.policies or stored.topologies or stored.slurm_sites:
        raise ValueError("a run with a user policy takes traces and workflows only as inputs")
    spec = engine.get_kind(exp.kind)
    files, names = _sandbox_files(stored)
    inputs = {i.name: names.get(i.kind, []) for i in spec.inputs}
    # a workflow is named by its file's stem: the stored file's, as outside the sandbox
    shown = {
        n: Path(w.file.name).name for n, w in zip(names["workflow"], stored.workflows, strict=True)
    }
    for row in policies.values():
        files[f"policy-{row.sha256[:12]}.py"] = row.source.encode()
    job = {
        "mode": "run", "kind": exp.kind, "params": exp.params, "seed": exp.seed,
        "inputs": inputs, "workflows": [i.name for i in spec.inputs if i.kind == "workflow"],
        "names": shown,
        "policies": {r: f"policy-{p.sha256[:12]}.py:{p.class_name}" for r, p in policies.items()},
    }  # fmt: skip
    progress = (lambda f, m: on_report((f, m))) if on_report else None
    try:
        out = run_job(job, files, sandbox_limits(), on_progress=progress, should_stop=should_stop)
    except SandboxError as exc:
        if exc.limit == "stopped":
            raise Stopped() from None
        if exc.limit in ("cpu", "wall", "memory", "processes", "file"):
            raise LimitExceeded(exc.limit, f"the run: {exc.message}") from None
        raise ValueError(exc.message) from None
    result = out.get("result")
    if not isinstance(result, dict) or result.get("kind") != exp.kind:
        raise ValueError("the sandboxed run answered no Result of its kind")
    result["user_policies"] = [
        {"policy": r, "label": _policy_label(r, p), "name": p.name, "class": p.class_name,
         "sha256": p.sha256}
        for r, p in policies.items()
    ]  # fmt: skip
    rows = [[u["label"], u["policy"], u["class"], u["sha256"]] for u in result["user_policies"]]
    result.setdefault("tables", []).append(
        engine.table(
            "user-policies",
            "Uploaded policies of this run (run in the sandbox)",
            ["policy", "reference", "class", "sha256"],
            rows,
        )
    )
    return result


def _sandbox_files(stored: RunInputs) -> tuple[dict[str, Path], dict[str, list[str]]]:
    """The run's stored trace and workflow files as the sandbox's run folder names them, by
    input kind (a workflow keeps its suffix: the loader reads its format from the content,
    a person from the name)."""
    files: dict[str, Path] = {}
    names: dict[str, list[str]] = {"trace": [], "workflow": []}
    for i, trace in enumerate(stored.traces):
        name = f"trace-{i}" + (".swf.gz" if trace.file.name.endswith(".gz") else ".swf")
        files[name] = Path(trace.file.path)
        names["trace"].append(name)
    for i, workflow in enumerate(stored.workflows):
        name = f"workflow-{i}{Path(workflow.file.name).suffix}"
        files[name] = Path(workflow.file.path)
        names["workflow"].append(name)
    return files, names


def _policy_label(ref: str, row) -> str:  # type: ignore[no-untyped-def]
    """How results name an upload: its title (or name) and reference, as the engine does."""
    return f"{row.title or row.name} ({ref})"


#: Seconds between a running run's checks that it should go on (cancel, delete).
STOP_POLL_S = 1.0


# Sweeper: repairs runs whose task was never published or whose worker died ------------------

#: How many times a run is re-queued after losing its worker before it is marked failed.
MAX_WORKER_LOSSES = 2
#: The snapshot key counting a run's lost workers (shown with the run, kept across re-queues).
WORKER_LOSSES = "worker_losses"


def worker_lost_error(losses: int) -> str:
    return (
        f"the worker running this run stopped {losses} times (killed, or out of memory?); "
        "it is not retried again"
    )


def experiments_hold(*, ids: list[int], reason: BaseException | str) -> str:
    """Mark queued runs whose task could not be published; returns the message they get."""
    cause = reason if isinstance(reason, str) else f"{type(reason).__name__}: {reason}"
    message = (
        f"{NOT_ENQUEUED}: the broker is unreachable ({cause}); the run starts when it is back"
    )[:200]
    Experiment.objects.filter(pk__in=ids, status=Experiment.Status.QUEUED).update(message=message)
    return message


def _active_run_ids(timeout: float) -> set[int]:
    """Ids of the runs some live worker is executing now (a broadcast ``inspect active``).
    Raises when the broker cannot be reached: then nothing can be concluded."""
    from gridportal.celery import app

    replies = app.control.inspect(timeout=timeout).active() or {}
    ids: set[int] = set()
    for tasks in replies.values():
        for task in tasks or ():
            args = task.get("args") or ()
            if task.get("name") == RUN_TASK and args:
                try:
                    ids.add(int(args[0]))
                except (TypeError, ValueError):
                    continue
    return ids


def _run_id_of_message(message: dict) -> int | None:
    """The run id of a raw Celery message (protocol 2, as kombu stores it), if it is a run's."""
    headers = message.get("headers") or {}
    if headers.get("task") != "gridportal.experiments.run":
        return None
    try:
        args = ast.literal_eval(headers.get("argsrepr") or "()")
        return int(args[0])
    except (ValueError, SyntaxError, TypeError, IndexError):
        return None


def _messages_in_broker() -> set[int]:
    """Ids of the runs that have a task message waiting in the broker or delivered and not yet
    acknowledged. Raises when the broker cannot be read (then nothing can be concluded)."""
    from gridportal.celery import app

    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    raw: list = []
    with app.connection_for_read() as conn:
        transport = conn.transport_cls if isinstance(conn.transport_cls, str) else ""
        url = settings.CELERY_BROKER_URL
        if url.startswith(("redis://", "rediss://")) or transport == "redis":
            client = conn.default_channel.client
            for key in (queue, *(f"{queue}\x06\x16{p}" for p in range(1, 10))):
                raw.extend(client.lrange(key, 0, -1))
            raw.extend(json.loads(v)[0] for v in client.hvals("unacked"))
        elif url.startswith("filesystem://"):
            folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
            for path in folder.glob(f"*.{queue}.msg"):
                try:
                    raw.append(path.read_bytes())
                except OSError:
                    continue  # taken meanwhile
        else:
            raise RuntimeError(f"cannot list the messages of broker {url.split(':')[0]}")
    ids: set[int] = set()
    for item in raw:
        try:
            message = item if isinstance(item, dict) else json.loads(item)
        except (ValueError, TypeError):
            continue
        run_id = _run_id_of_message(message)
        if run_id is not None:
            ids.add(run_id)
    return ids


def _worker_run_ids(timeout: float) -> set[int]:
    """Runs that live workers have received (executing or reserved)."""
    from gridportal.celery import app

    inspect = app.control.inspect(timeout=timeout)
    ids: set[int] = set()
    for replies in (inspect.active() or {}, inspect.reserved() or {}):
        for tasks in replies.values():
            for task in tasks or ():
                args = task.get("args") or ()
                if task.get("name") == "gridportal.experiments.run" and args:
                    try:
                        ids.add(int(args[0]))
                    except (TypeError, ValueError):
                        continue
    return ids


def experiments_requeue_orphans(*, grace_s: float, inspect_timeout: float = 3.0) -> int:
    """Enqueue again the published queued runs that have no task message anywhere (the
    broker restarted empty, a message was lost): the database says what must run. Held runs
    (not yet published: fair dispatch publishes them) are not orphans, and runs of Slurm
    sweeps wait for uploaded results on purpose. A message that does still exist somewhere
    only makes a duplicate, which the run's claim makes harmless."""
    cutoff = timezone.now() - timezone.timedelta(seconds=grace_s)
    candidates = list(
        Experiment.objects.filter(
            status=Experiment.Status.QUEUED, created__lt=cutoff, published_at__lt=cutoff
        )
        .exclude(message__startswith=NOT_ENQUEUED)
        .exclude(started_at__gte=cutoff)
        .exclude(sweeps__executor="slurm")
        .order_by("id")
        .values_list("id", flat=True)
    )
    if not candidates:
        return 0
    present = _messages_in_broker() | _worker_run_ids(inspect_timeout)
    orphans = [pk for pk in candidates if pk not in present]
    enqueued = 0
    for exp in Experiment.objects.filter(
        pk__in=orphans, status=Experiment.Status.QUEUED, published_at__isnull=False
    ):
        if not experiment_republish(experiment=exp):
            break
        enqueued += 1
    if enqueued:
        log.warning("sweeper: %d queued runs had no task message; enqueued again", enqueued)
    return enqueued


def experiment_sweep_stale(
    *,
    grace_s: float = 120.0,
    inspect_timeout: float = 3.0,
    max_worker_losses: int = MAX_WORKER_LOSSES,
) -> dict[str, int]:
    """Repair runs no worker will ever finish; returns counts by what was done.

    * held runs (beyond their owner's in-flight limit, or held while the broker was down)
      are dispatched, users taking turns (:func:`experiments_dispatch`);
    * published queued runs whose message is nowhere are enqueued again;
    * ``running`` runs started more than ``grace_s`` ago that no live worker is executing
      (the worker was killed, its machine died) are re-queued (held, then dispatched), or
      marked failed with the reason once they have lost ``max_worker_losses`` workers. With
      ``acks_late`` their message would come back only after the broker's visibility
      timeout (hours).

    Run it periodically (``manage.py sweep_runs``; ``scripts/run-portal.sh`` does every
    5 s). Safe to run anywhere, any number of times: each change is a conditional update.
    """
    counts = {
        "enqueued": 0,
        "held": 0,
        "orphans": 0,
        "requeued": 0,
        "failed": 0,
        "running_alive": 0,
    }
    dispatched = experiments_dispatch()
    counts["enqueued"], counts["held"] = dispatched["enqueued"], dispatched["held"]
    if not counts["held"]:
        try:
            counts["orphans"] = experiments_requeue_orphans(
                grace_s=grace_s, inspect_timeout=inspect_timeout
            )
        except Exception as exc:  # broker unreadable: nothing can be concluded this pass
            log.warning("sweeper: cannot list the task messages (%s); queued runs left", exc)
    cutoff = timezone.now() - timezone.timedelta(seconds=grace_s)
    suspects = list(
        Experiment.objects.filter(status=Experiment.Status.RUNNING, started_at__lt=cutoff)
        .only("id", "snapshot", "started_at")
        .order_by("id")
    )
    if not suspects:
        return counts
    try:
        alive = _active_run_ids(inspect_timeout)
    except Exception as exc:  # broker down: a worker may well be running them
        log.warning("sweeper: cannot ask the workers (%s); running runs left alone", exc)
        counts["running_alive"] = len(suspects)
        return counts
    for exp in suspects:
        if exp.pk in alive:
            counts["running_alive"] += 1
            continue
        losses = int(exp.snapshot.get(WORKER_LOSSES, 0)) + 1
        snapshot = {**exp.snapshot, WORKER_LOSSES: losses}
        lost = Experiment.objects.filter(
            pk=exp.pk, status=Experiment.Status.RUNNING, started_at=exp.started_at
        )
        if losses > max_worker_losses:
            if lost.update(
                status=Experiment.Status.FAILED,
                snapshot=snapshot,
                finished_at=timezone.now(),
                message="failed",
                error=worker_lost_error(losses),
            ):
                counts["failed"] += 1
            continue
        if lost.update(
            status=Experiment.Status.QUEUED,
            snapshot=snapshot,
            progress=0.0,
            published_at=None,  # held: dispatched below, oldest first among its owner's
            message=f"re-queued: its worker stopped while running it ({losses}/"
            f"{max_worker_losses})",
        ):
            counts["requeued"] += 1
    if counts["requeued"]:
        again = experiments_dispatch()
        counts["enqueued"] += again["enqueued"]
        counts["held"] = max(counts["held"], again["held"])
    return counts
