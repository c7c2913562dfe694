"""List scheduling of a workflow on n dedicated processors (SPEC §8; seed 003 §3.2).

Seed 003 computes the execution time of a workflow on a provisioned set of processors with a
variant of the Earliest Time First algorithm: a ready list seeded with the tasks without
parents; repeatedly take the *first* ready task, its earliest start is the latest finish of
its parents; on each processor its start is the later of that and the processor's free time;
put it on the processor that gives the earliest start; append children that became ready.  The
last processor free time is the workflow's execution time.

Processors are interchangeable, so "the processor with the earliest start" is the one that
becomes free first: a heap of free times makes the whole schedule O(T log n).  A task that
needs q > 1 processors takes the q that become free first and starts when the last of them is
free (all q run it together); a task wider than n makes the request infeasible.  Data
transfers are part of the task times (shared file system, seed 003 §3.2), so edges carry no
delay here.  Virtual tasks take no time and no processor.

Utilization of a schedule = work / (n · execution time), work = Σ runtime · processors
(seed 003 §6: 100 %, 62.5 % and 55 % for the three requests of its Figure 3).
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


def list_schedule(dag: TimedDag, n: int, *, keep_starts: bool = False) -> ListSchedule | None:
    """Schedule ``dag`` on ``n`` dedicated processors (seed 003 §3.2); None if a task is wider
    than ``n``.  ``keep_starts`` returns each task's start (else an empty tuple)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
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


def request_table(dag: TimedDag, ns: Sequence[int]) -> list[ListSchedule]:
    """:func:`list_schedule` for every feasible ``n`` in ``ns`` (infeasible ones left out)."""
    out = []
    for n in ns:
        s = list_schedule(dag, n)
        if s is not None:
            out.append(s)
    return out


__all__ += ["request_table"]
