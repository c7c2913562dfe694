# cython: wraparound=False
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

Compiler directives: the ``# cython:`` line above turns negative-index wraparound off for the
whole module (no index here is a negative C integer; :func:`_step_before`'s -1 is tested by
its callers before it indexes).  Bounds stay checked, as in Python (an index past a list's end
raises :class:`IndexError`), but for the two bisections, which keep
``@cython.boundscheck(False)``: their indexes lie in ``[lo, len(a))``.
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
@cython.boundscheck(False)
def _bisect_right(a: list, x: cython.longlong, lo: cython.Py_ssize_t) -> cython.Py_ssize_t:
    """``bisect.bisect_right(a, x, lo)`` on a list of ints, as a C loop (compiled only): of
    integers, the first after ``x`` is the first at least ``x + 1``."""
    return _bisect_left(a, x + 1, lo)


@cython.ccall
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
    before: cython.Py_ssize_t
    i: cython.Py_ssize_t
    candidate: cython.longlong = t
    f: cython.longlong
    if cython.compiled:
        before = _bisect_left(times, start, 0)  # steps [0, before) begin before start
        i = _bisect_right(times, t, 0) - 1
    else:
        before = bisect_left(times, start)
        i = bisect_right(times, t) - 1
    if i < 0:
        raise ValueError(f"time {t} is before the profile's origin {times[0]}")
    while i < before:
        f = free[i]
        if f < n:
            i += 1
            if i >= before:
                return start
            candidate = times[i]
        elif i + 1 == before or times[i + 1] >= candidate + d:
            return candidate if candidate < start else start
        else:
            i += 1
    return start


@cython.cfunc
def _known_bound(
    bounds: dict, key: tuple, gone: list, now: cython.longlong, d: cython.longlong
) -> cython.longlong:
    """The lower bound ``L`` kept for shape ``key`` (``now`` if none): no window of ``key``
    opens in ``[now, L)``, brought up to date with the moves since it was kept."""
    entry = bounds.get(key)
    if entry is None:
        return now
    moves: cython.Py_ssize_t = entry[1]
    if moves == len(gone):
        return entry[0]
    return _refresh_bound(bounds, key, entry, gone, now, d)


@cython.cfunc
def _refresh_bound(
    bounds: dict, key: tuple, entry: tuple, gone: list, now: cython.longlong, d: cython.longlong
) -> cython.longlong:
    """``entry = (L, m)`` brought up to date: the moves from the ``m``-th on gave capacity
    back from ``min(gone[m:])`` on, so a window that ends by then is still impossible."""
    b: cython.longlong = entry[0]
    moves: cython.Py_ssize_t = entry[1]
    first_back: cython.longlong
    g: cython.longlong
    k: cython.Py_ssize_t
    if cython.compiled:
        first_back = gone[moves]
        for k in range(moves + 1, len(gone)):
            g = gone[k]
            if g < first_back:
                first_back = g
    else:
        first_back = min(gone[moves:])
    first_back = first_back - d + 1
    if first_back < b:
        b = first_back if first_back > now else now
    bounds[key] = (b, len(gone))
    return b


@cython.cfunc
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


@cython.cfunc
@cython.inline
def _step_before(times: list, t: cython.longlong) -> cython.Py_ssize_t:
    """The index of the step just before ``t`` (the last that begins before it), or -1."""
    i: cython.Py_ssize_t
    if cython.compiled:
        i = _bisect_left(times, t, 0)
    else:
        i = bisect_left(times, t)
    return i - 1


@cython.cfunc
def _first_free(peak: list, peak_times: list, n: cython.longlong) -> cython.longlong:
    """The first breakpoint of the snapshot at which the running maximum ``peak`` reaches
    ``n`` (no step before it has ``n`` free), or "no limit"."""
    i: cython.Py_ssize_t
    if cython.compiled:
        i = _bisect_left(peak, n, 0)
    else:
        i = bisect_left(peak, n)
    if i == len(peak):
        return _NO_LIMIT
    return peak_times[i]


