# cython: boundscheck=False, wraparound=False
"""The availability profile as the compiled kernels step it: the operations on a profile kept
as two parallel buffers of steps, ``times`` (each step's first instant, increasing) and
``free`` (the processors free from it to the next), ``count`` steps long — what
:class:`scheduler.cluster.profile.Profile` does to its lists, for
:mod:`scheduler.pricing._easy` (EASY and depth-K quotes), :mod:`scheduler.pricing._replan`
(conservative and FCFS quotes) and the cluster's whole-run loops
:mod:`scheduler.cluster._loop` (EASY, conservative backfilling), which cimport them.  The
library lives on the cluster floor, beside the profile it steps: the pricing kernels above it
import it downwards.

Plain Python *and* the source of a C extension (``setup.py`` NATIVE_MODULES), in Cython's
pure-Python mode, with a C side in ``_steps.pxd``.  Compiled, the buffers are fixed-size
arrays of 64-bit integers (typed memoryviews, raw pointers where only the compiled kernels
call) and the kernels ``cimport`` these operations as C functions: the ones of their hottest
loops (``index``, ``holding_near``, ``earliest_window``, ``earliest_move``, ``add_block``,
``take_shifted``, ``move_steps``, ``copy_run``, ``load_steps``) have their
bodies in the ``.pxd``, inlined where they are called; the others are declared there and
called through this module's C interface.  Uncompiled, the buffers are lists that grow and
shrink with the profile, and a kernel takes this module's pure source, never its build
(whose functions take C arrays).  The few ``if cython.compiled:`` branches compute what the
plain lines beside them compute.  Times and processor counts must fit in 62 bits.

NB: a kernel's build also depends on ``_steps.pxd`` (the bodies it inlines): rebuild after
changing it (``make native`` watches the ``.py`` files only).

Compiler directives: the ``# cython:`` line above turns bounds checks and negative-index
wraparound off for the whole module (every index is a step within ``count``, or a value within
its buffer).  The ``.pxd``'s inline bodies are compiled into each kernel that cimports them
under the ``.pxd``'s own directives, not this module's nor the kernel's: its first line sets
the same two.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right

try:
    import cython
except ImportError:  # no Cython installed: the same source runs uncompiled
    from scheduler._native import cython_shim as cython


def buffer(values: list, size: int):  # type: ignore[no-untyped-def]
    """``values`` as the kernels index them: compiled, an array of 64-bit integers padded with
    zeros to ``size`` items; else a list of its own, padded likewise (lists then grow and
    shrink as the code needs)."""
    if cython.compiled:
        out = array("q", values)
        out.frombytes(bytes(8 * (size - len(values))))  # zeros
        return out
    return list(values) + [0] * (size - len(values)) if size > len(values) else list(values)


if not cython.compiled:  # (compiled: the .pxd's body, inlined where it is called)

    def index(times: list, t: int, hi: int) -> int:
        """``bisect_right(times, t, 0, hi) - 1``: the step holding ``t`` (-1: before the first)."""
        return bisect_right(times, t, 0, hi) - 1

    def holding_near(times: list, count: int, a: int, t: int) -> int:
        """The step holding ``t`` (``t`` not before the first instant), searched: the .pxd's
        follows it from ``a``, the step that held it before a block was taken or given back."""
        return bisect_right(times, t, 0, count) - 1

    def load_steps(  # type: ignore[no-untyped-def]
        times: list, free: list, from_times, from_free, o: int, count: int
    ) -> int:
        """The ``count`` steps from ``o`` of ``from_times``/``from_free`` become the lists'
        steps (the .pxd's copies them to the start of the buffers); returns ``count``."""
        times[:] = from_times[o : o + count]
        free[:] = from_free[o : o + count]
        return count

    def earliest_window(times: list, free: list, count: int, a: int, q: int, dq: int, t: int, out):  # type: ignore[no-untyped-def]  # noqa: E501
        """From ``t`` (step ``a`` holds it), the step holding the start of the earliest window of
        ``q`` processors for ``dq`` (``a``: the start is ``t``, else that step's first instant);
        ``out[0]``: the last step the window meets (the scan is the .pxd's)."""
        k = a
        end = t + dq
        while True:
            if free[k] < q:
                k += 1
                a = k
                end = times[k] + dq
            elif k == count - 1 or times[k + 1] >= end:
                out[0] = k
                return a
            else:
                k += 1

    def add_block(
        times: list, free: list, count: int, t: int, stop: int, delta: int, capacity: int
    ) -> int:
        """``delta`` more free processors over ``[t, stop)``: the new count, or -1 (nothing
        changed) if a step would leave ``0..capacity`` (the .pxd's): on lists of ``count``
        steps, the :class:`Profile`'s own."""
        if stop <= t or delta == 0:
            return count
        return len(times) if _list_steps.add(times, free, capacity, t, stop, delta) else -1

    def earliest_move(
        times: list, free: list, count: int, start: int, d: int, n: int, t: int
    ) -> int:
        """The earliest start in ``[t, start]`` of a block ``(n, d)`` in the profile from
        ``start`` (the .pxd's): on lists of ``count`` steps, the :class:`Profile`'s own."""
        return _list_steps.earliest_move(times, free, start, d, n, t)

    def copy_run(dst: list, at: int, src: list, start: int, n: int) -> None:
        """Copy the ``n`` values ``src[start:start + n]`` to ``dst[at:at + n]`` (the .pxd's:
        C's memmove)."""
        if n > 0:
            dst[at : at + n] = src[start : start + n]

    from scheduler._native import load as _load

    _list_steps = _load("scheduler.cluster._kernel")  # the Profile's operations on lists


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
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
        return take_shifted(  # noqa: F821 (compiled only: the .pxd's body)
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
