# cython: initializedcheck=False, boundscheck=False, wraparound=False
"""The conservative and FCFS quote kernels: the price of a slot (Figure 22 of G. Singh's PhD
thesis, USC 2008, §5.1: the delay, in processor-seconds, that inserting the slot causes to the
queued jobs) at every candidate start of :meth:`scheduler.pricing.price.SiteQuote.price` under
conservative backfilling (Mu'alem & Feitelson 2001: every job, in queue order, at its earliest
start beside every block before it) and under FCFS (a job starts no earlier than the one ahead).

Plain Python *and* the source of a C extension, like :mod:`scheduler.cluster._compress`:
``setup.py`` compiles it with Cython in pure-Python mode (the annotations become C types;
``cython.compiled`` is True only in the extension) and :mod:`scheduler._native` loads the
extension only when it was built from exactly this file, else this file.  Compiler
directives: the ``# cython:`` line above turns bounds checks, negative-index wraparound and the
views' initialization checks off for the whole module (every index is within its buffer and
not negative).

A re-plan works on a profile of its own (the steps ``times``/``free``, ``count`` of them) in
buffers made by :func:`~scheduler.cluster._steps.buffer`: fixed-size C arrays of 64-bit
integers in the extension (typed memoryviews: no Python int is made or read in the loop),
plain lists in the pure source (they grow and shrink with the profile) — the same code
indexes both, through the step operations of :mod:`scheduler.cluster._steps`.  The few
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

from bisect import bisect_left

try:
    import cython
except ImportError:  # no Cython installed: the same source runs uncompiled
    from scheduler._native import cython_shim as cython
if cython.compiled:  # the profile's steps: C functions (scheduler/cluster/_steps.pxd)
    from cython.cimports.scheduler.cluster._steps import (
        copy_run,
        earliest_window,
        holding_near,
        index,
        insert_step,
        least_free,
        load_steps,
        move_steps,
        reserve,
        take_block,
    )

    from scheduler.cluster._steps import buffer  # (a Python function)
else:  # their pure source (a build's functions take C arrays, not lists)
    from scheduler._native import load_pure

    _steps = load_pure("scheduler.cluster._steps", "scheduler.cluster._steps_pure")
    buffer, index, insert_step = _steps.buffer, _steps.index, _steps.insert_step
    least_free, reserve, take_block = _steps.least_free, _steps.reserve, _steps.take_block
    earliest_window, load_steps = _steps.earliest_window, _steps.load_steps
    copy_run, holding_near = _steps.copy_run, _steps.holding_near

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
    for every ``j``, all in the two buffers ``pt``/``pf`` (prefix ``j`` at
    ``off[j]:off[j + 1]``: a few arrays, nothing for the garbage collector to scan); ``size``:
    room for any re-plan's profile (the base's steps + 2 per job + 2 for the slot); ``room``:
    the room a slot finds beside the base and in the holes of the plan (the last prefix).
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
        plan = slice(self.off[m], self.off[m + 1])  # base + every block: the no-slot plan
        self.room = _Room(base_times, base_free, self.pt[plan], self.pf[plan], self.zeros)


@cython.ccall
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
def _prefixes(queue: Queue, base_times: list, base_free: list) -> cython.void:
    """Fill ``queue.pt``, ``queue.pf`` and ``queue.off`` with the no-slot plan's prefixes: the
    plan played for their sizes, then again to copy them into buffers of those sizes."""
    m: cython.Py_ssize_t = queue.m
    procs: cython.longlong[::1] = queue.procs
    durs: cython.longlong[::1] = queue.durs
    starts: cython.longlong[::1] = queue.starts
    times: cython.longlong[::1] = buffer([], queue.size)
    free: cython.longlong[::1] = buffer([], queue.size)
    prefix_off: cython.longlong[::1] = buffer([], m + 2)
    prefix_times: cython.longlong[::1]
    prefix_free: cython.longlong[::1]
    nsteps: cython.Py_ssize_t = _load(times, free, base_times, base_free)
    j: cython.Py_ssize_t
    for j in range(m):
        prefix_off[j + 1] = prefix_off[j] + nsteps
        nsteps = reserve(times, free, nsteps, starts[j], starts[j] + durs[j], procs[j])
    prefix_off[m + 1] = prefix_off[m] + nsteps
    queue.off = prefix_off
    queue.pt = buffer([], prefix_off[m + 1])
    queue.pf = buffer([], prefix_off[m + 1])
    prefix_times = queue.pt
    prefix_free = queue.pf
    nsteps = _load(times, free, base_times, base_free)
    for j in range(m + 1):
        copy_run(prefix_times, prefix_off[j], times, 0, nsteps)
        copy_run(prefix_free, prefix_off[j], free, 0, nsteps)
        if j < m:
            nsteps = reserve(times, free, nsteps, starts[j], starts[j] + durs[j], procs[j])


@cython.cfunc
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
    FCFS): the delay the slot ``n`` over ``[s, e)`` causes (see :func:`_replan`).

    One loop with the earliest-start search (:func:`_earliest_start`), which ends on the
    steps the block covers, so inserting it needs no second lookup.  While nothing has moved,
    the jobs between two that meet the slot keep their starts: their blocks are inserted as
    planned (a few) or the plan restarts from the prefix (many)."""
    return _replan(queue, times, free, new_starts, buffer([], 2), s, e, n, now, fcfs, False)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _lower_bound(
    i: cython.Py_ssize_t,
    now: cython.longlong,
    fcfs: cython.bint,
    moved: cython.bint,
    last_t: cython.longlong,
    starts: cython.longlong[::1],
    below: cython.longlong[::1],
    new_starts: cython.longlong[::1],
) -> cython.longlong:
    """No start of job ``i`` in a re-plan is earlier than this.  FCFS: the start of the job
    ahead (``last_t`` once anything moved, else its no-slot start).  Conservative: the start
    of the nearest job ahead that is no bigger (``below``; the profile only loses room as the
    re-plan goes on, and whatever window fits this job fits that one)."""
    smaller: cython.Py_ssize_t
    if fcfs:
        return now if i == 0 else max(now, last_t if moved else starts[i - 1])
    smaller = below[i]
    return now if smaller < 0 else max(now, new_starts[smaller])


