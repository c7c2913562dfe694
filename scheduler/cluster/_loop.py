"""Whole-run loops of the cluster simulator, compiled when a build exists.

:meth:`Simulator.run <scheduler.cluster.simulator.Simulator.run>` hands a run to this module
when it is plain conservative backfilling (or EASY, or FCFS) from an empty machine with nothing
but the trace: no fixed reservation, no scheduling interval, nothing submitted on the fly,
no ``until``.  :func:`run_conservative` then makes, in one loop, exactly the decisions of the
event loop with :class:`~scheduler.cluster.conservative.Conservative` — the same instants in
the same order (completions, then arrivals in queue order, then the starts; an instant recurs
when a job of runtime 0 ends at its start), the same plan on each arrival (the earliest start
that delays no block), the same compression after early ends (each queued job, in queue
order, moved to its earliest start) and so the same start times and samples — without a
Python call per event.  :func:`run_easy` does the same for
:class:`~scheduler.cluster.easy.EASY`, and :func:`replay_fcfs` is
:func:`scheduler.cluster.fcfs.replay_fcfs` (FCFS without the profile) in the same style.

The availability profile lives in :class:`_Steps`: the step function of
:class:`~scheduler.cluster.profile.Profile` (breakpoints and free processors, canonical) on two
int64 arrays with room to grow, and the same loops as :mod:`scheduler.cluster._kernel`
(:meth:`_Steps.add` is ``_kernel.add`` and so on).  Heaps hold one int64 per entry,
``(time - origin) << shift | job``, which orders as the event loop's ``(time, job)`` tuples.

Plain Python *and* the source of a C extension (Cython's pure-Python mode, like
``_kernel.py``; see :mod:`scheduler._native`): the ``if cython.compiled:`` branches are C loops
where the plain version uses :mod:`heapq` or slice moves of :mod:`array` (each pair computes
the same thing; tests/scheduler/test_cluster_loop.py runs both against the event loop).  The
caller checks that every instant fits (:func:`fits`): times minus the origin, shifted, within
63 bits.
"""

from __future__ import annotations

import heapq
from array import array

try:
    import cython
except ImportError:  # no Cython installed: the same source runs uncompiled
    from scheduler._native import cython_shim as cython

__all__ = ["COMPILED", "fits", "replay_fcfs", "run_conservative", "run_easy"]

#: True in the extension, False when this file runs as Python
COMPILED = cython.compiled


def _zeros(n: int) -> array:
    return array("q", bytes(8 * n))


def _bits(n: int) -> int:
    """The bits of a job index in a heap key (at least 1)."""
    return max(1, (n - 1).bit_length())


def fits(origin: int, submit: list, runtime: list, estimate: list) -> bool:
    """Whether every instant of a whole run fits the heaps' int64 keys: no instant is later
    than the last submission plus every estimate (conservative backfilling plans each job
    after the ones ahead at worst) plus the longest runtime.  ``submit`` in queue order."""
    if not submit:
        return True
    shift = _bits(len(submit))
    if submit[0] < origin:
        return False
    span = submit[-1] - origin + sum(estimate) + max(runtime) + 1
    return span < 1 << (62 - shift) and origin > -(1 << 62) and span + origin < 1 << 62


@cython.cclass
class _Heap:
    """A binary min-heap of int64 (compiled: an array; pure: a list and :mod:`heapq`)."""

    h: cython.longlong[::1]
    size: cython.Py_ssize_t
    items: list

    def __init__(self, room: cython.Py_ssize_t) -> None:
        self.size = 0
        self.items = []
        if cython.compiled:
            self.h = _zeros(max(room, 16))

    @cython.cfunc
    @cython.inline
    def top(self) -> cython.longlong:
        if cython.compiled:
            x: cython.longlong = self.h[0]
        else:
            x = self.items[0]
        return x

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def push(self, x: cython.longlong) -> cython.void:
        i: cython.Py_ssize_t
        p: cython.Py_ssize_t
        if not cython.compiled:
            heapq.heappush(self.items, x)
            self.size += 1
            return
        if self.size == len(self.h):
            grown = array("q", self.h)
            grown.frombytes(bytes(8 * len(self.h)))
            self.h = grown
        i = self.size
        self.size += 1
        while i > 0:
            p = (i - 1) >> 1
            if self.h[p] <= x:
                break
            self.h[i] = self.h[p]
            i = p
        self.h[i] = x

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def pop(self) -> cython.longlong:
        top: cython.longlong
        x: cython.longlong
        i: cython.Py_ssize_t
        c: cython.Py_ssize_t
        n: cython.Py_ssize_t
        if not cython.compiled:
            self.size -= 1
            return heapq.heappop(self.items)
        top = self.h[0]
        self.size -= 1
        n = self.size
        if n == 0:
            return top
        x = self.h[n]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n and self.h[c + 1] < self.h[c]:
                c += 1
            if x <= self.h[c]:
                break
            self.h[i] = self.h[c]
            i = c
        self.h[i] = x
        return top


