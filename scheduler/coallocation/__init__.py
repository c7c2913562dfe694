"""Co-allocation of compute sites and network bandwidth by advance reservation (Takefusa et al.
2010).

Modules: :mod:`.topology` (the resource graph and its JSON document), :mod:`.requests`
(requests and their time frames), the 0-1 IP of one frame as :mod:`.ip_routes` (one route of
<= P_max links per requested path, from :mod:`.routes`; the default) or :mod:`.ip` (the seed's
arc formulation), solved by HiGHS in :mod:`.solver` (LP relaxation first, branch and cut when
it is fractional), :mod:`.planner` (N frames, ranking), :mod:`.manager` (per-site and per-link
availability profiles, all-or-nothing reservation), :mod:`.admin_options` (user options a–c,
administrator options A–C), :mod:`.simulate` (the seed's day-ahead scenario).

:func:`plan_request` is what the portal's REST endpoint calls: plan one request against a
topology (with nothing reserved yet) and return the ranked plans as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..jsonvalues import describe
from .admin_options import ADMIN_OPTIONS, USER_OPTIONS
from .ip import SOLVERS
from .manager import CoallocationFailed, Managers, Reservation
from .planner import FORMULATIONS, Plan, PlannerConfig, plan, plan_as_json
from .requests import Request, RequestError, parse_request, request_as_json
from .topology import (
    SEED001,
    Topology,
    TopologyError,
    builtin_topologies,
    layout,
    load_topology,
    load_topology_file,
    topology_as_json,
)

__all__ = [
    "ADMIN_OPTIONS",
    "USER_OPTIONS",
    "FORMULATIONS",
    "SOLVERS",
    "SEED001",
    "CoallocationFailed",
    "Managers",
    "Plan",
    "PlannerConfig",
    "Request",
    "RequestError",
    "Reservation",
    "Topology",
    "TopologyError",
    "builtin_topologies",
    "layout",
    "load_topology",
    "load_topology_file",
    "parse_request",
    "plan",
    "plan_as_json",
    "plan_request",
    "request_as_json",
    "topology_as_json",
]

_OPTION_KEYS = (
    "option", "frames", "admin", "priority", "p_max", "two_way", "solver", "domain_order",
    "time_limit", "formulation",
)  # fmt: skip


def _prefixed(exc: TopologyError | RequestError, prefix: str) -> ValueError:
    errors = {f"{prefix}.{k}" if k != "$" else prefix: v for k, v in exc.errors.items()}
    if isinstance(exc, TopologyError):
        return TopologyError(errors)
    path, message = next(iter(errors.items()))
    return RequestError(path, message)


def planner_config(options: Mapping[str, Any] | None) -> tuple[PlannerConfig, bool]:
    """``(config, low_priority)`` from the endpoint's options; :class:`RequestError` names
    ``options.<field>``."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):  # e.g. 5 or [1, 2]: a 400, not a TypeError
        raise RequestError("options", f"must be a JSON object, got {describe(options)}")
    options = dict(options)
    for key in options:
        if key not in _OPTION_KEYS:
            raise RequestError(
                f"options.{key}", f"unknown option (known: {', '.join(_OPTION_KEYS)})"
            )

    def choice(key: str, default: str, allowed: tuple[str, ...]) -> str:
        v = options.get(key, default)
        if v not in allowed:
            raise RequestError(f"options.{key}", f"must be one of {', '.join(allowed)}; got {v!r}")
        return v

    def integer(key: str, default: int | None, lo: int, hi: int) -> int | None:
        v = options.get(key, default)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise RequestError(f"options.{key}", f"must be an integer in [{lo}, {hi}]; got {v!r}")
        return v

    two_way = options.get("two_way", True)
    if not isinstance(two_way, bool):
        raise RequestError("options.two_way", f"must be true or false; got {two_way!r}")
    order = options.get("domain_order", [])
    if not isinstance(order, list) or not all(isinstance(d, str) for d in order):
        raise RequestError("options.domain_order", "must be a JSON array of domain names")
    limit = options.get("time_limit", 10.0)
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0 < limit <= 60:
        raise RequestError("options.time_limit", f"must be a number in (0, 60]; got {limit!r}")
    config = PlannerConfig(
        frames=integer("frames", 10, 1, 100) or 1,
        option=choice("option", "earliest", USER_OPTIONS),
        admin=choice("admin", "none", ADMIN_OPTIONS),
        domain_order=tuple(order),
        p_max=integer("p_max", 2, 1, 1000),
        two_way=two_way,
        solver=choice("solver", "highs", SOLVERS),
        time_limit=float(limit),
        formulation=choice("formulation", "routes", FORMULATIONS),
    )
    low = choice("priority", "normal", ("normal", "low")) == "low"
    return config, low


def plan_request(
    topology_doc: Any, request_doc: Any, options: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Ranked plans (best first) for one request against an idle topology.

    Each plan: ``frame`` {index, start, end}, ``sites`` (requested → site), ``cpus``,
    ``paths`` (with their ``route`` of node names), ``links`` booked, ``price``, ``objective``,
    ``quality``, ``optimal``, ``solve_seconds``.  An empty list: infeasible in every frame.
    Bad input raises a :class:`ValueError` subclass whose ``errors`` name the field
    (``topology.links[3].bandwidth``, ``request.paths[0].between[1]``, ``options.frames``).
    """
    try:
        topology = load_topology(topology_doc)
    except TopologyError as exc:
        raise _prefixed(exc, "topology") from None
    try:
        request = parse_request(request_doc)
    except RequestError as exc:
        raise _prefixed(exc, "request") from None
    config, low = planner_config(options)
    result = plan(topology, request, Managers(topology), config, low_priority=low)
    return [plan_as_json(topology, request, p) for p in result.plans]
