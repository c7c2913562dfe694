"""FCFS: strict queue order, no backfilling.

The head of the queue starts as soon as its processors are free for its whole estimate (so
fixed reservations are never over-committed); nobody overtakes it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from .policy import ClusterState, Policy

__all__ = ["FCFS", "replay_fcfs"]


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
        free = p.free  # free[0] is free now: the simulator advanced the profile to now
        # without fixed reservations ahead, free processors only grow from now on
        monotone = not self.reservation_ends
        h = 0
        while h < nq:
            k = q[h]
            n = procs[k]
            end = now + est[k]
            if (free[0] if monotone else p.free_over(now, end)) < n:
                break
            p.reserve(now, end, n)
            h += 1
        self._blocked = h < nq
        if h == 0:
            return []
        started = q[:h]
        del q[:h]
        return started


def replay_fcfs(
    submit: list[int],
    runtime: list[int],
    procs: list[int],
    capacity: int,
    start: list[int],
    record: Callable[[tuple[int, int, int]], object],
    progress: Callable[[float, str], None] | None = None,
    every: int = 8192,
) -> int | None:
    """A whole FCFS replay without the general event machinery: what
    :class:`~scheduler.cluster.simulator.Simulator` does with :class:`FCFS`, no fixed
    reservations, no scheduling interval and nothing submitted on the fly, from an empty
    machine to the last completion.

    Without reservations the free processors now are all :class:`FCFS` reads (they only grow
    until the next start), so the profile is replaced by a count, and the queue — always a
    contiguous run of job indices, since jobs arrive and start in queue order — by two indices.
    The event instants, their order (completions, then arrivals, then the decision; an instant
    recurs when a job of runtime 0 ends at its start), the start times (written into ``start``)
    and the ``(instant, busy, waiting)`` samples handed to ``record`` are those of the
    simulator.  ``progress`` as in :meth:`Simulator.run`.  Returns the last instant (None
    if there was no job).
    """
    n = len(submit)
    shift = max(1, (n - 1).bit_length())  # completions: (end << shift) | job, one int each
    mask = (1 << shift) - 1
    heap: list[int] = []
    heappush, heappop = heapq.heappush, heapq.heappop
    free = capacity
    a = 0  # next job to arrive
    head = 0  # first waiting job: the queue is [head, a)
    blocked = False  # the head did not fit and nothing has freed since
    t = -1
    instants = 0
    while True:
        if a < n:
            t = submit[a]
            if heap and heap[0] >> shift < t:
                t = heap[0] >> shift
        elif heap:
            t = heap[0] >> shift
        else:
            break
        changed = False
        if heap and heap[0] >> shift == t:
            bound = (t + 1) << shift
            while heap and heap[0] < bound:
                free += procs[heappop(heap) & mask]
            changed = True
        while a < n and submit[a] == t:
            a += 1
        if changed or not blocked:
            while head < a:
                n_k = procs[head]
                if n_k > free:
                    break
                free -= n_k
                start[head] = t
                heappush(heap, ((t + runtime[head]) << shift) | head)
                head += 1
            blocked = head < a
        record((t, capacity - free, a - head))
        instants += 1
        if progress is not None and instants % every == 0:
            progress(a / n, f"{a} of {n} jobs submitted")
    return t if n else None
