"""The EASY and depth-K quote kernel: the price of a slot (Figure 22 of G. Singh's PhD thesis,
USC 2008, §5.1: the delay, in processor-seconds, that inserting the slot causes to the queued
jobs) at every candidate start of :meth:`scheduler.pricing.price.SiteQuote.price`, under EASY
backfilling (Lifka 1995; Mu'alem & Feitelson 2001) or backfilling with a reservation depth K,
without re-planning the whole queue for every start (which, at 200 or more queued jobs, made
a quote take half a second at the median and seconds at the 99th percentile).

Plain Python *and* the source of a C extension, like :mod:`scheduler.pricing._replan`; the
profile's steps are :mod:`scheduler.pricing._steps`' (C functions once compiled).  Times and
processor counts must fit in 62 bits.

What it computes: :func:`scheduler.pricing.plan.plan_easy` — the same decisions, in the same
order, instant by instant (the head and each next head while it fits; then, behind the head's
reservation at its shadow time, the waiting jobs no wider than the processors free now that fit
now and do not take processors the head needs) — on a profile of its own.

Why it is fast (exact):

* the no-slot plan is played once per state (:class:`EasyQueue`), keeping at every instant
  ("event") it visits a *snapshot* of its state (the profile, the head, the jobs still waiting)
  and the tests its decisions rest on.  A slot ``[s, e)`` only takes ``n`` processors away
  over ``[s, e)``: a test that failed fails with it too, and a test that passed ("``x``
  free over ``[w0, w1)``") still passes unless the slot overlaps a *tight* step of its window,
  one with fewer than ``n`` processors to spare (see :func:`_tight`).  The tests an event
  passed: each start's window, each backfill's window beside the head (from its shadow time,
  for its width + the head's), and the waiting head's window at its shadow time when a
  backfill test read that shadow (else a later shadow changes nothing at the event: a job
  that passed ended before it, every other one failed its fit test).  The *reach* of an event
  for ``n`` processors (``queue.rn_for``, running maximum) is the end of the last tight step of its
  tests: at an event whose reach is not after ``s`` — and all events before it likewise —
  the plan with the slot takes the same decisions.  The instants the slot adds between two
  events (``s``, ``e``) decide nothing: the no-slot profile does not change between two
  events, so a job (or the head) that fits there with the slot fitted at the event before,
  where it would have started.  :func:`delay` therefore restarts the plan with
  the slot from the snapshot of the first event whose reach passes ``s`` — earlier events are
  the no-slot plan's, their jobs keep their starts — and the slot costs 0 without re-planning
  when no event's reach passes ``s``.  (The whole-window reach of :attr:`EasyQueue.reach`,
  which also counts the free processors at ``t`` and the next instant, restarts earlier: it
  is what depth K uses.)
* from that event on, an EASY re-plan starts only at the first event where one of the
  passed tests may really fail (:func:`_first_moved`): a slot overlapping a tight step still
  leaves the test passing when, over the overlap, ``x + n`` processors were free.  Each
  event keeps its tests' windows (``queue.wa``/``wb``/``wx``, see :func:`_win`) and they are
  checked on the profile *after* the event (the next snapshot), which holds the blocks the
  event started — never more room than when a test was read, so a pass there is a pass —
  with ``x`` less the job's own block where it covers the window (a start's window: its
  width; a backfill beside the head: the head's width, the window within the head's at
  its shadow, which is checked as well).
* a re-plan stops at the first instant ``t`` from ``e`` on where its state is the no-slot
  plan's: the jobs started are the ones the no-slot plan started before ``t``, and every job
  whose start moved has ended in both plans.  The blocks past ``t`` and the waiting jobs are
  then the no-slot plan's, which plays on from ``t`` as the no-slot plan does (an instant it
  does not visit decides nothing): nobody else moves.  (:class:`Work` ``.counts``: re-plans,
  events played, early stops.)  Likewise at the *last re-plan's* state (of the same
  :class:`Work`; under EASY, its starts are kept, in queue order and sorted): once both
  slots are over and every job whose start differs from it — those started before the
  restart event at their no-slot starts included — has ended in both, with the jobs started
  the ones it started before ``t``, the waiting jobs start as there (``.counts[3]``): the
  plans of neighbouring candidate starts often meet long before the no-slot plan's state
  comes back.
* the re-plan itself is one compiled loop: per-width caches (the first instant with fewer
  than ``n`` free, from ``t``, and from the shadow time for ``n`` + the head's width) stamped
  with a generation that changes whenever a block is inserted or the shadow is recomputed,
  as the planner's dicts do (a first short instant found at an earlier event holds while
  it is not before ``t``: at most 2 comparisons per lookup); the step holding ``t`` is
  followed, not searched; and the waiting jobs behind the head that may backfill are found
  in two trees (least width, least duration over ranges of the queue; eight children a
  node, :func:`_build`) that skip a range when its least width does not fit now or beside
  the head for its shortest duration (then none of its jobs does) — the first search at an
  event from the root, which ends it when nothing may backfill.  Compiled, the profile's
  free counts end with a -1 past the last step, where the scan for a first short instant
  stops (no bound check per step); it tests four steps at a time (the least of them) and
  finds the short one of the four without a branch (:func:`_first_short`).  Under EASY the
  cache keeps the step it found too: a backfill ends by it, which bounds the search for the
  end of its block.  The depth-K loop does the same (its caches change
  generation whenever a block is inserted, a placement's included, and a first short instant
  holds from one event to the next while it is not before the step holding ``t``; they keep
  the step found too, which bounds a backfill's block; its trees keep the one-processor jobs
  apart, :func:`_build3`, in 32 bits, :func:`_trees3`), follows the step holding ``t`` too
  and inserts a placement's block between the steps its earliest-start scan found.  A
  depth-K re-plan (and an EASY one, :func:`_replan`) sets its state up from the jobs
  decided before its restart event only (the first of the no-slot plan's decision order,
  ``queue.order``; the trees' leaves copied whole from ``queue.leaf3``, ``queue.leaf2``).
* a quote prices all its candidate starts in one call (:func:`prices`: the fit beside the
  base, the hole test, the re-plan), on the buffers as typed views taken once per
  :class:`Work` (:class:`_Views`: a view costs a buffer request and a format check), and the
  small C helpers are declared not to raise (no error check after each call).

The same kernel plays backfilling with a reservation depth K (:func:`_run_depth`,
``EasyQueue(..., depth=K)``) with the same snapshots and the whole-window reach: its
placements read the profile up to the end of the window they pick, its backfills up to their
ends.  From the first event whose reach passes ``s``, a depth-K re-plan too starts at the
first event where a passed test may fail (:func:`_first_moved`: a placement's window, where
the job holds its reservation, and a backfill's, both checked on the profile after the event
with ``x`` = 0; a test that failed fails with the slot too, and the instants the slot adds
decide nothing, as under EASY).  And it stops, like an EASY re-plan, at the no-slot plan's
state or at the last re-plan's (its proof, with the reservations held, at
:func:`_meets_a_known_plan`), counting decisions (a placement or a start, at the instant it is
taken: ``queue.dec0``, sorted ``queue.vd``) rather than starts.

Measurements behind these choices: bench/results/kernels-history.txt.

tests/scheduler/test_pricing_easy_fast.py checks both against
:meth:`~scheduler.pricing.price.SiteQuote.price_naive` (Figure 22 literally), compiled and
pure, and the no-slot plan against :func:`~scheduler.pricing.plan.plan_easy`;
tests/scheduler/test_pricing_depth_fast.py the depth-K plan against the simulator's.
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
if cython.compiled:  # the profile's steps: C functions (scheduler/pricing/_steps.pxd)
    from cython.cimports.scheduler.pricing._steps import (
        copy_values,
        earliest_window,
        index,
        least_free,
        load_steps,
        take_block,
        take_shifted,
    )

    from scheduler.pricing._steps import buffer  # (a Python function)
else:  # their pure source (a build's functions take C arrays, not lists)
    from scheduler._native import load_pure

    _steps = load_pure("scheduler.pricing._steps", "scheduler.pricing._steps_pure")
    buffer, index, earliest_window = _steps.buffer, _steps.index, _steps.earliest_window
    least_free, load_steps, take_block = _steps.least_free, _steps.load_steps, _steps.take_block

__all__ = ["EasyQueue", "buffer", "delay", "delays", "prices", "restart"]

#: "never short" / "reads the rest of the profile" (past the last breakpoint all is free)
_INF = 1 << 62  # (the C functions write the literal: a module global is a Python object)
#: "none" in the depth-K trees over the waiting jobs (32-bit values: :func:`_trees3`)
_TREE_INF = (1 << 32) - 1
#: the longest planned duration the depth-K kernel takes (its trees hold durations in 32 bits)
MAX_DURATION = _TREE_INF - 1


def _check_queue(procs: list, durs: list, capacity: int, depth: int) -> None:
    """Refuse a queue the kernel cannot plan: a job wider than the machine or of fewer than 0
    processors, a reservation depth below 0, or (depth K) a planned duration its 32-bit
    trees cannot hold."""
    m = len(procs)
    for q in procs:
        if q > capacity:
            raise ValueError(f"a job of {q} processors never fits {capacity}")
    if depth and m and not (min(durs) >= 0 and max(durs) <= MAX_DURATION):
        raise ValueError(
            f"planned durations must be in 0..{MAX_DURATION} s (the depth-K kernel's "
            "trees hold them in 32 bits; the door's bound is 100 years); got "
            f"{min(durs)}..{max(durs)}"
        )
    if m and min(procs) < 0:
        raise ValueError(f"a job of {min(procs)} processors")
    if depth < 0:
        raise ValueError(f"the reservation depth must be >= 1 (0: EASY); got {depth}")


class EasyQueue:
    """The no-slot EASY plan of a queue, played once from the base profile's lists
    (``base_times``, ``base_free``; ``capacity`` processors) at ``now``, with its snapshots.

    ``depth`` 0 plays EASY (:func:`scheduler.pricing.plan.plan_easy`); ``depth`` K >= 1 plays
    backfilling with reservation depth K (:mod:`scheduler.cluster.depth`, see :func:`_run_depth`).

    ``starts``: the no-slot starts (a list, queue order); the buffers ``ev`` (the event at which
    each job's start was decided: it started, or, at depth K, got its reservation; ``dec0`` its
    instant, ``vd`` those sorted), and per
    event ``reach`` (running maximum), ``head``, ``left`` (jobs waiting — at depth K, holding
    no reservation), ``prev`` (the instant of the event before), ``off`` (the event's profile
    in ``pt``/``pf`` at ``off[i]:off[i + 1]``); ``events``: how many.  EASY also keeps the
    tight steps of every test each event passed (``tv``/``tend`` at ``toff[i]:toff[i + 1]``,
    see :func:`_tight`) and, in ``rn_for``, the reach they give a slot of some width; both keep
    the windows of the tests each event passed (``wa``/``wb``/``wx`` at ``woff[i]:woff[i + 1]``,
    see :func:`_first_moved`)."""

    def __init__(
        self,
        base_times: list,
        base_free: list,
        capacity: int,
        procs: list,
        durs: list,
        now: int,
        depth: int = 0,
    ) -> None:
        _check_queue(procs, durs, capacity, depth)
        m = len(procs)
        self.m = m
        self.depth = depth  # 0: EASY; K >= 1: backfilling with reservation depth K
        self.now = now
        self.capacity = capacity
        self.base_times = list(base_times)
        self.base_free = list(base_free)
        self.procs = buffer(list(procs), m)
        self.durs = buffer(list(durs), m)
        self.size = len(base_times) + 2 * m + 4  # room for any plan's profile (+ the slot)
        self.cap_events = self.size + 2  # every event is a breakpoint, visited once
        # the trees' leaves (>= m): depth K, a power of 2 (binary trees, _build3); EASY, a
        # power of 8 (eight children a node, _build)
        self.leaves = 1 << max(m - 1, 0).bit_length() if depth else 8 ** _levels(m)
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
        self.toff = buffer([], self.cap_events + 1)  # EASY: each event's tests, in tv/tend
        self.tv = buffer([], 0)
        self.tend = buffer([], 0)
        self.ntests = 0
        self.woff = buffer([], self.cap_events + 1)  # each event's windows, in wa/wb/wx
        self.wa = buffer([], 0)
        self.wb = buffer([], 0)
        self.wx = buffer([], 0)
        self.nwin = 0
        self.vs = buffer([], m)
        self.vd = buffer([], m)
        self.events = 0
        #: depth K: the jobs in the order the no-slot plan decided them (by event), and the
        #: leaves of the trees with every job waiting (:func:`_replan_depth`)
        self.order = buffer([], m)
        self.leaf3 = None
        self.leaf2 = None
        _play(self)
        # depth K: _build3's leaves; EASY: _build's, (width, duration) side by side
        self.leaf3 = _trees3(m // 2 + 1 if depth else 0)  # (3m values or more)
        self.leaf2 = buffer([], 0 if depth else 2 * m)
        _order_leaves(
            self.ev,
            self.events,
            self.procs,
            self.durs,
            m,
            self.order,
            self.leaf3,
            self.leaf2,
            depth > 0,
        )
        self._sort_plan(durs)
        self.bt = buffer(self.base_times, len(self.base_times))  # (as the kernel reads them)
        self.bf = buffer(self.base_free, len(self.base_times))
        #: EASY: ``(n, reach for a slot of n processors)``, the last ``n`` asked (one object:
        #: a request for another ``n`` replaces it, never writes into it)
        self.rn_for = (-1, None)

    def _sort_plan(self, durs: list) -> None:
        """The no-slot plan's starts as a list (``starts``, queue order) and sorted (``vs``);
        the instants they were decided, sorted (``vd``; EASY: the starts themselves); the
        starts of the jobs of no duration, sorted (``zeros``, ``nzeros`` of them)."""
        m = self.m
        self.starts = self.starts0[:m].tolist() if cython.compiled else list(self.starts0)[:m]
        self.vs = buffer(sorted(self.starts), m)
        self.vd = buffer(sorted(self.dec0[:m]), m) if self.depth else self.vs
        zeros = sorted(v for v, dq in zip(self.starts, durs, strict=True) if dq == 0)
        self.zeros = buffer(zeros, len(zeros))
        self.nzeros = len(zeros)


@cython.final
@cython.cclass
class _Play:
    """Where one play of a plan (:func:`_run`, :func:`_run_depth`) stands between its steps:
    the instant ``t`` (``prev_t``: the one before), the step ``a`` holding it among ``nsteps``,
    the head ``h`` (the first job not decided), ``left`` jobs waiting, ``e`` events recorded;
    EASY: the head's shadow time ``shadow`` (of job ``shadow_of``; ``sa``, the step holding it
    in generation ``sa_gen``; ``beside_read``: a test beside the head was read at this event),
    ``out`` the head taken out of the trees; depth K: ``held`` reservations not yet started
    (the heap's size).  ``gen``/``sgen``: the generations of the per-width caches
    (:func:`_caches`).  Recording (``mode`` 1-3): ``event_reach`` the reach of this event,
    ``run_max`` their running maximum, ``nr``/``nw`` the tests and windows recorded so far.
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
    sgen: cython.longlong
    shadow: cython.longlong
    shadow_of: cython.Py_ssize_t
    sa: cython.Py_ssize_t
    sa_gen: cython.longlong
    beside_read: cython.bint
    out: cython.Py_ssize_t
    held: cython.Py_ssize_t
    event_reach: cython.longlong
    run_max: cython.longlong
    nr: cython.Py_ssize_t
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
    toff: cython.longlong[::1]
    tv: cython.longlong[::1]
    tend: cython.longlong[::1]
    woff: cython.longlong[::1]
    wa: cython.longlong[::1]
    wb: cython.longlong[::1]
    wx: cython.longlong[::1]
    vs: cython.longlong[::1]
    vd: cython.longlong[::1]
    rn_n: cython.longlong
    rn: cython.longlong[::1]
    times: cython.longlong[::1]
    free: cython.longlong[::1]
    waiting: cython.longlong[::1]
    short_now: cython.longlong[::1]
    short_beside: cython.longlong[::1]
    tree: cython.longlong[::1]
    tree3: cython.uint[::1]
    order: cython.longlong[::1]
    leaf3: cython.uint[::1]
    leaf2: cython.longlong[::1]
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
        self.toff = queue.toff
        self.tv = queue.tv
        self.tend = queue.tend
        self.woff = queue.woff
        self.wa = queue.wa
        self.wb = queue.wb
        self.wx = queue.wx
        self.vs = queue.vs
        self.vd = queue.vd
        self.order = queue.order
        self.leaf3 = queue.leaf3
        self.leaf2 = queue.leaf2
        self.rn_n = -1  # (the reach for n processors not taken yet)
        if w is not None:
            self.times = w.times
            self.free = w.free
            self.waiting = w.waiting
            self.short_now = w.short_now
            self.short_beside = w.short_beside
            self.tree = w.tree
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
@cython.wraparound(False)
@cython.boundscheck(False)
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
    """:func:`~scheduler.pricing._steps.reserve` of ``q`` processors over ``[t, stop)`` when
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
    free[nsteps] = -1  # (the stop of _short's scan)
    return nsteps


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _step(
    times: cython.longlong[::1], nsteps: cython.Py_ssize_t, a: cython.Py_ssize_t, t: cython.longlong
) -> cython.Py_ssize_t:
    """The step holding ``t``, from ``a``, the one that held it before a block was inserted
    (the split and merges around it move it by a step or two)."""
    if a > nsteps - 1:
        a = nsteps - 1
    while times[a] > t:
        a -= 1
    while a + 1 < nsteps and times[a + 1] <= t:
        a += 1
    return a


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _short(
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    j: cython.Py_ssize_t,
    n: cython.longlong,
) -> cython.longlong:
    """The first instant of a step from ``j`` on with fewer than ``n`` free (never: _INF)."""
    j = _first_short(free, nsteps, j, n)
    return times[j] if j < nsteps else 4611686018427387904  # _INF


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
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
@cython.wraparound(False)
@cython.boundscheck(False)
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
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _build(
    tree: cython.longlong[::1],
    leaves: cython.Py_ssize_t,
    procs: cython.longlong[::1],
    durs: cython.longlong[::1],
    waiting: cython.longlong[::1],
    m: cython.Py_ssize_t,
) -> cython.void:
    """Two trees over the waiting jobs, interleaved in one buffer (a node's two values side
    by side, one cache line): leaf ``leaves + k`` holds job ``k``'s processors at ``2(leaves + k)``
    while it waits (else _INF) and its duration at ``2(leaves + k) + 1``; each node ``i`` the
    least of its eight children's (nodes ``8i .. 8i + 7``; the root is node 1, ``leaves`` a power
    of 8), at ``2i`` and ``2i + 1``.  Only the leaves of the ``m`` jobs and the nodes above
    them are written: the others are _INF for good (:func:`_trees`).

    Eight children, not two: on the way down a search tests a node's children from the first
    until one passes, and most fail on the width alone (a load and a compare), where a
    binary tree's nodes reach the costlier per-width cache test more often."""
    i: cython.Py_ssize_t
    for i in range(m):
        if waiting[i] != 0:
            tree[2 * (leaves + i)] = procs[i]
            tree[2 * (leaves + i) + 1] = durs[i]
        else:
            tree[2 * (leaves + i)] = 4611686018427387904  # _INF
            tree[2 * (leaves + i) + 1] = 4611686018427387904
    _fill(tree, leaves, m)


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _least8(tree: cython.longlong[::1], o: cython.Py_ssize_t) -> cython.longlong:
    """The least of ``tree[o], tree[o + 2], .., tree[o + 14]`` (one of the two values of a node's
    eight children, :func:`_build`), as pairs of pairs: three mins deep, not a chain of
    seven."""
    return min(
        min(min(tree[o], tree[o + 2]), min(tree[o + 4], tree[o + 6])),
        min(min(tree[o + 8], tree[o + 10]), min(tree[o + 12], tree[o + 14])),
    )


