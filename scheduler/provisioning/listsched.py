"""List scheduling of a workflow on n dedicated processors (Singh, Kesselman & Deelman 2005, §3.2).

Singh, Kesselman & Deelman 2005 computes the execution time of a workflow on a provisioned set of
processors with a variant of the Earliest Time First algorithm: a ready list seeded with the tasks
without parents; repeatedly take the *first* ready task, its earliest start is the latest finish of
its parents; on each processor its start is the later of that and the processor's free time;
put it on the processor that gives the earliest start; append children that became ready.  The
last processor free time is the workflow's execution time.

Processors are interchangeable, so "the processor with the earliest start" is the one that
becomes free first: a heap of free times makes the whole schedule O(T log n).  A task that
needs q > 1 processors takes the q that become free first and starts when the last of them is
free (all q run it together); a task wider than n makes the request infeasible.  Data
transfers are part of the task times (shared file system, Singh, Kesselman & Deelman 2005, §3.2), so
edges carry no delay here.  Virtual tasks take no time and no processor.

Utilization of a schedule = work / (n · execution time), work = Σ runtime · processors
(Singh, Kesselman & Deelman 2005, §6: 100 %, 62.5 % and 55 % for the three requests of
its Figure 3).

Scheduling interval (``interval`` = I > 0 s): "the implementation of the algorithm considers
the fact that the scheduler only makes scheduling decisions at periodic intervals" (Singh, Kesselman
& Deelman 2005, §3.2).  A task then starts at the first multiple of I (from the request's start) at
or after its earliest start, so a processor that ran a task is next used at the tick after the
task's end: it is *held* ⌈runtime / I⌉ · I.  The execution time is rounded up to a tick (the request
ends when the scheduler sees its last task done) and the utilization counts the held time,
Σ ⌈runtime / I⌉ · I · processors / (n · execution time).  This is what the seed's numbers
imply: 17,034 tasks of 3.1 s on 84 processors for 214 minutes at 94.8 % utilization
(§5.1, §6) is 17,034 / (84 · 214) = 94.76 % — one 60-s interval per task.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from ..workflows.dag import Workflow

__all__ = ["ListSchedule", "TimedDag", "list_schedule", "timed_dag"]


@dataclass(frozen=True)
class TimedDag:
    """A workflow reduced to what list scheduling and the batch queue need (integer seconds).

    ``runtime[i]`` / ``procs[i]`` per task (virtual tasks: 0 s, 0 processors); ``parents`` /
    ``children`` as index tuples; ``roots`` in workflow order.
    """

    runtime: tuple[int, ...]
    procs: tuple[int, ...]
    parents: tuple[tuple[int, ...], ...]
    children: tuple[tuple[int, ...], ...]
    roots: tuple[int, ...]
    virtual: tuple[bool, ...]

    @property
    def work(self) -> int:
        """Processor-seconds of all tasks."""
        return sum(r * p for r, p in zip(self.runtime, self.procs, strict=True))

    @property
    def width(self) -> int:
        """Most processors one task needs."""
        return max(self.procs, default=0)

    def __len__(self) -> int:
        return len(self.runtime)


def timed_dag(workflow: Workflow) -> TimedDag:
    """Integer-second view of ``workflow``: each real task's runtime rounded to the nearest
    second, at least 1 s (the batch simulator counts whole seconds)."""
    tasks = workflow.tasks
    index = {t.id: i for i, t in enumerate(tasks)}
    parents: list[list[int]] = [[] for _ in tasks]
    children: list[list[int]] = [[] for _ in tasks]
    for e in workflow.edges:
        a, b = index[e.parent], index[e.child]
        parents[b].append(a)
        children[a].append(b)
    runtime = tuple(0 if t.virtual else max(1, int(t.runtime + 0.5)) for t in tasks)
    procs = tuple(0 if t.virtual else t.processors for t in tasks)
    return TimedDag(
        runtime,
        procs,
        tuple(tuple(p) for p in parents),
        tuple(tuple(c) for c in children),
        tuple(i for i in range(len(tasks)) if not parents[i]),
        tuple(t.virtual for t in tasks),
    )


@dataclass(frozen=True)
class ListSchedule:
    """Result of :func:`list_schedule`: execution time (s), utilization, task starts."""

    processors: int
    makespan: int
    utilization: float
    start: tuple[int, ...]


def list_schedule(
    dag: TimedDag, n: int, *, keep_starts: bool = False, interval: int = 0
) -> ListSchedule | None:
    """Schedule ``dag`` on ``n`` dedicated processors (Singh, Kesselman & Deelman 2005, §3.2); None
    if a task is wider than ``n``.  ``keep_starts`` returns each task's start (else an empty tuple).
    ``interval`` > 0: tasks start only at its multiples (see the module docstring)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 0:
        raise ValueError(f"interval must be an int >= 0 (seconds), got {interval!r}")
    if interval:
        return _list_schedule_ticks(dag, n, keep_starts, interval)
    if dag.width > n:
        return None
    runtime, procs, parents, children = dag.runtime, dag.procs, dag.parents, dag.children
    missing = [len(p) for p in parents]
    finish = [0] * len(runtime)
    start = [0] * len(runtime) if keep_starts else None
    free = [0] * n  # a heap of processor free times
    heappop, heappush = heapq.heappop, heapq.heappush
    ready = deque(dag.roots)
    end = 0
    while ready:
        i = ready.popleft()
        est = max((finish[p] for p in parents[i]), default=0)
        q = procs[i]
        if q == 0:  # virtual task
            s = est
        elif q == 1:
            f = heappop(free)
            s = f if f > est else est
            heappush(free, s + runtime[i])
        else:
            taken = [heappop(free) for _ in range(q)]
            s = max(est, taken[-1])
            for _ in range(q):
                heappush(free, s + runtime[i])
        finish[i] = s + runtime[i]
        if finish[i] > end:
            end = finish[i]
        if start is not None:
            start[i] = s
        for c in children[i]:
            missing[c] -= 1
            if missing[c] == 0:
                ready.append(c)
    util = dag.work / (n * end) if end > 0 else 1.0
    return ListSchedule(n, end, util, tuple(start) if start is not None else ())


