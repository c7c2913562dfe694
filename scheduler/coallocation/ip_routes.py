"""The route-based 0-1 IP of one time frame (Takefusa et al. 2010, equations (1)–(11), with the
seed's P_max bounding the routes).

Same problem as :mod:`.ip` (the seed's arc formulation), other variables: ``x[i, j]`` = 1 when
site i serves requested site j (1), and ``z[l, r]`` = 1 when requested path l = (o, p) takes
route r (a simple route of <= P_max links, :mod:`.routes`) from a site u to a site v.  Minimise
(3) ``Σ c_i·rc_j·x[i, j] + Σ rb_l·(Σ_{k in r} c_k)·z[l, r]`` subject to

* (4) every requested site mapped once, (5) a site serves at most one, (6) CPU capacity (no
  ``x[i, j]`` with rc_j > wc_i);
* (7) + (9) "linking": for every site u, ``Σ_{r from u} z[l, r] = x[u, o]`` and
  ``Σ_{r to u} z[l, r] = x[u, p]`` — path l takes exactly one route, from o's site to p's
  (a path with rb_l = 0 needs none);
* (8) ``Σ rb_l·z[l, r] over routes using link k <= wb_k``, only for links the request could
  overload (Σ rb_l > wb_k); routes over a link thinner than rb_l are not created;
* (10) holds for every simple route and (11) for every listed one;
* product rows (``rlt``, valid for 0-1 points): for a requested site j with >= 2 paths and
  sites u != v, ``Σ z[l, r] over paths l of j and routes r with j's end at u and the other
  at v <= x[u, j]`` — constraint (5) at v multiplied by x[u, j] (given j at u, site v serves
  at most one of j's neighbours).

Why: in the arc formulation the LP relaxation splits x[m, o] = x[m, p] = 1/2 so that (9)
cancels, and its bound is weak (root 50 against an optimum of 74 on the seed's testbed).  The
linking rows are the level-1 reformulation-linearisation of the products x[u, o]·x[v, p] and,
with the product rows, the relaxation's optimum was integral on every IP of the bench's
workload (star requests, 1757 IPs): :mod:`.solver` then needs no branch and cut.  Requests
whose paths form cycles (``shape="mesh"``: a triangle and up) are not settled by the LP so
often and remain slow (see the bench).

Route dominance (exact): among the routes of one path between the same sites u -> v, a route
using only links that cannot be overloaded ("loose" links: Σ_l rb_l <= wb_k) can always replace
any route costing as much or more — nothing it uses can run out — so only the cheapest loose
route and the routes over tight links cheaper than it are kept.  When no link is tight that leaves
one variable per (path, u, v).  Then, for a path to a leaf of the request (a requested site
no other path touches), only the ``len(rc)`` cheapest sites for the leaf over loose routes are
kept per site of the other end, with the routes over tight links cheaper than the last of them
(exact; ``prune_leaves``, :func:`build_route_ip`; on the 10x topology at 50 % load, where
earlier reservations make links tight, this halves the columns of a star request's IP).
"""

from __future__ import annotations

import math

import numpy as np

from .routes import RouteTable
from .solver import FrameIP

__all__ = ["build_route_ip"]


