"""The conservative and FCFS quote kernels: the price of a slot (Figure 22 of G. Singh's PhD
thesis, USC 2008, §5.1: the delay, in processor-seconds, that inserting the slot causes to the
queued jobs) at every candidate start of :meth:`scheduler.pricing.price.SiteQuote.price` under
conservative backfilling (Mu'alem & Feitelson 2001: every job, in queue order, at its earliest
start beside every block before it) and under FCFS (a job starts no earlier than the one ahead).

Plain Python *and* the source of a C extension, like :mod:`scheduler.cluster._kernel`:
``setup.py`` compiles it with Cython in pure-Python mode (the annotations become C types;
``cython.compiled`` is True only in the extension) and :mod:`scheduler._native` loads the
extension only when it was built from exactly this file, else this file.

A re-plan works on a profile of its own (the steps ``times``/``free``, ``count`` of them) in
buffers made by :func:`~scheduler.pricing._steps.buffer`: fixed-size C arrays of 64-bit
integers in the extension (typed memoryviews: no Python int is made or read in the loop),
plain lists in the pure source (they grow and shrink with the profile) — the same code
indexes both, through the step operations of :mod:`scheduler.pricing._steps`.  The few
``if cython.compiled:`` branches compute the same thing as the plain lines beside them;
tests/scheduler/test_pricing_quote_fast.py and tests/scheduler/test_pricing_plus40.py run
both against each other and against :meth:`~scheduler.pricing.price.SiteQuote.price_naive`.
Times and processor counts must fit in 62 bits.

Conservative (:func:`replan`, :func:`delays`): a re-plan starts from the no-slot plan's prefix
before the first job whose block meets the slot and searches each later job's earliest start
only where it can be (:func:`_replan`).  :func:`first_options` answers eq. 20 at α = 0 and
α = 1 without pricing every start (:func:`scheduler.pricing.workload.pick`).

FCFS (:class:`FcfsQueue`, :func:`fcfs_delays`): the plan's state at a job (the profile from the
start of the job ahead on) is small, so it is kept at every ``2**_SHIFT``-th job, and a re-plan
stops as soon as its state is the plan's moved later, or a previous re-plan's.  :func:`replan`,
:func:`delays` and :func:`first_options` still take ``fcfs`` (the prefix re-plan is exact under
FCFS too: :func:`scheduler.pricing.workload.pick` uses it at α = 0 and 1, and the tests
compare).

Measurements behind these choices: bench/results/kernels-history.txt.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

try:
    import cython
except ImportError:  # no Cython installed: the same source runs uncompiled
    from scheduler._native import cython_shim as cython
try:  # compiled: the steps are shifted by C's memmove
    from cython.cimports.libc.string import memmove
except (ImportError, AttributeError):  # uncompiled (Cython's shadow module raises the
    pass  # latter): lists shift themselves
if cython.compiled:  # the profile's steps: C functions (scheduler/pricing/_steps.pxd)
    from cython.cimports.scheduler.pricing._steps import (
        copy_values,
        earliest_window,
        index,
        insert_step,
        least_free,
        load_steps,
        move_steps,
        reserve,
        take_block,
    )

    from scheduler.pricing._steps import buffer  # (a Python function)
else:  # their pure source (a build's functions take C arrays, not lists)
    from scheduler._native import load_pure

    _steps = load_pure("scheduler.pricing._steps", "scheduler.pricing._steps_pure")
    buffer, index, insert_step = _steps.buffer, _steps.index, _steps.insert_step
    least_free, reserve, take_block = _steps.least_free, _steps.reserve, _steps.take_block
    earliest_window, load_steps = _steps.earliest_window, _steps.load_steps

__all__ = ["FcfsQueue", "Queue", "buffer", "delays", "fcfs_delays", "first_options", "replan"]

#: while nothing has moved, up to this many jobs keeping their starts between two that meet
#: the slot are inserted one by one; more, and the re-plan restarts from the prefix
_GAP = 4


class Queue:
    """The no-slot plan of a queue as :func:`replan` reads it, built once per site state from
    the base profile's lists and the queue's ``procs``, ``durs`` and no-slot ``starts``.

    Buffers (:func:`buffer`) of the jobs' ``procs``, ``durs``, ``starts``, ``reach`` — the end
    of the job's block, or the instant after its start for a job of no duration (it holds no
    block but needs its processors free at its start: a slot over that instant meets it) —
    and ``below`` (see :func:`_dominated`); ``zeros``: the starts of the jobs of no duration,
    sorted; the *prefixes*: the steps of base + the no-slot blocks of the first ``j`` jobs,
    for every ``j`` — compiled, all in the two buffers ``pt``/``pf`` (prefix ``j`` at
    ``off[j]:off[j + 1]``: a few arrays, nothing for the garbage collector to scan), else
    lists of lists; ``size``: room for any re-plan's profile (the base's steps + 2 per job +
    2 for the slot).
    """

    def __init__(
        self, base_times: list, base_free: list, procs: list, durs: list, starts: list
    ) -> None:
        m = len(procs)
        self.m = m
        self.procs = buffer(procs, m)
        self.durs = buffer(durs, m)
        self.starts = buffer(starts, m)
        self.reach = buffer([v + max(d, 1) for v, d in zip(starts, durs, strict=True)], m)
        self.zeros = sorted(v for v, d in zip(starts, durs, strict=True) if d == 0)
        self.below = buffer(_dominated(procs, durs), m)
        self.size = len(base_times) + 2 * m + 4
        self.pt = self.pf = self.off = None
        _prefixes(self, base_times, base_free)


@cython.ccall
@cython.wraparound(False)
@cython.boundscheck(False)
def _dominated(procs: list, durs: list) -> list:
    """``below[k]``: the nearest job ahead of ``k`` asking no more processors and no longer
    (-1: none).  Any window that fits ``k`` fits it too, and a re-plan only takes room away
    as it goes, so ``k`` cannot start before it (see :func:`replan`)."""
    m: cython.Py_ssize_t = len(procs)
    k: cython.Py_ssize_t
    j: cython.Py_ssize_t
    q: cython.longlong
    dq: cython.longlong
    qj: cython.longlong
    dj: cython.longlong
    below: list = [-1] * m
    for k in range(m):
        q = procs[k]
        dq = durs[k]
        for j in range(k - 1, max(-1, k - 65), -1):  # a short look back is enough
            qj = procs[j]
            dj = durs[j]
            if qj <= q and dj <= dq:
                below[k] = j
                break
    return below


@cython.ccall
@cython.wraparound(False)
@cython.boundscheck(False)
def _prefixes(queue: Queue, base_times: list, base_free: list) -> cython.void:
    """Fill ``queue.pt``, ``queue.pf`` (and ``queue.off``) with the no-slot plan's prefixes."""
    m: cython.Py_ssize_t = queue.m
    procs: cython.longlong[::1] = queue.procs
    durs: cython.longlong[::1] = queue.durs
    starts: cython.longlong[::1] = queue.starts
    times: cython.longlong[::1] = buffer([], queue.size)
    free: cython.longlong[::1] = buffer([], queue.size)
    prefix_off: cython.longlong[::1]
    prefix_times: cython.longlong[::1]
    prefix_free: cython.longlong[::1]
    nsteps: cython.Py_ssize_t
    j: cython.Py_ssize_t
    x: cython.Py_ssize_t
    o: cython.Py_ssize_t
    if not cython.compiled:
        nsteps = _load(times, free, base_times, base_free)
        queue.pt = [times.copy()]
        queue.pf = [free.copy()]
        for j in range(m):
            nsteps = reserve(times, free, nsteps, starts[j], starts[j] + durs[j], procs[j])
            queue.pt.append(times.copy())
            queue.pf.append(free.copy())
        return
    # compiled: the lengths first, then the steps, into arrays of the exact size
    queue.off = buffer([], m + 2)
    prefix_off = queue.off
    nsteps = _load(times, free, base_times, base_free)
    prefix_off[0] = 0
    for j in range(m):
        prefix_off[j + 1] = prefix_off[j] + nsteps
        nsteps = reserve(times, free, nsteps, starts[j], starts[j] + durs[j], procs[j])
    prefix_off[m + 1] = prefix_off[m] + nsteps
    queue.pt = buffer([], prefix_off[m + 1])
    queue.pf = buffer([], prefix_off[m + 1])
    prefix_times = queue.pt
    prefix_free = queue.pf
    nsteps = _load(times, free, base_times, base_free)
    for j in range(m + 1):
        o = prefix_off[j]
        for x in range(nsteps):
            prefix_times[o + x] = times[x]
            prefix_free[o + x] = free[x]
        if j < m:
            nsteps = reserve(times, free, nsteps, starts[j], starts[j] + durs[j], procs[j])


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _restart(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    prefix_times: cython.longlong[::1],
    prefix_free: cython.longlong[::1],
    prefix_off: cython.longlong[::1],
    j: cython.Py_ssize_t,
) -> cython.Py_ssize_t:
    """Copy prefix ``j`` into the buffers; returns its number of steps."""
    o: cython.Py_ssize_t
    nsteps: cython.Py_ssize_t
    size: cython.Py_ssize_t
    if cython.compiled:
        o = prefix_off[j]
        nsteps = prefix_off[j + 1] - o
        size = nsteps * cython.sizeof(cython.longlong)
        if nsteps > 0:
            memmove(cython.address(times[0]), cython.address(prefix_times[o]), size)
            memmove(cython.address(free[0]), cython.address(prefix_free[o]), size)
    else:
        times[:] = prefix_times[j]
        free[:] = prefix_free[j]
        nsteps = len(times)
    return nsteps


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _load(
    times: cython.longlong[::1], free: cython.longlong[::1], from_times: list, from_free: list
) -> cython.Py_ssize_t:
    """Copy the steps of a profile's lists into the buffers; returns their number."""
    x: cython.Py_ssize_t
    nsteps: cython.Py_ssize_t = len(from_times)
    if cython.compiled:
        for x in range(nsteps):
            times[x] = from_times[x]
            free[x] = from_free[x]
    else:
        times[:] = from_times
        free[:] = from_free
    return nsteps