@cython.ccall
def compress(
    times: list,
    free: list,
    capacity: cython.longlong,
    shapes: list,
    plan: dict,
    starts: list,
    now: cython.longlong,
) -> cython.Py_ssize_t:
    """Conservative backfilling's compression at ``now`` (Mu'alem & Feitelson 2001, section
    3; the rules and the exact shortcuts are in the docstring of
    :mod:`scheduler.cluster.conservative`): each queued job ``(k, n, d)`` of ``shapes``, in
    queue order, moved to its earliest start, never later than its planned one — the same
    plan as taking each job out and putting it back at the profile's ``earliest_start``
    (tests/scheduler/test_cluster_properties.py).  Updates ``plan`` (job -> start), the
    profile and the lazy heap ``starts``; returns how many jobs moved."""
    start: cython.longlong
    new_start: cython.longlong
    n: cython.longlong
    d: cython.longlong
    last: cython.longlong
    first_free: cython.longlong
    f: cython.longlong
    back_from: cython.longlong
    before: cython.Py_ssize_t
    moved: cython.Py_ssize_t = 0
    # running maximum of free over a snapshot of the breakpoints: an upper bound of the
    # maximum free over [now, t] for every t < peak_until (later moves only took before it)
    peak: list = []
    peak_times: list = []
    peak_until: cython.longlong = now
    # (n, d) -> (L, m): no window of n processors for d seconds opens in [now, L) as of
    # the m-th move of this pass; moves after it gave capacity back from gone[m:] on
    bounds: dict = {}
    gone: list = []
    for k, n_, d_ in shapes:
        start = plan[k]
        if start <= now:
            continue
        n = n_
        d = d_
        before = _step_before(times, start)
        if before < 0:
            continue
        f = free[before]
        if f < n:
            # the window cannot reach start: it fits whole before times[before], opening
            # by last, in a step with n processors free
            last = times[before]
            last -= d
            if last < now:
                continue
            if last >= peak_until:
                peak = _running_max(free)
                peak_times = times[:]
                peak_until = _NO_LIMIT
            first_free = _first_free(peak, peak_times, n)
            if first_free > last:
                continue
            key = (n_, d_)
            new_start = _fit_before_step(
                times, free, n, d, before, start, first_free, last, bounds, key, gone, now
            )
        else:
            key = (n_, d_)
            new_start = _fit_reaching(times, free, n, d, start, bounds, key, gone, now)
        if new_start == start:
            continue
        back_from = _take_move(times, free, capacity, k, start, new_start, n, d, plan, starts)
        moved += 1
        if back_from < peak_until:
            peak_until = back_from
        gone.append(back_from)
        bounds[key] = (new_start, len(gone))
    return moved


@cython.cfunc
def _take_move(
    times: list,
    free: list,
    capacity: cython.longlong,
    k: object,
    start: cython.longlong,
    new_start: cython.longlong,
    n: cython.longlong,
    d: cython.longlong,
    plan: dict,
    starts: list,
) -> cython.longlong:
    """:func:`compress`'s move of job ``k`` (``n`` processors for ``d``) from ``start`` to the
    earlier ``new_start``: in the profile, the plan and the lazy heap ``starts``.  Returns
    where the capacity it gives back starts: over ``[back_from, start + d)`` only."""
    if not move(times, free, capacity, start, new_start, d, n):
        raise AssertionError(f"compression moved job {k} from {start} to {new_start}")
    plan[k] = new_start
    heappush(starts, (new_start, k))
    return new_start + d if new_start + d > start else start


@cython.cfunc
def _fit_before_step(
    times: list,
    free: list,
    n: cython.longlong,
    d: cython.longlong,
    before: cython.Py_ssize_t,
    start: cython.longlong,
    b: cython.longlong,
    last: cython.longlong,
    bounds: dict,
    key: tuple,
    gone: list,
    now: cython.longlong,
) -> cython.longlong:
    """The earliest start of a block ``(n, d)`` planned at ``start`` whose step just before
    ``start`` (index ``before``) lacks ``n`` processors: the earliest whole window in
    ``[b, times[before])`` opening by ``last`` (no step before ``b`` has ``n`` free), or
    ``start`` if there is none (then kept as the shape's bound)."""
    bound: cython.longlong = _known_bound(bounds, key, gone, now, d)
    f: cython.longlong
    step_end: cython.longlong
    q: cython.Py_ssize_t
    if bound > b:
        if bound > last:
            return start
        b = bound
    # a scan of the steps from the one holding b
    if cython.compiled:
        for q in range(_bisect_right(times, b, 0) - 1, before):
            f = free[q]
            step_end = times[q + 1]
            if f < n:
                b = step_end
            elif step_end - b >= d:
                return b
    else:
        q = bisect_right(times, b) - 1
        for f, step_end in zip(free[q:before], times[q + 1 : before + 1], strict=True):
            if f < n:
                b = step_end
            elif step_end - b >= d:
                return b
    bounds[key] = (start, len(gone))
    return start


@cython.cfunc
def _fit_reaching(
    times: list,
    free: list,
    n: cython.longlong,
    d: cython.longlong,
    start: cython.longlong,
    bounds: dict,
    key: tuple,
    gone: list,
    now: cython.longlong,
) -> cython.longlong:
    """The earliest start of a block ``(n, d)`` planned at ``start`` whose step just before
    ``start`` has ``n`` processors: a window reaching ``start`` opens after ``start - d``, a
    whole one at or after the shape's bound; ``start`` if none is earlier (then kept as the
    shape's bound)."""
    b: cython.longlong = _known_bound(bounds, key, gone, now, d)
    reach: cython.longlong
    new_start: cython.longlong
    if b > now:
        reach = start - d + 1
        if reach < b:
            b = reach if reach > now else now
    new_start = earliest_move(times, free, start, d, n, b)
    if new_start == start:
        bounds[key] = (start, len(gone))
    return new_start


@cython.ccall
def drop(queue: list, shapes: list, gone: set) -> None:
    """Take the jobs of ``gone`` out of ``queue`` (job ids) and ``shapes`` (``(job, n, d)``),
    in place, keeping the order (conservative backfilling, when jobs start)."""
    queue[:] = [k for k in queue if k not in gone]
    shapes[:] = [x for x in shapes if x[0] not in gone]
