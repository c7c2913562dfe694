"""Level-based task clustering of Singh, Kesselman & Deelman 2005 (§4.2 and §4.3, Tables 1 and 2).

Singh, Kesselman & Deelman 2005 restructures the Montage workflow by merging tasks of the same level
(the level algorithm of §4.1: 1 + the highest parent level) into clusters:

- **fixed number of clusters per level** (§4.2): each level's tasks go into
  ``min(k, tasks on the level)`` clusters (k = 1, 2, 4, … 512 in the paper); k is then the
  workflow's maximum parallelism;
- **fixed number of tasks per cluster** (§4.3): each level's tasks go into clusters of ``m``
  tasks (m = 2 … 4096), the last one smaller; m = 1 is the original workflow.

A level's tasks are taken in workflow order and cut into contiguous chunks: as equal as
possible (the first ones one task larger) for a fixed number of clusters; ``m, m, …, rest``
for a fixed cluster size.  A cluster runs its
members one after the other: its runtime is the sum of theirs (also per site), its processor
count the largest of theirs.  Edges are merged: cluster A → cluster B when some member of A is a
parent of some member of B, carrying the sum of those edges' data.  Tasks of one level never
depend on each other, so no edge falls inside a cluster, and every edge still goes from a lower
level to a higher one: the result is acyclic with the same levels, and the same total runtime.

A single-task cluster keeps the original task (same id); a larger one gets the id
``L{level}_c{index}`` (made unique if needed), the name ``"{module} x{size}"`` and the members'
common module (else ``"cluster"``).  Virtual entry/exit tasks are never merged.
"""

from __future__ import annotations

from collections.abc import Callable

from .dag import Edge, Task, Workflow, fresh_id
from .metrics import task_levels

__all__ = ["cluster_fixed_clusters", "cluster_fixed_size", "cluster_levels"]


def _even(n: int, count: int) -> list[int]:
    """``count`` sizes summing to ``n``, as equal as possible (the first ones larger)."""
    size, extra = divmod(n, count)
    return [size + (1 if k < extra else 0) for k in range(count)]


def _fixed(n: int, size: int) -> list[int]:
    """Sizes ``size, size, …, rest`` summing to ``n``."""
    full, rest = divmod(n, size)
    return [size] * full + ([rest] if rest else [])


def _merge(members: list[Task], tid: str) -> Task:
    sites = sorted({s for t in members for s, _ in t.runtimes})
    modules = {t.module for t in members}
    module = modules.pop() if len(modules) == 1 else None
    return Task(
        tid,
        sum(t.runtime for t in members),
        max(t.processors for t in members),
        name=f"{module or 'cluster'} x{len(members)}",
        module=module or "cluster",
        runtimes={s: sum(t.runtime_on(s) for t in members) for s in sites},
    )


def cluster_levels(workflow: Workflow, chunk_sizes: Callable[[int], list[int]]) -> Workflow:
    """Cut each level's n tasks (in workflow order) into chunks of ``chunk_sizes(n)`` tasks."""
    levels = task_levels(workflow)
    by_level: dict[int, list[int]] = {}
    for i, task in enumerate(workflow.tasks):
        if not task.virtual:
            by_level.setdefault(levels[task.id], []).append(i)
    groups: list[tuple[int, int, list[int]]] = []  # (first member, level, members)
    for i, task in enumerate(workflow.tasks):
        if task.virtual:
            groups.append((i, 0, [i]))
    for level, members in by_level.items():
        sizes = chunk_sizes(len(members))
        if sum(sizes) != len(members) or min(sizes) < 1:
            raise ValueError(f"chunk sizes {sizes} do not split {len(members)} tasks")
        start = 0
        for size in sizes:
            chunk = members[start : start + size]
            groups.append((chunk[0], level, chunk))
            start += size
    groups.sort()

    taken = {t.id for t in workflow.tasks}
    group_of: dict[int, int] = {}
    tasks: list[Task] = []
    counters: dict[int, int] = {}
    for g, (_, level, members) in enumerate(groups):
        for i in members:
            group_of[i] = g
        if len(members) == 1:
            tasks.append(workflow.tasks[members[0]])
            continue
        k = counters.get(level, 0)
        counters[level] = k + 1
        tid = fresh_id(f"L{level}_c{k}", taken)
        taken.add(tid)
        tasks.append(_merge([workflow.tasks[i] for i in members], tid))

    data: dict[tuple[int, int], int] = {}
    for edge in workflow.edges:
        key = (group_of[workflow.index(edge.parent)], group_of[workflow.index(edge.child)])
        data[key] = data.get(key, 0) + edge.data
    edges = tuple(Edge(tasks[a].id, tasks[b].id, d) for (a, b), d in data.items())
    return Workflow(tuple(tasks), edges, workflow.name)


def cluster_fixed_clusters(workflow: Workflow, clusters_per_level: int) -> Workflow:
    """Singh, Kesselman & Deelman 2005, §4.2: at most ``clusters_per_level`` clusters on every
    level."""
    if clusters_per_level < 1:
        raise ValueError(f"clusters_per_level must be >= 1, got {clusters_per_level}")
    return cluster_levels(workflow, lambda n: _even(n, min(n, clusters_per_level)))


def cluster_fixed_size(workflow: Workflow, tasks_per_cluster: int) -> Workflow:
    """Singh, Kesselman & Deelman 2005, §4.3: clusters of ``tasks_per_cluster`` tasks on every level
    (last smaller)."""
    if tasks_per_cluster < 1:
        raise ValueError(f"tasks_per_cluster must be >= 1, got {tasks_per_cluster}")
    return cluster_levels(workflow, lambda n: _fixed(n, tasks_per_cluster))