def build_route_ip(
    table: RouteTable,
    site_nodes: int,
    wc: list[int],
    wb: list[int],
    site_cost: list[float],
    link_cost: list[float],
    rc: list[int],
    paths: list[tuple[int, int, int]],
    *,
    rlt: bool = True,
    prices: dict | None = None,
    prune_leaves: bool = True,
) -> FrameIP | None:
    """The IP of one frame, or None when it is infeasible on its face (a requested site with
    no site big enough, a path without any route).  ``prices`` caches the routes of the
    topology ranked by ``link_cost`` (:class:`RankedRoutes`; pass the same dict for every
    frame of one request, or longer: it is keyed by the link costs).

    ``prune_leaves`` (exact): for a path to a requested site of degree 1 (a leaf: no other
    path touches it), only the ``len(rc)`` cheapest sites for the leaf over loose routes —
    its CPU cost plus the route's — are kept per site of the other end, and the routes over
    tight links cheaper than the last of them.  At most ``len(rc) - 2`` of those sites are
    taken by the other requested sites, so an optimum with the leaf elsewhere can move it to
    a free one of them at no more cost (nothing a loose route uses can run out): the optimum
    is the same with fewer columns (:func:`_nearest`).

    The matrix is assembled as coordinate triplets with numpy: the routes kept by dominance
    and the columns of each path are picked with array masks over the ranked routes, so the
    Python work is a few steps per path, not per column."""
    if prices is None:
        prices = {}
    ranked = prices.get("ranked")
    if ranked is None or ranked.table is not table or ranked.link_cost != tuple(link_cost):
        ranked = prices["ranked"] = ranked_routes(table, link_cost)
    n_req = len(rc)
    cost: list[float] = []
    x_cols: list[tuple[int, int]] = []
    x_col = np.full((site_nodes, n_req), -1, dtype=np.int64)  # (site, requested) -> column
    eligible: list[list[int]] = []
    for j, need in enumerate(rc):
        sites = [i for i in range(site_nodes) if wc[i] >= need]
        if not sites:
            return None
        eligible.append(sites)
        for i in sites:
            x_col[i, j] = len(cost)
            x_cols.append((i, j))
            cost.append(site_cost[i] * need)
    b = _Rows()
    xi = np.fromiter((i for i, _ in x_cols), dtype=np.int64, count=len(x_cols))
    xj = np.fromiter((j for _, j in x_cols), dtype=np.int64, count=len(x_cols))
    xc = np.arange(len(x_cols), dtype=np.int64)
    b.pairs(xj, np.zeros_like(xj), xc, None, 1, 1.0, 1.0, least=1)  # (4)
    b.pairs(xi, np.zeros_like(xi), xc, None, 1, -math.inf, 1.0)  # (5)
    total_rb = sum(rb for _, _, rb in paths if rb > 0)
    wb_arr = np.asarray(wb, dtype=np.float64)
    tight_arr = wb_arr < total_rb
    route_cols: list[tuple[int, int, tuple[int, ...]]] = []
    costs: list[np.ndarray] = [np.asarray(cost, dtype=np.float64)]
    n_cols = len(cost)
    kept: dict[int, np.ndarray] = {}  # rb -> mask of the routes kept (paths share rb)
    use_cols: list[np.ndarray] = []  # (8): (column, tight link) of every route column
    use_links: list[np.ndarray] = []
    use_rb: list[np.ndarray] = []
    # for the product rows: per requested site j, (j's site, other end's site, column)
    touching: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = [[] for _ in rc]
    nodes = ranked.nodes
    any_tight = bool(tight_arr.any())
    degree = [0] * n_req  # routed paths at each requested site
    for o, p, rb in paths:
        if rb > 0:
            degree[o] += 1
            degree[p] += 1
    for l_idx, (o, p, rb) in enumerate(paths):
        if rb <= 0:
            continue  # (7), rb_l = 0: no route
        gbps = rb / 1000.0
        keep = kept.get(rb)
        if keep is None:
            keep = kept[rb] = ranked.kept(wb_arr, rb, tight_arr)
        sel = np.flatnonzero(keep & (x_col[ranked.u, o] >= 0) & (x_col[ranked.v, p] >= 0))
        if not len(sel):
            return None
        if prune_leaves and (degree[p] == 1 or degree[o] == 1):
            sel_lk = ranked.links[sel]
            loose = ~(tight_arr[sel_lk] & (sel_lk >= 0)).any(axis=1) if any_tight else None
            here, there, leaf = (
                (ranked.u, ranked.v, p) if degree[p] == 1 else (ranked.v, ranked.u, o)
            )
            sel = _nearest(sel, here, there, leaf, ranked.price * gbps, cost, x_col, n_req, loose)
        first = n_cols
        n_cols += len(sel)
        cols = np.arange(first, n_cols, dtype=np.int64)
        costs.append(ranked.price[sel] * gbps)
        route_cols += [
            (c, l_idx, nodes[r]) for c, r in zip(range(first, n_cols), sel.tolist(), strict=True)
        ]
        lk = ranked.links[sel]
        hit = tight_arr[lk] & (lk >= 0)
        if hit.any():
            use_cols.append(np.broadcast_to(cols[:, None], lk.shape)[hit])
            use_links.append(lk[hit])
            use_rb.append(np.full(int(hit.sum()), float(rb)))
        u_arr = ranked.u[sel]
        v_arr = ranked.v[sel]
        # linking: Σ_{r from u} z = x[u, o] and Σ_{r to v} z = x[v, p]
        b.group(u_arr, cols, x_col[:, o], eligible[o], 0.0, 0.0)
        b.group(v_arr, cols, x_col[:, p], eligible[p], 0.0, 0.0)
        if rlt:
            touching[o].append((u_arr, v_arr, cols))
            touching[p].append((v_arr, u_arr, cols))
    if rlt:
        # (5) at site v times x[u, j]: given j at u, v serves at most one of j's neighbours
        for j, parts in enumerate(touching):
            if len(parts) < 2:
                continue
            here = np.concatenate([a for a, _, _ in parts])
            there = np.concatenate([t for _, t, _ in parts])
            cols = np.concatenate([c for _, _, c in parts])
            b.pairs(here, there, cols, x_col[:, j], site_nodes)
    if use_cols:  # (8): one row per tight link a column uses, by link, columns in order
        uc = np.concatenate(use_cols)
        ul = np.concatenate(use_links)
        ur = np.concatenate(use_rb)
        order = np.lexsort((uc, ul))
        uc, ul, ur = uc[order], ul[order], ur[order]
        links_used, first_at = np.unique(ul, return_index=True)
        base = len(b.lo)
        b.r.append(base + np.searchsorted(links_used, ul))
        b.c.append(uc)
        b.v.append(ur)
        b.lo += [-math.inf] * len(links_used)
        b.hi += wb_arr[links_used].tolist()
    cost_arr = np.concatenate(costs)
    return FrameIP(cost_arr.tolist(), [], b.lo, b.hi, x_cols, [], route_cols, coo=b.coo())