@cython.ccall
def replan(
    queue: Queue,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    s: cython.longlong,
    e: cython.longlong,
    n: cython.longlong,
    now: cython.longlong,
    fcfs: cython.bint,
) -> cython.longlong:
    """The fast path of :meth:`~scheduler.pricing.price.SiteQuote.price` (conservative or
    FCFS): the delay the slot ``n`` over ``[s, e)`` causes (see :func:`_replan`)."""
    return _replan(queue, times, free, new_starts, buffer([], 1), s, e, n, now, fcfs, False)


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _replan(
    queue: Queue,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    ends: cython.longlong[::1],
    s: cython.longlong,
    e: cython.longlong,
    n: cython.longlong,
    now: cython.longlong,
    fcfs: cython.bint,
    probe: cython.bint,
) -> cython.longlong:
    """The fast path of :meth:`~scheduler.pricing.price.SiteQuote.price` (conservative or
    FCFS): the delay the slot ``n`` over ``[s, e)`` causes, re-planning the queue ``queue`` from the
    first job whose block meets it (``times``, ``free``: buffers of ``queue.size``, ``new_starts``
    of ``queue.m``, ``ends`` of 1, overwritten).

    One loop with the earliest-start search (:meth:`Profile.earliest_start`'s scan, from
    where the answer can be: see :mod:`scheduler.pricing.price`; FCFS from the job ahead's
    start) and the block's insertion inlined: the search ends on the steps the block covers,
    so inserting it needs no second lookup.  While nothing has moved, the jobs between two
    that meet the slot keep their starts: their blocks are inserted as planned (a few) or the
    plan restarts from the prefix (many).

    ``probe``: only whether the delay is 0 — the re-plan stops at the first job that moves
    (it moves later: before anything has moved the profile has only lost room), returning
    a positive part of the delay.
    """
    m: cython.Py_ssize_t = queue.m
    procs: cython.longlong[::1] = queue.procs
    durs: cython.longlong[::1] = queue.durs
    starts: cython.longlong[::1] = queue.starts
    reach: cython.longlong[::1] = queue.reach
    below: cython.longlong[::1] = queue.below
    prefix_times: cython.longlong[::1] = queue.pt
    prefix_free: cython.longlong[::1] = queue.pf
    prefix_off: cython.longlong[::1] = queue.off
    nsteps: cython.Py_ssize_t = 0
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    a: cython.Py_ssize_t = 0
    k: cython.Py_ssize_t = 0
    x: cython.Py_ssize_t
    last: cython.Py_ssize_t
    bj: cython.Py_ssize_t
    q: cython.longlong
    dq: cython.longlong
    v: cython.longlong
    t: cython.longlong = 0
    lb: cython.longlong
    jump: cython.longlong
    stop: cython.longlong = 0
    delay: cython.longlong = 0
    last_t: cython.longlong = now
    u_lo: cython.longlong = e  # the surplus span: old blocks of the jobs that moved (none yet)
    u_hi: cython.longlong = e
    moved: cython.bint = False
    found: cython.bint
    have: cython.bint = False
    # C: this re-plan's starts (the no-slot ones until re-planned)
    if cython.compiled:
        for x in range(m):
            new_starts[x] = starts[x]
    else:
        new_starts[:m] = starts
    i = 0
    while i < m:
        if not moved:
            j = i  # the next job whose no-slot block meets the slot
            while j < m and (starts[j] >= e or reach[j] <= s):
                j += 1
            if j == m:
                break  # no later job meets the slot and nothing moved: all keep their starts
            if not have or j - i > _GAP:
                # jobs ..j-1 keep their starts: the plan so far is prefix[j] + the slot
                nsteps = _restart(times, free, prefix_times, prefix_free, prefix_off, j)
                nsteps = reserve(times, free, nsteps, s, e, n)
                have = True
            else:
                for x in range(i, j):  # a few jobs keep their starts: their blocks as planned
                    nsteps = reserve(times, free, nsteps, starts[x], starts[x] + durs[x], procs[x])
            i = j
        q = procs[i]
        dq = durs[i]
        v = starts[i]
        last = nsteps - 1
        # ---- the earliest start t of q processors over dq, and the step a holding it
        found = False
        if fcfs:
            t = now
            if i > 0:  # FCFS: not before the job ahead (whose start is `last_t` once
                t = max(now, last_t if moved else starts[i - 1])  # anything has moved)
            a = index(times, t, nsteps)
        else:
            # a lower bound: the start of the nearest job ahead that is no bigger (the
            # profile only loses room as the re-plan goes on, and whatever window fits this
            # job fits that one)
            bj = below[i]
            lb = now if bj < 0 else new_starts[bj]
            if u_lo < u_hi:  # phase 1: windows meeting the surplus span, starting before v
                t = max(now, min(v, u_lo - max(dq, 1) + 1), lb)
                jump = min(u_hi, v)
                a = index(times, t, nsteps)
                k = a
                stop = t + dq
                while t < jump:
                    if free[k] < q:
                        k += 1
                        a = k
                        t = times[k]
                        stop = t + dq
                    elif k == last or times[k + 1] >= stop:
                        found = True
                        break
                    else:
                        k += 1
            if not found:  # phase 2: from v on (no window in [jump, v) can fit)
                if u_lo >= u_hi or t < v or t < lb:
                    t = v if v >= lb else lb
                    a = index(times, t, nsteps)
                # else phase 1 stopped at t (step a) past max(v, lb), having tried every
                # start from one before it: the search goes on from there
        if not found:
            # the search from t (step a holds t); on return, steps a..k hold the block
            x = earliest_window(times, free, nsteps, a, q, dq, t, ends)
            t = t if x == a else times[x]
            a = x
            k = ends[0]
            stop = t + dq
        # ---- take q processors over [t, stop)
        nsteps = take_block(times, free, nsteps, a, k, t, stop, q)
        last_t = t
        new_starts[i] = t
        if t != v:
            moved = True
            if t > v:
                delay += (t - v) * q
                if probe:
                    return delay
            if dq > 0:  # its old block is room freed (a job of no duration held none)
                if v < u_lo:
                    u_lo = v
                if v + dq > u_hi:
                    u_hi = v + dq
        i += 1
    return delay


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _free_over(times: list, free: list, a: cython.longlong, b: cython.longlong) -> cython.longlong:
    """Minimum free processors over ``[a, b)`` (``a < b``): :meth:`Profile.free_over`."""
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    hi: cython.Py_ssize_t = len(times)
    lo: cython.Py_ssize_t = 0
    mid: cython.Py_ssize_t
    least: cython.longlong
    f: cython.longlong
    tj: cython.longlong
    if not cython.compiled:
        i = bisect_right(times, a) - 1
        j = bisect_left(times, b, i + 1)
        return free[i] if j == i + 1 else min(free[i:j])
    while lo < hi:
        mid = (lo + hi) >> 1
        tj = times[mid]
        if a < tj:
            hi = mid
        else:
            lo = mid + 1
    i = lo - 1
    least = free[i]
    for j in range(i + 1, len(times)):
        tj = times[j]
        if tj >= b:
            break
        f = free[j]
        if f < least:
            least = f
    return least