def _list_schedule_ticks(
    dag: TimedDag, n: int, keep_starts: bool, interval: int
) -> ListSchedule | None:
    """:func:`list_schedule` with decisions at multiples of ``interval`` only."""
    runtime, procs, parents, children = dag.runtime, dag.procs, dag.parents, dag.children
    missing = [len(p) for p in parents]
    finish = [0] * len(runtime)
    start = [0] * len(runtime) if keep_starts else None
    free = [0] * n  # a heap of instants each processor can next be given a task
    heappop, heappush = heapq.heappop, heapq.heappush
    ready = deque(dag.roots)
    end = 0
    held = 0
    if dag.width > n:
        return None
    while ready:
        i = ready.popleft()
        est = max((finish[p] for p in parents[i]), default=0)
        q = procs[i]
        if q == 0:  # virtual task: no processor, no tick
            s = est
        else:
            taken = [heappop(free) for _ in range(q)]
            s = max(est, taken[-1])
            s = -(-s // interval) * interval  # the first tick at or after s
            for _ in range(q):
                heappush(free, s + runtime[i])
            held += -(-runtime[i] // interval) * interval * q
        finish[i] = s + runtime[i]
        if finish[i] > end:
            end = finish[i]
        if start is not None:
            start[i] = s
        for c in children[i]:
            missing[c] -= 1
            if missing[c] == 0:
                ready.append(c)
    end = -(-end // interval) * interval
    util = held / (n * end) if end > 0 else 1.0
    return ListSchedule(n, end, util, tuple(start) if start is not None else ())


def request_table(dag: TimedDag, ns: Sequence[int], *, interval: int = 0) -> list[ListSchedule]:
    """:func:`list_schedule` for every feasible ``n`` in ``ns`` (infeasible ones left out)."""
    out = []
    for n in ns:
        s = list_schedule(dag, n, interval=interval)
        if s is not None:
            out.append(s)
    return out


__all__ += ["request_table"]
