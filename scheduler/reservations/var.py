"""Virtual advance reservation, VAR (thesis §6.1, Figures 32–34, 42, eq. 22).

A site that sells no reservations can still be asked for ``n`` processors from ``S`` for ``D``:
submit an ordinary job early enough, padded to cover the time until ``S``.  Figure 33 tries
the submission times ``t = now, now + 30 s, …, < S``; a job submitted at ``t`` asks for
``D + (S − t)`` seconds; QBETS gives the probability that it starts by ``S``; the job is
submitted at the (earliest) ``t`` of the highest probability (:func:`plan_var`).

The job then really goes through the site's queue (:func:`run_var`, in a fork of the site's
simulation, so the site itself is untouched): success iff it starts by ``S``; its cost is the
idle holding ``(S − T_start)·n`` processor-seconds (normalised by ``n·D`` it is at most
``(S − t)/D``, eq. 22); a failed VAR has no cost.  The job runs to ``S + D`` at the latest, so
what happens after ``S`` never matters here and the fork stops at ``S``.

When every probability is 0 (no history, or none of the history's waits is short enough)
Figure 33 leaves ``submitTime`` at its initial value; we read that as "submit now", the
earliest chance, and say so in :attr:`VarPlan.prob` = 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cluster.jobs import Reservation, SimJob
from ..cluster.simulator import Simulator
from .predictor import REQ_EDGES, WaitPredictor

__all__ = ["VarPlan", "VarOutcome", "plan_var", "run_var", "STEP"]

STEP = 30  # seconds between candidate submission times (Figure 33, "Increment")


@dataclass(frozen=True, slots=True)
class VarPlan:
    """Figure 33's output: submit at ``submit`` asking for ``request`` seconds."""

    submit: int
    request: int
    prob: float  # QBETS probability of starting by S at that submission time


@dataclass(frozen=True, slots=True)
class VarOutcome:
    plan: VarPlan
    started: int | None  # start of the VAR job if it started by S
    procs: int
    start: int  # S

    @property
    def success(self) -> bool:
        return self.started is not None

    @property
    def cost(self) -> int | None:
        """Idle holding ``(S − T_start)·n`` in processor-seconds; None when it failed."""
        return None if self.started is None else (self.start - self.started) * self.procs


def probability_curve(
    predictor: WaitPredictor, n: int, duration: int, start: int, now: int, step: int = STEP
) -> tuple[np.ndarray, np.ndarray]:
    """The submission times ``now, now + step, … < start`` and QBETS's probability for each."""
    if start <= now:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    ts = np.arange(now, start, step, dtype=np.int64)
    reqs = duration + (start - ts)
    probs = np.zeros(len(ts))
    # one pool (class) per requested-time class: a handful of vectorised look-ups
    cls = np.searchsorted(np.asarray(REQ_EDGES), reqs - 1, side="right")
    for c in np.unique(cls):
        mask = cls == c
        pool = predictor.pool_for(n, int(reqs[mask][0]))
        if pool is not None:
            probs[mask] = pool.prob_within_many(start - ts[mask], predictor.confidence)
    return ts, probs


def plan_var(
    predictor: WaitPredictor, n: int, duration: int, start: int, now: int, step: int = STEP
) -> VarPlan:
    """Figure 33: the submission time of highest probability (earliest on ties)."""
    if duration < 1:
        raise ValueError(f"duration must be >= 1 s; got {duration}")
    if start <= now:
        raise ValueError(f"the reservation start {start} is not after now ({now})")
    ts, probs = probability_curve(predictor, n, duration, start, now, step)
    i = int(np.argmax(probs))  # the first maximum: Figure 33 updates only on a strict ">"
    t = int(ts[i])
    return VarPlan(t, duration + (start - t), float(probs[i]))


def run_var(
    sim: Simulator,
    plan: VarPlan,
    n: int,
    start: int,
    *,
    reservation: Reservation | None = None,
    now: int | None = None,
) -> VarOutcome:
    """Submit the VAR job into a fork of ``sim`` (advanced to ``now`` already) and run it to
    ``start``.  ``reservation``: grant it first at ``now`` (the combined scheme holds both)."""
    twin = sim.fork()
    if reservation is not None:
        twin.insert_reservation(reservation, now=now if now is not None else twin.now)
    k = twin.submit(SimJob(0, -1, plan.submit, plan.request, plan.request, n))
    twin.run(until=start)
    s = twin.start[k]
    return VarOutcome(plan, s if 0 <= s <= start else None, n, start)
