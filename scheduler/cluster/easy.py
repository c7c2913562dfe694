"""EASY (aggressive) backfilling (SPEC §2; Lifka 1995, Mu'alem & Feitelson 2001).

Only the first queued job holds a reservation, at its *shadow time*: the earliest instant the
profile (running jobs' estimates and fixed reservations) gives it its processors for its
estimate.  A later job starts now if it fits now and does not delay that reservation: it ends
by the shadow time, or it uses only processors left over at the shadow time.  Both cases are
one profile question: with the head's block inserted at the shadow time, are the job's
processors free over ``[now, now + estimate)``?  With fixed reservations in the profile this
also accounts for them in the shadow time, as issue 3 asks.

Arrivals alone change nothing for jobs already examined (nothing was freed, and a job that
did not fit cannot fit later without a release), so at such instants only the newcomers are
examined.  Candidates are scanned in queue order; one whose processors exceed the free count
now is skipped without touching the profile.
"""

from __future__ import annotations

from .policy import Policy, register_policy

__all__ = ["EASY"]


@register_policy
class EASY(Policy):
    name = "easy"

    def __init__(self, sim) -> None:  # type: ignore[no-untyped-def]
        super().__init__(sim)
        self._examined = 0  # queue[:_examined] were examined since the last release

    def schedule(self, now: int, changed: bool) -> list[int]:
        q = self.queue
        if not q:
            return []
        procs, est = self.sim.procs, self.sim.estimate
        p = self.profile
        free_over, reserve = p.free_over, p.reserve
        started: list[int] = []
        # 1. the head, and each next head, while it fits
        h = 0
        nq = len(q)
        if changed or self._examined == 0:
            while h < nq:
                k = q[h]
                end = now + est[k]
                if free_over(now, end) < procs[k]:
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
        if nq <= lo:
            self._examined = nq
            return started
        # 2. backfill behind the head's reservation at its shadow time
        free_now = p.free_at(now)
        head = q[0]
        shadow = -1
        hn = procs[head]
        he = est[head]
        filled = None
        for i in range(lo, nq):
            k = q[i]
            n = procs[k]
            if n > free_now:
                continue
            if shadow < 0:
                shadow = p.earliest_start(hn, he, now)
                reserve(shadow, shadow + he, hn)
            end = now + est[k]
            if free_over(now, end) >= n:
                reserve(now, end, n)
                started.append(k)
                if filled is None:
                    filled = set()
                filled.add(i)
                free_now -= n
                if free_now == 0:
                    break
        if shadow >= 0:
            p.release(shadow, shadow + he, hn)
        if filled:
            q[:] = [k for i, k in enumerate(q) if i not in filled]
        self._examined = len(q)
        return started
