"""Random layered workflows: the synthetic application of thesis §4.7 (Figure 12).

The thesis used "a parameterized task graph generator": 100 tasks with an average runtime of
1000 s, 10 levels "with 10 tasks at each level on the average", 22 processors per task on
average for CTC-SP2 (6 for SDSC-SP2); §4.7 also varies the size (100–400 tasks, depth √n) and
the task size (3–30 processors); §4.9 adds data on edges (mean 1000 Gb).  The thesis
does not give the distributions; these are ours, chosen so that every mean is exact:

- **Level sizes**: every level gets one task, the other ``tasks − levels`` tasks each go to a
  level drawn uniformly (a multinomial split), so a level holds ``tasks / levels`` on average.
- **Parents**: a task on level k ≥ 2 draws q uniformly from {1, …, 2p − 1} (mean p =
  ``parents_per_task``), capped at the size of level k − 1, and takes q distinct parents drawn
  uniformly from level k − 1.  Every task below level 1 thus has a parent on the level just
  above, so the longest path has exactly ``levels`` tasks.
- **Runtime**: uniform on [0.5, 1.5] × ``mean_runtime``, rounded to whole seconds (≥ 1 s).
- **Processors**: uniform on the integers {1, …, 2n − 1} (mean n = ``mean_processors``);
  ``max_processors`` (e.g. the site size) clips the draw, which lowers the mean.
- **Edge data**: uniform on [0, 2d] bytes (mean d = ``mean_data``); none by default.

The generator is seeded (:class:`random.Random`): the same arguments give the same workflow.
"""

from __future__ import annotations

import math
import random

from ..bounds import MAX_BYTES_DATA, MAX_PROCS, MAX_SECONDS, MAX_TASKS, check_number
from .dag import DEFAULT_MAX_EDGES, DEFAULT_MAX_TASKS, Edge, Task, Workflow

__all__ = ["generate_layered"]


def _upper(mean: float) -> int:
    """The largest value of a uniform integer draw on {1, …, u} with the given mean."""
    return max(1, round(2 * mean - 1))


def generate_layered(
    tasks: int = 100,
    levels: int = 10,
    *,
    mean_runtime: float = 1000.0,
    mean_processors: float = 22.0,
    parents_per_task: float = 2.0,
    max_processors: int | None = None,
    mean_data: float = 0.0,
    seed: int = 0,
    name: str | None = None,
) -> Workflow:
    """A seeded random layered workflow (thesis §4.7; defaults = its CTC-SP2 setup)."""
    if not 1 <= tasks <= DEFAULT_MAX_TASKS:
        raise ValueError(f"tasks must be between 1 and {DEFAULT_MAX_TASKS}, got {tasks}")
    if not 1 <= levels <= tasks:
        raise ValueError(f"levels must be between 1 and the number of tasks, got {levels}")
    if not (math.isfinite(mean_runtime) and mean_runtime >= 1):
        raise ValueError(f"mean_runtime must be >= 1 s, got {mean_runtime}")
    if not (math.isfinite(mean_processors) and mean_processors >= 1):
        raise ValueError(f"mean_processors must be >= 1, got {mean_processors}")
    if not (math.isfinite(parents_per_task) and parents_per_task >= 1):
        raise ValueError(f"parents_per_task must be >= 1, got {parents_per_task}")
    if max_processors is not None and max_processors < 1:
        raise ValueError(f"max_processors must be >= 1, got {max_processors}")
    if not (math.isfinite(mean_data) and mean_data >= 0):
        raise ValueError(f"mean_data must be >= 0 bytes, got {mean_data}")
    # physical bounds (scheduler.bounds): refused before anything is drawn
    check_number(mean_runtime, "mean_runtime", hi=MAX_SECONDS)
    check_number(mean_processors, "mean_processors", hi=MAX_PROCS)
    check_number(parents_per_task, "parents_per_task", hi=MAX_TASKS)
    check_number(mean_data, "mean_data", hi=MAX_BYTES_DATA)
    if max_processors is not None:
        check_number(max_processors, "max_processors", lo=1, hi=MAX_PROCS, integer=True)

    rng = random.Random(seed)
    sizes = [1] * levels
    for _ in range(tasks - levels):
        sizes[rng.randrange(levels)] += 1
    parent_hi = _upper(parents_per_task)
    most_edges = sum(min(parent_hi, a) * b for a, b in zip(sizes, sizes[1:], strict=False))
    if most_edges > DEFAULT_MAX_EDGES:
        raise ValueError(
            f"parents_per_task: up to {most_edges} dependencies for {tasks} tasks on {levels} "
            f"levels; at most {DEFAULT_MAX_EDGES} are allowed (lower parents_per_task or tasks)"
        )

    width = len(str(tasks - 1))
    proc_hi = _upper(mean_processors)
    task_list: list[Task] = []
    edges: list[Edge] = []
    previous: list[str] = []
    for level, size in enumerate(sizes, start=1):
        current: list[str] = []
        for _ in range(size):
            tid = f"t{len(task_list):0{width}d}"
            runtime = max(1, round(mean_runtime * rng.uniform(0.5, 1.5)))
            procs = rng.randint(1, proc_hi)
            if max_processors is not None:
                procs = min(procs, max_processors)
            task_list.append(Task(tid, runtime, procs, module=f"level{level}"))
            if previous:
                count = min(rng.randint(1, parent_hi), len(previous))
                for parent in sorted(rng.sample(previous, count)):
                    data = round(rng.uniform(0, 2 * mean_data)) if mean_data else 0
                    edges.append(Edge(parent, tid, data))
            current.append(tid)
        previous = current
    label = name or f"layered-{tasks}x{levels}-seed{seed}"
    return Workflow(tuple(task_list), tuple(edges), label)
