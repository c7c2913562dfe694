"""Conservative backfilling (SPEC §2; Mu'alem & Feitelson 2001, section 3).

Every queued job holds a reservation (a block in the profile).  An arriving job gets the
earliest start that delays no existing reservation — the profile's
:meth:`~scheduler.cluster.profile.Profile.earliest_start` with all blocks in place — and a job
starts exactly at its reservation time.

When a job ends before its estimate, the plan is compressed: in queue order (submit time, job
id) each queued job is taken out and put back at its earliest start, which is never later
than its current one (its own old place is free again).  All early completions of one instant
are released first and compressed together, once.

Most jobs cannot move, and that is cheap to see: a job can only move into ``[now, start)``,
and only if some step there has at least its processors free (its own block lies after
``start``, so it does not count there).  A running prefix maximum of the free counts answers
that with one ``bisect``; only jobs that pass are taken out and re-placed.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from itertools import accumulate

from .policy import Policy, register_policy

__all__ = ["Conservative"]


@register_policy
class Conservative(Policy):
    name = "conservative"

    def __init__(self, sim) -> None:  # type: ignore[no-untyped-def]
        super().__init__(sim)
        self._plan: dict[int, int] = {}  # queued job -> planned start
        self._starts: list[tuple[int, int]] = []  # heap of (planned start, job), lazy
        self._dirty = False

    def planned_start(self, k: int) -> int | None:
        return self._plan.get(k)

    def submit(self, k: int, now: int) -> None:
        sim = self.sim
        n = sim.procs[k]
        d = sim.estimate[k]
        p = self.profile
        s = p.earliest_start(n, d, now)
        p.reserve(s, s + d, n)
        self._plan[k] = s
        self.queue.append(k)
        heapq.heappush(self._starts, (s, k))

    def complete(self, k: int, now: int, early: bool) -> None:
        if early:
            self._dirty = True

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
        p = self.profile
        times, free = p.times, p.free
        procs, est = self.sim.procs, self.sim.estimate
        plan = self._plan
        starts = self._starts
        earliest_move, move = p.earliest_move, p.move
        prefix_max = list(accumulate(free, max))
        for k in self.queue:
            s = plan[k]
            if s <= now:
                continue
            n = procs[k]
            j = bisect_left(times, s) - 1  # the step just before s
            if j < 0:
                continue
            d = est[k]
            if free[j] < n:
                # The window cannot reach s, so it must fit whole before times[j]: it opens
                # at or before times[j] - d, in a step with n processors free.
                last = times[j] - d
                if last < now or prefix_max[bisect_right(times, last) - 1] < n:
                    continue
            s2 = earliest_move(s, d, n, now)
            if s2 < s:
                move(s, s2, d, n)
                plan[k] = s2
                heapq.heappush(starts, (s2, k))
                prefix_max = list(accumulate(free, max))

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
            gone = set(started)
            self.queue[:] = [k for k in self.queue if k not in gone]
        return started
