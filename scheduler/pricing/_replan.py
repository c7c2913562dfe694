"""The re-plan kernel of :meth:`scheduler.pricing.price.SiteQuote.price`, compiled when a build
exists (issue 21: a quote at 200+ queued jobs re-plans ~120 candidate starts x ~200 jobs, about
half of which move).

Plain Python *and* the source of a C extension, like :mod:`scheduler.cluster._kernel`:
``setup.py`` compiles it with Cython in pure-Python mode (the annotations become C types;
``cython.compiled`` is True only in the extension) and :mod:`scheduler._native` loads the
extension only when it was built from exactly this file, else this file.

The re-plan works on a profile of its own (the steps ``T``/``F`` of length ``L``) in buffers
made by :func:`buffer`: fixed-size C arrays of 64-bit integers in the extension (typed
memoryviews: no Python int is made or read in the loop), plain lists in the pure source (they
grow and shrink with the profile) — the same code indexes both.  The few
``if cython.compiled:`` branches compute the same thing as the plain lines beside them (a typed
binary search without branches for ``bisect_right``, element loops for slices, C's
``memmove`` for ``list.insert`` and ``del``, and a block's insertion that moves each region
of steps once, :func:`_take_shifted`); tests/scheduler/test_pricing_quote_fast.py and
tests/scheduler/test_pricing_plus40.py run both against each other and against
:meth:`~scheduler.pricing.price.SiteQuote.price_naive`.  Times and processor counts must fit in
63 bits.

Deep queues (the SDSC-SP2 +40 % pricing preset: 1,600–3,200 queued at half its quotes, each
re-planning ~0.7 m jobs for each of ~m candidates): where the cost went, measured with
``perf`` at m ≈ 2,500 — the earliest-start scans before a job's no-slot start (phase 1 of
:func:`_replan`, about half), the binary searches (a quarter, before they lost their
branches and phase 2 its own search when phase 1 has passed ``v``) and the step shifts of
the block insertions (before memmove).  :func:`first_options` answers eq. 20 at α = 0 and
α = 1 without pricing every start (:func:`scheduler.pricing.workload.pick`).

FCFS quotes (:meth:`SiteQuote.options <scheduler.pricing.price.SiteQuote.options>` and
``price``) have a kernel of their own here, :class:`FcfsQueue` and :func:`fcfs_delays` (issue
21: without backfilling CTC-SP2's queue at 338 processors grows to 3,700 jobs, and the prefix
re-plan above, O(m) prefixes of O(m) steps and ~m re-planned jobs for each of ~m/2 starts,
took 90+ ms): the plan's state at a job (the profile from the start of the job ahead on) is
small, so it is kept at every 32nd job, and a re-plan stops as soon as its state is the
plan's moved later, or a previous re-plan's.  :func:`replan`, :func:`delays` and
:func:`first_options` still take ``fcfs`` (the prefix re-plan is exact under FCFS too:
:func:`scheduler.pricing.workload.pick` uses it at α = 0 and 1, and the tests compare).
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
        index,
        insert_step,
        least_free,
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
def _prefixes(Q: Queue, base_times: list, base_free: list) -> cython.void:
    """Fill ``Q.pt``, ``Q.pf`` (and ``Q.off``) with the no-slot plan's prefixes."""
    m: cython.Py_ssize_t = Q.m
    procs: cython.longlong[::1] = Q.procs
    durs: cython.longlong[::1] = Q.durs
    starts: cython.longlong[::1] = Q.starts
    T: cython.longlong[::1] = buffer([], Q.size)
    F: cython.longlong[::1] = buffer([], Q.size)
    OFF: cython.longlong[::1]
    PT: cython.longlong[::1]
    PF: cython.longlong[::1]
    L: cython.Py_ssize_t
    j: cython.Py_ssize_t
    x: cython.Py_ssize_t
    o: cython.Py_ssize_t
    if not cython.compiled:
        L = _load(T, F, base_times, base_free)
        Q.pt = [T.copy()]
        Q.pf = [F.copy()]
        for j in range(m):
            L = reserve(T, F, L, starts[j], starts[j] + durs[j], procs[j])
            Q.pt.append(T.copy())
            Q.pf.append(F.copy())
        return
    # compiled: the lengths first, then the steps, into arrays of the exact size
    Q.off = buffer([], m + 2)
    OFF = Q.off
    L = _load(T, F, base_times, base_free)
    OFF[0] = 0
    for j in range(m):
        OFF[j + 1] = OFF[j] + L
        L = reserve(T, F, L, starts[j], starts[j] + durs[j], procs[j])
    OFF[m + 1] = OFF[m] + L
    Q.pt = buffer([], OFF[m + 1])
    Q.pf = buffer([], OFF[m + 1])
    PT = Q.pt
    PF = Q.pf
    L = _load(T, F, base_times, base_free)
    for j in range(m + 1):
        o = OFF[j]
        for x in range(L):
            PT[o + x] = T[x]
            PF[o + x] = F[x]
        if j < m:
            L = reserve(T, F, L, starts[j], starts[j] + durs[j], procs[j])


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _restart(
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    PT: cython.longlong[::1],
    PF: cython.longlong[::1],
    OFF: cython.longlong[::1],
    j: cython.Py_ssize_t,
) -> cython.Py_ssize_t:
    """Copy prefix ``j`` into the buffers; returns its number of steps."""
    o: cython.Py_ssize_t
    L: cython.Py_ssize_t
    size: cython.Py_ssize_t
    if cython.compiled:
        o = OFF[j]
        L = OFF[j + 1] - o
        size = L * cython.sizeof(cython.longlong)
        if L > 0:
            memmove(cython.address(T[0]), cython.address(PT[o]), size)
            memmove(cython.address(F[0]), cython.address(PF[o]), size)
    else:
        T[:] = PT[j]
        F[:] = PF[j]
        L = len(T)
    return L


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _load(
    T: cython.longlong[::1], F: cython.longlong[::1], times: list, free: list
) -> cython.Py_ssize_t:
    """Copy the steps of a profile's lists into the buffers; returns their number."""
    x: cython.Py_ssize_t
    L: cython.Py_ssize_t = len(times)
    if cython.compiled:
        for x in range(L):
            T[x] = times[x]
            F[x] = free[x]
    else:
        T[:] = times
        F[:] = free
    return L