@cython.cclass
class _Steps:
    """The availability profile (see :class:`~scheduler.cluster.profile.Profile`): ``free[i]``
    processors on ``[times[i], times[i + 1])`` for ``i < m``, canonical, on int64 arrays."""

    t: cython.longlong[::1]
    f: cython.longlong[::1]
    m: cython.Py_ssize_t
    cap: cython.longlong

    def __init__(self, times: list, free: list, cap: cython.longlong) -> None:
        room = max(64, 2 * len(times))
        self.m = len(times)
        ta = array("q", times)
        fa = array("q", free)
        ta.frombytes(bytes(8 * (room - self.m)))
        fa.frombytes(bytes(8 * (room - self.m)))
        self.t = ta
        self.f = fa
        self.cap = cap

    def lists(self) -> tuple[list, list]:
        """``(times, free)`` as the lists of a :class:`Profile`."""
        return array("q", self.t[: self.m]).tolist(), array("q", self.f[: self.m]).tolist()

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def right(self, x: cython.longlong, lo: cython.Py_ssize_t) -> cython.Py_ssize_t:
        """``bisect_right(times[:m], x, lo)``."""
        hi: cython.Py_ssize_t = self.m
        mid: cython.Py_ssize_t
        while lo < hi:
            mid = (lo + hi) >> 1
            if x < self.t[mid]:
                hi = mid
            else:
                lo = mid + 1
        return lo

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def left(self, x: cython.longlong, lo: cython.Py_ssize_t) -> cython.Py_ssize_t:
        """``bisect_left(times[:m], x, lo)``."""
        hi: cython.Py_ssize_t = self.m
        mid: cython.Py_ssize_t
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.t[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return lo

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def insert(self, i: cython.Py_ssize_t, x: cython.longlong, v: cython.longlong) -> cython.void:
        """A breakpoint ``x`` with ``v`` free at index ``i``."""
        q: cython.Py_ssize_t
        m: cython.Py_ssize_t = self.m
        if m == len(self.t):
            ta = array("q", self.t)
            fa = array("q", self.f)
            ta.frombytes(bytes(8 * m))
            fa.frombytes(bytes(8 * m))
            self.t = ta
            self.f = fa
        if cython.compiled:
            q = m
            while q > i:
                self.t[q] = self.t[q - 1]
                self.f[q] = self.f[q - 1]
                q -= 1
        else:
            self.t[i + 1 : m + 1] = self.t[i:m]
            self.f[i + 1 : m + 1] = self.f[i:m]
        self.t[i] = x
        self.f[i] = v
        self.m = m + 1

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def delete(self, i: cython.Py_ssize_t, k: cython.Py_ssize_t) -> cython.void:
        """Remove the ``k`` steps from index ``i`` on."""
        q: cython.Py_ssize_t
        m: cython.Py_ssize_t = self.m
        if cython.compiled:
            for q in range(i, m - k):
                self.t[q] = self.t[q + k]
                self.f[q] = self.f[q + k]
        else:
            self.t[i : m - k] = self.t[i + k : m]
            self.f[i : m - k] = self.f[i + k : m]
        self.m = m - k

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def advance(self, now: cython.longlong) -> cython.void:
        """Forget the steps over before ``now``; the origin becomes ``now`` (the event loop's
        ``advance``, or ``times[0] = now`` when the second step is still ahead)."""
        i: cython.Py_ssize_t
        if self.m > 1 and self.t[1] <= now:
            i = self.right(now, 1) - 1
            if i > 0:
                self.delete(0, i)
        self.t[0] = now

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def add(
        self, start: cython.longlong, end: cython.longlong, delta: cython.longlong
    ) -> cython.bint:
        """``_kernel.add``: ``delta`` more free processors over ``[start, end)``; False (and
        nothing changed) if a step would leave ``0..capacity``."""
        i: cython.Py_ssize_t
        j: cython.Py_ssize_t
        q: cython.Py_ssize_t
        lo: cython.longlong
        hi: cython.longlong
        v: cython.longlong
        ok: cython.bint
        if end <= start or delta == 0:
            return True
        if start == self.t[0]:
            i = 0
        else:
            i = self.right(start, 0) - 1
            if i < 0:
                raise ValueError(f"time {start} is before the profile's origin {self.t[0]}")
        if self.t[i] != start:
            i += 1
            self.insert(i, start, self.f[i - 1])
        j = self.right(end, i) - 1
        if self.t[j] != end:
            j += 1
            self.insert(j, end, self.f[j - 1])
        lo = self.f[i]
        hi = lo
        for q in range(i + 1, j):
            v = self.f[q]
            if v < lo:
                lo = v
            elif v > hi:
                hi = v
        ok = lo + delta >= 0 if delta < 0 else hi + delta <= self.cap
        if ok:
            for q in range(i, j):
                self.f[q] += delta
        if j < self.m and self.f[j - 1] == self.f[j]:
            self.delete(j, 1)
        if i > 0 and self.f[i - 1] == self.f[i]:
            self.delete(i, 1)
        return ok

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def earliest_start(
        self, n: cython.longlong, d: cython.longlong, t: cython.longlong
    ) -> cython.longlong:
        """``_kernel.earliest_start`` (``n`` <= capacity, ``t`` >= origin)."""
        i: cython.Py_ssize_t = self.right(t, 0) - 1
        last: cython.Py_ssize_t = self.m - 1
        start: cython.longlong = t
        end: cython.longlong = t + d
        while True:
            if self.f[i] < n:
                i += 1  # not past the last step: it holds the whole capacity
                start = self.t[i]
                end = start + d
            elif i == last or self.t[i + 1] >= end:
                return start
            else:
                i += 1

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def earliest_move(
        self, start: cython.longlong, d: cython.longlong, n: cython.longlong, t: cython.longlong
    ) -> cython.longlong:
        """``_kernel.earliest_move``: the earliest start in ``[t, start]`` of a block of ``n``
        processors for ``d`` seconds that is in the profile at ``start``."""
        j: cython.Py_ssize_t = self.left(start, 0)  # steps [0, j) begin before start
        i: cython.Py_ssize_t = self.right(t, 0) - 1
        cand: cython.longlong = t
        while i < j:
            if self.f[i] < n:
                i += 1
                if i >= j:
                    return start
                cand = self.t[i]
            elif i + 1 == j or self.t[i + 1] >= cand + d:
                return cand if cand < start else start
            else:
                i += 1
        return start

    @cython.cfunc
    def move(
        self,
        start: cython.longlong,
        new_start: cython.longlong,
        d: cython.longlong,
        n: cython.longlong,
    ) -> cython.bint:
        """``_kernel.move`` to an earlier start, by the net change."""
        new_end: cython.longlong = new_start + d
        if new_end <= start:  # disjoint: take, then give back
            if not self.add(new_start, new_end, -n):
                return False
            if not self.add(start, start + d, n):
                self.add(new_start, new_end, n)
                return False
        else:
            if not self.add(new_start, start, -n):
                return False
            if not self.add(new_end, start + d, n):
                self.add(new_start, start, n)
                return False
        return True


@cython.cclass
class _Series:
    """``(instant, busy, waiting)`` samples, three int64 each, in an array with room."""

    v: cython.longlong[::1]
    size: cython.Py_ssize_t
    out: object

    def __init__(self, room: cython.Py_ssize_t) -> None:
        self.out = _zeros(max(3 * room, 48))
        self.v = self.out
        self.size = 0

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def add(
        self, t: cython.longlong, busy: cython.longlong, waiting: cython.longlong
    ) -> cython.void:
        k: cython.Py_ssize_t = self.size
        if k + 3 > len(self.v):
            grown = array("q", self.v)
            grown.frombytes(bytes(8 * len(self.v)))
            self.out = grown
            self.v = grown
        self.v[k] = t
        self.v[k + 1] = busy
        self.v[k + 2] = waiting
        self.size = k + 3

    def take(self) -> array:
        """The samples (the array is cut to them; the object is done with)."""
        out = self.out
        self.v = _zeros(0)  # releases the array's buffer, so it can be cut
        self.out = None
        del out[self.size :]
        return out


@cython.ccall
@cython.boundscheck(False)
@cython.wraparound(False)
def run_conservative(
    submit: list,
    runtime: list,
    estimate: list,
    procs: list,
    times: list,
    free: list,
    capacity: cython.longlong,
    progress: object,
    every: cython.Py_ssize_t,
) -> tuple:
    """A whole run of conservative backfilling from the profile ``(times, free)`` (its origin
    the first instant; blocks already in it are honoured) over the jobs ``submit``,
    ``runtime``, ``estimate`` (>= 1), ``procs`` (1..capacity), in queue order, all arriving.

    Returns ``(start, series, times, free, last)``: the start of each job (a list, -1 for none),
    the samples (an ``array("q")``, three per instant), the profile's lists at the end and
    the last instant (None if there was no event).  ``progress(fraction, message)`` is called
    every ``every`` instants as by the event loop; what it raises propagates, and then nothing
    of the caller's has changed (the lists are only read).  See :func:`fits`.
    """
    n: cython.Py_ssize_t = len(submit)
    sub: cython.longlong[::1] = array("q", submit)
    run: cython.longlong[::1] = array("q", runtime)
    est: cython.longlong[::1] = array("q", estimate)
    pr: cython.longlong[::1] = array("q", procs)
    st_a = array("q", [-1]) * n
    st: cython.longlong[::1] = st_a
    ps: cython.longlong[::1] = array("q", [0]) * n  # planned start of a queued job
    queued: cython.schar[::1] = array("b", bytes(n))  # job waits (has a plan)
    qa = _zeros(n)
    q: cython.longlong[::1] = qa  # the queue: job indices, queue order, q[:ql]
    ql: cython.Py_ssize_t = 0
    p: _Steps = _Steps(times, free, capacity)
    origin: cython.longlong = times[0]
    shift: cython.int = _bits(n)
    mask: cython.longlong = (1 << shift) - 1
    done: _Heap = _Heap(n)  # completions: (end - origin) << shift | job
    wake: _Heap = _Heap(n)  # planned starts, lazy: stale entries are skipped
    cp: _Pass = _Pass()
    series: _Series = _Series(2 * n + 1)
    a: cython.Py_ssize_t = 0
    busy: cython.longlong = 0
    t: cython.longlong = origin
    any_event: cython.bint = False
    x: cython.longlong
    s: cython.longlong
    c: cython.longlong
    k: cython.longlong
    nk: cython.longlong
    d: cython.longlong
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    w: cython.Py_ssize_t
    dirty: cython.bint = False
    have: cython.bint
    started: cython.bint
    instants: cython.Py_ssize_t = 0
    while True:
        # the next instant: an arrival, a completion or a planned start
        have = a < n
        if have:
            t = sub[a]
        if done.size:
            c = (done.top() >> shift) + origin
            if not have or c < t:
                t = c
                have = True
        while wake.size:
            x = wake.top()
            k = x & mask
            s = (x >> shift) + origin
            if queued[k] and ps[k] == s:
                if not have or s < t:
                    t = s
                    have = True
                break
            wake.pop()
        if not have:
            break
        p.advance(t)
        # completions: an early end gives the rest of its block back
        while done.size and (done.top() >> shift) + origin == t:
            k = done.pop() & mask
            nk = pr[k]
            busy -= nk
            c = st[k] + est[k]
            if t < c:
                if not p.add(t, c, nk):
                    raise AssertionError(f"job {k} gave back processors it did not hold")
                dirty = True
        # arrivals, in queue order: the plan is compressed first, then each is placed
        while a < n and sub[a] == t:
            if dirty:
                dirty = False
                _compress(p, cp, q, ql, ps, pr, est, wake, t, origin, shift)
            nk = pr[a]
            d = est[a]
            s = p.earliest_start(nk, d, t)
            if not p.add(s, s + d, -nk):
                raise AssertionError(f"job {a} was planned where it does not fit")
            ps[a] = s
            queued[a] = 1
            q[ql] = a
            ql += 1
            wake.push(((s - origin) << shift) | a)
            a += 1
        if dirty:
            dirty = False
            _compress(p, cp, q, ql, ps, pr, est, wake, t, origin, shift)
        # the jobs planned now start
        started = False
        while wake.size and (wake.top() >> shift) + origin <= t:
            x = wake.pop()
            k = x & mask
            s = (x >> shift) + origin
            if queued[k] and ps[k] == s:
                queued[k] = 0
                st[k] = t
                busy += pr[k]
                done.push(((t + run[k] - origin) << shift) | k)
                started = True
        if started:
            w = 0
            for i in range(ql):
                j = q[i]
                if queued[j]:
                    q[w] = j
                    w += 1
            ql = w
        series.add(t, busy, ql)
        any_event = True
        instants += 1
        if progress is not None and instants % every == 0:
            progress(a / n, f"{a} of {n} jobs submitted")
    times_out, free_out = p.lists()
    return st_a.tolist(), series.take(), times_out, free_out, t if any_event else None


#: "no limit" for times
_NO_LIMIT = 1 << 62


@cython.cclass
class _Pass:
    """What one compression pass knows (the rules are in :mod:`scheduler.cluster.conservative`
    and ``_kernel.compress``): a running maximum of the free counts over a snapshot of the
    breakpoints, exact before ``pm_until``; the instants from which each move gave capacity
    back (``gone``); and per shape ``(n, d)`` a lower bound ``L`` — no window of ``n``
    processors for ``d`` seconds opens in ``[now, L)`` as of move ``M`` — in an
    open-addressing table whose entries belong to the pass of generation ``gen``."""

    pmv: cython.longlong[::1]
    pmt: cython.longlong[::1]
    pm_len: cython.Py_ssize_t
    pm_until: cython.longlong
    gone: cython.longlong[::1]
    gone_len: cython.Py_ssize_t
    hn: cython.longlong[::1]
    hd: cython.longlong[::1]
    hl: cython.longlong[::1]
    hm: cython.longlong[::1]
    hg: cython.longlong[::1]
    mask: cython.Py_ssize_t
    gen: cython.longlong

    def __init__(self) -> None:
        self.pmv = _zeros(64)
        self.pmt = _zeros(64)
        self.gone = _zeros(64)
        self.gen = 0
        self._table(64)

    @cython.cfunc
    def _table(self, size: cython.Py_ssize_t) -> cython.void:
        self.hn = _zeros(size)
        self.hd = _zeros(size)
        self.hl = _zeros(size)
        self.hm = _zeros(size)
        self.hg = _zeros(size)
        self.mask = size - 1
        self.gen = 0

    @cython.cfunc
    def begin(self, now: cython.longlong, jobs: cython.Py_ssize_t) -> cython.void:
        """A new pass over ``jobs`` queued jobs at ``now``."""
        size: cython.Py_ssize_t = self.mask + 1
        if 2 * jobs > size:
            while 2 * jobs > size:
                size *= 2
            self._table(size)
        if jobs > len(self.gone):
            self.gone = _zeros(2 * jobs)
        self.gen += 1
        self.gone_len = 0
        self.pm_len = 0
        self.pm_until = now

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def slot(self, n: cython.longlong, d: cython.longlong) -> cython.Py_ssize_t:
        """The table slot of shape ``(n, d)``: its own, or the free one where it goes."""
        i: cython.Py_ssize_t = (d ^ (d >> 13) ^ (n << 5)) & self.mask
        while self.hg[i] == self.gen and (self.hn[i] != n or self.hd[i] != d):
            i = (i + 1) & self.mask
        return i

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def bound(
        self, i: cython.Py_ssize_t, now: cython.longlong, d: cython.longlong
    ) -> cython.longlong:
        """The lower bound in slot ``i`` brought up to date (``now`` if there is none): a
        window that ends by the first instant given back since is still impossible."""
        b: cython.longlong
        f: cython.longlong
        k: cython.Py_ssize_t
        m: cython.Py_ssize_t
        if self.hg[i] != self.gen:
            return now
        b = self.hl[i]
        m = self.hm[i]
        if m < self.gone_len:
            f = self.gone[m]
            for k in range(m + 1, self.gone_len):
                if self.gone[k] < f:
                    f = self.gone[k]
            f = f - d + 1
            if f < b:
                b = f if f > now else now
            self.hl[i] = b
            self.hm[i] = self.gone_len
        return b

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def keep(
        self, i: cython.Py_ssize_t, n: cython.longlong, d: cython.longlong, b: cython.longlong
    ) -> cython.void:
        """Shape ``(n, d)`` (its slot ``i``) has no window before ``b``, as of now."""
        self.hg[i] = self.gen
        self.hn[i] = n
        self.hd[i] = d
        self.hl[i] = b
        self.hm[i] = self.gone_len

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def running_max(self, p: _Steps) -> cython.void:
        """Snapshot the running maximum of the free counts (exact until a move)."""
        k: cython.Py_ssize_t
        top: cython.longlong = -1
        if p.m > len(self.pmv):
            self.pmv = _zeros(2 * p.m)
            self.pmt = _zeros(2 * p.m)
        for k in range(p.m):
            if p.f[k] > top:
                top = p.f[k]
            self.pmv[k] = top
            self.pmt[k] = p.t[k]
        self.pm_len = p.m
        self.pm_until = _NO_LIMIT

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def first_with(self, n: cython.longlong) -> cython.Py_ssize_t:
        """The first index of the snapshot whose running maximum reaches ``n``."""
        lo: cython.Py_ssize_t = 0
        hi: cython.Py_ssize_t = self.pm_len
        mid: cython.Py_ssize_t
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.pmv[mid] < n:
                lo = mid + 1
            else:
                hi = mid
        return lo

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def moved(self, f: cython.longlong) -> cython.void:
        """A move gave capacity back from ``f`` on."""
        if self.gone_len == len(self.gone):
            grown = array("q", self.gone)
            grown.frombytes(bytes(8 * len(self.gone)))
            self.gone = grown
        self.gone[self.gone_len] = f
        self.gone_len += 1
        if f < self.pm_until:
            self.pm_until = f


@cython.cfunc
@cython.boundscheck(False)
@cython.wraparound(False)
def _compress(
    p: _Steps,
    c: _Pass,
    q: cython.longlong[::1],
    ql: cython.Py_ssize_t,
    ps: cython.longlong[::1],
    pr: cython.longlong[::1],
    est: cython.longlong[::1],
    wake: _Heap,
    now: cython.longlong,
    origin: cython.longlong,
    shift: cython.int,
) -> cython.Py_ssize_t:
    """Compression at ``now``: each queued job, in queue order, moved to its earliest start
    (never later than its current one), with ``_kernel.compress``'s exact shortcuts; returns
    how many moved."""
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    x: cython.Py_ssize_t
    h: cython.Py_ssize_t
    k: cython.longlong
    s: cython.longlong
    s2: cython.longlong
    n: cython.longlong
    d: cython.longlong
    last: cython.longlong
    b: cython.longlong
    b2: cython.longlong
    a: cython.longlong
    f: cython.longlong
    t1: cython.longlong
    moved: cython.Py_ssize_t = 0
    c.begin(now, ql)
    for i in range(ql):
        k = q[i]
        s = ps[k]
        if s <= now:
            continue
        n = pr[k]
        d = est[k]
        j = p.left(s, 0) - 1  # the step just before s
        if j < 0:
            continue
        if p.f[j] < n:
            # the window cannot reach s: it fits whole before times[j], opening by last
            last = p.t[j] - d
            if last < now:
                continue
            if last >= c.pm_until:
                c.running_max(p)
            x = c.first_with(n)  # no step before pmt[x] has n free
            if x == c.pm_len:
                continue
            b = c.pmt[x]
            if b > last:
                continue
            h = c.slot(n, d)
            b2 = c.bound(h, now, d)
            if b2 > b:
                if b2 > last:
                    continue
                b = b2
            # the earliest whole window in [b, times[j]): a scan of the steps
            s2 = s
            for x in range(p.right(b, 0) - 1, j):
                f = p.f[x]
                t1 = p.t[x + 1]
                if f < n:
                    b = t1
                elif t1 - b >= d:
                    s2 = b
                    break
            if s2 == s:
                c.keep(h, n, d, s)
                continue
        else:
            # a window reaching s opens after s - d; a whole one opens at or after the bound
            h = c.slot(n, d)
            b = c.bound(h, now, d)
            if b > now:
                a = s - d + 1
                if a < b:
                    b = a if a > now else now
            s2 = p.earliest_move(s, d, n, b)
            if s2 == s:
                c.keep(h, n, d, s)
                continue
        if not p.move(s, s2, d, n):
            raise AssertionError(f"compression moved job {k} from {s} to {s2}: no room")
        ps[k] = s2
        wake.push(((s2 - origin) << shift) | k)
        moved += 1
        f = s2 + d
        if f < s:
            f = s  # capacity was given back over [f, s + d) only
        c.moved(f)
        c.keep(h, n, d, s2)
    return moved


@cython.ccall
@cython.boundscheck(False)
@cython.wraparound(False)
def run_easy(
    submit: list,
    runtime: list,
    estimate: list,
    procs: list,
    times: list,
    free: list,
    capacity: cython.longlong,
    progress: object,
    every: cython.Py_ssize_t,
) -> tuple:
    """A whole run of EASY backfilling (:class:`~scheduler.cluster.easy.EASY`, its rules in
    its module's docstring; without fixed reservations: the classic tests on the free count
    now and the processors left at the shadow time) from an empty machine, as
    :func:`run_conservative` (same arguments); returns ``(start, series, times, free, last,
    examined)``, ``examined`` being the policy's count of queued jobs already examined."""
    n: cython.Py_ssize_t = len(submit)
    sub: cython.longlong[::1] = array("q", submit)
    run: cython.longlong[::1] = array("q", runtime)
    est: cython.longlong[::1] = array("q", estimate)
    pr: cython.longlong[::1] = array("q", procs)
    st_a = array("q", [-1]) * n
    st: cython.longlong[::1] = st_a
    q: cython.longlong[::1] = _zeros(n)  # the queue: job indices, queue order, q[:ql]
    ql: cython.Py_ssize_t = 0
    p: _Steps = _Steps(times, free, capacity)
    origin: cython.longlong = times[0]
    shift: cython.int = _bits(n)
    mask: cython.longlong = (1 << shift) - 1
    done: _Heap = _Heap(n)  # completions: (end - origin) << shift | job
    series: _Series = _Series(2 * n + 1)
    a: cython.Py_ssize_t = 0
    busy: cython.longlong = 0
    t: cython.longlong = origin
    any_event: cython.bint = False
    examined: cython.Py_ssize_t = 0
    c: cython.longlong
    k: cython.longlong
    nk: cython.longlong
    end: cython.longlong
    shadow: cython.longlong
    extra: cython.longlong
    free_now: cython.longlong
    h: cython.Py_ssize_t
    i: cython.Py_ssize_t
    w: cython.Py_ssize_t
    lo: cython.Py_ssize_t
    nq: cython.Py_ssize_t
    have: cython.bint
    changed: cython.bint
    started: cython.bint
    instants: cython.Py_ssize_t = 0
    while True:
        have = a < n
        if have:
            t = sub[a]
        if done.size:
            c = (done.top() >> shift) + origin
            if not have or c < t:
                t = c
                have = True
        if not have:
            break
        p.advance(t)
        changed = False
        while done.size and (done.top() >> shift) + origin == t:
            k = done.pop() & mask
            nk = pr[k]
            busy -= nk
            c = st[k] + est[k]
            if t < c:
                if not p.add(t, c, nk):
                    raise AssertionError(f"job {k} gave back processors it did not hold")
            changed = True
        while a < n and sub[a] == t:
            q[ql] = a
            ql += 1
            a += 1
        if ql:
            started = False
            # 1. the head, and each next head, while it fits (the queue is q[h:ql] after)
            h = 0
            if changed or examined == 0:
                while h < ql:
                    k = q[h]
                    nk = pr[k]
                    if p.f[0] < nk:
                        break
                    end = t + est[k]
                    if not p.add(t, end, -nk):
                        raise AssertionError(f"job {k} started where it does not fit")
                    st[k] = t
                    busy += nk
                    done.push(((t + run[k] - origin) << shift) | k)
                    h += 1
                started = h > 0
                lo = 1
            else:
                lo = examined
            nq = ql - h
            examined = nq
            # 2. backfill behind the head's reservation at its shadow time
            if nq > lo and p.f[0] > 0:
                free_now = p.f[0]
                shadow = -1
                extra = 0
                for i in range(h + lo, ql):
                    k = q[i]
                    nk = pr[k]
                    if nk > free_now:
                        continue
                    if shadow < 0:
                        shadow = p.earliest_start(pr[q[h]], est[q[h]], t)
                        extra = p.f[p.right(shadow, 0) - 1] - pr[q[h]]
                    end = t + est[k]
                    if end > shadow and nk > extra:
                        continue
                    if not p.add(t, end, -nk):
                        raise AssertionError(f"job {k} backfilled where it does not fit")
                    st[k] = t
                    busy += nk
                    done.push(((t + run[k] - origin) << shift) | k)
                    started = True
                    free_now -= nk
                    if end > shadow:
                        extra -= nk
                    if free_now == 0:
                        break
            if started:
                w = 0
                for i in range(h, ql):
                    k = q[i]
                    if st[k] < 0:
                        q[w] = k
                        w += 1
                ql = w
                examined = ql
        series.add(t, busy, ql)
        any_event = True
        instants += 1
        if progress is not None and instants % every == 0:
            progress(a / n, f"{a} of {n} jobs submitted")
    times_out, free_out = p.lists()
    return st_a.tolist(), series.take(), times_out, free_out, t if any_event else None, examined


@cython.ccall
@cython.boundscheck(False)
@cython.wraparound(False)
def replay_fcfs(
    submit: list,
    runtime: list,
    procs: list,
    capacity: cython.longlong,
    progress: object,
    every: cython.Py_ssize_t,
) -> tuple:
    """:func:`scheduler.cluster.fcfs.replay_fcfs` (its rules are in its docstring), from
    an empty machine: returns ``(start, series, last)`` as :func:`run_conservative` does."""
    n: cython.Py_ssize_t = len(submit)
    sub: cython.longlong[::1] = array("q", submit)
    run: cython.longlong[::1] = array("q", runtime)
    pr: cython.longlong[::1] = array("q", procs)
    st_a = array("q", [-1]) * n
    st: cython.longlong[::1] = st_a
    origin: cython.longlong = submit[0] if n else 0
    shift: cython.int = _bits(n)
    mask: cython.longlong = (1 << shift) - 1
    done: _Heap = _Heap(n)
    series: _Series = _Series(2 * n + 1)
    free: cython.longlong = capacity
    a: cython.Py_ssize_t = 0
    head: cython.Py_ssize_t = 0  # the queue is [head, a)
    blocked: cython.bint = False
    changed: cython.bint
    t: cython.longlong = origin
    c: cython.longlong
    bound: cython.longlong
    nk: cython.longlong
    any_event: cython.bint = False
    instants: cython.Py_ssize_t = 0
    while True:
        if a < n:
            t = sub[a]
            if done.size:
                c = (done.top() >> shift) + origin
                if c < t:
                    t = c
        elif done.size:
            t = (done.top() >> shift) + origin
        else:
            break
        changed = False
        bound = (t - origin + 1) << shift
        while done.size and done.top() < bound:
            free += pr[done.pop() & mask]
            changed = True
        while a < n and sub[a] == t:
            a += 1
        if changed or not blocked:
            while head < a:
                nk = pr[head]
                if nk > free:
                    break
                free -= nk
                st[head] = t
                done.push(((t + run[head] - origin) << shift) | head)
                head += 1
            blocked = head < a
        series.add(t, capacity - free, a - head)
        any_event = True
        instants += 1
        if progress is not None and instants % every == 0:
            progress(a / n, f"{a} of {n} jobs submitted")
    return st_a.tolist(), series.take(), t if any_event else None
