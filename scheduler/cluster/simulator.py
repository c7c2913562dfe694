"""Event-driven simulation of one space-shared cluster replaying a workload.

Events are job submissions, job completions and reservation ends.  At one instant completions
are handled first (an early end gives the unused rest of the job's block back to the profile),
then reservation ends, then arrivals in queue order (submit time, job id); then the policy
decides, once, which queued jobs start.  Its decision is told whether anything but arrivals
happened (``changed``): a completion, a reservation end, or a reservation granted since its
last decision (:meth:`Simulator.insert_reservation`).  Time is integer seconds, as in the trace.

:class:`Simulator` can be driven step by step — ``run(until=T)`` stops after the events at
``T`` so that slot advertisement, pricing or a workflow manager can read the plan
(:attr:`Simulator.profile`, :meth:`Simulator.planned_start`), add reservations or submit jobs,
and continue.  :func:`simulate` is the one-call form.

A whole run with nothing but the trace — from an empty machine, no fixed reservation, no
scheduling interval, nothing submitted on the fly, no ``until`` — does not need the general
loop's hooks: :meth:`Simulator.run` offers it to the whole-run accelerations the registry lists
for the policy (:mod:`scheduler.cluster.whole_run`), which make the same decisions, instant by
instant, and leave the simulator in the same final state (tests/scheduler/test_accelerations.py
compares them job by job).  Every other run — and every other policy — takes the event loop.

References: A. W. Mu'alem and D. G. Feitelson, IEEE TPDS 12(6), 2001.
"""

from __future__ import annotations

import copy
import heapq
from array import array
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter, eq, gt, le
from typing import TYPE_CHECKING

from ._gc import gc_paused
from .jobs import Reservation, SimJob, prepare_jobs
from .policy import ClusterState, Policy, PolicyError
from .profile import Profile, ProfileError
from .registry import PolicyEntry, PolicyRef, resolve
from .result import SimulationResult
from .whole_run import PROGRESS_EVERY

if TYPE_CHECKING:
    from ..traces.swf import SWFJob, Trace

__all__ = ["Simulator", "simulate"]

_INF = float("inf")