@cython.ccall
def replan(
    Q: Queue,
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    C: cython.longlong[::1],
    s: cython.longlong,
    e: cython.longlong,
    n: cython.longlong,
    now: cython.longlong,
    fcfs: cython.bint,
) -> cython.longlong:
    """The fast path of :meth:`~scheduler.pricing.price.SiteQuote.price` (conservative or
    FCFS): the delay the slot ``n`` over ``[s, e)`` causes (see :func:`_replan`)."""
    return _replan(Q, T, F, C, s, e, n, now, fcfs, False)


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _replan(
    Q: Queue,
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    C: cython.longlong[::1],
    s: cython.longlong,
    e: cython.longlong,
    n: cython.longlong,
    now: cython.longlong,
    fcfs: cython.bint,
    probe: cython.bint,
) -> cython.longlong:
    """The fast path of :meth:`~scheduler.pricing.price.SiteQuote.price` (conservative or
    FCFS): the delay the slot ``n`` over ``[s, e)`` causes, re-planning the queue ``Q`` from
    the first job whose block meets it (``T``, ``F``: buffers of ``Q.size``, ``C`` of
    ``Q.m``, overwritten).

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
    m: cython.Py_ssize_t = Q.m
    procs: cython.longlong[::1] = Q.procs
    durs: cython.longlong[::1] = Q.durs
    starts: cython.longlong[::1] = Q.starts
    reach: cython.longlong[::1] = Q.reach
    below: cython.longlong[::1] = Q.below
    PT: cython.longlong[::1] = Q.pt
    PF: cython.longlong[::1] = Q.pf
    OFF: cython.longlong[::1] = Q.off
    L: cython.Py_ssize_t = 0
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
            C[x] = starts[x]
    else:
        C[:m] = starts
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
                L = _restart(T, F, PT, PF, OFF, j)
                L = reserve(T, F, L, s, e, n)
                have = True
            else:
                for x in range(i, j):  # a few jobs keep their starts: their blocks as planned
                    L = reserve(T, F, L, starts[x], starts[x] + durs[x], procs[x])
            i = j
        q = procs[i]
        dq = durs[i]
        v = starts[i]
        last = L - 1
        # ---- the earliest start t of q processors over dq, and the step a holding it
        found = False
        if fcfs:
            t = now
            if i > 0:  # FCFS: not before the job ahead (whose start is `last_t` once
                t = max(now, last_t if moved else starts[i - 1])  # anything has moved)
            a = index(T, t, L)
        else:
            # a lower bound: the start of the nearest job ahead that is no bigger (the
            # profile only loses room as the re-plan goes on, and whatever window fits this
            # job fits that one)
            bj = below[i]
            lb = now if bj < 0 else C[bj]
            if u_lo < u_hi:  # phase 1: windows meeting the surplus span, starting before v
                t = max(now, min(v, u_lo - max(dq, 1) + 1), lb)
                jump = min(u_hi, v)
                a = index(T, t, L)
                k = a
                stop = t + dq
                while t < jump:
                    if F[k] < q:
                        k += 1
                        a = k
                        t = T[k]
                        stop = t + dq
                    elif k == last or T[k + 1] >= stop:
                        found = True
                        break
                    else:
                        k += 1
            if not found:  # phase 2: from v on (no window in [jump, v) can fit)
                if u_lo >= u_hi or t < v or t < lb:
                    t = v if v >= lb else lb
                    a = index(T, t, L)
                # else phase 1 stopped at t (step a) past max(v, lb), having tried every
                # start from one before it: the search goes on from there
        if not found:
            # the search from t (step a holds t); on return, steps a..k hold the block
            k = a
            stop = t + dq
            while True:
                if F[k] < q:
                    k += 1
                    a = k
                    t = T[k]
                    stop = t + dq
                elif k == last or T[k + 1] >= stop:
                    break
                else:
                    k += 1
        # ---- take q processors over [t, stop)
        L = take_block(T, F, L, a, k, t, stop, q)
        last_t = t
        C[i] = t
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
    Q: Queue,
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
    T = buffer([], Q.size)
    F = buffer([], Q.size)
    C = buffer([], Q.m)
    zeros: list = Q.zeros
    for s in cands:
        if _free_over(base_times, base_free, s, s + d) < n:
            out.append(None)
        elif _free_over(plan_times, plan_free, s, s + d) >= n and not (
            zeros and bisect_left(zeros, s) < bisect_left(zeros, s + d)
        ):
            out.append(0)
        else:
            out.append(_replan(Q, T, F, C, s, s + d, n, now, fcfs, False))
    return out


@cython.ccall
def first_options(
    Q: Queue,
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
    start: ``(count, first, free, least)`` — how many starts of ``cands`` are feasible, the
    index of the first feasible one, and (with ``zero``) of the first feasible one whose
    delay is 0 (-1: none), each tested by a re-plan that stops at the first job that moves;
    ``least``: a lower bound on the delays of the feasible starts before that one (the
    least delay found when their re-plans stopped; 0 if there are none)."""
    i: cython.Py_ssize_t
    s: cython.longlong
    f: cython.longlong
    count: cython.Py_ssize_t = 0
    first: cython.Py_ssize_t = -1
    free: cython.Py_ssize_t = -1
    least: cython.longlong = 0
    T = buffer([], Q.size)
    F = buffer([], Q.size)
    C = buffer([], Q.m)
    zeros: list = Q.zeros
    for i in range(len(cands)):
        s = cands[i]
        if _free_over(base_times, base_free, s, s + d) < n:
            continue
        count += 1
        if first < 0:
            first = i
        if zero and free < 0:
            if _free_over(plan_times, plan_free, s, s + d) >= n and not (
                zeros and bisect_left(zeros, s) < bisect_left(zeros, s + d)
            ):
                free = i
            else:
                f = _replan(Q, T, F, C, s, s + d, n, now, fcfs, True)
                if f == 0:
                    free = i
                elif least == 0 or f < least:
                    least = f
    return count, first, free, least


