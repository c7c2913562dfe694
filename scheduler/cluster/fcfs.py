"""FCFS: strict queue order, no backfilling (SPEC §2).

The head of the queue starts as soon as its processors are free for its whole estimate (so
fixed reservations are never over-committed); nobody overtakes it.
"""

from __future__ import annotations

from .policy import Policy, register_policy

__all__ = ["FCFS"]


@register_policy
class FCFS(Policy):
    name = "fcfs"

    def __init__(self, sim) -> None:  # type: ignore[no-untyped-def]
        super().__init__(sim)
        self._head = 0  # queue[:_head] have started (compacted lazily)
        self._blocked = False  # the head did not fit and nothing has freed since

    def schedule(self, now: int, changed: bool) -> list[int]:
        if self._blocked and not changed:
            return []  # only arrivals: they queue behind a head that still does not fit
        q = self.queue
        h = self._head
        nq = len(q)
        procs, est = self.sim.procs, self.sim.estimate
        p = self.profile
        free_over, reserve = p.free_over, p.reserve
        started = []
        while h < nq:
            k = q[h]
            n = procs[k]
            end = now + est[k]
            if free_over(now, end) < n:
                break
            reserve(now, end, n)
            started.append(k)
            h += 1
        self._blocked = h < nq
        if h > 4096 or h == nq:
            del q[:h]
            h = 0
        self._head = h
        return started

    def waiting(self) -> list[int]:
        return self.queue[self._head :]

    def waiting_count(self) -> int:
        return len(self.queue) - self._head
