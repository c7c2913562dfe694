"""Backfilling with a reservation depth K (Chiang, Arpaci-Dusseau and Vernon,
JSSPP 2002; Srinivasan et al., "Selective reservation strategies for backfill job scheduling",
JSSPP 2002).

The first K jobs of the queue hold a reservation (a block in the profile); the others hold
none and start only if they fit now without delaying any reservation.  K = 1 is EASY, K = ∞
(``depth=None``) is conservative backfilling; both ends give the same schedules, job by job,
as :mod:`.easy` and :mod:`.conservative` (tests/scheduler/test_backfill_depth.py).

Reservations behave as under conservative backfilling (this class reuses its plan): a job gets
its reservation when it enters the first K — on arrival if fewer than K jobs hold one, else when
a job ahead of it starts — at its earliest start with every other block in place; it is never
delayed afterwards; when a job ends early the reserved jobs are moved forward, in queue order
(:meth:`Conservative._compress`).  At each instant: reserved jobs whose time has come start;
jobs entering the first K are placed (and start if placed now); then the jobs behind them, in
queue order, start if their processors are free over ``[now, now + estimate)`` with all blocks
in place.

Policy names (read by :func:`scheduler.cluster.registry.resolve`): ``backfill-k``
(K = :data:`DEFAULT_DEPTH`) and ``backfill-k=K`` with K an integer >= 1 or ``inf``; e.g.
``backfill-k=1`` schedules as ``easy``.
"""

from __future__ import annotations

import heapq

from .conservative import Conservative
from .policy import ClusterState

__all__ = ["BackfillDepth", "DEFAULT_DEPTH", "depth_policy"]

DEFAULT_DEPTH = 4
_MAX_DEPTH = 10**7


_CLASSES: dict[int | None, type[BackfillDepth]] = {}


def depth_policy(depth: int | None) -> type[BackfillDepth]:
    """The policy class with reservation depth ``depth`` (None: unbounded)."""
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= _MAX_DEPTH
    ):
        raise ValueError(f"reservation depth must be an int in 1..{_MAX_DEPTH} or None")
    cls = _CLASSES.get(depth)
    if cls is None:
        label = "inf" if depth is None else str(depth)
        cls = type(f"BackfillDepth{label}", (BackfillDepth,), {"depth": depth})
        _CLASSES[depth] = cls
    return cls


class BackfillDepth(Conservative):
    name = "backfill-k"
    #: how many queued jobs hold a reservation (None: all, i.e. conservative backfilling)
    depth: int | None = DEFAULT_DEPTH

    def __init__(self, state: ClusterState) -> None:
        super().__init__(state)
        self._rest: list[int] = []  # queued jobs without a reservation, queue order
        # self._shapes (from Conservative): the reserved jobs, queue order

    def untouched(self) -> bool:
        return False  # no whole-run acceleration of its own (see the registry)

    def _full(self) -> bool:
        return self.depth is not None and len(self._shapes) >= self.depth

    def submit(self, k: int, now: int) -> None:
        if self._rest or self._full():
            if self._dirty:
                self._dirty = False
                self._compress(now)
            self.queue.append(k)
            self._rest.append(k)
        else:
            super().submit(k, now)

    def _place(self, k: int, now: int) -> int:
        n = self.procs[k]
        d = self.estimate[k]
        p = self.profile
        s = p.earliest_start(n, d, now)
        p.reserve(s, s + d, n)
        return s

    def schedule(self, now: int, changed: bool) -> list[int]:
        if self._dirty:
            self._dirty = False
            self._compress(now)
        started: list[int] = []
        starts = self._starts
        plan = self._plan
        while starts and starts[0][0] <= now:
            s, k = heapq.heappop(starts)
            if plan.get(k) == s:
                del plan[k]
                started.append(k)
        rest = self._rest
        if started:
            gone = set(started)
            self._shapes[:] = [x for x in self._shapes if x[0] not in gone]
        # jobs entering the first K: placed with every block in place (and started if now)
        taken = 0
        while taken < len(rest) and not self._full():
            k = rest[taken]
            taken += 1
            s = self._place(k, now)
            if s <= now:
                started.append(k)
            else:
                plan[k] = s
                heapq.heappush(starts, (s, k))
                self._shapes.append((k, self.procs[k], self.estimate[k]))
        if taken:
            del rest[:taken]
        # backfill the others, in queue order
        if rest:
            p = self.profile
            free_now = p.free_now
            if free_now > 0:
                procs, est = self.procs, self.estimate
                free_over, reserve = p.free_over, p.reserve
                filled = None
                for i, k in enumerate(rest):
                    n = procs[k]
                    if n > free_now:
                        continue
                    end = now + est[k]
                    if free_over(now, end) < n:
                        continue
                    reserve(now, end, n)
                    started.append(k)
                    if filled is None:
                        filled = set()
                    filled.add(i)
                    free_now = p.free_now
                    if free_now == 0:
                        break
                if filled:
                    rest[:] = [k for i, k in enumerate(rest) if i not in filled]
        if started:
            started.sort()
            gone = set(started)
            self.queue[:] = [k for k in self.queue if k not in gone]
        return started
