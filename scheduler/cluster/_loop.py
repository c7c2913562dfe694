# cython: initializedcheck=False, boundscheck=False, wraparound=False
"""Whole-run loops of the cluster simulator, compiled when a build exists.

:meth:`Simulator.run <scheduler.cluster.simulator.Simulator.run>` hands a run to this module
when it is plain EASY, conservative backfilling or FCFS from an empty machine with nothing
but the trace: no fixed reservation, no scheduling interval, nothing submitted on the fly,
no ``until``.  Each loop makes, without a Python call per event, exactly the decisions of
the event loop with its reference policy, at the same instants in the same order
(completions, then arrivals in queue order, then the starts; an instant recurs when a job of
runtime 0 ends at its start):

- :func:`run_easy` — :class:`~scheduler.cluster.easy.EASY` (Lifka 1995; Mu'alem &
  Feitelson 2001): the head of the queue starts when it fits, and a later job starts now if
  it does not delay the head's reservation at its shadow time;
- :func:`run_conservative` — :class:`~scheduler.cluster.conservative.Conservative`
  (Mu'alem & Feitelson 2001, section 3): every arrival gets the earliest start that delays
  no reservation, and after early ends the plan is compressed (each queued job, in queue
  order, moved to its earliest start);
- :func:`replay_fcfs` — :class:`~scheduler.cluster.fcfs.FCFS`, with a free count for the
  profile.

The availability profile is the one every policy steps, the profile library's
:class:`~scheduler.cluster._steps.Steps` (what a :class:`~scheduler.cluster.profile.Profile`
holds), and conservative backfilling's compression is the reference policy's own pass,
:mod:`scheduler.cluster._compress`: compiled, both cimported; uncompiled, their pure source.
Heaps hold one int64 per entry,
``(time - origin) << shift | job``, which orders as the event loop's ``(time, job)`` tuples.

Plain Python *and* the source of a C extension (Cython's pure-Python mode, like
``_compress.py``; see :mod:`scheduler._native`): the ``if cython.compiled:`` branches are C
loops where the plain version uses :mod:`heapq` or lists (each pair computes the same thing;
tests/scheduler/test_cluster_loop.py runs both against the event loop).  The caller checks
that every instant fits (:func:`fits`): times minus the origin, shifted, within 63 bits.

Compiler directives: the ``# cython:`` line above turns bounds checks and negative-index
wraparound off for the whole module (every index here is within its array and not negative);
only :func:`fits` takes wraparound back, for its ``submit[-1]``.
"""

from __future__ import annotations

import heapq
from array import array

try:
    import cython
except ImportError:  # no Cython installed: the same source runs uncompiled
    from scheduler._native import cython_shim as cython
if cython.compiled:  # the profile library and the compression pass, as C
    from cython.cimports.scheduler.cluster._compress import Pass, earliest_in_pass, move_planned
    from cython.cimports.scheduler.cluster._steps import Steps, index
else:  # their pure source (a build's functions take C arrays, not lists)
    from scheduler._native import load_pure

    _compress = load_pure("scheduler.cluster._compress", "scheduler.cluster._compress_pure")
    Pass, earliest_in_pass, move_planned = (
        _compress.Pass, _compress.earliest_in_pass, _compress.move_planned,
    )  # fmt: skip
    Steps, index = _compress.STEPS, _compress.index

__all__ = ["COMPILED", "Run", "fits", "replay_fcfs", "run_conservative", "run_easy"]

#: True in the extension, False when this file runs as Python
COMPILED = cython.compiled

#: "no limit" for times
_NO_LIMIT = 1 << 62


def _zeros(n: int) -> array:
    return array("q", bytes(8 * n))


def _bits(n: int) -> int:
    """The bits of a job index in a heap key (at least 1)."""
    return max(1, (n - 1).bit_length())


@cython.wraparound(True)  # (submit[-1])
def fits(origin: int, submit: list, runtime: list, estimate: list) -> bool:
    """Whether every instant of a whole run fits the heaps' int64 keys: no instant is later
    than the last submission plus every estimate (conservative backfilling plans each job
    after the ones ahead at worst) plus the longest runtime.  ``submit`` in queue order."""
    if not submit:
        return True
    shift = _bits(len(submit))
    if submit[0] < origin:
        return False
    span = submit[-1] - origin + sum(estimate) + max(runtime) + 1
    return span < 1 << (62 - shift) and origin > -(1 << 62) and span + origin < 1 << 62