def _nearest(sel, here, there, leaf, route_cost, cost, x_col, n_req, loose=None):
    """The routes of ``sel`` worth keeping for a path to a leaf (``there`` its end):
    cost = the leaf's CPU cost there + the route's.  Per site of the other end (``here``),
    the ``n_req`` cheapest loose routes (``loose``: the routes over no tight link; None: all
    are), and the routes over tight links cheaper than the ``n_req``-th of those (all of them
    when a site has fewer).  Ties keep the earlier route (deterministic); ``sel``'s order is
    kept.

    Exact: the loose routes of a site pair are one at most (the cheapest), so the kept loose
    routes of a site reach ``n_req`` different sites, at most ``n_req - 2`` of them taken by
    the other requested sites.  A plan with the leaf on a dropped route — no cheaper than any
    kept loose route of its site — can move the leaf to a free one of those (or to the loose
    route of its own site) at no more cost, and nothing a loose route uses can run out."""
    x_cost = np.asarray(cost, dtype=np.float64)[x_col[there[sel], leaf]]
    total = x_cost + route_cost[sel]
    h = here[sel]
    pick = np.arange(len(sel)) if loose is None else np.flatnonzero(loose)
    order = pick[np.lexsort((pick, total[pick], h[pick]))]  # by site, then cost, then position
    hs = h[order]
    first = np.searchsorted(hs, hs, side="left")
    rank = np.arange(len(order)) - first
    keep = np.zeros(len(sel), dtype=bool)
    keep[order[rank < n_req]] = True
    if loose is not None and not loose.all():
        bound = np.full(int(h.max()) + 1, np.inf)  # per site: the n_req-th loose route's cost
        at = order[rank == n_req - 1]
        bound[h[at]] = total[at]
        keep |= ~loose & (total < bound[h])
    return sel[keep]


_RANKED: dict[tuple[int, tuple[float, ...]], RankedRoutes] = {}


def ranked_routes(table: RouteTable, link_cost: list[float]) -> RankedRoutes:
    """The :class:`RankedRoutes` of a table and link costs (cached: both are fixed per
    topology and user option)."""
    key = (id(table), tuple(link_cost))
    got = _RANKED.get(key)
    if got is None or got.table is not table:
        if len(_RANKED) > 16:
            _RANKED.clear()
        got = _RANKED[key] = RankedRoutes(table, link_cost)
    return got


