# cython: boundscheck=False, wraparound=False
# The C side of scheduler/cluster/_steps.py, the profile library, which the compression pass
# (scheduler/cluster/_compress.py), the whole-run loops (scheduler/cluster/_loop.py) and the
# quote kernels (scheduler/pricing/_easy.py, _replan.py) cimport
# (`from cython.cimports.scheduler.cluster._steps import ...`).
#
# Declarations: the .py's functions and its Steps class, called as C (keep each signature in
# step with the .py).  Bodies: the operations the kernels call in their hottest loops, compiled
# only and inlined where they are called (a call into another extension cannot be inlined: it
# goes through a pointer and copies each typed view it is given); the .py holds their pure
# counterparts where the uncompiled code needs one (``index``: bisect).
#
# Directives: the inline bodies below are compiled into each kernel that cimports them under
# this file's directives (its first line), not the kernel's nor _steps.py's: no bounds checks
# and no negative-index wraparound (every index is a step before ``count``, ``hi`` or ``last``).

cimport cython
from libc.string cimport memmove

cdef Py_ssize_t insert_step(long long[::1] times, long long[::1] free, Py_ssize_t count, Py_ssize_t p, long long t, long long f) noexcept
cdef Py_ssize_t remove_step(long long[::1] times, long long[::1] free, Py_ssize_t count, Py_ssize_t p) noexcept
cdef Py_ssize_t take_block(long long[::1] times, long long[::1] free, Py_ssize_t count, Py_ssize_t a, Py_ssize_t k, long long t, long long stop, long long q) noexcept
cdef Py_ssize_t reserve(long long[::1] times, long long[::1] free, Py_ssize_t count, long long t, long long stop, long long q) noexcept
cdef long long least_free(long long[::1] times, long long[::1] free, Py_ssize_t lo, Py_ssize_t hi, long long a, long long b) noexcept


cdef inline Py_ssize_t index(long long[::1] times, long long t, Py_ssize_t hi) noexcept:
    """``bisect_right(times, t, 0, hi) - 1``: the step holding ``t`` (-1: before the first),
    without branches to mispredict: ``base`` only moves to steps starting by ``t`` (a
    conditional move), and ``[base, base + hi)`` holds the answer unless it is -1."""
    cdef Py_ssize_t base = 0
    cdef Py_ssize_t half
    if hi <= 0:
        return -1
    while hi > 1:
        half = hi >> 1
        base = base + half if times[base + half] <= t else base
        hi -= half
    return base - 1 if times[base] > t else base


cdef inline Py_ssize_t holding_near(long long[::1] times, Py_ssize_t count, Py_ssize_t a, long long t) noexcept:
    """The step holding ``t``, found from ``a``: the step that held it before a block was
    taken or given back (the split and the merges around it move it by a step or two)."""
    if a > count - 1:
        a = count - 1
    while times[a] > t:
        a -= 1
    while a + 1 < count and times[a + 1] <= t:
        a += 1
    return a


cdef inline Py_ssize_t earliest_window(long long[::1] times, long long[::1] free, Py_ssize_t count, Py_ssize_t a, long long q, long long dq, long long t, long long[::1] out) noexcept:
    """From ``t`` (step ``a`` holds it), the earliest window of ``q`` processors for ``dq``
    (:meth:`Profile.earliest_start`'s scan; ``q`` fits the machine): the step holding its
    start — ``a`` (the start is ``t``), else the step whose first instant the start is;
    ``out[0]``: the last step the window meets."""
    cdef Py_ssize_t last = count - 1
    cdef Py_ssize_t k = a
    cdef long long end = t + dq
    while True:
        if free[k] < q:
            k += 1  # cannot be past the last step: it holds the whole capacity
            a = k
            end = times[k] + dq
        elif k == last or times[k + 1] >= end:
            out[0] = k
            return a
        else:
            k += 1


cdef inline void move_steps(long long* times, long long* free, Py_ssize_t dst, Py_ssize_t src, Py_ssize_t n) noexcept:
    """Move the ``n`` steps from ``src`` on to ``dst`` (C's memmove)."""
    cdef size_t size = n * sizeof(long long)
    if n > 0 and dst != src:
        memmove(times + dst, times + src, size)
        memmove(free + dst, free + src, size)


cdef inline void copy_run(long long[::1] dst, Py_ssize_t at, long long[::1] src, Py_ssize_t start, Py_ssize_t n) noexcept:
    """Copy the ``n`` values ``src[start:start + n]`` to ``dst[at:at + n]`` (C's memmove)."""
    if n > 0:
        memmove(&dst[at], &src[start], n * sizeof(long long))