@cython.cfunc
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
    of ``queue.m``, ``ends`` of 2, overwritten), as :func:`replan` describes.  ``probe``: only
    whether the delay is 0 — the re-plan stops at the first job that moves (it moves later:
    before anything has moved the profile has only lost room), returning a positive part of
    the delay."""
    m: cython.Py_ssize_t = queue.m
    procs: cython.longlong[::1] = queue.procs
    durs: cython.longlong[::1] = queue.durs
    starts: cython.longlong[::1] = queue.starts
    reach: cython.longlong[::1] = queue.reach
    below: cython.longlong[::1] = queue.below
    prefix_times: cython.longlong[::1] = queue.pt
    prefix_free: cython.longlong[::1] = queue.pf
    prefix_off: cython.longlong[::1] = queue.off
    nsteps: cython.Py_ssize_t = 0  # (none yet: the plan so far not built)
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    width: cython.longlong
    dur: cython.longlong
    planned: cython.longlong
    start: cython.longlong = 0
    floor: cython.longlong
    delay: cython.longlong = 0
    last_t: cython.longlong = now
    u_lo: cython.longlong = e  # the surplus span: old blocks of the jobs that moved (none yet)
    u_hi: cython.longlong = e
    moved: cython.bint = False
    copy_run(
        new_starts, 0, starts, 0, m
    )  # this re-plan's starts: the no-slot ones until re-planned
    i = 0
    while i < m:
        if not moved:
            j = _next_meeting(starts, reach, i, m, s, e)
            if j == m:
                break  # no later job meets the slot and nothing moved: all keep their starts
            nsteps = _keep_starts(
                times, free, nsteps, prefix_times, prefix_free, prefix_off, procs, durs, starts,
                i, j, s, e, n,
            )  # fmt: skip
            i = j
        width = procs[i]
        dur = durs[i]
        planned = starts[i]
        floor = _lower_bound(i, now, fcfs, moved, last_t, starts, below, new_starts)
        start = _earliest_start(
            times, free, nsteps, width, dur, planned, floor, u_lo, u_hi, fcfs, ends
        )
        # ---- take width processors over [start, start + dur) (steps ends[1]..ends[0])
        nsteps = take_block(times, free, nsteps, ends[1], ends[0], start, start + dur, width)
        last_t = start
        new_starts[i] = start
        if start != planned:
            moved = True
            if start > planned:
                delay += (start - planned) * width
                if probe:
                    return delay
            if dur > 0:  # its old block is room freed (a job of no duration held none)
                if planned < u_lo:
                    u_lo = planned
                if planned + dur > u_hi:
                    u_hi = planned + dur
        i += 1
    return delay


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _next_meeting(
    starts: cython.longlong[::1],
    reach: cython.longlong[::1],
    i: cython.Py_ssize_t,
    m: cython.Py_ssize_t,
    s: cython.longlong,
    e: cython.longlong,
) -> cython.Py_ssize_t:
    """The first job from ``i`` on whose no-slot block meets the slot over ``[s, e)`` (starts
    before ``e``, reaches past ``s``); ``m`` if none does."""
    while i < m and (starts[i] >= e or reach[i] <= s):
        i += 1
    return i


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _keep_starts(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    prefix_times: cython.longlong[::1],
    prefix_free: cython.longlong[::1],
    prefix_off: cython.longlong[::1],
    procs: cython.longlong[::1],
    durs: cython.longlong[::1],
    starts: cython.longlong[::1],
    i: cython.Py_ssize_t,
    j: cython.Py_ssize_t,
    s: cython.longlong,
    e: cython.longlong,
    n: cython.longlong,
) -> cython.Py_ssize_t:
    """Nothing has moved and jobs ``i..j-1`` keep their starts (:func:`_replan`): their blocks
    as planned (a few, onto the plan so far) or the plan so far is prefix ``j`` + the slot
    (many, or no plan yet: ``nsteps`` 0); returns the number of steps."""
    x: cython.Py_ssize_t
    if nsteps == 0 or j - i > _GAP:
        nsteps = prefix_off[j + 1] - prefix_off[j]
        load_steps(times, free, prefix_times, prefix_free, prefix_off[j], nsteps)
        return reserve(times, free, nsteps, s, e, n)
    for x in range(i, j):
        nsteps = reserve(times, free, nsteps, starts[x], starts[x] + durs[x], procs[x])
    return nsteps


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _earliest_start(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    width: cython.longlong,
    dur: cython.longlong,
    planned: cython.longlong,
    floor: cython.longlong,
    u_lo: cython.longlong,
    u_hi: cython.longlong,
    fcfs: cython.bint,
    ends: cython.longlong[::1],
) -> cython.longlong:
    """The earliest start, from ``floor`` on, of ``width`` processors over ``dur`` in a re-plan of
    :func:`_replan` (:meth:`Profile.earliest_start`'s scan, from where the answer can be: see
    :mod:`scheduler.pricing.price`); ``ends[1]``, ``ends[0]``: the first and the top step the
    block covers.  FCFS: from ``floor``, the job ahead's start.  Conservative (Mu'alem &
    Feitelson 2001), the job planned at ``planned`` without the slot: only windows meeting the
    surplus span ``[u_lo, u_hi)`` (the old blocks of the jobs that moved) can start before
    ``planned`` (phase 1); else from ``planned`` on (phase 2: no window in ``[min(u_hi,
    planned), planned)`` fits).  ``floor``: no earlier than ``now``."""
    start: cython.longlong = floor
    first: cython.Py_ssize_t = -1
    step: cython.Py_ssize_t
    found: cython.Py_ssize_t
    top: cython.Py_ssize_t = nsteps - 1  # the last step
    jump: cython.longlong
    end: cython.longlong
    if not fcfs:
        if u_lo < u_hi:  # phase 1: windows meeting the surplus span, starting before planned
            start = max(floor, min(planned, u_lo - max(dur, 1) + 1))
            jump = min(u_hi, planned)
            first = index(times, start, nsteps)
            step = first
            end = start + dur
            while start < jump:
                if free[step] < width:
                    step += 1
                    first = step
                    start = times[step]
                    end = start + dur
                elif step == top or times[step + 1] >= end:
                    ends[1] = first
                    ends[0] = step
                    return start
                else:
                    step += 1
        # phase 2: from planned on; or, when phase 1 stopped at start (step first) past
        # max(planned, floor), having tried every start from one before it, on from there
        if u_lo >= u_hi or start < planned or start < floor:
            start = planned if planned >= floor else floor
            first = -1
    if first < 0:
        first = index(times, start, nsteps)
    # the search from start (step first holds it); on return, steps found..ends[0] hold the block
    found = earliest_window(times, free, nsteps, first, width, dur, start, ends)
    ends[1] = found
    return start if found == first else times[found]


@cython.final
@cython.cclass
class _Room:
    """The room a slot finds at a candidate start: beside the running jobs and reservations
    (the base profile ``base_*``), and in a hole of the no-slot plan (its profile ``plan_*``,
    none: no hole test) that holds the start of no job of no duration (``zeros``, sorted: such
    a job needs its processors at its start, beside no block)."""

    base_times: cython.longlong[::1]
    base_free: cython.longlong[::1]
    plan_times: cython.longlong[::1]
    plan_free: cython.longlong[::1]
    nbase: cython.Py_ssize_t
    nplan: cython.Py_ssize_t
    zeros: list

    def __init__(self, base_times, base_free, plan_times, plan_free, zeros: list) -> None:  # type: ignore[no-untyped-def]
        self.nbase = len(base_times)
        self.base_times = buffer(list(base_times), self.nbase)
        self.base_free = buffer(list(base_free), self.nbase)
        self.nplan = 0 if plan_times is None else len(plan_times)
        self.plan_times = buffer(list(plan_times or []), self.nplan)
        self.plan_free = buffer(list(plan_free or []), self.nplan)
        self.zeros = zeros

    @cython.cfunc
    @cython.exceptval(check=False)
    def beside_base(self, s: cython.longlong, e: cython.longlong) -> cython.longlong:
        """The fewest free processors over ``[s, e)`` beside the running jobs and reservations
        (:meth:`Profile.free_over`)."""
        return least_free(self.base_times, self.base_free, 0, self.nbase, s, e)

    @cython.cfunc
    @cython.exceptval(check=False)
    def in_a_hole(self, s: cython.longlong, e: cython.longlong, n: cython.longlong) -> cython.bint:
        """Whether ``n`` processors over ``[s, e)`` are a hole of the no-slot plan: free there
        beside every block, and no job of no duration starts there."""
        if self.nplan == 0 or least_free(self.plan_times, self.plan_free, 0, self.nplan, s, e) < n:
            return False
        return not (self.zeros and bisect_left(self.zeros, s) < bisect_left(self.zeros, e))


@cython.ccall
def delays(
    queue: Queue,
    cands: list,
    n: cython.longlong,
    d: cython.longlong,
    now: cython.longlong,
    fcfs: cython.bint,
) -> list:
    """:meth:`~scheduler.pricing.price.SiteQuote.price` of the slot ``n`` over ``[s, s + d)``
    at every start ``s`` of ``cands`` (conservative or FCFS): None where it does not fit
    beside the running jobs and reservations (the base), 0 in a hole of the no-slot plan
    that holds the start of no job of no duration (``queue.room``), else :func:`replan`'s
    delay."""
    out: list = []
    s: cython.longlong
    room: _Room = queue.room
    times = buffer([], queue.size)
    free = buffer([], queue.size)
    new_starts = buffer([], queue.m)
    ends = buffer([], 2)  # (the steps a block found covers: _earliest_start)
    for s in cands:
        if room.beside_base(s, s + d) < n:
            out.append(None)
        elif room.in_a_hole(s, s + d, n):
            out.append(0)
        else:
            out.append(_replan(queue, times, free, new_starts, ends, s, s + d, n, now, fcfs, False))
    return out


@cython.ccall
def first_options(
    queue: Queue,
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
    room: _Room = queue.room
    times = buffer([], queue.size)
    free = buffer([], queue.size)
    new_starts = buffer([], queue.m)
    ends = buffer([], 2)  # (the steps a block found covers: _earliest_start)
    for i in range(len(cands)):
        s = cands[i]
        if room.beside_base(s, s + d) < n:
            continue
        count += 1
        if first < 0:
            first = i
        if zero and first_free < 0:
            if room.in_a_hole(s, s + d, n):
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
    it delays nobody); ``holes``: the room a slot finds beside the base and in those holes.
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
        self.holes = _Room(base_times, base_free, self.pt, self.pf, [])  # (pt None: no holes)


@cython.ccall
def _fcfs_plan(queue: FcfsQueue, base_times: list, base_free: list) -> cython.void:
    """Play the no-slot FCFS plan (``queue.starts_buf``, ``reach``, ``rmax``, ``qsum``, ``vq``),
    keep its profile (:func:`_plan_profile`), then play it again from its starts to keep its
    states (:func:`_keep_states`)."""
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
    nsteps: cython.Py_ssize_t
    h: cython.Py_ssize_t = 0  # the step holding the floor
    step: cython.Py_ssize_t
    j: cython.Py_ssize_t
    dur: cython.longlong
    floor: cython.longlong = now  # the start of the job ahead
    top: cython.longlong = now
    shift: cython.Py_ssize_t = queue.shift
    every: cython.Py_ssize_t = 1 << shift
    # ---- the plan; the size of each kept state
    nsteps = _load(times, free, base_times, base_free)
    coff[0] = 0
    for j in range(m):
        if (j & (every - 1)) == 0:
            coff[(j >> shift) + 1] = coff[j >> shift] + (nsteps - h)
        dur = durs[j]
        # the earliest start from the floor (step h holds it)
        step = earliest_window(times, free, nsteps, h, procs[j], dur, floor, ends)
        floor = floor if step == h else times[step]
        nsteps = take_block(times, free, nsteps, step, ends[0], floor, floor + dur, procs[j])
        h = holding_near(times, nsteps, step, floor)
        starts[j] = floor
        reach[j] = floor + (dur if dur > 0 else 1)
        if reach[j] > top:
            top = reach[j]
        rmax[j] = top
    qsum[m] = 0
    vq[m] = 0
    for j in range(m - 1, -1, -1):
        qsum[j] = qsum[j + 1] + procs[j]
        vq[j] = vq[j + 1] + (starts[j] - now) * procs[j]
    _plan_profile(queue, times, free, nsteps)
    _keep_states(queue, times, free, base_times, base_free)


@cython.cfunc
@cython.exceptval(check=False)
def _plan_profile(
    queue: FcfsQueue,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
) -> cython.void:
    """The plan's profile (``queue.pt``/``queue.pf``: a slot in a hole of it delays nobody) and
    each job's spare processors at its start beside a slot there (``queue.spare``: the plan's
    free ones, and those of the later jobs starting with it), when every job holds a block
    (one of no duration needs its processors at its start, beside no block)."""
    m: cython.Py_ssize_t = queue.m
    procs: cython.longlong[::1] = queue.procs
    starts: cython.longlong[::1] = queue.starts_buf
    plan_times: cython.longlong[::1]
    plan_free: cython.longlong[::1]
    spare: cython.longlong[::1]
    x: cython.Py_ssize_t
    j: cython.Py_ssize_t
    along: cython.longlong = 0  # the processors of the later jobs starting with job j
    queue.pt = None
    queue.pf = None
    if 0 in queue.durs:
        return
    queue.pt = buffer([], nsteps)
    queue.pf = buffer([], nsteps)
    plan_times = queue.pt
    plan_free = queue.pf
    for x in range(nsteps):
        plan_times[x] = times[x]
        plan_free[x] = free[x]
    queue.spare = buffer([], m)
    spare = queue.spare
    x = 0
    for j in range(m):
        while x + 1 < nsteps and times[x + 1] <= starts[j]:
            x += 1
        spare[j] = free[x]
    for j in range(m - 2, -1, -1):
        along = along + procs[j + 1] if starts[j + 1] == starts[j] else 0
        spare[j] += along


@cython.cfunc
@cython.exceptval(check=False)
def _keep_states(
    queue: FcfsQueue,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    base_times: list,
    base_free: list,
) -> cython.void:
    """The plan's state at every ``2**shift``-th job (``queue.ct``/``queue.cf``, at
    ``queue.coff``): the profile from its floor on, its first step clipped to the floor,
    played again from the plan's starts (``times``/``free``: work buffers)."""
    m: cython.Py_ssize_t = queue.m
    procs: cython.longlong[::1] = queue.procs
    durs: cython.longlong[::1] = queue.durs
    starts: cython.longlong[::1] = queue.starts_buf
    coff: cython.longlong[::1] = queue.coff
    shift: cython.Py_ssize_t = queue.shift
    every: cython.Py_ssize_t = 1 << shift
    kept_times: cython.longlong[::1]
    kept_free: cython.longlong[::1]
    nsteps: cython.Py_ssize_t
    h: cython.Py_ssize_t = 0
    j: cython.Py_ssize_t
    x: cython.Py_ssize_t
    o: cython.Py_ssize_t
    floor: cython.longlong = queue.now
    queue.ct = buffer([], coff[((m - 1) >> shift) + 1] if m > 0 else 0)
    queue.cf = buffer([], coff[((m - 1) >> shift) + 1] if m > 0 else 0)
    kept_times = queue.ct
    kept_free = queue.cf
    nsteps = _load(times, free, base_times, base_free)
    for j in range(m):
        if (j & (every - 1)) == 0:
            o = coff[j >> shift]
            for x in range(h, nsteps):
                kept_times[o + x - h] = times[x]
                kept_free[o + x - h] = free[x]
            kept_times[o] = floor
        floor = starts[j]
        nsteps = reserve(times, free, nsteps, floor, floor + durs[j], procs[j])
        h = index(times, floor, nsteps)


