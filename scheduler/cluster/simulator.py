"""Event-driven simulation of one space-shared cluster replaying a workload (SPEC §2).

Events are job submissions, job completions and reservation ends.  At one instant completions
are handled first (an early end gives the unused rest of the job's block back to the profile),
then reservation ends, then arrivals in queue order (submit time, job id); then the policy
decides, once, which queued jobs start.  Time is integer seconds, as in the trace.

:class:`Simulator` can be driven step by step — ``run(until=T)`` stops after the events at
``T`` so that slot advertisement, pricing or a workflow manager can read the plan
(:attr:`Simulator.profile`, :meth:`Simulator.planned_start`), add reservations or submit jobs,
and continue.  :func:`simulate` is the one-call form.

References: SPEC §2; A. W. Mu'alem and D. G. Feitelson, IEEE TPDS 12(6), 2001.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from . import conservative, easy, fcfs  # noqa: F401  (register the policies)
from .jobs import Reservation, SimJob, prepare_jobs
from .policy import Policy, get_policy
from .profile import Profile, ProfileError
from .result import SimulationResult

if TYPE_CHECKING:
    from ..traces.swf import SWFJob, Trace

__all__ = ["Simulator", "simulate"]

_INF = float("inf")
_PROGRESS_EVERY = 8192  # instants between progress callbacks


class Simulator:
    """One cluster of ``procs`` processors under ``policy`` ("fcfs", "easy", "conservative").

    ``jobs`` are :class:`~scheduler.cluster.jobs.SimJob` in queue order (see
    :func:`~scheduler.cluster.jobs.prepare_jobs`); ``reservations`` are fixed blocks honoured
    by every policy (a set of them that over-commits the machine raises ValueError).
    """

    def __init__(
        self,
        jobs: Sequence[SimJob],
        procs: int,
        policy: str,
        *,
        reservations: Iterable[Reservation] = (),
        origin: int | None = None,
    ) -> None:
        if isinstance(procs, bool) or not isinstance(procs, int) or procs < 1:
            raise ValueError(f"procs must be an int >= 1, got {procs!r}")
        policy_cls = get_policy(policy)
        self.jobs: list[SimJob] = list(jobs)
        for i, j in enumerate(self.jobs):
            if j.index != i:
                raise ValueError("jobs must be in queue order with index = position")
            if j.procs > procs or j.procs < 1:
                raise ValueError(f"job {j.job_id} needs {j.procs} processors of {procs}")
        self.capacity = procs
        self.submit_time = [j.submit for j in self.jobs]
        self.runtime = [j.runtime for j in self.jobs]
        self.estimate = [j.estimate for j in self.jobs]
        self.procs = [j.procs for j in self.jobs]
        self.start = [-1] * len(self.jobs)
        resv = sorted(reservations, key=lambda r: (r.start, r.end, r.procs))
        starts = [j.submit for j in self.jobs[:1]] + [r.start for r in resv[:1]]
        if origin is None:
            origin = min(starts) if starts else 0
        self.now = origin
        self.profile = Profile(procs, origin)
        self.reservations: list[Reservation] = []
        self._resv_ends: list[int] = []  # heap
        for r in resv:
            self.add_reservation(r)
        self.policy: Policy = policy_cls(self)
        self._completions: list[tuple[int, int]] = []  # heap of (end, job)
        self._next_arrival = 0  # next trace job (index) to arrive
        self._trace_jobs = len(self.jobs)
        self._extra: list[tuple[int, int]] = []  # heap of (submit, job) submitted on the fly
        self.busy = 0
        # time series, one sample per event instant (after the policy acted)
        self.series_time: list[int] = []
        self.series_busy: list[int] = []
        self.series_queue: list[int] = []
        self.finished = False

    # ---------------------------------------------------------------- control

    def add_reservation(self, r: Reservation) -> None:
        """Add a fixed block now or in the future; raises ValueError if it does not fit."""
        if r.duration == 0 or r.procs == 0:
            self.reservations.append(r)
            return
        if r.start < self.now:
            raise ValueError(f"reservation starts at {r.start}, before now ({self.now})")
        try:
            self.profile.reserve(r.start, r.end, r.procs)
        except ProfileError as exc:
            raise ValueError(
                f"reservation of {r.procs} processors over [{r.start}, {r.end}) does not fit: {exc}"
            ) from None
        self.reservations.append(r)
        heapq.heappush(self._resv_ends, r.end)

    def submit(self, job: SimJob) -> int:
        """Submit a job on the fly (e.g. a workflow task); it arrives at ``max(job.submit,
        now)``, after the trace's jobs of that instant.  Returns its index."""
        if job.procs > self.capacity or job.procs < 1:
            raise ValueError(f"job {job.job_id} needs {job.procs} processors of {self.capacity}")
        k = len(self.jobs)
        at = max(job.submit, self.now)
        job = SimJob(
            k, job.job_id, at, job.runtime, job.estimate, job.procs, job.killed,
            job.user, job.group, job.queue, job.partition,
        )  # fmt: skip
        self.jobs.append(job)
        self.submit_time.append(at)
        self.runtime.append(job.runtime)
        self.estimate.append(job.estimate)
        self.procs.append(job.procs)
        self.start.append(-1)
        heapq.heappush(self._extra, (at, k))
        self.finished = False
        return k

    def planned_start(self, k: int) -> int | None:
        """Start of job ``k``: actual if it started, planned if the policy plans, else None."""
        if self.start[k] >= 0:
            return self.start[k]
        return self.policy.planned_start(k)

    def queued(self) -> list[int]:
        """Indices of the jobs waiting now, in queue order."""
        waiting = getattr(self.policy, "waiting", None)
        return waiting() if waiting else list(self.policy.queue)

    def next_event_time(self) -> int | None:
        t = _INF
        a = self._next_arrival
        if a < self._trace_jobs:
            t = self.submit_time[a]
        if self._extra and self._extra[0][0] < t:
            t = self._extra[0][0]
        if self._completions and self._completions[0][0] < t:
            t = self._completions[0][0]
        if self._resv_ends and self._resv_ends[0] < t:
            t = self._resv_ends[0]
        w = self.policy.next_wakeup()
        if w is not None and w < t:
            t = w
        return None if t == _INF else int(t)

    def run(
        self,
        until: int | None = None,
        progress: Callable[[float, str], None] | None = None,
    ) -> Simulator:
        """Process events in time order (all of them, or those at instants ``<= until``)."""
        submit_time, runtime, estimate, procs = (
            self.submit_time, self.runtime, self.estimate, self.procs,
        )  # fmt: skip
        start = self.start
        profile = self.profile
        advance, release = profile.advance, profile.release
        policy = self.policy
        psubmit, pcomplete, pschedule = policy.submit, policy.complete, policy.schedule
        pwakeup = policy.next_wakeup
        count_waiting = policy.waiting_count
        completions = self._completions
        extra = self._extra
        resv_ends = self._resv_ends
        heappush, heappop = heapq.heappush, heapq.heappop
        st, sb, sq = self.series_time, self.series_busy, self.series_queue
        n_trace = self._trace_jobs
        a = self._next_arrival
        busy = self.busy
        limit = _INF if until is None else until
        instants = 0
        while True:
            t = submit_time[a] if a < n_trace else _INF
            if extra and extra[0][0] < t:
                t = extra[0][0]
            if completions and completions[0][0] < t:
                t = completions[0][0]
            if resv_ends and resv_ends[0] < t:
                t = resv_ends[0]
            w = pwakeup()
            if w is not None and w < t:
                t = w
            if t == _INF or t > limit:
                break
            advance(t)
            self.now = t
            changed = False
            while completions and completions[0][0] == t:
                k = heappop(completions)[1]
                n = procs[k]
                busy -= n
                planned = start[k] + estimate[k]
                early = t < planned
                if early:
                    release(t, planned, n)
                pcomplete(k, t, early)
                changed = True
            while resv_ends and resv_ends[0] == t:
                heappop(resv_ends)
                changed = True
            while a < n_trace and submit_time[a] == t:
                psubmit(a, t)
                a += 1
            while extra and extra[0][0] == t:
                psubmit(heappop(extra)[1], t)
            for k in pschedule(t, changed):
                start[k] = t
                busy += procs[k]
                heappush(completions, (t + runtime[k], k))
            st.append(t)
            sb.append(busy)
            sq.append(count_waiting())
            instants += 1
            if progress is not None and instants % _PROGRESS_EVERY == 0:
                progress(a / n_trace if n_trace else 1.0, f"{a} of {n_trace} jobs submitted")
        self._next_arrival = a
        self.busy = busy
        self.finished = until is None or self.next_event_time() is None
        return self

    def result(
        self, *, policy: str | None = None, estimates: str = "", dropped: dict | None = None
    ) -> SimulationResult:
        """The schedule and series so far (jobs that have not started are left out)."""
        return SimulationResult.build(
            self, policy=policy or self.policy.name, estimates=estimates, dropped=dropped or {}
        )


def simulate(
    trace: Trace | Iterable[SWFJob],
    procs: int | None = None,
    policy: str = "easy",
    estimates: str = "requested",
    *,
    reservations: Iterable[Reservation] = (),
    limit: int | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> SimulationResult:
    """Replay ``trace`` (an SWF :class:`~scheduler.traces.swf.Trace` or its jobs) on ``procs``
    processors (default: the trace header's ``MaxProcs``) under ``policy`` with ``estimates``
    ("accurate" or "requested"); ``limit`` keeps the first K jobs of the file."""
    jobs = getattr(trace, "jobs", trace)
    if procs is None:
        procs = getattr(trace, "machine_procs", None)
        if not procs:
            raise ValueError("the machine size is unknown: give procs")
    if limit is not None:
        if limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        jobs = list(jobs)[:limit]
    get_policy(policy)
    sim_jobs, dropped = prepare_jobs(jobs, procs, estimates)
    sim = Simulator(sim_jobs, procs, policy, reservations=reservations)
    sim.run(progress=progress)
    return sim.result(policy=policy, estimates=estimates, dropped=dropped)
