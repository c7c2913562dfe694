"""Jobs as the cluster simulator sees them, built from SWF records.

Field mapping (Standard Workload Format, Chapin et al. 1999): submit = field 2, runtime =
field 4, processors = field 8 (requested) if > 0 else field 5 (allocated), requested time =
field 9; user, group, queue and partition are kept for later policies (fair share, usage
policies).

Estimate modes:

* ``accurate`` — the scheduler plans with the actual runtime;
* ``requested`` — it plans with the requested time; a job that would run longer is killed at
  its request ("a job never runs past its request"); a job without a requested time
  (field 9 missing, i.e. -1, or 0) is planned with its actual runtime.

Plans reserve at least one second (:class:`~scheduler.cluster.simulator.Simulator` plans a job
of estimate 0 for 1 s): a job of runtime 0 — CTC-SP2 has 17 — needs its processors at the
instant it starts and gives them back at once.

Jobs that cannot run are dropped, never silently: :func:`prepare_jobs` counts them by reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

from ..traces.swf import SWFJob
from ._gc import gc_paused

__all__ = [
    "DROP_REASONS",
    "ESTIMATE_MODES",
    "Reservation",
    "SimJob",
    "job_procs",
    "prepare_jobs",
    "prepare_table",
]

ESTIMATE_MODES = ("accurate", "requested")

#: Why a job was dropped, checked in this order.
DROP_REASONS = ("missing_runtime", "missing_procs", "exceeds_machine")


class SimJob(NamedTuple):
    """One job to simulate (a named tuple: cheap to build for whole archive traces).

    ``runtime`` is how long it runs in the simulation (the trace runtime, cut to the request
    when ``killed``); ``estimate`` is what the scheduler plans with.  ``index`` is the job's
    position in queue order (submit time, then job id, then file order).
    """

    index: int
    job_id: int
    submit: int
    runtime: int
    estimate: int
    procs: int
    killed: bool = False
    user: int = -1
    group: int = -1
    queue: int = -1
    partition: int = -1


@dataclass(frozen=True, slots=True)
class Reservation:
    """A fixed block: ``procs`` processors over ``[start, start + duration)``.

    Every policy honours it: the machine is never over-committed, conservative backfilling
    plans around it and EASY counts it in the shadow time.
    """

    start: int
    duration: int
    procs: int

    def __post_init__(self) -> None:
        for name in ("start", "duration", "procs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"reservation {name} must be an int >= 0, got {value!r}")

    @property
    def end(self) -> int:
        return self.start + self.duration


def job_procs(job: SWFJob) -> int:
    """Processors of an SWF job for simulation: field 8 if > 0, else field 5."""
    return job.req_procs if job.req_procs > 0 else job.alloc_procs


def prepare_jobs(
    jobs: Iterable[SWFJob], machine_procs: int, estimates: str
) -> tuple[list[SimJob], dict[str, int]]:
    """Turn SWF records into :class:`SimJob` in queue order; return them and the drop counts.

    Raises ValueError for an unknown estimate mode or a machine without processors.
    """
    with gc_paused():
        return _prepare_jobs(jobs, machine_procs, estimates)


def _prepare_jobs(
    jobs: Iterable[SWFJob], machine_procs: int, estimates: str
) -> tuple[list[SimJob], dict[str, int]]:
    if estimates not in ESTIMATE_MODES:
        raise ValueError(f"estimates must be one of {', '.join(ESTIMATE_MODES)}; got {estimates!r}")
    if isinstance(machine_procs, bool) or not isinstance(machine_procs, int) or machine_procs < 1:
        raise ValueError(f"machine processors must be an int >= 1, got {machine_procs!r}")
    dropped = dict.fromkeys(DROP_REASONS, 0)
    kept: list[tuple[int, int, int, SWFJob, int]] = []
    ordered = True
    prev = (-1, -1)
    for pos, j in enumerate(jobs):
        procs = j.req_procs if j.req_procs > 0 else j.alloc_procs
        if j.run < 0:
            dropped["missing_runtime"] += 1
        elif procs <= 0:
            dropped["missing_procs"] += 1
        elif procs > machine_procs:
            dropped["exceeds_machine"] += 1
        else:
            key = (j.submit, j.job_id)
            if key < prev:
                ordered = False
            prev = key
            kept.append((j.submit, j.job_id, pos, j, procs))
    if not ordered:
        kept.sort(key=lambda r: (r[0], r[1], r[2]))
    requested = estimates == "requested"
    out: list[SimJob] = []
    append = out.append
    for index, (submit, job_id, _, j, procs) in enumerate(kept):
        run = int(j.run)
        req = int(j.req_time)
        if requested and req > 0 and run > req:  # killed at its request
            append(
                SimJob(
                    index, int(job_id), int(submit), req, req, int(procs), True,
                    j.user, j.group, j.queue, j.partition,
                )
            )  # fmt: skip
        else:
            est = req if requested and req > 0 else run
            append(
                SimJob(
                    index, int(job_id), int(submit), run, est, int(procs), False,
                    j.user, j.group, j.queue, j.partition,
                )
            )  # fmt: skip
    return out, dropped


def prepare_table(table: Any, machine_procs: int, estimates: str) -> tuple[list[SimJob], dict]:
    """:func:`prepare_jobs` for the int64 table of
    :func:`~scheduler.traces.swf.read_swf_table` (columns
    :data:`~scheduler.traces.swf.TABLE_FIELDS`): the same jobs, drops and queue order, with
    array passes instead of a loop over job objects."""
    import numpy as np

    if estimates not in ESTIMATE_MODES:
        raise ValueError(f"estimates must be one of {', '.join(ESTIMATE_MODES)}; got {estimates!r}")
    if isinstance(machine_procs, bool) or not isinstance(machine_procs, int) or machine_procs < 1:
        raise ValueError(f"machine processors must be an int >= 1, got {machine_procs!r}")
    job_id, submit, run, alloc, req_procs, req_time, user, group, queue, partition = table.T
    procs = np.where(req_procs > 0, req_procs, alloc)
    no_run = run < 0
    no_procs = ~no_run & (procs <= 0)
    too_big = ~no_run & ~no_procs & (procs > machine_procs)
    dropped = {
        "missing_runtime": int(no_run.sum()),
        "missing_procs": int(no_procs.sum()),
        "exceeds_machine": int(too_big.sum()),
    }
    kept = np.flatnonzero(~(no_run | no_procs | too_big))
    kept = kept[np.lexsort((job_id[kept], submit[kept]))]  # stable: file order breaks ties
    run, req = run[kept], req_time[kept]
    if estimates == "requested":
        given = req > 0
        killed = given & (run > req)  # killed at its request
        runtime = np.where(killed, req, run)
        estimate = np.where(given, req, run)
    else:
        killed = np.zeros(kept.size, dtype=bool)
        runtime = estimate = run
    columns = (
        job_id[kept], submit[kept], runtime, estimate, procs[kept], killed,
        user[kept], group[kept], queue[kept], partition[kept],
    )  # fmt: skip
    with gc_paused():
        make = partial(tuple.__new__, SimJob)
        rows = zip(range(kept.size), *(c.tolist() for c in columns), strict=True)
        jobs = [*map(make, rows)]
    return jobs, dropped
