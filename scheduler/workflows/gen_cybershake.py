"""The CyberShake seismic-hazard workflow of thesis §4.8 (Table 2, Figure 17).

Five levels and 8,039 tasks with the default 4017 synthSGT/peakValCal pairs:

==========  ==============  =====  ==============  ==========
level       module          tasks  mean runtime s  processors
==========  ==============  =====  ==============  ==========
1           fd_grid_xyz         1               1           1
2           preSGT              1             300           1
2           fd_grid_cvm         1            2100         288
3           pmvl_chk1           1           86400         288
3           pmvl_chk2           1           86400         288
4           synthSGT         4017             519           1
5           peakValCal       4017               1           1
==========  ==============  =====  ==============  ==========

Edges (Figure 17, whose levels are numbered 0–4): fd_grid_xyz → preSGT and fd_grid_cvm; both
of those → pmvl_chk1 and pmvl_chk2 (the two SGT components); both pmvl_chk → every synthSGT
(a seismogram needs both components); synthSGT_i → peakValCal_i.  The thesis notes that levels
2 and 3 hold the parallel tasks and levels 4 and 5 the 4017 synthSGT and peakValCal tasks;
with the grid generation first and preSGT beside fd_grid_cvm, this is the shape with 5 levels.

Runtimes are the table's means exactly; ``runtime_jitter`` = j > 0 instead draws each runtime
uniformly on [1 − j, 1 + j] × mean (seeded, rounded to 0.01 s).  ``edge_data`` bytes are put on
every edge (0 by default: the thesis ran CyberShake on one cluster).
"""

from __future__ import annotations

import math
import random

from ..bounds import MAX_BYTES_DATA, check_number
from .dag import Edge, Task, Workflow

__all__ = ["CYBERSHAKE_MODULES", "generate_cybershake"]

#: module → (mean runtime s, processors), thesis Table 2.
CYBERSHAKE_MODULES: dict[str, tuple[float, int]] = {
    "fd_grid_xyz": (1.0, 1),
    "preSGT": (300.0, 1),
    "fd_grid_cvm": (2100.0, 288),
    "pmvl_chk1": (86400.0, 288),
    "pmvl_chk2": (86400.0, 288),
    "synthSGT": (519.0, 1),
    "peakValCal": (1.0, 1),
}


def generate_cybershake(
    pairs: int = 4017,
    *,
    runtime_jitter: float = 0.0,
    edge_data: int = 0,
    seed: int = 0,
    name: str | None = None,
) -> Workflow:
    """The CyberShake workflow: 5 + 2·``pairs`` tasks (8,039 by default), 5 levels."""
    if not 1 <= pairs <= 49_000:
        raise ValueError(f"pairs must be between 1 and 49000, got {pairs}")
    if not (math.isfinite(runtime_jitter) and 0 <= runtime_jitter < 1):
        raise ValueError(f"runtime_jitter must be in [0, 1), got {runtime_jitter}")
    if edge_data < 0:
        raise ValueError(f"edge_data must be >= 0 bytes, got {edge_data}")
    check_number(edge_data, "edge_data", hi=MAX_BYTES_DATA)  # scheduler.bounds
    rng = random.Random(seed)

    def task(tid: str, module: str) -> Task:
        mean, procs = CYBERSHAKE_MODULES[module]
        runtime = mean
        if runtime_jitter:
            runtime = round(mean * rng.uniform(1 - runtime_jitter, 1 + runtime_jitter), 2)
        return Task(tid, runtime, procs, module=module)

    tasks = [task(m, m) for m in ("fd_grid_xyz", "preSGT", "fd_grid_cvm", "pmvl_chk1", "pmvl_chk2")]
    pairs_edges = [
        ("fd_grid_xyz", "preSGT"),
        ("fd_grid_xyz", "fd_grid_cvm"),
        ("preSGT", "pmvl_chk1"),
        ("preSGT", "pmvl_chk2"),
        ("fd_grid_cvm", "pmvl_chk1"),
        ("fd_grid_cvm", "pmvl_chk2"),
    ]
    width = len(str(pairs))
    synth = [f"synthSGT_{i:0{width}d}" for i in range(1, pairs + 1)]
    peak = [f"peakValCal_{i:0{width}d}" for i in range(1, pairs + 1)]
    tasks.extend(task(s, "synthSGT") for s in synth)
    tasks.extend(task(p, "peakValCal") for p in peak)
    for s, p in zip(synth, peak, strict=True):
        pairs_edges.append(("pmvl_chk1", s))
        pairs_edges.append(("pmvl_chk2", s))
        pairs_edges.append((s, p))
    edges = tuple(Edge(a, b, edge_data) for a, b in pairs_edges)
    return Workflow(tuple(tasks), edges, name or f"cybershake-{pairs}")
