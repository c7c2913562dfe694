"""FCFS: strict queue order, no backfilling.

The head of the queue starts as soon as its processors are free for its whole estimate (so
fixed reservations are never over-committed); nobody overtakes it.
"""

from __future__ import annotations

from .policy import ClusterState, Policy

__all__ = ["FCFS"]


class FCFS(Policy):
    name = "fcfs"

    def __init__(self, state: ClusterState) -> None:
        super().__init__(state)
        self._blocked = False  # the head did not fit and nothing has freed since

    def schedule(self, now: int, changed: bool) -> list[int]:
        if self._blocked and not changed:
            return []  # only arrivals: they queue behind a head that still does not fit
        q = self.queue
        nq = len(q)
        procs, est = self.procs, self.estimate
        p = self.profile
        # without fixed reservations ahead, free processors only grow from now on
        monotone = not self.reservation_ends
        h = 0
        while h < nq:
            k = q[h]
            n = procs[k]
            end = now + est[k]
            if (p.free_now if monotone else p.free_over(now, end)) < n:
                break
            p.reserve(now, end, n)
            h += 1
        self._blocked = h < nq
        if h == 0:
            return []
        started = q[:h]
        del q[:h]
        return started