@cython.cclass
class _Heap:
    """A binary min-heap of int64 (compiled: an array; pure: a list and :mod:`heapq`)."""

    heap: cython.longlong[::1]
    size: cython.Py_ssize_t
    items: list

    def __init__(self, room: cython.Py_ssize_t) -> None:
        self.size = 0
        self.items = []
        if cython.compiled:
            self.heap = _zeros(max(room, 16))

    @cython.cfunc
    @cython.inline
    def top(self) -> cython.longlong:
        if cython.compiled:
            x: cython.longlong = self.heap[0]
        else:
            x = self.items[0]
        return x

    @cython.cfunc
    def push(self, x: cython.longlong) -> cython.void:
        i: cython.Py_ssize_t
        parent: cython.Py_ssize_t
        if not cython.compiled:
            heapq.heappush(self.items, x)
            self.size += 1
            return
        if self.size == len(self.heap):
            grown = array("q", self.heap)
            grown.frombytes(bytes(8 * len(self.heap)))
            self.heap = grown
        i = self.size
        self.size += 1
        while i > 0:
            parent = (i - 1) >> 1
            if self.heap[parent] <= x:
                break
            self.heap[i] = self.heap[parent]
            i = parent
        self.heap[i] = x

    @cython.cfunc
    def pop(self) -> cython.longlong:
        top: cython.longlong
        x: cython.longlong
        i: cython.Py_ssize_t
        child: cython.Py_ssize_t
        size: cython.Py_ssize_t
        if not cython.compiled:
            self.size -= 1
            return heapq.heappop(self.items)
        top = self.heap[0]
        self.size -= 1
        size = self.size
        if size == 0:
            return top
        x = self.heap[size]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            if child + 1 < size and self.heap[child + 1] < self.heap[child]:
                child += 1
            if x <= self.heap[child]:
                break
            self.heap[i] = self.heap[child]
            i = child
        self.heap[i] = x
        return top


@cython.cclass
class _Series:
    """``(instant, busy, waiting)`` samples, three int64 each, in an array with room."""

    values: cython.longlong[::1]
    size: cython.Py_ssize_t
    out: object

    def __init__(self, room: cython.Py_ssize_t) -> None:
        self.out = _zeros(max(3 * room, 48))
        self.values = self.out
        self.size = 0

    @cython.cfunc
    def add(
        self, t: cython.longlong, busy: cython.longlong, waiting: cython.longlong
    ) -> cython.void:
        k: cython.Py_ssize_t = self.size
        if k + 3 > len(self.values):
            grown = array("q", self.values)
            grown.frombytes(bytes(8 * len(self.values)))
            self.out = grown
            self.values = grown
        self.values[k] = t
        self.values[k + 1] = busy
        self.values[k + 2] = waiting
        self.size = k + 3

    def take(self) -> array:
        """The samples (the array is cut to them; the object is done with)."""
        out = self.out
        self.values = _zeros(0)  # releases the array's buffer, so it can be cut
        self.out = None
        del out[self.size :]
        return out


# --- one whole run: the state the event loop keeps, and the steps shared by the policies ---


