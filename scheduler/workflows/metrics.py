"""Shape metrics of a workflow: levels, critical path, average parallelism (Singh, Kesselman &
Deelman 2005, §4).

- **Level** of a task: 1 for a task without parents, else 1 + the highest level of its parents
  (the level algorithm of Singh, Kesselman & Deelman 2005, §4.1, from Kumar Jain & Rajaraman).  The
  workflow's number of levels is the longest path counted in tasks.  Virtual entry/exit tasks count
  for nothing.
- **Critical path**: the longest path weighted by task runtimes only (no data transfer), in
  seconds.
- **Average parallelism** (Singh, Kesselman & Deelman 2005, §4, after Eager, Zahorjan & Lazowska):
  total runtime divided by the critical path.  ``None`` when the critical path is 0 s (every task
takes no time).
- **Maximum parallelism**: the widest level — for a graph clustered with a fixed number of
  clusters per level this is the clustering parameter (Singh, Kesselman & Deelman 2005, §4.2).

All functions walk the DAG once in topological order: O(V + E).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dag import Task, Workflow

__all__ = [
    "average_parallelism",
    "critical_path",
    "critical_path_tasks",
    "level_count",
    "summarize",
    "task_levels",
    "tasks_per_level",
    "total_runtime",
]


def _heaviest_paths(workflow: Workflow, weight: Callable[[Task], Any], zero: Any) -> list[Any]:
    """Per task, the largest sum of ``weight`` over a path from an entry task to it."""
    parents = workflow.parent_indices
    tasks = workflow.tasks
    out = [zero] * len(tasks)
    for i in workflow.topological_indices:
        out[i] = max((out[p] for p in parents[i]), default=zero) + weight(tasks[i])
    return out


def _levels(workflow: Workflow) -> list[int]:
    return _heaviest_paths(workflow, lambda t: 0 if t.virtual else 1, 0)


def task_levels(workflow: Workflow) -> dict[str, int]:
    """Level of every task (1-based; a virtual entry task has level 0)."""
    return {t.id: lv for t, lv in zip(workflow.tasks, _levels(workflow), strict=True)}


def level_count(workflow: Workflow) -> int:
    """Number of levels: the longest path, counted in (real) tasks."""
    return max(_levels(workflow), default=0)


def tasks_per_level(workflow: Workflow) -> list[int]:
    """``result[k]`` = number of real tasks at level k + 1."""
    levels = _levels(workflow)
    counts = [0] * max(levels, default=0)
    for task, lv in zip(workflow.tasks, levels, strict=True):
        if not task.virtual:
            counts[lv - 1] += 1
    return counts


def _finish_times(workflow: Workflow) -> list[float]:
    """Earliest finish of each task with unlimited processors and free transfers."""
    return _heaviest_paths(workflow, lambda t: t.runtime, 0.0)


def critical_path(workflow: Workflow) -> float:
    """Length in seconds of the longest runtime-weighted path."""
    return max(_finish_times(workflow), default=0.0)


def critical_path_tasks(workflow: Workflow) -> list[str]:
    """The real tasks of one longest path, entry to exit (ties: the first-listed parent)."""
    finish = _finish_times(workflow)
    parents = workflow.parent_indices
    tasks = workflow.tasks
    node = max(range(len(tasks)), key=lambda i: (finish[i], -i))
    path = [node]
    while parents[node]:
        node = max(parents[node], key=lambda p: (finish[p], -p))
        path.append(node)
    return [tasks[i].id for i in reversed(path) if not tasks[i].virtual]


def total_runtime(workflow: Workflow) -> float:
    """Sum of the runtimes of all tasks (seconds)."""
    return sum(t.runtime for t in workflow.tasks)


def average_parallelism(workflow: Workflow) -> float | None:
    """Total runtime / critical path, or None when the critical path is 0."""
    cp = critical_path(workflow)
    if cp <= 0:
        return None
    return total_runtime(workflow) / cp


def summarize(workflow: Workflow) -> dict[str, Any]:
    """The figures shown by ``workflow-info`` and the portal preview (plain JSON).

    Keys: ``tasks`` (real tasks), ``edges`` (distinct parent→child pairs between real tasks),
    ``levels``, ``critical_path`` (s), ``average_parallelism``, then ``total_runtime`` (s),
    ``tasks_per_level``, ``max_parallelism`` (widest level), ``roots``, ``sinks``,
    ``max_processors``, ``total_data`` (bytes on edges) and ``name``.  Seconds and the
    parallelism are rounded to 6 decimals (float sums of file runtimes carry noise).
    """
    real = workflow.real_tasks
    virtual = {t.id for t in workflow.tasks if t.virtual}
    edges = [e for e in workflow.edges if e.parent not in virtual and e.child not in virtual]
    per_level = tasks_per_level(workflow)
    cp = critical_path(workflow)
    total = total_runtime(workflow)
    has_parent = {e.child for e in edges}
    has_child = {e.parent for e in edges}
    return {
        "tasks": len(real),
        "edges": len(edges),
        "levels": len(per_level),
        "critical_path": round(cp, 6),
        "average_parallelism": round(total / cp, 6) if cp > 0 else None,
        "total_runtime": round(total, 6),
        "tasks_per_level": per_level,
        "max_parallelism": max(per_level, default=0),
        "roots": sum(1 for t in real if t.id not in has_parent),
        "sinks": sum(1 for t in real if t.id not in has_child),
        "max_processors": max((t.processors for t in real), default=0),
        "total_data": sum(e.data for e in edges),
        "name": workflow.name,
        **({"notes": list(workflow.notes)} if workflow.notes else {}),
    }
