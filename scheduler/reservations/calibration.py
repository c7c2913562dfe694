"""Calibration of the wait predictor over a whole replayed trace.

Each job, at its submit time, gets the predictor's upper bound of the ``q``-quantile of its
wait from the history known then — the waits of the jobs that had started *strictly before*
(no look-ahead) — and is a *miss* when its actual wait exceeds it.  A calibrated ``q = 0.95``
bound misses at most 5 % of the jobs (plus sampling slack; the confidence makes it err on the
safe side).  Jobs for which no bound exists yet (too short a history) are counted apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .predictor import WaitPredictor

__all__ = ["Calibration", "calibrate"]


@dataclass
class Calibration:
    predicted: int = 0
    misses: int = 0
    unpredicted: int = 0
    query_seconds: list[float] = field(default_factory=list)
    change_points: int = 0

    @property
    def miss_rate(self) -> float | None:
        return self.misses / self.predicted if self.predicted else None


def calibrate(
    submit: Sequence[int],
    start: Sequence[int],
    procs: Sequence[int],
    estimate: Sequence[int],
    predictor: WaitPredictor,
    *,
    q: float | None = None,
    clock: Callable[[], float] | None = None,
) -> Calibration:
    """Replay the observations (start order) and the predictions (submit order) of one
    simulated schedule; ``start[k] < 0`` marks a job that never started (skipped)."""
    jobs = [k for k in range(len(submit)) if start[k] >= 0]
    by_start = sorted(jobs, key=lambda k: (start[k], k))
    by_submit = sorted(jobs, key=lambda k: (submit[k], k))
    out = Calibration()
    i = 0
    add, bound = predictor.add, predictor.bound
    for k in by_submit:
        t = submit[k]
        while i < len(by_start) and start[by_start[i]] < t:
            j = by_start[i]
            add(procs[j], estimate[j], start[j] - submit[j])
            i += 1
        t0 = clock() if clock else 0.0
        b = bound(procs[k], estimate[k], q)
        if clock:
            out.query_seconds.append(clock() - t0)
        if b is None:
            out.unpredicted += 1
            continue
        out.predicted += 1
        if start[k] - t > b:
            out.misses += 1
    out.change_points = predictor.changes()
    return out