@cython.cclass
class Run:
    """A whole run's state, as the event loop and its policy hold it: the jobs (in queue
    order), the clock, the queue, the profile, the completions ahead, the busy count and the
    samples.  The steps below (:func:`_next_instant`, :func:`_complete_due`, :func:`_start`,
    :func:`_sample`, ...) are the event loop's; :func:`run_easy` and
    :func:`run_conservative` add their policy's decisions.

    Made from the jobs ``submit``, ``runtime``, ``estimate`` (>= 1), ``procs``
    (1..capacity), in queue order, all arriving, and the profile ``(times, free)`` of a
    machine of ``capacity`` (its origin the first instant; blocks already in it are
    honoured).  ``progress(fraction, message)`` is called every ``every`` instants as by the
    event loop; what it raises propagates, and then nothing of the caller's has changed (the
    lists are only read).  See :func:`fits`."""

    jobs: cython.Py_ssize_t
    submit: cython.longlong[::1]
    runtime: cython.longlong[::1]
    estimate: cython.longlong[::1]
    procs: cython.longlong[::1]
    start_out: object  # start as an array("q"), returned
    start: cython.longlong[::1]  # start time of each job, -1 before it starts
    is_waiting: cython.schar[::1]  # job arrived and not started
    queue: cython.longlong[::1]  # the waiting jobs, in queue order: queue[:waiting]
    waiting: cython.Py_ssize_t
    arrived: cython.Py_ssize_t  # jobs submitted so far: the next arrival's index
    profile: Steps
    origin: cython.longlong
    shift: cython.int
    mask: cython.longlong
    ends: _Heap  # completions: key(end, job)
    gave_back: cython.bint  # an early end gave processors back since the last compression
    busy: cython.longlong
    now: cython.longlong
    instants: cython.Py_ssize_t
    series: _Series
    progress: object
    every: cython.Py_ssize_t

    def __init__(
        self,
        submit: list,
        runtime: list,
        estimate: list,
        procs: list,
        times: list,
        free: list,
        capacity: cython.longlong,
        progress: object,
        every: cython.Py_ssize_t,
    ) -> None:
        jobs = len(submit)
        self.jobs = jobs
        self.submit = array("q", submit)
        self.runtime = array("q", runtime)
        self.estimate = array("q", estimate)
        self.procs = array("q", procs)
        self.start_out = array("q", [-1]) * jobs
        self.start = self.start_out
        self.is_waiting = array("b", bytes(jobs))
        self.queue = _zeros(jobs)
        self.waiting = 0
        self.arrived = 0
        self.profile = Steps(times, free, capacity)
        self.origin = times[0]
        self.shift = _bits(jobs)
        self.mask = (1 << self.shift) - 1
        self.ends = _Heap(jobs)
        self.gave_back = False
        self.busy = 0
        self.now = self.origin
        self.instants = 0
        self.series = _Series(2 * jobs + 1)
        self.progress = progress
        self.every = every

    def result(self) -> tuple:
        """``(start, series, times, free, last)`` (see :func:`run_conservative`)."""
        times_out, free_out = self.profile.lists()
        last = self.now if self.instants else None
        return self.start_out.tolist(), self.series.take(), times_out, free_out, last


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _key(run: Run, time: cython.longlong, job: cython.longlong) -> cython.longlong:
    """A heap key that orders as ``(time, job)``."""
    return ((time - run.origin) << run.shift) | job


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _time_of(run: Run, key: cython.longlong) -> cython.longlong:
    return (key >> run.shift) + run.origin


@cython.cfunc
def _next_instant(run: Run) -> cython.bint:
    """Move the clock to the next arrival or completion, whichever comes first; False if
    there is neither (the clock stays)."""
    have: cython.bint = run.arrived < run.jobs
    end: cython.longlong
    if have:
        run.now = run.submit[run.arrived]
    if run.ends.size:
        end = _time_of(run, run.ends.top())
        if not have or end < run.now:
            run.now = end
            have = True
    return have


@cython.cfunc
def _complete_due(run: Run) -> cython.Py_ssize_t:
    """End the jobs whose completion is now; a job that ends before its estimate gives the
    rest of its block back (and sets ``gave_back``).  Returns how many ended."""
    job: cython.longlong
    n: cython.longlong
    planned_end: cython.longlong
    ended: cython.Py_ssize_t = 0
    while run.ends.size and _time_of(run, run.ends.top()) == run.now:
        job = run.ends.pop() & run.mask
        n = run.procs[job]
        run.busy -= n
        planned_end = run.start[job] + run.estimate[job]
        if run.now < planned_end:
            if not run.profile.add(run.now, planned_end, n):
                raise AssertionError(f"job {job} gave back processors it did not hold")
            run.gave_back = True
        ended += 1
    return ended


@cython.cfunc
def _enqueue_arrival(run: Run) -> cython.longlong:
    """The next arrival joins the end of the queue; returns it."""
    job: cython.longlong = run.arrived
    run.queue[run.waiting] = job
    run.waiting += 1
    run.is_waiting[job] = 1
    run.arrived += 1
    return job


