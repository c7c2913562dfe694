"""EASY (aggressive) backfilling (Lifka 1995, Mu'alem & Feitelson 2001).

Only the first queued job holds a reservation, at its *shadow time*: the earliest instant the
profile (running jobs' estimates and fixed reservations) gives it its processors for its
estimate.  A later job starts now if it fits now and does not delay that reservation: it ends
by the shadow time, or it uses only processors left over at the shadow time.  Both cases are
one profile question: with the head's block at the shadow time, are the job's processors
free over ``[now, now + estimate)``?  (Asked without inserting the block: two range minima;
without fixed reservations ahead, free processors never decrease, and these become classic
EASY's O(1) tests on the free count now and the "extra" processors at the shadow time.)  With
fixed reservations in the profile this also accounts for them in the shadow time.


Arrivals alone change nothing for jobs already examined (nothing was freed, and a job that
did not fit cannot fit later without a release), so at such instants only the newcomers are
examined.  A reservation granted since the last decision is not "arrivals alone": its block
can move the head's shadow time later, so jobs examined before may now backfill (the
simulator passes ``changed`` then, and the whole queue is examined again, as EASY does at
every event).  Candidates are scanned in queue order; one whose processors exceed the free
count now is skipped without touching the profile.

A whole run of plain EASY (no reservation, nothing but the trace) does not come here:
:func:`scheduler.cluster._loop.run_easy` makes the same decisions in one compiled loop (see
:mod:`scheduler.cluster.simulator`).
"""

from __future__ import annotations

from .policy import ClusterState, Policy

__all__ = ["EASY"]


class EASY(Policy):
    name = "easy"

    def __init__(self, state: ClusterState) -> None:
        super().__init__(state)
        self._examined = 0  # queue[:_examined] were examined since the last release
        #: when a dict, the shadow time each job got when it first headed the queue and did not
        #: fit (for checking that EASY never delays the head past it; off by default)
        self.shadow_log: dict[int, int] | None = None

    def untouched(self) -> bool:
        return not self.queue and not self._examined and self.shadow_log is None

    def schedule(self, now: int, changed: bool) -> list[int]:
        q = self.queue
        if not q:
            return []
        procs, est = self.procs, self.estimate
        p = self.profile
        free_over, reserve = p.free_over, p.reserve
        started: list[int] = []
        # Without fixed reservations ahead, free processors never decrease from now on (running
        # jobs only end), so "free over [now, end)" is "free now" and "free over [shadow, x)"
        # is "free at the shadow time": classic EASY's O(1) tests, same answers.
        monotone = not self.reservation_ends
        # 1. the head, and each next head, while it fits
        h = 0
        nq = len(q)
        if changed or self._examined == 0:
            while h < nq:
                k = q[h]
                end = now + est[k]
                if (p.free_now if monotone else free_over(now, end)) < procs[k]:
                    break
                reserve(now, end, procs[k])
                started.append(k)
                h += 1
            if h:
                del q[:h]
                nq -= h
            lo = 1
        else:
            lo = self._examined
        log = self.shadow_log
        if log is not None and nq and q[0] not in log:
            k = q[0]
            log[k] = p.earliest_start(procs[k], est[k], now)
        if nq <= lo:
            self._examined = nq
            return started
        # 2. backfill behind the head's reservation at its shadow time
        free_now = p.free_now  # the simulator advanced the profile to now
        if free_now == 0:  # nothing can start now; nothing changes until a release
            self._examined = nq
            return started
        head = q[0]
        shadow = -1
        hn = procs[head]
        he = est[head]
        h_end = extra = 0
        filled = None
        for i in range(lo, nq):
            k = q[i]
            n = procs[k]
            if n > free_now:
                continue
            if shadow < 0:
                shadow = p.earliest_start(hn, he, now)
                h_end = shadow + he
                extra = p.free_at(shadow) - hn
            end = now + est[k]
            # free over [now, end) with the head's block in place at [shadow, h_end)
            if monotone:
                if end > shadow and n > extra:
                    continue
            else:
                if free_over(now, end) < n:
                    continue
                if end > shadow and free_over(shadow, end if end < h_end else h_end) < n + hn:
                    continue
            reserve(now, end, n)
            started.append(k)
            if filled is None:
                filled = set()
            filled.add(i)
            free_now -= n
            if monotone and end > shadow:
                extra -= n
            if free_now == 0:
                break
        if filled:
            q[:] = [k for i, k in enumerate(q) if i not in filled]
        self._examined = len(q)
        return started
