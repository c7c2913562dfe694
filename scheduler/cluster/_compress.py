# cython: initializedcheck=False, boundscheck=False, wraparound=False
"""Conservative backfilling's compression pass (Mu'alem & Feitelson 2001, section 3), compiled
when a build exists: after early ends, each queued job, in queue order, moves to its earliest
start, never later than its planned one.  Both the reference policy
(:class:`~scheduler.cluster.conservative.Conservative`, through :func:`compress`) and the
whole-run loop (:func:`scheduler.cluster._loop.run_conservative`) run this pass: they differ
only in how they hold the queue and the plan.

Most jobs cannot move, and that is cheap to see without touching the profile (the rules are in
the docstring of :mod:`scheduler.cluster.conservative`): :func:`earliest_in_pass` answers
"where could this block go" read-only, with what the :class:`Pass` keeps — a running maximum of
the free counts over a snapshot of the breakpoints, and per shape ``(n, d)`` a lower bound on
where a whole window can open — and :func:`move_planned` moves the jobs that do move, by the
net change.  Every shortcut is exact: tests compare with a plain re-placement of every job
(tests/scheduler/test_cluster_properties.py).

The profile is the step library's :class:`~scheduler.cluster._steps.Steps` (its ``.pxd``'s
bodies inlined here when compiled).  Plain Python *and* the source of a C extension (Cython's
pure-Python mode; see :mod:`scheduler._native`), with a C side in ``_compress.pxd`` that the
whole-run loop cimports.  Uncompiled, it takes the step library's pure source (a build's
functions take C arrays, not lists).

Compiler directives: the ``# cython:`` line above turns bounds checks and negative-index
wraparound off for the whole module (every index is a step before ``size``, or an entry of a
table within its mask).
"""

from __future__ import annotations

from array import array
from heapq import heappush

try:
    import cython
except ImportError:  # no Cython installed: the same source runs uncompiled
    from scheduler._native import cython_shim as cython
if cython.compiled:  # the step library's bodies, inlined (Steps: cimported by the .pxd)
    from cython.cimports.scheduler.cluster._steps import earliest_move, index
else:  # its pure source
    from scheduler._native import load_pure

    _steps = load_pure("scheduler.cluster._steps", "scheduler.cluster._steps_pure")
    index, earliest_move = _steps.index, _steps.earliest_move
    Steps = _steps.Steps

__all__ = ["COMPILED", "STEPS", "Pass", "compress", "drop", "earliest_in_pass", "move_planned"]

#: True in the extension, False when this file runs as Python
COMPILED = cython.compiled

#: the profile class the pass steps (compiled: the step library's build; else its pure source):
#: a :class:`~scheduler.cluster.profile.Profile` holds one of these
STEPS = Steps

#: "no limit" for times
_NO_LIMIT = 1 << 62


def _zeros(n: int) -> array:
    return array("q", bytes(8 * n))


