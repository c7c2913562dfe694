"""The GRC planner: N time frames, one 0-1 IP per frame, plans ranked (Takefusa et al. 2010
"The Steps of Resource Co-allocation", steps 2i–2iv).

2i   pick N equidistant starts in [EST, LST] (frames [s, s + D) covering [EST, LST + D]);
2ii  read each frame's availability from the resource managers (:mod:`.manager`), halved for a
     low-priority user (administrator option C);
2iii solve the IP of each frame with the objective weighted by the user option and
     administrator options A/B (:mod:`.admin_options`); frames without a plan drop out (N' <= N).
     The IP is the route formulation (:mod:`.ip_routes`, routes of <= P_max links listed once
     per topology by :mod:`.routes`) unless ``formulation="arcs"`` or there is no P_max, when
     it is the seed's arc formulation (:mod:`.ip`); both have the same optimum, the first a
     far tighter LP relaxation, which :mod:`.solver` tries before branch and cut;
2iv  sort the N' plans by the user option.

Frames whose availability and costs are identical give the same IP; it is solved once
(``cache``), and so is an IP identical in content to an earlier frame's (availability that
differs where no column or row depends on it: same matrix, bounds, costs and columns); the
routes ranked by link cost are shared by every request on the topology.
A cheap necessary condition — the k-th largest request fits the k-th largest site — skips
frames that cannot be feasible without calling the solver.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .admin_options import ADMIN_OPTIONS, USER_OPTIONS, admin_site_weights, base_costs, halve
from .ip import SOLVERS, build_ip, solve_ip
from .ip_routes import build_route_ip
from .manager import Managers
from .requests import Request
from .routes import route_table
from .topology import MBPS_PER_GBPS, Topology

__all__ = ["PlannerConfig", "Plan", "PlanningResult", "plan", "plan_as_json", "FORMULATIONS"]

FORMULATIONS = ("routes", "arcs")


@dataclass(frozen=True)
class PlannerConfig:
    frames: int = 10
    option: str = "earliest"
    admin: str = "none"
    domain_order: tuple[str, ...] = ()
    p_max: int | None = 2  # constraint (11); None drops it
    two_way: bool = True  # constraint (10)
    tighten: bool = False  # valid inequalities of :func:`.ip.build_ip`
    formulation: str = "routes"  # :mod:`.ip_routes` (needs p_max) or the seed's arcs (:mod:`.ip`)
    rlt: bool = True  # the route formulation's product rows (:func:`.ip_routes.build_route_ip`)
    lp_first: bool = True  # settle a frame by its LP relaxation when that is integral
    prune_leaves: bool = True  # exact column pruning for leaves (:func:`.ip_routes.build_route_ip`)
    dive: bool = True  # fractional LP: dive + own branch and bound (:mod:`.solver`)
    solver: str = "highs"
    #: seconds of solving per request, all frames together (LP, dive, branch and cut): once
    #: spent, the frames left are not solved (counted in ``PlanningResult.unsolved``) and the
    #: plans found so far are the answer
    time_limit: float = 10.0
    cache: bool = True
    stop_at_first: bool = False  # with "earliest": the first feasible frame is the answer

    def __post_init__(self) -> None:
        if self.option not in USER_OPTIONS:
            raise ValueError(f"option must be one of {', '.join(USER_OPTIONS)}")
        if self.admin not in ADMIN_OPTIONS:
            raise ValueError(f"admin must be one of {', '.join(ADMIN_OPTIONS)}")
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {', '.join(SOLVERS)}")
        if self.formulation not in FORMULATIONS:
            raise ValueError(f"formulation must be one of {', '.join(FORMULATIONS)}")


@dataclass(frozen=True)
class Plan:
    """One co-allocation plan for one frame."""

    frame: int  # index of the frame among the N
    start: int
    end: int
    mapping: tuple[int, ...]  # requested site j -> site index
    routes: tuple[tuple[int, ...], ...]  # per requested path: node indices, source to sink
    site_blocks: tuple[tuple[int, int], ...]  # (site index, cpus)
    link_blocks: tuple[tuple[int, int], ...]  # (link index, mbps), summed over paths
    price: float  # topology unit values x amounts x hours
    objective: float  # the IP's optimum under the option's weights
    quality: float  # Σ amount / quality (lower is better)
    optimal: bool
    solve_seconds: float  # this frame's own solver time (0 when ``cached``)
    cached: bool = False  # same availability as an earlier frame: its solution, not solved


@dataclass
class PlanningResult:
    plans: list[Plan]
    seconds: float = 0.0  # wall time of the whole planning (steps 2i–2iv)
    solves: int = 0  # IPs handed to the solver
    skipped: int = 0  # frames found infeasible without the solver
    timeouts: int = 0  # solves stopped by the time limit (their best point, if any, is kept)
    unsolved: int = 0  # frames not solved: the request's time limit was spent before them
    solve_seconds: list[float] = field(default_factory=list)
    mip_solves: int = 0  # solves the LP relaxation did not settle (branch and cut ran)


def _fits(rc: list[int], wc: list[int]) -> bool:
    """Necessary (and, for sites alone, sufficient) condition for (4)–(6)."""
    if len(rc) > len(wc):
        return False
    big = sorted(wc, reverse=True)
    return all(w >= r for r, w in zip(sorted(rc, reverse=True), big, strict=False))


def plan(
    topology: Topology,
    request: Request,
    managers: Managers,
    config: PlannerConfig = PlannerConfig(),
    *,
    low_priority: bool = False,
) -> PlanningResult:
    """Plans for ``request`` against the managers' current availability, best first."""
    t0 = time.perf_counter()
    deadline = t0 + config.time_limit  # the request's solving budget
    result = PlanningResult([])
    d = request.frame.duration
    rc = [s.cpus for s in request.sites]
    paths = [(p.a, p.b, p.mbps) for p in request.paths]
    n_sites = len(topology.sites)
    node = topology.node_index
    links = [(node[ln.a], node[ln.b]) for ln in topology.links]
    link_of = {}
    for k, (a, b) in enumerate(links):
        link_of[a, b] = link_of[b, a] = k
    site_cost, link_cost = base_costs(topology, config.option)
    price_site = [s.value for s in topology.sites]
    price_link = [ln.value for ln in topology.links]
    q_site = [1.0 / s.quality for s in topology.sites]
    q_link = [1.0 / ln.quality for ln in topology.links]
    table = None
    if config.formulation == "routes" and config.p_max is not None:
        # with no P_max the simple routes are too many to list: the arc formulation serves
        table = route_table(len(topology.nodes), n_sites, tuple(links), config.p_max)
    ends = [(o, p) for o, p, _ in paths]
    prices: dict = {}  # routes ranked by link cost, shared by the frames
    cache: dict[tuple, Any] = {}
    for f, start in enumerate(request.frame.starts(config.frames)):
        wc, wb = managers.availability(start, start + d)
        if low_priority:
            wc, wb = halve(wc), halve(wb)
        if not _fits(rc, wc):
            result.skipped += 1
            continue
        weights = admin_site_weights(topology, config.admin, wc, config.domain_order)
        costs = (
            site_cost
            if weights is None
            else [c * w for c, w in zip(site_cost, weights, strict=True)]
        )
        key = (tuple(wc), tuple(wb), tuple(costs))
        frame_secs = 0.0
        cached = config.cache and key in cache
        if cached:
            sol = cache[key]
        else:
            if table is not None:
                ip = build_route_ip(
                    table, n_sites, wc, wb, costs, link_cost, rc, paths, rlt=config.rlt,
                    prices=prices, prune_leaves=config.prune_leaves,
                )  # fmt: skip
            else:
                ip = build_ip(
                    len(topology.nodes), n_sites, links, wc, wb, costs, link_cost, rc, paths,
                    two_way=config.two_way, p_max=config.p_max, tighten=config.tighten,
                )  # fmt: skip
            content = None if ip is None or not config.cache else ip.content_key()
            if ip is None:
                sol = None
                result.skipped += 1
            elif content in cache:  # another frame gave the very same IP
                sol = cache[content]
                cached = True
            elif (left := deadline - time.perf_counter()) <= 0:
                result.unsolved += 1  # the budget is spent: not solved, not cached
                continue
            else:
                sol, secs, timed_out, used_mip = solve_ip(
                    ip, ends, solver=config.solver, time_limit=left,
                    lp_first=config.lp_first, dive=config.dive,
                )  # fmt: skip
                result.solves += 1
                result.mip_solves += int(used_mip)
                result.solve_seconds.append(secs)
                frame_secs = secs
                result.timeouts += int(timed_out)
                if content is not None:
                    cache[content] = sol
            cache[key] = sol
        if sol is None:
            continue
        routes = sol.routes
        use: dict[int, int] = {}
        for (_, _, rb), route in zip(paths, routes, strict=True):
            for u, v in zip(route, route[1:], strict=False):
                k = link_of[u, v]
                use[k] = use.get(k, 0) + rb
        site_blocks = tuple((sol.mapping[j], rc[j]) for j in range(len(rc)))
        link_blocks = tuple(sorted(use.items()))
        hours = d / 3600.0
        gb = MBPS_PER_GBPS
        price = hours * (
            sum(price_site[i] * n for i, n in site_blocks)
            + sum(price_link[k] * m / gb for k, m in link_blocks)
        )
        quality = sum(q_site[i] * n for i, n in site_blocks) + sum(
            q_link[k] * m / gb for k, m in link_blocks
        )
        result.plans.append(
            Plan(
                f, start, start + d, sol.mapping, routes, site_blocks, link_blocks,
                round(price, 6), round(sol.objective, 6), round(quality, 6), sol.optimal,
                frame_secs, cached,
            )
        )  # fmt: skip
        if config.stop_at_first and config.option == "earliest":
            break
    result.plans.sort(key=_rank_key(config.option))
    result.seconds = time.perf_counter() - t0
    return result