def _levels(m: int) -> int:
    """How many levels :func:`_build`'s trees have below the root for ``m`` jobs: the least
    ``h`` with ``8**h >= m``."""
    h = 0
    while 8**h < m:
        h += 1
    return h


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _fill(
    tree: cython.longlong[::1], leaves: cython.Py_ssize_t, m: cython.Py_ssize_t
) -> cython.void:
    """The inner nodes of :func:`_build`'s trees above the leaves of the ``m`` jobs, from
    their leaves (level by level: the parents of nodes ``lo .. hi - 1``)."""
    i: cython.Py_ssize_t
    lo: cython.Py_ssize_t = leaves
    hi: cython.Py_ssize_t = leaves + m
    while lo > 1:
        lo >>= 3
        hi = (hi + 7) >> 3
        for i in range(lo, hi):
            tree[2 * i] = _least8(tree, 16 * i)
            tree[2 * i + 1] = _least8(tree, 16 * i + 1)


def _trees(leaves: int, m: int):  # type: ignore[no-untyped-def]
    """A buffer for :func:`_build`'s trees over ``leaves`` leaves for ``m`` jobs, every node
    _INF: the nodes above no job stay so, the build writes only the others.  Its nodes are
    the ones below ``leaves + m + 8`` : the inner ones are below ``leaves / 4``,
    and a search or an update reads the leaves of a job's siblings, up to the eighth.

    Compiled, it starts at a 64-byte boundary (a view from the first one in a buffer 8
    values longer): the values of a node's eight children (``16i .. 16i + 15``) are then
    two cache lines, not three."""
    size = 2 * (leaves + m + 8)
    v: cython.longlong[::1]
    if cython.compiled:  # (repeated in C: no list of ``size`` ints to convert)
        v = array("q", [_INF]) * (size + 8)
        return v[(-cython.cast(cython.Py_ssize_t, cython.address(v[0])) >> 3) & 7 :]
    return [_INF] * size


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _order_leaves(
    ev: cython.longlong[::1],
    events: cython.Py_ssize_t,
    procs: cython.longlong[::1],
    durs: cython.longlong[::1],
    m: cython.Py_ssize_t,
    order: cython.longlong[::1],
    leaf3: cython.uint[::1],
    leaf2: cython.longlong[::1],
    three: cython.bint,
) -> cython.void:
    """``order``: the ``m`` jobs by the event that decided them (``ev``, below ``events``;
    queue order within an event: a counting sort); the leaves of the trees with every job
    waiting, side by side: ``three`` (depth K), ``leaf3`` (:func:`_build3`'s, job ``k``'s at
    ``3k``), else ``leaf2`` (:func:`_build`'s, at ``2k``)."""
    x: cython.Py_ssize_t
    count: cython.longlong[::1] = buffer([], events + 1)
    for x in range(m):
        count[ev[x] + 1] += 1
    for x in range(events):
        count[x + 1] += count[x]
    for x in range(m):
        order[count[ev[x]]] = x
        count[ev[x]] += 1
    if not three:
        for x in range(m):
            leaf2[2 * x] = procs[x]
            leaf2[2 * x + 1] = durs[x]
        return
    for x in range(m):
        _leaf3(leaf3, 0, x, procs[x], durs[x])