@cython.cfunc
@cython.exceptval(-1)
def _start(run: Run, job: cython.longlong) -> cython.int:
    """``job`` starts now (its block is already in the profile)."""
    run.is_waiting[job] = 0
    run.start[job] = run.now
    run.busy += run.procs[job]
    run.ends.push(_key(run, run.now + run.runtime[job], job))
    return 0


@cython.cfunc
@cython.exceptval(-1)
def _start_now(run: Run, job: cython.longlong) -> cython.int:
    """``job`` takes its block from now to its estimated end, and starts."""
    if not run.profile.add(run.now, run.now + run.estimate[job], -run.procs[job]):
        raise AssertionError(f"job {job} started where it does not fit")
    return _start(run, job)


@cython.cfunc
@cython.exceptval(check=False)
def _drop_started(run: Run, first: cython.Py_ssize_t) -> cython.void:
    """Take the jobs that started out of the queue, keeping its order (every job before
    ``first`` started)."""
    i: cython.Py_ssize_t
    kept: cython.Py_ssize_t = 0
    job: cython.longlong
    for i in range(first, run.waiting):
        job = run.queue[i]
        if run.is_waiting[job]:
            run.queue[kept] = job
            kept += 1
    run.waiting = kept


@cython.cfunc
@cython.exceptval(-1)
def _sample(run: Run) -> cython.int:
    """The instant's sample ``(now, busy, waiting)``, and the progress callback every
    ``every`` instants (what it raises propagates)."""
    run.series.add(run.now, run.busy, run.waiting)
    run.instants += 1
    if run.progress is not None and run.instants % run.every == 0:
        run.progress(run.arrived / run.jobs, f"{run.arrived} of {run.jobs} jobs submitted")
    return 0


# --- EASY backfilling ---


@cython.ccall
def run_easy(run: Run) -> tuple:
    """A whole run of EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001) from an empty
    machine: the decisions of :class:`~scheduler.cluster.easy.EASY` (its rules in its
    module's docstring; without fixed reservations: the classic tests on the free count now
    and the processors left at the shadow time) through the event loop, over ``run`` (see
    :class:`Run`); returns ``(start, series, times, free, last, examined)`` as
    :func:`run_conservative` does, ``examined`` being the policy's count of queued jobs
    already examined."""
    examined: cython.Py_ssize_t = 0
    ended: cython.Py_ssize_t
    while _next_instant(run):
        run.profile.advance(run.now)
        ended = _complete_due(run)
        while run.arrived < run.jobs and run.submit[run.arrived] == run.now:
            _enqueue_arrival(run)
        if run.waiting:
            examined = _easy_schedule(run, ended > 0, examined)
        _sample(run)
    return run.result() + (examined,)


@cython.cfunc
def _easy_schedule(
    run: Run, changed: cython.bint, examined: cython.Py_ssize_t
) -> cython.Py_ssize_t:
    """EASY's decision at ``now`` (``EASY.schedule``): the head, and each next head, starts
    while it fits; then the jobs behind it may backfill.  When nothing ended, the queue the
    policy had examined is unchanged and only the ``examined`` jobs after the head are
    skipped.  Returns the new count of examined jobs."""
    head: cython.Py_ssize_t = 0
    first: cython.Py_ssize_t  # the first job to try to backfill, counted from the head
    started: cython.bint = False
    if changed or examined == 0:
        head = _start_heads(run)
        started = head > 0
        first = 1
    else:
        first = examined
    examined = run.waiting - head
    if examined > first and run.profile.free[0] > 0:
        if _backfill(run, head, head + first):
            started = True
    if started:
        _drop_started(run, head)
        examined = run.waiting
    return examined


@cython.cfunc
def _start_heads(run: Run) -> cython.Py_ssize_t:
    """Start the head of the queue, and each next head, while it fits now; returns how many
    started (the queue is then ``queue[started:waiting]``)."""
    head: cython.Py_ssize_t = 0
    job: cython.longlong
    while head < run.waiting:
        job = run.queue[head]
        if run.profile.free[0] < run.procs[job]:
            break
        _start_now(run, job)
        head += 1
    return head


