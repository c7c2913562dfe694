"""The time-stepped grid simulation shared by every enforcement strategy
(Dumitrescu, Wilde & Foster 2005).

Each step ``k`` covers ``[t, t + step)`` with ``t = k · step``:

1. jobs submitted at or before ``t`` reach their VO's submission host (Dumitrescu, Wilde & Foster
   2005, slide 19: "submitted by a user to a submission host"); a job that no site could ever run is
rejected;
2. the strategy's grid-level dispatcher sends jobs from the hosts to sites ("submitted by a
   submission host to a site, but queued or held");
3. each site's enforcement point (S-PEP, or the local resource manager) starts, resumes and
   suspends jobs;
4. running jobs progress and the usage ledger records the CPU-seconds of each VO and group at
   each site; finished jobs leave ("completed").

Freed processors are reused from the next step on.  Every ordering breaks ties by job id and
site / node order, so a run is deterministic.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .shares import GridModel
from .state import REJECTED, JobRun, SiteState
from .workload import UsageJob

__all__ = ["GridState", "SimOutcome", "Strategy", "simulate"]


class GridState:
    """Everything a strategy looks at: the model, the sites and the submission hosts."""

    def __init__(self, model: GridModel, step: int):
        self.model = model
        self.step = step
        self.sites = [SiteState(s, step) for s in model.sites]
        # host[v][key] = FCFS list of the jobs of VO v (key: its group node, or v itself)
        self.host: dict[int, dict[int, list[JobRun]]] = {
            v: {key: [] for key in (model.groups_of[v] or (v,))} for v in model.vo_nodes
        }

    def host_key(self, job: JobRun) -> int:
        return job.vo if job.grp is None else job.grp


class Strategy(ABC):
    """An enforcement strategy: a grid dispatcher and a per-site pass."""

    name = ""
    title = ""

    def feasible(self, grid: GridState, job: JobRun) -> bool:
        """Could some site ever run ``job``?  Default: a member site with enough CPUs."""
        return any(s.shares.member[job.vo] and job.procs <= s.cpus for s in grid.sites)

    @abstractmethod
    def dispatch(self, grid: GridState, t: int, k: int) -> None:
        """Send (or hold) the jobs waiting at the VOs' submission hosts at ``t``."""

    @abstractmethod
    def site_pass(self, grid: GridState, site: SiteState, t: int, k: int) -> None:
        """Decide at ``site`` which queued jobs start (and which are suspended) at ``t``."""


@dataclass
class SimOutcome:
    """What a run leaves for the metrics: usage per site and node, and every job."""

    strategy: str
    step: int
    steps: int
    usage: list[np.ndarray]  # per site: (nodes, steps) CPU-seconds
    jobs: list[JobRun]
    releases: int
    suspensions: int

    @property
    def horizon(self) -> int:
        return self.steps * self.step


def simulate(
    model: GridModel,
    jobs: Sequence[UsageJob],
    strategy: Strategy,
    *,
    horizon: int,
    step: int = 1,
    on_step: Callable[[float], None] | None = None,
) -> SimOutcome:
    """Run ``jobs`` on the grid of ``model`` under ``strategy`` for ``horizon`` seconds.

    ``on_step(fraction)`` is called about 50 times during the run (it may raise to cancel).
    """
    grid = GridState(model, step)
    runs = [
        JobRun(j, model.path(j.vo, j.group)) for j in sorted(jobs, key=lambda j: (j.submit, j.id))
    ]
    steps = max(1, -(-horizon // step))
    every = max(1, steps // 50)
    nxt = 0
    for k in range(steps):
        t = k * step
        while nxt < len(runs) and runs[nxt].job.submit <= t:
            job = runs[nxt]
            nxt += 1
            if strategy.feasible(grid, job):
                grid.host[job.vo].setdefault(grid.host_key(job), []).append(job)
            else:
                job.state = REJECTED
        strategy.dispatch(grid, t, k)
        for site in grid.sites:
            strategy.site_pass(grid, site, t, k)
        for site in grid.sites:
            site.advance(k, t)
        if on_step is not None and k % every == 0:
            on_step(k / steps)
    return SimOutcome(
        strategy=strategy.name,
        step=step,
        steps=steps,
        usage=[
            np.asarray(s.usage, dtype=float).reshape(len(model.nodes), steps) for s in grid.sites
        ],
        jobs=runs[:nxt],  # jobs submitted after the horizon never arrived: not counted
        releases=sum(s.releases for s in grid.sites),
        suspensions=sum(s.suspends for s in grid.sites),
    )