@cython.ccall
def delays(
    queue: Queue,
    base_times: list,
    base_free: list,
    plan_times: list,
    plan_free: list,
    cands: list,
    n: cython.longlong,
    d: cython.longlong,
    now: cython.longlong,
    fcfs: cython.bint,
) -> list:
    """:meth:`~scheduler.pricing.price.SiteQuote.price` of the slot ``n`` over ``[s, s + d)``
    at every start ``s`` of ``cands`` (conservative or FCFS): None where it does not fit
    beside the running jobs and reservations (``base_*``), 0 in a hole of the no-slot plan
    (``plan_*``) that holds the start of no job of no duration, else :func:`replan`'s
    delay."""
    out: list = []
    s: cython.longlong
    times = buffer([], queue.size)
    free = buffer([], queue.size)
    new_starts = buffer([], queue.m)
    ends = buffer([], 1)  # (earliest_window's second result)
    zeros: list = queue.zeros
    for s in cands:
        if _free_over(base_times, base_free, s, s + d) < n:
            out.append(None)
        elif _free_over(plan_times, plan_free, s, s + d) >= n and not (
            zeros and bisect_left(zeros, s) < bisect_left(zeros, s + d)
        ):
            out.append(0)
        else:
            out.append(_replan(queue, times, free, new_starts, ends, s, s + d, n, now, fcfs, False))
    return out


@cython.ccall
def first_options(
    queue: Queue,
    base_times: list,
    base_free: list,
    plan_times: list,
    plan_free: list,
    cands: list,
    n: cython.longlong,
    d: cython.longlong,
    now: cython.longlong,
    fcfs: cython.bint,
    zero: cython.bint,
) -> tuple:
    """What eq. 20 needs of :func:`delays`' answer at α = 0 and α = 1 without pricing every
    start: ``(count, first, first_free, least)`` — how many starts of ``cands`` are feasible, the
    index of the first feasible one, and (with ``zero``) of the first feasible one whose
    delay is 0 (-1: none), each tested by a re-plan that stops at the first job that moves;
    ``least``: a lower bound on the delays of the feasible starts before that one (the
    least delay found when their re-plans stopped; 0 if there are none)."""
    i: cython.Py_ssize_t
    s: cython.longlong
    f: cython.longlong
    count: cython.Py_ssize_t = 0
    first: cython.Py_ssize_t = -1
    first_free: cython.Py_ssize_t = -1
    least: cython.longlong = 0
    times = buffer([], queue.size)
    free = buffer([], queue.size)
    new_starts = buffer([], queue.m)
    ends = buffer([], 1)  # (earliest_window's second result)
    zeros: list = queue.zeros
    for i in range(len(cands)):
        s = cands[i]
        if _free_over(base_times, base_free, s, s + d) < n:
            continue
        count += 1
        if first < 0:
            first = i
        if zero and first_free < 0:
            if _free_over(plan_times, plan_free, s, s + d) >= n and not (
                zeros and bisect_left(zeros, s) < bisect_left(zeros, s + d)
            ):
                first_free = i
            else:
                f = _replan(queue, times, free, new_starts, ends, s, s + d, n, now, fcfs, True)
                if f == 0:
                    first_free = i
                elif least == 0 or f < least:
                    least = f
    return count, first, first_free, least


