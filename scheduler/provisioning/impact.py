"""Workflow completion time without provisioning, with advance reservation and with dynamic
provisioning (Singh, Kesselman & Deelman 2005, §2, §3 and §6).

The site is a :class:`~scheduler.cluster.simulator.Simulator` replaying a trace under a local
policy ("fcfs", "fairshare", "fairshare-cb"), run up to the workflow's submission instant ``T``
(:func:`site_at`).  Everything below starts from copies of that state (``Simulator.fork``):

* **none** (:func:`run_without_provisioning`) — the workflow's tasks go through the queue as
  they become ready, at most ``limit`` (100) submitted and unfinished at once; completion = last
  task end − T.  The trace keeps arriving and jobs end at their actual runtimes.
* **advance reservation** (:func:`reservation_start`) — the earliest start the scheduler would
  grant: a copy in which every job runs exactly its requested time and nothing arrives after T,
  the request (n processors for its execution time) submitted at T as a job; its start there is
  the reservation's start (Singh, Kesselman & Deelman 2005, §3.1: "the reservation can be made
  taking the current scheduling policy into account").  The probe is an ordinary job of the policy:
  it gets no start-time advantage over the same job submitted to the queue (§1) and, under a
  priority policy, the rank the policy gives it — which is why the seed finds advance reservation
  and dynamic provisioning "pretty close" under fair share and backfilling ("due to the
  possibility of out-of-order execution", §5.1).  Under FIFO it waits behind every queued job,
  so no queued job is delayed (§3.1).  Completion = start − T + execution time.
* **dynamic provisioning** (:func:`pilot_start`) — the same request submitted at T as a pilot
  job (Condor glidein) into a copy that goes on with the actual runtimes and arrivals;
  completion = its actual start − T + execution time (Singh, Kesselman & Deelman 2005, §3.3).

Request selection (Singh, Kesselman & Deelman 2005, §3.2, §6): for n = n_min … n_max the execution
time on n dedicated processors by list scheduling (:mod:`.listsched`); the request maximising
utilization^x / completion (x = 0: minimum completion) is chosen per x; ties go to fewer
processors.  Workflow tasks and pilot jobs belong to one user of their own (:data:`WF_USER`), who
has no history at T — what the fair-share priority sees.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..cluster.fairshare import FairShareWeights
from ..cluster.jobs import SimJob
from ..cluster.simulator import Simulator
from .listsched import ListSchedule, TimedDag, list_schedule

__all__ = [
    "WF_USER",
    "Candidate",
    "Selection",
    "pessimistic_copy",
    "pilot_start",
    "reservation_start",
    "run_without_provisioning",
    "select",
    "site_at",
    "evaluate_requests",
]

#: The workflow owner's user id (SWF users are >= 1, unknown is -1).
WF_USER = -2


def site_at(
    jobs: Sequence[SimJob],
    procs: int,
    policy: str,
    T: int,
    *,
    weights: FairShareWeights | None = None,
    progress: Callable[[float, str], None] | None = None,
    interval: int = 0,
) -> Simulator:
    """A site replaying ``jobs`` under ``policy``, run through every event at instants <= T.
    ``interval`` > 0: the scheduler starts queued jobs only every ``interval`` seconds
    (Singh, Kesselman & Deelman 2005, §3.2; :class:`~scheduler.cluster.simulator.Simulator`); every
    fork inherits it."""
    sim = Simulator(jobs, procs, policy, interval=interval)
    if weights is not None:
        configure = getattr(sim.policy, "configure", None)
        if configure is None:
            raise ValueError(f"policy {policy!r} takes no weights")
        configure(weights)
    sim.run(until=T, progress=progress)
    return sim


def _step_until_started(sim: Simulator, k: int) -> int:
    """Run ``sim`` event by event until job ``k`` starts; return its start."""
    start = sim.start
    while start[k] < 0:
        t = sim.next_event_time()
        if t is None:
            raise RuntimeError(f"job {k} never starts: the simulation ran out of events")
        sim.run(until=t)
    return start[k]


def _job(T: int, n: int, d: int) -> SimJob:
    return SimJob(-1, -1, T, d, d, n, False, WF_USER)


def pessimistic_copy(sim: Simulator) -> Simulator:
    """A copy of ``sim`` in which every job runs its requested time and no job arrives after
    now: what the scheduler itself can predict (Singh, Kesselman & Deelman 2005, §3.1;
    :meth:`Simulator.pessimistic`)."""
    return sim.pessimistic()


def reservation_start(
    pessimistic: Simulator, T: int, n: int, d: int, *, behind_queue: bool = False
) -> int:
    """Earliest start the scheduler grants a reservation of ``n`` processors for ``d`` s asked
    at ``T`` (simulated in a copy of ``pessimistic``; see :func:`pessimistic_copy`): the start
    of the request submitted as a job under the site's policy (Singh, Kesselman & Deelman 2005,
    §3.1).

    ``behind_queue``: rank the probe below every queued job under a priority policy (a
    stricter reading of "no currently queued job would get delayed"; not the seed's
    simulation, kept to measure what that reading changes)."""
    f = pessimistic.fork()
    k = f.submit(_job(T, n, d))
    if behind_queue:
        rank_last = getattr(f.policy, "rank_last", None)
        if rank_last is not None:
            rank_last(k)
    return _step_until_started(f, k)


def pilot_start(site: Simulator, T: int, n: int, d: int) -> int:
    """Actual start of a pilot job of ``n`` processors for ``d`` s submitted at ``T``."""
    f = site.fork()
    k = f.submit(_job(T, n, d))
    return _step_until_started(f, k)


@dataclass(frozen=True)
class NoProvisioning:
    """Outcome of the none model: completion (s after T) and the tasks' total queue wait."""

    completion: int
    total_wait: int
    tasks: int


