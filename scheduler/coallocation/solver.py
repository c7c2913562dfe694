"""Solving the 0-1 IP of one frame with HiGHS (Takefusa et al. 2010, "Comparison of planning times",
where GLPK solved it).

Both formulations (:mod:`.ip`, the seed's arcs; :mod:`.ip_routes`, routes) arrive as a
:class:`FrameIP` in row form.  :func:`solve_ip` returns the IP's optimum:

1. **LP first.**  The linear relaxation is solved (dual simplex, ~1 ms).  If it is infeasible,
   so is the IP.  If its optimal vertex is integral (every value within 1e-9 of 0 or 1, and
   the rounded point satisfies every row exactly), that point is optimal for the IP too — the
   relaxation's optimum bounds the IP's from below and the point is feasible for the IP.  On
   the route formulation this settles every frame of the seed's workload the bench replays.
2. **Dive and own branch and bound** (``dive``, highspy).  Requests whose paths
   form cycles leave the LP fractional and its bound often a unit below the optimum; HiGHS's
   root separation then spent seconds (up to its time limit) without lifting it.  Instead the
   LP is re-solved warm: :func:`_dive` fixes site assignments until the point is integral (an
   incumbent), then :func:`_branch` runs a depth-first branch and bound on the same warm LP.
   It is exact because the costs are integral up to a scale (checked; every 0-1 point's
   objective is then a multiple of 1/scale), so a node whose LP bound rounded up to such a
   multiple is no better than the incumbent holds nothing better.
3. **Otherwise the MIP** — HiGHS branch and cut on the same model, with ``mip_rel_gap = 0``
   (the default 1e-4 could stop short of the optimum when costs are not integral), started
   from the dive's point when there is one.

HiGHS runs single-threaded with a fixed random seed (deterministic answers); one ``Highs``
object per thread is reused for the relaxations (creating one costs more than solving a small
LP), a fresh one runs each branch and cut.  ``solver =
"scipy"`` calls the same HiGHS through ``scipy.optimize.linprog``/``milp`` (the bench compares
them).
"""

from __future__ import annotations

import hashlib
import math
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
    _arrays: tuple[np.ndarray, ...] | None = field(default=None, repr=False, compare=False)

    @property
    def n_cols(self) -> int:
        return len(self.cost)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """``(cost, row_lo, row_hi, start, index, value)`` — CSR by rows, numpy (computed
        once)."""
        if self._arrays is None:
            self._arrays = self._make_arrays()
        return self._arrays

    def content_key(self) -> tuple:
        """Equal for two IPs with the same model and the same meaning of every column (the
        same solution then serves both)."""
        digest = hashlib.blake2b(digest_size=16)
        for a in self.arrays():
            digest.update(np.ascontiguousarray(a).tobytes())
            digest.update(b"|")
        return (digest.digest(), tuple(self.x_cols), tuple(self.y_cols), tuple(self.route_cols))

    def _make_arrays(self) -> tuple[np.ndarray, ...]:
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
    ip: FrameIP,
    arrays: tuple[np.ndarray, ...],
    time_limit: float,
    lp_first: bool,
    dive: bool = True,
) -> tuple[np.ndarray | None, bool, bool, bool]:
    """``(column values or None, optimal, timed out, settled by the LP)``.  With ``dive``, a
    fractional LP optimum is followed by :func:`_dive` for a 0-1 point and, when the costs
    are integral up to a scale, by :func:`_branch` (exact); otherwise, or when that gives up,
    HiGHS branch and cut runs with the dive's point as its incumbent."""
    import highspy

    t0 = time.perf_counter()  # time_limit bounds the LP, the dive and branch and cut together
    status_t = highspy.HighsModelStatus
    cost, lo, hi, start, index, value = arrays
    n = ip.n_cols
    inf = highspy.kHighsInf
    lo = np.where(np.isinf(lo), -inf, lo)
    hi = np.where(np.isinf(hi), inf, hi)
    model = (n, len(lo), len(index), 2, 1, 0.0, cost, np.zeros(n), np.ones(n), lo, hi,
             start, index, value)  # fmt: skip
    start_point = None
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
            if dive:
                x = np.asarray(h.getSolution().col_value)
                start_point = _dive(h, x, len(ip.x_cols), arrays)
                scale = _scale(cost)
                if scale is not None:
                    point = _branch(h, ip, arrays, scale, start_point)
                    if point is not None:
                        return point, True, False, False
    h = _new_highs()
    h.setOptionValue("time_limit", _left(t0, time_limit))
    h.passModel(*model, np.ones(n, dtype=np.int32))
    if start_point is not None:
        incumbent = highspy.HighsSolution()
        incumbent.col_value = start_point.tolist()
        incumbent.value_valid = True
        h.setSolution(incumbent)
    h.run()
    status = h.getModelStatus()
    if status == status_t.kOptimal:
        return np.asarray(h.getSolution().col_value), True, False, False
    timed_out = status == status_t.kTimeLimit
    if h.getInfo().primal_solution_status == 2:  # a feasible point found before the limit
        return np.asarray(h.getSolution().col_value), False, timed_out, False
    return None, status == status_t.kInfeasible, timed_out, False


BRANCH_NODES = 400  # LPs of :func:`_branch` before HiGHS branch and cut takes over


