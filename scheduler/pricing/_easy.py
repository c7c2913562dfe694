# cython: boundscheck=False, wraparound=False, initializedcheck=False
"""The EASY and depth-K quote kernel: the price of a slot (Figure 22 of G. Singh's PhD thesis,
USC 2008, §5.1: the delay, in processor-seconds, that inserting the slot causes to the queued
jobs) at every candidate start of :meth:`scheduler.pricing.price.SiteQuote.price`, under
backfilling with a reservation depth K (Chiang et al. 2002; Srinivasan et al. 2002) — EASY
backfilling (Lifka 1995) is depth 1 (Mu'alem & Feitelson 2001), conservative backfilling
depth ∞ — without re-planning the whole queue for every start (which, at 200 or more queued
jobs, made a quote take half a second at the median and seconds at the 99th percentile).

Plain Python *and* the source of a C extension, like :mod:`scheduler.pricing._replan`; the
profile's steps are :mod:`scheduler.cluster._steps`' (C functions once compiled).  Times and
processor counts must fit in 62 bits; planned durations are 1 s or more (a queue with a job
of no duration is re-planned in full, :class:`~scheduler.pricing.price.SiteQuote`).
Compiler directives: the ``# cython:`` line above turns bounds checks, negative-index
wraparound and the views' initialization checks off for the whole module (every index is
within its buffer and not negative; a play reads only the views a :class:`Work` and its queue
have set).

What it computes: :class:`scheduler.cluster.depth.BackfillDepth`'s decisions, every job
submitted at ``now`` and running its planned duration — at each instant the reservations
whose time has come start; while fewer than K are held, the first job holding none is placed
at its earliest start; then the jobs holding none start in queue order where they fit now
(:func:`_run_depth`) — on a profile of its own.  At K = 1 these are the decisions of
:class:`scheduler.cluster.easy.EASY` played forward by the simulator
(``plan_with_policy("easy", ...)`` of :mod:`scheduler.pricing.plan`;
tests/scheduler/test_pricing_easy_fast.py).

Why it is fast (exact):

* the no-slot plan is played once per state (:class:`EasyQueue`), keeping at every instant
  ("event") it visits a *snapshot* of its state (the profile, the head, the jobs holding no
  reservation) and the windows of the tests its decisions passed: each placement's window,
  where the job holds its reservation, and each start's.  A slot ``[s, e)`` only takes ``n``
  processors away over ``[s, e)``: a test that failed fails with it too.  The *reach* of an
  event (running maximum) is the end of the last window it read (at least the next instant):
  at an event whose reach is not after ``s`` — and all events before it likewise — the plan
  with the slot takes the same decisions.  The instants the slot adds between two events
  (``s``, ``e``) decide nothing: the no-slot profile does not change between two events, so
  a job that fits there with the slot fitted at the event before, where it would have
  started.  :func:`delay` therefore restarts the plan with the slot from the snapshot of the
  first event whose reach passes ``s`` — earlier events are the no-slot plan's, their jobs
  keep their starts — and the slot costs 0 without re-planning when no event's reach passes
  ``s``.
* from that event on, a re-plan starts only at the first event where one of the passed tests
  may really fail (:func:`_first_moved`): each event keeps its tests' windows
  (``queue.wa``/``wb``/``wx``, see :func:`_win`) and they are checked on the profile *after*
  the event (the next snapshot), which holds the blocks the event placed or started — never
  more room than when a test was read, so a pass there is a pass — for ``n`` free over
  their overlap with the slot.
* a re-plan stops at the first instant ``t`` from ``e`` on where its state is the no-slot
  plan's: as many jobs decided before ``t`` (placed or started, ``queue.dec0``, sorted
  ``queue.vd``) as there, and every job whose start moved has ended in both plans.  The
  blocks past ``t``, the reservations held and the waiting jobs are then the no-slot plan's,
  which plays on from ``t`` as the no-slot plan does: nobody else moves.  Likewise at the
  *last re-plan's* state (of the same :class:`Work`): the plans of neighbouring candidate
  starts often meet long before the no-slot plan's state comes back.  The proof, with the
  reservations held, is at :func:`_meets_a_known_plan`.  (:class:`Work` ``.counts``:
  re-plans, events played, stops at either state.)
* the re-plan itself is one compiled loop: a per-width cache (the first instant with fewer
  than ``n`` free from ``t``, and its step) stamped with a generation that changes whenever
  a block is inserted, a placement's included (a first short instant found at an earlier
  event holds while it is not before the step holding ``t``: at most 2 comparisons per
  lookup); the step holding ``t`` is followed, not searched; a placement's block is inserted
  between the steps its earliest-start scan found, and a backfill's is bounded by the step
  the cache found.  The waiting jobs that may start are found in binary trees over the
  queue (least width, least duration over ranges, the one-processor jobs in trees of their
  own, :func:`_build3`, in 32 bits, :func:`_trees3`) that skip a range when its least width
  does not fit now for its shortest duration (then none of its jobs does).  Compiled, the
  profile's free counts end with a -1 past the last step, where the scan for a first short
  instant stops (no bound check per step); it tests four steps at a time (the least of them)
  and finds the short one of the four without a branch (:func:`_first_short`).  A re-plan
  sets its state up from the jobs decided before its restart event only (the first of the
  no-slot plan's decision order, ``queue.order``; the trees' leaves copied whole from
  ``queue.leaf3``).
* a quote prices all its candidate starts in one call (:func:`prices`: the fit beside the
  base, the hole test, the re-plan), on the buffers as typed views taken once per
  :class:`Work` (:class:`_Views`: a view costs a buffer request and a format check), and the
  small C helpers are declared not to raise (no error check after each call).

Measurements behind these choices: bench/results/kernels-history.txt (EASY ran on a loop of
its own until the depth-K loop at K = 1 was measured to give the same prices with fewer
instructions).

tests/scheduler/test_pricing_easy_fast.py (K = 1) and test_pricing_depth_fast.py check the
prices against :meth:`~scheduler.pricing.price.SiteQuote.price_naive` (Figure 22 literally),
compiled and pure, and the no-slot plans against the simulator's policy played forward
(:func:`~scheduler.pricing.plan.plan_with_policy`).
"""

from __future__ import annotations

import threading
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
if cython.compiled:  # the profile's steps: C functions (scheduler/cluster/_steps.pxd)
    from cython.cimports.scheduler.cluster._steps import (
        copy_run,
        earliest_window,
        holding_near,
        index,
        least_free,
        load_steps,
        take_block,
        take_shifted,
    )

    from scheduler.cluster._steps import buffer  # (a Python function)
else:  # their pure source (a build's functions take C arrays, not lists)
    from scheduler._native import load_pure

    _steps = load_pure("scheduler.cluster._steps", "scheduler.cluster._steps_pure")
    buffer, index, earliest_window = _steps.buffer, _steps.index, _steps.earliest_window
    least_free, load_steps, take_block = _steps.least_free, _steps.load_steps, _steps.take_block
    copy_run, holding_near = _steps.copy_run, _steps.holding_near

__all__ = ["EasyQueue", "buffer", "delay", "delays", "prices", "restart"]

#: "never short" / "reads the rest of the profile" (past the last breakpoint all is free)
_INF = 1 << 62  # (the C functions write the literal: a module global is a Python object)
#: "none" in the depth-K trees over the waiting jobs (32-bit values: :func:`_trees3`)
_TREE_INF = (1 << 32) - 1
#: the longest planned duration the depth-K kernel takes (its trees hold durations in 32 bits)
MAX_DURATION = _TREE_INF - 1


