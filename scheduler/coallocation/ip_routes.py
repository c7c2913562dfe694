"""The route-based 0-1 IP of one time frame (SPEC §9; seed 001 equations (1)–(11), with the
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
one variable per (path, u, v).
"""

from __future__ import annotations

import math

import numpy as np

from .routes import Route, RouteTable
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
    prices: dict[tuple[int, int], list[tuple[float, Route]]] | None = None,
) -> FrameIP | None:
    """The IP of one frame, or None when it is infeasible on its face (a requested site with
    no site big enough, a path without any route).  ``prices`` caches the routes of each site
    pair ranked by ``link_cost`` (pass the same dict for every frame of one request).

    The matrix is assembled as coordinate triplets with numpy (grouping columns by their
    end sites), which keeps Python work to one step per column."""
    if prices is None:
        prices = {}
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
    tight = [wb[k] < total_rb for k in range(len(wb))]
    link_use: dict[int, list[tuple[int, float]]] = {}
    route_cols: list[tuple[int, int, tuple[int, ...]]] = []
    kept: dict[tuple[int, int, int], list] = {}  # (u, v, rb) -> routes kept (paths share rb)
    # for the product rows: per requested site j, (j's site, other end's site, column)
    touching: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = [[] for _ in rc]
    for l_idx, (o, p, rb) in enumerate(paths):
        if rb <= 0:
            continue  # (7), rb_l = 0: no route
        gbps = rb / 1000.0
        ends_p = x_col[:, p] >= 0
        first = len(cost)
        us: list[int] = []
        vs: list[int] = []
        for u in eligible[o]:
            for v in table.reach[u]:
                if not ends_p[v]:
                    continue
                choice = kept.get((u, v, rb))
                if choice is None:
                    ranked = prices.get((u, v))
                    if ranked is None:
                        ranked = prices[u, v] = sorted(
                            ((sum(link_cost[k] for k in r.links), r) for r in table.by_pair[u, v]),
                            key=lambda e: e[0],
                        )
                    choice = kept[u, v, rb] = _kept(ranked, wb, rb, tight)
                for route, price in choice:
                    c = len(cost)
                    cost.append(price * gbps)
                    route_cols.append((c, l_idx, route.nodes))
                    us.append(u)
                    vs.append(v)
                    for k in route.links:
                        if tight[k]:
                            link_use.setdefault(k, []).append((c, float(rb)))
        if not us:
            return None
        cols = np.arange(first, len(cost), dtype=np.int64)
        u_arr = np.asarray(us, dtype=np.int64)
        v_arr = np.asarray(vs, dtype=np.int64)
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
    for k in sorted(link_use):  # (8)
        use = link_use[k]
        b.add([c for c, _ in use], [v for _, v in use], -math.inf, float(wb[k]))  # (8)
    return FrameIP(cost, [], b.lo, b.hi, x_cols, [], route_cols, coo=b.coo())


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


def _kept(ranked: list[tuple[float, Route]], wb: list[int], rb: int, tight: list[bool]):
    """``(route, Σ link cost)`` of the routes wide enough for rb that dominance keeps:
    ``ranked`` is by price, so every route up to the first loose one (ties included, which
    is harmless)."""
    out = []
    for price, r in ranked:
        if any(wb[k] < rb for k in r.links):
            continue
        out.append((r, price))
        if not any(tight[k] for k in r.links):
            break  # loose: dominates every later (dearer or equal) route
    return out