def _trees3(leaves: int):  # type: ignore[no-untyped-def]
    """The same for :func:`_build3`'s trees, in 32 bits (_TREE_INF: none): a node's three
    values take 12 bytes, the trees over 1,024 leaves 24 KiB, within a 32 KiB L1 data cache (in 64
    bits, 48 KiB are not).  Exact for widths and durations up to MAX_DURATION (EasyQueue refuses
    longer: the door's bound, :data:`scheduler.bounds.MAX_SECONDS`, is shorter)."""
    if cython.compiled:
        return array("I", [_TREE_INF]) * (6 * leaves)
    return [_TREE_INF] * (6 * leaves)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _gone(
    tree: cython.longlong[::1], leaves: cython.Py_ssize_t, k: cython.Py_ssize_t
) -> cython.void:
    """Job ``k`` no longer waits (both trees updated up to their first node where neither
    changes: its ancestors are unchanged too).  Not declared inline: inlined, it takes
    registers the search loop of :func:`_next_backfill` needs."""
    i: cython.Py_ssize_t = leaves + k
    vw: cython.longlong
    vd: cython.longlong
    tree[2 * i] = 4611686018427387904  # _INF
    tree[2 * i + 1] = 4611686018427387904
    i >>= 3
    while i > 0:
        vw = _least8(tree, 16 * i)
        vd = _least8(tree, 16 * i + 1)
        if vw == tree[2 * i] and vd == tree[2 * i + 1]:
            break
        tree[2 * i] = vw
        tree[2 * i + 1] = vd
        i >>= 3


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _build3(
    tree: cython.uint[::1],
    leaves: cython.Py_ssize_t,
    procs: cython.longlong[::1],
    durs: cython.longlong[::1],
    waiting: cython.longlong[::1],
    m: cython.Py_ssize_t,
) -> cython.void:
    """:func:`_build`'s trees for the depth-K loop, the one-processor jobs apart (two thirds
    of CTC-SP2's queued jobs): node ``i`` holds at ``3i`` the least duration of the waiting
    one-processor jobs of its range, at ``3i + 1`` and ``3i + 2`` the least processors and
    the least duration of the others (_TREE_INF: none).  The search's test of a range
    (:func:`_run_depth`) is then exact for its one-processor jobs: a range of long
    one-processor jobs and short wide ones, which passes as one class (its least width fits
    now for its least duration, no job of it does), is skipped.  (Under EASY the test beside
    the head is what skips most ranges: the split saved nothing there.)"""
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
@cython.wraparound(False)
@cython.boundscheck(False)
def _fill3(tree: cython.uint[::1], leaves: cython.Py_ssize_t, m: cython.Py_ssize_t) -> cython.void:
    """The inner nodes of :func:`_build3`'s trees above the leaves of the ``m`` jobs, from
    their leaves (level by level, as :func:`_fill`)."""
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
@cython.wraparound(False)
@cython.boundscheck(False)
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
@cython.wraparound(False)
@cython.boundscheck(False)
def _gone3(tree: cython.uint[::1], leaves: cython.Py_ssize_t, k: cython.Py_ssize_t) -> cython.void:
    """:func:`_gone` in :func:`_build3`'s trees (those of the job's class)."""
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
@cython.wraparound(False)
@cython.boundscheck(False)
def _snapshot(
    views: _Views,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    e: cython.Py_ssize_t,
    h: cython.Py_ssize_t,
    left: cython.Py_ssize_t,
    prev_t: cython.longlong,
    mode: cython.int,
) -> cython.void:
    """Record event ``e``'s state (the head, the jobs waiting, the instant before; ``mode``
    1: the size of its profile, 2: the profile itself, in ``queue.pt``/``queue.pf``; 3: both, the
    profile only while it fits the buffers)."""
    off: cython.longlong[::1] = views.off
    snap_times: cython.longlong[::1] = views.pt
    snap_free: cython.longlong[::1] = views.pf
    head: cython.longlong[::1] = views.head
    lefts: cython.longlong[::1] = views.left
    prev: cython.longlong[::1] = views.prev
    o: cython.Py_ssize_t
    x: cython.Py_ssize_t
    head[e] = h
    lefts[e] = left
    prev[e] = prev_t
    o = off[e]
    if mode != 2:
        off[e + 1] = o + nsteps
    if mode != 1 and o + nsteps <= len(snap_times):
        for x in range(nsteps):
            snap_times[o + x] = times[x]
            snap_free[o + x] = free[x]


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _tight(
    views: _Views,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    w0: cython.longlong,
    w1: cython.longlong,
    x: cython.longlong,
    nr: cython.Py_ssize_t,
    write: cython.bint,
) -> cython.Py_ssize_t:
    """Record the test "``x`` free over ``[w0, w1)``" that passed (``write``: into
    ``views.tv``/``views.tend`` from ``nr`` on; else only count): from the right, every step of
    the window with less slack (free - ``x``) than all the steps after it, as (its slack, its end in
    the window).  A slot of ``n`` processors fails the test only where it overlaps a step with slack
    below ``n``: all of them end no later than the first record (from the right) with slack below
    ``n``. Slacks of ``cap`` or more are not recorded (``n`` <= ``cap``).  Returns the new count."""
    tight_slack: cython.longlong[::1] = views.tv
    tight_end: cython.longlong[::1] = views.tend
    cap: cython.longlong = views.cap
    p0: cython.Py_ssize_t = index(times, w0, nsteps)
    p: cython.Py_ssize_t = index(times, w1 - 1, nsteps)
    low: cython.longlong = cap
    v: cython.longlong
    end: cython.longlong = w1
    while p >= p0:
        v = free[p] - x
        if v < low:
            low = v
            if write and nr < len(tight_slack):
                tight_slack[nr] = v
                tight_end[nr] = end
            nr += 1
        end = times[p]
        p -= 1
    return nr


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
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
@cython.wraparound(False)
@cython.boundscheck(False)
def _rest(
    views: _Views,
    how: cython.int,
    vp: cython.Py_ssize_t,
    pv: cython.Py_ssize_t,
    waiting: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    new_sorted: cython.longlong[::1],
    last_starts: cython.longlong[::1],
    last_sorted: cython.longlong[::1],
) -> cython.longlong:
    """A re-plan that stopped at the no-slot plan's state (``how`` 1: its first ``vp``
    decisions were) or at the last re-plan's (2: its first ``pv``): the jobs still undecided
    are decided as there; returns the delay they add (none at the no-slot plan's)."""
    m: cython.Py_ssize_t = views.m
    starts0: cython.longlong[::1] = views.starts0
    procs: cython.longlong[::1] = views.procs
    plan_sorted: cython.longlong[::1] = views.vd  # (EASY: the starts, sorted)
    rest: cython.longlong = 0
    x: cython.Py_ssize_t
    if how == 1:
        for x in range(vp, m):
            new_sorted[x] = plan_sorted[x]
        return 0
    for x in range(m):
        if waiting[x] != 0:
            new_starts[x] = last_starts[x]
            if last_starts[x] > starts0[x]:
                rest += (last_starts[x] - starts0[x]) * procs[x]
    for x in range(pv, m):
        new_sorted[x] = last_sorted[x]
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
    return max(settle, max(start, other) + max(dq, 1))


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _begin(
    p: _Play,
    views: _Views,
    times: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    t: cython.longlong,
    h: cython.Py_ssize_t,
    left: cython.Py_ssize_t,
    mode: cython.int,
    stop: cython.longlong,
    settle2: cython.longlong,
) -> cython.void:
    """Set ``p`` up for a play from instant ``t`` (head ``h``, ``left`` waiting; ``mode`` and
    ``stop``, ``settle2`` as in :func:`_run`)."""
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
    p.shadow = 0
    p.shadow_of = -1
    p.sa = 0
    p.sa_gen = -1
    p.beside_read = False
    p.out = -1
    p.held = 0
    p.event_reach = 0
    p.run_max = 0
    p.nr = 0
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
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.initializedcheck(False)
def _open_event(
    views: _Views, p: _Play, times: cython.longlong[::1], free: cython.longlong[::1]
) -> cython.void:
    """Recording: the state before event ``p.e`` (:func:`_snapshot`) and where its tests and
    windows start; its reach is at least ``t + 1`` (the processors free now)."""
    _snapshot(views, times, free, p.nsteps, p.e, p.h, p.left, p.prev_t, p.mode)
    if p.wr:
        if views.depth == 0:
            views.toff[p.e] = p.nr
        views.woff[p.e] = p.nw
    p.event_reach = p.t + 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.initializedcheck(False)
