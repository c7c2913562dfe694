"""Simulation of the GRC serving a day of co-allocation requests (Takefusa et al. 2010
"Simulation Settings" and "Simulation Scenarios").

During the first day users send requests (Poisson arrivals) for resources of the next day; the
requested load — the CPU-seconds asked for over the capacity of the next day, "the ideal
resource utilization on the next day" — grows to ``max_load``.  Each request is planned against
the reservations made so far (:mod:`.planner`) and the first plan is reserved all-or-nothing
(:mod:`.manager`); a request without a plan fails (the seed's user would resubmit; we count
the failure).  Success ratio vs requested load, per user and per site utilisation are read
from the outcomes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from .manager import CoallocationFailed, Managers
from .planner import PlannerConfig, plan
from .requests import SEED_CPUS, SEED_DURATIONS, Request, seed_request
from .topology import Topology

__all__ = ["Outcome", "SimResult", "expected_requests", "seed_workload", "simulate", "DAY"]

DAY = 86_400


@dataclass(frozen=True)
class Outcome:
    request: int
    user: str
    submit: int
    sites: int
    load: float  # requested load (fraction) once this request is counted
    success: bool
    start: int | None
    frames_with_plan: int
    solves: int
    seconds: float  # planning wall time (not deterministic; reported only on demand)
    solve_seconds: tuple[float, ...]
    mip_solves: int = 0  # IPs the LP relaxation did not settle


@dataclass
class SimResult:
    outcomes: list[Outcome]
    managers: Managers
    window: tuple[int, int]


def expected_requests(
    total_cpus: int, max_load: float, *, types: tuple[int, ...] = (1, 2, 3, 4), day: int = DAY
) -> float:
    """The expected number of requests :func:`seed_workload` draws: the requested load of the
    next day (``max_load`` × CPUs × ``day``) over a request's mean demand (sites × CPUs ×
    duration).  Known before a request is drawn, so a run can be bounded at submit."""
    mean_sites = sum(t + 1 for t in types) / len(types)
    mean_demand = mean_sites * (sum(SEED_CPUS) / 4) * (sum(SEED_DURATIONS) / 3)
    return max_load * total_cpus * day / mean_demand


def seed_workload(
    topology: Topology,
    max_load: float,
    rng: random.Random,
    *,
    users: tuple[str, ...] = ("UserA", "UserB"),
    shape: str = "star",
    types: tuple[int, ...] = (1, 2, 3, 4),
    day: int = DAY,
) -> list[Request]:
    """Poisson arrivals over [0, day) per user, rates set so the expected requested load of
    the next day [day, 2·day) is ``max_load``; sorted by submit time (ties: user order)."""
    total = expected_requests(topology.total_cpus, max_load, types=types, day=day)
    rate = total / day / len(users)
    arrivals: list[tuple[float, int]] = []
    for u in range(len(users)):
        t = rng.expovariate(rate) if rate > 0 else day
        while t < day:
            arrivals.append((t, u))
            t += rng.expovariate(rate)
    arrivals.sort()
    return [
        seed_request(
            rng, id=k, user=users[u], submit=int(t), window=(day, 2 * day), shape=shape,
            types=types,
        )
        for k, (t, u) in enumerate(arrivals)
    ]  # fmt: skip


def simulate(
    topology: Topology,
    requests: list[Request],
    config: PlannerConfig,
    *,
    low_priority: frozenset[str] = frozenset(),
    window: tuple[int, int] = (DAY, 2 * DAY),
    on_request: Callable[[int, int], None] | None = None,
) -> SimResult:
    """Plan and reserve every request in submit order; users in ``low_priority`` see half the
    resources (administrator option C)."""
    managers = Managers(topology)
    capacity = topology.total_cpus * (window[1] - window[0])
    asked = 0
    outcomes: list[Outcome] = []
    for k, r in enumerate(requests):
        asked += r.demand
        res = plan(topology, r, managers, config, low_priority=r.user in low_priority)
        start = None
        for p in res.plans:  # the first that every RM accepts (always the first here)
            try:
                managers.reserve(p.start, p.end, p.site_blocks, p.link_blocks, r.user)
            except CoallocationFailed:
                continue
            start = p.start
            break
        outcomes.append(
            Outcome(
                r.id, r.user, r.submit, len(r.sites), asked / capacity, start is not None,
                start, len(res.plans), res.solves, res.seconds, tuple(res.solve_seconds),
                res.mip_solves,
            )
        )  # fmt: skip
        if on_request is not None:
            on_request(k + 1, len(requests))
    return SimResult(outcomes, managers, window)
