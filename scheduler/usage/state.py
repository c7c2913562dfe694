"""Mutable state of a usage-policy simulation: jobs, sites and their usage ledgers.

Time is stepped (``step`` seconds, 1 by default): the S-PEP of Dumitrescu, Wilde & Foster 2005
(slide 11) "checks continuously the status of jobs in all queues", i.e. it polls; a step is one
poll.  Each site keeps, per consumer node (VO or group), the CPU-seconds used in every step and
their running total, so that the usage over any sliding window ending now is one subtraction:

* burst allocation ``BA_n(k)`` = CPU-seconds of node *n* in steps ``[k − w_b, k)`` divided by
  ``cpus · w_b · step`` (``w_b`` = burst interval in steps);
* epoch allocation ``EA_n(k)`` = the same over the epoch window ``w_e``.

Windows reaching before time 0 count that time as unused ("zero padding"): the epoch share is a
quota of CPU-time per epoch, so a VO that has just started is far below it, not above it.  A
window is ``max(1, round(interval / step))`` steps long.
"""

from __future__ import annotations

from .shares import SiteShares
from .workload import UsageJob

__all__ = [
    "EPS",
    "JobRun",
    "SiteState",
    "HOST",
    "QUEUED",
    "RUNNING",
    "SUSPENDED",
    "DONE",
    "REJECTED",
]

EPS = 1e-9

HOST = "host"  # at the VO's submission host (V-PEP queue)
QUEUED = "queued"  # submitted to a site, held in its queue
RUNNING = "running"
SUSPENDED = "suspended"  # stopped by the S-PEP, progress kept, waits in the site queue
DONE = "done"
REJECTED = "rejected"  # no site can ever run it


class JobRun:
    """A job's progress through the simulation."""

    __slots__ = (
        "job", "path", "vo", "grp", "state", "site", "remaining", "start", "last_start",
        "end", "suspensions",
    )  # fmt: skip

    def __init__(self, job: UsageJob, path: tuple[int, ...]):
        self.job = job
        self.path = path
        self.vo = path[0]
        self.grp = path[1] if len(path) > 1 else None
        self.state = HOST
        self.site: int | None = None
        self.remaining = job.runtime
        self.start: int | None = None
        self.last_start = -1
        self.end: int | None = None
        self.suspensions = 0

    @property
    def procs(self) -> int:
        return self.job.procs

    def __repr__(self) -> str:  # debugging aid
        return f"<job {self.job.id} {self.job.consumer} {self.state} rem={self.remaining}>"


def _steps(interval: int | None, step: int) -> int | None:
    return None if interval is None else max(1, round(interval / step))


class SiteState:
    """One site during a run: its running and waiting jobs, holdings and usage ledger."""

    def __init__(self, shares: SiteShares, step: int):
        n = len(shares.epoch)
        self.shares = shares
        self.index = shares.index
        self.cpus = shares.cpus
        self.step = step
        self.free = shares.cpus
        self.running: dict[int, JobRun] = {}
        self.waiting: dict[int, JobRun] = {}  # queued and suspended, in arrival order
        self.held = [0] * n  # CPUs held by running jobs, per node
        self.committed = [0] * n  # running + waiting here, per node (what the V-PEP sent)
        self.queued_procs = 0
        self.ep_cpus = [None if x is None else x * self.cpus for x in shares.epoch]
        self.bp_cpus = [None if x is None else x * self.cpus for x in shares.burst]
        self.ew = [_steps(x, step) for x in shares.epoch_interval]
        self.bw = [_steps(x, step) for x in shares.burst_interval]
        self.usage: list[list[float]] = [[] for _ in range(n)]
        self.cum: list[list[float]] = [[0.0] for _ in range(n)]
        self.releases = 0
        self.suspends = 0

    # --- sliding windows ---------------------------------------------------------------------

    def window_sum(self, node: int, k: int, w: int) -> float:
        """CPU-seconds of ``node`` in steps ``[k − w, k)`` (zero before step 0)."""
        c = self.cum[node]
        return c[k] - c[max(0, k - w)]

    def epoch_usage(self, node: int, k: int) -> float:
        """``EA`` of ``node`` at the start of step ``k`` (fraction of the site over its epoch)."""
        w = self.ew[node]
        return self.window_sum(node, k, w) / (self.cpus * w * self.step)

    def projected_epoch(self, node: int, k: int, extra: int) -> float:
        """``EA`` at the end of step ``k`` if the node holds ``held + extra`` CPUs during it."""
        w = self.ew[node]
        used = self.window_sum(node, k, w - 1) + (self.held[node] + extra) * self.step
        return used / (self.cpus * w * self.step)

    @property
    def busy(self) -> int:
        return self.cpus - self.free

    def load(self) -> float:
        """Busy plus queued processors per CPU: "least loaded" picks the smallest."""
        return (self.busy + self.queued_procs) / self.cpus

    # --- job moves ---------------------------------------------------------------------------

    def enqueue(self, job: JobRun) -> None:
        job.state = QUEUED
        job.site = self.index
        self.waiting[job.job.id] = job
        self.queued_procs += job.procs
        for p in job.path:
            self.committed[p] += job.procs

    def start(self, job: JobRun, t: int) -> None:
        """Start or resume a waiting job (a release, in the seed's words)."""
        del self.waiting[job.job.id]
        self.queued_procs -= job.procs
        self.running[job.job.id] = job
        self.free -= job.procs
        for p in job.path:
            self.held[p] += job.procs
        if job.start is None:
            job.start = t
        job.last_start = t
        job.state = RUNNING
        self.releases += 1

    def suspend(self, job: JobRun) -> None:
        """Stop a running job; it keeps its progress and waits here to be resumed."""
        del self.running[job.job.id]
        self.waiting[job.job.id] = job
        self.queued_procs += job.procs
        self.free += job.procs
        for p in job.path:
            self.held[p] -= job.procs
        job.state = SUSPENDED
        job.suspensions += 1
        self.suspends += 1

    def advance(self, k: int, t: int) -> list[JobRun]:
        """Run step ``k`` = ``[t, t + step)``: record usage, return the jobs that finished."""
        col = [0.0] * len(self.held)
        finished = []
        for job in self.running.values():
            dt = min(self.step, job.remaining)
            job.remaining -= dt
            for p in job.path:
                col[p] += job.procs * dt
            if job.remaining == 0:
                job.end = t + dt
                finished.append(job)
        for job in finished:
            del self.running[job.job.id]
            self.free += job.procs
            for p in job.path:
                self.held[p] -= job.procs
                self.committed[p] -= job.procs
            job.state = DONE
        for p, x in enumerate(col):
            self.usage[p].append(x)
            self.cum[p].append(self.cum[p][-1] + x)
        return finished
