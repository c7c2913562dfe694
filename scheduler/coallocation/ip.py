"""The 0-1 integer program of one time frame (Takefusa et al. 2010, equations (1)–(11)).

Variables: ``x[i, j]`` = 1 when site i serves requested site j (1), ``y[a, l]`` = 1 when arc a —
one direction of an undirected link k — carries requested path l (2).  Minimise (3)

    Σ c_i · rc_j · x[i, j]  +  Σ c_k · rb_l · y[a, l]

subject to

* (4) every requested site is mapped to exactly one site;
* (5) a site serves at most one requested site;
* (6) CPU capacity ``rc_j · x[i, j] <= wc_i``: with (5) this is exactly "no x[i, j] with
  rc_j > wc_i", so those variables are not created (the solver's presolve would do the same);
* (7) a path with rb_l > 0 uses at least one arc; one with rb_l = 0 none (no variables);
* (8) both directions of link k share its bandwidth: Σ_l rb_l (y[k→, l] + y[k←, l]) <= wb_k
  (arcs of a link too thin for rb_l alone are not created; the row is dropped only when the
  paths with arcs on k cannot exceed wb_k together: Σ rb_l over them, twice for a path that
  may use both directions, i.e. without (10));
* (9) flow conservation for l = (o, p) at every vertex m: out − in = x[m, o] − x[m, p] (one
  unit of flow from o's site to p's site; exchange points have no x, so 0);
* (10) optional: no path uses both directions of a link;
* (11) optional: at most P_max links per path (the seed's "-st" runs: P_max = 2); with it,
  arcs that cannot lie on a path of <= P_max links between eligible sites are not created.

``tighten`` adds the valid inequalities "out-flow of a site >= x[m, o]" and "in-flow >=
x[m, p]" (true of every 0-1 point): they lift the LP bound, which otherwise lets x[m, o] =
x[m, p] = 1/2 cancel in (9) and route nothing; the bench measures whether it pays.

The objective values ``c`` are given per call, which is how the user option "quality" and the
administrator options (A) and (B) act (they re-weight it; :mod:`.admin_options`), while (C)
acts on ``wc``/``wb``.

This is the seed's formulation, kept as ``PlannerConfig(formulation="arcs")`` and used when
there is no P_max (the simple routes are then too many to list); the planner's default is the
route formulation of :mod:`.ip_routes`, which has the same optimum and a much tighter LP
relaxation.  Solving: :mod:`.solver`.
"""

from __future__ import annotations

import math

from .solver import SOLVERS, FrameIP, IPSolution, solve_ip

__all__ = ["FrameIP", "IPSolution", "build_ip", "solve_ip", "SOLVERS"]