class Simulator:
    """One cluster of ``procs`` processors under ``policy`` (a registry name such as "easy" or
    "backfill-k=8", a user policy file "mine.py:MyPolicy", or a resolved
    :class:`~scheduler.cluster.registry.PolicyRef`).

    ``jobs`` are :class:`~scheduler.cluster.jobs.SimJob` in queue order (see
    :func:`~scheduler.cluster.jobs.prepare_jobs`); ``reservations`` are fixed blocks honoured
    by every policy (a set of them that over-commits the machine raises ValueError).
    """

    def __init__(
        self,
        jobs: Sequence[SimJob],
        procs: int,
        policy: str | PolicyRef | PolicyEntry,
        *,
        reservations: Iterable[Reservation] = (),
        origin: int | None = None,
        interval: int = 0,
        estimates: str = "",
    ) -> None:
        if isinstance(procs, bool) or not isinstance(procs, int) or procs < 1:
            raise ValueError(f"procs must be an int >= 1, got {procs!r}")
        #: the policy's registry entry and parameter
        self.policy_ref = ref = resolve(policy)
        _check_interval(interval, ref)
        self.jobs: list[SimJob] = list(jobs)
        self.capacity = procs
        self.submit_time = [j.submit for j in self.jobs]
        self.runtime = [j.runtime for j in self.jobs]
        # Plans reserve at least 1 s: a job of runtime 0 still needs its processors at the
        # instant it starts, and a block of length 0 would protect nothing.
        self.estimate = [j.estimate or 1 for j in self.jobs]
        self.procs = [j.procs for j in self.jobs]
        self._check_jobs()
        self.start = [-1] * len(self.jobs)
        resv = sorted(reservations, key=lambda r: (r.start, r.end, r.procs))
        starts = [j.submit for j in self.jobs[:1]] + [r.start for r in resv[:1]]
        if origin is None:
            origin = min(starts) if starts else 0
        self.now = origin
        #: scheduling interval (s): queued jobs start only at origin + k·interval (0: at
        #: every event instant).  See :func:`_check_interval`.
        self.interval = interval
        self._tick0 = origin
        self._held = [False]  # something freed since the last tick (a list: forks copy it)
        self.profile = Profile(procs, origin)
        self.reservations: list[Reservation] = []
        #: ends of the fixed reservations still ahead (a heap); empty means none are left
        self.reservation_ends: list[int] = []
        #: reservations given back before their end: instant -> ((planned end, processors), ..)
        self._early: dict[int, tuple[tuple[int, int], ...]] = {}
        for r in resv:
            self.add_reservation(r)
        #: a reservation was granted since the policy's last decision (see add_reservation)
        self._granted = False
        state = ClusterState(
            procs, self.profile, self.procs, self.estimate, self.submit_time, self.jobs,
            self.reservation_ends, estimates,
        )  # fmt: skip
        self.policy: Policy = ref.make(state)
        self._completions: list[tuple[int, int]] = []  # heap of (end, job)
        self._next_arrival = 0  # next trace job (index) to arrive
        self._trace_jobs = len(self.jobs)
        self._extra: list[tuple[int, int]] = []  # heap of (submit, job) submitted on the fly
        self.busy = 0
        # time series: instant, busy processors, jobs waiting — one sample per event
        # instant, after the policy acted — flat, three int64 per sample (memory)
        self._series = array("q")
        self.finished = False

    def _check_jobs(self) -> None:
        """Validate the workload with a few C-speed passes; name the first bad job."""
        jobs, sub, est, run, procs = (
            self.jobs, self.submit_time, self.estimate, self.runtime, self.procs,
        )  # fmt: skip
        if not jobs:
            return
        ordered = all(map(eq, map(attrgetter("index"), jobs), range(len(jobs)))) and all(
            map(le, sub, sub[1:])
        )
        if not ordered:
            raise ValueError(
                "jobs must be in queue order (by submit time) with index = position; "
                "use prepare_jobs"
            )
        if min(procs) < 1 or max(procs) > self.capacity or min(run) < 0 or any(map(gt, run, est)):
            for j in jobs:
                _check_job(j, self.capacity)

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
        heapq.heappush(self.reservation_ends, r.end)
        # the next decision is told the plan changed: a block ahead can move a queued job's
        # planned start later (EASY's head: its shadow time), letting others backfill that
        # did not fit before; arrivals alone never do that
        self._granted = True

    def move_to(self, t: int) -> None:
        """Set the clock to ``t`` when no event lies in ``(now, t]`` (after ``run(until=t)``
        the clock stands at the last event instant, which may be earlier)."""
        if t < self.now:
            raise ValueError(f"cannot move back from {self.now} to {t}")
        nxt = self.next_event_time()
        if nxt is not None and nxt <= t and t > self.now:
            raise ValueError(f"an event at {nxt} is due first: run(until={t}) before")
        self.profile.advance(t)
        self.now = t

    def insert_reservation(
        self, r: Reservation, now: int | None = None, *, used: int | None = None
    ) -> None:
        """Grant a reservation in a running simulation at ``now`` (default: the clock; see
        :meth:`move_to`): it must fit beside the running jobs and the other reservations;
        queued jobs make room.  Under conservative backfilling the queue is planned afresh
        around it (thesis Figure 22: the plan adaptive pricing charged for); EASY and FCFS hold
        no blocks for queued jobs.  Raises ValueError if it does not fit.

        ``used``: the reservation's job ends ``used`` seconds after the start, before the
        reservation's end: the rest is given back then, as an early job completion is."""
        if now is not None:
            self.move_to(now)
        clear = getattr(self.policy, "clear_plan", None)
        if clear is None:
            self.add_reservation(r)
        else:
            clear()
            try:
                self.add_reservation(r)
            finally:
                self.policy.replan(self.now)
        if used is not None and 0 <= used < r.duration and r.procs:
            at = r.start + used
            self._early[at] = self._early.get(at, ()) + ((r.end, r.procs),)
            heapq.heappush(self.reservation_ends, at)

    def submit(self, job: SimJob) -> int:
        """Submit a job on the fly (e.g. a workflow task); it arrives at ``max(job.submit,
        now)``, after the trace's jobs of that instant.  Returns its index."""
        _check_job(job, self.capacity)
        k = len(self.jobs)
        at = max(job.submit, self.now)
        job = SimJob(
            k, job.job_id, at, job.runtime, job.estimate, job.procs, job.killed,
            job.user, job.group, job.queue, job.partition,
        )  # fmt: skip
        self.jobs.append(job)
        self.submit_time.append(at)
        self.runtime.append(job.runtime)
        self.estimate.append(job.estimate or 1)
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

    def running_count(self) -> int:
        """How many jobs are running at :attr:`now` (started, not yet completed)."""
        return len(self._completions)

    def fork(self) -> Simulator:
        """An independent copy (same time, plan, queue and future): running either one further
        leaves the other untouched. Used to submit a workflow into a site's live simulation at
        several submission times without replaying the trace each time (best effort).

        The simulator and its policy keep their state in plain containers (lists, arrays,
        dicts, sets, heaps of immutable items, the :class:`Profile`); each container is copied
        once, so a container shared by the simulator and its policy stays shared in the copy,
        and the policy's reference to its simulator points to the copy.
        """
        memo: dict[int, object] = {}
        twin = _copy_state(self, memo)
        memo[id(self)] = twin
        twin.policy = _copy_state(self.policy, memo)
        return twin

    def pessimistic(self) -> Simulator:
        """A fork in which every job runs its planned duration (its estimate) and nothing
        arrives after now: the future as the scheduler itself can foresee it (Singh, Kesselman
        & Deelman 2005, §3.1: an advance reservation is placed "by simulating with requested =
        actual times")."""
        f = self.fork()
        f.runtime[:] = f.estimate  # runtime <= estimate; estimate >= 1
        f._completions[:] = [(f.start[k] + f.estimate[k], k) for _, k in f._completions]
        heapq.heapify(f._completions)
        f._trace_jobs = f._next_arrival  # no trace arrival after now
        f._extra.clear()
        return f

    @property
    def series_time(self) -> list[int]:
        """Event instants (one per sample of :attr:`series_busy` and :attr:`series_queue`)."""
        return self._series[0::3].tolist()

    @property
    def series_busy(self) -> list[int]:
        """Busy processors after each event instant."""
        return self._series[1::3].tolist()

    @property
    def series_queue(self) -> list[int]:
        """Jobs waiting after each event instant."""
        return self._series[2::3].tolist()

    def next_event_time(self) -> int | None:
        t = _INF
        a = self._next_arrival
        if a < self._trace_jobs:
            t = self.submit_time[a]
        if self._extra and self._extra[0][0] < t:
            t = self._extra[0][0]
        if self._completions and self._completions[0][0] < t:
            t = self._completions[0][0]
        if self.reservation_ends and self.reservation_ends[0] < t:
            t = self.reservation_ends[0]
        w = self.policy.next_wakeup()
        if w is not None and w < t:
            t = w
        if self.interval and self.policy.waiting_count():
            w = self._next_tick(self.now)
            if w < t:
                t = w
        return None if t == _INF else int(t)

    def _next_tick(self, t: int) -> int:
        """The first decision instant (tick) strictly after ``t``."""
        return t + self.interval - (t - self._tick0) % self.interval

    def _ticking(self, pschedule, pwakeup):  # type: ignore[no-untyped-def]
        """``(schedule, wakeup)`` hooks for a scheduling interval: the policy decides only at
        ticks (what it was told about between two ticks is passed on as ``changed``), and a
        tick is an event whenever a job waits."""
        interval, tick0, held, policy = self.interval, self._tick0, self._held, self.policy
        profile = self.profile

        def schedule(t: int, changed: bool):  # type: ignore[no-untyped-def]
            if (t - tick0) % interval:
                if changed:
                    held[0] = True
                return ()
            if held[0]:
                held[0] = False
                changed = True
            return pschedule(t, changed)

        def wakeup() -> int | None:
            w = pwakeup() if pwakeup is not None else None
            if policy.waiting_count():
                now = profile.origin
                tick = now + interval - (now - tick0) % interval
                if w is None or tick < w:
                    w = tick
            return w

        return schedule, wakeup

    def run(
        self,
        until: int | None = None,
        progress: Callable[[float, str], None] | None = None,
    ) -> Simulator:
        """Process events in time order (all of them, or those at instants ``<= until``).

        ``progress(fraction of the trace submitted, message)`` is called every few thousand
        instants; an exception it raises (e.g. a cancellation) propagates (after a whole-run
        loop, see the module's docstring, the simulator is then as it was before ``run``).
        """
        with gc_paused():
            if until is None and self._plain_from_start():
                for accelerated in self.policy_ref.entry.whole_runs:
                    if accelerated(self, progress):
                        break
                else:
                    self._run(until, progress)
            else:
                self._run(until, progress)
        self.finished = until is None or self.next_event_time() is None
        return self

    def _plain_from_start(self) -> bool:
        """Nothing has happened yet and nothing but the trace will: a run a whole-run
        acceleration may take (see the module's docstring)."""
        return (
            not self.interval
            and not self.reservation_ends
            and not self._early
            and not self._extra
            and not self._completions
            and self._next_arrival == 0
            and self._trace_jobs == len(self.jobs)
            and len(self.profile) == 1
            and self.policy.untouched()
        )

    def _run(self, until: int | None, progress: Callable[[float, str], None] | None) -> None:
        submit_time, runtime, estimate, procs = (
            self.submit_time, self.runtime, self.estimate, self.procs,
        )  # fmt: skip
        start = self.start
        profile = self.profile
        release = profile.release
        advance = profile._steps.advance  # (the clock's instants are ints; no whole-run
        # loop replaces the profile's steps while the event loop runs)
        policy = self.policy
        queue = policy.queue
        psubmit, pcomplete, pschedule = policy.submit, policy.complete, policy.schedule
        # hooks a policy does not override are not called at all (the hot loop)
        pwakeup = policy.next_wakeup if _overrides(policy, "next_wakeup") else None
        if not _overrides(policy, "complete"):
            pcomplete = None
        qappend = None if _overrides(policy, "submit") else queue.append
        count_waiting = policy.waiting_count if _overrides(policy, "waiting_count") else None
        if self.interval:  # decisions only at ticks (see _ticking)
            pschedule, pwakeup = self._ticking(pschedule, pwakeup)
        completions = self._completions
        extra = self._extra
        resv_ends = self.reservation_ends
        given_back = self._early
        heappush, heappop = heapq.heappush, heapq.heappop
        record = self._series.extend
        n_trace = self._trace_jobs
        a = self._next_arrival
        busy = self.busy
        granted = self._granted
        limit = _INF if until is None else until
        instants = 0
        try:
            while True:
                t = submit_time[a] if a < n_trace else _INF
                if extra and extra[0][0] < t:
                    t = extra[0][0]
                if completions and completions[0][0] < t:
                    t = completions[0][0]
                if resv_ends and resv_ends[0] < t:
                    t = resv_ends[0]
                if pwakeup is not None:
                    w = pwakeup()
                    if w is not None and w < t:
                        t = w
                if t == _INF or t > limit:
                    break
                advance(t)  # forget the steps that are over: the origin is now
                changed = granted
                granted = False
                while completions and completions[0][0] == t:
                    k = heappop(completions)[1]
                    n = procs[k]
                    busy -= n
                    planned = start[k] + estimate[k]
                    early = t < planned
                    if early:
                        release(t, planned, n)
                    if pcomplete is not None:
                        pcomplete(k, t, early)
                    changed = True
                if resv_ends and resv_ends[0] == t:
                    while resv_ends and resv_ends[0] == t:
                        heappop(resv_ends)
                    changed = True
                    if given_back and t in given_back:  # reservations whose jobs ended
                        for end, n in given_back.pop(t):
                            release(t, end, n)
                        policy.freed(t)
                if qappend is not None:
                    while a < n_trace and submit_time[a] == t:
                        qappend(a)
                        a += 1
                else:
                    while a < n_trace and submit_time[a] == t:
                        psubmit(a, t)
                        a += 1
                while extra and extra[0][0] == t:
                    psubmit(heappop(extra)[1], t)
                for k in pschedule(t, changed):
                    start[k] = t
                    busy += procs[k]
                    heappush(completions, (t + runtime[k], k))
                record((t, busy, len(queue) if count_waiting is None else count_waiting()))
                instants += 1
                if progress is not None and instants % PROGRESS_EVERY == 0:
                    progress(a / n_trace if n_trace else 1.0, f"{a} of {n_trace} jobs submitted")
        finally:
            self._next_arrival = a
            self._granted = granted
            self.busy = busy
            self.now = profile.origin

    def result(
        self, *, policy: str | None = None, estimates: str = "", dropped: dict | None = None
    ) -> SimulationResult:
        """The schedule and series so far (jobs that have not started are left out)."""
        return SimulationResult.build(
            self, policy=policy or self.policy_ref.text, estimates=estimates,
            dropped=dropped or {},
        )  # fmt: skip


