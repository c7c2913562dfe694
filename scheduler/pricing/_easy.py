"""The EASY re-plan kernel of :meth:`scheduler.pricing.price.SiteQuote.price` (issue 21: a quote
under EASY backfilling at 200+ queued jobs re-planned the whole queue for every candidate start,
~0.5 s median and ~2.3 s p99 on CTC-SP2 at 338 processors).

Plain Python *and* the source of a C extension, like :mod:`scheduler.pricing._replan` (see its
docstring for the buffers, ``if cython.compiled:`` branches and how :mod:`scheduler._native`
loads it).  Times and processor counts must fit in 62 bits.

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
  for ``n`` processors (``E.rn_for``, running maximum) is the end of the last tight step of its
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
  event keeps its tests' windows (``E.wa``/``wb``/``wx``, see :func:`_win`) and they are
  checked on the profile *after* the event (the next snapshot), which holds the blocks the
  event started — never more room than when a test was read, so a pass there is a pass —
  with ``x`` less the job's own block where it covers the window (a start's window: its
  width; a backfill beside the head: the head's width, the window within the head's at
  its shadow, which is checked as well).  About a quarter of the events a re-plan played
  from the reach on decided as without the slot (issue 21: 135.6 -> 103.7 events per
  re-plan at 200+ queued jobs on CTC-SP2).
* a re-plan stops at the first instant ``t`` from ``e`` on where its state is the no-slot
  plan's: the jobs started are the ones the no-slot plan started before ``t``, and every job
  whose start moved has ended in both plans.  The blocks past ``t`` and the waiting jobs are
  then the no-slot plan's, which plays on from ``t`` as the no-slot plan does (an instant it
  does not visit decides nothing): nobody else moves.  (:class:`Work` ``.counts``: re-plans,
  events played, early stops.)  Likewise at the *last re-plan's* state (of the same
  :class:`Work`; under EASY, its starts are kept, in queue order and sorted): once both
  slots are over and every job whose start differs from it — those started before the
  restart event at their no-slot starts included — has ended in both, with the jobs started
  the ones it started before ``t``, the waiting jobs start as there (``.counts[3]``).  The
  plans of neighbouring candidate starts often meet long before the no-slot plan's state
  comes back (issue 21, 200+ queued: 119.9 -> 103.7 events per re-plan).
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
  finds the short one of the four without a branch (:func:`_first_short`; issue 21, 400+
  queued: ~6 % less CPU a quote).  Under EASY the cache keeps the step it found too: a
  backfill ends by it, which bounds the search for the end of its block (~1 %).  The
  depth-K loop does the same (its caches change
  generation whenever a block is inserted, a placement's included, and a first short instant
  holds from one event to the next while it is not before the step holding ``t``; they keep
  the step found too, which bounds a backfill's block; its trees keep the one-processor jobs
  apart, :func:`_build3`, in 32 bits, :func:`_trees3`), follows the step holding ``t`` too
  and inserts a placement's block between the steps its earliest-start scan found.  A
  depth-K re-plan (and an EASY one, :func:`_replan`) sets its state up from the jobs
  decided before its restart event only (the first of the no-slot plan's decision order,
  ``E.order``; the trees' leaves copied whole from ``E.leaf3``, ``E.leaf2``).  Same
  process, interleaved, the kernel on CTC-SP2's 208 instants with 400+ queued (K = 4, least
  of 3, two runs): the bounds 0.985 / 0.986 of the CPU before them, then the 32-bit trees
  0.959 / 0.953, then the set-up 0.932 / 0.922, every price identical; EASY with 32-bit
  trees was 1.05-1.07 (kept in 64).  Such figures carry the code layout's luck: the same
  source built with a line more at its end (which shifts the hot loops by a few bytes) ran
  2-6 % faster or slower, kernel by kernel.
* a quote prices all its candidate starts in one call (:func:`prices`: the fit beside the
  base, the hole test, the re-plan), on the buffers as typed views taken once per
  :class:`Work` (:class:`_Views`: a view costs a buffer request and a format check, and a
  re-plan read ~35 of them), and the small C helpers are declared not to raise (no error
  check after each call).

The same kernel plays backfilling with a reservation depth K (:func:`_run_depth`,
``EasyQueue(..., depth=K)``) with the same snapshots and the whole-window reach: its
placements read the profile up to the end of the window they pick, its backfills up to their
ends.  From the first event whose reach passes ``s``, a depth-K re-plan too starts at the
first event where a passed test may fail (:func:`_first_moved`: a placement's window, where
the job holds its reservation, and a backfill's, both checked on the profile after the event
with ``x`` = 0; a test that failed fails with the slot too, and the instants the slot adds
decide nothing, as under EASY).  And it stops, like an EASY re-plan, at the no-slot plan's
state or at the last re-plan's (its proof, with the reservations held, at :func:`_run_depth`),
counting decisions (a placement or a start, at the instant it is taken: ``E.dec0``, sorted
``E.vd``) rather than starts.  At 200+ queued jobs (CTC-SP2, 338 processors, K = 4) most
depth-K re-plans never meet either state: a delayed reservation moves the rest of the plan.

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
        earliest_step,
        index,
        least_free,
        reserve,
        take_block,
        take_shifted,
    )

    from scheduler.pricing._steps import buffer  # (a Python function)
else:  # their pure source (a build's functions take C arrays, not lists)
    from scheduler._native import load_pure

    _steps = load_pure("scheduler.pricing._steps", "scheduler.pricing._steps_pure")
    buffer, earliest_step, index = _steps.buffer, _steps.earliest_step, _steps.index
    least_free, reserve, take_block = _steps.least_free, _steps.reserve, _steps.take_block

__all__ = ["EasyQueue", "buffer", "delay", "delays", "prices", "restart"]

#: "never short" / "reads the rest of the profile" (past the last breakpoint all is free)
_INF = 1 << 62  # (the C functions write the literal: a module global is a Python object)
#: "none" in the depth-K trees over the waiting jobs (32-bit values: :func:`_trees3`)
_TREE_INF = (1 << 32) - 1
#: the longest planned duration the depth-K kernel takes (its trees hold durations in 32 bits)
MAX_DURATION = _TREE_INF - 1


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
        _order_leaves(self.ev, self.events, self.procs, self.durs, m, self.order, self.leaf3,
                      self.leaf2, depth > 0)  # fmt: skip
        self.starts = self.starts0[:m].tolist() if cython.compiled else list(self.starts0)[:m]
        self.vs = buffer(sorted(self.starts), m)  # the no-slot starts, sorted
        #: the instants the no-slot starts were decided, sorted (EASY: the starts themselves)
        self.vd = buffer(sorted(self.dec0[:m]), m) if depth else self.vs
        zeros = sorted(v for v, dq in zip(self.starts, durs, strict=True) if dq == 0)
        self.zeros = buffer(zeros, len(zeros))  # the starts of the jobs of no duration
        self.nzeros = len(zeros)
        self.bt = buffer(self.base_times, len(self.base_times))  # (as the kernel reads them)
        self.bf = buffer(self.base_free, len(self.base_times))
        #: EASY: ``(n, reach for a slot of n processors)``, the last ``n`` asked (one object:
        #: a request for another ``n`` replaces it, never writes into it)
        self.rn_for = (-1, None)


@cython.cclass
class _Views:
    """The buffers of an :class:`EasyQueue` (and of a :class:`Work`, if any) as the compiled
    loops read them: typed views taken once, not at every call (each costs a buffer request
    and a check of its format; a quote makes ~200 re-plans).  Built again whenever ``E``'s
    buffers are replaced (:func:`_record`)."""

    E: object
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
    T: cython.longlong[::1]
    F: cython.longlong[::1]
    W: cython.longlong[::1]
    CA: cython.longlong[::1]
    CB: cython.longlong[::1]
    ST: cython.longlong[::1]
    S3: cython.uint[::1]
    order: cython.longlong[::1]
    leaf3: cython.uint[::1]
    leaf2: cython.longlong[::1]
    H: cython.longlong[::1]
    C: cython.longlong[::1]
    SP: cython.longlong[::1]
    SVP: cython.longlong[::1]
    SC: cython.longlong[::1]
    SVC: cython.longlong[::1]
    last: cython.longlong
    ends: cython.longlong[::1]

    def __init__(self, E: EasyQueue, w) -> None:  # type: ignore[no-untyped-def]
        self.E = E
        self.m = E.m
        self.leaves = E.leaves
        self.depth = E.depth
        self.cap = E.capacity
        self.now = E.now
        self.procs = E.procs
        self.durs = E.durs
        self.starts0 = E.starts0
        self.dec0 = E.dec0
        self.ev = E.ev
        self.reach = E.reach
        self.head = E.head
        self.left = E.left
        self.prev = E.prev
        self.off = E.off
        self.pt = E.pt
        self.pf = E.pf
        self.toff = E.toff
        self.tv = E.tv
        self.tend = E.tend
        self.woff = E.woff
        self.wa = E.wa
        self.wb = E.wb
        self.wx = E.wx
        self.vs = E.vs
        self.vd = E.vd
        self.order = E.order
        self.leaf3 = E.leaf3
        self.leaf2 = E.leaf2
        self.rn_n = -1  # (the reach for n processors not taken yet)
        if w is not None:
            self.T = w.T
            self.F = w.F
            self.W = w.W
            self.CA = w.CA
            self.CB = w.CB
            self.ST = w.ST
            self.S3 = w.S3
            self.H = w.H
            self.C = w.counts
            self.SP = w.SP
            self.SVP = w.SVP
            self.SC = w.SC
            self.SVC = w.SVC
        self.last = -1  # the end of the last re-plan's slot (-1: none yet)
        self.ends = buffer([], 1)  # (earliest_step's second result)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _reserve_at(
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    a: cython.Py_ssize_t,
    b: cython.Py_ssize_t,
    t: cython.longlong,
    stop: cython.longlong,
    q: cython.longlong,
) -> cython.Py_ssize_t:
    """:func:`~scheduler.pricing._steps.reserve` of ``q`` processors over ``[t, stop)`` when
    step ``a`` holds ``t`` and ``stop`` is not after step ``b``'s first instant (``b`` > ``a``;
    ``L``: no bound); compiled, ``F[L]`` is then -1 (:func:`_first_short`)."""
    k: cython.Py_ssize_t = a
    n: cython.Py_ssize_t = b - a
    half: cython.Py_ssize_t
    if stop <= t or q == 0:
        return L
    if cython.compiled:  # k: the step holding stop - 1, from a (T[a] <= t) on, branchless
        while n > 1:
            half = n >> 1
            k = k + half if T[k + half] < stop else k
            n -= half
    else:
        k = bisect_right(T, stop - 1, a, b) - 1
    if not cython.compiled:
        return take_block(T, F, L, a, k, t, stop, q)
    L = take_shifted(cython.address(T[0]), cython.address(F[0]), L, a, k, t, stop, q)
    F[L] = -1  # (the stop of _short's scan)
    return L


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _step(
    T: cython.longlong[::1], L: cython.Py_ssize_t, a: cython.Py_ssize_t, t: cython.longlong
) -> cython.Py_ssize_t:
    """The step holding ``t``, from ``a``, the one that held it before a block was inserted
    (the split and merges around it move it by a step or two)."""
    if a > L - 1:
        a = L - 1
    while T[a] > t:
        a -= 1
    while a + 1 < L and T[a + 1] <= t:
        a += 1
    return a


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _earliest(
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    i: cython.Py_ssize_t,
    n: cython.longlong,
    d: cython.longlong,
    t: cython.longlong,
) -> cython.longlong:
    """:meth:`Profile.earliest_start` from ``t`` (step ``i`` holds it); ``n`` fits the machine."""
    last: cython.Py_ssize_t = L - 1
    start: cython.longlong = t
    end: cython.longlong = t + d
    while True:
        if F[i] < n:
            i += 1  # cannot be past the last step: it holds the whole capacity
            start = T[i]
            end = start + d
        elif i == last or T[i + 1] >= end:
            return start
        else:
            i += 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _short(
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    j: cython.Py_ssize_t,
    n: cython.longlong,
) -> cython.longlong:
    """The first instant of a step from ``j`` on with fewer than ``n`` free (never: _INF)."""
    j = _first_short(F, L, j, n)
    return T[j] if j < L else 4611686018427387904  # _INF


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _first_short(
    F: cython.longlong[::1], L: cython.Py_ssize_t, j: cython.Py_ssize_t, n: cython.longlong
) -> cython.Py_ssize_t:
    """The first step from ``j`` on with fewer than ``n`` free (none: ``L``).  Compiled,
    ``F[L]`` is -1 (:func:`_reserve_at` keeps it so): the scan stops there, four steps a
    test (``F`` has 3 more items past ``F[L]``), then the first short one of the four is
    found without a branch."""
    b: cython.Py_ssize_t
    if cython.compiled:
        while min(min(F[j], F[j + 1]), min(F[j + 2], F[j + 3])) >= n:
            j += 4
        b = cython.cast(cython.Py_ssize_t, F[j] >= n)
        b += b & cython.cast(cython.Py_ssize_t, F[j + 1] >= n)
        b += (b >> 1) & cython.cast(cython.Py_ssize_t, F[j + 2] >= n)
        return j + b
    while j < L and F[j] >= n:
        j += 1
    return j


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _build(
    ST: cython.longlong[::1],
    P: cython.Py_ssize_t,
    procs: cython.longlong[::1],
    durs: cython.longlong[::1],
    W: cython.longlong[::1],
    m: cython.Py_ssize_t,
) -> cython.void:
    """Two trees over the waiting jobs, interleaved in one buffer (a node's two values side
    by side, one cache line): leaf ``P + k`` holds job ``k``'s processors at ``2(P + k)``
    while it waits (else _INF) and its duration at ``2(P + k) + 1``; each node ``i`` the
    least of its eight children's (nodes ``8i .. 8i + 7``; the root is node 1, ``P`` a power
    of 8), at ``2i`` and ``2i + 1``.  Only the leaves of the ``m`` jobs and the nodes above
    them are written: the others are _INF for good (:func:`_trees`).

    Eight children, not two (issue 21): a search finds its job ~1.2 times an event at 400+
    queued jobs, and on the way down it tests a node's children from the first until one
    passes.  Binary, 23.5 node tests an event, 16.0 of them past the width test (which reads
    the per-width cache: two dependent loads and a branch hard to predict); eight children,
    27.1 and 8.4 — the other 18.7 fail on the width alone, a load and a compare (CTC-SP2 at
    338 processors, the 63 instants with 400+ queued, 3.5 million events, counted in an
    instrumented build).  Same process, interleaved, least of 3 a quote: 0.89-0.92 of the
    binary trees' CPU (four children: 0.93-0.95; sixteen, with an early stop in
    :func:`_gone`: 1.03-1.07), every price the same."""
    i: cython.Py_ssize_t
    for i in range(m):
        if W[i] != 0:
            ST[2 * (P + i)] = procs[i]
            ST[2 * (P + i) + 1] = durs[i]
        else:
            ST[2 * (P + i)] = 4611686018427387904  # _INF
            ST[2 * (P + i) + 1] = 4611686018427387904
    _fill(ST, P, m)


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _least8(ST: cython.longlong[::1], o: cython.Py_ssize_t) -> cython.longlong:
    """The least of ``ST[o], ST[o + 2], .., ST[o + 14]`` (one of the two values of a node's
    eight children, :func:`_build`), as pairs of pairs: three mins deep, not a chain of
    seven (written as a loop, the EASY quote took ~8 % more CPU)."""
    return min(
        min(min(ST[o], ST[o + 2]), min(ST[o + 4], ST[o + 6])),
        min(min(ST[o + 8], ST[o + 10]), min(ST[o + 12], ST[o + 14])),
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
def _fill(ST: cython.longlong[::1], P: cython.Py_ssize_t, m: cython.Py_ssize_t) -> cython.void:
    """The inner nodes of :func:`_build`'s trees above the leaves of the ``m`` jobs, from
    their leaves (level by level: the parents of nodes ``lo .. hi - 1``)."""
    i: cython.Py_ssize_t
    lo: cython.Py_ssize_t = P
    hi: cython.Py_ssize_t = P + m
    while lo > 1:
        lo >>= 3
        hi = (hi + 7) >> 3
        for i in range(lo, hi):
            ST[2 * i] = _least8(ST, 16 * i)
            ST[2 * i + 1] = _least8(ST, 16 * i + 1)


def _trees(leaves: int, m: int):  # type: ignore[no-untyped-def]
    """A buffer for :func:`_build`'s trees over ``leaves`` leaves for ``m`` jobs, every node
    _INF: the nodes above no job stay so, the build writes only the others.  Its nodes are
    the ones below ``P + m + 8`` (``P`` = ``leaves``): the inner ones are below ``P / 4``,
    and a search or an update reads the leaves of a job's siblings, up to the eighth.

    Compiled, it starts at a 64-byte boundary (a view from the first one in a buffer 8
    values longer): the values of a node's eight children (``16i .. 16i + 15``) are then
    two cache lines, not three.  Left to the allocator (16-byte aligned), the same kernel
    took 0.94-0.98 of the binary trees' CPU instead of 0.88-0.92 (issue 21, 400+ queued)."""
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
    values take 12 bytes, the trees over 1,024 leaves 24 KiB, within a 32 KiB L1 data cache
    (in 64 bits, 48 KiB were not: their loads were a tenth of the depth-K loop at 400+
    queued jobs).  Exact for widths and durations up to MAX_DURATION (EasyQueue refuses
    longer: the door's bound, :data:`scheduler.bounds.MAX_SECONDS`, is shorter)."""
    if cython.compiled:
        return array("I", [_TREE_INF]) * (6 * leaves)
    return [_TREE_INF] * (6 * leaves)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _gone(ST: cython.longlong[::1], P: cython.Py_ssize_t, k: cython.Py_ssize_t) -> cython.void:
    """Job ``k`` no longer waits (both trees updated up to their first node where neither
    changes: its ancestors are unchanged too).  Not declared inline: inlined into
    :func:`_run`, its loop cost the EASY loop ~7 % more instructions (registers)."""
    i: cython.Py_ssize_t = P + k
    vw: cython.longlong
    vd: cython.longlong
    ST[2 * i] = 4611686018427387904  # _INF
    ST[2 * i + 1] = 4611686018427387904
    i >>= 3
    while i > 0:
        vw = _least8(ST, 16 * i)
        vd = _least8(ST, 16 * i + 1)
        if vw == ST[2 * i] and vd == ST[2 * i + 1]:
            break
        ST[2 * i] = vw
        ST[2 * i + 1] = vd
        i >>= 3


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _build3(
    ST: cython.uint[::1],
    P: cython.Py_ssize_t,
    procs: cython.longlong[::1],
    durs: cython.longlong[::1],
    W: cython.longlong[::1],
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
        if W[i] != 0:
            _leaf3(ST, P, i, procs[i], durs[i])
        else:
            _leaf3(ST, P, i, inf, inf)
    _fill3(ST, P, m)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _fill3(ST: cython.uint[::1], P: cython.Py_ssize_t, m: cython.Py_ssize_t) -> cython.void:
    """The inner nodes of :func:`_build3`'s trees above the leaves of the ``m`` jobs, from
    their leaves (level by level, as :func:`_fill`)."""
    i: cython.Py_ssize_t
    lo: cython.Py_ssize_t = P
    hi: cython.Py_ssize_t = P + m
    while lo > 1:
        lo >>= 1
        hi = (hi + 1) >> 1
        for i in range(lo, hi):
            ST[3 * i] = min(ST[6 * i], ST[6 * i + 3])
            ST[3 * i + 1] = min(ST[6 * i + 1], ST[6 * i + 4])
            ST[3 * i + 2] = min(ST[6 * i + 2], ST[6 * i + 5])


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _leaf3(
    ST: cython.uint[::1],
    P: cython.Py_ssize_t,
    k: cython.Py_ssize_t,
    q: cython.longlong,
    dq: cython.longlong,
) -> cython.void:
    """Leaf ``P + k`` of :func:`_build3`'s trees: job ``k`` of ``q`` processors for ``dq`` s
    (``q`` _INF: none)."""
    i: cython.Py_ssize_t = 3 * (P + k)
    inf: cython.uint = 4294967295  # _TREE_INF
    if q == 1:
        ST[i] = dq
        ST[i + 1] = inf
        ST[i + 2] = inf
    else:
        ST[i] = inf
        ST[i + 1] = q
        ST[i + 2] = dq


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _gone3(ST: cython.uint[::1], P: cython.Py_ssize_t, k: cython.Py_ssize_t) -> cython.void:
    """:func:`_gone` in :func:`_build3`'s trees (those of the job's class)."""
    i: cython.Py_ssize_t = P + k
    vw: cython.uint
    vd: cython.uint
    inf: cython.uint = 4294967295  # _TREE_INF (typed: compared in C)
    if ST[3 * i] != inf:  # one processor
        ST[3 * i] = inf
        i >>= 1
        while i > 0:
            vd = min(ST[6 * i], ST[6 * i + 3])
            if vd == ST[3 * i]:
                break
            ST[3 * i] = vd
            i >>= 1
        return
    ST[3 * i + 1] = inf
    ST[3 * i + 2] = inf
    i >>= 1
    while i > 0:
        vw = min(ST[6 * i + 1], ST[6 * i + 4])
        vd = min(ST[6 * i + 2], ST[6 * i + 5])
        if vw == ST[3 * i + 1] and vd == ST[3 * i + 2]:
            break
        ST[3 * i + 1] = vw
        ST[3 * i + 2] = vd
        i >>= 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _tight(
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    w0: cython.longlong,
    w1: cython.longlong,
    x: cython.longlong,
    TV: cython.longlong[::1],
    TE: cython.longlong[::1],
    nr: cython.Py_ssize_t,
    write: cython.bint,
    cap: cython.longlong,
) -> cython.Py_ssize_t:
    """Record the test "``x`` free over ``[w0, w1)``" that passed (``write``: into ``TV``/``TE``
    from ``nr`` on; else only count): from the right, every step of the window with less slack
    (free - ``x``) than all the steps after it, as (its slack, its end in the window).  A slot
    of ``n`` processors fails the test only where it overlaps a step with slack below ``n``:
    all of them end no later than the first record (from the right) with slack below ``n``.
    Slacks of ``cap`` or more are not recorded (``n`` <= ``cap``).  Returns the new count."""
    p0: cython.Py_ssize_t = index(T, w0, L)
    p: cython.Py_ssize_t = index(T, w1 - 1, L)
    low: cython.longlong = cap
    v: cython.longlong
    end: cython.longlong = w1
    while p >= p0:
        v = F[p] - x
        if v < low:
            low = v
            if write and nr < len(TV):
                TV[nr] = v
                TE[nr] = end
            nr += 1
        end = T[p]
        p -= 1
    return nr


@cython.cfunc
@cython.exceptval(check=False)
@cython.inline
@cython.wraparound(False)
@cython.boundscheck(False)
def _win(
    A: cython.longlong[::1],
    B: cython.longlong[::1],
    X: cython.longlong[::1],
    nw: cython.Py_ssize_t,
    write: cython.bint,
    w0: cython.longlong,
    w1: cython.longlong,
    x: cython.longlong,
) -> cython.Py_ssize_t:
    """Record the window of a test passed, ``[w0, w1)``, and ``x``: the processors it needs
    free beside the blocks in place after its event (``write``: into ``A``/``B``/``X`` at
    ``nw``; else only count).  Returns the new count."""
    if write and nw < len(A):
        A[nw] = w0
        B[nw] = w1
        X[nw] = x
    return nw + 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _snapshot(
    V: _Views,
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    e: cython.Py_ssize_t,
    h: cython.Py_ssize_t,
    left: cython.Py_ssize_t,
    prev_t: cython.longlong,
    mode: cython.int,
) -> cython.void:
    """Record event ``e``'s state (the head, the jobs waiting, the instant before; ``mode``
    1: the size of its profile, 2: the profile itself, in ``E.pt``/``E.pf``; 3: both, the
    profile only while it fits the buffers)."""
    off: cython.longlong[::1] = V.off
    PT: cython.longlong[::1] = V.pt
    PF: cython.longlong[::1] = V.pf
    head: cython.longlong[::1] = V.head
    lefts: cython.longlong[::1] = V.left
    prev: cython.longlong[::1] = V.prev
    o: cython.Py_ssize_t
    x: cython.Py_ssize_t
    head[e] = h
    lefts[e] = left
    prev[e] = prev_t
    o = off[e]
    if mode != 2:
        off[e + 1] = o + L
    if mode != 1 and o + L <= len(PT):
        for x in range(L):
            PT[o + x] = T[x]
            PF[o + x] = F[x]


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _run(
    E: EasyQueue,
    V: _Views,
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    W: cython.longlong[::1],
    CA: cython.longlong[::1],
    CB: cython.longlong[::1],
    ST: cython.longlong[::1],
    t: cython.longlong,
    h: cython.Py_ssize_t,
    left: cython.Py_ssize_t,
    mode: cython.int,
    stop: cython.longlong,
    C: cython.longlong[::1],
    SC: cython.longlong[::1],
    SVC: cython.longlong[::1],
    SP: cython.longlong[::1],
    SVP: cython.longlong[::1],
    settle2: cython.longlong,
) -> cython.longlong:
    """Play EASY from the state (profile ``T``/``F`` of ``L`` steps, waiting flags ``W``, head
    ``h``, ``left`` waiting; ``ST`` their widths and durations, see :func:`_build`) at instant
    ``t``.  ``mode`` 0: a re-plan, returns the delay against the no-slot starts, and stops
    once, at an instant from ``stop`` (the slot's end) on, its state is the no-slot plan's
    (counted in ``C``: re-plans, events played, early stops); 1: the no-slot plan, recording
    the events and their tests (sizes only); 2: the same, copying the snapshots and tests;
    3: both, copying them while they fit the buffers (:func:`_record`).
    ``CA``/``CB``: the per-width caches (:func:`_caches`) of the first short instant from
    ``t`` and from the shadow time for the width + the head's, each valid where its
    generation is the current one (the first's: and while it is not before ``t``)."""
    m: cython.Py_ssize_t = V.m
    procs: cython.longlong[::1] = V.procs
    durs: cython.longlong[::1] = V.durs
    starts0: cython.longlong[::1] = V.starts0
    dec0: cython.longlong[::1] = V.dec0
    ev: cython.longlong[::1] = V.ev
    reach: cython.longlong[::1] = V.reach
    VS: cython.longlong[::1] = V.vs
    TOFF: cython.longlong[::1] = V.toff
    TV: cython.longlong[::1] = V.tv
    TE: cython.longlong[::1] = V.tend
    WOFF: cython.longlong[::1] = V.woff
    WA: cython.longlong[::1] = V.wa
    WB: cython.longlong[::1] = V.wb
    WX: cython.longlong[::1] = V.wx
    nw: cython.Py_ssize_t = 0  # windows recorded
    cap: cython.longlong = V.cap
    ci: cython.Py_ssize_t = 2 * (cap + 1)  # CA[ci + w]: the step of CA[2w + 1] (_caches)
    js: cython.Py_ssize_t
    rec: cython.bint = mode != 0
    wr: cython.bint = mode >= 2
    nr: cython.Py_ssize_t = 0  # tests recorded
    ok: cython.bint
    P: cython.Py_ssize_t = V.leaves
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    mw: cython.longlong
    skip: cython.bint
    bes: cython.bint  # a "beside the head" test was read at this event
    sa: cython.Py_ssize_t = 0  # the step holding the shadow time, for generation sa_gen
    sa_gen: cython.longlong = -1
    a: cython.Py_ssize_t
    k: cython.Py_ssize_t
    x: cython.Py_ssize_t
    e: cython.Py_ssize_t = 0
    q: cython.longlong
    dq: cython.longlong
    hq: cython.longlong
    hd: cython.longlong
    shadow: cython.longlong = 0
    h_end: cython.longlong
    shadow_of: cython.Py_ssize_t = -1  # the head whose shadow time is ``shadow``
    out: cython.Py_ssize_t = -1  # the head taken out of the trees
    now_free: cython.longlong
    until: cython.longlong
    end: cython.longlong
    w1: cython.longlong
    infl: cython.longlong = 0
    run_max: cython.longlong = 0
    prev_t: cython.longlong = t
    gen: cython.longlong = CB[0] + 1  # slot 0 holds the last generation used
    # the generation of the first short instants: a new one whenever a block is inserted
    # (slot 0 holds the last one used); a first short instant found at an earlier event
    # holds while it is not before t (no step from there to it had fewer free)
    sgen: cython.longlong = CA[0] + 1
    delay: cython.longlong = 0
    settle: cython.longlong = stop  # no earlier instant's state is the no-slot plan's
    vp: cython.Py_ssize_t = 0  # no-slot starts before t (VS: sorted)
    pv: cython.Py_ssize_t = 0  # the last re-plan's starts before t (SVP: sorted)
    nsv: cython.Py_ssize_t = m - left  # starts in SVC (the first ones: VS's)
    how: cython.int = 0  # 1: stopped at the no-slot plan's state, 2: at the last re-plan's
    rest: cython.longlong
    if not rec:
        C[0] += 1
    a = index(T, t, L)  # the step holding t (kept as blocks are inserted)
    while left > 0:
        if rec:  # the state before this event
            _snapshot(V, T, F, L, e, h, left, prev_t, mode)
            if wr:
                TOFF[e] = nr
                WOFF[e] = nw
            infl = t + 1
        else:
            C[1] += 1
            if t >= settle:
                # the slot is over and every job whose start differs from the no-slot
                # plan's ended in both (settle): if the jobs started are the no-slot plan's
                # before t, the state is the no-slot plan's — blocks past t, waiting jobs —
                # which plays on from t as the no-slot plan (an instant the no-slot plan does
                # not visit decides nothing there): nobody else moves
                while vp < m and VS[vp] < t:
                    vp += 1
                if m - left == vp:
                    C[2] += 1
                    how = 1
                    break
            if t >= settle2:
                # the same against the last re-plan (its starts: SP, sorted: SVP): both
                # slots are over and every job whose start differs from it ended in both
                # (settle2); if the jobs started are the ones it started before t, the state
                # is its state, which played on from t as this plan will
                while pv < m and SVP[pv] < t:
                    pv += 1
                if m - left == pv:
                    C[3] += 1
                    how = 2
                    break
        # 1. the head, and each next head, while it fits: it fits now exactly when its
        # earliest start (its shadow time) is now.  The shadow of a head that waits is kept
        # from one event to the next: the windows before it did not fit and only lose room,
        # and backfilling never takes the processors the head needs at its shadow
        while h < m:
            if W[h] == 0:  # backfilled earlier
                h += 1
                continue
            q = procs[h]
            dq = durs[h]
            if h != shadow_of or shadow < t:  # (its instant may have merged away)
                shadow = _earliest(T, F, L, a, q, dq, t)
                shadow_of = h
                gen += 1  # (the caches beside the head were the old shadow's)
            if rec:
                infl = max(infl, shadow + max(dq, 1))
            if shadow != t:
                break
            if rec:  # a test passed: its window
                nr = _tight(T, F, L, t, t + max(dq, 1), q, TV, TE, nr, wr, cap)
                nw = _win(WA, WB, WX, nw, wr, t, t + max(dq, 1), q if dq == 0 else 0)
            L = _reserve_at(T, F, L, a, L, t, t + dq, q)
            a = _step(T, L, a, t)
            gen += 1
            sgen += 1
            if rec:
                starts0[h] = t
                dec0[h] = t
                ev[h] = e
            else:
                SC[h] = t
                SVC[nsv] = t
                nsv += 1
                if t != SP[h]:
                    settle2 = max(settle2, max(t, SP[h]) + max(dq, 1))
                if t != starts0[h]:
                    if t > starts0[h]:
                        delay += (t - starts0[h]) * q
                    settle = max(settle, max(t, starts0[h]) + max(dq, 1))
            W[h] = 0
            _gone(ST, P, h)
            left -= 1
            h += 1
        if left == 0:
            if rec:
                run_max = max(run_max, infl)
                reach[e] = run_max
                e += 1
            break
        # 2. backfill behind the head's reservation at its shadow time
        if out != h:  # the trees hold the jobs behind the head only
            _gone(ST, P, h)
            out = h
        hq = procs[h]
        hd = durs[h]
        h_end = shadow + hd
        now_free = F[a]
        if rec:
            infl = max(infl, shadow + max(hd, 1))
        bes = False
        if now_free > 0:
            k = h
            while True:
                # the next waiting job behind k no wider than now_free that may backfill: a
                # subtree is skipped when its least width is wider, or when its shortest job
                # at its least width does not fit now or would take processors the head needs
                # (then no job of it can: a wider job is short of processors no later, now and
                # beside the head, and a longer one ends no earlier).  The first search starts
                # from the root (none may backfill when it is skipped), the next ones behind k
                j = -1
                i = 1 if k == h else k + 1 + P
                while i < 2 * P:
                    mw = ST[2 * i]
                    skip = mw > now_free
                    if not skip:
                        if (CA[2 * mw] != sgen) | (CA[2 * mw + 1] < t):  # (both read at once)
                            js = _first_short(F, L, a, mw)
                            CA[ci + mw] = js
                            CA[2 * mw + 1] = T[js] if js < L else 4611686018427387904  # _INF
                            CA[2 * mw] = sgen
                        end = t + ST[2 * i + 1]
                        if end > CA[2 * mw + 1]:
                            skip = True
                        elif end > shadow:  # and beside the head, at its least width
                            if hd > 0:
                                if CB[2 * mw] != gen:
                                    if sa_gen != gen:
                                        sa = index(T, shadow, L)
                                        sa_gen = gen
                                    CB[2 * mw + 1] = _short(T, F, L, sa, mw + hq)
                                    CB[2 * mw] = gen
                                if min(end, h_end) > CB[2 * mw + 1]:
                                    skip = True
                                    bes = True
                            elif F[index(T, shadow, L)] < mw + hq:
                                skip = True
                                bes = True
                    if not skip:
                        if i >= P:
                            j = i - P
                            break
                        i = 8 * i  # its first subtree first
                        continue
                    while (i & 7) == 7:  # a last child: its parent's range is done
                        i >>= 3
                    if i == 1:
                        break
                    i += 1
                if j < 0:
                    break
                k = j
                q = procs[k]
                dq = durs[k]
                end = t + dq
                ok = True
                # the search's test at the leaf of k was this job's own (its width and its
                # duration): it passed.  The no-slot plan tests it again for what it records
                if rec:
                    if CA[2 * q] != sgen or CA[2 * q + 1] < t:
                        js = _first_short(F, L, a, q)
                        CA[ci + q] = js
                        CA[2 * q + 1] = T[js] if js < L else 4611686018427387904  # _INF
                        CA[2 * q] = sgen
                    until = CA[2 * q + 1]
                    if end > until:  # fewer than q free before it ends
                        ok = False
                    elif end > shadow:  # would it take processors the head needs at its shadow?
                        bes = True
                        if hd > 0:
                            if CB[2 * q] != gen:
                                if sa_gen != gen:
                                    sa = index(T, shadow, L)
                                    sa_gen = gen
                                CB[2 * q + 1] = _short(T, F, L, sa, q + hq)
                                CB[2 * q] = gen
                            until = CB[2 * q + 1]
                            if min(end, h_end) > until:
                                ok = False
                            else:
                                infl = max(infl, min(end, h_end))
                        else:
                            x = index(T, shadow, L)
                            if F[x] < q + hq:
                                ok = False
                            else:
                                infl = max(infl, shadow + 1)
                if ok:
                    if rec:  # the tests passed: their windows
                        infl = max(infl, max(end, t + 1))
                        nr = _tight(T, F, L, t, max(end, t + 1), q, TV, TE, nr, wr, cap)
                        nw = _win(WA, WB, WX, nw, wr, t, max(end, t + 1), q if dq == 0 else 0)
                        if q == 0:  # (the search went on: something was free now)
                            nr = _tight(T, F, L, t, t + 1, 1, TV, TE, nr, wr, cap)
                            nw = _win(WA, WB, WX, nw, wr, t, t + 1, 1)
                        if end > shadow:
                            if hd > 0:
                                w1 = min(end, h_end)
                            else:
                                w1 = shadow + 1
                            nr = _tight(T, F, L, shadow, w1, q + hq, TV, TE, nr, wr, cap)
                    # (it ends by the first short instant for q, the cache's: no later than
                    # the step found there)
                    L = _reserve_at(T, F, L, a, CA[ci + q], t, end, q)
                    if rec:
                        starts0[k] = t
                        dec0[k] = t
                        ev[k] = e
                    else:
                        SC[k] = t
                        SVC[nsv] = t
                        nsv += 1
                        if t != SP[k]:
                            settle2 = max(settle2, max(t, SP[k]) + max(dq, 1))
                        if t != starts0[k]:
                            if t > starts0[k]:
                                delay += (t - starts0[k]) * q
                            settle = max(settle, max(t, starts0[k]) + max(dq, 1))
                    W[k] = 0
                    _gone(ST, P, k)
                    left -= 1
                    if end > t:  # the block took room from t on (a 0-second job takes none)
                        a = _step(T, L, a, t)
                        gen += 1
                        sgen += 1
                        now_free -= q
                        if now_free == 0:
                            break
        if bes and rec:  # the backfills read the head's shadow: its window is a test passed
            # (on the profile after them: less room, so more steps found tight — enough)
            nr = _tight(T, F, L, shadow, shadow + max(hd, 1), hq, TV, TE, nr, wr, cap)
            nw = _win(WA, WB, WX, nw, wr, shadow, shadow + max(hd, 1), hq)
        # 3. the next instant the availability changes (there is one: past the last
        # breakpoint the whole machine is free, and the head would have fitted)
        prev_t = t
        a += 1
        t = T[a]
        if rec:
            run_max = max(run_max, max(infl, t))
            reach[e] = run_max
            e += 1
    CA[0] = sgen
    CB[0] = gen
    if rec:
        E.events = e
        E.ntests = nr
        E.nwin = nw
        _snapshot(V, T, F, L, e, h, left, prev_t, mode)  # the profile after the last event
        if wr:
            TOFF[e] = nr
            WOFF[e] = nw
    elif how == 1:  # the jobs still waiting start as in the no-slot plan
        for x in range(vp, m):
            SVC[x] = VS[x]
    elif how == 2:  # ... as in the last re-plan
        rest = 0
        for x in range(m):
            if W[x] != 0:
                SC[x] = SP[x]
                if SP[x] > starts0[x]:
                    rest += (SP[x] - starts0[x]) * procs[x]
        for x in range(pv, m):
            SVC[x] = SVP[x]
        delay += rest
    return delay


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _push(H: cython.longlong[::1], n: cython.Py_ssize_t, v: cython.longlong) -> cython.Py_ssize_t:
    """Push ``v`` onto the min-heap ``H[:n]``; returns ``n + 1``."""
    i: cython.Py_ssize_t = n
    p: cython.Py_ssize_t
    while i > 0:
        p = (i - 1) >> 1
        if H[p] <= v:
            break
        H[i] = H[p]
        i = p
    H[i] = v
    return n + 1


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _pop(H: cython.longlong[::1], n: cython.Py_ssize_t) -> cython.Py_ssize_t:
    """Remove the least item of the min-heap ``H[:n]``; returns ``n - 1``."""
    i: cython.Py_ssize_t = 0
    c: cython.Py_ssize_t
    v: cython.longlong
    n -= 1
    if n == 0:
        return 0
    v = H[n]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and H[c + 1] < H[c]:
            c += 1
        if H[c] >= v:
            break
        H[i] = H[c]
        i = c
    H[i] = v
    return n


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _run_depth(
    E: EasyQueue,
    V: _Views,
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    W: cython.longlong[::1],
    CA: cython.longlong[::1],
    ST: cython.uint[::1],
    H: cython.longlong[::1],
    hn: cython.Py_ssize_t,
    t: cython.longlong,
    h: cython.Py_ssize_t,
    left: cython.Py_ssize_t,
    mode: cython.int,
    stop: cython.longlong,
    C: cython.longlong[::1],
    SC: cython.longlong[::1],
    SVC: cython.longlong[::1],
    SP: cython.longlong[::1],
    SVP: cython.longlong[::1],
    settle2: cython.longlong,
) -> cython.longlong:
    """Backfilling with reservation depth K = ``E.depth`` (:class:`scheduler.cluster.depth.
    BackfillDepth`, every job submitted at ``E.now``, running its planned duration) from the
    state: profile ``T``/``F`` of ``L`` steps with the blocks of every job started or holding a
    reservation; ``W`` the jobs holding neither (``left`` of them, the first ``h``), ``ST`` their
    trees (:func:`_build`); ``H[:hn]`` the starts of the reservations not yet started.  At each
    instant: the reservations whose time has come start; while fewer than K are held, the first
    job holding none is placed at its earliest start with every block in place (and starts if
    that is now); then the jobs holding none, in queue order, start if their processors are free
    over ``[t, t + planned duration)``.  Next instant: the next breakpoint of the profile or
    reserved start (an instant where neither more processors are free nor a reservation starts
    decides nothing: every test that failed before fails again).  ``mode`` as in :func:`_run`;
    the reach of an event: ``t + 1`` (the free processors now), every placement's window,
    every passed test's window, and the next instant.

    A re-plan (``mode`` 0) keeps its starts (``SC``) and the instants it decided them (placed
    or started; ``SVC``, sorted, the first ones given) and stops as :func:`_run` does, at an
    instant ``t`` from ``stop`` (the slot's end) on where its state — the profile from ``t`` on,
    the reservations held, the jobs holding none — is the no-slot plan's (``.counts[2]``) or
    the last re-plan's (``SP``, decisions ``SVP``; ``.counts[3]``, from ``settle2`` on): when it
    has decided as many jobs before ``t`` as the other plan and every job whose start differs
    from the other plan's has ended in both.  Then the jobs started before ``t`` (``A``) are
    the other plan's (``B``): one of ``A`` whose start differs ended before ``t`` in both, one
    whose start is the same started before ``t`` there too, so ``A`` is in ``B``.  After an
    event a plan holds K reservations (starts from ``t`` on) unless it has no job left to
    decide; this one has one (its loop runs), so the other, having decided as many, has one
    too: both hold K, and ``A`` and ``B`` are as large, the same.  A reservation only ever goes
    to the first job of the queue not decided yet, so every job ahead of a reserved one is
    decided: the K held are, in both, the first K jobs of the queue not in ``A`` — the same
    jobs, at the same starts (a start that differs would have ended).  The blocks from ``t``
    on are then the same (the slot is over), and so is the plan from ``t`` on: the jobs still
    undecided start as there."""
    m: cython.Py_ssize_t = V.m
    K: cython.Py_ssize_t = V.depth
    procs: cython.longlong[::1] = V.procs
    durs: cython.longlong[::1] = V.durs
    starts0: cython.longlong[::1] = V.starts0
    dec0: cython.longlong[::1] = V.dec0
    VD: cython.longlong[::1] = V.vd
    ev: cython.longlong[::1] = V.ev
    reach: cython.longlong[::1] = V.reach
    WOFF: cython.longlong[::1] = V.woff
    WA: cython.longlong[::1] = V.wa
    WB: cython.longlong[::1] = V.wb
    WX: cython.longlong[::1] = V.wx
    ends: cython.longlong[::1] = V.ends
    nw: cython.Py_ssize_t = 0  # windows recorded
    ci: cython.Py_ssize_t = 2 * (V.cap + 1)  # CA[ci + w]: the step of CA[2w + 1] (_caches)
    js: cython.Py_ssize_t
    rec: cython.bint = mode != 0
    wr: cython.bint = mode >= 2
    P: cython.Py_ssize_t = V.leaves
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    k: cython.Py_ssize_t
    a: cython.Py_ssize_t
    p: cython.Py_ssize_t
    x: cython.Py_ssize_t
    e: cython.Py_ssize_t = 0
    mw: cython.longlong
    skip: cython.bint
    sh1: cython.longlong  # the first instant from t with no processor free
    tree_near: cython.longlong = 4294967294  # _TREE_INF - 1 (typed: a C constant)
    q: cython.longlong
    dq: cython.longlong
    ta: cython.longlong
    st: cython.longlong
    end: cython.longlong
    nxt: cython.longlong
    now_free: cython.longlong
    infl: cython.longlong = 0
    run_max: cython.longlong = 0
    prev_t: cython.longlong = t
    gen: cython.longlong = CA[0] + 1  # slot 0 holds the last generation used
    delay: cython.longlong = 0
    settle: cython.longlong = stop  # no earlier instant's state is the no-slot plan's
    vp: cython.Py_ssize_t = 0  # no-slot decisions before t (VD: sorted)
    pv: cython.Py_ssize_t = 0  # the last re-plan's decisions before t (SVP: sorted)
    nsv: cython.Py_ssize_t = m - left  # decisions in SVC (the first ones given)
    how: cython.int = 0  # 1: stopped at the no-slot plan's state, 2: at the last re-plan's
    rest: cython.longlong
    if not rec:
        C[0] += 1
    a = index(T, t, L)  # the step holding t (followed, not searched, from here on)
    while left > 0:
        if rec:  # the state before this event
            _snapshot(V, T, F, L, e, h, left, prev_t, mode)
            if wr:
                WOFF[e] = nw
            infl = t + 1
        else:
            C[1] += 1
            if t >= settle:
                # the slot is over, every job decided differently (start, or the instant of a
                # reservation held) is settled by t in both: with as many decided as the no-slot
                # plan decided before t, the state is its state (see above)
                while vp < m and VD[vp] < t:
                    vp += 1
                if m - left == vp:
                    C[2] += 1
                    how = 1
                    break
            if t >= settle2:  # the same against the last re-plan
                while pv < m and SVP[pv] < t:
                    pv += 1
                if m - left == pv:
                    C[3] += 1
                    how = 2
                    break
        # 1. the reservations whose time has come start (their blocks are in place)
        while hn > 0 and H[0] <= t:
            hn = _pop(H, hn)
        # 2. jobs entering the first K: placed with every block in place, started if now
        while hn < K and h < m:
            if W[h] == 0:  # started earlier
                h += 1
                continue
            q = procs[h]
            dq = durs[h]
            p = earliest_step(T, F, L, a, q, dq, t, ends)
            st = t if p == a else T[p]
            if rec:  # the window it was placed in: a test passed
                infl = max(infl, st + max(dq, 1))
                nw = _win(WA, WB, WX, nw, wr, st, st + max(dq, 1), 0)
            L = _reserve_at(T, F, L, p, ends[0], st, st + dq, q)
            a = _step(T, L, a, t)
            gen += 1  # (the profile changed: the first short instants found are stale)
            if rec:
                starts0[h] = st
                dec0[h] = t
                ev[h] = e
            else:
                SC[h] = st
                SVC[nsv] = t
                nsv += 1
                if st != SP[h]:
                    settle2 = max(settle2, max(st, SP[h]) + max(dq, 1))
                if st != starts0[h]:
                    if st > starts0[h]:
                        delay += (st - starts0[h]) * q
                    settle = max(settle, max(st, starts0[h]) + max(dq, 1))
            if st > t:
                hn = _push(H, hn, st)
            W[h] = 0
            _gone3(ST, P, h)
            left -= 1
            h += 1
        if left == 0:
            if rec:
                run_max = max(run_max, infl)
                reach[e] = run_max
                e += 1
            break
        # 3. the jobs holding no reservation, in queue order, start if they fit now: the
        # next one no wider than now_free whose range's shortest job at its least width fits
        # (a first short instant found at an earlier event holds while no block was inserted
        # since, the generation, and it is not before the step holding t).  The first search
        # starts from the root (the jobs before h hold a reservation or started: none waits)
        now_free = F[a]
        if now_free > 0:
            ta = T[a]
            k = -1
            while True:
                j = -1
                i = 1 if k < 0 else k + 1 + P
                # the one-processor jobs fit exactly when they end by the first instant from
                # t with no processor free (sh1): their range test is one comparison (_build3)
                if (CA[2] != gen) | (CA[3] < ta):  # (both read at once)
                    js = _first_short(F, L, a, 1)
                    CA[ci + 1] = js
                    CA[3] = T[js] if js < L else 4611686018427387904  # _INF
                    CA[2] = gen
                sh1 = min(CA[3], t + tree_near)  # (no job in the trees ends past it)
                while i < 2 * P:
                    skip = t + ST[3 * i] > sh1
                    if skip:
                        mw = ST[3 * i + 1]  # the others, at their least width
                        if mw <= now_free:
                            if (CA[2 * mw] != gen) | (CA[2 * mw + 1] < ta):
                                js = _first_short(F, L, a, mw)
                                CA[ci + mw] = js
                                CA[2 * mw + 1] = T[js] if js < L else 4611686018427387904
                                CA[2 * mw] = gen
                            skip = t + ST[3 * i + 2] > CA[2 * mw + 1]
                    if not skip:
                        if i >= P:
                            j = i - P
                            break
                        i = 2 * i  # its left subtree first
                        continue
                    while i & 1:  # a right child: its parent's range is done
                        i >>= 1
                    if i == 0:
                        break
                    i += 1
                if j < 0:
                    break
                k = j
                q = procs[k]
                dq = durs[k]
                if (CA[2 * q] != gen) | (CA[2 * q + 1] < ta):
                    js = _first_short(F, L, a, q)
                    CA[ci + q] = js
                    CA[2 * q + 1] = T[js] if js < L else 4611686018427387904  # _INF
                    CA[2 * q] = gen
                end = t + dq
                if end <= CA[2 * q + 1]:
                    if rec:  # a test passed: its window
                        infl = max(infl, max(end, t + 1))
                        nw = _win(WA, WB, WX, nw, wr, t, max(end, t + 1), 0)
                    # (it ends by the first short instant for q, the cache's: no later than
                    # the step found there)
                    L = _reserve_at(T, F, L, a, CA[ci + q], t, end, q)
                    if rec:
                        starts0[k] = t
                        dec0[k] = t
                        ev[k] = e
                    else:
                        SC[k] = t
                        SVC[nsv] = t
                        nsv += 1
                        if t != SP[k]:
                            settle2 = max(settle2, max(t, SP[k]) + max(dq, 1))
                        if t != starts0[k]:
                            if t > starts0[k]:
                                delay += (t - starts0[k]) * q
                            settle = max(settle, max(t, starts0[k]) + max(dq, 1))
                    W[k] = 0
                    _gone3(ST, P, k)
                    left -= 1
                    if end > t:  # the block took room from t on (a 0-second job takes none)
                        a = _step(T, L, a, t)
                        ta = T[a]
                        gen += 1
                        now_free -= q
                        if now_free == 0:
                            break
        # 4. the next instant: a breakpoint of the profile or a reservation's start (there is
        # one: a job that did not start now finds the whole machine free past the last
        # breakpoint, and the reserved ones start later)
        prev_t = t
        nxt = T[a + 1] if a + 1 < L else 4611686018427387904  # _INF
        if hn > 0 and H[0] < nxt:
            t = H[0]  # (within the step holding t)
        else:
            t = nxt
            a += 1
        if rec:
            run_max = max(run_max, max(infl, t))
            reach[e] = run_max
            e += 1
    CA[0] = gen
    if rec:
        E.events = e
        E.nwin = nw
        _snapshot(V, T, F, L, e, h, left, prev_t, mode)  # the profile after the last event
        if wr:
            WOFF[e] = nw
    elif how == 1:  # the jobs still undecided are decided as in the no-slot plan
        for x in range(vp, m):
            SVC[x] = VD[x]
    elif how == 2:  # ... as in the last re-plan
        rest = 0
        for x in range(m):
            if W[x] != 0:
                SC[x] = SP[x]
                if SP[x] > starts0[x]:
                    rest += (SP[x] - starts0[x]) * procs[x]
        for x in range(pv, m):
            SVC[x] = SVP[x]
        delay += rest
    return delay


def _caches(capacity: int):  # type: ignore[no-untyped-def]
    """The per-width caches of :func:`_run` and :func:`_run_depth`, each a buffer of pairs
    (what one lookup reads side by side): for width ``w``, ``CA[2w + 1]`` the first short
    instant from ``t``, found in generation ``CA[2w]``; ``CB[2w + 1]`` (EASY) the first short
    instant from the shadow time for ``w`` + the head's width, found in generation
    ``CB[2w]``.  ``CA[0]`` and ``CB[0]`` keep the last generations used.  EASY: after the
    pairs, ``CA[2(capacity + 1) + w]`` the step of ``CA[2w + 1]`` (``L``: none), which bounds
    the search for the end of a backfill's block (:func:`_reserve_at`)."""
    return buffer([], 3 * (capacity + 1)), buffer([], 2 * (capacity + 1))


#: compiled: per thread, the buffers the no-slot plan is first recorded into (kept from one
#: queue to the next, grown as needed)
_SCRATCH = threading.local()


def _play(E: EasyQueue) -> None:
    """Play ``E``'s no-slot plan and record its snapshots, tests and windows.  Compiled, it
    is played once into this thread's scratch buffers (grown when a plan did not fit: then
    it is played again into buffers of its sizes, as uncompiled) and copied to buffers of
    its sizes; uncompiled, once for the sizes and once more to copy them."""
    names = ("pt", "pf", "tv", "tend", "wa", "wb", "wx")
    if cython.compiled:
        have = getattr(_SCRATCH, "bufs", None)
        if have is None:
            have = _SCRATCH.bufs = {k: buffer([], 1024) for k in names}
        for k in names:
            setattr(E, k, have[k])
        _record(E, 3)  # (recorded while it fits, sized in full)
        total = E.off[E.events + 1]
        need = {"pt": total, "pf": total, "tv": E.ntests, "tend": E.ntests}
        need.update(wa=E.nwin, wb=E.nwin, wx=E.nwin)
        if all(need[k] <= len(have[k]) for k in names):
            for k in names:
                setattr(E, k, have[k][: need[k]])  # (a copy)
            return
        for k in names:  # (room for this plan and a quarter more, from now on)
            if need[k] > len(have[k]):
                have[k] = buffer([], need[k] + need[k] // 4)
    else:
        _record(E, 1)  # the sizes of the snapshots
        total = E.off[E.events + 1]  # (+ the plan's profile, after the last event)
    E.pt = buffer([], total)
    E.pf = buffer([], total)
    E.tv = buffer([], E.ntests)
    E.tend = buffer([], E.ntests)
    E.wa = buffer([], E.nwin)
    E.wb = buffer([], E.nwin)
    E.wx = buffer([], E.nwin)
    _record(E, 2)  # the same plan again, copying them


def _record(E: EasyQueue, mode: int) -> None:
    """Play the no-slot plan, recording its events (``mode`` as in :func:`_run`: 1, their
    sizes; 2, their profiles, tests and windows too; 3, both)."""
    T = buffer(E.base_times, E.size)
    F = buffer(E.base_free, E.size + 3)  # (_first_short reads up to 3 steps past the -1)
    if cython.compiled:
        F[len(E.base_times)] = -1  # (the stop of _short's scan)
    W = array("q", [1]) * E.m if cython.compiled else [1] * E.m
    CA, CB = _caches(E.capacity)
    if E.depth:
        S3 = _trees3(E.leaves)
        _build3(S3, E.leaves, E.procs, E.durs, W, E.m)
    else:
        ST = _trees(E.leaves, E.m)
        _build(ST, E.leaves, E.procs, E.durs, W, E.m)
    V = _Views(E, None)  # (E's buffers as they are now)
    C = buffer([], 4)
    X = buffer([], 0)  # (the starts of re-plans: a re-plan's only)
    if E.depth:
        H = buffer([], E.m + 1)
        _run_depth(E, V, T, F, len(E.base_times), W, CA, S3, H, 0, E.now, 0, E.m, mode, 0,
                   C, X, X, X, X, 0)  # fmt: skip
    else:
        _run(E, V, T, F, len(E.base_times), W, CA, CB, ST, E.now, 0, E.m, mode, 0, C,
             X, X, X, X, 0)  # fmt: skip


class Work:
    """Buffers for :func:`delay`, reused across the candidate starts of a quote."""

    def __init__(self, E: EasyQueue) -> None:
        self.T = buffer([], E.size)
        self.F = buffer([], E.size + 3)  # (_first_short reads up to 3 steps past the -1)
        self.W = buffer([], E.m)
        self.CA, self.CB = _caches(E.capacity)
        self.ST = None if E.depth else _trees(E.leaves, E.m)
        self.S3 = _trees3(E.leaves) if E.depth else None
        self.H = buffer([], E.m + 1)  # depth K: the starts of the reserved jobs, a min-heap
        #: re-plans played, events they played, re-plans stopped early because their
        #: state became the no-slot plan's, and because it became the last re-plan's
        self.counts = buffer([], 4)
        #: the starts of the last re-plan (queue order, and sorted: at depth K, the instants
        #: they were decided, sorted) and of the current
        self.SP = buffer([], E.m)
        self.SVP = buffer([], E.m)
        self.SC = buffer([], E.m)
        self.SVC = buffer([], E.m)
        self.views = _Views(E, self)


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _reach_for(E: EasyQueue, n: cython.longlong):  # type: ignore[no-untyped-def]
    """The reach for a slot of ``n`` processors (kept in ``E.rn_for``): per event, the running
    maximum of the ends of the tight steps (slack below ``n``) of the tests it passed."""
    toff: cython.longlong[::1] = E.toff
    tv: cython.longlong[::1] = E.tv
    tend: cython.longlong[::1] = E.tend
    out = buffer([], E.cap_events)
    rn: cython.longlong[::1] = out
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    run: cython.longlong = 0
    for i in range(E.events):
        for j in range(toff[i], toff[i + 1]):
            if tv[j] < n and tend[j] > run:
                run = tend[j]
        rn[i] = run
    E.rn_for = (n, out)
    return out


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _first_moved(
    V: _Views,
    events: cython.Py_ssize_t,
    r: cython.Py_ssize_t,
    s: cython.longlong,
    e: cython.longlong,
    n: cython.longlong,
) -> cython.Py_ssize_t:
    """From event ``r`` on, the first event at which a test the no-slot plan passed may
    fail with the slot ``n`` over ``[s, e)``: the first whose windows (``E.wa``/``wb``/``wx``)
    do not all keep ``x + n`` free over their overlap with the slot on the profile after the
    event (the next snapshot: it holds every block the event started, so no more room than
    when each test was read; after the last event, the plan's profile).  ``E.events``: none
    may."""
    off: cython.longlong[::1] = V.off
    PT: cython.longlong[::1] = V.pt
    PF: cython.longlong[::1] = V.pf
    WOFF: cython.longlong[::1] = V.woff
    WA: cython.longlong[::1] = V.wa
    WB: cython.longlong[::1] = V.wb
    WX: cython.longlong[::1] = V.wx
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
        for j in range(WOFF[i], WOFF[i + 1]):
            a0 = max(WA[j], s)
            a1 = min(WB[j], e)
            if a0 >= a1:
                continue
            lo = o  # the step holding a0 in the snapshot's PT[o:hi]
            p = hi
            while lo < p:
                mid = (lo + p) >> 1
                if a0 < PT[mid]:
                    p = mid
                else:
                    lo = mid + 1
            p = max(lo - 1, o)
            need = WX[j] + n
            while p < hi and PT[p] < a1:
                if PF[p] < need:
                    return i
                p += 1
        i += 1
    return i


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _restart(
    E: EasyQueue, V: _Views, s: cython.longlong, e: cython.longlong, n: cython.longlong
) -> cython.Py_ssize_t:
    """:func:`restart` on ``E``'s views ``V``."""
    reach: cython.longlong[::1]
    events: cython.Py_ssize_t = E.events
    lo: cython.Py_ssize_t = 0
    hi: cython.Py_ssize_t = events
    mid: cython.Py_ssize_t
    if V.depth == 0:
        if V.rn_n != n:
            kept = E.rn_for
            V.rn = kept[1] if kept[0] == n else _reach_for(E, n)
            V.rn_n = n
        reach = V.rn
    else:
        reach = V.reach
    while lo < hi:  # the first event whose reach passes s (reach is non-decreasing)
        mid = (lo + hi) >> 1
        if reach[mid] > s:
            hi = mid
        else:
            lo = mid + 1
    if lo < events:
        return _first_moved(V, events, lo, s, e, n)
    return lo


@cython.ccall
def restart(E: EasyQueue, s: cython.longlong, e: cython.longlong, n: cython.longlong) -> int:
    """The event a re-plan with the slot ``n`` over ``[s, e)`` starts from (``E.events``:
    none, nobody moves): the first whose reach passes ``s`` (EASY: for a slot of ``n``
    processors, ``E.rn_for``) and from there the first whose tests the slot may make fail
    (:func:`_first_moved`)."""
    return _restart(E, _Views(E, None), s, e, n)


@cython.cfunc
@cython.exceptval(check=False)
@cython.wraparound(False)
@cython.boundscheck(False)
def _set_starts(
    V: _Views, had: cython.bint, before: cython.Py_ssize_t, SV: cython.longlong[::1]
) -> cython.void:
    """A re-plan's lists before it plays (:func:`_replan`, :func:`_replan_depth`): its starts
    ``SC`` the no-slot plan's (and the last re-plan's ``SP`` too, when there is none), the
    first ``before`` of its sorted decisions ``SVC`` the no-slot plan's (``SV``: its starts
    under EASY, its decision instants at depth K), and every job waiting (``W``; the caller
    clears the ones decided before the restart event)."""
    m: cython.Py_ssize_t = V.m
    starts0: cython.longlong[::1] = V.starts0
    W: cython.longlong[::1] = V.W
    SC: cython.longlong[::1] = V.SC
    SP: cython.longlong[::1] = V.SP
    SVC: cython.longlong[::1] = V.SVC
    x: cython.Py_ssize_t
    size: cython.Py_ssize_t = cython.sizeof(cython.longlong)
    if not cython.compiled:
        SC[:m] = starts0[:m]
        if not had:
            SP[:m] = starts0[:m]
        SVC[:before] = SV[:before]
    elif m > 0:
        memmove(cython.address(SC[0]), cython.address(starts0[0]), m * size)
        if not had:
            memmove(cython.address(SP[0]), cython.address(starts0[0]), m * size)
        if before > 0:
            memmove(cython.address(SVC[0]), cython.address(SV[0]), before * size)
    for x in range(m):
        W[x] = 1


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _replan(
    E: EasyQueue,
    V: _Views,
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    r: cython.Py_ssize_t,
    t: cython.longlong,
    e: cython.longlong,
) -> cython.longlong:
    """EASY: :func:`_run` from event ``r``'s state (``T``/``F``: with the slot, which ends at
    ``e``) at ``t``, stopping at the no-slot plan's state or at the last re-plan's; its starts
    are kept as the last re-plan's.  As at depth K (:func:`_replan_depth`), only the jobs
    started before event ``r`` (the first ``m - left[r]`` of ``E.order``) are visited to set
    the state up: the leaves of the trees (:func:`_build`) are copied whole from
    ``E.leaf2``, theirs cleared."""
    m: cython.Py_ssize_t = V.m
    starts0: cython.longlong[::1] = V.starts0
    durs: cython.longlong[::1] = V.durs
    order: cython.longlong[::1] = V.order
    VS: cython.longlong[::1] = V.vs
    W: cython.longlong[::1] = V.W
    ST: cython.longlong[::1] = V.ST
    SC: cython.longlong[::1] = V.SC
    SP: cython.longlong[::1] = V.SP
    SVC: cython.longlong[::1] = V.SVC
    tmp: cython.longlong[::1]
    x: cython.Py_ssize_t
    y: cython.Py_ssize_t
    P: cython.Py_ssize_t = V.leaves
    before: cython.Py_ssize_t = m - V.left[r]  # jobs started before event r
    settle2: cython.longlong = 4611686018427387904  # _INF: no last re-plan
    had: cython.bint = V.last >= 0
    v0: cython.longlong
    sp: cython.longlong
    out: cython.longlong
    if not cython.compiled:
        ST[2 * P : 2 * (P + m)] = V.leaf2[: 2 * m]
    elif m > 0:
        memmove(cython.address(ST[2 * P]), cython.address(V.leaf2[0]),
                2 * m * cython.sizeof(cython.longlong))  # fmt: skip
    _set_starts(V, had, before, VS)  # (the earliest no-slot starts: the jobs' before r)
    if had:
        # its state may be this one's once both slots are over and the jobs started before
        # event r (at their no-slot starts) have ended where the last re-plan started them
        settle2 = max(e, V.last)
    for y in range(before):
        x = order[y]
        W[x] = 0
        ST[2 * (P + x)] = 4611686018427387904  # _INF
        ST[2 * (P + x) + 1] = 4611686018427387904
        if had:
            v0 = starts0[x]
            sp = SP[x]
            if sp != v0:
                settle2 = max(settle2, max(sp, v0) + max(durs[x], 1))
    _fill(ST, P, m)  # (the other nodes are _INF for good: _trees)
    out = _run(
        E, V, T, F, L, W, V.CA, V.CB, ST, t, V.head[r], V.left[r], 0, e, V.C,
        SC, SVC, SP, V.SVP, settle2,
    )  # fmt: skip
    tmp = V.SP
    V.SP = V.SC
    V.SC = tmp
    tmp = V.SVP
    V.SVP = V.SVC
    V.SVC = tmp
    V.last = e
    return out


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _delay(
    E: EasyQueue, V: _Views, s: cython.longlong, e: cython.longlong, n: cython.longlong
) -> cython.longlong:
    """:func:`delay` on the views ``V`` of ``E`` and of a :class:`Work`."""
    off: cython.longlong[::1] = V.off
    PT: cython.longlong[::1] = V.pt
    PF: cython.longlong[::1] = V.pf
    T: cython.longlong[::1] = V.T
    F: cython.longlong[::1] = V.F
    r: cython.Py_ssize_t = _restart(E, V, s, e, n)
    o: cython.Py_ssize_t
    L: cython.Py_ssize_t
    t: cython.longlong
    if r == E.events:
        return 0  # every test the plan passed passes with the slot: nobody moves
    o = off[r]
    L = off[r + 1] - o
    if cython.compiled:
        memmove(cython.address(T[0]), cython.address(PT[o]), L * cython.sizeof(cython.longlong))
        memmove(cython.address(F[0]), cython.address(PF[o]), L * cython.sizeof(cython.longlong))
        F[L] = -1  # (the stop of _short's scan)
    else:
        T[:] = PT[o : o + L]
        F[:] = PF[o : o + L]
    L = _reserve_at(T, F, L, index(T, s, L), L, s, e, n)  # the slot
    if V.depth == 0:
        if r == 0:
            t = V.now
        else:  # the next instant after the event before, on the profile with the slot
            t = T[index(T, V.prev[r], L) + 1]
        return _replan(E, V, T, F, L, r, t, e)  # (it sets W and the trees up)
    return _replan_depth(E, V, T, F, L, r, e)  # (it sets W, the trees and the heap up)


@cython.cfunc
@cython.wraparound(False)
@cython.boundscheck(False)
def _replan_depth(
    E: EasyQueue,
    V: _Views,
    T: cython.longlong[::1],
    F: cython.longlong[::1],
    L: cython.Py_ssize_t,
    r: cython.Py_ssize_t,
    e: cython.longlong,
) -> cython.longlong:
    """Depth K: :func:`_run_depth` from event ``r``'s state (``T``/``F``: with the slot,
    which ends at ``e``), stopping at the no-slot plan's state or at the last re-plan's; its
    starts and decisions are kept as the last re-plan's.  The jobs decided before event ``r``
    are the first ``m - left[r]`` of the no-slot plan's decision order (``E.order``): only they
    are visited to set the state up — out of the waiting flags and the trees (copied whole
    from ``E.leaf3``, every job waiting), into the heap of reservations held when their start
    is after the event before, and into the last re-plan's settle time."""
    m: cython.Py_ssize_t = V.m
    P: cython.Py_ssize_t = V.leaves
    starts0: cython.longlong[::1] = V.starts0
    durs: cython.longlong[::1] = V.durs
    order: cython.longlong[::1] = V.order
    VD: cython.longlong[::1] = V.vd
    W: cython.longlong[::1] = V.W
    H: cython.longlong[::1] = V.H
    S3: cython.uint[::1] = V.S3
    SC: cython.longlong[::1] = V.SC
    SP: cython.longlong[::1] = V.SP
    SVC: cython.longlong[::1] = V.SVC
    tmp: cython.longlong[::1]
    x: cython.Py_ssize_t
    y: cython.Py_ssize_t
    s0: cython.longlong
    t: cython.longlong
    decided: cython.Py_ssize_t = m - V.left[r]  # jobs decided before event r
    prev: cython.longlong = V.prev[r]  # the instant of the event before
    had: cython.bint = V.last >= 0
    hn: cython.Py_ssize_t = 0
    settle2: cython.longlong = 4611686018427387904  # _INF: no last re-plan
    out: cython.longlong
    if not cython.compiled:
        S3[3 * P : 3 * (P + m)] = V.leaf3[: 3 * m]
    elif m > 0:
        memmove(cython.address(S3[3 * P]), cython.address(V.leaf3[0]),
                3 * m * cython.sizeof(cython.uint))  # fmt: skip
    _set_starts(V, had, decided, VD)  # (the earliest no-slot decisions: the jobs' before r)
    if had:
        # its state may be this one's once both slots are over and the jobs decided before
        # event r (at their no-slot starts) have ended where the last re-plan started them
        settle2 = max(e, V.last)
    for y in range(decided):
        x = order[y]
        W[x] = 0
        S3[3 * (P + x)] = 4294967295  # _TREE_INF
        S3[3 * (P + x) + 1] = 4294967295
        S3[3 * (P + x) + 2] = 4294967295
        s0 = starts0[x]
        if s0 > prev:  # a reservation held, not yet started at the event
            hn = _push(H, hn, s0)
        if had and SP[x] != s0:
            settle2 = max(settle2, max(SP[x], s0) + max(durs[x], 1))
    _fill3(S3, P, m)
    if r == 0:
        t = V.now
    else:  # the next instant after the event before, on the profile with the slot
        x = index(T, prev, L) + 1
        t = T[x] if x < L else 4611686018427387904  # _INF
        if hn > 0 and H[0] < t:
            t = H[0]
    out = _run_depth(
        E, V, T, F, L, W, V.CA, S3, H, hn, t, V.head[r], V.left[r], 0, e, V.C, SC, SVC,
        SP, V.SVP, settle2,
    )  # fmt: skip
    tmp = V.SP
    V.SP = V.SC
    V.SC = tmp
    tmp = V.SVP
    V.SVP = V.SVC
    V.SVC = tmp
    V.last = e
    return out


@cython.ccall
def delay(
    E: EasyQueue, w: Work, s: cython.longlong, e: cython.longlong, n: cython.longlong
) -> cython.longlong:
    """The delay (processor-seconds) the slot ``n`` over ``[s, e)`` causes to the queued jobs
    under EASY: the plan with the slot, from the first event whose reach passes ``s`` (EASY:
    for a slot of ``n`` processors, ``E.rn_for``; and then the first whose tests the slot may
    make fail, :func:`restart`)."""
    V: _Views = w.views
    if V.E is not E:  # a Work made for another queue: buffers of this queue's sizes (a
        # longer queue's would overrun the other's, unchecked), no last re-plan, fresh trees
        w.__init__(E)
        V = w.views
    return _delay(E, V, s, e, n)


def delays(E: EasyQueue, cands: list, n: int, d: int) -> list:
    """:func:`delay` of the slot ``n`` over ``[s, s + d)`` for every start ``s`` of ``cands``."""
    w = Work(E)
    return [delay(E, w, s, s + d, n) for s in cands]


@cython.ccall
@cython.wraparound(False)
@cython.boundscheck(False)
def prices(E: EasyQueue, cands: list, n: cython.longlong, d: cython.longlong) -> list:
    """:meth:`~scheduler.pricing.price.SiteQuote.price` of the slot ``n`` over ``[s, s + d)``
    at every start ``s`` of ``cands`` (one :class:`Work` for all): None where it does not fit
    beside the running jobs and reservations (the base profile), 0 in a hole of the no-slot
    plan (its profile after the last event) that holds the start of no job of no duration
    (a test the plan passed had room for its job beside every later block, so beside the
    slot too), else :func:`delay`."""
    out: list = []
    V: _Views = Work(E).views
    BT: cython.longlong[::1] = E.bt
    BF: cython.longlong[::1] = E.bf
    off: cython.longlong[::1] = E.off
    PT: cython.longlong[::1] = E.pt
    PF: cython.longlong[::1] = E.pf
    Z: cython.longlong[::1] = E.zeros
    nb: cython.Py_ssize_t = len(E.base_times)
    nz: cython.Py_ssize_t = E.nzeros
    o: cython.Py_ssize_t = off[E.events]
    hi: cython.Py_ssize_t = off[E.events + 1]
    z: cython.Py_ssize_t = 0
    s: cython.longlong
    for s in cands:
        if least_free(BT, BF, 0, nb, s, s + d) < n:
            out.append(None)
            continue
        if least_free(PT, PF, o, hi, s, s + d) >= n:
            z = 0  # (few: a 0-second job is never a live site's)
            while z < nz and Z[z] < s:
                z += 1
            if z == nz or Z[z] >= s + d:
                out.append(0)
                continue
        out.append(_delay(E, V, s, s + d, n))
    return out
