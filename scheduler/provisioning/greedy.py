"""Greedy provisioning with adaptive pricing (thesis ch. 7, Figure 51).

Sites advertise nothing; they answer queries (19) for slots ``(s_min, n, d)`` with the adaptive
prices of :mod:`scheduler.pricing`.  Tasks are taken in HEFT order (non-increasing upward rank,
thesis eq. 7).  For task ``v_i`` and every site ``r``:

* ``s_ir`` = the latest finish of its parents, plus the data transfer when a parent ran on
  another site (0 on the same site);
* ``d_ir`` = its runtime on ``r``; query (19) ``E_r(s_ir, n_i, d_ir)`` returns feasible starts
  ``s ≥ s_ir`` with their prices ``f``.

Over the union of all the answers, each tuple has ``mks = s + d_ir`` and
``cost = n_i · d_ir · c_r + f``; the tuple minimising
``α · (cost − cost_min)/(cost_max − cost_min) + (1 − α) · (mks − mks_min)/(mks_max − mks_min)``
is reserved at once (earliest finish, then the first site, on ties): the reservation enters the
site's schedule, so later answers account for it — its price for later tasks is only the extra
delay they cause.  Each site is a fork of its live simulation, so the trace state stays
reusable; a virtual (entry/exit) task takes no slot and finishes when its parents do.

Makespan = the last finish − the submission time; allocation cost = Σ slot costs (SU).  With
``α = 1`` every chosen slot has ``f = 0`` and the cost equals best effort's (eq. 16) when
``c = 1`` (thesis §7.2: "Pareto-superior to the best effort approach").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..cluster.jobs import Reservation
from ..cluster.simulator import Simulator
from ..pricing.price import SiteQuote
from ..workflows.dag import Workflow
from ..workflows.heft import heft_rank
from .network import Network

__all__ = ["GreedyPlan", "Placement", "greedy_provision"]


@dataclass(frozen=True, slots=True)
class Placement:
    """One task's reserved slot: site index, start, finish, processors, price parts (SU)."""

    task: str
    site: int
    start: int
    finish: int
    procs: int
    f: float
    cost: float


@dataclass(frozen=True)
class GreedyPlan:
    makespan: float
    allocation_cost: float
    delay_cost: float  # Σ f, SU: what the reservations cost the sites' best-effort queues
    placements: tuple[Placement, ...]


def greedy_provision(
    sims: Sequence[Simulator],
    workflow: Workflow,
    *,
    submit: int,
    alpha: float,
    sites: Sequence[str] | None = None,
    network: Network | None = None,
    unit_costs: Sequence[float] | None = None,
) -> GreedyPlan:
    """Provision ``workflow`` submitted at ``submit`` on the sites' live simulations (left
    untouched: the reservations go into forks) with trade-off ``alpha`` (Figure 51)."""
    R = len(sims)
    if R < 1:
        raise ValueError("at least one site is needed")
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1]; got {alpha!r}")
    names = list(sites) if sites is not None else [f"site{r + 1}" for r in range(R)]
    if len(names) != R:
        raise ValueError(f"{len(names)} site names for {R} sites")
    if R > 1 and network is None:
        raise ValueError("several sites need a network (bandwidth and latency)")
    costs = list(unit_costs) if unit_costs is not None else [1.0] * R
    live = []
    for s in sims:
        if s.now > submit:
            raise ValueError(f"a site's simulation is already at {s.now}, after {submit}")
        twin = s.fork()
        twin.run(until=submit)
        twin.move_to(submit)
        live.append(twin)
    ranking = heft_rank(
        workflow, sites=names, network=network.mean_model() if network and R > 1 else None
    )
    finish: dict[str, int] = {}
    site_of: dict[str, int] = {}
    placements: list[Placement] = []
    for tid in ranking.order:
        task = workflow.task(tid)
        parents = workflow.parents(tid)
        if task.virtual:
            finish[tid] = max([submit] + [finish[p] for p in parents])
            site_of[tid] = -1
            continue
        n = task.processors
        tuples = []  # (cost, mks, r, option)
        for r, sim in enumerate(live):
            if n > sim.capacity:
                continue
            s_min = submit
            for p in parents:
                at = finish[p]
                sp = site_of[p]
                if network is not None and sp >= 0 and sp != r:
                    at += math.ceil(network.transfer_time(sp, r, workflow.edge(p, tid).data))
                s_min = max(s_min, at)
            d = max(1, math.ceil(task.runtime_on(names[r])))
            quote = SiteQuote.of(sim, submit, unit_cost=costs[r])
            for o in quote.options_from(s_min, n, d):
                tuples.append((o.total, o.start + d, r, o))
        if not tuples:
            raise ValueError(f"task {tid!r} needs {n} processors; no site has that many")
        c_lo = min(t[0] for t in tuples)
        c_hi = max(t[0] for t in tuples)
        m_lo = min(t[1] for t in tuples)
        m_hi = max(t[1] for t in tuples)
        c_span = (c_hi - c_lo) or 1.0
        m_span = (m_hi - m_lo) or 1

        def score(t, c_lo=c_lo, m_lo=m_lo, c_span=c_span, m_span=m_span):  # type: ignore[no-untyped-def]
            value = alpha * (t[0] - c_lo) / c_span + (1 - alpha) * (t[1] - m_lo) / m_span
            return (round(value, 12), t[1], t[2])

        cost, mks, r, o = min(tuples, key=score)
        live[r].insert_reservation(Reservation(o.start, o.duration, n))
        finish[tid] = mks
        site_of[tid] = r
        placements.append(Placement(tid, r, o.start, mks, n, o.f, cost))
    makespan = max(finish.values()) - submit if finish else 0
    return GreedyPlan(
        float(makespan),
        sum(p.cost for p in placements),
        sum(p.f for p in placements),
        tuple(placements),
    )
