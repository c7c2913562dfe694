"""Event-driven simulation of KOALA scheduling malleable jobs on a multicluster
(Buisson et al. 2007).

Buisson et al. 2007, §5: jobs are submitted to KOALA, placed by Worst-Fit (:mod:`.placement`) or
queued; a malleability manager grows and shrinks running malleable jobs per cluster by a policy
(:mod:`.fpsma`, :mod:`.egs`) under an approach (:mod:`.approaches`, PRA or PWA); local users
load every cluster behind KOALA's back (:mod:`.background`).

Events sit in one heap ordered by ``(time, priority, sequence)`` (the simpy ordering): at one
instant job completions come first (they free processors), then the end of a job's adaptation
to a resize (it releases what a shrink freed), then local-job ends and arrivals,
then KOALA submissions, then the periodic poll; the sequence number breaks the remaining ties
in insertion order, so a run is deterministic.  After all events of an instant, one scheduling
pass runs: local jobs start (FCFS, on idle processors only), then the approach.

Resizing.  A job's work is 1 and progresses at ``1 / T(p)`` per second on ``p`` processors
(:mod:`.apps`); a processor of a job is one DAS-3 node (SGE runs jobs exclusively on nodes,
Buisson et al. 2007, §6.2; Figure 6 counts "machines").  A grow or shrink sets the job's size at
once and suspends its progress for ``resize_overhead`` seconds (process management and data
redistribution, §5.1); while it adapts the job takes no new grow or shrink request.  The
processors a shrink frees stay held until the adaptation ends: "we let the execution resume
before releasing processors to GRAM" (§5.1), and the policies "wait for Job to release the
processors" (Figures 4 and 5), so a job placed by a PWA shrink starts ``resize_overhead`` later.
A completion is re-planned after each resize; the stale completion event is ignored (version
counter).  Times are integer seconds: a planned completion is rounded up.

Threshold.  ``threshold`` processors of each cluster are kept for local users (§5.2): growth
never takes them; with ``threshold_scope="all"`` placement does not either ("a threshold is set
over which KOALA never expands the total set of the jobs it manages").

Why not the shared :class:`~scheduler.cluster.profile.Profile` during the run: a profile answers
planning questions ("earliest start of (n, d)"), but here no job has a known end — it moves with
every grow, shrink and overhead — and KOALA decides only from the processors idle *now*
(Worst-Fit, §4.1).  The state a decision needs is three integers per cluster.  The profile is
used where it fits, after the run: :mod:`.occupancy` inserts every allocation segment into one
profile per cluster, which proves no over-commit and yields utilization over time.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .approaches import check_approach
from .apps import get_app
from .background import BackgroundLoad, LocalStream
from .egs import EGS
from .model import ClusterSpec, JobRecord, JobSpec, ModelError
from .placement import PlacementQueue, worst_fit
from .policies import Member
from .policy_table import get_policy

__all__ = ["Simulation", "SimResult", "simulate", "Segment"]

# event priorities at one instant (lower first)
FINISH, RELEASE, LOCAL_END, LOCAL_ARRIVE, ARRIVE, POLL = range(6)

#: where the threshold kept for local users applies (Buisson et al. 2007, §5.2)
THRESHOLD_SCOPES = ("growth", "all")


@dataclass(frozen=True, slots=True)
class Segment:
    """``procs`` processors of cluster ``cluster`` held over ``[start, end)`` by ``owner``
    (a job id, or -1 for a local user's job)."""

    cluster: int
    start: int
    end: int
    procs: int
    owner: int


@dataclass(frozen=True)
class SimResult:
    """The outcome of one run.

    ``usage`` holds ``(t, koala_procs, local_procs)`` whenever the totals change (a step
    function); ``ops`` holds ``(t, grows, shrinks)`` per scheduling pass that resized jobs;
    ``segments`` is filled only when the run was asked to record them.
    """

    clusters: tuple[ClusterSpec, ...]
    records: tuple[JobRecord, ...]
    usage: tuple[tuple[int, int, int], ...]
    ops: tuple[tuple[int, int, int], ...]
    segments: tuple[Segment, ...] | None
    events: int
    passes: int

    @property
    def capacity(self) -> int:
        return sum(c.size for c in self.clusters)


class _Run:
    """A running KOALA job (mutable, private to the simulation)."""

    __slots__ = (
        "spec", "app", "cluster", "size", "start", "remaining", "resume", "version",
        "area", "last", "peak", "grows", "shrinks", "tries", "unit", "pending",
        "finished",
    )  # fmt: skip

    @property
    def held(self) -> int:
        """Processors the job holds: its size plus those a shrink has not yet released."""
        return self.size + self.pending

    def time(self, p: int) -> float:
        return self.spec.scale * self.app.time(p)


class Simulation:
    """One run; call :meth:`run` once."""

    def __init__(
        self,
        jobs: Iterable[JobSpec],
        clusters: Iterable[ClusterSpec],
        approach: str,
        policy: str,
        *,
        threshold: int = 0,
        threshold_scope: str = "growth",
        egs_shrink_rounds: str = "one",
        resize_overhead: int = 0,
        poll_interval: int = 30,
        max_tries: int = 0,
        background: BackgroundLoad | None = None,
        record_segments: bool = False,
        seed: int = 0,
        on_progress: Callable[[float], None] | None = None,
    ) -> None:
        self.clusters = tuple(clusters)
        if not self.clusters:
            raise ModelError("clusters", "give at least one cluster")
        self.jobs = sorted(jobs, key=lambda j: (j.submit, j.id))
        if len({j.id for j in self.jobs}) != len(self.jobs):
            raise ModelError("jobs", "job ids must be unique")
        largest = max(c.size for c in self.clusters)
        for j in self.jobs:
            # FT: powers of 2 only (Buisson et al. 2007, §6.1)
            if not get_app(j.app).valid(j.min_procs):
                raise ModelError(
                    "min_procs", f"job {j.id}: {j.app} cannot run on {j.min_procs} processors"
                )
            if j.min_procs > largest:
                raise ModelError(
                    "min_procs",
                    f"job {j.id} needs at least {j.min_procs} processors; the largest cluster "
                    f"has {largest}",
                )
        if threshold < 0:
            raise ModelError("threshold", f"threshold {threshold} < 0")
        if threshold_scope not in THRESHOLD_SCOPES:
            raise ModelError(
                "threshold_scope",
                f"unknown threshold scope {threshold_scope!r} "
                f"(known: {', '.join(THRESHOLD_SCOPES)})",
            )
        if resize_overhead < 0:
            raise ModelError("resize_overhead", f"overhead {resize_overhead} < 0")
        if poll_interval < 1:
            raise ModelError("poll_interval", f"poll interval {poll_interval} < 1 s")
        if max_tries < 0:
            raise ModelError("max_tries", f"max tries {max_tries} < 0")
        self._approach = check_approach(approach)
        self.policy = get_policy(policy)
        if self.policy.name == "EGS":
            self.policy = EGS(egs_shrink_rounds)
        self.threshold = threshold
        self.threshold_scope = threshold_scope
        self.pra = approach.upper() == "PRA"
        self.overhead = resize_overhead
        self.poll_interval = poll_interval
        self.background = background or BackgroundLoad()
        self.seed = seed
        self._on_progress = on_progress

        k = len(self.clusters)
        self.idle = [c.size for c in self.clusters]
        self.koala = [0] * k
        self.local = [0] * k
        self.reclaim = [0] * k  # sum of (size - min) over running malleable jobs
        # processors shrunk jobs have yet to release (Buisson et al. 2007, §5.1)
        self.pending = [0] * k
        self.malleable: list[dict[int, _Run]] = [{} for _ in range(k)]
        self._grow_stuck: list[tuple[int, int] | None] = [None] * k
        self._members_version = [0] * k
        self.queue = PlacementQueue(max_tries)
        self._local_queue: list[list[tuple[int, int]]] = [[] for _ in range(k)]
        self._streams = [
            LocalStream(self.background, c.size, seed, i) for i, c in enumerate(self.clusters)
        ]
        self._heap: list[tuple] = []
        self._seq = 0
        self._segments: list[Segment] | None = [] if record_segments else None
        self._records: list[JobRecord] = []
        self._usage: list[tuple[int, int, int]] = []
        self._ops: list[tuple[int, int, int]] = []
        self._grows = self._shrinks = 0
        self._done = 0
        self._poll_pending = False
        self._awaited: set[int] = set()

    # ------------------------------------------------------------------ event queue

    def _push(self, t: int, kind: int, payload: object) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (t, kind, self._seq, payload))

    # ------------------------------------------------------------------ main loop

    def run(self) -> SimResult:
        n = len(self.jobs)
        heap = self._heap
        for j in self.jobs:
            self._seq += 1
            heap.append((j.submit, ARRIVE, self._seq, j))
        if self.background.load > 0:
            t0 = self.jobs[0].submit if self.jobs else 0
            for i, s in enumerate(self._streams):
                gap, size, runtime = s.next()
                self._seq += 1
                heap.append((t0 + gap, LOCAL_ARRIVE, self._seq, (i, size, runtime)))
        heapq.heapify(heap)
        events = passes = 0
        report_every = max(1, n // 50)
        next_report = report_every
        pop = heapq.heappop
        while heap and self._done < n:
            t = heap[0][0]
            poll = False
            arrived = []
            while heap and heap[0][0] == t:
                _, kind, _, payload = pop(heap)
                events += 1
                if kind == FINISH:
                    run, version = payload
                    if version == run.version:
                        self._finish(run, t)
                elif kind == RELEASE:
                    self._release(payload, t)
                elif kind == LOCAL_END:
                    c, size = payload
                    self.local[c] -= size
                    self.idle[c] += size
                elif kind == LOCAL_ARRIVE:
                    c, size, runtime = payload
                    self._local_queue[c].append((size, runtime))
                    gap, size2, runtime2 = self._streams[c].next()
                    self._push(t + gap, LOCAL_ARRIVE, (c, size2, runtime2))
                elif kind == ARRIVE:
                    self.queue.push(payload)
                    arrived.append(self.queue.jobs[-1])
                else:
                    poll = True
                    self._poll_pending = False
            passes += 1
            self._pass(t, poll, arrived)
            if len(self.queue) and not self._poll_pending:
                self._poll_pending = True
                self._push(t + self.poll_interval, POLL, None)
            if self._on_progress is not None and self._done >= next_report:
                next_report = self._done + report_every
                self._on_progress(self._done / n)
        records = tuple(sorted(self._records, key=lambda r: r.id))
        return SimResult(
            self.clusters,
            records,
            tuple(self._usage),
            tuple(self._ops),
            None if self._segments is None else tuple(self._segments),
            events,
            passes,
        )

    def _pass(self, t: int, poll: bool, arrived: list) -> None:
        self._start_local(t)
        grows, shrinks = self._grows, self._shrinks
        self._approach(self, t)
        # Placement tries (Buisson et al. 2007, §4.1): one at submission, one per regular poll scan.
        if self.queue.jobs and (poll or arrived):
            counted = self.queue.jobs if poll else arrived
            failed = [q for q in counted if self.queue.failed_try(q)]
            if failed:
                gone = {id(q) for q in failed}
                self.queue.jobs = [q for q in self.queue.jobs if id(q) not in gone]
                for q in failed:
                    self._fail(q.spec, q.tries)
        if self._grows != grows or self._shrinks != shrinks:
            self._ops.append((t, self._grows - grows, self._shrinks - shrinks))
        koala, local = sum(self.koala), sum(self.local)
        if not self._usage or self._usage[-1][1:] != (koala, local):
            if self._usage and self._usage[-1][0] == t:
                self._usage[-1] = (t, koala, local)
            else:
                self._usage.append((t, koala, local))

    # ------------------------------------------------------------------ local users

    def _start_local(self, t: int) -> None:
        for c, q in enumerate(self._local_queue):
            while q and q[0][0] <= self.idle[c]:
                size, runtime = q.pop(0)
                self.local[c] += size
                self.idle[c] -= size
                self._push(t + runtime, LOCAL_END, (c, size))
                if self._segments is not None:
                    self._segments.append(Segment(c, t, t + runtime, size, -1))

    # ------------------------------------------------------------------ used by approaches

    def place_queue(self, t: int, *, shrink: bool) -> None:
        """Scan the placement queue head to tail; place every job that fits (Worst-Fit),
        shrinking running malleable jobs for it when ``shrink`` (PWA).

        Processors a shrink frees come back only once the shrunk jobs have adapted (Buisson et al.
        2007, §5.1, Figures 4–5 "wait for Job to release the processors"); a job for which enough
        are on their way waits for them (and its cluster is not grown meanwhile) instead of
        shrinking again.  Under PRA a waiting malleable job is not placed on a cluster where a
        running malleable job can still be grown (§5.2).
        """
        q = self.queue.jobs
        self._awaited = set()
        if not q:
            return
        keep = []
        incoming = list(self.pending)  # on their way back, not yet promised in this scan
        k = len(self.clusters)
        growable = None
        for qj in q:
            spec = qj.spec
            need = spec.min_procs
            free = self._free()
            if self.pra and spec.kind == "malleable":
                if growable is None:
                    growable = [self._can_grow(c, t) for c in range(k)]
                free = [0 if g else f for f, g in zip(free, growable, strict=True)]
            c = worst_fit(free, need)
            if c is None and shrink:
                soon = [f + i for f, i in zip(free, incoming, strict=True)]
                c2 = worst_fit(soon, need)
                if c2 is None:
                    c = self._shrink_for(need, t, free, incoming)
                if c is None:
                    c2 = worst_fit([f + i for f, i in zip(free, incoming, strict=True)], need)
                    if c2 is not None:  # wait for what is on its way
                        incoming[c2] -= max(0, need - free[c2])
                        self._awaited.add(c2)
            if c is None:
                keep.append(qj)
            else:
                self._start(spec, c, t, qj.tries)
                growable = None
        self.queue.jobs = keep

    def grow_all(self, t: int) -> None:
        """Offer each cluster's idle processors above the threshold to its running malleable
        jobs, by the policy (not on a cluster whose idle processors a waiting job awaits)."""
        for c, runs in enumerate(self.malleable):
            avail = self.idle[c] - self.threshold
            if avail <= 0 or not runs or c in self._awaited:
                continue
            state = (self._members_version[c], avail)
            if self._grow_stuck[c] == state:  # nothing changed since nobody could grow
                continue
            sizes = self.policy.grow(self._members(c, t), avail)
            if not sizes:
                self._grow_stuck[c] = state
                continue
            self._apply(c, sizes, t)

    # ------------------------------------------------------------------ internals

    def _free(self) -> list[int]:
        """Idle processors KOALA may place a job on, per cluster."""
        if self.threshold_scope == "all":
            return [i - self.threshold for i in self.idle]
        return self.idle

    def _can_grow(self, c: int, t: int) -> bool:
        """Whether a running malleable job of cluster ``c`` is below what it can use."""
        return any(m.can_grow(m.size) for m in self._members(c, t, adapting=True))

    def _members(self, c: int, t: int, *, adapting: bool = False) -> list[Member]:
        """The running malleable jobs of cluster ``c`` a policy may resize now: a job still
        adapting to its last grow or shrink takes no new request (``adapting`` includes it)."""
        return [
            Member(key, r.start, r.size, r.spec.min_procs, r.spec.max_procs, r.app)
            for key, r in self.malleable[c].items()
            if adapting or r.resume <= t
        ]

    def _shrink_for(self, need: int, t: int, free: list[int], incoming: list[int]) -> int | None:
        room = [f + i + r for f, i, r in zip(free, incoming, self.reclaim, strict=True)]
        c = worst_fit(room, need)
        if c is None:
            return None
        before = self.pending[c]
        sizes = self.policy.shrink(self._members(c, t), need - free[c] - incoming[c])
        self._apply(c, sizes, t)
        incoming[c] += self.pending[c] - before
        return c if self._free()[c] >= need else None

    def _apply(self, c: int, sizes: dict[int, int], t: int) -> None:
        runs = self.malleable[c]
        for key, new in sizes.items():
            run = runs[key]
            if new == run.size:
                continue
            if not run.spec.min_procs <= new <= run.spec.max_procs:
                raise AssertionError(f"policy sized job {run.spec.id} to {new}")
            delta = new - run.size
            if delta > self.idle[c]:
                raise AssertionError(f"policy over-commits cluster {c}")
            if run.resume > t:
                raise AssertionError(f"job {run.spec.id} resized while adapting")
            self._progress(run, t)
            run.size = new
            self.reclaim[c] += delta
            if delta > 0:
                self.koala[c] += delta
                self.idle[c] -= delta
                run.grows += 1
                self._grows += 1
                run.peak = max(run.peak, new)
            else:
                run.shrinks += 1
                self._shrinks += 1
                if self.overhead:  # released once the job has adapted (Buisson et al. 2007, §5.1)
                    run.pending -= delta
                    self.pending[c] -= delta
                else:
                    self.koala[c] += delta
                    self.idle[c] -= delta
            run.resume = t + self.overhead
            if self.overhead:
                self._push(run.resume, RELEASE, (run, run.version + 1))
            self._plan_finish(run)
        if sizes:
            self._members_version[c] += 1

    def _progress(self, run: _Run, t: int) -> None:
        if t > run.resume:
            run.remaining -= (t - run.resume) / run.time(run.size)
            run.resume = t
        if t > run.last:
            held = run.size + run.pending
            run.area += held * (t - run.last)
            if self._segments is not None:
                self._segments.append(Segment(run.cluster, run.last, t, held, run.spec.id))
            run.last = t

    def _release(self, payload: tuple, t: int) -> None:
        """A job has adapted to its last resize: it hands back what a shrink freed and may be
        resized again."""
        run, version = payload
        if version != run.version or run.finished:
            return
        c = run.cluster
        if run.pending:
            self._progress(run, t)
            self.koala[c] -= run.pending
            self.idle[c] += run.pending
            self.pending[c] -= run.pending
            run.pending = 0
        self._members_version[c] += 1

    def _plan_finish(self, run: _Run) -> None:
        run.version += 1
        left = max(0.0, run.remaining) * run.time(run.size)
        self._push(run.resume + math.ceil(left - 1e-9), FINISH, (run, run.version))

    def _start(self, spec: JobSpec, c: int, t: int, tries: int) -> None:
        app = get_app(spec.app)
        if spec.kind == "moldable":  # size chosen once, from what is idle now
            size = app.settle(spec.min_procs, self._free()[c], spec.min_procs, spec.max_procs)
        else:  # rigid, and malleable at its minimum (Buisson et al. 2007, §6.3: initial size 2)
            size = spec.min_procs
        run = _Run()
        run.spec, run.app, run.cluster, run.size = spec, app, c, size
        run.start = run.resume = run.last = t
        run.remaining, run.version, run.area = 1.0, 0, 0.0
        run.peak, run.grows, run.shrinks, run.tries = size, 0, 0, tries
        run.pending, run.finished = 0, False
        self.koala[c] += size
        self.idle[c] -= size
        if spec.kind == "malleable":
            self.malleable[c][spec.id] = run
            self.reclaim[c] += size - spec.min_procs
            self._members_version[c] += 1
        self._plan_finish(run)

    def _finish(self, run: _Run, t: int) -> None:
        self._progress(run, t)
        c = run.cluster
        run.finished = True
        self.koala[c] -= run.held
        self.idle[c] += run.held
        self.pending[c] -= run.pending
        if run.spec.kind == "malleable":
            del self.malleable[c][run.spec.id]
            self.reclaim[c] -= run.size - run.spec.min_procs
            self._members_version[c] += 1
        span = t - run.start
        spec = run.spec
        self._records.append(
            JobRecord(
                spec.id, spec.app, spec.kind, self.clusters[c].name, spec.submit, run.start, t,
                run.area / span if span > 0 else float(run.size), run.peak, run.grows,
                run.shrinks, run.tries, False,
            )
        )  # fmt: skip
        self._done += 1

    def _fail(self, spec: JobSpec, tries: int) -> None:
        self._records.append(
            JobRecord(
                spec.id, spec.app, spec.kind, None, spec.submit, None, None, None, None, 0, 0,
                tries, True,
            )
        )  # fmt: skip
        self._done += 1


def simulate(jobs: Iterable[JobSpec], clusters: Iterable[ClusterSpec], **kwargs) -> SimResult:
    """Build a :class:`Simulation` (same keyword arguments) and run it."""
    return Simulation(jobs, clusters, **kwargs).run()