class RankedRoutes:
    """The routes of a :class:`RouteTable` as arrays, grouped by site pair ``(u, v)`` in
    ascending order of u, then v, and within a pair by ``Σ link_cost`` (stable: ties keep the
    table's order).  One per topology and link costs."""

    def __init__(self, table: RouteTable, link_cost: list[float]) -> None:
        self.table = table
        self.link_cost = tuple(link_cost)
        us: list[int] = []
        vs: list[int] = []
        price: list[float] = []
        links: list[tuple[int, ...]] = []
        self.nodes: list[tuple[int, ...]] = []
        seg: list[int] = []
        for u, reach in enumerate(table.reach):
            for v in reach:
                ranked = sorted(
                    ((sum(link_cost[k] for k in r.links), r) for r in table.by_pair[u, v]),
                    key=lambda e: e[0],
                )
                seg.append(len(us))
                for pr, r in ranked:
                    us.append(u)
                    vs.append(v)
                    price.append(pr)
                    links.append(r.links)
                    self.nodes.append(r.nodes)
        width = max((len(ln) for ln in links), default=0)
        self.u = np.asarray(us, dtype=np.int64)
        self.v = np.asarray(vs, dtype=np.int64)
        self.price = np.asarray(price, dtype=np.float64)
        self.links = np.full((len(links), max(width, 1)), -1, dtype=np.int64)  # -1 pads
        for r, ln in enumerate(links):
            self.links[r, : len(ln)] = ln
        self.pair_of = np.zeros(len(us), dtype=np.int64)  # route -> its pair's segment
        if seg:
            starts = np.asarray(seg, dtype=np.int64)
            self.pair_of[starts[1:]] = 1
            self.pair_of = np.cumsum(self.pair_of)
            self.seg_start = starts
        else:
            self.seg_start = np.zeros(0, dtype=np.int64)

    def kept(self, wb: np.ndarray, rb: int, tight: np.ndarray) -> np.ndarray:
        """Mask of the routes dominance keeps for rb, on every pair at once:
        the routes wide enough for rb, in price order up to the first loose one."""
        pad = self.links < 0
        lk = np.where(pad, 0, self.links)
        wide = ((wb[lk] >= rb) | pad).all(axis=1)
        loose = ~(tight[lk] & ~pad).any(axis=1)
        stop = (wide & loose).astype(np.int64)
        before = np.cumsum(stop) - stop  # loose wide routes before this one, all pairs
        before -= before[self.seg_start][self.pair_of]  # ... within its pair
        return wide & (before == 0)


class _Rows:
    """Rows as coordinate triplets."""

    def __init__(self) -> None:
        self.r: list[np.ndarray] = []
        self.c: list[np.ndarray] = []
        self.v: list[np.ndarray] = []
        self.lo: list[float] = []
        self.hi: list[float] = []

    def add(self, cols, vals, lo: float, hi: float) -> None:
        cols = np.asarray(cols, dtype=np.int64)
        self.r.append(np.full(len(cols), len(self.lo), dtype=np.int64))
        self.c.append(cols)
        self.v.append(np.asarray(vals, dtype=np.float64))
        self.lo.append(lo)
        self.hi.append(hi)

    def group(self, key, cols, x_of_key, keys: list[int], lo: float, hi: float) -> None:
        """One row per key in ``keys``: Σ cols with that key − x[key] in [lo, hi]."""
        row_of = np.full(len(x_of_key), -1, dtype=np.int64)
        base = len(self.lo)
        row_of[keys] = np.arange(base, base + len(keys))
        self.r += [row_of[key], row_of[keys]]
        self.c += [cols, x_of_key[keys]]
        self.v += [np.ones(len(cols)), -np.ones(len(keys))]
        self.lo += [lo] * len(keys)
        self.hi += [hi] * len(keys)

    def pairs(
        self,
        here,
        there,
        cols,
        x_here,
        n: int,
        lo: float = -math.inf,
        hi: float = 0.0,
        least: int = 2,
    ) -> None:
        """One row per (here, there) pair shared by >= ``least`` columns: Σ cols − x[here]
        (no x term when ``x_here`` is None) in [lo, hi]."""
        pair = here * n + there
        uniq, inverse, counts = np.unique(pair, return_inverse=True, return_counts=True)
        keep = counts >= least
        n_keep = int(keep.sum())
        if not n_keep:
            return
        base = len(self.lo)
        row_of = np.full(len(uniq), -1, dtype=np.int64)
        row_of[keep] = np.arange(base, base + n_keep)
        mask = keep[inverse]
        self.r.append(row_of[inverse[mask]])
        self.c.append(cols[mask])
        self.v.append(np.ones(int(mask.sum())))
        if x_here is not None:
            self.r.append(row_of[keep])
            self.c.append(x_here[uniq[keep] // n])
            self.v.append(-np.ones(n_keep))
        self.lo += [lo] * n_keep
        self.hi += [hi] * n_keep

    def coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.concatenate(self.r), np.concatenate(self.c), np.concatenate(self.v)