def _check_interval(interval: int, policy: PolicyRef) -> None:
    """A scheduler that "only makes scheduling decisions at periodic intervals" (Maui, as in
    Singh, Kesselman & Deelman 2005, §3.2) — ``interval`` seconds, 0 for a decision at every
    event.  Only a policy that decides afresh at every call can wait for a tick: a planning
    policy (conservative, EASY's shadow) would start jobs at instants between ticks."""
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 0:
        raise ValueError(f"interval must be an int >= 0 (seconds), got {interval!r}")
    if interval and not policy.entry.decides_afresh:
        raise PolicyError(
            f"a scheduling interval needs a policy that decides afresh at every decision "
            f"(e.g. fcfs, fairshare, fairshare-cb), not {policy.text!r}"
        )


def _check_job(j: SimJob, procs: int) -> None:
    if j.procs > procs or j.procs < 1:
        raise ValueError(f"job {j.job_id} needs {j.procs} processors of {procs}")
    if j.runtime < 0 or j.runtime > max(j.estimate, 1):
        raise ValueError(
            f"job {j.job_id}: runtime {j.runtime} must be >= 0 and not exceed its estimate "
            f"{j.estimate} (a job never runs past its request)"
        )


def _copy_state(obj, memo: dict[int, object]):
    """A shallow copy of ``obj`` whose containers are copied once each (see ``fork``)."""
    new = copy.copy(obj)
    for name, value in vars(obj).items():
        key = id(value)
        if key in memo:
            setattr(new, name, memo[key])
        elif isinstance(value, Profile | list | dict | set | array):
            twin = value[:] if isinstance(value, array) else value.copy()
            memo[key] = twin
            setattr(new, name, twin)
    return new


def _overrides(policy: Policy, method: str) -> bool:
    return getattr(type(policy), method) is not getattr(Policy, method)


def simulate(
    trace: Trace | Iterable[SWFJob],
    procs: int | None = None,
    policy: str | PolicyRef = "easy",
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
    ref = resolve(policy)
    sim_jobs, dropped = prepare_jobs(jobs, procs, estimates)
    sim = Simulator(sim_jobs, procs, ref, reservations=reservations, estimates=estimates)
    sim.run(progress=progress)
    return sim.result(policy=ref.text, estimates=estimates, dropped=dropped)
