"""Worst-Fit placement and KOALA's placement queue (Buisson et al. 2007, §4.1 and §5.2).

Worst-Fit (WF) places a job on the cluster with the largest number of idle processors, which
balances load across clusters automatically (Buisson et al. 2007, §4.1).  A malleable job is placed
when a cluster has at least its minimum idle (§5.2).  Ties go to the first cluster in the configured
order, so placement is deterministic.

A job that cannot be placed joins the tail of the *placement queue*.  The scheduler scans the
queue from head to tail, placing whatever fits; each regular (poll) scan that fails to place a
job counts one *try* for it, and when the tries exceed a threshold (``max_tries``) its
submission fails (§4.1).

Example
-------
>>> worst_fit([3, 9, 9, 4], 5), worst_fit([3, 4], 5)
(1, None)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import JobSpec

__all__ = ["worst_fit", "QueuedJob", "PlacementQueue"]


def worst_fit(idle: list[int], need: int) -> int | None:
    """Index of the cluster with the most idle processors, if it has at least ``need``."""
    best = None
    most = need - 1
    for i, free in enumerate(idle):
        if free > most:
            best, most = i, free
    return best


@dataclass(slots=True)
class QueuedJob:
    spec: JobSpec
    tries: int = 0


@dataclass(slots=True)
class PlacementQueue:
    """Jobs not yet placed, in submission order, with their placement tries."""

    max_tries: int = 0  # 0: never give up
    jobs: list[QueuedJob] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.jobs)

    def push(self, spec: JobSpec) -> None:
        self.jobs.append(QueuedJob(spec))

    def failed_try(self, job: QueuedJob) -> bool:
        """Count a failed try; True when the job's tries now exceed the threshold (§4.1:
        "when this number exceeds a certain threshold value, the submission of that job
        fails")."""
        job.tries += 1
        return bool(self.max_tries) and job.tries > self.max_tries
