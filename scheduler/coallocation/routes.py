"""Candidate routes of at most P_max links between sites (Takefusa et al. 2010, constraint (11)).

With the seed's P_max = 2 a requested path between two physical sites can only take a handful
of simple routes (the direct link, or two links through an exchange point or a third site), so
they can be listed once per topology.  The route-based IP of :mod:`.ip_routes` picks one route
per requested path instead of one arc set: constraint (10) (no two-way use of a link) holds
for every simple route, (11) for every listed one, and flow conservation (9) becomes "the route
starts at o's site and ends at p's".

A flow of the arc formulation (:mod:`.ip`) is a simple route plus cycles; cycles cost >= 0 and
only consume bandwidth and links of the P_max budget, so both formulations have the same
optimum (the tests cross-check them and a brute-force enumeration).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Route", "RouteTable", "route_table", "ROUTE_LIMIT"]

ROUTE_LIMIT = 200_000  # beyond this many routes the arc formulation is used instead


@dataclass(frozen=True)
class Route:
    """A simple route ``nodes[0] -> nodes[-1]`` between two distinct sites over ``links``."""

    nodes: tuple[int, ...]
    links: tuple[int, ...]


@dataclass(frozen=True)
class RouteTable:
    """Every simple route of <= ``p_max`` links from each site to each other site, grouped by
    ordered site pair ``(u, v)`` (both directions listed: the direction tells which end is the
    requested path's source)."""

    p_max: int
    by_pair: dict[tuple[int, int], tuple[Route, ...]]
    size: int
    reach: tuple[tuple[int, ...], ...]  # per site u: the sites v with a route u -> v


_CACHE: dict[tuple, RouteTable | None] = {}


def route_table(
    n_nodes: int, site_nodes: int, links: tuple[tuple[int, int], ...], p_max: int
) -> RouteTable | None:
    """The routes of a topology (cached: the graph is fixed, availability is filtered per
    frame); None when there are more than :data:`ROUTE_LIMIT` of them."""
    key = (n_nodes, site_nodes, links, p_max)
    if key in _CACHE:
        return _CACHE[key]
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n_nodes)]
    for k, (a, b) in enumerate(links):
        adj[a].append((b, k))
        adj[b].append((a, k))
    by_pair: dict[tuple[int, int], list[Route]] = {}
    size = 0
    too_many = False

    def extend(nodes: list[int], used: list[int]) -> None:
        nonlocal size, too_many
        if too_many:
            return
        here = nodes[-1]
        for nxt, k in adj[here]:
            if nxt in nodes:
                continue
            nodes.append(nxt)
            used.append(k)
            if nxt < site_nodes:
                by_pair.setdefault((nodes[0], nxt), []).append(Route(tuple(nodes), tuple(used)))
                size += 1
                if size > ROUTE_LIMIT:
                    too_many = True
            if len(used) < p_max:
                extend(nodes, used)
            nodes.pop()
            used.pop()

    for u in range(site_nodes):
        extend([u], [])
    table = None
    if not too_many:
        ends: list[list[int]] = [[] for _ in range(site_nodes)]
        for a, v in by_pair:
            ends[a].append(v)
        reach = tuple(tuple(sorted(e)) for e in ends)
        table = RouteTable(p_max, {k: tuple(v) for k, v in by_pair.items()}, size, reach)
    if len(_CACHE) > 32:
        _CACHE.clear()
    _CACHE[key] = table
    return table