@cython.final
@cython.cclass
class Pass:
    """What one compression pass knows (the rules are in :mod:`scheduler.cluster.conservative`):
    a running maximum of the free counts over a snapshot of the breakpoints (``peak``,
    ``peak_times``), an upper bound of the free counts before ``peak_until``; the instants
    from which each move gave capacity back (``gone``); and per shape ``(n, d)`` a lower bound
    ``L`` — no window of ``n`` processors for ``d`` seconds opens in ``[now, L)`` as of the
    ``M``-th move — in an open-addressing table whose entries belong to the pass of generation
    ``generation``."""

    peak: cython.longlong[::1]
    peak_times: cython.longlong[::1]
    peak_len: cython.Py_ssize_t
    peak_until: cython.longlong
    gone: cython.longlong[::1]
    gone_len: cython.Py_ssize_t
    shape_n: cython.longlong[::1]
    shape_d: cython.longlong[::1]
    bound_at: cython.longlong[::1]  # L
    bound_moves: cython.longlong[::1]  # M
    slot_generation: cython.longlong[::1]
    mask: cython.Py_ssize_t
    generation: cython.longlong
    slot_found: cython.Py_ssize_t  # the slot of the shape the pass looked up last

    def __init__(self) -> None:
        self.peak = _zeros(64)
        self.peak_times = _zeros(64)
        self.gone = _zeros(64)
        self.generation = 0
        self.slot_found = 0
        self._table(64)

    @cython.cfunc
    def _table(self, size: cython.Py_ssize_t) -> cython.void:
        self.shape_n = _zeros(size)
        self.shape_d = _zeros(size)
        self.bound_at = _zeros(size)
        self.bound_moves = _zeros(size)
        self.slot_generation = _zeros(size)
        self.mask = size - 1
        self.generation = 0

    @cython.cfunc
    def begin(self, now: cython.longlong, jobs: cython.Py_ssize_t) -> cython.void:
        """A new pass over ``jobs`` queued jobs at ``now``."""
        size: cython.Py_ssize_t = self.mask + 1
        if 2 * jobs > size:
            while 2 * jobs > size:
                size *= 2
            self._table(size)
        if jobs > len(self.gone):
            self.gone = _zeros(2 * jobs)
        self.generation += 1
        self.gone_len = 0
        self.peak_len = 0
        self.peak_until = now

    @cython.cfunc
    def slot(self, n: cython.longlong, d: cython.longlong) -> cython.Py_ssize_t:
        """The table slot of shape ``(n, d)``: its own, or the free one where it goes (kept
        in ``slot_found`` too)."""
        i: cython.Py_ssize_t = (d ^ (d >> 13) ^ (n << 5)) & self.mask
        while self.slot_generation[i] == self.generation and (
            self.shape_n[i] != n or self.shape_d[i] != d
        ):
            i = (i + 1) & self.mask
        self.slot_found = i
        return i

    @cython.cfunc
    def bound(
        self, i: cython.Py_ssize_t, now: cython.longlong, d: cython.longlong
    ) -> cython.longlong:
        """The lower bound in slot ``i`` brought up to date (``now`` if there is none): a
        window that ends by the first instant given back since is still impossible."""
        b: cython.longlong
        first_back: cython.longlong
        k: cython.Py_ssize_t
        moves: cython.Py_ssize_t
        if self.slot_generation[i] != self.generation:
            return now
        b = self.bound_at[i]
        moves = self.bound_moves[i]
        if moves < self.gone_len:
            first_back = self.gone[moves]
            for k in range(moves + 1, self.gone_len):
                if self.gone[k] < first_back:
                    first_back = self.gone[k]
            first_back = first_back - d + 1
            if first_back < b:
                b = first_back if first_back > now else now
            self.bound_at[i] = b
            self.bound_moves[i] = self.gone_len
        return b

    @cython.cfunc
    def keep(
        self, i: cython.Py_ssize_t, n: cython.longlong, d: cython.longlong, b: cython.longlong
    ) -> cython.void:
        """Shape ``(n, d)`` (its slot ``i``) has no window before ``b``, as of now."""
        self.slot_generation[i] = self.generation
        self.shape_n[i] = n
        self.shape_d[i] = d
        self.bound_at[i] = b
        self.bound_moves[i] = self.gone_len

    @cython.cfunc
    def running_max(self, p: Steps) -> cython.void:
        """Snapshot the running maximum of the free counts (exact until a move)."""
        k: cython.Py_ssize_t
        top: cython.longlong = -1
        if p.size > len(self.peak):
            self.peak = _zeros(2 * p.size)
            self.peak_times = _zeros(2 * p.size)
        for k in range(p.size):
            if p.free[k] > top:
                top = p.free[k]
            self.peak[k] = top
            self.peak_times[k] = p.times[k]
        self.peak_len = p.size
        self.peak_until = _NO_LIMIT

    @cython.cfunc
    def first_with(self, n: cython.longlong) -> cython.Py_ssize_t:
        """The first index of the snapshot whose running maximum reaches ``n``."""
        return index(self.peak, n - 1, self.peak_len) + 1

    @cython.cfunc
    def moved(self, back_from: cython.longlong) -> cython.void:
        """A move gave capacity back from ``back_from`` on."""
        if self.gone_len == len(self.gone):
            grown = array("q", self.gone)
            grown.frombytes(bytes(8 * len(self.gone)))
            self.gone = grown
        self.gone[self.gone_len] = back_from
        self.gone_len += 1
        if back_from < self.peak_until:
            self.peak_until = back_from


