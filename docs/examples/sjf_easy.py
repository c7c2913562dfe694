"""Shortest job first with EASY backfilling: the tutorial's first example (docs/policies.md).

The waiting job with the shortest planned duration (its estimate: the requested time, or the
runtime under accurate estimates) goes first; ties go to queue order.  The first job that does
not fit holds a reservation at its earliest start, and later jobs start now only if they do
not delay it (EASY backfilling, Lifka 1995), all in that order.
"""

from scheduler.policies import Job, PriorityPolicy


class SJF(PriorityPolicy):
    """Shortest job first, EASY backfilling."""

    title = "SJF + EASY"
    backfill = True
    reservations = 1  # EASY: only the first job that does not fit is protected

    def priority(self, job: Job, now: int) -> float:
        return -job.estimate
