"""RLScheduler's evaluation protocol: heuristics (and agents) on sampled job sequences.

``compare-pick-jobs.py`` of RLScheduler (Zhang et al., SC'20) draws ``iterations`` sequences of
``length`` consecutive jobs from a trace with a seeded generator (:func:`.sequences.
sequence_starts`), schedules each with every policy from an empty machine, and reports the mean
over the iterations of each sequence's score (the average bounded slowdown of its jobs, by
default).  Their published tables use ``length = 1024``, ``iterations = 10``, ``seed = 1``, and
draw SDSC-SP2's and HPC2N's sequences from the first 10,000 jobs (``make_table_script.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from .env import SchedulingEnv
from .heuristics import HEURISTICS, Priority
from .sequences import Workload, sequence_starts

__all__ = ["Protocol", "evaluate"]


@dataclass(frozen=True)
class Protocol:
    """One evaluation setting (the published one by default)."""

    length: int = 1024
    iterations: int = 10
    seed: int = 1
    #: draw only from the first ``slice_end`` jobs (0: the whole trace)
    slice_end: int = 0

    def starts(self, workload: Workload) -> list[int]:
        return sequence_starts(
            len(workload), self.length, self.iterations, self.seed, self.slice_end
        )


def evaluate(
    workload: Workload,
    protocol: Protocol,
    *,
    heuristics: Iterable[str] | dict[str, Priority] = ("FCFS", "WFP3", "UNICEP", "SJF", "F1"),
    agents: dict[str, Callable] | None = None,
    backfill: bool | str = False,
    metric: str = "bsld",
    queue_size: int = 128,
) -> dict[str, float]:
    """The mean score of each heuristic (a name of :data:`.heuristics.HEURISTICS`, or
    ``{name: priority(s, r, n, now)}`` for your own) and each agent (``act(observation, mask)
    -> action``, through an environment showing ``queue_size`` jobs) over the protocol's
    sequences: ``{name: mean}``."""
    env = SchedulingEnv(
        workload, sequence_length=protocol.length, queue_size=queue_size, backfill=backfill,
        metric=metric,
    )  # fmt: skip
    starts = protocol.starts(workload)
    out: dict[str, float] = {}
    if not isinstance(heuristics, dict):
        unknown = [h for h in heuristics if h not in HEURISTICS]
        if unknown:
            raise ValueError(f"unknown heuristic {unknown[0]!r}: one of {', '.join(HEURISTICS)}")
        heuristics = {h: HEURISTICS[h] for h in heuristics}
    for name, fn in heuristics.items():
        out[name] = float(np.mean([env.run_priority(fn, s)[metric] for s in starts]))
    for name, act in (agents or {}).items():
        out[name] = float(np.mean([env.run_agent(act, s)[metric] for s in starts]))
    return out