def _branch(
    h, ip: FrameIP, arrays: tuple[np.ndarray, ...], scale: float, incumbent: np.ndarray | None
) -> np.ndarray | None:
    """Depth-first branch and bound on the LP in ``h`` (dual simplex from the last basis),
    for costs that are integral up to ``scale``: every 0-1 point's objective is a multiple of
    1/scale, so a node whose LP bound, rounded up to such a multiple, is no better than the
    incumbent holds nothing better and is dropped.  Branches on the fractional site
    assignment (x column) with the largest value, then on route columns; the branch setting
    it to 0 first (on the slowest mesh IPs of the bench: 3.6 s instead of 5.8 s in all).
    Returns an optimal 0-1 point, or None when :data:`BRANCH_NODES` LPs did not settle it
    (or an LP ended otherwise than optimal or infeasible) — then the caller runs HiGHS
    branch and cut."""
    import highspy

    status_t = highspy.HighsModelStatus
    cost = arrays[0]
    n, n_x = ip.n_cols, len(ip.x_cols)
    best = math.inf if incumbent is None else round(float(cost @ incumbent) * scale)
    lb, ub = np.zeros(n), np.ones(n)  # the bounds now in h (the dive changed some)
    h.changeColsBounds(n, np.arange(n, dtype=np.int32), lb, ub)
    stack: list[list[tuple[int, float]]] = [[]]
    nodes = 0
    while stack:
        fixes = stack.pop()
        nodes += 1
        if nodes > BRANCH_NODES:
            return None
        want_lb, want_ub = np.zeros(n), np.ones(n)
        for c, v in fixes:
            want_lb[c] = want_ub[c] = v
        diff = np.flatnonzero((want_lb != lb) | (want_ub != ub)).astype(np.int32)
        if len(diff):
            h.changeColsBounds(len(diff), diff, want_lb[diff], want_ub[diff])
            lb, ub = want_lb, want_ub
        h.run()
        status = h.getModelStatus()
        if status == status_t.kInfeasible:
            continue
        if status != status_t.kOptimal:
            return None
        bound = h.getInfo().objective_function_value * scale
        if math.ceil(bound - 1e-3 - 1e-9 * abs(bound)) >= best:  # margin for LP tolerances
            continue
        x = np.asarray(h.getSolution().col_value)
        point = _integral_point(x, arrays)
        if point is not None:
            found = round(float(cost @ point) * scale)
            if found < best:
                best, incumbent = found, point
            continue
        frac = np.where(x[:n_x] < 1 - _INTEGRAL, x[:n_x], 0.0)  # the likeliest assignment
        if frac.max() <= _INTEGRAL:
            frac = np.minimum(x, 1 - x)
        c = int(np.argmax(frac))
        stack.append(fixes + [(c, 1.0)])
        stack.append(fixes + [(c, 0.0)])  # explored first (the dive tried the 1 side)
    return incumbent


DIVE_STEPS = 40  # LP re-solves of :func:`_dive` (the search for an incumbent)


def _scale(cost: np.ndarray) -> float | None:
    """The least s in 1..1000 with every ``s·cost`` integral (then every 0-1 point's
    objective is a multiple of 1/s), or None."""
    for s in (1, 2, 4, 5, 8, 10, 20, 100, 1000):
        scaled = cost * s
        if np.all(np.abs(scaled - np.rint(scaled)) <= 1e-9 * np.maximum(1.0, np.abs(scaled))):
            return float(s)
    return None


def _dive(h, x: np.ndarray, n_x: int, arrays: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """A feasible 0-1 point near the LP optimum in ``h``: fix the site assignment (x column)
    with the largest fractional value to 1 and re-solve (dual simplex from the last basis),
    to 0 when that is infeasible; the first integral LP optimum is returned.  Leaves ``h``
    with changed bounds (the caller re-passes the model)."""
    import highspy

    optimal = highspy.HighsModelStatus.kOptimal
    fixed = np.zeros(len(x), dtype=bool)
    for _ in range(DIVE_STEPS):
        frac = np.where(fixed[:n_x], -1.0, x[:n_x])
        frac[(frac <= _INTEGRAL) | (frac >= 1 - _INTEGRAL)] = -1.0
        if frac.max() < 0:  # the assignment is integral: branch on a route column
            frac = np.where(fixed, -1.0, np.minimum(x, 1 - x))
            frac[frac <= _INTEGRAL] = -1.0
            if frac.max() < 0:
                return None
        c = int(np.argmax(frac))
        fixed[c] = True
        h.changeColBounds(c, 1.0, 1.0)
        h.run()
        if h.getModelStatus() != optimal:
            h.changeColBounds(c, 0.0, 0.0)
            h.run()
            if h.getModelStatus() != optimal:
                return None
        x = np.asarray(h.getSolution().col_value)
        point = _integral_point(x, arrays)
        if point is not None:
            return point
    return None


def _left(t0: float, time_limit: float) -> float:
    """What is left of ``time_limit`` seconds since ``t0`` (at least 1 ms: the solver then
    returns at once with the incumbent it was given, if any)."""
    return max(float(time_limit) - (time.perf_counter() - t0), 0.001)


def _solve_scipy(
    ip: FrameIP, arrays: tuple[np.ndarray, ...], time_limit: float, lp_first: bool
) -> tuple[np.ndarray | None, bool, bool, bool]:
    from scipy.optimize import Bounds, LinearConstraint, linprog, milp
    from scipy.sparse import csr_array

    t0 = time.perf_counter()  # time_limit bounds the LP and the MILP together

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
        options={"time_limit": _left(t0, time_limit), "presolve": True, "mip_rel_gap": 0.0},
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
    dive: bool = True,
) -> tuple[IPSolution | None, float, bool, bool]:
    """Solve; return ``(solution or None, seconds, timed_out, branch and cut ran)``.  ``ends``
    are the requested sites (o, p) of every requested path, in order; ``dive``: :func:`_dive`
    and :func:`_branch` for a fractional LP optimum (highspy only)."""
    t0 = time.perf_counter()
    arrays = ip.arrays()
    if solver == "highs":
        sol, optimal, timed_out, by_lp = _solve_highs(ip, arrays, time_limit, lp_first, dive)
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
