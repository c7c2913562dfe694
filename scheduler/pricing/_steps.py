"""The availability profile as the quote kernels step it: the operations on a profile kept as
two parallel buffers of steps, ``times`` (each step's first instant, increasing) and ``free``
(the processors free from it to the next), ``count`` steps long — what
:class:`scheduler.cluster.profile.Profile` does to its lists, for
:mod:`scheduler.pricing._easy` (EASY and depth-K quotes) and :mod:`scheduler.pricing._replan`
(conservative and FCFS quotes).

Plain Python *and* the source of a C extension (``setup.py`` NATIVE_MODULES), in Cython's
pure-Python mode.  Compiled, the buffers are fixed-size arrays of 64-bit integers (typed
memoryviews, or raw pointers for the operations only the compiled kernels call) and the
kernels call these functions as C functions: ``_steps.pxd`` declares them, the kernels
``cimport`` them.  Uncompiled, the buffers are lists that grow and shrink with the profile,
and a kernel takes this module's pure source, never its build (whose functions take C
arrays).  The few ``if cython.compiled:`` branches compute what the plain
lines beside them compute.  Times and processor counts must fit in 62 bits.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right

try:
    import cython
except ImportError:  # no Cython installed: the same source runs uncompiled
    from scheduler._native import cython_shim as cython
try:  # compiled: the steps are shifted by C's memmove
    from cython.cimports.libc.string import memmove
except (ImportError, AttributeError):  # uncompiled (Cython's shadow module raises the
    pass  # latter): lists shift themselves


def buffer(values: list, size: int):  # type: ignore[no-untyped-def]
    """``values`` as the kernels index them: compiled, an array of 64-bit integers padded with
    zeros to ``size`` items; else a list of its own, padded likewise (lists then grow and
    shrink as the code needs)."""
    if cython.compiled:
        out = array("q", values)
        out.frombytes(bytes(8 * (size - len(values))))  # zeros
        return out
    return list(values) + [0] * (size - len(values)) if size > len(values) else list(values)


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def index(
    times: cython.longlong[::1], t: cython.longlong, hi: cython.Py_ssize_t
) -> cython.Py_ssize_t:
    """``bisect_right(times, t, 0, hi) - 1``: the step holding ``t`` (-1: before the first).
    Compiled without branches to mispredict: ``base`` only moves to steps starting by ``t``
    (a conditional move), and ``[base, base + hi)`` holds the answer unless it is -1."""
    base: cython.Py_ssize_t = 0
    half: cython.Py_ssize_t
    if not cython.compiled:
        return bisect_right(times, t, 0, hi) - 1
    if hi <= 0:
        return -1
    while hi > 1:
        half = hi >> 1
        base = base + half if times[base + half] <= t else base
        hi -= half
    return base - 1 if times[base] > t else base


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def insert_step(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    count: cython.Py_ssize_t,
    p: cython.Py_ssize_t,
    t: cython.longlong,
    f: cython.longlong,
) -> cython.Py_ssize_t:
    """Insert the step ``(t, f)`` at position ``p`` of the ``count`` steps; returns
    ``count + 1``."""
    x: cython.Py_ssize_t
    if cython.compiled:
        x = count
        while x > p:
            times[x] = times[x - 1]
            free[x] = free[x - 1]
            x -= 1
        times[p] = t
        free[p] = f
    else:  # a list of length count
        times.insert(p, t)
        free.insert(p, f)
    return count + 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def remove_step(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    count: cython.Py_ssize_t,
    p: cython.Py_ssize_t,
) -> cython.Py_ssize_t:
    """Remove the step at position ``p`` of the ``count`` steps; returns ``count - 1``."""
    x: cython.Py_ssize_t
    if cython.compiled:
        for x in range(p, count - 1):
            times[x] = times[x + 1]
            free[x] = free[x + 1]
    else:
        del times[p]
        del free[p]
    return count - 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def move_steps(
    times: cython.p_longlong,
    free: cython.p_longlong,
    dst: cython.Py_ssize_t,
    src: cython.Py_ssize_t,
    n: cython.Py_ssize_t,
) -> cython.void:
    """Move the ``n`` steps from ``src`` on to ``dst`` (compiled only: C's memmove)."""
    size: cython.Py_ssize_t = n * cython.sizeof(cython.longlong)
    if n > 0 and dst != src:
        memmove(times + dst, times + src, size)
        memmove(free + dst, free + src, size)


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def copy_values(
    dst: cython.p_longlong, src: cython.p_longlong, n: cython.Py_ssize_t
) -> cython.void:
    """Copy ``n`` 64-bit values from ``src`` to ``dst`` (compiled only: C's memmove)."""
    if n > 0:
        memmove(dst, src, n * cython.sizeof(cython.longlong))


@cython.cfunc
@cython.exceptval(check=False)
def take_shifted(
    times: cython.p_longlong,
    free: cython.p_longlong,
    count: cython.Py_ssize_t,
    a: cython.Py_ssize_t,
    k: cython.Py_ssize_t,
    t: cython.longlong,
    stop: cython.longlong,
    q: cython.longlong,
) -> cython.Py_ssize_t:
    """:func:`take_block` of ``q > 0`` processors (``t < stop``) with each region of steps
    moved once (compiled only): the splits at ``t`` and ``stop`` and the merges of equal
    neighbours are decided first — a split at ``t`` leaves no merge at ``t`` (the steps then
    differ by ``q``), nor does a split at ``stop`` at ``stop`` — then the covered steps after
    ``a`` move by the net count before them and the tail by the net count in all."""
    x: cython.Py_ssize_t
    fa: cython.longlong = free[a]
    fk: cython.longlong = free[k]
    split_t: cython.Py_ssize_t = 1 if times[a] != t else 0
    split_stop: cython.Py_ssize_t = 1 if (k == count - 1 or times[k + 1] != stop) else 0
    # after the subtraction: the step at stop equals the last covered one; the step before
    # t equals the first covered one
    merge_stop: cython.Py_ssize_t = 1 if (split_stop == 0 and free[k + 1] == fk - q) else 0
    merge_t: cython.Py_ssize_t = 1 if (split_t == 0 and a > 0 and free[a - 1] == fa - q) else 0
    shift: cython.Py_ssize_t = split_t - merge_t  # of the covered steps a+1..k
    tail: cython.Py_ssize_t = k + 1 + merge_stop  # the first step kept after the block
    delta: cython.Py_ssize_t = shift + split_stop - merge_stop  # of the tail
    if delta > 0:  # to the right: the tail first
        move_steps(times, free, tail + delta, tail, count - tail)
        move_steps(times, free, a + 1 + shift, a + 1, k - a)
    else:  # to the left (or in place): the covered steps first
        move_steps(times, free, a + 1 + shift, a + 1, k - a)
        move_steps(times, free, tail + delta, tail, count - tail)
    if split_t:  # step a keeps [times[a], t) at fa; the block starts a new step
        times[a + 1] = t
        free[a + 1] = fa - q
    elif not merge_t:  # step a starts at t (merged: the step before covers it)
        free[a] = fa - q
    for x in range(a + 1 + shift, k + 1 + shift):
        free[x] -= q
    if split_stop:
        times[k + 1 + shift] = stop
        free[k + 1 + shift] = fk
    return count + delta


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def take_block(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    count: cython.Py_ssize_t,
    a: cython.Py_ssize_t,
    k: cython.Py_ssize_t,
    t: cython.longlong,
    stop: cython.longlong,
    q: cython.longlong,
) -> cython.Py_ssize_t:
    """Take ``q`` processors over ``[t, stop)`` (free there; step ``a`` holds ``t``, step ``k``
    holds ``stop - 1``), keeping the steps canonical (no two neighbours equal) — what
    :meth:`Profile.reserve` does to its lists (an empty block changes nothing); returns the
    new count."""
    x: cython.Py_ssize_t
    if stop <= t:
        return count
    if cython.compiled and q > 0:
        return take_shifted(
            cython.address(times[0]), cython.address(free[0]), count, a, k, t, stop, q
        )
    if times[a] != t:  # split at t
        a += 1
        k += 1
        count = insert_step(times, free, count, a, t, free[a - 1])
    if k == count - 1 or times[k + 1] != stop:  # split at stop
        count = insert_step(times, free, count, k + 1, stop, free[k])
    if cython.compiled:
        for x in range(a, k + 1):
            free[x] -= q
    else:
        free[a : k + 1] = [f - q for f in free[a : k + 1]]
    if free[k] == free[k + 1]:  # canonical steps: merge equal neighbours
        count = remove_step(times, free, count, k + 1)
    if a > 0 and free[a - 1] == free[a]:
        count = remove_step(times, free, count, a)
    return count


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def reserve(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    count: cython.Py_ssize_t,
    t: cython.longlong,
    stop: cython.longlong,
    q: cython.longlong,
) -> cython.Py_ssize_t:
    """:func:`take_block` found from the times alone: ``q`` processors over ``[t, stop)``."""
    a: cython.Py_ssize_t = index(times, t, count)
    return take_block(times, free, count, a, index(times, stop - 1, count), t, stop, q)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def least_free(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    lo: cython.Py_ssize_t,
    hi: cython.Py_ssize_t,
    a: cython.longlong,
    b: cython.longlong,
) -> cython.longlong:
    """The fewest free processors over ``[a, b)`` (``a < b``) of the profile held at
    ``lo:hi`` of the buffers (its first instant not after ``a``): :meth:`Profile.free_over`."""
    p: cython.Py_ssize_t = hi
    mid: cython.Py_ssize_t
    least: cython.longlong
    while lo < p:  # p - 1: the step holding a
        mid = (lo + p) >> 1
        if a < times[mid]:
            p = mid
        else:
            lo = mid + 1
    p = lo - 1
    least = free[p]
    p += 1
    while p < hi and times[p] < b:
        least = min(least, free[p])
        p += 1
    return least


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def earliest_step(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    count: cython.Py_ssize_t,
    i: cython.Py_ssize_t,
    q: cython.longlong,
    dq: cython.longlong,
    t: cython.longlong,
    out: cython.longlong[::1],
) -> cython.Py_ssize_t:
    """:meth:`Profile.earliest_start` of ``q`` processors for ``dq`` from ``t`` (step ``i``
    holds it; ``q`` fits the machine), as the step holding the start: ``i`` (the start is
    ``t``), else the step the start opens (the start is its first instant).  ``out[0]``: the
    step after the last one the window meets (``count``: none)."""
    last: cython.Py_ssize_t = count - 1
    p: cython.Py_ssize_t = i
    end: cython.longlong = t + dq
    while True:
        if free[i] < q:
            i += 1  # cannot be past the last step: it holds the whole capacity
            p = i
            end = times[i] + dq
        elif i == last or times[i + 1] >= end:
            out[0] = i + 1
            return p
        else:
            i += 1
