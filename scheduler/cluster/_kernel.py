"""The availability profile's hot loops, compiled when a build exists.

This module is plain Python *and* the source of a C extension: ``setup.py`` compiles it with
Cython in pure-Python mode (the annotations below become C types; ``cython.compiled`` is
True only in the extension).  :mod:`scheduler._native` loads the extension when one built
from exactly this file sits beside it, and this file otherwise, so both run the same source.
Only :class:`~scheduler.cluster.profile.Profile` and
:class:`~scheduler.cluster.conservative.Conservative` call it; the profile stays two Python
lists of ints (``times``, ``free``) that the rest of the engine reads.

The few ``if cython.compiled:`` branches are C loops over list items (and typed binary
searches, :func:`_bisect_left` / :func:`_bisect_right`) where the plain version uses slices,
``min``/``max``, ``zip`` or :mod:`bisect` (fast in CPython, slow when compiled); each pair
computes the same thing, and tests/scheduler/test_native_kernel.py runs both against each
other.  Times and processor counts must fit in 63 bits (they are seconds and counts; the
compiled version raises :class:`OverflowError` beyond 64).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from heapq import heappush
from itertools import accumulate

try:
    import cython
except ImportError:  # no Cython installed: the same source runs uncompiled
    from scheduler._native import cython_shim as cython

__all__ = ["add", "compress", "drop", "earliest_move", "earliest_start", "move"]

#: "no limit" for times (a plain int so that the compiled and pure versions agree)
_NO_LIMIT = 1 << 62


@cython.cfunc
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _bisect_left(a: list, x: cython.longlong, lo: cython.Py_ssize_t) -> cython.Py_ssize_t:
    """``bisect.bisect_left(a, x, lo)`` on a list of ints, as a C loop (compiled only)."""
    hi: cython.Py_ssize_t = len(a)
    mid: cython.Py_ssize_t
    v: cython.longlong
    while lo < hi:
        mid = (lo + hi) >> 1
        v = a[mid]
        if v < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@cython.cfunc
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _bisect_right(a: list, x: cython.longlong, lo: cython.Py_ssize_t) -> cython.Py_ssize_t:
    """``bisect.bisect_right(a, x, lo)`` on a list of ints, as a C loop (compiled only)."""
    hi: cython.Py_ssize_t = len(a)
    mid: cython.Py_ssize_t
    v: cython.longlong
    while lo < hi:
        mid = (lo + hi) >> 1
        v = a[mid]
        if x < v:
            hi = mid
        else:
            lo = mid + 1
    return lo


@cython.ccall
@cython.wraparound(False)
def add(
    times: list,
    free: list,
    capacity: cython.longlong,
    start: cython.longlong,
    end: cython.longlong,
    delta: cython.longlong,
) -> cython.bint:
    """Add ``delta`` free processors over ``[start, end)`` keeping the steps canonical;
    return False (and change nothing) if some step would leave ``0..capacity``."""
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    m: cython.Py_ssize_t
    f: cython.longlong
    lo: cython.longlong
    hi: cython.longlong
    ok: cython.bint
    # split at start (simulators mostly update from the origin: now)
    if start == times[0]:
        i = 0
    else:
        if cython.compiled:
            i = _bisect_right(times, start, 0) - 1
        else:
            i = bisect_right(times, start) - 1
        if i < 0:
            raise ValueError(f"time {start} is before the profile's origin {times[0]}")
    if times[i] != start:
        i += 1
        times.insert(i, start)
        free.insert(i, free[i - 1])
    # split at end
    if cython.compiled:
        j = _bisect_right(times, end, i) - 1
    else:
        j = bisect_right(times, end, i) - 1
    if times[j] != end:
        j += 1
        times.insert(j, end)
        free.insert(j, free[j - 1])
    if j == i + 1:
        f = free[i]
        f += delta
        ok = 0 <= f <= capacity
        if ok:
            free[i] = f
    elif cython.compiled:
        lo = free[i]
        hi = lo
        for m in range(i + 1, j):
            f = free[m]
            if f < lo:
                lo = f
            elif f > hi:
                hi = f
        ok = lo + delta >= 0 if delta < 0 else hi + delta <= capacity
        if ok:
            for m in range(i, j):
                f = free[m]
                free[m] = f + delta
    else:
        seg = free[i:j]
        ok = min(seg) + delta >= 0 if delta < 0 else max(seg) + delta <= capacity
        if ok:
            free[i:j] = [f + delta for f in seg]
    # merge equal neighbours at end, then at start
    if j < len(free) and free[j - 1] == free[j]:
        del free[j]
        del times[j]
    if i > 0 and free[i - 1] == free[i]:
        del free[i]
        del times[i]
    return ok


@cython.ccall
@cython.wraparound(False)
def move(
    times: list,
    free: list,
    capacity: cython.longlong,
    start: cython.longlong,
    new_start: cython.longlong,
    d: cython.longlong,
    n: cython.longlong,
) -> cython.bint:
    """Move a block of ``n`` processors and duration ``d`` from ``start`` to ``new_start``
    by the net change; False (and nothing changed) if it does not fit."""
    new_end: cython.longlong = new_start + d
    end: cython.longlong = start + d
    if new_start == start or d <= 0 or n == 0:
        return True
    if new_end <= start or end <= new_start:  # disjoint: take, then give back
        if not add(times, free, capacity, new_start, new_end, -n):
            return False
        if not add(times, free, capacity, start, end, n):
            add(times, free, capacity, new_start, new_end, n)
            return False
    elif new_start < start:  # earlier, overlapping
        if not add(times, free, capacity, new_start, start, -n):
            return False
        if not add(times, free, capacity, new_end, end, n):
            add(times, free, capacity, new_start, start, n)
            return False
    else:  # later, overlapping
        if not add(times, free, capacity, end, new_end, -n):
            return False
        if not add(times, free, capacity, start, new_start, n):
            add(times, free, capacity, end, new_end, n)
            return False
    return True


@cython.ccall
@cython.wraparound(False)
def earliest_start(
    times: list, free: list, n: cython.longlong, d: cython.longlong, t: cython.longlong
) -> cython.longlong:
    """Earliest ``s >= t`` with ``n`` processors free over ``[s, s + d)``; ``t`` must not be
    before the origin and ``n`` must not exceed the capacity (the caller checks both)."""
    i: cython.Py_ssize_t
    last: cython.Py_ssize_t = len(times) - 1
    start: cython.longlong = t
    end: cython.longlong = t + d
    f: cython.longlong
    if cython.compiled:
        i = _bisect_right(times, t, 0) - 1
    else:
        i = bisect_right(times, t) - 1
    while True:
        f = free[i]
        if f < n:
            i += 1  # cannot be past the last step: it holds the whole capacity
            start = times[i]
            end = start + d
        elif i == last or times[i + 1] >= end:
            return start
        else:
            i += 1


@cython.ccall
@cython.wraparound(False)
def earliest_move(
    times: list,
    free: list,
    start: cython.longlong,
    d: cython.longlong,
    n: cython.longlong,
    t: cython.longlong,
) -> cython.longlong:
    """Earliest start in ``[t, start]`` for a block of ``n`` processors and duration ``d``
    already in the profile at ``start`` (see :meth:`Profile.earliest_move`)."""
    j: cython.Py_ssize_t
    i: cython.Py_ssize_t
    cand: cython.longlong = t
    f: cython.longlong
    if cython.compiled:
        j = _bisect_left(times, start, 0)  # steps [0, j) begin before start
        i = _bisect_right(times, t, 0) - 1
    else:
        j = bisect_left(times, start)
        i = bisect_right(times, t) - 1
    if i < 0:
        raise ValueError(f"time {t} is before the profile's origin {times[0]}")
    while i < j:
        f = free[i]
        if f < n:
            i += 1
            if i >= j:
                return start
            cand = times[i]
        elif i + 1 == j or times[i + 1] >= cand + d:
            return cand if cand < start else start
        else:
            i += 1
    return start


@cython.cfunc
@cython.wraparound(False)
def _bound(lb: dict, key: tuple, gone: list, now: cython.longlong, d: cython.longlong):
    """The lower bound ``L`` kept for ``key`` in ``lb``, brought up to date: a window that ends
    by the first instant given back since (``min(gone[m:])``) is still impossible."""
    e = lb.get(key)
    if e is None:
        return now
    b: cython.longlong = e[0]
    m: cython.Py_ssize_t = e[1]
    f: cython.longlong
    g: cython.longlong
    k: cython.Py_ssize_t
    if m < len(gone):
        if cython.compiled:
            f = gone[m]
            for k in range(m + 1, len(gone)):
                g = gone[k]
                if g < f:
                    f = g
            f = f - d + 1
        else:
            f = min(gone[m:]) - d + 1
        if f < b:
            b = f if f > now else now
        lb[key] = (b, len(gone))
    return b


@cython.cfunc
@cython.wraparound(False)
def _running_max(free: list) -> list:
    """``list(accumulate(free, max))``."""
    if not cython.compiled:
        return list(accumulate(free, max))
    out: list = []
    k: cython.Py_ssize_t
    f: cython.longlong
    top: cython.longlong = -1
    x: object = None
    for k in range(len(free)):
        f = free[k]
        if f > top:
            top = f
            x = free[k]
        out.append(x)
    return out


@cython.ccall
@cython.wraparound(False)
def compress(
    times: list,
    free: list,
    capacity: cython.longlong,
    shapes: list,
    plan: dict,
    starts: list,
    now: cython.longlong,
) -> cython.Py_ssize_t:
    """Conservative backfilling's compression at ``now`` (the rules are in the docstring of
    :mod:`scheduler.cluster.conservative`): move each queued job ``(k, n, d)`` of ``shapes``,
    in order, to its earliest start, updating ``plan`` (job -> start), the profile and the
    lazy heap ``starts``.  Returns how many jobs moved."""
    s: cython.longlong
    s2: cython.longlong
    n: cython.longlong
    d: cython.longlong
    j: cython.Py_ssize_t
    i: cython.Py_ssize_t
    q: cython.Py_ssize_t
    last: cython.longlong
    b: cython.longlong
    b2: cython.longlong
    a: cython.longlong
    f: cython.longlong
    t1: cython.longlong
    moved: cython.Py_ssize_t = 0
    # running maximum of free over a snapshot of the breakpoints: an upper bound of the
    # maximum free over [now, t] for every t < pm_until (later moves only took before it)
    pm: list = []
    pm_times: list = []
    pm_until: cython.longlong = now
    # (n, d) -> (L, m): no window of n processors for d seconds opens in [now, L) as of
    # the m-th move of this pass; moves after it gave capacity back from gone[m:] on
    lb: dict = {}
    gone: list = []
    e: tuple
    em: cython.Py_ssize_t
    for k, n_, d_ in shapes:
        s = plan[k]
        if s <= now:
            continue
        n = n_
        d = d_
        if cython.compiled:
            j = _bisect_left(times, s, 0) - 1  # the step just before s
        else:
            j = bisect_left(times, s) - 1
        if j < 0:
            continue
        f = free[j]
        if f < n:
            # The window cannot reach s, so it must fit whole before times[j]: it opens
            # at or before times[j] - d, in a step with n processors free.
            last = times[j]
            last -= d
            if last < now:
                continue
            if last >= pm_until:
                pm = _running_max(free)
                pm_times = times[:]
                pm_until = _NO_LIMIT
            if cython.compiled:
                i = _bisect_left(pm, n, 0)  # no step before pm_times[i] has n free
            else:
                i = bisect_left(pm, n)
            if i == len(pm):
                continue
            b = pm_times[i]
            if b > last:
                continue
            key = (n_, d_)
            e = lb.get(key)
            if e is None:
                b2 = now
            else:
                em = e[1]
                if em == len(gone):
                    b2 = e[0]
                else:
                    b2 = _bound(lb, key, gone, now, d)
            if b2 > b:  # (b2 >= now)
                if b2 > last:
                    continue
                b = b2
            # the earliest whole window in [b, times[j]): a scan of the steps
            if cython.compiled:
                i = _bisect_right(times, b, 0) - 1
            else:
                i = bisect_right(times, b) - 1
            s2 = s
            if cython.compiled:
                for q in range(i, j):
                    f = free[q]
                    t1 = times[q + 1]
                    if f < n:
                        b = t1
                    elif t1 - b >= d:
                        s2 = b
                        break
            else:
                for f, t1 in zip(free[i:j], times[i + 1 : j + 1], strict=True):
                    if f < n:
                        b = t1
                    elif t1 - b >= d:
                        s2 = b
                        break
            if s2 == s:
                lb[key] = (s, len(gone))
                continue
        else:
            # a window reaching s opens after s - d; a whole one opens at or after lb
            key = (n_, d_)
            e = lb.get(key)
            if e is None:
                b = now
            else:
                em = e[1]
                if em == len(gone):
                    b = e[0]
                else:
                    b = _bound(lb, key, gone, now, d)
            if b > now:
                a = s - d + 1
                if a < b:
                    b = a if a > now else now
            s2 = earliest_move(times, free, s, d, n, b)
        if not move(times, free, capacity, s, s2, d, n):
            raise AssertionError(f"compression moved job {k} from {s} to {s2}: it did not fit")
        moved += 1
        plan[k] = s2
        heappush(starts, (s2, k))
        f = s2 + d
        if f < s:
            f = s  # capacity was given back over [f, s + d) only
        if f < pm_until:
            pm_until = f
        gone.append(f)
        lb[key] = (s2, len(gone))
    return moved


@cython.ccall
def drop(queue: list, shapes: list, gone: set) -> None:
    """Take the jobs of ``gone`` out of ``queue`` (job ids) and ``shapes`` (``(job, n, d)``),
    in place, keeping the order (conservative backfilling, when jobs start)."""
    queue[:] = [k for k in queue if k not in gone]
    shapes[:] = [x for x in shapes if x[0] not in gone]