def _close_event(views: _Views, p: _Play, reach: cython.longlong) -> cython.void:
    """Recording: event ``p.e`` reaches ``reach`` (kept as the running maximum)."""
    p.run_max = max(p.run_max, reach)
    views.reach[p.e] = p.run_max
    p.e += 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.initializedcheck(False)
def _end_record(
    queue: EasyQueue,
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
) -> cython.void:
    """Recording: how many events, tests and windows, and the profile after the last event."""
    queue.events = p.e
    queue.ntests = p.nr
    queue.nwin = p.nw
    _snapshot(views, times, free, p.nsteps, p.e, p.h, p.left, p.prev_t, p.mode)
    if p.wr:
        if views.depth == 0:
            views.toff[p.e] = p.nr
        views.woff[p.e] = p.nw


@cython.cfunc
@cython.exceptval(check=False)
def _finish(
    queue: EasyQueue,
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    waiting: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    new_sorted: cython.longlong[::1],
    last_starts: cython.longlong[::1],
    last_sorted: cython.longlong[::1],
) -> cython.longlong:
    """The end of a play: recording, its last snapshot (:func:`_end_record`); a re-plan that
    met a known plan, the jobs still undecided decided as there (:func:`_rest`).  Returns the
    re-plan's delay."""
    if p.rec:
        _end_record(queue, views, p, times, free)
    elif p.how != 0:
        p.delay += _rest(
            views, p.how, p.vp, p.pv, waiting, new_starts, new_sorted, last_starts, last_sorted
        )
    return p.delay


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _next_instant(p: _Play, times: cython.longlong[::1], heap: cython.longlong[::1]) -> cython.void:
    """Depth K: the next instant, a breakpoint of the profile or a reservation's start (there
    is one: a job that did not start now finds the whole machine free past the last
    breakpoint, and the reserved ones start later)."""
    nxt: cython.longlong = times[p.a + 1] if p.a + 1 < p.nsteps else 4611686018427387904  # _INF
    p.prev_t = p.t
    if p.held > 0 and heap[0] < nxt:
        p.t = heap[0]  # (within the step holding t)
    else:
        p.t = nxt
        p.a += 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _meets_a_known_plan(
    views: _Views,
    p: _Play,
    counts: cython.longlong[::1],
    plan_sorted: cython.longlong[::1],
    last_sorted: cython.longlong[::1],
) -> cython.bint:
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
    m: cython.Py_ssize_t = views.m
    t: cython.longlong = p.t
    x: cython.Py_ssize_t
    if t >= p.settle:
        x = p.vp
        while x < m and plan_sorted[x] < t:
            x += 1
        p.vp = x
        if m - p.left == x:
            counts[2] += 1
            p.how = 1
            return True
    if t >= p.settle2:
        x = p.pv
        while x < m and last_sorted[x] < t:
            x += 1
        p.pv = x
        if m - p.left == x:
            counts[3] += 1
            p.how = 2
            return True
    return False


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.initializedcheck(False)
def _decide(
    views: _Views,
    p: _Play,
    k: cython.Py_ssize_t,
    q: cython.longlong,
    dq: cython.longlong,
    start: cython.longlong,
    waiting: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    new_sorted: cython.longlong[::1],
    last_starts: cython.longlong[::1],
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
        s1 = last_starts[k]
        new_starts[k] = start
        new_sorted[p.nsv] = p.t
        p.nsv += 1
        if start != s1:
            p.settle2 = _settled(p.settle2, start, s1, dq)
        if start != s0:
            p.settle = _settled(p.settle, start, s0, dq)
            if start > s0:
                p.delay += (start - s0) * q
    waiting[k] = 0
    p.left -= 1


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _run(
    queue: EasyQueue,
    views: _Views,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    waiting: cython.longlong[::1],
    short_now: cython.longlong[::1],
    short_beside: cython.longlong[::1],
    tree: cython.longlong[::1],
    t: cython.longlong,
    h: cython.Py_ssize_t,
    left: cython.Py_ssize_t,
    mode: cython.int,
    stop: cython.longlong,
    counts: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    new_sorted: cython.longlong[::1],
    last_starts: cython.longlong[::1],
    last_sorted: cython.longlong[::1],
    settle2: cython.longlong,
) -> cython.longlong:
    """EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001), as
    :func:`scheduler.pricing.plan.plan_easy` plays it: at each instant the head, and each next
    head, starts while it fits (:func:`_start_heads`); then, behind the head's reservation at
    its shadow time, the waiting jobs no wider than the processors free now that fit now and
    take none the head needs start, in queue order (:func:`_backfill`).  Played from the state
    (profile ``times``/``free`` of ``nsteps`` steps, waiting flags ``waiting``, head ``h``,
    ``left`` waiting; ``tree`` their widths and durations, see :func:`_build`) at instant ``t``.
    ``mode`` 0: a re-plan, returns the delay against the no-slot starts, and stops once, at an
    instant from ``stop`` (the slot's end) on, its state is the no-slot plan's, or from
    ``settle2`` on the last re-plan's (:func:`_meets_a_known_plan`; counted in ``counts``:
    re-plans, events played, early stops); 1: the no-slot plan, recording the events and their
    tests (sizes only); 2: the same, copying the snapshots and tests; 3: both, copying them
    while they fit the buffers (:func:`_record`).  ``short_now``/``short_beside``: the
    per-width caches (:func:`_caches`) of the first short instant from ``t`` and from the
    shadow time for the width + the head's, each valid where its generation is the current one
    (the first's: and while it is not before ``t``)."""
    p: _Play = views.play
    plan_sorted: cython.longlong[::1] = views.vd  # (EASY: the no-slot starts, sorted)
    ends: cython.longlong[::1] = views.ends
    _begin(p, views, times, nsteps, t, h, left, mode, stop, settle2)
    p.gen = short_beside[0] + 1  # slot 0 holds the last generation used
    # the generation of the first short instants: a new one whenever a block is inserted; a
    # first short instant found at an earlier event holds while it is not before t (no step
    # from there to it had fewer free)
    p.sgen = short_now[0] + 1
    if not p.rec:
        counts[0] += 1
    while p.left > 0:
        if p.rec:
            _open_event(views, p, times, free)
        else:
            counts[1] += 1
            if _meets_a_known_plan(views, p, counts, plan_sorted, last_sorted):
                break
        _start_heads(
            views, p, times, free, waiting, tree, ends, new_starts, new_sorted, last_starts
        )
        if p.left == 0:
            if p.rec:
                _close_event(views, p, p.event_reach)
            break
        _backfill(
            views, p, times, free, waiting, short_now, short_beside, tree,
            new_starts, new_sorted, last_starts,
        )  # fmt: skip
        # the next instant the availability changes (there is one: past the last
        # breakpoint the whole machine is free, and the head would have fitted)
        p.prev_t = p.t
        p.a += 1
        p.t = times[p.a]
        if p.rec:
            _close_event(views, p, max(p.event_reach, p.t))
    short_now[0] = p.sgen
    short_beside[0] = p.gen
    return _finish(
        queue, views, p, times, free, waiting, new_starts, new_sorted, last_starts, last_sorted
    )


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.initializedcheck(False)
def _start_heads(
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    waiting: cython.longlong[::1],
    tree: cython.longlong[::1],
    ends: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    new_sorted: cython.longlong[::1],
    last_starts: cython.longlong[::1],
) -> cython.void:
    """EASY at ``p.t``, first: the head, and each next head, starts while it fits — it fits
    now exactly when its earliest start (its shadow time) is now.  The shadow of a head that
    waits is kept from one event to the next: the windows before it did not fit and only lose
    room, and backfilling never takes the processors the head needs at its shadow."""
    m: cython.Py_ssize_t = views.m
    t: cython.longlong = p.t
    h: cython.Py_ssize_t = p.h
    a: cython.Py_ssize_t = p.a
    nsteps: cython.Py_ssize_t = p.nsteps
    shadow: cython.longlong = p.shadow
    x: cython.Py_ssize_t
    q: cython.longlong
    dq: cython.longlong
    while h < m:
        if waiting[h] == 0:  # backfilled earlier
            h += 1
            continue
        q = views.procs[h]
        dq = views.durs[h]
        if h != p.shadow_of or shadow < t:  # (its instant may have merged away)
            x = earliest_window(times, free, nsteps, a, q, dq, t, ends)
            shadow = t if x == a else times[x]
            p.shadow_of = h
            p.gen += 1  # (the caches beside the head were the old shadow's)
        if p.rec:
            p.event_reach = max(p.event_reach, shadow + max(dq, 1))
        if shadow != t:
            break
        if p.rec:  # a test passed: its window
            p.nr = _tight(views, times, free, nsteps, t, t + max(dq, 1), q, p.nr, p.wr)
            p.nw = _win(views, p.nw, p.wr, t, t + max(dq, 1), q if dq == 0 else 0)
        nsteps = _reserve_at(times, free, nsteps, a, nsteps, t, t + dq, q)
        a = _step(times, nsteps, a, t)
        p.gen += 1
        p.sgen += 1
        _decide(views, p, h, q, dq, t, waiting, new_starts, new_sorted, last_starts)
        _gone(tree, views.leaves, h)
        h += 1
    p.h = h
    p.a = a
    p.nsteps = nsteps
    p.shadow = shadow


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.initializedcheck(False)
def _backfill(
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    waiting: cython.longlong[::1],
    short_now: cython.longlong[::1],
    short_beside: cython.longlong[::1],
    tree: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    new_sorted: cython.longlong[::1],
    last_starts: cython.longlong[::1],
) -> cython.void:
    """EASY at ``p.t``, then: behind the head's reservation at its shadow time, in queue
    order, each waiting job no wider than the processors free now that fits now and takes
    none the head needs there starts (found by :func:`_next_backfill`)."""
    leaves: cython.Py_ssize_t = views.leaves
    ci: cython.Py_ssize_t = 2 * (views.cap + 1)  # short_now[ci + w]: the step found (_caches)
    rec: cython.bint = p.rec
    h: cython.Py_ssize_t = p.h
    hq: cython.longlong = views.procs[h]
    hd: cython.longlong = views.durs[h]
    t: cython.longlong = p.t
    a: cython.Py_ssize_t = p.a
    nsteps: cython.Py_ssize_t = p.nsteps
    gen: cython.longlong = p.gen
    sgen: cython.longlong = p.sgen
    now_free: cython.longlong = free[a]
    shadow: cython.longlong = p.shadow
    k: cython.Py_ssize_t = h
    found: cython.Py_ssize_t
    beside_read: cython.Py_ssize_t = 0  # a test beside the head was read at this event
    q: cython.longlong
    dq: cython.longlong
    if p.out != h:  # the trees hold the jobs behind the head only
        _gone(tree, leaves, h)
        p.out = h
    if rec:
        p.event_reach = max(p.event_reach, shadow + max(hd, 1))
    p.beside_read = False
    while now_free > 0:
        found = _next_backfill(
            p, times, free, short_now, short_beside, tree, leaves, ci, k, h, hq, hd,
            t, a, nsteps, gen, sgen, shadow, now_free,
        )  # fmt: skip
        beside_read |= found & 1
        k = found >> 1
        if k < 0:
            break
        q = views.procs[k]
        dq = views.durs[k]
        # the search's test at the leaf of k was this job's own (its width and its
        # duration): it passed.  The no-slot plan tests it again for what it records
        if rec and not _record_backfill(
            views, p, times, free, short_now, short_beside, k, a, nsteps, gen, sgen
        ):
            continue
        # (it ends by the first short instant for q, the cache's: no later than the step
        # found there)
        nsteps = _reserve_at(times, free, nsteps, a, short_now[ci + q], t, t + dq, q)
        _decide(views, p, k, q, dq, t, waiting, new_starts, new_sorted, last_starts)
        _gone(tree, leaves, k)
        if dq > 0:  # the block took room from t on (a 0-second job takes none)
            a = _step(times, nsteps, a, t)
            gen += 1
            sgen += 1
            now_free -= q
    p.a = a
    p.nsteps = nsteps
    p.gen = gen
    p.sgen = sgen
    if (p.beside_read or beside_read) and rec:  # the backfills read the head's shadow:
        # its window is a test passed (on the profile after them: less room, so more steps
        # found tight)
        _record_head_window(views, p, times, free)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.initializedcheck(False)
def _next_backfill(
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    short_now: cython.longlong[::1],
    short_beside: cython.longlong[::1],
    tree: cython.longlong[::1],
    leaves: cython.Py_ssize_t,
    ci: cython.Py_ssize_t,
    k: cython.Py_ssize_t,
    h: cython.Py_ssize_t,
    hq: cython.longlong,
    hd: cython.longlong,
    t: cython.longlong,
    a: cython.Py_ssize_t,
    nsteps: cython.Py_ssize_t,
    gen: cython.longlong,
    sgen: cython.longlong,
    shadow: cython.longlong,
    now_free: cython.longlong,
) -> cython.Py_ssize_t:
    """The next waiting job behind ``k`` (the head ``h``: the first) no wider than
    ``now_free`` that may backfill at ``t`` beside the head of ``hq`` processors for ``hd``
    s (-1: none).  A subtree of :func:`_build`'s trees is skipped when its least width is
    wider, or when its shortest job at its least width does not fit now or would take
    processors the head needs (then no job of it can: a wider job is short of processors no
    later, now and beside the head, and a longer one ends no earlier).  The first search
    starts from the root (none may backfill when it is skipped), the next ones behind ``k``.
    Returned as ``2 * job + 1`` when a test beside the head was read, else ``2 * job``."""
    beside_read: cython.Py_ssize_t = 0
    h_end: cython.longlong = shadow + hd
    i: cython.Py_ssize_t = 1 if k == h else k + 1 + leaves
    width: cython.longlong
    end: cython.longlong
    skip: cython.bint
    while i < 2 * leaves:
        width = tree[2 * i]
        skip = width > now_free
        if not skip:
            end = t + tree[2 * i + 1]
            if end > _short_cached(short_now, times, free, nsteps, a, width, sgen, t, ci):
                skip = True
            elif end > shadow:  # and beside the head, at its least width
                if hd > 0:
                    if short_beside[2 * width] != gen:
                        _find_beside(p, times, free, short_beside, nsteps, gen, width, hq)
                    if min(end, h_end) > short_beside[2 * width + 1]:
                        skip = True
                        beside_read = 1
                elif free[index(times, shadow, nsteps)] < width + hq:
                    skip = True
                    beside_read = 1
        if not skip:
            if i >= leaves:
                return 2 * (i - leaves) + beside_read
            i = 8 * i  # its first subtree first
            continue
        while (i & 7) == 7:  # a last child: its parent's range is done
            i >>= 3
        if i == 1:
            return -2 + beside_read
        i += 1
    return -2 + beside_read


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _find_beside(
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    short_beside: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    gen: cython.longlong,
    width: cython.longlong,
    hq: cython.longlong,
) -> cython.void:
    """Into the per-width cache ``short_beside`` (:func:`_caches`), as of generation ``gen``:
    the first instant from the head's shadow time with fewer than ``width`` + ``hq`` free
    (from ``p.sa``, the step holding the shadow time, found once a generation)."""
    if p.sa_gen != gen:
        p.sa = index(times, p.shadow, nsteps)
        p.sa_gen = gen
    short_beside[2 * width + 1] = _short(times, free, nsteps, p.sa, width + hq)
    short_beside[2 * width] = gen


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.initializedcheck(False)
def _record_backfill(
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    short_now: cython.longlong[::1],
    short_beside: cython.longlong[::1],
    k: cython.Py_ssize_t,
    a: cython.Py_ssize_t,
    nsteps: cython.Py_ssize_t,
    gen: cython.longlong,
    sgen: cython.longlong,
) -> cython.bint:
    """The no-slot plan's own test of job ``k``, found by :func:`_next_backfill` (``a``,
    ``nsteps``, ``gen``, ``sgen``: as in the search): whether it fits now and takes none of
    the processors the head needs at its shadow time; if so, the windows of the tests it
    passed are recorded (:func:`_tight`, :func:`_win`)."""
    t: cython.longlong = p.t
    q: cython.longlong = views.procs[k]
    dq: cython.longlong = views.durs[k]
    hq: cython.longlong = views.procs[p.h]
    hd: cython.longlong = views.durs[p.h]
    end: cython.longlong = t + dq
    shadow: cython.longlong = p.shadow
    h_end: cython.longlong = shadow + hd
    w1: cython.longlong
    if end > _short_cached(short_now, times, free, nsteps, a, q, sgen, t, 2 * (views.cap + 1)):
        return False  # fewer than q free before it ends
    if end > shadow:  # would it take processors the head needs at its shadow?
        p.beside_read = True
        if hd > 0:
            if short_beside[2 * q] != gen:
                _find_beside(p, times, free, short_beside, nsteps, gen, q, hq)
            if min(end, h_end) > short_beside[2 * q + 1]:
                return False
            p.event_reach = max(p.event_reach, min(end, h_end))
        else:
            if free[index(times, shadow, nsteps)] < q + hq:
                return False
            p.event_reach = max(p.event_reach, shadow + 1)
    p.event_reach = max(p.event_reach, max(end, t + 1))  # the tests passed: their windows
    p.nr = _tight(views, times, free, nsteps, t, max(end, t + 1), q, p.nr, p.wr)
    p.nw = _win(views, p.nw, p.wr, t, max(end, t + 1), q if dq == 0 else 0)
    if q == 0:  # (the search went on: something was free now)
        p.nr = _tight(views, times, free, nsteps, t, t + 1, 1, p.nr, p.wr)
        p.nw = _win(views, p.nw, p.wr, t, t + 1, 1)
    if end > shadow:
        w1 = min(end, h_end) if hd > 0 else shadow + 1
        p.nr = _tight(views, times, free, nsteps, shadow, w1, q + hq, p.nr, p.wr)
    return True


@cython.cfunc
@cython.exceptval(check=False)
@cython.initializedcheck(False)
def _record_head_window(
    views: _Views, p: _Play, times: cython.longlong[::1], free: cython.longlong[::1]
) -> cython.void:
    """The backfills at this event read the head's shadow time: the head's window there is a
    test passed (recorded on the profile after them: less room, so more steps found tight —
    enough)."""
    hq: cython.longlong = views.procs[p.h]
    hd: cython.longlong = views.durs[p.h]
    p.nr = _tight(views, times, free, p.nsteps, p.shadow, p.shadow + max(hd, 1), hq, p.nr, p.wr)
    p.nw = _win(views, p.nw, p.wr, p.shadow, p.shadow + max(hd, 1), hq)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
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
@cython.wraparound(False)
@cython.boundscheck(False)
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
@cython.wraparound(False)
@cython.boundscheck(False)
def _run_depth(
    queue: EasyQueue,
    views: _Views,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    waiting: cython.longlong[::1],
    short_now: cython.longlong[::1],
    tree: cython.uint[::1],
    heap: cython.longlong[::1],
    hn: cython.Py_ssize_t,
    t: cython.longlong,
    h: cython.Py_ssize_t,
    left: cython.Py_ssize_t,
    mode: cython.int,
    stop: cython.longlong,
    counts: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    new_sorted: cython.longlong[::1],
    last_starts: cython.longlong[::1],
    last_sorted: cython.longlong[::1],
    settle2: cython.longlong,
) -> cython.longlong:
    """Backfilling with reservation depth K (EASY holds one reservation, conservative
    backfilling all: Mu'alem & Feitelson 2001): depth K = ``queue.depth``
    (:class:`scheduler.cluster.depth.BackfillDepth`, every job submitted at ``queue.now``,
    running its planned duration) from the state: profile ``times``/``free`` of ``nsteps``
    steps with the blocks of every job started or holding a reservation; ``waiting`` the jobs
    holding neither (``left`` of them, the first ``h``), ``tree`` their trees
    (:func:`_build3`); ``heap[:hn]`` the starts of the reservations not yet started.  At each
    instant: the reservations whose time has come start; while fewer than K are held, the
    first job holding none is placed at its earliest start with every block in place (and
    starts if that is now, :func:`_place_first_k`); then the jobs holding none, in queue order,
    start if their processors are free over ``[t, t + planned duration)``
    (:func:`_start_fitting`).  Next instant: the next breakpoint of the profile or reserved
    start (an instant where neither more processors are free nor a reservation starts decides
    nothing: every test that failed before fails again).  ``mode`` as in :func:`_run`; the
    reach of an event: ``t + 1`` (the free processors now), every placement's window, every
    passed test's window, and the next instant.

    A re-plan (``mode`` 0) keeps its starts (``new_starts``) and the instants it decided them
    (placed or started; ``new_sorted``, sorted, the first ones given) and stops as :func:`_run`
    does (:func:`_meets_a_known_plan`, which proves it for depth K)."""
    p: _Play = views.play
    plan_sorted: cython.longlong[::1] = views.vd  # the no-slot decisions' instants, sorted
    ends: cython.longlong[::1] = views.ends
    _begin(p, views, times, nsteps, t, h, left, mode, stop, settle2)
    p.held = hn
    p.gen = short_now[0] + 1  # slot 0 holds the last generation used
    if not p.rec:
        counts[0] += 1
    while p.left > 0:
        if p.rec:
            _open_event(views, p, times, free)
        else:
            counts[1] += 1
            if _meets_a_known_plan(views, p, counts, plan_sorted, last_sorted):
                break
        while p.held > 0 and heap[0] <= p.t:  # the reservations whose time has come start
            p.held = _pop(heap, p.held)  # (their blocks are in place)
        _place_first_k(
            views, p, times, free, waiting, tree, heap, ends, new_starts, new_sorted, last_starts
        )
        if p.left == 0:
            if p.rec:
                _close_event(views, p, p.event_reach)
            break
        _start_fitting(
            views, p, times, free, waiting, short_now, tree, new_starts, new_sorted, last_starts
        )
        _next_instant(p, times, heap)
        if p.rec:
            _close_event(views, p, max(p.event_reach, p.t))
    short_now[0] = p.gen
    return _finish(
        queue, views, p, times, free, waiting, new_starts, new_sorted, last_starts, last_sorted
    )


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.initializedcheck(False)
def _place_first_k(
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    waiting: cython.longlong[::1],
    tree: cython.uint[::1],
    heap: cython.longlong[::1],
    ends: cython.longlong[::1],
    new_starts: cython.longlong[::1],
    new_sorted: cython.longlong[::1],
    last_starts: cython.longlong[::1],
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
        if waiting[h] == 0:  # started earlier
            continue
        q = views.procs[h]
        dq = views.durs[h]
        x = earliest_window(times, free, p.nsteps, p.a, q, dq, t, ends)
        st = t if x == p.a else times[x]
        if p.rec:  # the window it was placed in: a test passed
            p.event_reach = max(p.event_reach, st + max(dq, 1))
            p.nw = _win(views, p.nw, p.wr, st, st + max(dq, 1), 0)
        p.nsteps = _reserve_at(times, free, p.nsteps, x, ends[0] + 1, st, st + dq, q)
        p.a = _step(times, p.nsteps, p.a, t)
        p.gen += 1  # (the profile changed: the first short instants found are stale)
        _decide(views, p, h, q, dq, st, waiting, new_starts, new_sorted, last_starts)
        if st > t:
            p.held = _push(heap, p.held, st)
        _gone3(tree, views.leaves, h)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.initializedcheck(False)
def _start_fitting(
    views: _Views,
    p: _Play,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    waiting: cython.longlong[::1],
    short_now: cython.longlong[::1],
    tree: cython.uint[::1],
    new_starts: cython.longlong[::1],
    new_sorted: cython.longlong[::1],
    last_starts: cython.longlong[::1],
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
            p.event_reach = max(p.event_reach, max(end, t + 1))
            p.nw = _win(views, p.nw, p.wr, t, max(end, t + 1), 0)
        # (it ends by the first short instant for q, the cache's: no later than the step
        # found there)
        p.nsteps = _reserve_at(times, free, p.nsteps, p.a, short_now[ci + q], t, end, q)
        _decide(views, p, k, q, dq, t, waiting, new_starts, new_sorted, last_starts)
        _gone3(tree, views.leaves, k)
        if end > t:  # the block took room from t on (a 0-second job takes none)
            p.a = _step(times, p.nsteps, p.a, t)
            p.gen += 1
            now_free -= q


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
@cython.initializedcheck(False)
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
    """The per-width caches of :func:`_run` and :func:`_run_depth`, each a buffer of pairs
    (what one lookup reads side by side): for width ``w``, ``short_now[2w + 1]`` the first short
    instant from ``t``, found in generation ``short_now[2w]``; ``short_beside[2w + 1]`` (EASY) the
    first short instant from the shadow time for ``w`` + the head's width, found in generation
    ``short_beside[2w]``.  ``short_now[0]`` and ``short_beside[0]`` keep the last generations used.
    EASY: after the pairs, ``short_now[2(capacity + 1) + w]`` the step of ``short_now[2w + 1]``
    (``nsteps``: none), which bounds the search for the end of a backfill's block
    (:func:`_reserve_at`)."""
    return buffer([], 3 * (capacity + 1)), buffer([], 2 * (capacity + 1))


#: compiled: per thread, the buffers the no-slot plan is first recorded into (kept from one
#: queue to the next, grown as needed)
_SCRATCH = threading.local()


def _play(queue: EasyQueue) -> None:
    """Play ``queue``'s no-slot plan and record its snapshots, tests and windows.  Compiled, it
    is played once into this thread's scratch buffers (grown when a plan did not fit: then
    it is played again into buffers of its sizes, as uncompiled) and copied to buffers of
    its sizes; uncompiled, once for the sizes and once more to copy them."""
    names = ("pt", "pf", "tv", "tend", "wa", "wb", "wx")
    if cython.compiled:
        have = getattr(_SCRATCH, "bufs", None)
        if have is None:
            have = _SCRATCH.bufs = {k: buffer([], 1024) for k in names}
        for k in names:
            setattr(queue, k, have[k])
        _record(queue, 3)  # (recorded while it fits, sized in full)
        total = queue.off[queue.events + 1]
        need = {"pt": total, "pf": total, "tv": queue.ntests, "tend": queue.ntests}
        need.update(wa=queue.nwin, wb=queue.nwin, wx=queue.nwin)
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
    queue.tv = buffer([], queue.ntests)
    queue.tend = buffer([], queue.ntests)
    queue.wa = buffer([], queue.nwin)
    queue.wb = buffer([], queue.nwin)
    queue.wx = buffer([], queue.nwin)
    _record(queue, 2)  # the same plan again, copying them


def _record(queue: EasyQueue, mode: int) -> None:
    """Play the no-slot plan, recording its events (``mode`` as in :func:`_run`: 1, their
    sizes; 2, their profiles, tests and windows too; 3, both)."""
    times = buffer(queue.base_times, queue.size)
    free = buffer(queue.base_free, queue.size + 3)  # (_first_short reads up to 3 steps past the -1)
    if cython.compiled:
        free[len(queue.base_times)] = -1  # (the stop of _short's scan)
    waiting = array("q", [1]) * queue.m if cython.compiled else [1] * queue.m
    short_now, short_beside = _caches(queue.capacity)
    if queue.depth:
        tree3 = _trees3(queue.leaves)
        _build3(tree3, queue.leaves, queue.procs, queue.durs, waiting, queue.m)
    else:
        tree = _trees(queue.leaves, queue.m)
        _build(tree, queue.leaves, queue.procs, queue.durs, waiting, queue.m)
    views = _Views(queue, None)  # (E's buffers as they are now)
    counts = buffer([], 4)
    unused = buffer([], 0)  # (the starts of re-plans: a re-plan's only)
    if queue.depth:
        heap = buffer([], queue.m + 1)
        _run_depth(
            queue,
            views,
            times,
            free,
            len(queue.base_times),
            waiting,
            short_now,
            tree3,
            heap,
            0,
            queue.now,
            0,
            queue.m,
            mode,
            0,
            counts,
            unused,
            unused,
            unused,
            unused,
            0,
        )
    else:
        _run(
            queue,
            views,
            times,
            free,
            len(queue.base_times),
            waiting,
            short_now,
            short_beside,
            tree,
            queue.now,
            0,
            queue.m,
            mode,
            0,
            counts,
            unused,
            unused,
            unused,
            unused,
            0,
        )


class Work:
    """Buffers for :func:`delay`, reused across the candidate starts of a quote."""

    def __init__(self, queue: EasyQueue) -> None:
        self.times = buffer([], queue.size)
        self.free = buffer([], queue.size + 3)  # (_first_short reads up to 3 steps past the -1)
        self.waiting = buffer([], queue.m)
        self.short_now, self.short_beside = _caches(queue.capacity)
        self.tree = None if queue.depth else _trees(queue.leaves, queue.m)
        self.tree3 = _trees3(queue.leaves) if queue.depth else None
        self.heap = buffer([], queue.m + 1)  # depth K: the starts of the reserved jobs, a min-heap
        #: re-plans played, events they played, re-plans stopped early because their
        #: state became the no-slot plan's, and because it became the last re-plan's
        self.counts = buffer([], 4)
        #: the starts of the last re-plan (queue order, and sorted: at depth K, the instants
        #: they were decided, sorted) and of the current
        self.last_starts = buffer([], queue.m)
        self.last_sorted = buffer([], queue.m)
        self.new_starts = buffer([], queue.m)
        self.new_sorted = buffer([], queue.m)
        self.views = _Views(queue, self)


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _reach_for(queue: EasyQueue, n: cython.longlong):  # type: ignore[no-untyped-def]
    """The reach for a slot of ``n`` processors (kept in ``queue.rn_for``): per event, the running
    maximum of the ends of the tight steps (slack below ``n``) of the tests it passed."""
    toff: cython.longlong[::1] = queue.toff
    tv: cython.longlong[::1] = queue.tv
    tend: cython.longlong[::1] = queue.tend
    out = buffer([], queue.cap_events)
    rn: cython.longlong[::1] = out
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    run: cython.longlong = 0
    for i in range(queue.events):
        for j in range(toff[i], toff[i + 1]):
            if tv[j] < n and tend[j] > run:
                run = tend[j]
        rn[i] = run
    queue.rn_for = (n, out)
    return out


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
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
@cython.wraparound(False)
@cython.boundscheck(False)
def _restart(
    queue: EasyQueue, views: _Views, s: cython.longlong, e: cython.longlong, n: cython.longlong
) -> cython.Py_ssize_t:
    """:func:`restart` on ``queue``'s views ``views``."""
    reach: cython.longlong[::1]
    events: cython.Py_ssize_t = queue.events
    lo: cython.Py_ssize_t = 0
    hi: cython.Py_ssize_t = events
    mid: cython.Py_ssize_t
    if views.depth == 0:
        if views.rn_n != n:
            kept = queue.rn_for
            views.rn = kept[1] if kept[0] == n else _reach_for(queue, n)
            views.rn_n = n
        reach = views.rn
    else:
        reach = views.reach
    while lo < hi:  # the first event whose reach passes s (reach is non-decreasing)
        mid = (lo + hi) >> 1
        if reach[mid] > s:
            hi = mid
        else:
            lo = mid + 1
    if lo < events:
        return _first_moved(views, events, lo, s, e, n)
    return lo


@cython.ccall
def restart(queue: EasyQueue, s: cython.longlong, e: cython.longlong, n: cython.longlong) -> int:
    """The event a re-plan with the slot ``n`` over ``[s, e)`` starts from (``queue.events``:
    none, nobody moves): the first whose reach passes ``s`` (EASY: for a slot of ``n``
    processors, ``queue.rn_for``) and from there the first whose tests the slot may make fail
    (:func:`_first_moved`)."""
    return _restart(queue, _Views(queue, None), s, e, n)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _set_starts(
    views: _Views, had: cython.bint, before: cython.Py_ssize_t, SV: cython.longlong[::1]
) -> cython.void:
    """A re-plan's lists before it plays (:func:`_replan`, :func:`_replan_depth`): its starts
    ``new_starts`` the no-slot plan's (and the last re-plan's ``last_starts`` too, when there is
    none), the first ``before`` of its sorted decisions ``new_sorted`` the no-slot plan's (``SV``:
    its starts under EASY, its decision instants at depth K), and every job waiting (``waiting``;
    the caller clears the ones decided before the restart event)."""
    m: cython.Py_ssize_t = views.m
    starts0: cython.longlong[::1] = views.starts0
    waiting: cython.longlong[::1] = views.waiting
    new_starts: cython.longlong[::1] = views.new_starts
    last_starts: cython.longlong[::1] = views.last_starts
    new_sorted: cython.longlong[::1] = views.new_sorted
    x: cython.Py_ssize_t
    if not cython.compiled:  # (the sizes and addresses below are C's: compiled only)
        new_starts[:m] = starts0[:m]
        if not had:
            last_starts[:m] = starts0[:m]
        new_sorted[:before] = SV[:before]
    elif m > 0:
        copy_values(cython.address(new_starts[0]), cython.address(starts0[0]), m)
        if not had:
            copy_values(cython.address(last_starts[0]), cython.address(starts0[0]), m)
        if before > 0:
            copy_values(cython.address(new_sorted[0]), cython.address(SV[0]), before)
    for x in range(m):
        waiting[x] = 1


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _copy_leaves(
    tree: cython.longlong[::1],
    leaf2: cython.longlong[::1],
    leaves: cython.Py_ssize_t,
    m: cython.Py_ssize_t,
) -> cython.void:
    """The leaves of the EASY trees (:func:`_build`), every job waiting, copied whole from
    ``queue.leaf2``."""
    if not cython.compiled:
        tree[2 * leaves : 2 * (leaves + m)] = leaf2[: 2 * m]
    elif m > 0:
        memmove(
            cython.address(tree[2 * leaves]),
            cython.address(leaf2[0]),
            2 * m * cython.sizeof(cython.longlong),
        )


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
@cython.wraparound(False)
@cython.boundscheck(False)
def _replan(
    queue: EasyQueue,
    views: _Views,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    r: cython.Py_ssize_t,
    t: cython.longlong,
    e: cython.longlong,
) -> cython.longlong:
    """EASY: :func:`_run` from event ``r``'s state (``times``/``free``: with the slot, which ends at
    ``e``) at ``t``, stopping at the no-slot plan's state or at the last re-plan's; its starts
    are kept as the last re-plan's.  As at depth K (:func:`_replan_depth`), only the jobs
    started before event ``r`` (the first ``m - left[r]`` of ``queue.order``) are visited to set
    the state up: the leaves of the trees (:func:`_build`) are copied whole from
    ``queue.leaf2``, theirs cleared."""
    m: cython.Py_ssize_t = views.m
    starts0: cython.longlong[::1] = views.starts0
    durs: cython.longlong[::1] = views.durs
    order: cython.longlong[::1] = views.order
    sorted_starts: cython.longlong[::1] = views.vs
    waiting: cython.longlong[::1] = views.waiting
    tree: cython.longlong[::1] = views.tree
    new_starts: cython.longlong[::1] = views.new_starts
    last_starts: cython.longlong[::1] = views.last_starts
    new_sorted: cython.longlong[::1] = views.new_sorted
    x: cython.Py_ssize_t
    y: cython.Py_ssize_t
    leaves: cython.Py_ssize_t = views.leaves
    before: cython.Py_ssize_t = m - views.left[r]  # jobs started before event r
    settle2: cython.longlong = 4611686018427387904  # _INF: no last re-plan
    had: cython.bint = views.last >= 0
    v0: cython.longlong
    sp: cython.longlong
    out: cython.longlong
    _copy_leaves(tree, views.leaf2, leaves, m)
    _set_starts(views, had, before, sorted_starts)  # (the earliest no-slot starts: before r)
    if had:
        # its state may be this one's once both slots are over and the jobs started before
        # event r (at their no-slot starts) have ended where the last re-plan started them
        settle2 = max(e, views.last)
    for y in range(before):
        x = order[y]
        waiting[x] = 0
        tree[2 * (leaves + x)] = 4611686018427387904  # _INF
        tree[2 * (leaves + x) + 1] = 4611686018427387904
        if had:
            v0 = starts0[x]
            sp = last_starts[x]
            if sp != v0:
                settle2 = max(settle2, max(sp, v0) + max(durs[x], 1))
    _fill(tree, leaves, m)  # (the other nodes are _INF for good: _trees)
    out = _run(
        queue, views, times, free, nsteps, waiting, views.short_now, views.short_beside, tree,
        t, views.head[r], views.left[r], 0, e, views.counts,
        new_starts, new_sorted, last_starts, views.last_sorted, settle2,
    )  # fmt: skip
    _keep_as_last(views, e)
    return out


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
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
    t: cython.longlong
    if r == queue.events:
        return 0  # every test the plan passed passes with the slot: nobody moves
    o = off[r]
    nsteps = off[r + 1] - o
    load_steps(times, free, snap_times, snap_free, o, nsteps)
    if cython.compiled:
        free[nsteps] = -1  # (the stop of _short's scan)
    nsteps = _reserve_at(times, free, nsteps, index(times, s, nsteps), nsteps, s, e, n)  # the slot
    if views.depth == 0:
        if r == 0:
            t = views.now
        else:  # the next instant after the event before, on the profile with the slot
            t = times[index(times, views.prev[r], nsteps) + 1]
        return _replan(queue, views, times, free, nsteps, r, t, e)  # (it sets W and the trees up)
    return _replan_depth(
        queue, views, times, free, nsteps, r, e
    )  # (it sets W, the trees and the heap up)


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _replan_depth(
    queue: EasyQueue,
    views: _Views,
    times: cython.longlong[::1],
    free: cython.longlong[::1],
    nsteps: cython.Py_ssize_t,
    r: cython.Py_ssize_t,
    e: cython.longlong,
) -> cython.longlong:
    """Depth K: :func:`_run_depth` from event ``r``'s state (``times``/``free``: with the slot,
    which ends at ``e``), stopping at the no-slot plan's state or at the last re-plan's; its
    starts and decisions are kept as the last re-plan's.  The jobs decided before event ``r``
    are the first ``m - left[r]`` of the no-slot plan's decision order (``queue.order``): only they
    are visited to set the state up — out of the waiting flags and the trees (copied whole
    from ``queue.leaf3``, every job waiting), into the heap of reservations held when their start
    is after the event before, and into the last re-plan's settle time."""
    m: cython.Py_ssize_t = views.m
    leaves: cython.Py_ssize_t = views.leaves
    starts0: cython.longlong[::1] = views.starts0
    durs: cython.longlong[::1] = views.durs
    order: cython.longlong[::1] = views.order
    sorted_decisions: cython.longlong[::1] = views.vd
    waiting: cython.longlong[::1] = views.waiting
    heap: cython.longlong[::1] = views.heap
    tree3: cython.uint[::1] = views.tree3
    new_starts: cython.longlong[::1] = views.new_starts
    last_starts: cython.longlong[::1] = views.last_starts
    new_sorted: cython.longlong[::1] = views.new_sorted
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
    _set_starts(views, had, decided, sorted_decisions)  # (the earliest no-slot decisions)
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
            settle2 = max(settle2, max(last_starts[x], s0) + max(durs[x], 1))
    _fill3(tree3, leaves, m)
    if r == 0:
        t = views.now
    else:  # the next instant after the event before, on the profile with the slot
        x = index(times, prev, nsteps) + 1
        t = times[x] if x < nsteps else 4611686018427387904  # _INF
        if hn > 0 and heap[0] < t:
            t = heap[0]
    out = _run_depth(
        queue, views, times, free, nsteps, waiting, views.short_now, tree3, heap, hn,
        t, views.head[r], views.left[r], 0, e, views.counts,
        new_starts, new_sorted, last_starts, views.last_sorted, settle2,
    )  # fmt: skip
    _keep_as_last(views, e)
    return out


@cython.ccall
def delay(
    queue: EasyQueue, w: Work, s: cython.longlong, e: cython.longlong, n: cython.longlong
) -> cython.longlong:
    """The delay (processor-seconds) the slot ``n`` over ``[s, e)`` causes to the queued jobs
    under EASY: the plan with the slot, from the first event whose reach passes ``s`` (EASY:
    for a slot of ``n`` processors, ``queue.rn_for``; and then the first whose tests the slot may
    make fail, :func:`restart`)."""
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
@cython.wraparound(False)
@cython.boundscheck(False)
def prices(queue: EasyQueue, cands: list, n: cython.longlong, d: cython.longlong) -> list:
    """:meth:`~scheduler.pricing.price.SiteQuote.price` of the slot ``n`` over ``[s, s + d)``
    at every start ``s`` of ``cands`` (one :class:`Work` for all): None where it does not fit
    beside the running jobs and reservations (the base profile), 0 in a hole of the no-slot
    plan (its profile after the last event) that holds the start of no job of no duration
    (a test the plan passed had room for its job beside every later block, so beside the
    slot too), else :func:`delay`."""
    out: list = []
    views: _Views = Work(queue).views
    base_t: cython.longlong[::1] = queue.bt
    base_f: cython.longlong[::1] = queue.bf
    off: cython.longlong[::1] = queue.off
    snap_times: cython.longlong[::1] = queue.pt
    snap_free: cython.longlong[::1] = queue.pf
    zeros: cython.longlong[::1] = queue.zeros
    nb: cython.Py_ssize_t = len(queue.base_times)
    nz: cython.Py_ssize_t = queue.nzeros
    o: cython.Py_ssize_t = off[queue.events]
    hi: cython.Py_ssize_t = off[queue.events + 1]
    z: cython.Py_ssize_t = 0
    s: cython.longlong
    for s in cands:
        if least_free(base_t, base_f, 0, nb, s, s + d) < n:
            out.append(None)
            continue
        if least_free(snap_times, snap_free, o, hi, s, s + d) >= n:
            z = 0  # (few: a 0-second job is never a live site's)
            while z < nz and zeros[z] < s:
                z += 1
            if z == nz or zeros[z] >= s + d:
                out.append(0)
                continue
        out.append(_delay(queue, views, s, s + d, n))
    return out