def run_without_provisioning(
    site: Simulator, dag: TimedDag, T: int, limit: int = 100, *, walltime: int = 0
) -> NoProvisioning:
    """Submit the workflow's tasks into a copy of ``site`` as they become ready, at most
    ``limit`` of them submitted and unfinished at once (Singh, Kesselman & Deelman 2005, §2).  Each
    task asks the scheduler for ``max(runtime, walltime)`` seconds (0: its runtime; the seed does
    not say what the workflow's tasks request)."""
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    if isinstance(walltime, bool) or not isinstance(walltime, int) or walltime < 0:
        raise ValueError(f"walltime must be an int >= 0 (seconds), got {walltime!r}")
    sim = site.fork()
    runtime, procs, children = dag.runtime, dag.procs, dag.children
    missing = [len(p) for p in dag.parents]
    ready = deque(dag.roots)
    waiting: dict[int, int] = {}  # simulator job -> task, submitted and not started
    running: list[tuple[int, int]] = []  # heap of (end, task)
    state = {"in_system": 0, "done": 0, "last": T}
    total_wait = 0

    def finish(i: int, t: int) -> None:
        state["done"] += 1
        if t > state["last"]:
            state["last"] = t
        for c in children[i]:
            missing[c] -= 1
            if missing[c] == 0:
                ready.append(c)

    def release(t: int) -> None:
        while ready and state["in_system"] < limit:
            i = ready.popleft()
            if procs[i] == 0:  # virtual: done at once
                finish(i, t)
                continue
            r = runtime[i]
            job = SimJob(-1, -(i + 1), t, r, max(r, walltime), procs[i], False, WF_USER)
            k = sim.submit(job)
            waiting[k] = i
            state["in_system"] += 1

    release(T)
    total = len(runtime)
    start = sim.start
    while state["done"] < total:
        if waiting:
            t = sim.next_event_time()
            if t is None:
                raise RuntimeError("workflow tasks wait but the simulation ran out of events")
        elif running:
            t = running[0][0]  # nothing of ours waits: jump to our next completion
        else:
            raise RuntimeError("workflow stalled (no task ready, waiting or running)")
        sim.run(until=t)
        for k in [k for k in waiting if start[k] >= 0]:
            i = waiting.pop(k)
            total_wait += start[k] - sim.submit_time[k]
            heapq.heappush(running, (start[k] + runtime[i], i))
        while running and running[0][0] <= t:
            end, i = heapq.heappop(running)
            state["in_system"] -= 1
            finish(i, end)
        release(t)
    return NoProvisioning(state["last"] - T, total_wait, sum(1 for p in procs if p))


@dataclass(frozen=True)
class Candidate:
    """One request: n processors for ``makespan`` s; advance-reservation wait and completion."""

    n: int
    makespan: int
    utilization: float
    ar_wait: int

    @property
    def ar_completion(self) -> int:
        return self.ar_wait + self.makespan


@dataclass(frozen=True)
class Selection:
    """The request chosen for metric exponent ``x`` and its completion under both models."""

    x: int
    candidate: Candidate
    dp_wait: int

    @property
    def dp_completion(self) -> int:
        return self.dp_wait + self.candidate.makespan


def evaluate_requests(
    pessimistic: Simulator,
    dag: TimedDag,
    T: int,
    ns: Sequence[int],
    *,
    cache: dict[tuple[int, int], int] | None = None,
    progress: Callable[[float, str], None] | None = None,
    interval: int = 0,
) -> list[Candidate]:
    """Every feasible request n in ``ns`` with its list-scheduled execution time and its
    advance-reservation wait.  ``cache`` maps (n, duration) to a start already simulated on the
    same ``pessimistic`` site (requests of equal shape recur across clusterings).
    ``interval``: the list schedule's decision interval (:func:`.listsched.list_schedule`)."""
    out = []
    cache = {} if cache is None else cache
    for j, n in enumerate(ns):
        s: ListSchedule | None = list_schedule(dag, n, interval=interval)
        if s is None:
            continue
        d = max(1, s.makespan)
        key = (n, d)
        if key not in cache:
            cache[key] = reservation_start(pessimistic, T, n, d)
        out.append(Candidate(n, s.makespan, s.utilization, cache[key] - T))
        if progress is not None:
            progress((j + 1) / len(ns), f"request {n} processors")
    return out


def select(candidates: Sequence[Candidate], x: int) -> Candidate:
    """The candidate maximising utilization^x / completion (ties: fewer processors)."""
    if not candidates:
        raise ValueError("no feasible request")

    def score(c: Candidate) -> float:
        return (c.utilization**x) / max(c.ar_completion, 1)

    return max(candidates, key=lambda c: (score(c), -c.n))
