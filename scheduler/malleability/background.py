"""Background load of local users on each cluster (Buisson et al. 2007, §5.2 and §6.3).

Local users submit straight to a cluster's own resource manager (SGE on DAS-3), bypassing KOALA.
We model them as a Poisson stream of small rigid jobs per cluster whose offered load is a given
fraction of the cluster; the local manager starts them in FCFS order whenever enough processors
are idle (it never takes processors KOALA holds).  KOALA keeps ``threshold`` processors per
cluster out of its growth decisions so that local users usually find room (§5.2).

Each cluster draws from its own ``random.Random`` seeded from the run's seed and the cluster
number, so the stream of one cluster does not depend on what happens on another.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .model import ModelError

__all__ = ["BackgroundLoad", "LocalStream"]


@dataclass(frozen=True, slots=True)
class BackgroundLoad:
    """Offered load as a fraction of each cluster; local jobs of 1..``max_procs`` processors
    (uniform) running an exponential time of mean ``mean_runtime`` seconds."""

    load: float = 0.0
    max_procs: int = 4
    mean_runtime: int = 300

    def __post_init__(self) -> None:
        if not 0.0 <= self.load < 1.0:
            raise ModelError("background_load", f"load {self.load} must be in [0, 1)")
        if self.max_procs < 1 or self.mean_runtime < 1:
            raise ModelError("background_load", "local jobs need >= 1 processor and second")


class LocalStream:
    """The local jobs of one cluster: ``next()`` returns (gap to next arrival, size, runtime)."""

    __slots__ = ("_rng", "_rate", "_max", "_mean")

    def __init__(self, load: BackgroundLoad, capacity: int, seed: int, cluster: int) -> None:
        self._rng = random.Random(seed * 7919 + 104_729 * (cluster + 1))
        self._max = min(load.max_procs, capacity)
        self._mean = load.mean_runtime
        # offered load = rate * E[size] * E[runtime]
        self._rate = load.load * capacity / ((1 + self._max) / 2 * self._mean)

    def next(self) -> tuple[int, int, int]:
        rng = self._rng
        gap = max(1, round(rng.expovariate(self._rate)))
        size = rng.randint(1, self._max)
        runtime = max(1, round(rng.expovariate(1.0 / self._mean)))
        return gap, size, runtime