def _rank_key(option: str):
    if option == "cheapest":
        return lambda p: (p.price, p.start)
    if option == "quality":
        return lambda p: (p.quality, p.start)
    return lambda p: (p.start, p.objective)


def plan_as_json(t: Topology, r: Request, p: Plan) -> dict[str, Any]:
    """A plan as the REST endpoint returns it (names, not indices; bandwidth in Gbps)."""
    nodes = t.nodes
    return {
        "frame": {"index": p.frame, "start": p.start, "end": p.end},
        "sites": {r.sites[j].name: t.sites[i].name for j, i in enumerate(p.mapping)},
        "cpus": {t.sites[i].name: n for i, n in p.site_blocks},
        "paths": [
            {
                "between": [r.sites[rp.a].name, r.sites[rp.b].name],
                "bandwidth": rp.mbps / MBPS_PER_GBPS,
                "route": [nodes[n] for n in route],
            }
            for rp, route in zip(r.paths, p.routes, strict=True)
        ],
        "links": [
            {"between": [t.links[k].a, t.links[k].b], "bandwidth": m / MBPS_PER_GBPS}
            for k, m in p.link_blocks
        ],
        "price": p.price,
        "objective": p.objective,
        "quality": p.quality,
        "optimal": p.optimal,
        "solve_seconds": round(p.solve_seconds, 6),
        "cached": p.cached,
    }