# ---------------------------------------------------------------------------------------- FCFS

#: FCFS: the no-slot plan's state is kept at every ``2**_SHIFT``-th job (:class:`FcfsQueue`),
#: and a re-plan compares its own state with it there (:func:`fcfs_delays`): every 32nd (less
#: often, fewer checks and kept states; more often, earlier stops)
_SHIFT = 5
#: room for a re-plan's state kept for the next re-plans of a quote (:func:`fcfs_delays`)
_ROOM = 64


class FcfsQueue:
    """The no-slot FCFS plan of a queue, played by the kernel from the base profile's lists
    and the queue's ``procs`` and ``durs`` (``now``: no job starts before it), as
    :func:`fcfs_delays` reads it.

    ``starts`` (a list: v_q, what :func:`scheduler.pricing.plan.plan_fcfs` gives) and buffers
    (:func:`buffer`) of the jobs' ``procs``, ``durs``, ``starts``, ``reach`` (the end of the job's
    block, or the instant after its start for a job of no duration), ``rmax`` (the largest reach of
    the jobs up to each), ``qsum`` (``qsum[j]``: the processors of jobs ``j..m-1``) and the
    *states*: under FCFS job ``j`` starts at the earliest instant from its *floor* (the start of the
    job ahead, ``now`` for the first) where the profile has room for it, so the plan of jobs ``j..``
    depends only on the floor and on the profile from the floor on (base + the blocks of the jobs
    ahead, none of which starts after the floor).  That profile, its first step clipped to the
    floor, is kept for every ``2**shift``-th job ``j``: state ``j >> shift`` at ``coff[..]:coff[.. +
    1]`` of ``ct`` and ``cf`` (a few steps each, where a whole prefix of the plan has ~2 per job
    ahead).  ``vq[j]``: the sum of ``(start - now)·procs`` of jobs ``j..m-1`` (sums of starts from
    ``now``: far from 63 bits with Unix times); ``rise``: the last instant the base profile falls (a
    reservation starts), ``now`` if none; ``room``: how many steps of a re-plan's state
    :func:`fcfs_delays` keeps; ``size``: room for any re-plan's profile; ``pt``/``pf``: the steps of
    the plan's profile (base + every block), None when a job is of no duration (a slot in a hole of
    it delays nobody).
    """

    def __init__(
        self,
        base_times: list,
        base_free: list,
        procs: list,
        durs: list,
        now: int,
        shift: int = _SHIFT,
        room: int = _ROOM,
    ) -> None:
        m = len(procs)
        self.m = m
        self.now = now
        self.procs = buffer(procs, m)
        self.durs = buffer(durs, m)
        self.size = len(base_times) + 2 * m + 8
        self.starts_buf = buffer([], m)
        self.reach = buffer([], m)
        self.rmax = buffer([], m)
        self.qsum = buffer([], m + 1)
        self.vq = buffer([], m + 1)
        self.shift = shift
        self.room = room
        self.coff = buffer([], (m >> shift) + 2)
        self.ct = self.cf = None
        self.pt = self.pf = None  # the plan's profile (steps), when no job is of no duration
        self.spare = None  # (and the spare processors at each job's start)
        # the last instant a block of the base starts (where its profile falls)
        self.rise = max(
            [now] + [t for i, t in enumerate(base_times) if i and base_free[i] < base_free[i - 1]]
        )
        _fcfs_plan(self, base_times, base_free)
        self.starts = list(self.starts_buf)


@cython.cfunc
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _holding(
    times: cython.longlong[::1], nsteps: cython.Py_ssize_t, a: cython.Py_ssize_t, t: cython.longlong
) -> cython.Py_ssize_t:
    """The step holding ``t`` just after a block from ``t`` was taken at step ``a`` (the
    step holding ``t`` before): ``a``, or ``a + 1`` after a split at ``t``, or ``a - 1``
    after a merge there."""
    if a + 1 < nsteps and times[a + 1] <= t:
        return a + 1
    if times[a] > t:
        return a - 1
    return a


@cython.ccall
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.cdivision(True)
def _fcfs_plan(queue: FcfsQueue, base_times: list, base_free: list) -> cython.void:
    """Play the no-slot FCFS plan (``queue.starts_buf``, ``reach``, ``rmax``, ``qsum``), then
    play it again from its starts to keep its states (``queue.ct``, ``queue.cf``,
    ``queue.coff``)."""
    m: cython.Py_ssize_t = queue.m
    now: cython.longlong = queue.now
    procs: cython.longlong[::1] = queue.procs
    durs: cython.longlong[::1] = queue.durs
    starts: cython.longlong[::1] = queue.starts_buf
    reach: cython.longlong[::1] = queue.reach
    rmax: cython.longlong[::1] = queue.rmax
    qsum: cython.longlong[::1] = queue.qsum
    vq: cython.longlong[::1] = queue.vq
    coff: cython.longlong[::1] = queue.coff
    times: cython.longlong[::1] = buffer([], queue.size)
    free: cython.longlong[::1] = buffer([], queue.size)
    ends: cython.longlong[::1] = buffer([], 1)  # (earliest_window's second result)
    kept_times: cython.longlong[::1]
    kept_free: cython.longlong[::1]
    plan_times: cython.longlong[::1]
    plan_free: cython.longlong[::1]
    spare: cython.longlong[::1]
    nsteps: cython.Py_ssize_t
    h: cython.Py_ssize_t = 0
    a: cython.Py_ssize_t
    j: cython.Py_ssize_t
    x: cython.Py_ssize_t
    o: cython.Py_ssize_t
    q: cython.longlong
    dq: cython.longlong
    t: cython.longlong
    floor: cython.longlong = now
    top: cython.longlong = now
    shift: cython.Py_ssize_t = queue.shift
    every: cython.Py_ssize_t = 1 << shift
    # ---- the plan; the size of each kept state
    nsteps = _load(times, free, base_times, base_free)
    coff[0] = 0
    for j in range(m):
        if (j & (every - 1)) == 0:
            coff[(j >> shift) + 1] = coff[j >> shift] + (nsteps - h)
        q = procs[j]
        dq = durs[j]
        # the earliest start from the floor (step h holds it)
        a = earliest_window(times, free, nsteps, h, q, dq, floor, ends)
        t = floor if a == h else times[a]
        nsteps = take_block(times, free, nsteps, a, ends[0], t, t + dq, q)
        h = _holding(times, nsteps, a, t)
        floor = t
        starts[j] = t
        reach[j] = t + (dq if dq > 0 else 1)
        if reach[j] > top:
            top = reach[j]
        rmax[j] = top
    qsum[m] = 0
    vq[m] = 0
    for j in range(m - 1, -1, -1):
        qsum[j] = qsum[j + 1] + procs[j]
        vq[j] = vq[j + 1] + (starts[j] - now) * procs[j]
    # ---- the plan's profile (a slot in a hole of it delays nobody), when every job holds
    # a block (one of no duration needs its processors at its start, beside no block)
    queue.pt = None
    queue.pf = None
    if 0 not in queue.durs:
        queue.pt = buffer([], nsteps)
        queue.pf = buffer([], nsteps)
        plan_times = queue.pt
        plan_free = queue.pf
        for x in range(nsteps):
            plan_times[x] = times[x]
            plan_free[x] = free[x]
        # and each job's spare processors at its start beside a slot there: the plan's free
        # ones, and those of the later jobs starting with it
        queue.spare = buffer([], m)
        spare = queue.spare
        x = 0
        for j in range(m):
            while x + 1 < nsteps and times[x + 1] <= starts[j]:
                x += 1
            spare[j] = free[x]
        top = 0
        for j in range(m - 2, -1, -1):
            top = top + procs[j + 1] if starts[j + 1] == starts[j] else 0
            spare[j] += top
    # ---- the states, played again from the starts
    queue.ct = buffer([], coff[((m - 1) >> shift) + 1] if m > 0 else 0)
    queue.cf = buffer([], coff[((m - 1) >> shift) + 1] if m > 0 else 0)
    kept_times = queue.ct
    kept_free = queue.cf
    nsteps = _load(times, free, base_times, base_free)
    h = 0
    floor = now
    for j in range(m):
        if (j & (every - 1)) == 0:
            o = coff[j >> shift]
            for x in range(h, nsteps):
                kept_times[o + x - h] = times[x]
                kept_free[o + x - h] = free[x]
            kept_times[o] = floor
        t = starts[j]
        nsteps = reserve(times, free, nsteps, t, t + durs[j], procs[j])
        h = index(times, t, nsteps)
        floor = t