@cython.cfunc
@cython.inline
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
    lo: cython.Py_ssize_t = _release_index(times, b, nsteps, t)  # the first at or after t
    if lo < nsteps and times[lo] == t:
        free[lo] += r
        return nsteps
    return _insert_release(times, free, nsteps, lo, t, r)


@cython.cfunc
def _first_mover(
    procs: cython.longlong[::1],
    starts: cython.longlong[::1],
    reach: cython.longlong[::1],
    m: cython.Py_ssize_t,
    room: _Room,
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
    lim: cython.longlong = room.beside_base(s, s + 1) - n
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


@cython.ccall
def fcfs_delays(
    queue: FcfsQueue,
    cands: list,
    n: cython.longlong,
    d: cython.longlong,
) -> list:
    """:meth:`~scheduler.pricing.price.SiteQuote.price` of the slot ``n`` over ``[s, s + d)``
    at every start ``s`` of ``cands`` under FCFS (Figure 22 of G. Singh's thesis: the delay
    the slot causes to the queued jobs): None where it does not fit beside the running jobs
    and reservations (the base), else the delay it causes to the queue ``queue``.

    Adding the slot only delays (by induction: from the floor on the slot plan's profile
    holds the base, the slot and the blocks of the jobs ahead, each starting no earlier than
    in the plan and so ending no earlier: it has no more room than the plan's, and its floor
    is no earlier), so the delay is ``Σ (v'_q - v_q)·n_q``.  The jobs ahead of the first one
    whose block meets the slot keep their starts (``rmax`` finds it).  A slot in a hole of
    the plan (``queue.pt``/``queue.pf``: at least ``n`` processors free over ``[s, e)``
    beside every block) costs 0 without a re-plan: every job had room beside every later
    block, so beside the slot too (kept only when no job is of no duration: such a job needs
    its processors at its start, beside no block).  Else :meth:`_FcfsReplan.price` re-plans.
    """
    out: list = [None] * len(cands)
    m: cython.Py_ssize_t = queue.m
    procs: cython.longlong[::1] = queue.procs
    starts: cython.longlong[::1] = queue.starts_buf
    reach: cython.longlong[::1] = queue.reach
    rmax: cython.longlong[::1] = queue.rmax
    base_rise: cython.longlong = queue.rise
    holes: cython.bint = queue.pt is not None
    room: _Room = queue.holes
    spare: cython.longlong[::1] = queue.spare if holes else queue.ct
    replans: _FcfsReplan = _FcfsReplan.__new__(_FcfsReplan)
    i: cython.Py_ssize_t
    first: cython.Py_ssize_t
    start: cython.longlong
    end: cython.longlong
    replans.setup(queue)
    for i in range(len(cands) - 1, -1, -1):  # the latest first: their re-plans are short
        start = cands[i]
        end = start + d
        if room.beside_base(start, end) < n:
            continue
        first = index(rmax, start, m) + 1  # the first job whose block meets the slot
        if first == m or starts[first] >= end:
            out[i] = 0  # no job's block meets the slot: all keep their starts
            continue
        if room.in_a_hole(start, end, n):
            # a hole of the plan: every job had room beside every later block, so beside
            # the slot too, and keeps its start
            out[i] = 0
            continue
        if holes and start >= base_rise:
            first = _first_mover(procs, starts, reach, m, room, spare, first, start, end, n)
            if first == m:
                out[i] = 0  # none moves
                continue
        out[i] = replans.price(start, end, n, first)
    return out


@cython.final
@cython.cclass
class _FcfsReplan:
    """The re-plans of one :func:`fcfs_delays` call (FCFS, the latest start first): the queue's
    arrays (:class:`FcfsQueue`'s), the re-plan's profile (``times``/``free``, twice a
    re-plan's room: compiled, the releases from a kept state are placed from ``head`` on, so
    a new release can move the ones before it back into the consumed ones' room), the
    states the re-plans kept, and one re-plan's position between its phases (``nsteps``,
    ``j``: the next job, ``floor``: the start of the job ahead, ``b``/``at_floor``: the
    releases, ``h``: the step holding the floor, ``delay``, ``moved``, ``done``).

    A re-plan's state at job ``j`` is the profile from its floor on.  Once something has
    moved, every ``2**shift``-th job compares it with the plan's kept state there: when it
    is the same moved ``δ`` later (δ = the difference of the floors; 0 included), every
    later job starts ``δ`` later, as its start depends only on that state, and the rest of
    the delay is ``δ·qsum[j]``.  Likewise with the state the last re-plan of this call (the
    starts are re-planned from the latest: they end sooner) had at that job (``last_*``,
    kept with the sum ``W`` of ``(start - floor)·procs`` of the jobs from there on once that
    re-plan ended): the rest of the delay is ``(floor - now)·qsum[j] + W - vq[j]``.  (A
    re-plan whose state differs from both keeps its own in that place, when it has at most
    ``room`` steps: ``rec_*`` until it ends.)

    When no block of the base starts after the kept state's floor, its profile only rises,
    kept as its releases (:meth:`load_releases`); the slot is one more (at its end) and,
    while the floor is before its start, a fall there (``pre``: the releases after the floor
    up to it).  The jobs up to ``j0`` keep their starts, then while the slot is ahead
    (:meth:`slot_ahead`) a job starts where the releases first give it room before the
    slot's start if its block has room beside the slot there too (the free processors at
    the slot's start are those at the floor, the releases up to it, less the slot's: the
    room only grows on either side of it), else where they give it room from the slot's
    start on.  (Before the slot's start nothing has moved — a job that moves goes to the
    slot's start or later, ending this — so a job searched for there starts where it did
    and its block, meeting the slot, runs into its start.)
    """

    m: cython.Py_ssize_t
    now: cython.longlong
    procs: cython.longlong[::1]
    durs: cython.longlong[::1]
    starts: cython.longlong[::1]
    reach: cython.longlong[::1]
    qsum: cython.longlong[::1]
    vq: cython.longlong[::1]
    coff: cython.longlong[::1]
    kept_times: cython.longlong[::1]
    kept_free: cython.longlong[::1]
    base_rise: cython.longlong
    shift: cython.Py_ssize_t
    every: cython.Py_ssize_t
    room: cython.Py_ssize_t
    head: cython.Py_ssize_t
    times: cython.longlong[::1]
    free: cython.longlong[::1]
    ends: cython.longlong[::1]
    last_times: cython.longlong[::1]
    last_free: cython.longlong[::1]
    last_size: cython.longlong[::1]
    last_floor: cython.longlong[::1]
    last_rest: cython.longlong[::1]
    rec_at: cython.longlong[::1]
    rec_sum: cython.longlong[::1]
    rec_floor: cython.longlong[::1]
    rec_size: cython.longlong[::1]
    nrec: cython.Py_ssize_t
    tail: cython.longlong
    nsteps: cython.Py_ssize_t
    b: cython.Py_ssize_t
    h: cython.Py_ssize_t
    j: cython.Py_ssize_t
    floor: cython.longlong
    at_floor: cython.longlong
    delay: cython.longlong
    moved: cython.bint
    done: cython.bint

    @cython.cfunc
    @cython.exceptval(check=False)
    def setup(self, queue: FcfsQueue) -> cython.void:
        """Take the queue's arrays and make the buffers (a cfunc: built without ``__init__``)."""
        nkept: cython.Py_ssize_t = (queue.m >> queue.shift) + 1
        self.m = queue.m
        self.now = queue.now
        self.procs = queue.procs
        self.durs = queue.durs
        self.starts = queue.starts_buf
        self.reach = queue.reach
        self.qsum = queue.qsum
        self.vq = queue.vq
        self.coff = queue.coff
        self.kept_times = queue.ct
        self.kept_free = queue.cf
        self.base_rise = queue.rise
        self.shift = queue.shift
        self.every = 1 << queue.shift
        self.room = queue.room
        self.head = queue.size if cython.compiled else 0
        self.times = buffer([], 2 * queue.size)
        self.free = buffer([], 2 * queue.size)
        self.ends = buffer([], 1)  # (earliest_window's second result)
        # the last state a re-plan of this call had at each kept job (free processors at its
        # floor, then its releases; its floor; the sum of (start - floor)·procs from there on)
        self.last_times = buffer([], nkept * queue.room)
        self.last_free = buffer([], nkept * queue.room)
        self.last_size = buffer([], nkept)
        self.last_floor = buffer([], nkept)
        self.last_rest = buffer([], nkept)
        # the states this re-plan kept: where, its sum of start·procs before, floor, size
        self.rec_at = buffer([], nkept)
        self.rec_sum = buffer([], nkept)
        self.rec_floor = buffer([], nkept)
        self.rec_size = buffer([], nkept)

    @cython.cfunc
    @cython.exceptval(check=False)
    def price(
        self, s: cython.longlong, e: cython.longlong, n: cython.longlong, j0: cython.Py_ssize_t
    ) -> cython.longlong:
        """The delay the slot ``n`` over ``[s, e)`` causes, ``j0`` the first job it can move.

        The re-plan starts from the kept state at or before ``j0`` (nothing before the
        state's floor matters, and the plan so far had room for it), the slot, and the jobs
        up to ``j0`` as planned.  When no block of the base starts after the kept state's
        floor (``base_rise``) it goes on on the releases from the start
        (:meth:`slot_ahead`), else on the profile while a block starts after the floor
        (:meth:`on_profile`); either may start again from a later kept state.  Then every
        block has started by the floor: :meth:`on_releases`.
        """
        shift: cython.Py_ssize_t = self.shift
        base_rise: cython.longlong = self.base_rise
        rise: cython.longlong = s if s > base_rise else base_rise
        rel: cython.bint = False
        o: cython.Py_ssize_t
        size: cython.Py_ssize_t
        self.delay = 0
        self.moved = False
        self.done = False
        while True:
            self.j = (j0 >> shift) << shift
            o = self.coff[j0 >> shift]
            size = self.coff[(j0 >> shift) + 1] - o
            if self.kept_times[o] >= base_rise:
                rel = True
                j0 = self.slot_ahead(self.times, self.free, o, size, j0, s, e, n)
            else:
                j0 = self.on_profile(self.times, self.free, self.ends, o, j0, s, e, n, rise)
            if j0 < 0:
                break  # (else from the kept state nearer to j0)
        if self.done or self.j == self.m:
            return self.delay
        if not rel:
            self.profile_to_releases(self.free)
        self.on_releases(self.times, self.free, e)
        return self.delay

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def next_meeting(
        self, j: cython.Py_ssize_t, s: cython.longlong, e: cython.longlong
    ) -> cython.Py_ssize_t:
        """FCFS, nothing moved yet: the first job from ``j`` on whose block meets the slot over
        ``[s, e)`` (``j`` itself when it does); ``m`` when none does before a job starts at
        ``e`` or later (then every job keeps its start)."""
        k: cython.Py_ssize_t = j
        while k < self.m and self.starts[k] < e and self.reach[k] <= s:
            k += 1
        return self.m if k == self.m or self.starts[k] >= e else k

    @cython.cfunc
    @cython.exceptval(check=False)
    def slot_ahead(
        self,
        times: cython.longlong[::1],
        free: cython.longlong[::1],
        o: cython.Py_ssize_t,
        size: cython.Py_ssize_t,
        j0: cython.Py_ssize_t,
        s: cython.longlong,
        e: cython.longlong,
        n: cython.longlong,
    ) -> cython.Py_ssize_t:
        """The re-plan on the releases while the slot is ahead (see the class); returns the
        job to start again from (a later kept state), else -1."""
        m: cython.Py_ssize_t = self.m
        j: cython.Py_ssize_t = self.j
        b: cython.Py_ssize_t = self.head
        nsteps: cython.Py_ssize_t = self.load_releases(o, size, e, n)
        at_floor: cython.longlong = self.at_floor
        floor: cython.longlong = self.floor
        dropping: cython.bint = s > floor
        pre: cython.longlong = 0  # while dropping: the releases after the floor, by s
        procs_j: cython.longlong
        dur: cython.longlong
        start: cython.longlong
        k: cython.Py_ssize_t
        keep: cython.bint
        if dropping:
            pre = _released_by(times, free, b, nsteps, s)
        else:
            at_floor -= n
        while j < m:  # the jobs up to j0 as planned, then while the slot is ahead
            procs_j = self.procs[j]
            dur = self.durs[j]
            start = self.starts[j]
            keep = j < j0
            if not keep:
                if not dropping:
                    break
                if not self.moved:
                    k = self.next_meeting(j, s, e)
                    if k == m:
                        self.done = True  # nothing moved and no later job meets the slot
                        break
                    if k > j:  # its block misses the slot: it keeps its start
                        if k - j > (k & (self.every - 1)) + 2:
                            return k  # from the kept state nearer to it
                        keep = True
            if keep:
                # (one kept past the slot's start, before the first job that moves, leaves
                # its fall pending, as if it were yet to come: that job has no room at its
                # floor beside the slot, so its search takes the fall in before it looks
                # further)
                b, at_floor, pre = _kept_start(times, free, b, nsteps, at_floor, pre, start)
                floor = start
            else:
                # the earliest start: where the releases give room before the slot's start
                # if the block has room beside the slot there too, else where they give
                # room from its start on
                b, at_floor, pre, floor = _room_before(
                    times, free, b, nsteps, at_floor, pre, floor, procs_j, s
                )
                if at_floor < procs_j or at_floor + pre - n < procs_j:
                    b, at_floor, floor = _room_from(times, free, b, nsteps, at_floor, procs_j, s, n)
                    dropping = False
            if dur > 0 and procs_j > 0:  # its block: one more release, at its end
                at_floor -= procs_j
                if keep and start + dur <= s:
                    pre += procs_j
                nsteps = _release(times, free, nsteps, b, floor + dur, procs_j)
            if floor != start:
                self.moved = True
                self.delay += (floor - start) * procs_j
            j += 1
        self.j, self.nsteps, self.b, self.at_floor, self.floor = j, nsteps, b, at_floor, floor
        return -1

    @cython.cfunc
    @cython.exceptval(check=False)
    def load_releases(
        self, o: cython.Py_ssize_t, size: cython.Py_ssize_t, e: cython.longlong, n: cython.longlong
    ) -> cython.Py_ssize_t:
        """Load the kept state at ``o`` (of ``size`` steps) as its releases from ``head`` on,
        and the slot's release at its end ``e``; returns the number of steps."""
        head: cython.Py_ssize_t = self.head
        x: cython.Py_ssize_t
        self.floor = self.kept_times[o]
        self.at_floor = self.kept_free[o]
        if cython.compiled:
            for x in range(1, size):
                self.times[head + x - 1] = self.kept_times[o + x]
                self.free[head + x - 1] = self.kept_free[o + x] - self.kept_free[o + x - 1]
        else:
            self.times[:] = self.kept_times[o + 1 : o + size]
            self.free[:] = [
                self.kept_free[o + x] - self.kept_free[o + x - 1] for x in range(1, size)
            ]
        return _release(self.times, self.free, head + size - 1, head, e, n)

    @cython.cfunc
    @cython.exceptval(check=False)
    def on_profile(
        self,
        times: cython.longlong[::1],
        free: cython.longlong[::1],
        ends: cython.longlong[::1],
        o: cython.Py_ssize_t,
        j0: cython.Py_ssize_t,
        s: cython.longlong,
        e: cython.longlong,
        n: cython.longlong,
        rise: cython.longlong,
    ) -> cython.Py_ssize_t:
        """A reservation of the base ahead: the re-plan from the kept state at ``o`` on the
        profile (steps ``times``/``free``) while a block starts after the floor (before
        ``rise``).  While nothing has moved, a job whose block misses the slot is not
        searched for; once something has, every kept job compares the state with the
        plan's (:meth:`same_as_plan`).  Returns the job to start again from (a later kept
        state, nearer to the next job meeting the slot), else -1."""
        m: cython.Py_ssize_t = self.m
        j: cython.Py_ssize_t = self.j
        nsteps: cython.Py_ssize_t = self.restart_with_slot(o, j0, s, e, n)
        floor: cython.longlong = self.now if j0 == 0 else self.starts[j0 - 1]
        h: cython.Py_ssize_t = index(times, floor, nsteps)
        procs_j: cython.longlong
        dur: cython.longlong
        start: cython.longlong
        k: cython.Py_ssize_t
        step: cython.Py_ssize_t
        j = j0
        while j < m and floor < rise:
            procs_j = self.procs[j]
            dur = self.durs[j]
            start = self.starts[j]
            if not self.moved:
                k = self.next_meeting(j, s, e)
                if k == m:
                    self.done = True  # nothing moved and no later job meets the slot
                    break
                if k > j:  # its block misses the slot: it keeps its start
                    if k - j > (k & (self.every - 1)) + 2:
                        return k  # from the kept state nearer to it (fewer blocks to add)
                    nsteps = reserve(times, free, nsteps, start, start + dur, procs_j)
                    h = index(times, start, nsteps)
                    floor = start
                    j += 1
                    continue
            elif (j & (self.every - 1)) == 0 and self.same_as_plan(j, nsteps, h, floor):
                self.done = True  # every later job moves as the floor
                break
            # the earliest start from the floor (step h holds it)
            step = earliest_window(times, free, nsteps, h, procs_j, dur, floor, ends)
            floor = floor if step == h else times[step]
            nsteps = take_block(times, free, nsteps, step, ends[0], floor, floor + dur, procs_j)
            h = holding_near(times, nsteps, step, floor)
            if floor != start:
                self.moved = True
                self.delay += (floor - start) * procs_j
            j += 1
        self.j, self.nsteps, self.h, self.floor = j, nsteps, h, floor
        return -1

    @cython.cfunc
    @cython.exceptval(check=False)
    def restart_with_slot(
        self,
        o: cython.Py_ssize_t,
        j0: cython.Py_ssize_t,
        s: cython.longlong,
        e: cython.longlong,
        n: cython.longlong,
    ) -> cython.Py_ssize_t:
        """The kept state at ``o`` (of job ``self.j``) into the profile, the slot, and the
        blocks of the jobs up to ``j0`` as planned; returns the number of steps."""
        o_end: cython.Py_ssize_t = self.coff[(j0 >> self.shift) + 1]
        j: cython.Py_ssize_t
        start: cython.longlong
        nsteps: cython.Py_ssize_t = load_steps(
            self.times, self.free, self.kept_times, self.kept_free, o, o_end - o
        )
        start = s if s > self.times[0] else self.times[0]
        nsteps = reserve(self.times, self.free, nsteps, start, e, n)
        for j in range(self.j, j0):
            start = self.starts[j]
            nsteps = reserve(
                self.times, self.free, nsteps, start, start + self.durs[j], self.procs[j]
            )
        return nsteps

    @cython.cfunc
    @cython.exceptval(check=False)
    def same_as_plan(
        self,
        j: cython.Py_ssize_t,
        nsteps: cython.Py_ssize_t,
        h: cython.Py_ssize_t,
        floor: cython.longlong,
    ) -> cython.bint:
        """Whether the profile from the floor on at kept job ``j`` (the steps ``h..nsteps-1``,
        step ``h`` clipped to the floor) is the plan's kept state there moved later; then the
        rest of the delay is added."""
        o: cython.Py_ssize_t = self.coff[j >> self.shift]
        size: cython.Py_ssize_t = self.coff[(j >> self.shift) + 1] - o
        late: cython.longlong = floor - self.kept_times[o]
        i: cython.Py_ssize_t
        if nsteps - h != size or self.free[h] != self.kept_free[o]:
            return False
        for i in range(1, size):
            if (
                self.times[h + i] - late != self.kept_times[o + i]
                or self.free[h + i] != self.kept_free[o + i]
            ):
                return False
        self.delay += late * self.qsum[j]  # every later job moves as the floor
        return True

    @cython.cfunc
    @cython.exceptval(check=False)
    def profile_to_releases(self, free: cython.longlong[::1]) -> cython.void:
        """Every block has started by the floor: the profile from step ``h`` on, kept as its
        releases (``at_floor`` at the floor, ``free[x]`` more from ``times[x]`` on)."""
        h: cython.Py_ssize_t = self.h
        x: cython.Py_ssize_t = self.nsteps - 1
        while x > h:
            free[x] -= free[x - 1]
            x -= 1
        self.at_floor = free[h]
        self.b = h + 1

    @cython.cfunc
    @cython.exceptval(check=False)
    def on_releases(
        self, times: cython.longlong[::1], free: cython.longlong[::1], e: cython.longlong
    ) -> cython.void:
        """The re-plan once no block starts after the floor: the profile only rises and is
        kept as its releases, in place (``at_floor`` processors at the floor, ``free[x]``
        more from ``times[x]`` on, ``b <= x < nsteps``); a job starts where the releases
        first give it room (the room only grows after: its duration does not matter) and its
        block is one more release, at its end.  While nothing has moved, the re-plan ends at
        the first job from the slot's end ``e`` on; once something has, at a kept job whose
        state is the plan's or the last re-plan's moved later (:meth:`at_kept_state`)."""
        m: cython.Py_ssize_t = self.m
        now: cython.longlong = self.now
        mask: cython.Py_ssize_t = self.every - 1
        j: cython.Py_ssize_t = self.j
        nsteps: cython.Py_ssize_t = self.nsteps
        b: cython.Py_ssize_t = self.b
        at_floor: cython.longlong = self.at_floor
        floor: cython.longlong = self.floor
        delay: cython.longlong = self.delay
        moved: cython.bint = self.moved
        acc: cython.longlong = 0  # Σ (start - now)·procs of the jobs re-planned here
        tail: cython.longlong = 0  # the same of the jobs from where the re-plan stops
        # the last new release's instant, at ``last_at``: none yet, no block ends here
        last_stop: cython.longlong = floor
        last_at: cython.Py_ssize_t = b
        procs_j: cython.longlong
        dur: cython.longlong
        start: cython.longlong
        stop: cython.longlong
        at: cython.Py_ssize_t
        self.nrec = 0
        while j < m:
            procs_j = self.procs[j]
            dur = self.durs[j]
            start = self.starts[j]
            if not moved:
                if start >= e:
                    tail = self.vq[j]
                    break  # nothing moved and no later job meets the slot
            elif (j & mask) == 0 and self.at_kept_state(j, nsteps, b, at_floor, floor, acc):
                tail = self.tail
                delay += tail - self.vq[j]  # every later job starts as there
                break
            if at_floor < procs_j:  # (the last release frees the whole machine)
                while True:
                    at_floor += free[b]
                    floor = times[b]
                    b += 1
                    if at_floor >= procs_j:
                        break
            if dur > 0 and procs_j > 0:
                at_floor -= procs_j
                stop = floor + dur
                if stop == last_stop:
                    # at the last new release's instant (often, on deep queues): it is
                    # still at last_at (every later step either adds to it or moves it:
                    # then last_at follows), after the floor, so not consumed
                    free[last_at] += procs_j
                else:
                    last_stop = stop
                    at = _release_index(times, b, nsteps, stop)
                    last_at = at
                    if at < nsteps and times[at] == stop:
                        free[at] += procs_j
                    elif b > 0 and at - b < 4:
                        _release_forward(times, free, b, at, stop, procs_j)
                        b -= 1
                        last_at = at - 1
                    else:
                        nsteps = _insert_release(times, free, nsteps, at, stop, procs_j)
            if floor != start:
                moved = True
                delay += (floor - start) * procs_j
            acc += (floor - now) * procs_j
            j += 1
        self.delay = delay
        self.record_rests(acc + tail)

    @cython.cfunc
    @cython.exceptval(check=False)
    def at_kept_state(
        self,
        j: cython.Py_ssize_t,
        nsteps: cython.Py_ssize_t,
        b: cython.Py_ssize_t,
        at_floor: cython.longlong,
        floor: cython.longlong,
        acc: cython.longlong,
    ) -> cython.bint:
        """At kept job ``j``, something having moved: whether the re-plan's state (its
        releases) is the plan's kept state or the last re-plan's there, moved later — then
        ``tail`` is the sum of ``(start - now)·procs`` of the jobs from ``j`` on — else keep
        this state in the last re-plan's place when it has at most ``room`` steps
        (``last_size``, ``last_rest``: when this re-plan ends, :meth:`record_rests`; no
        re-plan reads them before, this one being past them)."""
        c: cython.Py_ssize_t = j >> self.shift
        o: cython.Py_ssize_t = self.coff[c]
        size: cython.Py_ssize_t = nsteps - b + 1
        late: cython.longlong = floor - self.kept_times[o]
        level: cython.longlong = at_floor  # the free processors from each release on
        x: cython.Py_ssize_t = 1
        # the plan's kept state, moved later?  (it is a profile: compared step by step with
        # the running sum of the releases)
        hit: cython.bint = size == self.coff[c + 1] - o and at_floor == self.kept_free[o]
        while hit and x < size:
            level += self.free[b + x - 1]
            hit = (
                self.times[b + x - 1] - late == self.kept_times[o + x]
                and level == self.kept_free[o + x]
            )
            x += 1
        if hit:
            self.tail = self.vq[j] + late * self.qsum[j]  # every later job moves as the floor
            return True
        # the state the last re-plan had here?  Then the jobs from here on start as there,
        # from this floor
        o = c * self.room
        hit = self.last_size[c] == size and self.last_free[o] == at_floor
        x = 1
        late = floor - self.last_floor[c]  # (times kept as they were: compared moved by the floors)
        while hit and x < size:
            hit = (
                self.times[b + x - 1] - self.last_times[o + x] == late
                and self.last_free[o + x] == self.free[b + x - 1]
            )
            x += 1
        if hit:
            self.tail = (floor - self.now) * self.qsum[j] + self.last_rest[c]
            return True
        if size <= self.room:  # keep this state
            self.last_free[o] = at_floor
            self.last_floor[c] = floor
            copy_run(self.last_times, o + 1, self.times, b, size - 1)
            copy_run(self.last_free, o + 1, self.free, b, size - 1)
            self.rec_at[self.nrec] = c
            self.rec_sum[self.nrec] = acc
            self.rec_floor[self.nrec] = floor
            self.rec_size[self.nrec] = size
            self.nrec += 1
        return False

    @cython.cfunc
    @cython.exceptval(check=False)
    def record_rests(self, total: cython.longlong) -> cython.void:
        """What the states this re-plan kept lead to (``total``: the sum of ``(start -
        now)·procs`` of the jobs from the releases' start on)."""
        x: cython.Py_ssize_t
        c: cython.Py_ssize_t
        for x in range(self.nrec):
            c = self.rec_at[x]
            self.last_rest[c] = (
                total
                - self.rec_sum[x]
                - (self.rec_floor[x] - self.now) * self.qsum[c << self.shift]
            )
            self.last_size[c] = self.rec_size[x]


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _released_by(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    b: cython.Py_ssize_t,
    nsteps: cython.Py_ssize_t,
    s: cython.longlong,
) -> cython.longlong:
    """The processors the releases ``b..nsteps-1`` free by ``s``."""
    pre: cython.longlong = 0
    x: cython.Py_ssize_t = b
    while x < nsteps and times[x] <= s:
        pre += free[x]
        x += 1
    return pre


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _kept_start(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    b: cython.Py_ssize_t,
    nsteps: cython.Py_ssize_t,
    at_floor: cython.longlong,
    pre: cython.longlong,
    start: cython.longlong,
) -> tuple[cython.Py_ssize_t, cython.longlong, cython.longlong]:
    """:meth:`_FcfsReplan.slot_ahead`, a job that keeps its start: the releases ``b..`` by
    ``start`` taken in (``at_floor`` more, ``pre`` less); returns ``(b, at_floor, pre)``."""
    while b < nsteps and times[b] <= start:
        at_floor += free[b]
        pre -= free[b]
        b += 1
    return b, at_floor, pre


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _room_before(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    b: cython.Py_ssize_t,
    nsteps: cython.Py_ssize_t,
    at_floor: cython.longlong,
    pre: cython.longlong,
    floor: cython.longlong,
    q: cython.longlong,
    s: cython.longlong,
) -> tuple[cython.Py_ssize_t, cython.longlong, cython.longlong, cython.longlong]:
    """:meth:`_FcfsReplan.slot_ahead`, a job of ``q`` processors searched for while the slot
    is ahead: the floor raised over the releases ``b..`` before the slot's start ``s`` until
    ``q`` are free there (if they ever are before ``s``); returns ``(b, at_floor, pre,
    floor)``."""
    while at_floor < q and b < nsteps and times[b] < s:
        at_floor += free[b]
        pre -= free[b]
        floor = times[b]
        b += 1
    return b, at_floor, pre, floor


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _room_from(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    b: cython.Py_ssize_t,
    nsteps: cython.Py_ssize_t,
    at_floor: cython.longlong,
    q: cython.longlong,
    s: cython.longlong,
    n: cython.longlong,
) -> tuple[cython.Py_ssize_t, cython.longlong, cython.longlong]:
    """:meth:`_FcfsReplan.slot_ahead`, a job of ``q`` processors with no room before the
    slot (``n`` processors from ``s``): the floor at ``s``, the releases ``b..`` by it taken
    in and the slot's processors taken, then raised over the releases until ``q`` are free
    (the last release frees the machine); returns ``(b, at_floor, floor)``."""
    floor: cython.longlong = s
    while b < nsteps and times[b] <= s:
        at_floor += free[b]
        b += 1
    at_floor -= n
    while at_floor < q:
        at_floor += free[b]
        floor = times[b]
        b += 1
    return b, at_floor, floor


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _release_index(
    times: cython.longlong[::1],
    b: cython.Py_ssize_t,
    nsteps: cython.Py_ssize_t,
    stop: cython.longlong,
) -> cython.Py_ssize_t:
    """The first of the releases ``b..nsteps-1`` at or after ``stop`` (:func:`_release`'s
    search; compiled without branches to mispredict, as :func:`index`)."""
    lo: cython.Py_ssize_t = b
    hi: cython.Py_ssize_t
    mid: cython.Py_ssize_t
    if not cython.compiled:
        return bisect_left(times, stop, b, nsteps)
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
    return lo


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _release_forward(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    b: cython.Py_ssize_t,
    at: cython.Py_ssize_t,
    stop: cython.longlong,
    procs_j: cython.longlong,
) -> cython.void:
    """A new release among the first four after ``b`` (most land there; a release before
    ``b`` was consumed): the releases before ``at`` move one place forward, into the
    consumed one's room (compiled: the four places written at once, without a branch)."""
    mid: cython.Py_ssize_t = at - b
    x: cython.Py_ssize_t
    if cython.compiled:
        times[b - 1] = times[b] if mid > 0 else stop
        free[b - 1] = free[b] if mid > 0 else procs_j
        times[b] = times[b + 1] if mid > 1 else (stop if mid == 1 else times[b])
        free[b] = free[b + 1] if mid > 1 else (procs_j if mid == 1 else free[b])
        times[b + 1] = times[b + 2] if mid > 2 else (stop if mid == 2 else times[b + 1])
        free[b + 1] = free[b + 2] if mid > 2 else (procs_j if mid == 2 else free[b + 1])
        times[b + 2] = stop if mid == 3 else times[b + 2]
        free[b + 2] = procs_j if mid == 3 else free[b + 2]
    else:
        for x in range(b, at):
            times[x - 1] = times[x]
            free[x - 1] = free[x]
        times[at - 1] = stop
        free[at - 1] = procs_j


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _insert_release(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    at: cython.Py_ssize_t,
    stop: cython.longlong,
    procs_j: cython.longlong,
) -> cython.Py_ssize_t:
    """A new release at place ``at``, the later ones moved back; returns the new ``nsteps``
    (:func:`_release`'s insertion; compiled, the later ones moved by C's memmove)."""
    if not cython.compiled:
        return insert_step(times, free, nsteps, at, stop, procs_j)
    move_steps(cython.address(times[0]), cython.address(free[0]), at + 1, at, nsteps - at)
    times[at] = stop
    free[at] = procs_j
    return nsteps + 1
