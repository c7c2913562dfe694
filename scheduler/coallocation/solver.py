"""Solving the 0-1 IP of one frame with HiGHS (SPEC §9; seed 001 "Comparison of planning times",
where GLPK solved it).

Both formulations (:mod:`.ip`, the seed's arcs; :mod:`.ip_routes`, routes) arrive as a
:class:`FrameIP` in row form.  :func:`solve_ip` returns the IP's optimum:

1. **LP first.**  The linear relaxation is solved (dual simplex, ~1 ms).  If it is infeasible,
   so is the IP.  If its optimal vertex is integral (every value within 1e-9 of 0 or 1, and
   the rounded point satisfies every row exactly), that point is optimal for the IP too — the
   relaxation's optimum bounds the IP's from below and the point is feasible for the IP.  On
   the route formulation this settles every frame of the seed's workload the bench replays.
2. **Otherwise the MIP** — HiGHS branch and cut on the same model, with ``mip_rel_gap = 0``
   (the default 1e-4 could stop short of the optimum when costs are not integral).

HiGHS runs single-threaded with a fixed random seed (deterministic answers); one ``Highs``
object per thread is reused for the relaxations (creating one costs more than solving a small
LP), a fresh one runs each branch and cut.  ``solver =
"scipy"`` calls the same HiGHS through ``scipy.optimize.linprog``/``milp`` (the bench compares
them).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

__all__ = ["FrameIP", "IPSolution", "solve_ip", "SOLVERS"]

SOLVERS = ("highs", "scipy")
_INTEGRAL = 1e-9


@dataclass(frozen=True)
class IPSolution:
    """An optimal (or best found within the time limit) assignment."""

    mapping: tuple[int, ...]  # requested site j -> site index i
    routes: tuple[tuple[int, ...], ...]  # per path l: nodes from o's site to p's, () if rb = 0
    objective: float
    optimal: bool
    lp: bool = False  # settled by the linear relaxation (its vertex was integral)


@dataclass
class FrameIP:
    """The model in row form: ``row_lo <= A x <= row_hi``, 0-1 columns."""

    cost: list[float]
    rows: list[list[tuple[int, float]]]
    row_lo: list[float]
    row_hi: list[float]
    x_cols: list[tuple[int, int]]  # column -> (site i, requested j)
    y_cols: list[tuple[int, int, int, int]]  # arcs: (column, from node, to node, path l)
    route_cols: list[tuple[int, int, tuple[int, ...]]] = field(default_factory=list)
    # routes (:mod:`.ip_routes`): (column, path l, route nodes)
    coo: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    # the matrix as (row, column, value) triplets instead of ``rows``

    @property
    def n_cols(self) -> int:
        return len(self.cost)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """``(cost, row_lo, row_hi, start, index, value)`` — CSR by rows, numpy."""
        n_rows = len(self.row_lo)
        start = np.zeros(n_rows + 1, dtype=np.int32)
        if self.coo is not None:
            r, c, v = self.coo
            order = np.argsort(r, kind="stable")
            np.cumsum(np.bincount(r, minlength=n_rows), out=start[1:])
            index = c[order].astype(np.int32)
            value = v[order].astype(np.float64)
        else:
            np.cumsum([len(r) for r in self.rows], out=start[1:])
            flat = [e for r in self.rows for e in r]
            index = np.fromiter((c for c, _ in flat), dtype=np.int32, count=len(flat))
            value = np.fromiter((v for _, v in flat), dtype=np.float64, count=len(flat))
        return (
            np.asarray(self.cost, dtype=np.float64),
            np.asarray(self.row_lo, dtype=np.float64),
            np.asarray(self.row_hi, dtype=np.float64),
            start,
            index,
            value,
        )


def _integral_point(x: np.ndarray | None, arrays: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """The rounded point when ``x`` is integral and the rounding satisfies every row."""
    if x is None or len(x) == 0:
        return None
    r = np.rint(x)
    if np.max(np.abs(x - r)) > _INTEGRAL or r.min() < 0 or r.max() > 1:
        return None
    _, lo, hi, start, index, value = arrays
    act = np.add.reduceat(value * r[index], start[:-1]) if len(index) else np.zeros(len(lo))
    act[start[:-1] == start[1:]] = 0.0  # reduceat repeats a value for empty rows
    if np.any(act < lo - 1e-9) or np.any(act > hi + 1e-9):
        return None
    return r


_local = threading.local()


def _new_highs():
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    h.setOptionValue("mip_rel_gap", 0.0)
    return h


def _lp_highs():
    """This thread's ``Highs`` for linear relaxations (branch and cut gets a fresh one).  Its
    clock runs on across models and ``time_limit`` is checked against that total, so every
    run sets the limit from the current reading."""
    h = getattr(_local, "highs", None)
    if h is None:
        h = _local.highs = _new_highs()
        h.setOptionValue("presolve", "off")  # halves the LP time on these models (bench)
    else:
        h.clearModel()
    return h


def _solve_highs(
    ip: FrameIP, arrays: tuple[np.ndarray, ...], time_limit: float, lp_first: bool
) -> tuple[np.ndarray | None, bool, bool, bool]:
    """``(column values or None, optimal, timed out, settled by the LP)``."""
    import highspy

    status_t = highspy.HighsModelStatus
    cost, lo, hi, start, index, value = arrays
    n = ip.n_cols
    inf = highspy.kHighsInf
    lo = np.where(np.isinf(lo), -inf, lo)
    hi = np.where(np.isinf(hi), inf, hi)
    model = (n, len(lo), len(index), 2, 1, 0.0, cost, np.zeros(n), np.ones(n), lo, hi,
             start, index, value)  # fmt: skip
    if lp_first:
        h = _lp_highs()
        h.setOptionValue("time_limit", h.getRunTime() + float(time_limit))
        h.passModel(*model, np.zeros(n, dtype=np.int32))
        h.run()
        status = h.getModelStatus()
        if status == status_t.kInfeasible:
            return None, True, False, True
        if status == status_t.kOptimal:
            point = _integral_point(np.asarray(h.getSolution().col_value), arrays)
            if point is not None:
                return point, True, False, True
    h = _new_highs()
    h.setOptionValue("time_limit", float(time_limit))
    h.passModel(*model, np.ones(n, dtype=np.int32))
    h.run()
    status = h.getModelStatus()
    if status == status_t.kOptimal:
        return np.asarray(h.getSolution().col_value), True, False, False
    timed_out = status == status_t.kTimeLimit
    if h.getInfo().primal_solution_status == 2:  # a feasible point found before the limit
        return np.asarray(h.getSolution().col_value), False, timed_out, False
    return None, status == status_t.kInfeasible, timed_out, False


def _solve_scipy(
    ip: FrameIP, arrays: tuple[np.ndarray, ...], time_limit: float, lp_first: bool
) -> tuple[np.ndarray | None, bool, bool, bool]:
    from scipy.optimize import Bounds, LinearConstraint, linprog, milp
    from scipy.sparse import csr_array

    cost, lo, hi, start, index, value = arrays
    a = csr_array((value, index, start), shape=(len(lo), ip.n_cols))
    if lp_first:
        up, lw = np.isfinite(hi), np.isfinite(lo)
        eq = up & lw & (lo == hi)
        ub_rows = up & ~eq
        lb_rows = lw & ~eq
        a_ub = [a[ub_rows], -a[lb_rows]]
        b_ub = np.concatenate([hi[ub_rows], -lo[lb_rows]])
        from scipy.sparse import vstack

        res = linprog(
            cost, A_ub=vstack(a_ub) if len(b_ub) else None, b_ub=b_ub if len(b_ub) else None,
            A_eq=a[eq] if eq.any() else None, b_eq=lo[eq] if eq.any() else None,
            bounds=(0, 1), method="highs-ds", options={"time_limit": float(time_limit)},
        )  # fmt: skip
        if res.status == 2:
            return None, True, False, True
        if res.status == 0:
            point = _integral_point(np.asarray(res.x), arrays)
            if point is not None:
                return point, True, False, True
    res = milp(
        cost,
        constraints=LinearConstraint(a, lo, hi),
        integrality=np.ones(ip.n_cols),
        bounds=Bounds(0, 1),
        options={"time_limit": float(time_limit), "presolve": True, "mip_rel_gap": 0.0},
    )
    timed_out = res.status == 1  # iteration or time limit
    if res.x is None:
        return None, res.status == 2, timed_out, False
    return np.asarray(res.x), res.status == 0, timed_out, False


def solve_ip(
    ip: FrameIP,
    ends: list[tuple[int, int]],
    *,
    solver: str = "highs",
    time_limit: float = 10.0,
    lp_first: bool = True,
) -> tuple[IPSolution | None, float, bool, bool]:
    """Solve; return ``(solution or None, seconds, timed_out, branch and cut ran)``.  ``ends``
    are the requested sites (o, p) of every requested path, in order."""
    t0 = time.perf_counter()
    arrays = ip.arrays()
    if solver == "highs":
        sol, optimal, timed_out, by_lp = _solve_highs(ip, arrays, time_limit, lp_first)
    elif solver == "scipy":
        sol, optimal, timed_out, by_lp = _solve_scipy(ip, arrays, time_limit, lp_first)
    else:
        raise ValueError(f"unknown solver {solver!r} (known: {', '.join(SOLVERS)})")
    seconds = time.perf_counter() - t0
    if sol is None:
        return None, seconds, timed_out, not by_lp
    chosen = np.flatnonzero(sol > 0.5)
    picked = set(chosen.tolist())
    n_x = len(ip.x_cols)
    mapping: dict[int, int] = {}
    for c in chosen:
        if c >= n_x:
            break
        i, j = ip.x_cols[c]
        mapping[j] = i
    routes: list[tuple[int, ...]] = [() for _ in ends]
    if ip.route_cols:
        for c, l_idx, nodes in ip.route_cols:
            if c in picked:
                routes[l_idx] = nodes
    else:
        arcs: list[list[tuple[int, int]]] = [[] for _ in ends]
        for c, u, w, l_idx in ip.y_cols:
            if c in picked:
                arcs[l_idx].append((u, w))
        for l_idx, (o, p) in enumerate(ends):
            if arcs[l_idx]:
                routes[l_idx] = _walk(arcs[l_idx], mapping[o], mapping[p])
    objective = float(sum(ip.cost[c] for c in chosen))
    result = IPSolution(
        tuple(mapping[j] for j in range(len(mapping))), tuple(routes), objective, optimal, by_lp
    )
    return result, seconds, timed_out, not by_lp


def _walk(arcs: list[tuple[int, int]], src: int, dst: int) -> tuple[int, ...]:
    """The simple path src -> dst inside the chosen arcs (flow conservation guarantees one;
    zero-cost cycles the solver may add are short-cut)."""
    out: dict[int, list[int]] = {}
    for u, v in arcs:
        out.setdefault(u, []).append(v)
    walk = [src]
    node = src
    while node != dst:
        node = out[node].pop()
        if node in walk:  # a cycle: cut it
            del walk[walk.index(node) + 1 :]
        else:
            walk.append(node)
    return tuple(walk)