# ---------------------------------------------------------------------------------------- FCFS

#: FCFS: the no-slot plan's state is kept at every ``2**_SHIFT``-th job (:class:`FcfsQueue`),
#: and a re-plan compares its own state with it there (:func:`fcfs_delays`): every 32nd
#: (CTC-SP2's deepest queues: 8 -> 32 took a seventh off a quote's re-plans, which check
#: and keep their states less often and stop at most 31 jobs later)
_SHIFT = 5
#: room for a re-plan's state kept for the next re-plans of a quote (:func:`fcfs_delays`;
#: CTC-SP2's deep FCFS queues: ~25 steps)
_ROOM = 64


class FcfsQueue:
    """The no-slot FCFS plan of a queue, played by the kernel from the base profile's lists
    and the queue's ``procs`` and ``durs`` (``now``: no job starts before it), as
    :func:`fcfs_delays` reads it.

    ``starts`` (a list: v_q, what :func:`scheduler.pricing.plan.plan_fcfs` gives) and buffers
    (:func:`buffer`) of the jobs' ``procs``, ``durs``, ``starts``, ``reach`` (the end of the
    job's block, or the instant after its start for a job of no duration), ``rmax`` (the
    largest reach of the jobs up to each), ``qsum`` (``qsum[j]``: the processors of jobs
    ``j..m-1``) and the *states*: under FCFS job ``j`` starts at the earliest instant from
    its *floor* (the start of the job ahead, ``now`` for the first) where the profile has
    room for it, so the plan of jobs ``j..`` depends only on the floor and on the profile
    from the floor on (base + the blocks of the jobs ahead, none of which starts after the
    floor).  That profile, its first step clipped to the floor, is kept for every
    ``2**shift``-th job ``j``: state ``j >> shift`` at ``coff[..]:coff[.. + 1]`` of ``ct``
    and ``cf`` (deep CTC-SP2 queues: ~20 steps each, where a whole prefix of the plan had
    ~2 per job ahead).  ``vq[j]``: the sum of ``(start - now)·procs`` of jobs ``j..m-1``
    (sums of starts from ``now``: far from 63 bits with Unix times); ``rise``: the last
    instant the base profile falls (a reservation starts), ``now`` if none; ``room``: how
    many steps of a re-plan's state :func:`fcfs_delays` keeps; ``size``: room for any
    re-plan's profile; ``pt``/``pf``: the steps of the plan's profile (base + every block),
    None when a job is of no duration (a slot in a hole of it delays nobody).
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
    T: cython.longlong[::1], L: cython.Py_ssize_t, a: cython.Py_ssize_t, t: cython.longlong
) -> cython.Py_ssize_t:
    """The step holding ``t`` just after a block from ``t`` was taken at step ``a`` (the
    step holding ``t`` before): ``a``, or ``a + 1`` after a split at ``t``, or ``a - 1``
    after a merge there."""
    if a + 1 < L and T[a + 1] <= t:
        return a + 1
    if T[a] > t:
        return a - 1
    return a


@cython.ccall
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.cdivision(True)
def _fcfs_plan(Q: FcfsQueue, base_times: list, base_free: list) -> cython.void:
    """Play the no-slot FCFS plan (``Q.starts_buf``, ``reach``, ``rmax``, ``qsum``), then
    play it again from its starts to keep its states (``Q.ct``, ``Q.cf``, ``Q.coff``)."""
    m: cython.Py_ssize_t = Q.m
    now: cython.longlong = Q.now
    procs: cython.longlong[::1] = Q.procs
    durs: cython.longlong[::1] = Q.durs
    starts: cython.longlong[::1] = Q.starts_buf
    reach: cython.longlong[::1] = Q.reach
    rmax: cython.longlong[::1] = Q.rmax
    qsum: cython.longlong[::1] = Q.qsum
    vq: cython.longlong[::1] = Q.vq
    coff: cython.longlong[::1] = Q.coff
    T: cython.longlong[::1] = buffer([], Q.size)
    F: cython.longlong[::1] = buffer([], Q.size)
    CT: cython.longlong[::1]
    CF: cython.longlong[::1]
    PT: cython.longlong[::1]
    PF: cython.longlong[::1]
    G: cython.longlong[::1]
    L: cython.Py_ssize_t
    h: cython.Py_ssize_t = 0
    a: cython.Py_ssize_t
    k: cython.Py_ssize_t
    j: cython.Py_ssize_t
    x: cython.Py_ssize_t
    o: cython.Py_ssize_t
    last: cython.Py_ssize_t
    q: cython.longlong
    dq: cython.longlong
    t: cython.longlong
    stop: cython.longlong
    floor: cython.longlong = now
    top: cython.longlong = now
    shift: cython.Py_ssize_t = Q.shift
    every: cython.Py_ssize_t = 1 << shift
    # ---- the plan; the size of each kept state
    L = _load(T, F, base_times, base_free)
    coff[0] = 0
    for j in range(m):
        if (j & (every - 1)) == 0:
            coff[(j >> shift) + 1] = coff[j >> shift] + (L - h)
        q = procs[j]
        dq = durs[j]
        # the earliest start from the floor (step h holds it)
        a = h
        k = h
        t = floor
        stop = t + dq
        last = L - 1
        while True:
            if F[k] < q:
                k += 1
                a = k
                t = T[k]
                stop = t + dq
            elif k == last or T[k + 1] >= stop:
                break
            else:
                k += 1
        L = take_block(T, F, L, a, k, t, stop, q)
        h = _holding(T, L, a, t)
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
    Q.pt = None
    Q.pf = None
    if 0 not in Q.durs:
        Q.pt = buffer([], L)
        Q.pf = buffer([], L)
        PT = Q.pt
        PF = Q.pf
        for x in range(L):
            PT[x] = T[x]
            PF[x] = F[x]
        # and each job's spare processors at its start beside a slot there: the plan's free
        # ones, and those of the later jobs starting with it
        Q.spare = buffer([], m)
        G = Q.spare
        x = 0
        for j in range(m):
            while x + 1 < L and T[x + 1] <= starts[j]:
                x += 1
            G[j] = F[x]
        top = 0
        for j in range(m - 2, -1, -1):
            top = top + procs[j + 1] if starts[j + 1] == starts[j] else 0
            G[j] += top
    # ---- the states, played again from the starts
    Q.ct = buffer([], coff[((m - 1) >> shift) + 1] if m > 0 else 0)
    Q.cf = buffer([], coff[((m - 1) >> shift) + 1] if m > 0 else 0)
    CT = Q.ct
    CF = Q.cf
    L = _load(T, F, base_times, base_free)
    h = 0
    floor = now
    for j in range(m):
        if (j & (every - 1)) == 0:
            o = coff[j >> shift]
            for x in range(h, L):
                CT[o + x - h] = T[x]
                CF[o + x - h] = F[x]
            CT[o] = floor
        t = starts[j]
        L = reserve(T, F, L, t, t + durs[j], procs[j])
        h = index(T, t, L)
        floor = t


@cython.cfunc
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _same_state(
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    h: cython.Py_ssize_t,
    CT: cython.longlong[::1],
    CF: cython.longlong[::1],
    o: cython.Py_ssize_t,
    size: cython.Py_ssize_t,
    shift: cython.longlong,
) -> cython.bint:
    """Whether the steps ``h..L-1`` (step ``h`` clipped to the floor) are the kept state at
    ``o`` (of ``size`` steps) moved ``shift`` later."""
    i: cython.Py_ssize_t
    if L - h != size or F[h] != CF[o]:
        return False
    for i in range(1, size):
        if T[h + i] - shift != CT[o + i] or F[h + i] != CF[o + i]:
            return False
    return True


@cython.cfunc
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _release(
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    b: cython.Py_ssize_t,
    t: cython.longlong,
    r: cython.longlong,
) -> cython.Py_ssize_t:
    """Add ``r`` processors released at ``t`` to the releases ``b..L-1`` (sorted by time,
    one per instant); returns the new ``L``."""
    lo: cython.Py_ssize_t = b
    hi: cython.Py_ssize_t = L
    mid: cython.Py_ssize_t
    while lo < hi:  # the first release at or after t
        mid = (lo + hi) >> 1
        if T[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    if lo < L and T[lo] == t:
        F[lo] += r
        return L
    if not cython.compiled:
        return insert_step(T, F, L, lo, t, r)
    move_steps(cython.address(T[0]), cython.address(F[0]), lo + 1, lo, L - lo)
    T[lo] = t
    F[lo] = r
    return L + 1


@cython.ccall
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.cdivision(True)
def fcfs_delays(
    Q: FcfsQueue, base_times: list, base_free: list, cands: list, n: cython.longlong,
    d: cython.longlong,
) -> list:  # fmt: skip
    """:meth:`~scheduler.pricing.price.SiteQuote.price` of the slot ``n`` over ``[s, s + d)``
    at every start ``s`` of ``cands`` under FCFS: None where it does not fit beside the
    running jobs and reservations (``base_*``), else the delay it causes to the queue ``Q``.

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

    A slot in a hole of the plan (``Q.pt``/``Q.pf``: at least ``n`` processors free over
    ``[s, e)`` beside every block) costs 0 without a re-plan: every job had room beside every
    later block, so beside the slot too (kept only when no job is of no duration: such a
    job needs its processors at its start, beside no block).

    Once no block starts after the floor the profile only rises and is kept as its releases,
    in place: ``free`` processors at the floor, ``F[x]`` more from ``T[x]`` on
    (``b <= x < L``); a job starts where the releases first give it room (the room only
    grows after: its duration does not matter) and its block is one more release, at its
    end.  When no block of the base starts after the kept state's floor (``Q.rise``), the
    re-plan is kept so from the start: the slot is a release at its end and, while the
    floor is before its start, a fall there; a job then starts where the releases first
    give it room before the slot's start if its block has room beside the slot there too
    (the free processors at the slot's start are those at the floor, the releases up to
    it, kept summed in ``pre``, less the slot's: the room only grows on either side of
    it), else where they give it room from the slot's start on.  (Before the slot's start
    nothing has moved — a job that moves goes to the slot's start or later, ending this —
    so a job searched for there starts where it did and its block, meeting the slot, runs
    into its start.)  Otherwise
    (a reservation of the base ahead) the re-plan searches the profile (steps ``T``/``F``)
    while a block starts after the floor, then goes on on the releases.  While nothing has
    moved, a job whose block misses the slot is not searched for, and when the next job
    whose block meets the slot is a few past a kept state, the re-plan starts again from
    there (the kept state, the slot, the jobs up to it).

    Cost (CTC-SP2 at 338 processors, requested estimates, 32 p × 2 h, the deepest queues,
    ~3,000 jobs, ~1,300 starts): ~300 jobs re-planned per start, most of them on the
    releases; about a quarter of the starts meet the plan's state, half a previous
    re-plan's, and a sixth never meet either (two groups of jobs moved by different amounts
    stay apart to the end of the queue; a quarter at 2,715 queued, with half of the jobs
    re-planned).  Callgrind at that instant (2,715 queued, 1,448 starts): 171 M
    instructions in this call when the re-plans searched the profile until the slot's
    start (60 M of them) and copied the kept re-plan states step by step (21 M); 95 M with
    the releases from the start, the states copied whole, the holes priced 0 and the first
    job that moves found without a re-plan (the re-plans then start there: 2 M until the
    slot's start).  What is left is the releases: perf put a third of the time in finding
    where a new one goes (a branchy binary search: now the first four are compared at once,
    the latest tested, and the search has no branches), and the states are kept and
    compared at every 32nd job (every 8th cost more in checks than the up to 31 more jobs
    a re-plan now walks past where it could have stopped).  At a 2,750-queued instant
    (1,366 starts re-planned on the releases, 646 k jobs: 447 starts that meet no state
    walk 355 k of them) the new releases land: among the first four half of the time (so
    the releases before it move one place forward, into the room of a consumed one: the
    compiled build keeps the releases from the middle of buffers twice the size, with room
    before them, and writes the four places at once), after or at the latest release a
    fifth (the latter, a merge, found without the search too), and 44 % at an instant that
    already has a release (a merge) — three in ten at the instant of the last release added,
    which is then added to in place without the search.  Perf then: the search over the
    rest (a third of the releases) about a sixth of the time, memmove a tenth.
    """
    out: list = [None] * len(cands)
    m: cython.Py_ssize_t = Q.m
    now: cython.longlong = Q.now
    procs: cython.longlong[::1] = Q.procs
    durs: cython.longlong[::1] = Q.durs
    starts: cython.longlong[::1] = Q.starts_buf
    reach: cython.longlong[::1] = Q.reach
    rmax: cython.longlong[::1] = Q.rmax
    qsum: cython.longlong[::1] = Q.qsum
    vq: cython.longlong[::1] = Q.vq
    coff: cython.longlong[::1] = Q.coff
    CT: cython.longlong[::1] = Q.ct
    CF: cython.longlong[::1] = Q.cf
    # (compiled: twice the room, the releases from a kept state placed from ``head`` on, so a
    # new release can move the ones before it back into the consumed ones' room)
    head: cython.Py_ssize_t = Q.size if cython.compiled else 0
    T: cython.longlong[::1] = buffer([], 2 * Q.size)
    F: cython.longlong[::1] = buffer([], 2 * Q.size)
    base_rise: cython.longlong = Q.rise
    shift: cython.Py_ssize_t = Q.shift
    every: cython.Py_ssize_t = 1 << shift
    room: cython.Py_ssize_t = Q.room
    holes: cython.bint = Q.pt is not None
    PT: cython.longlong[::1] = Q.pt if holes else CT
    PF: cython.longlong[::1] = Q.pf if holes else CF
    PL: cython.Py_ssize_t = len(Q.pt) if holes else 0
    G: cython.longlong[::1] = Q.spare if holes else CT
    lim: cython.longlong
    used: cython.longlong
    nc: cython.Py_ssize_t = (m >> shift) + 1
    # the last state a re-plan of this call had at each kept job (free processors at its
    # floor, then its releases; MFL: the floor; MW: the sum of (start - floor)·procs of the
    # jobs from there on)
    MT: cython.longlong[::1] = buffer([], nc * room)
    MF: cython.longlong[::1] = buffer([], nc * room)
    MSIZE: cython.longlong[::1] = buffer([], nc)
    MFL: cython.longlong[::1] = buffer([], nc)  # (and its floor)
    MW: cython.longlong[::1] = buffer([], nc)
    RC: cython.longlong[::1] = buffer([], nc)  # the states this re-plan kept: where, its sum
    RS: cython.longlong[::1] = buffer([], nc)  # of start·procs before, its floor ...
    RF: cython.longlong[::1] = buffer([], nc)
    RZ: cython.longlong[::1] = buffer([], nc)  # ... and its size
    nrec: cython.Py_ssize_t
    c: cython.Py_ssize_t
    i: cython.Py_ssize_t
    acc: cython.longlong
    tail: cython.longlong
    hit: cython.bint
    L: cython.Py_ssize_t
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
    last: cython.Py_ssize_t
    b: cython.Py_ssize_t
    q: cython.longlong
    dq: cython.longlong
    v: cython.longlong
    t: cython.longlong
    stop: cython.longlong
    floor: cython.longlong
    rise: cython.longlong
    free: cython.longlong
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
        # ---- the first job whose block meets the slot: rmax never decreases
        lo = 0
        hi = m
        while lo < hi:
            mid = (lo + hi) >> 1
            if rmax[mid] > s:
                hi = mid
            else:
                lo = mid + 1
        j0 = lo
        if j0 == m or starts[j0] >= e:
            out[i] = 0  # no job's block meets the slot: all keep their starts
            continue
        if holes and least_free(PT, PF, 0, PL, s, e) >= n:
            # a hole of the plan: every job had room beside every later block, so beside
            # the slot too, and keeps its start
            out[i] = 0
            continue
        if holes and s >= base_rise:
            # ---- the first job that moves: until it the re-plan is the plan and the slot,
            # whose profile from a job's floor on only rises but for the slot's start.  A job
            # that starts by the slot's start keeps its start if its block misses the slot,
            # or if the base's free processors at the slot's start hold the slot and the
            # blocks there of the jobs up to it (`used`); one that starts later (and before
            # the slot's end) if its spare processors at its start (`G`: the plan's free
            # ones, and the later jobs' starting with it) hold the slot
            lim = _free_over(base_times, base_free, s, s + 1) - n
            used = 0
            k = j0
            while k < m and starts[k] <= s:
                if reach[k] > s:
                    used += procs[k]
                    if used > lim:
                        break
                k += 1
            if k == m or starts[k] > s:
                while k < m and starts[k] < e and G[k] >= n:
                    k += 1
                if k == m or starts[k] >= e:
                    out[i] = 0  # none moves
                    continue
            j0 = k  # (the jobs before it as planned)
        # ---- the kept state at or before it, the slot (nothing before the state's floor
        # matters, and the plan so far had room for it), the jobs up to j0 as planned
        rise = s if s > base_rise else base_rise
        rel = False
        while True:
            j = (j0 >> shift) << shift
            o = coff[j >> shift]
            size = coff[(j >> shift) + 1] - o
            if CT[o] >= base_rise:
                # ---- no block of the base starts after the kept state's floor: its profile
                # only rises, kept as its releases; the slot is one more (at its end) and,
                # while the floor is before its start, a fall there (``pre``: the releases
                # after the floor up to it)
                rel = True
                floor = CT[o]
                free = CF[o]
                if cython.compiled:
                    for x in range(1, size):
                        T[head + x - 1] = CT[o + x]
                        F[head + x - 1] = CF[o + x] - CF[o + x - 1]
                else:
                    T[:] = CT[o + 1 : o + size]
                    F[:] = [CF[o + x] - CF[o + x - 1] for x in range(1, size)]
                L = head + size - 1
                b = head
                L = _release(T, F, L, b, e, n)
                dropping = s > floor
                pre = 0
                if dropping:
                    x = b
                    while x < L and T[x] <= s:
                        pre += F[x]
                        x += 1
                else:
                    free -= n
                while j < m:  # the jobs up to j0 as planned, then while the slot is ahead
                    q = procs[j]
                    dq = durs[j]
                    v = starts[j]
                    keep = j < j0
                    if not keep:
                        if not dropping:
                            break
                        if not moved:
                            if v >= e:
                                done = True  # nothing moved and no later job meets the slot
                                break
                            if reach[j] <= s:  # its block misses the slot: it keeps its start
                                k = j + 1  # and the next job whose block meets the slot?
                                while k < m and starts[k] < e and reach[k] <= s:
                                    k += 1
                                if k == m or starts[k] >= e:
                                    done = True  # none: all keep their starts
                                    break
                                if k - j > (k & (every - 1)) + 2:
                                    j0 = k  # from the kept state nearer to it
                                    break
                                keep = True
                    if not keep:
                        # the earliest start: where the releases give room before the
                        # slot's start if the block has room beside the slot there too, else
                        # where they give room from its start on (before it, nothing has
                        # moved: the job starts where it did, and its block meets the slot)
                        while free < q and b < L and T[b] < s:
                            free += F[b]
                            pre -= F[b]
                            floor = T[b]
                            b += 1
                        if free < q or free + pre - n < q:
                            while b < L and T[b] <= s:
                                free += F[b]
                                b += 1
                            free -= n
                            floor = s
                            dropping = False
                            while free < q:  # (the last release frees the machine)
                                free += F[b]
                                floor = T[b]
                                b += 1
                        if dq > 0 and q > 0:
                            free -= q
                            L = _release(T, F, L, b, floor + dq, q)
                        if floor != v:
                            moved = True
                            delay += (floor - v) * q
                        j += 1
                        continue
                    # keeps its start (one kept past the slot's start, before the first
                    # job that moves, leaves its fall pending, as if it were yet to come:
                    # that job has no room at its floor beside the slot, so its search
                    # takes the fall in before it looks further)
                    while b < L and T[b] <= v:
                        free += F[b]
                        pre -= F[b]
                        b += 1
                    floor = v
                    if dq > 0 and q > 0:
                        free -= q
                        if v + dq <= s:
                            pre += q
                        L = _release(T, F, L, b, v + dq, q)
                    j += 1
                if done or j == m or not dropping:
                    break
                continue  # (from the kept state nearer to j0)
            if cython.compiled:
                for x in range(size):
                    T[x] = CT[o + x]
                    F[x] = CF[o + x]
            else:
                T[:] = CT[o : o + size]
                F[:] = CF[o : o + size]
            L = size
            L = reserve(T, F, L, s if s > T[0] else T[0], e, n)
            while j < j0:
                t = starts[j]
                L = reserve(T, F, L, t, t + durs[j], procs[j])
                j += 1
            floor = now if j0 == 0 else starts[j0 - 1]
            h = index(T, floor, L)
            # ---- the re-plan on the profile, while a block starts after the floor
            while j < m and floor < rise:
                q = procs[j]
                dq = durs[j]
                v = starts[j]
                if not moved:
                    if v >= e:
                        done = True  # nothing moved and no later job meets the slot
                        break
                    if reach[j] <= s:  # its block misses the slot: it keeps its start
                        k = j + 1  # and the next job whose block meets the slot?
                        while k < m and starts[k] < e and reach[k] <= s:
                            k += 1
                        if k == m or starts[k] >= e:
                            done = True  # none: all keep their starts
                            break
                        if k - j > (k & (every - 1)) + 2:
                            j0 = k  # from the kept state nearer to it (fewer blocks to add)
                            break
                        L = reserve(T, F, L, v, v + dq, q)
                        h = index(T, v, L)
                        floor = v
                        j += 1
                        continue
                elif (j & (every - 1)) == 0:
                    o = coff[j >> shift]
                    if _same_state(
                        T, F, L, h, CT, CF, o, coff[(j >> shift) + 1] - o, floor - CT[o]
                    ):
                        delay += (floor - CT[o]) * qsum[j]  # every later job moves as the floor
                        done = True
                        break
                # the earliest start from the floor (step h holds it)
                a = h
                k = h
                t = floor
                stop = t + dq
                last = L - 1
                while True:
                    if F[k] < q:
                        k += 1
                        a = k
                        t = T[k]
                        stop = t + dq
                    elif k == last or T[k + 1] >= stop:
                        break
                    else:
                        k += 1
                L = take_block(T, F, L, a, k, t, stop, q)
                h = _holding(T, L, a, t)
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
            x = L - 1
            while x > h:
                F[x] -= F[x - 1]
                x -= 1
            free = F[h]
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
                if _same_releases(T, F, L, b, free, CT, CF, o, coff[(j >> shift) + 1] - o,
                                  floor - CT[o]):  # fmt: skip
                    delay += (floor - CT[o]) * qsum[j]  # every later job moves as the floor
                    tail = vq[j] + (floor - CT[o]) * qsum[j]
                    break
                # the state the last re-plan had here?  Then the jobs from here on start as
                # there, from this floor
                c = j >> shift
                size = L - b + 1
                o = c * room
                hit = MSIZE[c] == size and MF[o] == free
                x = 1
                t = floor - MFL[c]  # (times kept as they were: compared moved by the floors)
                while hit and x < size:
                    hit = T[b + x - 1] - MT[o + x] == t and MF[o + x] == F[b + x - 1]
                    x += 1
                if hit:
                    tail = (floor - now) * qsum[j] + MW[c]
                    delay += tail - vq[j]
                    break
                if size <= room:  # keep this state (MSIZE, MW: when this re-plan ends; no
                    # re-plan reads them before, this one being past them)
                    MF[o] = free
                    MFL[c] = floor
                    if cython.compiled:
                        copy_values(cython.address(MT[o + 1]), cython.address(T[b]), size - 1)
                        copy_values(cython.address(MF[o + 1]), cython.address(F[b]), size - 1)
                    else:
                        MT[o + 1 : o + size] = T[b:L]
                        MF[o + 1 : o + size] = F[b:L]
                    RC[nrec] = c
                    RS[nrec] = acc
                    RF[nrec] = floor
                    RZ[nrec] = size
                    nrec += 1
            if free < q:  # (the last release frees the whole machine)
                while True:
                    free += F[b]
                    floor = T[b]
                    b += 1
                    if free >= q:
                        break
            if dq > 0 and q > 0:
                free -= q
                stop = floor + dq
            if dq > 0 and q > 0 and stop == pstop:
                # at the last new release's instant (three in ten at the deepest queues): it
                # is still at plo (every later step either adds to it or moves it: then plo
                # follows), after the floor, so not consumed
                F[plo] += q
            elif dq > 0 and q > 0:
                pstop = stop
                # the first release at or after the block's end (_release, written out;
                # compiled without branches to mispredict, as _index: ~12 % less time on
                # CTC-SP2's deepest queues, though more instructions)
                lo = b
                if cython.compiled:
                    hi = L - b  # the answer is in [lo, lo + hi]
                    if hi >= 4:  # (most land among the first four: compared at once)
                        mid = (
                            (T[lo] < stop)
                            + (T[lo + 1] < stop)
                            + (T[lo + 2] < stop)
                            + (T[lo + 3] < stop)
                        )
                        lo += mid
                        hi = 0 if mid < 4 else hi - 4
                        if hi > 0 and T[L - 1] <= stop:  # (a tenth are the latest, near
                            lo = L - (T[L - 1] == stop)  # a tenth at the latest's instant)
                            hi = 0
                    if hi > 0:
                        while hi > 1:
                            mid = hi >> 1
                            lo = lo + mid if T[lo + mid - 1] < stop else lo
                            hi -= mid
                        if T[lo] < stop:
                            lo += 1
                else:
                    lo = bisect_left(T, stop, b, L)
                plo = lo
                if lo < L and T[lo] == stop:
                    F[lo] += q
                elif b > 0 and lo - b < 4:
                    # among the first four (more than half land there): the releases before
                    # it move one place forward, into a consumed release's room (compiled:
                    # the four places written at once, without a branch or a call)
                    if cython.compiled:
                        mid = lo - b
                        T[b - 1] = T[b] if mid > 0 else stop
                        F[b - 1] = F[b] if mid > 0 else q
                        T[b] = T[b + 1] if mid > 1 else (stop if mid == 1 else T[b])
                        F[b] = F[b + 1] if mid > 1 else (q if mid == 1 else F[b])
                        T[b + 1] = T[b + 2] if mid > 2 else (stop if mid == 2 else T[b + 1])
                        F[b + 1] = F[b + 2] if mid > 2 else (q if mid == 2 else F[b + 1])
                        T[b + 2] = stop if mid == 3 else T[b + 2]
                        F[b + 2] = q if mid == 3 else F[b + 2]
                    else:
                        for x in range(b, lo):
                            T[x - 1] = T[x]
                            F[x - 1] = F[x]
                        T[lo - 1] = stop
                        F[lo - 1] = q
                    b -= 1
                    plo = lo - 1
                elif cython.compiled:  # (_shift, written out: the loop's hottest call)
                    if lo < L:
                        x = (L - lo) * cython.sizeof(cython.longlong)
                        memmove(cython.address(T[lo + 1]), cython.address(T[lo]), x)
                        memmove(cython.address(F[lo + 1]), cython.address(F[lo]), x)
                    T[lo] = stop
                    F[lo] = q
                    L += 1
                else:
                    L = insert_step(T, F, L, lo, stop, q)
            if floor != v:
                moved = True
                delay += (floor - v) * q
            acc += (floor - now) * q
            j += 1
        for x in range(nrec):  # what the states kept lead to
            c = RC[x]
            MW[c] = acc + tail - RS[x] - (RF[x] - now) * qsum[c << shift]
            MSIZE[c] = RZ[x]
        out[i] = delay
    return out


@cython.cfunc
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _same_releases(
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    b: cython.Py_ssize_t,
    free: cython.longlong,
    CT: cython.longlong[::1],
    CF: cython.longlong[::1],
    o: cython.Py_ssize_t,
    size: cython.Py_ssize_t,
    shift: cython.longlong,
) -> cython.bint:
    """:func:`_same_state` of a profile kept as its releases (``free`` at the floor, ``F[x]``
    more from ``T[x]`` on, ``b <= x < L``)."""
    i: cython.Py_ssize_t
    acc: cython.longlong = free
    if L - b + 1 != size or free != CF[o]:
        return False
    for i in range(1, size):
        acc += F[b + i - 1]
        if T[b + i - 1] - shift != CT[o + i] or acc != CF[o + i]:
            return False
    return True
