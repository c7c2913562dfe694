# cython: boundscheck=False, wraparound=False
"""The availability profile library: the one representation of a profile's steps, two
parallel buffers, ``times`` (each step's first instant, increasing) and ``free`` (the
processors free from it to the next), ``count`` steps long, and the operations on them.
:class:`Steps` holds a profile that way: it is what a
:class:`scheduler.cluster.profile.Profile` holds, what the cluster's whole-run loops
(:mod:`scheduler.cluster._loop`) and conservative backfilling's compression pass
(:mod:`scheduler.cluster._compress`) step.  The pricing kernels,
:mod:`scheduler.pricing._easy` (EASY and depth-K quotes) and :mod:`scheduler.pricing._replan`
(conservative and FCFS quotes), step their own buffers with the same functions.  The library
lives on the cluster floor, beside the profile; the pricing kernels above it cimport it
downwards.

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

A kernel's build also depends on ``_steps.pxd`` (the bodies it inlines) and on this ``.py``
(its compiled functions): its source hash counts both, and ``make native`` watches them.

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
        changed) if a step would leave ``0..capacity`` or ``t`` is before the first instant
        (the .pxd's, on lists of ``count`` steps)."""
        if stop <= t or delta == 0:
            return count
        a = index(times, t, count)
        if a < 0:
            return -1
        k = index(times, stop - 1, count)
        covered = free[a : k + 1]
        if (min(covered) + delta < 0) if delta < 0 else (max(covered) + delta > capacity):
            return -1
        return take_block(times, free, count, a, k, t, stop, -delta)

    def earliest_move(
        times: list, free: list, count: int, start: int, d: int, n: int, t: int
    ) -> int:
        """The earliest start in ``[t, start]`` of a block ``(n, d)`` in the profile from
        ``start`` (the .pxd's scan, on lists of ``count`` steps)."""
        before = index(times, start - 1, count) + 1  # steps [0, before): before start
        i = index(times, t, count)
        candidate = t
        while i < before:
            if free[i] < n:
                i += 1
                if i >= before:
                    return start
                candidate = times[i]
            elif i + 1 == before or times[i + 1] >= candidate + d:
                return candidate if candidate < start else start
            else:
                i += 1
        return start

    def copy_run(dst: list, at: int, src: list, start: int, n: int) -> None:
        """Copy the ``n`` values ``src[start:start + n]`` to ``dst[at:at + n]`` (the .pxd's:
        C's memmove)."""
        if n > 0:
            dst[at : at + n] = src[start : start + n]


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