def _check_queue(procs: list, durs: list, capacity: int, depth: int) -> None:
    """Refuse a queue the kernel cannot plan: a job wider than the machine or of fewer than 0
    processors, a reservation depth below 1, or a planned duration outside 1 s ..
    MAX_DURATION (its 32-bit trees hold durations; a job of no duration is re-planned in full
    by :class:`~scheduler.pricing.price.SiteQuote`, see its ``_setup``)."""
    m = len(procs)
    for q in procs:
        if q > capacity:
            raise ValueError(f"a job of {q} processors never fits {capacity}")
    if m and not (min(durs) >= 1 and max(durs) <= MAX_DURATION):
        raise ValueError(
            f"planned durations must be in 1..{MAX_DURATION} s (the kernel's trees hold them "
            "in 32 bits; the door's bound is 100 years; a job of no duration is re-planned in "
            f"full); got {min(durs)}..{max(durs)}"
        )
    if m and min(procs) < 0:
        raise ValueError(f"a job of {min(procs)} processors")
    if depth < 1:
        raise ValueError(f"the reservation depth must be >= 1 (1: EASY); got {depth}")


class EasyQueue:
    """The no-slot plan of a queue under backfilling with reservation depth ``depth``
    (1: EASY, the plan of :class:`scheduler.cluster.easy.EASY` played forward by the simulator,
    ``plan_with_policy("easy", ...)``; K: :mod:`scheduler.cluster.depth`, see
    :func:`_run_depth`), played once from the base profile's lists (``base_times``,
    ``base_free``; ``capacity`` processors) at ``now``, with its snapshots.

    ``starts``: the no-slot starts (a list, queue order); the buffers ``ev`` (the event at which
    each job's start was decided: it started, or got its reservation; ``dec0`` its instant,
    ``vd`` those sorted), and per event ``reach`` (running maximum), ``head``, ``left`` (jobs
    holding no reservation and not started), ``prev`` (the instant of the event before),
    ``off`` (the event's profile in ``pt``/``pf`` at ``off[i]:off[i + 1]``); ``events``: how
    many; the windows of the tests each event passed (``wa``/``wb``/``wx`` at
    ``woff[i]:woff[i + 1]``, see :func:`_first_moved`)."""

    def __init__(
        self,
        base_times: list,
        base_free: list,
        capacity: int,
        procs: list,
        durs: list,
        now: int,
        depth: int = 1,
    ) -> None:
        _check_queue(procs, durs, capacity, depth)
        m = len(procs)
        self.m = m
        self.depth = depth  # K >= 1 reservations (1: EASY)
        self.now = now
        self.capacity = capacity
        self.base_times = list(base_times)
        self.base_free = list(base_free)
        self.procs = buffer(list(procs), m)
        self.durs = buffer(list(durs), m)
        self.size = len(base_times) + 2 * m + 4  # room for any plan's profile (+ the slot)
        self.cap_events = self.size + 2  # every event is a breakpoint, visited once
        self.leaves = 1 << max(m - 1, 0).bit_length()  # the trees' leaves: a power of 2, >= m
        self.starts0 = buffer([], m)
        self.dec0 = buffer([], m)  # the instant each job's start was decided (its event's)
        self.ev = buffer([], m)
        self.reach = buffer([], self.cap_events)
        self.head = buffer([], self.cap_events)
        self.left = buffer([], self.cap_events)
        self.prev = buffer([], self.cap_events)
        self.off = buffer([], self.cap_events + 1)
        self.pt = buffer([], 0)
        self.pf = buffer([], 0)
        self.woff = buffer([], self.cap_events + 1)  # each event's windows, in wa/wb/wx
        self.wa = buffer([], 0)
        self.wb = buffer([], 0)
        self.wx = buffer([], 0)
        self.nwin = 0
        self.vd = buffer([], m)
        self.events = 0
        #: the jobs in the order the no-slot plan decided them (by event), and the leaves of
        #: the trees with every job waiting (:func:`_replan_depth`)
        self.order = buffer([], m)
        self.leaf3 = None
        _play(self)
        self.leaf3 = _trees3(m // 2 + 1)  # _build3's leaves (3m values or more)
        _order_leaves(self.ev, self.events, self.procs, self.durs, m, self.order, self.leaf3)
        self.starts = self.starts0[:m].tolist() if cython.compiled else list(self.starts0)[:m]
        self.vd = buffer(sorted(self.dec0[:m]), m)
        self.bt = buffer(self.base_times, len(self.base_times))  # (as the kernel reads them)
        self.bf = buffer(self.base_free, len(self.base_times))


@cython.final
@cython.cclass
class _Play:
    """Where one play of a plan (:func:`_run_depth`) stands between its steps: the instant
    ``t`` (``prev_t``: the one before), the step ``a`` holding it among ``nsteps``, the head
    ``h`` (the first job not decided), ``left`` jobs waiting, ``e`` events recorded, ``held``
    reservations not yet started (the heap's size).  ``gen``: the generation of the per-width
    cache (:func:`_caches`).  Recording (``mode`` 1-3): ``event_reach`` the reach of this
    event, ``run_max`` their running maximum, ``nw`` the windows recorded so far.
    Re-planning (``mode`` 0): ``delay`` so far, ``nsv`` decisions in ``new_sorted``, and the
    stop test's state (:func:`_meets_a_known_plan`: ``settle``, ``vp``; ``settle2``, ``pv``;
    ``how`` it stopped)."""

    mode: cython.int
    rec: cython.bint
    wr: cython.bint
    t: cython.longlong
    prev_t: cython.longlong
    a: cython.Py_ssize_t
    nsteps: cython.Py_ssize_t
    h: cython.Py_ssize_t
    left: cython.Py_ssize_t
    e: cython.Py_ssize_t
    gen: cython.longlong
    held: cython.Py_ssize_t
    event_reach: cython.longlong
    run_max: cython.longlong
    nw: cython.Py_ssize_t
    delay: cython.longlong
    nsv: cython.Py_ssize_t
    settle: cython.longlong
    vp: cython.Py_ssize_t
    settle2: cython.longlong
    pv: cython.Py_ssize_t
    how: cython.int


@cython.cclass
class _Views:
    """The buffers of an :class:`EasyQueue` (and of a :class:`Work`, if any) as the compiled
    loops read them: typed views taken once, not at every call (each costs a buffer request
    and a check of its format; a quote makes ~200 re-plans).  Built again whenever ``queue``'s
    buffers are replaced (:func:`_record`)."""

    queue: object
    m: cython.Py_ssize_t
    leaves: cython.Py_ssize_t
    depth: cython.Py_ssize_t
    cap: cython.longlong
    now: cython.longlong
    procs: cython.longlong[::1]
    durs: cython.longlong[::1]
    starts0: cython.longlong[::1]
    dec0: cython.longlong[::1]
    ev: cython.longlong[::1]
    reach: cython.longlong[::1]
    head: cython.longlong[::1]
    left: cython.longlong[::1]
    prev: cython.longlong[::1]
    off: cython.longlong[::1]
    pt: cython.longlong[::1]
    pf: cython.longlong[::1]
    woff: cython.longlong[::1]
    wa: cython.longlong[::1]
    wb: cython.longlong[::1]
    wx: cython.longlong[::1]
    vd: cython.longlong[::1]
    times: cython.longlong[::1]
    free: cython.longlong[::1]
    waiting: cython.longlong[::1]
    short_now: cython.longlong[::1]
    tree3: cython.uint[::1]
    order: cython.longlong[::1]
    leaf3: cython.uint[::1]
    heap: cython.longlong[::1]
    counts: cython.longlong[::1]
    last_starts: cython.longlong[::1]
    last_sorted: cython.longlong[::1]
    new_starts: cython.longlong[::1]
    new_sorted: cython.longlong[::1]
    last: cython.longlong
    ends: cython.longlong[::1]
    play: _Play

    def __init__(self, queue: EasyQueue, w) -> None:  # type: ignore[no-untyped-def]
        self.queue = queue
        self.m = queue.m
        self.leaves = queue.leaves
        self.depth = queue.depth
        self.cap = queue.capacity
        self.now = queue.now
        self.procs = queue.procs
        self.durs = queue.durs
        self.starts0 = queue.starts0
        self.dec0 = queue.dec0
        self.ev = queue.ev
        self.reach = queue.reach
        self.head = queue.head
        self.left = queue.left
        self.prev = queue.prev
        self.off = queue.off
        self.pt = queue.pt
        self.pf = queue.pf
        self.woff = queue.woff
        self.wa = queue.wa
        self.wb = queue.wb
        self.wx = queue.wx
        self.vd = queue.vd
        self.order = queue.order
        self.leaf3 = queue.leaf3
        if w is not None:
            self.times = w.times
            self.free = w.free
            self.waiting = w.waiting
            self.short_now = w.short_now
            self.tree3 = w.tree3
            self.heap = w.heap
            self.counts = w.counts
            self.last_starts = w.last_starts
            self.last_sorted = w.last_sorted
            self.new_starts = w.new_starts
            self.new_sorted = w.new_sorted
        self.last = -1  # the end of the last re-plan's slot (-1: none yet)
        self.ends = buffer([], 1)  # (earliest_window's second result)
        self.play = _Play()  # (the state of a play between its steps, reused)


@cython.cfunc
@cython.exceptval(check=False)
def _reserve_at(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    a: cython.Py_ssize_t,
    b: cython.Py_ssize_t,
    t: cython.longlong,
    stop: cython.longlong,
    q: cython.longlong,
) -> cython.Py_ssize_t:
    """:func:`~scheduler.cluster._steps.reserve` of ``q`` processors over ``[t, stop)`` when
    step ``a`` holds ``t`` and ``stop`` is not after step ``b``'s first instant (``b`` > ``a``;
    ``nsteps``: no bound); compiled, ``free[nsteps]`` is then -1 (:func:`_first_short`)."""
    k: cython.Py_ssize_t = a
    n: cython.Py_ssize_t = b - a
    half: cython.Py_ssize_t
    if stop <= t or q == 0:
        return nsteps
    if cython.compiled:  # k: the step holding stop - 1, from a (T[a] <= t) on, branchless
        while n > 1:
            half = n >> 1
            k = k + half if times[k + half] < stop else k
            n -= half
    else:
        k = bisect_right(times, stop - 1, a, b) - 1
    if not cython.compiled:
        return take_block(times, free, nsteps, a, k, t, stop, q)
    nsteps = take_shifted(
        cython.address(times[0]), cython.address(free[0]), nsteps, a, k, t, stop, q
    )
    free[nsteps] = -1  # (the stop of _first_short's scan)
    return nsteps


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _first_short(
    free: cython.longlong[::1], nsteps: cython.Py_ssize_t, j: cython.Py_ssize_t, n: cython.longlong
) -> cython.Py_ssize_t:
    """The first step from ``j`` on with fewer than ``n`` free (none: ``nsteps``).  Compiled,
    ``free[nsteps]`` is -1 (:func:`_reserve_at` keeps it so): the scan stops there, four steps a
    test (``free`` has 3 more items past ``free[nsteps]``), then the first short one of the four is
    found without a branch."""
    b: cython.Py_ssize_t
    if cython.compiled:
        while min(min(free[j], free[j + 1]), min(free[j + 2], free[j + 3])) >= n:
            j += 4
        b = cython.cast(cython.Py_ssize_t, free[j] >= n)
        b += b & cython.cast(cython.Py_ssize_t, free[j + 1] >= n)
        b += (b >> 1) & cython.cast(cython.Py_ssize_t, free[j + 2] >= n)
        return j + b
    while j < nsteps and free[j] >= n:
        j += 1
    return j


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _short_cached(
    cache: cython.longlong[::1],
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    a: cython.Py_ssize_t,
    w: cython.longlong,
    gen: cython.longlong,
    t: cython.longlong,
    ci: cython.Py_ssize_t,
) -> cython.longlong:
    """The first instant from step ``a`` on with fewer than ``w`` free, from the per-width cache
    (:func:`_caches`: ``cache[2w + 1]``, found in generation ``cache[2w]``, its step at
    ``cache[ci + w]``) while it is of generation ``gen`` and not before ``t`` (no step from there
    to it had fewer free); else found and kept there."""
    js: cython.Py_ssize_t
    if (cache[2 * w] != gen) | (cache[2 * w + 1] < t):  # (both read at once)
        js = _first_short(free, nsteps, a, w)
        cache[ci + w] = js
        cache[2 * w + 1] = times[js] if js < nsteps else 4611686018427387904  # _INF
        cache[2 * w] = gen
    return cache[2 * w + 1]


@cython.cfunc
def _order_leaves(
    ev: cython.longlong[::1],
    events: cython.Py_ssize_t,
    procs: cython.longlong[::1],
    durs: cython.longlong[::1],
    m: cython.Py_ssize_t,
    order: cython.longlong[::1],
    leaf3: cython.uint[::1],
) -> cython.void:
    """``order``: the ``m`` jobs by the event that decided them (``ev``, below ``events``;
    queue order within an event: a counting sort); ``leaf3``: the leaves of the trees with
    every job waiting (:func:`_build3`'s, job ``k``'s at ``3k``)."""
    x: cython.Py_ssize_t
    count: cython.longlong[::1] = buffer([], events + 1)
    for x in range(m):
        count[ev[x] + 1] += 1
    for x in range(events):
        count[x + 1] += count[x]
    for x in range(m):
        order[count[ev[x]]] = x
        count[ev[x]] += 1
    for x in range(m):
        _leaf3(leaf3, 0, x, procs[x], durs[x])


def _trees3(leaves: int):  # type: ignore[no-untyped-def]
    """A buffer for :func:`_build3`'s trees over ``leaves`` leaves, every node _TREE_INF (none),
    in 32 bits: a node's three
    values take 12 bytes, the trees over 1,024 leaves 24 KiB, within a 32 KiB L1 data cache (in 64
    bits, 48 KiB are not).  Exact for widths and durations up to MAX_DURATION (EasyQueue refuses
    longer: the door's bound, :data:`scheduler.bounds.MAX_SECONDS`, is shorter)."""
    if cython.compiled:
        return array("I", [_TREE_INF]) * (6 * leaves)
    return [_TREE_INF] * (6 * leaves)


@cython.cfunc
@cython.exceptval(check=False)
def _build3(
    tree: cython.uint[::1],
    leaves: cython.Py_ssize_t,
    procs: cython.longlong[::1],
    durs: cython.longlong[::1],
    waiting: cython.longlong[::1],
    m: cython.Py_ssize_t,
) -> cython.void:
    """Binary trees over the waiting jobs (leaf ``leaves + k``: job ``k``; the root is node 1,
    ``leaves`` a power of 2), the one-processor jobs apart (two thirds of CTC-SP2's queued
    jobs): node ``i`` holds at ``3i`` the least duration of the waiting one-processor jobs of
    its range, at ``3i + 1`` and ``3i + 2`` the least processors and the least duration of
    the others (_TREE_INF: none).  The search's test of a range (:func:`_next_fitting`) is
    then exact for its one-processor jobs: a range of long one-processor jobs and short wide
    ones, which passes as one class (its least width fits now for its least duration, no job
    of it does), is skipped.  Only the leaves of the ``m`` jobs and the nodes above them are
    written: the others are _TREE_INF for good (:func:`_trees3`)."""
    i: cython.Py_ssize_t
    inf: cython.uint = 4294967295  # _TREE_INF
    for i in range(m):  # (the other leaves and the nodes above them only: _fill3)
        if waiting[i] != 0:
            _leaf3(tree, leaves, i, procs[i], durs[i])
        else:
            _leaf3(tree, leaves, i, inf, inf)
    _fill3(tree, leaves, m)


@cython.cfunc
@cython.exceptval(check=False)
def _fill3(tree: cython.uint[::1], leaves: cython.Py_ssize_t, m: cython.Py_ssize_t) -> cython.void:
    """The inner nodes of :func:`_build3`'s trees above the leaves of the ``m`` jobs, from
    their leaves (level by level)."""
    i: cython.Py_ssize_t
    lo: cython.Py_ssize_t = leaves
    hi: cython.Py_ssize_t = leaves + m
    while lo > 1:
        lo >>= 1
        hi = (hi + 1) >> 1
        for i in range(lo, hi):
            tree[3 * i] = min(tree[6 * i], tree[6 * i + 3])
            tree[3 * i + 1] = min(tree[6 * i + 1], tree[6 * i + 4])
            tree[3 * i + 2] = min(tree[6 * i + 2], tree[6 * i + 5])


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _leaf3(
    tree: cython.uint[::1],
    leaves: cython.Py_ssize_t,
    k: cython.Py_ssize_t,
    q: cython.longlong,
    dq: cython.longlong,
) -> cython.void:
    """Leaf ``leaves + k`` of :func:`_build3`'s trees: job ``k`` of ``q`` processors for ``dq`` s
    (``q`` _INF: none)."""
    i: cython.Py_ssize_t = 3 * (leaves + k)
    inf: cython.uint = 4294967295  # _TREE_INF
    if q == 1:
        tree[i] = dq
        tree[i + 1] = inf
        tree[i + 2] = inf
    else:
        tree[i] = inf
        tree[i + 1] = q
        tree[i + 2] = dq


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _gone3(tree: cython.uint[::1], leaves: cython.Py_ssize_t, k: cython.Py_ssize_t) -> cython.void:
    """Job ``k`` no longer waits: its class's tree in :func:`_build3`'s updated up to the
    first node that does not change (its ancestors do not either)."""
    i: cython.Py_ssize_t = leaves + k
    vw: cython.uint
    vd: cython.uint
    inf: cython.uint = 4294967295  # _TREE_INF (typed: compared in C)
    if tree[3 * i] != inf:  # one processor
        tree[3 * i] = inf
        i >>= 1
        while i > 0:
            vd = min(tree[6 * i], tree[6 * i + 3])
            if vd == tree[3 * i]:
                break
            tree[3 * i] = vd
            i >>= 1
        return
    tree[3 * i + 1] = inf
    tree[3 * i + 2] = inf
    i >>= 1
    while i > 0:
        vw = min(tree[6 * i + 1], tree[6 * i + 4])
        vd = min(tree[6 * i + 2], tree[6 * i + 5])
        if vw == tree[3 * i + 1] and vd == tree[3 * i + 2]:
            break
        tree[3 * i + 1] = vw
        tree[3 * i + 2] = vd
        i >>= 1


@cython.cfunc
@cython.exceptval(check=False)
def _snapshot(
    views: _Views, p: _Play, times: cython.longlong[::1], free: cython.longlong[::1]
) -> cython.void:
    """Record event ``p.e``'s state (the head, the jobs waiting, the instant before, where its
    windows start; ``p.mode`` 1: the size of its profile, 2: the profile itself, in
    ``queue.pt``/``queue.pf``; 3: both, the profile only while it fits the buffers)."""
    o: cython.Py_ssize_t = views.off[p.e]
    if p.wr:
        views.woff[p.e] = p.nw
    views.head[p.e] = p.h
    views.left[p.e] = p.left
    views.prev[p.e] = p.prev_t
    if p.mode != 2:
        views.off[p.e + 1] = o + p.nsteps
    if p.mode != 1 and o + p.nsteps <= len(views.pt):
        copy_run(views.pt, o, times, 0, p.nsteps)
        copy_run(views.pf, o, free, 0, p.nsteps)


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _win(
    views: _Views,
    nw: cython.Py_ssize_t,
    write: cython.bint,
    w0: cython.longlong,
    w1: cython.longlong,
    x: cython.longlong,
) -> cython.Py_ssize_t:
    """Record the window of a test passed, ``[w0, w1)``, and ``x``: the processors it needs
    free beside the blocks in place after its event (``write``: into
    ``win_from``/``win_to``/``win_extra`` at ``nw``; else only count).  Returns the new count."""
    win_from: cython.longlong[::1] = views.wa
    win_to: cython.longlong[::1] = views.wb
    win_extra: cython.longlong[::1] = views.wx
    if write and nw < len(win_from):
        win_from[nw] = w0
        win_to[nw] = w1
        win_extra[nw] = x
    return nw + 1


@cython.cfunc
@cython.exceptval(check=False)
def _rest(views: _Views, p: _Play) -> cython.longlong:
    """A re-plan that stopped at the no-slot plan's state (``p.how`` 1: its first ``p.vp``
    decisions were) or at the last re-plan's (2: its first ``p.pv``): the jobs still undecided
    are decided as there; returns the delay they add (none at the no-slot plan's)."""
    last_starts: cython.longlong[::1] = views.last_starts
    starts0: cython.longlong[::1] = views.starts0
    rest: cython.longlong = 0
    x: cython.Py_ssize_t
    if p.how == 1:
        copy_run(views.new_sorted, p.vp, views.vd, p.vp, views.m - p.vp)
        return 0
    for x in range(views.m):
        if views.waiting[x] != 0:
            views.new_starts[x] = last_starts[x]
            if last_starts[x] > starts0[x]:
                rest += (last_starts[x] - starts0[x]) * views.procs[x]
    copy_run(views.new_sorted, p.pv, views.last_sorted, p.pv, views.m - p.pv)
    return rest


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _settled(
    settle: cython.longlong, start: cython.longlong, other: cython.longlong, dq: cython.longlong
) -> cython.longlong:
    """``settle`` moved past the end, in both plans, of a job started at ``start`` here and at
    ``other`` (not ``start``) in the plan compared with: from then on the job's start no
    longer tells the two states apart."""
    return max(settle, max(start, other) + dq)


@cython.cfunc
@cython.exceptval(check=False)
def _begin(
    p: _Play,
    views: _Views,
    times: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    t: cython.longlong,
    h: cython.Py_ssize_t,
    left: cython.Py_ssize_t,
    held: cython.Py_ssize_t,
    mode: cython.int,
    stop: cython.longlong,
    settle2: cython.longlong,
) -> cython.void:
    """Set ``p`` up for a play (:func:`_run_depth`) from instant ``t``: profile ``times`` of
    ``nsteps`` steps, head ``h``, ``left`` jobs waiting, ``held`` reservations not yet started
    (on ``views.heap``); ``mode`` 1-3 records the no-slot plan, 0 re-plans, stopping from
    ``stop`` on at the no-slot plan's state and from ``settle2`` on at the last re-plan's."""
    p.mode = mode
    p.rec = mode != 0
    p.wr = mode >= 2
    p.t = t
    p.prev_t = t
    p.nsteps = nsteps
    p.a = index(times, t, nsteps)  # the step holding t (followed, not searched, from here on)
    p.h = h
    p.left = left
    p.e = 0
    p.held = held
    p.gen = views.short_now[0] + 1  # slot 0 holds the last generation used
    p.event_reach = 0
    p.run_max = 0
    p.nw = 0
    p.delay = 0
    p.nsv = views.m - left  # (the first decisions in new_sorted: the no-slot plan's)
    p.settle = stop  # no earlier instant's state is the no-slot plan's
    p.vp = 0
    p.settle2 = settle2
    p.pv = 0
    p.how = 0


@cython.cfunc
@cython.exceptval(check=False)
def _open_event(
    views: _Views, p: _Play, times: cython.longlong[::1], free: cython.longlong[::1]
) -> cython.void:
    """Recording: the state before event ``p.e`` (:func:`_snapshot`); its reach is at least
    ``t + 1`` (the processors free now)."""
    _snapshot(views, p, times, free)
    p.event_reach = p.t + 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _close_event(views: _Views, p: _Play, reach: cython.longlong) -> cython.void:
    """Recording: event ``p.e`` reaches ``reach`` (kept as the running maximum)."""
    p.run_max = max(p.run_max, reach)
    views.reach[p.e] = p.run_max
    p.e += 1


@cython.cfunc
@cython.exceptval(check=False)
def _finish(
    queue: EasyQueue,
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
) -> cython.longlong:
    """The end of a play: recording, how many events and windows, and the profile after the
    last event (its snapshot); a re-plan that met a known plan, the jobs still undecided
    decided as there (:func:`_rest`).  Returns the re-plan's delay."""
    views.short_now[0] = p.gen
    if p.rec:
        queue.events = p.e
        queue.nwin = p.nw
        _snapshot(views, p, times, free)
    elif p.how != 0:
        p.delay += _rest(views, p)
    return p.delay


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _next_instant(views: _Views, p: _Play, times: cython.longlong[::1]) -> cython.void:
    """Depth K: the next instant, a breakpoint of the profile or a reservation's start (there
    is one: a job that did not start now finds the whole machine free past the last
    breakpoint, and the reserved ones start later)."""
    nxt: cython.longlong = times[p.a + 1] if p.a + 1 < p.nsteps else 4611686018427387904  # _INF
    p.prev_t = p.t
    if p.held > 0 and views.heap[0] < nxt:
        p.t = views.heap[0]  # (within the step holding t)
    else:
        p.t = nxt
        p.a += 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _meets_a_known_plan(views: _Views, p: _Play) -> cython.bint:
    """A re-plan's stop at ``p.t`` (``p.how``): its state is the no-slot plan's (1) or the last
    re-plan's (2).  From ``p.settle`` on, the slot is over and every job decided differently
    from the no-slot plan (its start, or at depth K the instant of its reservation) ended in
    both: if the jobs decided are the ones the no-slot plan decided before ``t``
    (``plan_sorted``, :attr:`EasyQueue.vd`), its state — the blocks past ``t``, the waiting
    jobs — is the no-slot plan's, which plays on from ``t`` as the no-slot plan (an instant it
    does not visit decides nothing there): nobody else moves.  From ``p.settle2`` on, the same
    against the last re-plan (its decisions sorted: ``last_sorted``).

    At depth K (:func:`_run_depth`) the state compared is the profile from ``t`` on, the
    reservations held and the jobs holding none, and the test is the same: as many jobs
    decided before ``t`` as the other plan, and every job whose start differs from the other
    plan's ended in both.  Then the jobs started before ``t`` (``A``) are the other plan's
    (``B``): one of ``A`` whose start differs ended before ``t`` in both, one whose start is
    the same started before ``t`` there too, so ``A`` is in ``B``.  After an event a plan holds
    K reservations (starts from ``t`` on) unless it has no job left to decide; this one has
    one (its loop runs), so the other, having decided as many, has one too: both hold K, and
    ``A`` and ``B`` are as large, the same.  A reservation only ever goes to the first job of
    the queue not decided yet, so every job ahead of a reserved one is decided: the K held
    are, in both, the first K jobs of the queue not in ``A`` — the same jobs, at the same
    starts (a start that differs would have ended).  The blocks from ``t`` on are then the
    same (the slot is over), and so is the plan from ``t`` on: the jobs still undecided start
    as there."""
    decided: cython.Py_ssize_t = views.m - p.left
    if p.t >= p.settle:
        p.vp = _decided_before(views.vd, p.vp, views.m, p.t)
        if p.vp == decided:
            p.how = 1
    if p.how == 0 and p.t >= p.settle2:
        p.pv = _decided_before(views.last_sorted, p.pv, views.m, p.t)
        if p.pv == decided:
            p.how = 2
    if p.how == 0:
        return False
    views.counts[1 + p.how] += 1  # (stops at the no-slot plan's state, at the last re-plan's)
    return True


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _decided_before(
    sorted_instants: cython.longlong[::1],
    x: cython.Py_ssize_t,
    m: cython.Py_ssize_t,
    t: cython.longlong,
) -> cython.Py_ssize_t:
    """How many of the ``m`` decision instants ``sorted_instants`` are before ``t``, counted on
    from ``x`` (as many are known to be)."""
    while x < m and sorted_instants[x] < t:
        x += 1
    return x


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
def _decide(
    views: _Views,
    p: _Play,
    k: cython.Py_ssize_t,
    q: cython.longlong,
    dq: cython.longlong,
    start: cython.longlong,
) -> cython.void:
    """Job ``k`` (``q`` processors, ``dq`` s) is decided at ``p.t``: it starts at ``start``
    (``t``, or at depth K the start of its reservation) and waits no more.  Recorded by the
    no-slot plan (its start, the instant and event of the decision); compared by a re-plan
    with the no-slot start (the delay) and with both plans (when its start no longer tells
    the states apart, :func:`_settled`)."""
    s0: cython.longlong
    s1: cython.longlong
    if p.rec:
        views.starts0[k] = start
        views.dec0[k] = p.t
        views.ev[k] = p.e
    else:
        s0 = views.starts0[k]
        s1 = views.last_starts[k]
        views.new_starts[k] = start
        views.new_sorted[p.nsv] = p.t
        p.nsv += 1
        if start != s1:
            p.settle2 = _settled(p.settle2, start, s1, dq)
        if start != s0:
            p.settle = _settled(p.settle, start, s0, dq)
            if start > s0:
                p.delay += (start - s0) * q
    views.waiting[k] = 0
    p.left -= 1


@cython.cfunc
@cython.exceptval(check=False)
def _push(
    heap: cython.longlong[::1], n: cython.Py_ssize_t, v: cython.longlong
) -> cython.Py_ssize_t:
    """Push ``v`` onto the min-heap ``heap[:n]``; returns ``n + 1``."""
    i: cython.Py_ssize_t = n
    p: cython.Py_ssize_t
    while i > 0:
        p = (i - 1) >> 1
        if heap[p] <= v:
            break
        heap[i] = heap[p]
        i = p
    heap[i] = v
    return n + 1


@cython.cfunc
@cython.exceptval(check=False)
def _pop(heap: cython.longlong[::1], n: cython.Py_ssize_t) -> cython.Py_ssize_t:
    """Remove the least item of the min-heap ``heap[:n]``; returns ``n - 1``."""
    i: cython.Py_ssize_t = 0
    c: cython.Py_ssize_t
    v: cython.longlong
    n -= 1
    if n == 0:
        return 0
    v = heap[n]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and heap[c + 1] < heap[c]:
            c += 1
        if heap[c] >= v:
            break
        heap[i] = heap[c]
        i = c
    heap[i] = v
    return n


@cython.cfunc
def _run_depth(
    queue: EasyQueue, views: _Views, times: cython.longlong[::1], free: cython.longlong[::1]
) -> cython.longlong:
    """Backfilling with reservation depth K (EASY holds one reservation, K = 1; conservative
    backfilling all: Mu'alem & Feitelson 2001): depth K = ``queue.depth``
    (:class:`scheduler.cluster.depth.BackfillDepth`, every job submitted at ``queue.now``,
    running its planned duration) from the state :func:`_begin` set in ``views.play``: profile
    ``times``/``free`` with the blocks of every job started or holding a reservation;
    ``views.waiting`` the jobs holding neither, ``views.tree3`` their trees (:func:`_build3`);
    ``views.heap`` the starts of the reservations not yet started.  At each
    instant: the reservations whose time has come start; while fewer than K are held, the
    first job holding none is placed at its earliest start with every block in place (and
    starts if that is now, :func:`_place_first_k`); then the jobs holding none, in queue order,
    start if their processors are free over ``[t, t + planned duration)``
    (:func:`_start_fitting`).  Next instant: the next breakpoint of the profile or reserved
    start (an instant where neither more processors are free nor a reservation starts decides
    nothing: every test that failed before fails again).  An event's reach: ``t + 1``, every
    placement's and passed test's window, the next instant.  ``views.short_now``:
    :func:`_caches`.

    ``mode`` 1-3 records the no-slot plan (:func:`_record`: 1 the sizes of the snapshots and
    windows, 2 copying them, 3 both while they fit).  ``mode`` 0, a re-plan, returns the delay
    against the no-slot starts, keeps its starts (``new_starts``) and decision instants
    (``new_sorted``, sorted, the first ones given), and stops once, from ``stop`` (the slot's
    end) on, its state is the no-slot plan's, or from ``settle2`` on the last re-plan's
    (:func:`_meets_a_known_plan`, with the proof; ``views.counts``: re-plans, events, stops)."""
    p: _Play = views.play
    short_now: cython.longlong[::1] = views.short_now  # (what the loops read: as locals)
    tree: cython.uint[::1] = views.tree3
    if not p.rec:
        views.counts[0] += 1
    while p.left > 0:
        if p.rec:
            _open_event(views, p, times, free)
        else:
            views.counts[1] += 1
            if _meets_a_known_plan(views, p):
                break
        while p.held > 0 and views.heap[0] <= p.t:  # the reservations whose time has come
            p.held = _pop(views.heap, p.held)  # start (their blocks are in place)
        _place_first_k(views, p, times, free)
        if p.left == 0:
            if p.rec:
                _close_event(views, p, p.event_reach)
            break
        _start_fitting(views, p, times, free, short_now, tree)
        _next_instant(views, p, times)
        if p.rec:
            _close_event(views, p, max(p.event_reach, p.t))
    return _finish(queue, views, p, times, free)


@cython.cfunc
@cython.exceptval(check=False)
def _place_first_k(
    views: _Views, p: _Play, times: cython.longlong[::1], free: cython.longlong[::1]
) -> cython.void:
    """Depth K at ``p.t``: while fewer than K reservations are held, the first job holding
    none enters the first K — placed at its earliest start with every block in place, started
    if that is now, else held (its start on the heap)."""
    m: cython.Py_ssize_t = views.m
    t: cython.longlong = p.t
    h: cython.Py_ssize_t
    x: cython.Py_ssize_t
    q: cython.longlong
    dq: cython.longlong
    st: cython.longlong
    while p.held < views.depth and p.h < m:
        h = p.h
        p.h += 1
        if views.waiting[h] == 0:  # started earlier
            continue
        q = views.procs[h]
        dq = views.durs[h]
        x = earliest_window(times, free, p.nsteps, p.a, q, dq, t, views.ends)
        st = t if x == p.a else times[x]
        if p.rec:  # the window it was placed in: a test passed
            p.event_reach = max(p.event_reach, st + dq)
            p.nw = _win(views, p.nw, p.wr, st, st + dq, 0)
        p.nsteps = _reserve_at(times, free, p.nsteps, x, views.ends[0] + 1, st, st + dq, q)
        p.a = holding_near(times, p.nsteps, p.a, t)
        p.gen += 1  # (the profile changed: the first short instants found are stale)
        _decide(views, p, h, q, dq, st)
        if st > t:
            p.held = _push(views.heap, p.held, st)
        _gone3(views.tree3, views.leaves, h)


@cython.cfunc
@cython.exceptval(check=False)
def _start_fitting(
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    short_now: cython.longlong[::1],
    tree: cython.uint[::1],
) -> cython.void:
    """Depth K at ``p.t``, then: the jobs holding no reservation, in queue order, start if
    their processors are free over ``[t, t + planned duration)`` (found by
    :func:`_next_fitting`; the first search from the root: the jobs before the head hold a
    reservation or started, none waits)."""
    ci: cython.Py_ssize_t = 2 * (views.cap + 1)  # short_now[ci + w]: the step found (_caches)
    t: cython.longlong = p.t
    k: cython.Py_ssize_t = -1
    q: cython.longlong
    dq: cython.longlong
    end: cython.longlong
    now_free: cython.longlong = free[p.a]
    while now_free > 0:
        k = _next_fitting(views, p, times, free, short_now, tree, k, now_free)
        if k < 0:
            break
        q = views.procs[k]
        dq = views.durs[k]
        end = t + dq
        if end > _short_cached(short_now, times, free, p.nsteps, p.a, q, p.gen, times[p.a], ci):
            continue
        if p.rec:  # a test passed: its window
            p.event_reach = max(p.event_reach, end)
            p.nw = _win(views, p.nw, p.wr, t, end, 0)
        # (it ends by the first short instant for q, the cache's: no later than the step
        # found there)
        p.nsteps = _reserve_at(times, free, p.nsteps, p.a, short_now[ci + q], t, end, q)
        _decide(views, p, k, q, dq, t)
        _gone3(tree, views.leaves, k)
        p.a = holding_near(times, p.nsteps, p.a, t)  # (the block took room from t on)
        p.gen += 1
        now_free -= q


@cython.cfunc
@cython.exceptval(check=False)
def _next_fitting(
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    short_now: cython.longlong[::1],
    tree: cython.uint[::1],
    k: cython.Py_ssize_t,
    now_free: cython.longlong,
) -> cython.Py_ssize_t:
    """The next job behind ``k`` (-1: from the first) holding no reservation, no wider than
    ``now_free``, whose range's shortest job at its least width fits now (-1: none) — a first
    short instant found at an earlier event holds while no block was inserted since (the
    generation) and it is not before the step holding ``t``.  The one-processor jobs fit
    exactly when they end by the first instant from ``t`` with no processor free (``sh1``):
    their range test is one comparison (:func:`_build3`)."""
    leaves: cython.Py_ssize_t = views.leaves
    ci: cython.Py_ssize_t = 2 * (views.cap + 1)
    tree_near: cython.longlong = 4294967294  # _TREE_INF - 1 (typed: a C constant)
    t: cython.longlong = p.t
    a: cython.Py_ssize_t = p.a
    nsteps: cython.Py_ssize_t = p.nsteps
    gen: cython.longlong = p.gen
    ta: cython.longlong = times[a]
    i: cython.Py_ssize_t = 1 if k < 0 else k + 1 + leaves
    width: cython.longlong
    skip: cython.bint
    sh1: cython.longlong = min(  # (no job in the trees ends past t + tree_near)
        _short_cached(short_now, times, free, nsteps, a, 1, gen, ta, ci), t + tree_near
    )
    while i < 2 * leaves:
        skip = t + tree[3 * i] > sh1
        if skip:
            width = tree[3 * i + 1]  # the others, at their least width
            if width <= now_free:
                skip = t + tree[3 * i + 2] > _short_cached(
                    short_now, times, free, nsteps, a, width, gen, ta, ci
                )
        if not skip:
            if i >= leaves:
                return i - leaves
            i = 2 * i  # its left subtree first
            continue
        while i & 1:  # a right child: its parent's range is done
            i >>= 1
        if i == 0:
            return -1
        i += 1
    return -1


def _caches(capacity: int):  # type: ignore[no-untyped-def]
    """The per-width cache of :func:`_run_depth`, pairs (what one lookup reads side by side):
    for width ``w``, ``short_now[2w + 1]`` the first short instant from ``t``, found in
    generation ``short_now[2w]`` (``short_now[0]`` keeps the last generation used); after the
    pairs, ``short_now[2(capacity + 1) + w]`` the step of ``short_now[2w + 1]`` (``nsteps``:
    none), which bounds the search for the end of a backfill's block (:func:`_reserve_at`)."""
    return buffer([], 3 * (capacity + 1))


#: compiled: per thread, the buffers the no-slot plan is first recorded into (kept from one
#: queue to the next, grown as needed)
_SCRATCH = threading.local()


def _play(queue: EasyQueue) -> None:
    """Play ``queue``'s no-slot plan and record its snapshots and windows.  Compiled, it
    is played once into this thread's scratch buffers (grown when a plan did not fit: then
    it is played again into buffers of its sizes, as uncompiled) and copied to buffers of
    its sizes; uncompiled, once for the sizes and once more to copy them."""
    names = ("pt", "pf", "wa", "wb", "wx")
    if cython.compiled:
        have = getattr(_SCRATCH, "bufs", None)
        if have is None:
            have = _SCRATCH.bufs = {k: buffer([], 1024) for k in names}
        for k in names:
            setattr(queue, k, have[k])
        _record(queue, 3)  # (recorded while it fits, sized in full)
        total = queue.off[queue.events + 1]
        need = {"pt": total, "pf": total, "wa": queue.nwin, "wb": queue.nwin, "wx": queue.nwin}
        if all(need[k] <= len(have[k]) for k in names):
            for k in names:
                setattr(queue, k, have[k][: need[k]])  # (a copy)
            return
        for k in names:  # (room for this plan and a quarter more, from now on)
            if need[k] > len(have[k]):
                have[k] = buffer([], need[k] + need[k] // 4)
    else:
        _record(queue, 1)  # the sizes of the snapshots
        total = queue.off[queue.events + 1]  # (+ the plan's profile, after the last event)
    queue.pt = buffer([], total)
    queue.pf = buffer([], total)
    queue.wa = buffer([], queue.nwin)
    queue.wb = buffer([], queue.nwin)
    queue.wx = buffer([], queue.nwin)
    _record(queue, 2)  # the same plan again, copying them


def _record(queue: EasyQueue, mode: int) -> None:
    """Play the no-slot plan, recording its events (``mode`` as in :func:`_run_depth`: 1,
    their sizes; 2, their profiles and windows too; 3, both)."""
    views: _Views = Work(queue, True).views  # (the queue's buffers as they are now)
    nsteps: cython.Py_ssize_t = len(queue.base_times)
    if cython.compiled:
        views.free[nsteps] = -1  # (the stop of _first_short's scan)
    _build3(views.tree3, queue.leaves, queue.procs, queue.durs, views.waiting, queue.m)
    _begin(views.play, views, views.times, nsteps, queue.now, 0, queue.m, 0, mode, 0, 0)
    _run_depth(queue, views, views.times, views.free)


class Work:
    """The buffers of a play of ``queue``'s plan (:func:`_run_depth`): a re-plan's, reused
    across the candidate starts of a quote; with ``record``, the no-slot plan's, every job
    waiting on the base profile."""

    def __init__(self, queue: EasyQueue, record: bool = False) -> None:
        self.times = buffer(queue.base_times if record else [], queue.size)
        # (_first_short reads up to 3 steps past the -1)
        self.free = buffer(queue.base_free if record else [], queue.size + 3)
        self.waiting = buffer([1] * queue.m if record else [], queue.m)
        self.short_now = _caches(queue.capacity)
        self.tree3 = _trees3(queue.leaves)
        self.heap = buffer([], queue.m + 1)  # the starts of the reserved jobs, a min-heap
        #: re-plans played, events they played, re-plans stopped early because their
        #: state became the no-slot plan's, and because it became the last re-plan's
        self.counts = buffer([], 4)
        #: the starts of the last re-plan (queue order) and the instants they were decided,
        #: sorted; the same of the current
        self.last_starts = buffer([], queue.m)
        self.last_sorted = buffer([], queue.m)
        self.new_starts = buffer([], queue.m)
        self.new_sorted = buffer([], queue.m)
        self.views = _Views(queue, self)


@cython.cfunc
@cython.exceptval(check=False)
def _first_moved(
    views: _Views,
    events: cython.Py_ssize_t,
    r: cython.Py_ssize_t,
    s: cython.longlong,
    e: cython.longlong,
    n: cython.longlong,
) -> cython.Py_ssize_t:
    """From event ``r`` on, the first event at which a test the no-slot plan passed may
    fail with the slot ``n`` over ``[s, e)``: the first whose windows (``queue.wa``/``wb``/``wx``)
    do not all keep ``x + n`` free over their overlap with the slot on the profile after the
    event (the next snapshot: it holds every block the event started, so no more room than
    when each test was read; after the last event, the plan's profile).  ``queue.events``: none
    may."""
    off: cython.longlong[::1] = views.off
    snap_times: cython.longlong[::1] = views.pt
    snap_free: cython.longlong[::1] = views.pf
    win_off: cython.longlong[::1] = views.woff
    win_from: cython.longlong[::1] = views.wa
    win_to: cython.longlong[::1] = views.wb
    win_extra: cython.longlong[::1] = views.wx
    last: cython.Py_ssize_t = events
    i: cython.Py_ssize_t = r
    j: cython.Py_ssize_t
    o: cython.Py_ssize_t
    p: cython.Py_ssize_t
    lo: cython.Py_ssize_t
    hi: cython.Py_ssize_t
    mid: cython.Py_ssize_t
    a0: cython.longlong
    a1: cython.longlong
    need: cython.longlong
    while i < last:
        o = off[i + 1]
        hi = off[i + 2]
        for j in range(win_off[i], win_off[i + 1]):
            a0 = max(win_from[j], s)
            a1 = min(win_to[j], e)
            if a0 >= a1:
                continue
            lo = o  # the step holding a0 in the snapshot's snap_times[o:hi]
            p = hi
            while lo < p:
                mid = (lo + p) >> 1
                if a0 < snap_times[mid]:
                    p = mid
                else:
                    lo = mid + 1
            p = max(lo - 1, o)
            need = win_extra[j] + n
            while p < hi and snap_times[p] < a1:
                if snap_free[p] < need:
                    return i
                p += 1
        i += 1
    return i


@cython.cfunc
def _restart(
    queue: EasyQueue, views: _Views, s: cython.longlong, e: cython.longlong, n: cython.longlong
) -> cython.Py_ssize_t:
    """:func:`restart` on ``queue``'s views ``views``."""
    events: cython.Py_ssize_t = queue.events
    # the first event whose reach passes s (reach is non-decreasing: the step after s's)
    r: cython.Py_ssize_t = index(views.reach, s, events) + 1
    if r < events:
        return _first_moved(views, events, r, s, e, n)
    return r


@cython.ccall
def restart(queue: EasyQueue, s: cython.longlong, e: cython.longlong, n: cython.longlong) -> int:
    """The event a re-plan with the slot ``n`` over ``[s, e)`` starts from (``queue.events``:
    none, nobody moves): the first whose reach passes ``s`` and from there the first whose
    tests the slot may make fail (:func:`_first_moved`)."""
    return _restart(queue, _Views(queue, None), s, e, n)


@cython.cfunc
@cython.exceptval(check=False)
def _set_starts(views: _Views, had: cython.bint, before: cython.Py_ssize_t) -> cython.void:
    """A re-plan's lists before it plays (:func:`_replan_depth`): its starts ``new_starts``
    the no-slot plan's (and the last re-plan's ``last_starts`` too, when there is none), the
    first ``before`` of its sorted decisions ``new_sorted`` the no-slot plan's (``vd``, its
    decision instants), and every job waiting (``waiting``; the caller clears the ones
    decided before the restart event)."""
    x: cython.Py_ssize_t
    copy_run(views.new_starts, 0, views.starts0, 0, views.m)
    if not had:
        copy_run(views.last_starts, 0, views.starts0, 0, views.m)
    copy_run(views.new_sorted, 0, views.vd, 0, before)
    for x in range(views.m):
        views.waiting[x] = 1


@cython.cfunc
def _keep_as_last(views: _Views, e: cython.longlong) -> cython.void:
    """This re-plan's starts (and sorted) become the last re-plan's, its slot ending at ``e``
    (the buffers swapped, not copied)."""
    tmp: cython.longlong[::1] = views.last_starts
    views.last_starts = views.new_starts
    views.new_starts = tmp
    tmp = views.last_sorted
    views.last_sorted = views.new_sorted
    views.new_sorted = tmp
    views.last = e


@cython.cfunc
def _delay(
    queue: EasyQueue, views: _Views, s: cython.longlong, e: cython.longlong, n: cython.longlong
) -> cython.longlong:
    """:func:`delay` on the views ``views`` of ``queue`` and of a :class:`Work`."""
    off: cython.longlong[::1] = views.off
    snap_times: cython.longlong[::1] = views.pt
    snap_free: cython.longlong[::1] = views.pf
    times: cython.longlong[::1] = views.times
    free: cython.longlong[::1] = views.free
    r: cython.Py_ssize_t = _restart(queue, views, s, e, n)
    o: cython.Py_ssize_t
    nsteps: cython.Py_ssize_t
    if r == queue.events:
        return 0  # every test the plan passed passes with the slot: nobody moves
    o = off[r]
    nsteps = off[r + 1] - o
    load_steps(times, free, snap_times, snap_free, o, nsteps)
    if cython.compiled:
        free[nsteps] = -1  # (the stop of _first_short's scan)
    nsteps = _reserve_at(times, free, nsteps, index(times, s, nsteps), nsteps, s, e, n)  # the slot
    return _replan_depth(queue, views, nsteps, r, e)  # (it sets W, trees, heap up)


@cython.cfunc
def _replan_depth(
    queue: EasyQueue,
    views: _Views,
    nsteps: cython.Py_ssize_t,
    r: cython.Py_ssize_t,
    e: cython.longlong,
) -> cython.longlong:
    """Depth K: :func:`_run_depth` from event ``r``'s state (``views.times``/``free``,
    ``nsteps`` steps: with the slot, which ends at ``e``), stopping at the no-slot plan's state
    or at the last re-plan's; its starts and decisions are kept as the last re-plan's.  The
    jobs decided before event ``r`` are the first ``m - left[r]`` of the no-slot plan's
    decision order (``queue.order``): only they are visited to set the state up — out of the
    waiting flags and the trees (copied whole from ``queue.leaf3``, every job waiting), into
    the heap of reservations held when their start is after the event before, and into the
    last re-plan's settle time."""
    m: cython.Py_ssize_t = views.m
    leaves: cython.Py_ssize_t = views.leaves
    starts0: cython.longlong[::1] = views.starts0
    durs: cython.longlong[::1] = views.durs
    order: cython.longlong[::1] = views.order
    waiting: cython.longlong[::1] = views.waiting
    heap: cython.longlong[::1] = views.heap
    tree3: cython.uint[::1] = views.tree3
    last_starts: cython.longlong[::1] = views.last_starts
    x: cython.Py_ssize_t
    y: cython.Py_ssize_t
    s0: cython.longlong
    t: cython.longlong
    decided: cython.Py_ssize_t = m - views.left[r]  # jobs decided before event r
    prev: cython.longlong = views.prev[r]  # the instant of the event before
    had: cython.bint = views.last >= 0
    hn: cython.Py_ssize_t = 0
    settle2: cython.longlong = 4611686018427387904  # _INF: no last re-plan
    out: cython.longlong
    if not cython.compiled:
        tree3[3 * leaves : 3 * (leaves + m)] = views.leaf3[: 3 * m]
    elif m > 0:
        memmove(
            cython.address(tree3[3 * leaves]),
            cython.address(views.leaf3[0]),
            3 * m * cython.sizeof(cython.uint),
        )
    _set_starts(views, had, decided)  # (the earliest no-slot decisions)
    if had:
        # its state may be this one's once both slots are over and the jobs decided before
        # event r (at their no-slot starts) have ended where the last re-plan started them
        settle2 = max(e, views.last)
    for y in range(decided):
        x = order[y]
        waiting[x] = 0
        tree3[3 * (leaves + x)] = 4294967295  # _TREE_INF
        tree3[3 * (leaves + x) + 1] = 4294967295
        tree3[3 * (leaves + x) + 2] = 4294967295
        s0 = starts0[x]
        if s0 > prev:  # a reservation held, not yet started at the event
            hn = _push(heap, hn, s0)
        if had and last_starts[x] != s0:
            settle2 = max(settle2, max(last_starts[x], s0) + durs[x])
    _fill3(tree3, leaves, m)
    if r == 0:
        t = views.now
    else:  # the next instant after the event before, on the profile with the slot
        x = index(views.times, prev, nsteps) + 1
        t = views.times[x] if x < nsteps else 4611686018427387904  # _INF
        if hn > 0 and heap[0] < t:
            t = heap[0]
    _begin(
        views.play, views, views.times, nsteps, t, views.head[r], views.left[r], hn, 0, e, settle2
    )
    out = _run_depth(queue, views, views.times, views.free)
    _keep_as_last(views, e)
    return out


@cython.ccall
def delay(
    queue: EasyQueue, w: Work, s: cython.longlong, e: cython.longlong, n: cython.longlong
) -> cython.longlong:
    """The delay (processor-seconds) the slot ``n`` over ``[s, e)`` causes to the queued jobs
    under ``queue``'s policy: the plan with the slot, from the first event whose reach passes
    ``s`` and then the first whose tests the slot may make fail (:func:`restart`)."""
    views: _Views = w.views
    if views.queue is not queue:  # a Work made for another queue: buffers of this queue's sizes (a
        # longer queue's would overrun the other's, unchecked), no last re-plan, fresh trees
        w.__init__(queue)
        views = w.views
    return _delay(queue, views, s, e, n)


def delays(queue: EasyQueue, cands: list, n: int, d: int) -> list:
    """:func:`delay` of the slot ``n`` over ``[s, s + d)`` for every start ``s`` of ``cands``."""
    w = Work(queue)
    return [delay(queue, w, s, s + d, n) for s in cands]


@cython.ccall
def prices(queue: EasyQueue, cands: list, n: cython.longlong, d: cython.longlong) -> list:
    """:meth:`~scheduler.pricing.price.SiteQuote.price` of the slot ``n`` over ``[s, s + d)``
    at every start ``s`` of ``cands`` (one :class:`Work` for all): None where it does not fit
    beside the running jobs and reservations (the base profile), 0 in a hole of the no-slot
    plan (its profile after the last event: a test the plan passed had room for its job
    beside every later block, so beside the slot too), else :func:`delay`."""
    out: list = []
    views: _Views = Work(queue).views
    base_t: cython.longlong[::1] = queue.bt
    base_f: cython.longlong[::1] = queue.bf
    off: cython.longlong[::1] = queue.off
    snap_times: cython.longlong[::1] = queue.pt
    snap_free: cython.longlong[::1] = queue.pf
    nb: cython.Py_ssize_t = len(queue.base_times)
    o: cython.Py_ssize_t = off[queue.events]
    hi: cython.Py_ssize_t = off[queue.events + 1]
    s: cython.longlong
    for s in cands:
        if least_free(base_t, base_f, 0, nb, s, s + d) < n:
            out.append(None)
            continue
        if least_free(snap_times, snap_free, o, hi, s, s + d) >= n:
            out.append(0)
            continue
        out.append(_delay(queue, views, s, s + d, n))
    return out