def build_ip(
    n_nodes: int,
    site_nodes: int,
    links: list[tuple[int, int]],
    wc: list[int],
    wb: list[int],
    site_cost: list[float],
    link_cost: list[float],
    rc: list[int],
    paths: list[tuple[int, int, int]],
    *,
    two_way: bool = True,
    p_max: int | None = 2,
    tighten: bool = False,
) -> FrameIP | None:
    """The IP of one frame, or None when a requested site has no site big enough.

    Nodes ``0 .. site_nodes - 1`` are sites (their ``wc``), the rest exchange points; ``links``
    are node pairs with available ``wb`` (Mbps) and cost per Gbps; ``paths`` are
    ``(o, p, rb_mbps)`` between requested-site indices.
    """
    cost: list[float] = []
    x_cols: list[tuple[int, int]] = []
    x_of: dict[tuple[int, int], int] = {}
    for j, need in enumerate(rc):
        found = False
        for i in range(site_nodes):
            if wc[i] >= need:
                x_of[i, j] = len(cost)
                x_cols.append((i, j))
                cost.append(site_cost[i] * need)
                found = True
        if not found:
            return None
    rows: list[list[tuple[int, float]]] = []
    lo: list[float] = []
    hi: list[float] = []
    # (4)
    for j in range(len(rc)):
        rows.append([(x_of[i, j], 1.0) for i in range(site_nodes) if (i, j) in x_of])
        lo.append(1.0)
        hi.append(1.0)
    # (5)
    for i in range(site_nodes):
        r = [(x_of[i, j], 1.0) for j in range(len(rc)) if (i, j) in x_of]
        if len(r) > 1:
            rows.append(r)
            lo.append(-math.inf)
            hi.append(1.0)
    y_cols: list[tuple[int, int, int, int]] = []
    link_use: list[list[tuple[int, float]]] = [[] for _ in links]
    # the most a link can carry if the row were left out: per path rb_l once when (10) forbids
    # using both directions (or only one was created), twice otherwise
    link_most: list[float] = [0.0] * len(links)
    for l_idx, (o, p, rb) in enumerate(paths):
        if rb <= 0:
            continue  # (7), rb_l = 0: no arc may carry it, so none is created
        out_arcs: list[list[int]] = [[] for _ in range(n_nodes)]
        in_arcs: list[list[int]] = [[] for _ in range(n_nodes)]
        path_cols: list[int] = []
        gbps = rb / 1000.0
        usable = [k for k in range(len(links)) if wb[k] >= rb]
        if p_max is not None:
            # exact reduction under (11): an arc u -> v can lie on a path of <= P_max links
            # only if hops(site of o, u) + 1 + hops(v, site of p) <= P_max
            src = _hops(n_nodes, links, usable, [i for i in range(site_nodes) if (i, o) in x_of])
            dst = _hops(n_nodes, links, usable, [i for i in range(site_nodes) if (i, p) in x_of])
        for k in usable:
            a, b = links[k]
            pair = []
            for u, v in ((a, b), (b, a)):
                if p_max is not None and src[u] + 1 + dst[v] > p_max:
                    continue
                c = len(cost)
                cost.append(link_cost[k] * gbps)
                y_cols.append((c, u, v, l_idx))
                out_arcs[u].append(c)
                in_arcs[v].append(c)
                link_use[k].append((c, float(rb)))
                path_cols.append(c)
                pair.append(c)
            if two_way and len(pair) == 2:  # (10)
                rows.append([(pair[0], 1.0), (pair[1], 1.0)])
                lo.append(-math.inf)
                hi.append(1.0)
            link_most[k] += rb * (1 if two_way else len(pair))
        if not path_cols:
            return None
        # (7)
        rows.append([(c, 1.0) for c in path_cols])
        lo.append(1.0)
        hi.append(math.inf if p_max is None else float(p_max))  # (11) shares the row
        # (9)
        for m in range(n_nodes):
            r = [(c, 1.0) for c in out_arcs[m]] + [(c, -1.0) for c in in_arcs[m]]
            if m < site_nodes:
                if (m, o) in x_of:
                    r.append((x_of[m, o], -1.0))
                if (m, p) in x_of:
                    r.append((x_of[m, p], 1.0))
            if r:
                rows.append(r)
                lo.append(0.0)
                hi.append(0.0)
            if tighten and m < site_nodes:
                # valid for 0-1 points: the site of o sends, the site of p receives.  Without
                # them the LP cancels x[m, o] = x[m, p] = 1/2 and routes nothing (bound only)
                if (m, o) in x_of:
                    rows.append([(c, 1.0) for c in out_arcs[m]] + [(x_of[m, o], -1.0)])
                    lo.append(0.0)
                    hi.append(math.inf)
                if (m, p) in x_of:
                    rows.append([(c, 1.0) for c in in_arcs[m]] + [(x_of[m, p], -1.0)])
                    lo.append(0.0)
                    hi.append(math.inf)
    # (8): a row for every link an arc uses, unless the paths cannot exceed wb_k together.
    # (Counting each path's arcs and halving was wrong: P_max pruning may create only one
    # direction of a link for a path, and then two paths at rb = wb_k looked like one.)
    for k, use in enumerate(link_use):
        if use and link_most[k] > wb[k]:
            rows.append(use)
            lo.append(-math.inf)
            hi.append(float(wb[k]))
    return FrameIP(cost, rows, lo, hi, x_cols, y_cols)


def _hops(n: int, links: list[tuple[int, int]], usable: list[int], start: list[int]) -> list:
    """Breadth-first hop counts from ``start`` over the usable links (inf where unreachable)."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for k in usable:
        a, b = links[k]
        adj[a].append(b)
        adj[b].append(a)
    dist = [math.inf] * n
    frontier = list(start)
    for v in frontier:
        dist[v] = 0
    while frontier:
        nxt = []
        for v in frontier:
            for w in adj[v]:
                if dist[w] == math.inf:
                    dist[w] = dist[v] + 1
                    nxt.append(w)
        frontier = nxt
    return dist