@cython.ccall
def earliest_in_pass(
    p: Steps,
    passed: Pass,
    n: cython.longlong,
    d: cython.longlong,
    start: cython.longlong,
    now: cython.longlong,
) -> cython.longlong:
    """The earliest start of the queued block ``(n, d)`` planned at ``start`` (after
    ``now``), in the pass ``passed``: where it would go if taken out and put back at the
    profile's earliest start, never later than ``start``; the profile is only read
    (``slot_found`` is then the shape's slot in the pass's table)."""
    before: cython.Py_ssize_t = index(p.times, start - 1, p.size)  # the step just before start
    slot: cython.Py_ssize_t
    b: cython.longlong
    reach: cython.longlong
    new_start: cython.longlong
    if before < 0:
        return start
    if p.free[before] < n:
        return _fit_before_step(p, passed, n, d, before, start, now)
    # n are free just before start: a window reaching start opens after start - d, a whole
    # one at or after the shape's bound
    slot = passed.slot(n, d)
    b = passed.bound(slot, now, d)
    if b > now:
        reach = start - d + 1
        if reach < b:
            b = reach if reach > now else now
    new_start = earliest_move(p.times, p.free, p.size, start, d, n, b)
    if new_start == start:
        passed.keep(slot, n, d, start)
    return new_start


@cython.ccall
def move_planned(
    p: Steps,
    passed: Pass,
    start: cython.longlong,
    new_start: cython.longlong,
    n: cython.longlong,
    d: cython.longlong,
) -> cython.int:
    """Move the block ``(n, d)`` from ``start`` to the earlier ``new_start`` that
    :func:`earliest_in_pass` found: in the profile, and in what the pass keeps (capacity
    comes back over ``[max(new_start + d, start), start + d)`` only)."""
    back_from: cython.longlong = new_start + d
    if not p.move(start, new_start, d, n):
        raise AssertionError(f"compression moved a block from {start} to {new_start}")
    if back_from < start:
        back_from = start
    passed.moved(back_from)
    passed.keep(passed.slot_found, n, d, new_start)
    return 0


@cython.ccall
def compress(
    p: Steps, passed: Pass, shapes: list, plan: dict, starts: list, now: cython.longlong
) -> cython.Py_ssize_t:
    """The pass at ``now`` over the queued jobs ``shapes`` (``(job, n, d)``, in queue order):
    each moved to its earliest start.  Updates ``plan`` (job -> start), the profile ``p`` and
    the lazy heap ``starts`` of ``(start, job)``; returns how many jobs moved."""
    k: object
    n: cython.longlong
    d: cython.longlong
    start: cython.longlong
    new_start: cython.longlong
    moved: cython.Py_ssize_t = 0
    passed.begin(now, len(shapes))
    for k, n, d in shapes:
        start = plan[k]
        if start <= now:
            continue
        new_start = earliest_in_pass(p, passed, n, d, start, now)
        if new_start == start:
            continue
        move_planned(p, passed, start, new_start, n, d)
        plan[k] = new_start
        heappush(starts, (new_start, k))
        moved += 1
    return moved


@cython.cfunc
def _fit_before_step(
    p: Steps,
    passed: Pass,
    n: cython.longlong,
    d: cython.longlong,
    before: cython.Py_ssize_t,
    start: cython.longlong,
    now: cython.longlong,
) -> cython.longlong:
    """The earliest start of a block ``(n, d)`` planned at ``start`` whose step just before
    ``start`` (index ``before``) lacks ``n`` processors: the window cannot reach ``start``,
    so it fits whole before ``times[before]``, opening by ``last``.  ``start`` if there is
    none (the shape's bound then records it, and ``slot_found`` is its slot)."""
    last: cython.longlong = p.times[before] - d
    b: cython.longlong
    bound: cython.longlong
    slot: cython.Py_ssize_t
    x: cython.Py_ssize_t
    if last < now:
        return start
    if last >= passed.peak_until:
        passed.running_max(p)
    x = passed.first_with(n)  # no step before peak_times[x] has n free
    if x == passed.peak_len:
        return start
    b = passed.peak_times[x]
    if b > last:
        return start
    slot = passed.slot(n, d)
    bound = passed.bound(slot, now, d)
    if bound > b:
        if bound > last:
            return start
        b = bound
    # the earliest whole window in [b, times[before]): a scan of the steps
    for x in range(index(p.times, b, p.size), before):
        if p.free[x] < n:
            b = p.times[x + 1]
        elif p.times[x + 1] - b >= d:
            return b
    passed.keep(slot, n, d, start)
    return start


@cython.ccall
def drop(queue: list, shapes: list, gone: set) -> None:
    """Take the jobs of ``gone`` out of ``queue`` (job ids) and ``shapes`` (``(job, n, d)``),
    in place, keeping the order (conservative backfilling, when jobs start)."""
    queue[:] = [k for k in queue if k not in gone]
    shapes[:] = [x for x in shapes if x[0] not in gone]