@cython.final
@cython.cclass
class Steps:
    """The availability profile's step function (:class:`~scheduler.cluster.profile.Profile`
    is its public face): ``free[i]`` processors on ``[times[i], times[i + 1])`` for
    ``i < size``, the last step running forever at the whole ``capacity``, canonical (no two
    neighbours equal).  Compiled, two int64 arrays with room to grow; else two lists of
    ``size`` items.  Every operation is this library's (the references, the planners, the
    whole-run loops and the quote kernels all step a profile with the same functions), and
    each assumes what :class:`Profile` checks: times not before the first instant, a request
    of at most ``capacity`` processors."""

    times: cython.longlong[::1]
    free: cython.longlong[::1]
    size: cython.Py_ssize_t
    capacity: cython.longlong
    out: cython.longlong[::1]  # earliest_window's second answer

    def __init__(self, times: list, free: list, capacity: cython.longlong) -> None:
        self.size = len(times)
        self.capacity = capacity
        if cython.compiled:
            self.times = array("q", times)
            self.free = array("q", free)
            self.out = array("q", [0])
            self._grow(max(16, 2 * self.size))
        else:  # the pure operations grow and shrink lists
            self.times = list(times)
            self.free = list(free)
            self.out = [0]

    @cython.ccall
    def lists(self) -> tuple:
        """``(times, free)``: the steps as two new lists."""
        size: cython.Py_ssize_t = self.size
        if cython.compiled:
            return list(self.times[:size]), list(self.free[:size])
        return self.times[:size], self.free[:size]

    @cython.ccall
    def copy(self) -> Steps:
        """An independent copy."""
        times, free = self.lists()
        return Steps(times, free, self.capacity)

    @cython.cfunc
    def _grow(self, room: cython.Py_ssize_t) -> cython.void:
        """Arrays of ``room`` items (compiled only)."""
        times_a = array("q", self.times[: self.size])
        free_a = array("q", self.free[: self.size])
        times_a.frombytes(bytes(8 * (room - self.size)))
        free_a.frombytes(bytes(8 * (room - self.size)))
        self.times = times_a
        self.free = free_a

    @cython.ccall
    def origin(self) -> cython.longlong:
        """The first instant."""
        return self.times[0]

    @cython.ccall
    def origin_free(self) -> cython.longlong:
        """The processors free at the first instant."""
        return self.free[0]

    @cython.ccall
    def advance(self, now: cython.longlong) -> cython.void:
        """Forget the steps over before ``now``: the first instant becomes ``now`` (nothing
        changes if ``now`` is not after it)."""
        i: cython.Py_ssize_t
        if now <= self.times[0]:
            return
        if self.size > 1 and self.times[1] <= now:
            i = index(self.times, now, self.size)
            if cython.compiled:
                move_steps(  # noqa: F821 (compiled only: the .pxd's body)
                    cython.address(self.times[0]), cython.address(self.free[0]), 0, i, self.size - i
                )
            else:
                del self.times[:i], self.free[:i]
            self.size -= i
        self.times[0] = now

    @cython.ccall
    def add(
        self, start: cython.longlong, end: cython.longlong, delta: cython.longlong
    ) -> cython.bint:
        """``add_block``: ``delta`` more free processors over ``[start, end)``; False (and
        nothing changed) if a step would leave ``0..capacity``."""
        size: cython.Py_ssize_t
        if cython.compiled and self.size + 2 > len(self.times):
            self._grow(2 * len(self.times))
        size = add_block(self.times, self.free, self.size, start, end, delta, self.capacity)
        if size < 0:
            return False
        self.size = size
        return True

    @cython.ccall
    def earliest_start(
        self, n: cython.longlong, d: cython.longlong, t: cython.longlong
    ) -> cython.longlong:
        """The earliest ``s >= t`` with ``n`` processors free over ``[s, s + d)``
        (``earliest_window``)."""
        a: cython.Py_ssize_t = index(self.times, t, self.size)
        s: cython.Py_ssize_t = earliest_window(
            self.times, self.free, self.size, a, n, d, t, self.out
        )
        return t if s == a else self.times[s]

    @cython.ccall
    def earliest_move(
        self, start: cython.longlong, d: cython.longlong, n: cython.longlong, t: cython.longlong
    ) -> cython.longlong:
        """The earliest start in ``[t, start]`` of the block ``(n, d)`` in the profile from
        ``start`` (``earliest_move``)."""
        return earliest_move(self.times, self.free, self.size, start, d, n, t)

    @cython.ccall
    def move(
        self,
        start: cython.longlong,
        new_start: cython.longlong,
        d: cython.longlong,
        n: cython.longlong,
    ) -> cython.bint:
        """Move the block of ``n`` processors for ``d`` from ``start`` to ``new_start`` by the
        net change; False (and nothing changed) if it does not fit there."""
        new_end: cython.longlong = new_start + d
        end: cython.longlong = start + d
        if new_start == start or d <= 0 or n == 0:
            return True
        if new_end <= start or end <= new_start:  # disjoint: take, then give back
            return self._shift(new_start, new_end, start, end, n)
        if new_start < start:  # earlier, overlapping
            return self._shift(new_start, start, new_end, end, n)
        return self._shift(end, new_end, start, new_start, n)  # later, overlapping

    @cython.cfunc
    def _shift(
        self,
        take_from: cython.longlong,
        take_to: cython.longlong,
        back_from: cython.longlong,
        back_to: cython.longlong,
        n: cython.longlong,
    ) -> cython.bint:
        """Take ``n`` over ``[take_from, take_to)``, then give ``n`` back over
        ``[back_from, back_to)``; all or nothing."""
        if not self.add(take_from, take_to, -n):
            return False
        if not self.add(back_from, back_to, n):
            self.add(take_from, take_to, n)
            return False
        return True

    @cython.ccall
    def free_at(self, t: cython.longlong) -> cython.longlong:
        """Free processors at instant ``t``."""
        return self.free[index(self.times, t, self.size)]

    @cython.ccall
    def free_over(self, a: cython.longlong, b: cython.longlong) -> cython.longlong:
        """The fewest free processors over ``[a, b)`` (at ``a`` when ``b <= a``)."""
        if b <= a:
            return self.free_at(a)
        return least_free(self.times, self.free, 0, self.size, a, b)

    @cython.ccall
    def max_free_over(self, a: cython.longlong, b: cython.longlong) -> cython.longlong:
        """The most free processors over ``[a, b)`` (at ``a`` when ``b <= a``)."""
        i: cython.Py_ssize_t = index(self.times, a, self.size)
        most: cython.longlong = self.free[i]
        i += 1
        while i < self.size and self.times[i] < b:
            if self.free[i] > most:
                most = self.free[i]
            i += 1
        return most
