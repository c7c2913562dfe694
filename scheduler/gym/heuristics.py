"""The heuristic priorities the learned-scheduler literature compares with.

Each is a priority in the sense of :class:`scheduler.policies.PriorityPolicy` — higher runs
first, ties in queue order — written with numpy operations so that one definition serves a
single job (the engine's priority policies, :func:`priority_policy`) and the whole queue at
once (the environment's heuristic agents, :func:`pick`).  Arguments: submit time ``s``,
requested time ``r`` (what the scheduler plans with), processors ``n``, and ``now``.

Definitions (RLScheduler, Zhang et al. SC'20, Table II; the ascending scores of their
``HPCSimPickJobs.py`` negated):

* FCFS — first come first served: ``-s``;
* SJF — shortest (requested) job first: ``-r`` (ties: earlier submit);
* WFP3 — Tang et al., IEEE Cluster 2009: ``(w / r)^3 · n`` with ``w = now - s``;
* UNICEP — Tang et al. 2009: ``w / (log2(n) · r)``;
* F1 — Carastan-Santos & de Camargo, SC'17 (the first of the functions they learned):
  ``-(log10(r) · n + 870 · log10(s))``.

RLScheduler's code computes the waiting time of a queued job as ``scheduled_time -
submit_time`` while ``scheduled_time`` is still ``-1``, so its WFP3 and UNICEP columns rank by
``w = -1 - s`` rather than the time waited.  ``WFP3_AS_CODED`` and ``UNICEP_AS_CODED`` are
those rankings, for reproducing the published table; the plain names are the papers'
definitions.  A log of a non-positive value uses 0.1, as their code does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..cluster.userpolicy import Job, PriorityPolicy

__all__ = ["HEURISTICS", "Priority", "pick", "priority_policy"]

#: ``priority(s, r, n, now)`` over scalars or numpy arrays; higher runs first
Priority = Callable[[Any, Any, Any, int], Any]

_TINY = 1e-15


def _log10(x: Any) -> Any:
    return np.log10(np.where(x > 0, x, 0.1))


def fcfs(s: Any, r: Any, n: Any, now: int) -> Any:
    return -np.asarray(s, dtype=float)


def sjf(s: Any, r: Any, n: Any, now: int) -> Any:
    return -np.asarray(r, dtype=float)


def wfp3(s: Any, r: Any, n: Any, now: int) -> Any:
    return (np.subtract(now, s, dtype=float) / r) ** 3 * n


def unicep(s: Any, r: Any, n: Any, now: int) -> Any:
    return (np.subtract(now, s, dtype=float) + _TINY) / (np.log2(np.add(n, _TINY)) * r)


def f1(s: Any, r: Any, n: Any, now: int) -> Any:
    return -(_log10(np.asarray(r, dtype=float)) * n + 870 * _log10(np.asarray(s, dtype=float)))


def wfp3_as_coded(s: Any, r: Any, n: Any, now: int) -> Any:
    return wfp3(s, r, n, -1)


def unicep_as_coded(s: Any, r: Any, n: Any, now: int) -> Any:
    return unicep(s, r, n, -1)


#: name -> priority (the order of RLScheduler's table, then their code's variants)
HEURISTICS: dict[str, Priority] = {
    "FCFS": fcfs,
    "WFP3": wfp3,
    "UNICEP": unicep,
    "SJF": sjf,
    "F1": f1,
    "WFP3_AS_CODED": wfp3_as_coded,
    "UNICEP_AS_CODED": unicep_as_coded,
}


def pick(
    priority: Priority, queue: list[int], submit: Any, request: Any, procs: Any, now: int
) -> int:
    """The waiting job (an index of ``queue``'s jobs) with the highest priority; ties go to
    the earliest in ``queue``.  ``submit``, ``request``, ``procs``: numpy arrays by job."""
    idx = np.fromiter(queue, dtype=np.int64, count=len(queue))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        keys = priority(submit[idx], request[idx], procs[idx], now)
    keys = np.nan_to_num(np.asarray(keys, dtype=float), nan=-np.inf)
    return queue[int(np.argmax(keys))]


def priority_policy(
    name: str, *, backfill: bool = True, reservations: int | None = 1
) -> type[PriorityPolicy]:
    """The heuristic ``name`` as an engine priority policy (see :mod:`scheduler.policies`):
    strict order without backfilling, or with the ``reservations`` highest-priority jobs
    protected (1: EASY).  The priority is made finite (a job of one processor has UNICEP's
    ``log2(1) = 0`` in the denominator) by clipping to the float range."""
    fn = HEURISTICS[name]

    def priority(self: PriorityPolicy, job: Job, now: int) -> float:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            value = float(fn(job.submit, job.estimate, job.procs, now))
        return float(np.nan_to_num(value, nan=-1e308, posinf=1e308, neginf=-1e308))

    mode = "EASY" if backfill and reservations == 1 else ("backfill" if backfill else "strict")
    return type(
        name,
        (PriorityPolicy,),
        {
            "priority": priority,
            "backfill": backfill,
            "reservations": reservations,
            "title": f"{name} + {mode}",
            "__module__": __name__,
            "__doc__": f"{name} priority ({mode}); see scheduler.gym.heuristics.",
        },
    )