@cython.cfunc
def _backfill(run: Run, head: cython.Py_ssize_t, first: cython.Py_ssize_t) -> cython.bint:
    """EASY's backfilling behind the reservation of ``queue[head]`` at its shadow time (its
    earliest start): the jobs from ``queue[first]`` on, in order, start now if they fit now
    and either end by the shadow time or use only the ``extra`` processors the head leaves
    free then.  Returns whether one started."""
    p: Steps = run.profile
    free_now: cython.longlong = p.free[0]
    shadow: cython.longlong = -1  # computed at the first job that fits now
    extra: cython.longlong = 0
    started: cython.bint = False
    i: cython.Py_ssize_t
    job: cython.longlong
    n: cython.longlong
    end: cython.longlong
    head_job: cython.longlong
    for i in range(first, run.waiting):
        job = run.queue[i]
        n = run.procs[job]
        if n > free_now:
            continue
        if shadow < 0:
            head_job = run.queue[head]
            shadow = p.earliest_start(run.procs[head_job], run.estimate[head_job], run.now)
            extra = p.free[index(p.times, shadow, p.size)] - run.procs[head_job]
        end = run.now + run.estimate[job]
        if end > shadow and n > extra:
            continue
        _start_now(run, job)
        started = True
        free_now -= n
        if end > shadow:
            extra -= n
        if free_now == 0:
            break
    return started


# --- conservative backfilling ---


@cython.cclass
class _Plan:
    """Conservative backfilling's plan: the planned start of each queued job (its block is in
    the profile from there), the planned starts as a lazy heap (an entry is stale once the
    job started or moved), and the compression pass's memory."""

    planned: cython.longlong[::1]
    wake: _Heap  # key(planned start, job), stale entries included
    compression: Pass

    def __init__(self, jobs: cython.Py_ssize_t) -> None:
        self.planned = _zeros(jobs)
        self.wake = _Heap(jobs)
        self.compression = Pass()


@cython.ccall
def run_conservative(run: Run) -> tuple:
    """A whole run of conservative backfilling (Mu'alem & Feitelson 2001, section 3): the
    decisions of :class:`~scheduler.cluster.conservative.Conservative` through the event loop
    — each arrival planned at its earliest start that delays no block, the plan compressed
    (once per instant, before that instant's arrivals are placed) after early ends, each job
    started at its planned time — over ``run`` (see :class:`Run`).

    Returns ``(start, series, times, free, last)``: the start of each job (a list, -1 for none),
    the samples (an ``array("q")``, three per instant), the profile's lists at the end and
    the last instant (None if there was no event).
    """
    plan: _Plan = _Plan(run.jobs)
    while _next_planned_instant(run, plan, _next_instant(run)):
        run.profile.advance(run.now)
        _complete_due(run)
        while run.arrived < run.jobs and run.submit[run.arrived] == run.now:
            if run.gave_back:
                _compress(run, plan)
            _plan_arrival(run, plan)
        if run.gave_back:
            _compress(run, plan)
        if _start_planned(run, plan):
            _drop_started(run, 0)
        _sample(run)
    return run.result()


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _is_current(run: Run, plan: _Plan, key: cython.longlong) -> cython.bint:
    """Whether a ``wake`` entry is still a queued job's plan."""
    job: cython.longlong = key & run.mask
    return run.is_waiting[job] and plan.planned[job] == _time_of(run, key)


@cython.cfunc
def _next_planned_instant(run: Run, plan: _Plan, have: cython.bint) -> cython.bint:
    """Bring the clock back to the earliest planned start if it comes before the next arrival
    or completion (``have`` says whether there is one); stale plans are dropped.  False if
    there is no next instant at all."""
    key: cython.longlong
    while plan.wake.size:
        key = plan.wake.top()
        if _is_current(run, plan, key):
            if not have or _time_of(run, key) < run.now:
                run.now = _time_of(run, key)
                have = True
            break
        plan.wake.pop()
    return have


@cython.cfunc
@cython.exceptval(-1)
def _plan_arrival(run: Run, plan: _Plan) -> cython.int:
    """The next arrival joins the queue with a block at its earliest start (the profile's
    ``earliest_start`` with every block in place)."""
    job: cython.longlong = _enqueue_arrival(run)
    n: cython.longlong = run.procs[job]
    d: cython.longlong = run.estimate[job]
    start: cython.longlong = run.profile.earliest_start(n, d, run.now)
    if not run.profile.add(start, start + d, -n):
        raise AssertionError(f"job {job} was planned where it does not fit")
    plan.planned[job] = start
    plan.wake.push(_key(run, start, job))
    return 0


