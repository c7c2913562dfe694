"""WFP3 with EASY backfilling: the tutorial's second example (docs/policies.md).

WFP3 (W. Tang, Z. Lan, N. Desai, D. Buettner, "Fault-aware, utility-based job scheduling on
Blue Gene/P systems", IEEE Cluster 2009) favours jobs that have waited long relative to their
requested time, and large ones:

    priority = (wait / requested time)^3 * processors

The learned-scheduler literature (RLScheduler, SC'20) uses it as a heuristic baseline.
"""

from scheduler.policies import Job, PriorityPolicy


class WFP3(PriorityPolicy):
    """WFP3 priority (Tang et al. 2009), EASY backfilling."""

    title = "WFP3 + EASY"
    backfill = True
    reservations = 1

    def priority(self, job: Job, now: int) -> float:
        return (job.wait(now) / max(job.estimate, 1)) ** 3 * job.procs
