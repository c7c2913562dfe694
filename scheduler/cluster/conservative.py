"""Conservative backfilling (Mu'alem & Feitelson 2001, section 3).

Every queued job holds a reservation (a block in the profile).  An arriving job gets the
earliest start that delays no existing reservation — the profile's
:meth:`~scheduler.cluster.profile.Profile.earliest_start` with all blocks in place — and a job
starts exactly at its reservation time.

When a job ends before its estimate, the plan is compressed: in queue order (submit time, job
id) each queued job is taken out and put back at its earliest start, which is never later
than its current one (its own old place is free again).  All early completions of one instant
are released first and compressed together, once, before the arrivals of that instant are
placed.

Most jobs cannot move, and that is cheap to see without touching the profile
(:meth:`~scheduler.cluster.profile.Profile.earliest_move` answers "where could this block go"
read-only; only jobs that do move are updated, by the net change).  A job's window opens in
``[now, start)``; if the step just before ``start`` lacks its processors, the window must fit
whole before that step, so it opens by ``times[j] - d`` in a step with enough free processors:
a running maximum of the free counts rules most jobs out with one ``bisect`` and tells where
the first step with enough processors is.  Per shape (processors, estimate) the pass keeps a
lower bound on where a whole window can open ("none opens before L").  A move changes the
profile only from the job's new start on and gives capacity back only from
``F = max(new end, old start)`` on, so a bound stays true for windows that end by ``F`` (it
becomes ``min(L, F - d + 1)``), and the running maximum stays an upper bound before ``F``:
neither is thrown away on a move.  Every shortcut is exact: tests compare with a plain
re-placement of every job (tests/scheduler/test_cluster_properties.py).

The pass itself is :func:`scheduler.cluster._compress.compress`, compiled when a build exists
(see :mod:`scheduler._native`); the whole-run loop runs the same pass.  A whole run of plain
conservative backfilling (no reservation, nothing but the trace) does not come here:
:func:`scheduler.cluster._loop.run_conservative` makes the same decisions in one compiled loop
(see :mod:`scheduler.cluster.simulator`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from .policy import ClusterState, Policy
from .profile import _C, Profile

__all__ = ["Conservative", "plan_in_order"]


def plan_in_order(
    profile: Profile, shapes: Iterable[tuple[int, int]], t: int, *, overtaking: bool = True
) -> list[int]:
    """Place jobs ``(processors, duration)`` one after the other, each at its earliest start
    ``>= t`` (conservative backfilling from scratch); inserts their blocks into ``profile`` and
    returns the starts.  ``overtaking=False``: no job starts before the one ahead of it (the
    FCFS plan).  Pricing compares two such plans, with and without a slot."""
    out = []
    for n, d in shapes:
        s = profile.earliest_start(n, d, t)
        if s is None:
            raise ValueError(f"a job of {n} processors never fits {profile.capacity}")
        profile.reserve(s, s + d, n)
        out.append(s)
        if not overtaking:
            t = s
    return out


class Conservative(Policy):
    name = "conservative"

    def __init__(self, state: ClusterState) -> None:
        super().__init__(state)
        self._plan: dict[int, int] = {}  # queued job -> planned start
        self._starts: list[tuple[int, int]] = []  # heap of (planned start, job), lazy
        self._dirty = False
        self._shapes: list[tuple[int, int, int]] = []  # (job, procs, estimate), queue order
        self._pass = _C.Pass()  # what a compression pass knows (its memory is reused)
        #: when a dict, the start each job was given on arrival (off by default)
        self.arrival_log: dict[int, int] | None = None

    def untouched(self) -> bool:
        return not self.queue and not self._plan and self.arrival_log is None

    def planned_start(self, k: int) -> int | None:
        return self._plan.get(k)

    def base_profile(self) -> Profile:
        """A copy of the profile without the queued jobs' blocks: running jobs and fixed
        reservations only (re-plan the queue on it with :func:`plan_in_order`)."""
        base = self.profile.copy()
        for k, n, d in self._shapes:
            base.release(self._plan[k], self._plan[k] + d, n)
        return base

    def queued_shapes(self) -> list[tuple[int, int]]:
        """``(processors, planned duration)`` of the queued jobs, in queue order."""
        return [(n, d) for _, n, d in self._shapes]

    def clear_plan(self) -> None:
        """Take every queued job's block out of the profile (see :meth:`replan`)."""
        release = self.profile.release
        for k, n, d in self._shapes:
            release(self._plan[k], self._plan[k] + d, n)

    def replan(self, now: int) -> None:
        """Plan the queue afresh, in queue order, after :meth:`clear_plan` (the blocks must be
        out of the profile).  A reservation granted mid-run is inserted this way: the new plan
        is the one adaptive pricing charged for (thesis Figure 22, step 4)."""
        self._dirty = False
        starts = plan_in_order(self.profile, [(n, d) for _, n, d in self._shapes], now)
        self._plan = {k: s for (k, _, _), s in zip(self._shapes, starts, strict=True)}
        self._starts = [(s, k) for k, s in self._plan.items()]
        heapq.heapify(self._starts)

    def submit(self, k: int, now: int) -> None:
        if self._dirty:  # completions come before arrivals: compress the plan first
            self._dirty = False
            self._compress(now)
        n = self.procs[k]
        d = self.estimate[k]
        p = self.profile
        s = p.earliest_start(n, d, now)
        p.reserve(s, s + d, n)
        self._plan[k] = s
        if self.arrival_log is not None:
            self.arrival_log[k] = s
        self.queue.append(k)
        self._shapes.append((k, n, d))
        heapq.heappush(self._starts, (s, k))

    def complete(self, k: int, now: int, early: bool) -> None:
        if early:
            self._dirty = True

    def freed(self, now: int) -> None:
        self._dirty = True  # compress the plan into what a reservation gave back

    def next_wakeup(self) -> int | None:
        starts = self._starts
        plan = self._plan
        while starts:
            s, k = starts[0]
            if plan.get(k) == s:
                return s
            heapq.heappop(starts)
        return None

    def _compress(self, now: int) -> None:
        if not self._shapes:
            return
        _C.compress(self.profile._steps, self._pass, self._shapes, self._plan, self._starts, now)

    def schedule(self, now: int, changed: bool) -> list[int]:
        if self._dirty:
            self._dirty = False
            self._compress(now)
        starts = self._starts
        if not starts or starts[0][0] > now:
            return []
        plan = self._plan
        started = []
        while starts and starts[0][0] <= now:
            s, k = heapq.heappop(starts)
            if plan.get(k) == s:
                del plan[k]
                started.append(k)
        if started:
            started.sort()
            _C.drop(self.queue, self._shapes, set(started))
        return started