@cython.cfunc
def _start_planned(run: Run, plan: _Plan) -> cython.bint:
    """Start the jobs planned for now; returns whether one started."""
    key: cython.longlong
    started: cython.bint = False
    while plan.wake.size and _time_of(run, plan.wake.top()) <= run.now:
        key = plan.wake.pop()
        if _is_current(run, plan, key):
            _start(run, key & run.mask)
            started = True
    return started


@cython.cfunc
def _compress(run: Run, plan: _Plan) -> cython.Py_ssize_t:
    """Conservative backfilling's compression at ``now`` (Mu'alem & Feitelson 2001, section
    3): the pass of :mod:`scheduler.cluster._compress`, as the reference policy runs it, over
    the queue and the plan as this loop holds them; clears ``gave_back`` and returns how many
    jobs moved."""
    p: Steps = run.profile
    passed: Pass = plan.compression
    now: cython.longlong = run.now
    i: cython.Py_ssize_t
    job: cython.longlong
    start: cython.longlong
    new_start: cython.longlong
    moved: cython.Py_ssize_t = 0
    run.gave_back = False
    passed.begin(now, run.waiting)
    for i in range(run.waiting):
        job = run.queue[i]
        start = plan.planned[job]
        if start <= now:
            continue
        new_start = earliest_in_pass(p, passed, run.procs[job], run.estimate[job], start, now)
        if new_start == start:
            continue
        move_planned(p, passed, start, new_start, run.procs[job], run.estimate[job])
        plan.planned[job] = new_start
        plan.wake.push(_key(run, new_start, job))
        moved += 1
    return moved


# --- FCFS ---


@cython.ccall
def replay_fcfs(
    submit: list,
    runtime: list,
    procs: list,
    capacity: cython.longlong,
    progress: object,
    every: cython.Py_ssize_t,
) -> tuple:
    """FCFS (:class:`~scheduler.cluster.fcfs.FCFS`: the head of the queue starts when it
    fits, nothing passes it) from an empty machine, where the free count now is all it
    reads: returns ``(start, series, last)`` as :func:`run_conservative` does."""
    jobs: cython.Py_ssize_t = len(submit)
    submit_a: cython.longlong[::1] = array("q", submit)
    runtime_a: cython.longlong[::1] = array("q", runtime)
    procs_a: cython.longlong[::1] = array("q", procs)
    start_out = array("q", [-1]) * jobs
    start: cython.longlong[::1] = start_out
    origin: cython.longlong = submit[0] if jobs else 0
    shift: cython.int = _bits(jobs)
    mask: cython.longlong = (1 << shift) - 1
    ends: _Heap = _Heap(jobs)
    series: _Series = _Series(2 * jobs + 1)
    free: cython.longlong = capacity
    arrived: cython.Py_ssize_t = 0
    head: cython.Py_ssize_t = 0  # the queue is [head, arrived)
    blocked: cython.bint = False
    changed: cython.bint
    now: cython.longlong = origin
    end: cython.longlong
    after_now: cython.longlong
    n: cython.longlong
    instants: cython.Py_ssize_t = 0
    while True:
        if arrived < jobs:
            now = submit_a[arrived]
            if ends.size:
                end = (ends.top() >> shift) + origin
                if end < now:
                    now = end
        elif ends.size:
            now = (ends.top() >> shift) + origin
        else:
            break
        changed = False
        after_now = (now - origin + 1) << shift  # the first key after every end at now
        while ends.size and ends.top() < after_now:
            free += procs_a[ends.pop() & mask]
            changed = True
        while arrived < jobs and submit_a[arrived] == now:
            arrived += 1
        if changed or not blocked:
            while head < arrived:
                n = procs_a[head]
                if n > free:
                    break
                free -= n
                start[head] = now
                ends.push(((now + runtime_a[head] - origin) << shift) | head)
                head += 1
            blocked = head < arrived
        series.add(now, capacity - free, arrived - head)
        instants += 1
        if progress is not None and instants % every == 0:
            progress(arrived / jobs, f"{arrived} of {jobs} jobs submitted")
    return start_out.tolist(), series.take(), now if instants else None