cdef inline Py_ssize_t load_steps(long long[::1] times, long long[::1] free, long long[::1] from_times, long long[::1] from_free, Py_ssize_t o, Py_ssize_t count) noexcept:
    """Copy the ``count`` steps from ``o`` of ``from_times``/``from_free`` to the start of the
    buffers; returns ``count``."""
    copy_run(times, 0, from_times, o, count)
    copy_run(free, 0, from_free, o, count)
    return count


cdef inline Py_ssize_t take_shifted(long long* times, long long* free, Py_ssize_t count, Py_ssize_t a, Py_ssize_t k, long long t, long long stop, long long q) noexcept:
    """``take_block`` of ``q != 0`` processors (``q < 0``: given back) over ``[t, stop)``
    (``t < stop``; step ``a`` holds ``t``, step ``k`` holds ``stop - 1``) with each region of
    steps moved once: the splits at ``t`` and ``stop`` and the merges of equal neighbours are
    decided first — a split at ``t`` leaves no merge at ``t`` (the steps then differ by
    ``q``), nor does a split at ``stop`` at ``stop`` — then the covered steps after ``a``
    move by the net count before them and the tail by the net count in all.  Returns the new
    count."""
    cdef Py_ssize_t x
    cdef long long fa = free[a]
    cdef long long fk = free[k]
    cdef Py_ssize_t split_t = 1 if times[a] != t else 0
    cdef Py_ssize_t split_stop = 1 if (k == count - 1 or times[k + 1] != stop) else 0
    # after the subtraction: the step at stop equals the last covered one; the step before
    # t equals the first covered one
    cdef Py_ssize_t merge_stop = 1 if (split_stop == 0 and free[k + 1] == fk - q) else 0
    cdef Py_ssize_t merge_t = 1 if (split_t == 0 and a > 0 and free[a - 1] == fa - q) else 0
    cdef Py_ssize_t shift = split_t - merge_t  # of the covered steps a+1..k
    cdef Py_ssize_t tail = k + 1 + merge_stop  # the first step kept after the block
    cdef Py_ssize_t delta = shift + split_stop - merge_stop  # of the tail
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


cdef inline Py_ssize_t add_block(long long[::1] times, long long[::1] free, Py_ssize_t count, long long t, long long stop, long long delta, long long capacity) noexcept:
    """``delta`` more free processors over ``[t, stop)`` (:meth:`Profile.add`; ``delta < 0``
    takes a block, ``delta > 0`` gives one back), the steps kept canonical: the new count, or
    -1 (nothing changed) if a step would leave ``0..capacity`` or ``t`` is before the first
    instant.  The buffers need room for two more steps."""
    cdef Py_ssize_t a
    cdef Py_ssize_t k
    cdef Py_ssize_t x
    cdef long long lo
    cdef long long hi
    if stop <= t or delta == 0:
        return count
    a = index(times, t, count)
    if a < 0:
        return -1
    k = index(times, stop - 1, count)
    lo = free[a]
    hi = lo
    for x in range(a + 1, k + 1):
        if free[x] < lo:
            lo = free[x]
        elif free[x] > hi:
            hi = free[x]
    if (lo + delta < 0) if delta < 0 else (hi + delta > capacity):
        return -1
    return take_shifted(&times[0], &free[0], count, a, k, t, stop, -delta)


cdef inline long long earliest_move(long long[::1] times, long long[::1] free, Py_ssize_t count, long long start, long long d, long long n, long long t) noexcept:
    """The earliest start in ``[t, start]`` of a block of ``n`` processors for ``d`` that is
    in the profile from ``start`` (:meth:`Profile.earliest_move`; ``t`` not before the first
    instant): from ``start`` on the block holds its own processors, so only the steps that
    begin before ``start`` must hold ``n``."""
    cdef Py_ssize_t before = index(times, start - 1, count) + 1  # steps [0, before): before start
    cdef Py_ssize_t i = index(times, t, count)
    cdef long long candidate = t
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


@cython.final
cdef class Steps:
    cdef long long[::1] times
    cdef long long[::1] free
    cdef readonly Py_ssize_t size
    cdef readonly long long capacity
    cdef long long[::1] out
    cpdef tuple lists(self)
    cpdef Steps copy(self)
    cdef void _grow(self, Py_ssize_t room)
    cpdef long long origin(self)
    cpdef long long origin_free(self)
    cpdef void advance(self, long long now)
    cpdef bint add(self, long long start, long long end, long long delta)
    cpdef long long earliest_start(self, long long n, long long d, long long t)
    cpdef long long earliest_move(self, long long start, long long d, long long n, long long t)
    cpdef bint move(self, long long start, long long new_start, long long d, long long n)
    cdef bint _shift(self, long long take_from, long long take_to, long long back_from, long long back_to, long long n)
    cpdef long long free_at(self, long long t)
    cpdef long long free_over(self, long long a, long long b)
    cpdef long long max_free_over(self, long long a, long long b)