@cython.cfunc
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _same_state(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    h: cython.Py_ssize_t,
    kept_times: cython.longlong[::1],
    kept_free: cython.longlong[::1],
    o: cython.Py_ssize_t,
    size: cython.Py_ssize_t,
    shift: cython.longlong,
) -> cython.bint:
    """Whether the steps ``h..nsteps-1`` (step ``h`` clipped to the floor) are the kept state at
    ``o`` (of ``size`` steps) moved ``shift`` later."""
    i: cython.Py_ssize_t
    if nsteps - h != size or free[h] != kept_free[o]:
        return False
    for i in range(1, size):
        if times[h + i] - shift != kept_times[o + i] or free[h + i] != kept_free[o + i]:
            return False
    return True


@cython.cfunc
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _release(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    b: cython.Py_ssize_t,
    t: cython.longlong,
    r: cython.longlong,
) -> cython.Py_ssize_t:
    """Add ``r`` processors released at ``t`` to the releases ``b..nsteps-1`` (sorted by time,
    one per instant); returns the new ``nsteps``."""
    lo: cython.Py_ssize_t = b
    hi: cython.Py_ssize_t = nsteps
    mid: cython.Py_ssize_t
    while lo < hi:  # the first release at or after t
        mid = (lo + hi) >> 1
        if times[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    if lo < nsteps and times[lo] == t:
        free[lo] += r
        return nsteps
    if not cython.compiled:
        return insert_step(times, free, nsteps, lo, t, r)
    move_steps(cython.address(times[0]), cython.address(free[0]), lo + 1, lo, nsteps - lo)
    times[lo] = t
    free[lo] = r
    return nsteps + 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _first_meeting(
    rmax: cython.longlong[::1], m: cython.Py_ssize_t, s: cython.longlong
) -> cython.Py_ssize_t:
    """FCFS: the first job whose block meets a slot from ``s`` (``rmax``: the largest reach of
    the jobs up to each, which never decreases); ``m``: none."""
    lo: cython.Py_ssize_t = 0
    hi: cython.Py_ssize_t = m
    mid: cython.Py_ssize_t
    while lo < hi:
        mid = (lo + hi) >> 1
        if rmax[mid] > s:
            hi = mid
        else:
            lo = mid + 1
    return lo


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _first_mover(
    procs: cython.longlong[::1],
    starts: cython.longlong[::1],
    reach: cython.longlong[::1],
    m: cython.Py_ssize_t,
    base_times: list,
    base_free: list,
    spare: cython.longlong[::1],
    j0: cython.Py_ssize_t,
    s: cython.longlong,
    e: cython.longlong,
    n: cython.longlong,
) -> cython.Py_ssize_t:
    """FCFS, no block of the base starting after ``s``: the first of the ``m`` jobs of the plan
    (``procs``, ``starts``, ``reach``: :class:`FcfsQueue`'s) the slot ``n`` over ``[s, e)``
    moves, from ``j0`` (the first whose block meets it) on; ``m``: none.  Until it
    the re-plan is the plan and the slot, whose profile from a job's floor on only rises but
    for the slot's start.  A job that starts by the slot's start keeps its start if its block
    misses the slot, or if the base's free processors at the slot's start hold the slot and
    the blocks there of the jobs up to it (``used``); one that starts later (and before the
    slot's end) if its spare processors at its start (``spare``: the plan's free ones, and the
    later jobs' starting with it) hold the slot."""
    lim: cython.longlong = _free_over(base_times, base_free, s, s + 1) - n
    used: cython.longlong = 0
    k: cython.Py_ssize_t = j0
    while k < m and starts[k] <= s:
        if reach[k] > s:
            used += procs[k]
            if used > lim:
                break
        k += 1
    if k == m or starts[k] > s:
        while k < m and starts[k] < e and spare[k] >= n:
            k += 1
        if k < m and starts[k] >= e:
            return m
    return k


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _next_meeting(
    starts: cython.longlong[::1],
    reach: cython.longlong[::1],
    m: cython.Py_ssize_t,
    j: cython.Py_ssize_t,
    s: cython.longlong,
    e: cython.longlong,
) -> cython.Py_ssize_t:
    """FCFS, nothing moved yet: the first job from ``j`` on whose block meets the slot over
    ``[s, e)`` (``j`` itself when it does); ``m`` when none does before a job starts at ``e``
    or later (then every job keeps its start)."""
    k: cython.Py_ssize_t = j
    while k < m and starts[k] < e and reach[k] <= s:
        k += 1
    return m if k == m or starts[k] >= e else k


@cython.ccall
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.cdivision(True)
def fcfs_delays(
    queue: FcfsQueue,
    base_times: list,
    base_free: list,
    cands: list,
    n: cython.longlong,
    d: cython.longlong,
) -> list:
    """:meth:`~scheduler.pricing.price.SiteQuote.price` of the slot ``n`` over ``[s, s + d)``
    at every start ``s`` of ``cands`` under FCFS: None where it does not fit beside the
    running jobs and reservations (``base_*``), else the delay it causes to the queue ``queue``.

    Adding the slot only delays (by induction: from the floor on the slot plan's profile
    holds the base, the slot and the blocks of the jobs ahead, each starting no earlier than
    in the plan and so ending no earlier: it has no more room than the plan's, and its floor
    is no earlier), so the delay is ``Σ (v'_q - v_q)·n_q``.  The jobs ahead of the first one
    whose block meets the slot keep their starts (``rmax`` finds it): the re-plan starts
    from the kept state at or before it, inserting the blocks in between as planned, and the
    slot; while nothing has moved, a job whose block misses the slot keeps its start, and
    once no later job starts before the slot's end everything keeps its start.  Once
    something has moved, every ``2**shift``-th job compares the re-plan's state (the
    profile from its floor on) with the plan's kept state: when it is the same moved ``δ``
    later (δ = the difference of the floors; 0 included), every later job starts ``δ``
    later, as its start depends only on that state, and the rest of the delay is
    ``δ·qsum[j]``.  Likewise with the state the last re-plan of this call (the starts are
    re-planned from the latest: they end sooner) had at that job, kept with the sum ``W`` of
    ``(start - floor)·procs`` of the jobs from there on once that re-plan ended: the rest of
    the delay is ``(floor - now)·qsum[j] + W - vq[j]``.  (A re-plan whose state differs from both
    keeps its own in that place, when it has at most ``room`` steps.)

    A slot in a hole of the plan (``queue.pt``/``queue.pf``: at least ``n`` processors free over
    ``[s, e)`` beside every block) costs 0 without a re-plan: every job had room beside every
    later block, so beside the slot too (kept only when no job is of no duration: such a
    job needs its processors at its start, beside no block).

    Once no block starts after the floor the profile only rises and is kept as its releases,
    in place: ``at_floor`` processors at the floor, ``free[x]`` more from ``times[x]`` on
    (``b <= x < nsteps``); a job starts where the releases first give it room (the room only
    grows after: its duration does not matter) and its block is one more release, at its
    end.  When no block of the base starts after the kept state's floor (``queue.rise``), the
    re-plan is kept so from the start: the slot is a release at its end and, while the
    floor is before its start, a fall there; a job then starts where the releases first
    give it room before the slot's start if its block has room beside the slot there too
    (the free processors at the slot's start are those at the floor, the releases up to
    it, kept summed in ``pre``, less the slot's: the room only grows on either side of
    it), else where they give it room from the slot's start on.  (Before the slot's start
    nothing has moved — a job that moves goes to the slot's start or later, ending this —
    so a job searched for there starts where it did and its block, meeting the slot, runs
    into its start.)  Otherwise
    (a reservation of the base ahead) the re-plan searches the profile (steps ``times``/``free``)
    while a block starts after the floor, then goes on on the releases.  While nothing has
    moved, a job whose block misses the slot is not searched for, and when the next job
    whose block meets the slot is a few past a kept state, the re-plan starts again from
    there (the kept state, the slot, the jobs up to it).
    """
    out: list = [None] * len(cands)
    m: cython.Py_ssize_t = queue.m
    now: cython.longlong = queue.now
    procs: cython.longlong[::1] = queue.procs
    durs: cython.longlong[::1] = queue.durs
    starts: cython.longlong[::1] = queue.starts_buf
    reach: cython.longlong[::1] = queue.reach
    rmax: cython.longlong[::1] = queue.rmax
    qsum: cython.longlong[::1] = queue.qsum
    vq: cython.longlong[::1] = queue.vq
    coff: cython.longlong[::1] = queue.coff
    kept_times: cython.longlong[::1] = queue.ct
    kept_free: cython.longlong[::1] = queue.cf
    # (compiled: twice the room, the releases from a kept state placed from ``head`` on, so a
    # new release can move the ones before it back into the consumed ones' room)
    head: cython.Py_ssize_t = queue.size if cython.compiled else 0
    times: cython.longlong[::1] = buffer([], 2 * queue.size)
    free: cython.longlong[::1] = buffer([], 2 * queue.size)
    ends: cython.longlong[::1] = buffer([], 1)  # (earliest_window's second result)
    base_rise: cython.longlong = queue.rise
    shift: cython.Py_ssize_t = queue.shift
    every: cython.Py_ssize_t = 1 << shift
    room: cython.Py_ssize_t = queue.room
    holes: cython.bint = queue.pt is not None
    plan_times: cython.longlong[::1] = queue.pt if holes else kept_times
    plan_free: cython.longlong[::1] = queue.pf if holes else kept_free
    plan_nsteps: cython.Py_ssize_t = len(queue.pt) if holes else 0
    spare: cython.longlong[::1] = queue.spare if holes else kept_times
    nc: cython.Py_ssize_t = (m >> shift) + 1
    # the last state a re-plan of this call had at each kept job (free processors at its floor, then
    # its releases; last_floor: the floor; last_rest: the sum of (start - floor)·procs of the jobs
    # from there on)
    last_times: cython.longlong[::1] = buffer([], nc * room)
    last_free: cython.longlong[::1] = buffer([], nc * room)
    last_size: cython.longlong[::1] = buffer([], nc)
    last_floor: cython.longlong[::1] = buffer([], nc)  # (and its floor)
    last_rest: cython.longlong[::1] = buffer([], nc)
    rec_at: cython.longlong[::1] = buffer([], nc)  # the states this re-plan kept: where, its sum
    rec_sum: cython.longlong[::1] = buffer([], nc)  # of start·procs before, its floor ...
    rec_floor: cython.longlong[::1] = buffer([], nc)
    rec_size: cython.longlong[::1] = buffer([], nc)  # ... and its size
    nrec: cython.Py_ssize_t
    c: cython.Py_ssize_t
    i: cython.Py_ssize_t
    acc: cython.longlong
    tail: cython.longlong
    hit: cython.bint
    nsteps: cython.Py_ssize_t
    h: cython.Py_ssize_t
    a: cython.Py_ssize_t
    k: cython.Py_ssize_t
    j: cython.Py_ssize_t
    j0: cython.Py_ssize_t
    lo: cython.Py_ssize_t
    hi: cython.Py_ssize_t
    mid: cython.Py_ssize_t
    o: cython.Py_ssize_t
    size: cython.Py_ssize_t
    x: cython.Py_ssize_t
    b: cython.Py_ssize_t
    q: cython.longlong
    dq: cython.longlong
    v: cython.longlong
    t: cython.longlong
    stop: cython.longlong
    floor: cython.longlong
    rise: cython.longlong
    at_floor: cython.longlong
    s: cython.longlong
    e: cython.longlong
    delay: cython.longlong
    moved: cython.bint
    done: cython.bint
    rel: cython.bint
    dropping: cython.bint
    keep: cython.bint
    pre: cython.longlong
    pstop: cython.longlong
    plo: cython.Py_ssize_t
    for i in range(len(cands) - 1, -1, -1):  # the latest first: their re-plans are short
        s = cands[i]
        e = s + d
        if _free_over(base_times, base_free, s, e) < n:
            continue
        delay = 0
        moved = False
        done = False
        j0 = _first_meeting(rmax, m, s)
        if j0 == m or starts[j0] >= e:
            out[i] = 0  # no job's block meets the slot: all keep their starts
            continue
        if holes and least_free(plan_times, plan_free, 0, plan_nsteps, s, e) >= n:
            # a hole of the plan: every job had room beside every later block, so beside
            # the slot too, and keeps its start
            out[i] = 0
            continue
        if holes and s >= base_rise:
            j0 = _first_mover(procs, starts, reach, m, base_times, base_free, spare, j0, s, e, n)
            if j0 == m:
                out[i] = 0  # none moves
                continue
        # ---- the kept state at or before it, the slot (nothing before the state's floor
        # matters, and the plan so far had room for it), the jobs up to j0 as planned
        rise = s if s > base_rise else base_rise
        rel = False
        while True:
            j = (j0 >> shift) << shift
            o = coff[j >> shift]
            size = coff[(j >> shift) + 1] - o
            if kept_times[o] >= base_rise:
                # ---- no block of the base starts after the kept state's floor: its profile
                # only rises, kept as its releases; the slot is one more (at its end) and,
                # while the floor is before its start, a fall there (``pre``: the releases
                # after the floor up to it)
                rel = True
                floor = kept_times[o]
                at_floor = kept_free[o]
                if cython.compiled:
                    for x in range(1, size):
                        times[head + x - 1] = kept_times[o + x]
                        free[head + x - 1] = kept_free[o + x] - kept_free[o + x - 1]
                else:
                    times[:] = kept_times[o + 1 : o + size]
                    free[:] = [kept_free[o + x] - kept_free[o + x - 1] for x in range(1, size)]
                nsteps = head + size - 1
                b = head
                nsteps = _release(times, free, nsteps, b, e, n)
                dropping = s > floor
                pre = 0
                if dropping:
                    x = b
                    while x < nsteps and times[x] <= s:
                        pre += free[x]
                        x += 1
                else:
                    at_floor -= n
                while j < m:  # the jobs up to j0 as planned, then while the slot is ahead
                    q = procs[j]
                    dq = durs[j]
                    v = starts[j]
                    keep = j < j0
                    if not keep:
                        if not dropping:
                            break
                        if not moved:
                            k = _next_meeting(starts, reach, m, j, s, e)
                            if k == m:
                                done = True  # nothing moved and no later job meets the slot
                                break
                            if k > j:  # its block misses the slot: it keeps its start
                                if k - j > (k & (every - 1)) + 2:
                                    j0 = k  # from the kept state nearer to it
                                    break
                                keep = True
                    if not keep:
                        # the earliest start: where the releases give room before the
                        # slot's start if the block has room beside the slot there too, else
                        # where they give room from its start on (before it, nothing has
                        # moved: the job starts where it did, and its block meets the slot)
                        while at_floor < q and b < nsteps and times[b] < s:
                            at_floor += free[b]
                            pre -= free[b]
                            floor = times[b]
                            b += 1
                        if at_floor < q or at_floor + pre - n < q:
                            while b < nsteps and times[b] <= s:
                                at_floor += free[b]
                                b += 1
                            at_floor -= n
                            floor = s
                            dropping = False
                            while at_floor < q:  # (the last release frees the machine)
                                at_floor += free[b]
                                floor = times[b]
                                b += 1
                        if dq > 0 and q > 0:
                            at_floor -= q
                            nsteps = _release(times, free, nsteps, b, floor + dq, q)
                        if floor != v:
                            moved = True
                            delay += (floor - v) * q
                        j += 1
                        continue
                    # keeps its start (one kept past the slot's start, before the first
                    # job that moves, leaves its fall pending, as if it were yet to come:
                    # that job has no room at its floor beside the slot, so its search
                    # takes the fall in before it looks further)
                    while b < nsteps and times[b] <= v:
                        at_floor += free[b]
                        pre -= free[b]
                        b += 1
                    floor = v
                    if dq > 0 and q > 0:
                        at_floor -= q
                        if v + dq <= s:
                            pre += q
                        nsteps = _release(times, free, nsteps, b, v + dq, q)
                    j += 1
                if done or j == m or not dropping:
                    break
                continue  # (from the kept state nearer to j0)
            nsteps = load_steps(times, free, kept_times, kept_free, o, size)
            nsteps = reserve(times, free, nsteps, s if s > times[0] else times[0], e, n)
            while j < j0:
                t = starts[j]
                nsteps = reserve(times, free, nsteps, t, t + durs[j], procs[j])
                j += 1
            floor = now if j0 == 0 else starts[j0 - 1]
            h = index(times, floor, nsteps)
            # ---- the re-plan on the profile, while a block starts after the floor
            while j < m and floor < rise:
                q = procs[j]
                dq = durs[j]
                v = starts[j]
                if not moved:
                    k = _next_meeting(starts, reach, m, j, s, e)
                    if k == m:
                        done = True  # nothing moved and no later job meets the slot
                        break
                    if k > j:  # its block misses the slot: it keeps its start
                        if k - j > (k & (every - 1)) + 2:
                            j0 = k  # from the kept state nearer to it (fewer blocks to add)
                            break
                        nsteps = reserve(times, free, nsteps, v, v + dq, q)
                        h = index(times, v, nsteps)
                        floor = v
                        j += 1
                        continue
                elif (j & (every - 1)) == 0:
                    o = coff[j >> shift]
                    if _same_state(
                        times,
                        free,
                        nsteps,
                        h,
                        kept_times,
                        kept_free,
                        o,
                        coff[(j >> shift) + 1] - o,
                        floor - kept_times[o],
                    ):
                        delay += (floor - kept_times[o]) * qsum[
                            j
                        ]  # every later job moves as the floor
                        done = True
                        break
                # the earliest start from the floor (step h holds it)
                a = earliest_window(times, free, nsteps, h, q, dq, floor, ends)
                t = floor if a == h else times[a]
                nsteps = take_block(times, free, nsteps, a, ends[0], t, t + dq, q)
                h = _holding(times, nsteps, a, t)
                floor = t
                if t != v:
                    moved = True
                    delay += (t - v) * q
                j += 1
            if done or j == m or floor >= rise:
                break  # (else from the kept state nearer to j0)
        if done or j == m:
            out[i] = delay
            continue
        # ---- then every block has started by the floor: the releases
        if not rel:
            x = nsteps - 1
            while x > h:
                free[x] -= free[x - 1]
                x -= 1
            at_floor = free[h]
            b = h + 1
        nrec = 0
        acc = 0
        tail = 0
        pstop = floor  # (the last new release's instant, at plo: none yet, no block ends here)
        plo = b
        while j < m:
            q = procs[j]
            dq = durs[j]
            v = starts[j]
            if not moved:
                if v >= e:
                    tail = vq[j]
                    break  # nothing moved and no later job meets the slot
            elif (j & (every - 1)) == 0:
                o = coff[j >> shift]
                if _same_releases(
                    times,
                    free,
                    nsteps,
                    b,
                    at_floor,
                    kept_times,
                    kept_free,
                    o,
                    coff[(j >> shift) + 1] - o,
                    floor - kept_times[o],
                ):
                    delay += (floor - kept_times[o]) * qsum[j]  # every later job moves as the floor
                    tail = vq[j] + (floor - kept_times[o]) * qsum[j]
                    break
                # the state the last re-plan had here?  Then the jobs from here on start as
                # there, from this floor
                c = j >> shift
                size = nsteps - b + 1
                o = c * room
                hit = last_size[c] == size and last_free[o] == at_floor
                x = 1
                t = floor - last_floor[c]  # (times kept as they were: compared moved by the floors)
                while hit and x < size:
                    hit = (
                        times[b + x - 1] - last_times[o + x] == t
                        and last_free[o + x] == free[b + x - 1]
                    )
                    x += 1
                if hit:
                    tail = (floor - now) * qsum[j] + last_rest[c]
                    delay += tail - vq[j]
                    break
                if (
                    size <= room
                ):  # keep this state (last_size, last_rest: when this re-plan ends; no
                    # re-plan reads them before, this one being past them)
                    last_free[o] = at_floor
                    last_floor[c] = floor
                    if cython.compiled:
                        copy_values(
                            cython.address(last_times[o + 1]), cython.address(times[b]), size - 1
                        )
                        copy_values(
                            cython.address(last_free[o + 1]), cython.address(free[b]), size - 1
                        )
                    else:
                        last_times[o + 1 : o + size] = times[b:nsteps]
                        last_free[o + 1 : o + size] = free[b:nsteps]
                    rec_at[nrec] = c
                    rec_sum[nrec] = acc
                    rec_floor[nrec] = floor
                    rec_size[nrec] = size
                    nrec += 1
            if at_floor < q:  # (the last release frees the whole machine)
                while True:
                    at_floor += free[b]
                    floor = times[b]
                    b += 1
                    if at_floor >= q:
                        break
            if dq > 0 and q > 0:
                at_floor -= q
                stop = floor + dq
            if dq > 0 and q > 0 and stop == pstop:
                # at the last new release's instant (often, on deep queues): it
                # is still at plo (every later step either adds to it or moves it: then plo
                # follows), after the floor, so not consumed
                free[plo] += q
            elif dq > 0 and q > 0:
                pstop = stop
                # the first release at or after the block's end (_release, written out;
                # compiled without branches to mispredict, as index)
                lo = b
                if cython.compiled:
                    hi = nsteps - b  # the answer is in [lo, lo + hi]
                    if hi >= 4:  # (most land among the first four: compared at once)
                        mid = (
                            (times[lo] < stop)
                            + (times[lo + 1] < stop)
                            + (times[lo + 2] < stop)
                            + (times[lo + 3] < stop)
                        )
                        lo += mid
                        hi = 0 if mid < 4 else hi - 4
                        # at or after the latest release: found without the search
                        if hi > 0 and times[nsteps - 1] <= stop:
                            lo = nsteps - (times[nsteps - 1] == stop)
                            hi = 0
                    if hi > 0:
                        while hi > 1:
                            mid = hi >> 1
                            lo = lo + mid if times[lo + mid - 1] < stop else lo
                            hi -= mid
                        if times[lo] < stop:
                            lo += 1
                else:
                    lo = bisect_left(times, stop, b, nsteps)
                plo = lo
                if lo < nsteps and times[lo] == stop:
                    free[lo] += q
                elif b > 0 and lo - b < 4:
                    # among the first four (most land there): the releases before
                    # it move one place forward, into a consumed release's room (compiled:
                    # the four places written at once, without a branch or a call)
                    if cython.compiled:
                        mid = lo - b
                        times[b - 1] = times[b] if mid > 0 else stop
                        free[b - 1] = free[b] if mid > 0 else q
                        times[b] = times[b + 1] if mid > 1 else (stop if mid == 1 else times[b])
                        free[b] = free[b + 1] if mid > 1 else (q if mid == 1 else free[b])
                        times[b + 1] = (
                            times[b + 2] if mid > 2 else (stop if mid == 2 else times[b + 1])
                        )
                        free[b + 1] = free[b + 2] if mid > 2 else (q if mid == 2 else free[b + 1])
                        times[b + 2] = stop if mid == 3 else times[b + 2]
                        free[b + 2] = q if mid == 3 else free[b + 2]
                    else:
                        for x in range(b, lo):
                            times[x - 1] = times[x]
                            free[x - 1] = free[x]
                        times[lo - 1] = stop
                        free[lo - 1] = q
                    b -= 1
                    plo = lo - 1
                elif cython.compiled:  # (_shift, written out: the loop's hottest call)
                    if lo < nsteps:
                        x = (nsteps - lo) * cython.sizeof(cython.longlong)
                        memmove(cython.address(times[lo + 1]), cython.address(times[lo]), x)
                        memmove(cython.address(free[lo + 1]), cython.address(free[lo]), x)
                    times[lo] = stop
                    free[lo] = q
                    nsteps += 1
                else:
                    nsteps = insert_step(times, free, nsteps, lo, stop, q)
            if floor != v:
                moved = True
                delay += (floor - v) * q
            acc += (floor - now) * q
            j += 1
        for x in range(nrec):  # what the states kept lead to
            c = rec_at[x]
            last_rest[c] = acc + tail - rec_sum[x] - (rec_floor[x] - now) * qsum[c << shift]
            last_size[c] = rec_size[x]
        out[i] = delay
    return out


@cython.cfunc
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _same_releases(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    b: cython.Py_ssize_t,
    at_floor: cython.longlong,
    kept_times: cython.longlong[::1],
    kept_free: cython.longlong[::1],
    o: cython.Py_ssize_t,
    size: cython.Py_ssize_t,
    shift: cython.longlong,
) -> cython.bint:
    """:func:`_same_state` of a profile kept as its releases (``at_floor`` at the floor, ``free[x]``
    more from ``times[x]`` on, ``b <= x < nsteps``)."""
    i: cython.Py_ssize_t
    acc: cython.longlong = at_floor
    if nsteps - b + 1 != size or at_floor != kept_free[o]:
        return False
    for i in range(1, size):
        acc += free[b + i - 1]
        if times[b + i - 1] - shift != kept_times[o + i] or acc != kept_free[o + i]:
            return False
    return True
