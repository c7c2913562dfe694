"""The best-effort baseline: a workflow submitted "just in time" into the sites' live queues
(thesis §4.7, eq. 16, §4.9).

Tasks are ranked by HEFT upward rank (eq. 7).  A task is submitted to a site's batch queue when
all its parents have finished (tasks that become ready at the same instant are submitted in
HEFT order), with its actual runtime as its estimate (the thesis assumes accurate runtimes for
the workflow).  With several sites the ready task goes to the site with the fewest running +
queued jobs at that instant (ties: the first site), among those large enough for it; when its
parents ran elsewhere it is submitted once their data has arrived there (the latest parent
finish + latency + bytes / bandwidth; no contention), the site having been chosen when it
became ready.

Makespan = the last task's finish − the submission time (the first task is submitted then).
Allocation cost ``AC_BE = Σ n_i · t_i`` over the tasks (eq. 16; in SU), the lower bound of
any provisioned plan's cost.

The trace keeps running around the workflow: each site's simulator is forked at the submission
time (:meth:`Simulator.fork`) so the trace state stays reusable, and the forks are
advanced event by event until the workflow's last task ends.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..cluster.jobs import SimJob
from ..cluster.simulator import Simulator
from ..slots.model import SECONDS_PER_SU
from ..workflows.dag import Workflow
from ..workflows.heft import heft_rank
from .live import system_jobs
from .network import Network

__all__ = ["BestEffortRun", "allocation_cost_best_effort", "run_best_effort"]


@dataclass(frozen=True)
class BestEffortRun:
    """Makespan (s), ``AC_BE`` (SU), and per task: site index, submit, start and finish."""

    makespan: float
    allocation_cost: float
    tasks: dict[str, tuple[int, int, int, int]]


def allocation_cost_best_effort(workflow: Workflow, sites: Sequence[str] | None = None) -> float:
    """Eq. 16: ``Σ n·t`` in SU (runtimes rounded up to whole seconds; the first site's
    runtime when ``sites`` is given — use :func:`run_best_effort` for the sites actually used)."""
    total = 0
    for t in workflow.tasks:
        if t.virtual:
            continue
        rt = t.runtime_on(sites[0]) if sites else t.runtime
        total += t.processors * math.ceil(rt)
    return total / SECONDS_PER_SU


def run_best_effort(
    sims: Sequence[Simulator],
    workflow: Workflow,
    *,
    submit: int,
    sites: Sequence[str] | None = None,
    network: Network | None = None,
    fork: bool = True,
) -> BestEffortRun:
    """Run the workflow just in time on the sites' simulators, from ``submit`` on.

    ``sims`` must stand at or before ``submit`` (they are run up to it).  With ``fork`` (the
    default) they are left untouched and the workflow runs in copies.
    """
    R = len(sims)
    if R < 1:
        raise ValueError("at least one site is needed")
    names = list(sites) if sites is not None else [f"site{r + 1}" for r in range(R)]
    if len(names) != R:
        raise ValueError(f"{len(names)} site names for {R} sites")
    if R > 1 and network is None:
        raise ValueError("several sites need a network (bandwidth and latency)")
    live = [s.fork() if fork else s for s in sims]
    for s in live:
        if s.now > submit:
            raise ValueError(f"a site's simulation is already at {s.now}, after {submit}")
        s.run(until=submit)
    ranking = heft_rank(
        workflow, sites=names, network=network.mean_model() if network and R > 1 else None
    )
    pos = {tid: i for i, tid in enumerate(ranking.order)}
    tasks = [workflow.task(tid) for tid in ranking.order]
    n_tasks = len(tasks)
    procs = [t.processors for t in tasks]
    dur = [[math.ceil(t.runtime_on(name)) for name in names] for t in tasks]
    parents = [[pos[p] for p in workflow.parents(tid)] for tid in ranking.order]
    children = [[pos[c] for c in workflow.children(tid)] for tid in ranking.order]
    data = {
        (pos[e.parent], pos[e.child]): e.data for e in workflow.edges
    }  # bytes per edge, by HEFT positions
    capacity = [s.capacity for s in live]
    for i, t in enumerate(tasks):
        if not t.virtual and max(capacity) < procs[i]:
            raise ValueError(f"task {t.id!r} needs {procs[i]} processors; no site has that many")

    waiting = [len(p) for p in parents]
    finish = [-1] * n_tasks
    site_of = [-1] * n_tasks
    submitted = [-1] * n_tasks
    started = [-1] * n_tasks
    pending: list[tuple[int, int, int]] = []  # heap (submit time, HEFT position, site)
    queued: dict[tuple[int, int], int] = {}  # (site, sim job index) -> task
    running: list[tuple[int, int]] = []  # heap (finish, task)
    extra = [0] * R  # tasks chosen for a site but not yet submitted there
    done = 0

    def release(ready: list[int], now: int) -> None:
        """Send newly ready tasks (HEFT order) to their sites."""
        for i in sorted(ready):
            if tasks[i].virtual:  # a virtual task needs no processor: done when ready
                at = max([submit] + [finish[p] for p in parents[i]])
                heapq.heappush(running, (at, i))
                site_of[i] = site_of[parents[i][0]] if parents[i] else -1
                submitted[i] = started[i] = at
                continue
            fits = [r for r in range(R) if capacity[r] >= procs[i]]
            r = min(fits, key=lambda q: (system_jobs(live[q]) + extra[q], q))
            at = now
            for p in parents[i]:
                sp = site_of[p]
                arrive = finish[p]
                if network is not None and sp >= 0 and sp != r and not tasks[p].virtual:
                    arrive += math.ceil(network.transfer_time(sp, r, data[(p, i)]))
                at = max(at, arrive)
            site_of[i] = r
            extra[r] += 1
            heapq.heappush(pending, (at, i, r))

    release([i for i in range(n_tasks) if not waiting[i]], submit)
    now = submit
    while done < n_tasks:
        candidates = []
        if pending:
            candidates.append(pending[0][0])
        if running:
            candidates.append(running[0][0])
        if queued:
            for r in {r for r, _ in queued}:
                nxt = live[r].next_event_time()
                if nxt is not None:
                    candidates.append(nxt)
        if not candidates:
            raise AssertionError("the best-effort run is stuck")  # cannot happen
        now = max(now, min(candidates))
        while pending and pending[0][0] <= now:
            _, i, r = heapq.heappop(pending)
            extra[r] -= 1
            job = SimJob(0, -(i + 1), now, dur[i][r], dur[i][r], procs[i])
            queued[(r, live[r].submit(job))] = i
            submitted[i] = now
        for s in live:
            s.run(until=now)
        for key in [key for key in queued if live[key[0]].start[key[1]] >= 0]:
            r, k = key
            i = queued.pop(key)
            started[i] = live[r].start[k]
            heapq.heappush(running, (started[i] + dur[i][r], i))
        ready: list[int] = []
        while running and running[0][0] <= now:
            f, i = heapq.heappop(running)
            finish[i] = f
            done += 1
            for c in children[i]:
                waiting[c] -= 1
                if not waiting[c]:
                    ready.append(c)
        if ready:
            release(ready, now)
    makespan = max(finish) - submit if n_tasks else 0
    cost = (
        sum(procs[i] * dur[i][site_of[i]] for i in range(n_tasks) if not tasks[i].virtual)
        / SECONDS_PER_SU
    )
    out = {tasks[i].id: (site_of[i], submitted[i], started[i], finish[i]) for i in range(n_tasks)}
    return BestEffortRun(float(makespan), cost, out)
