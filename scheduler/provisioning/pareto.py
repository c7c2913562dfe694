"""Pareto optimality, the Pareto archive, the choice by trade-off α, and hypervolume (thesis
§4.3, §4.5 "Updating the Pareto-optimal set", §4.6 eq. 15).

Both objectives — allocation cost AC and scheduling cost SC — are minimised.  Plan ``a``
*dominates* ``b`` when it is no worse in both and strictly better in one (thesis §4.3, after
Deb 2001).  An infeasible plan (``SC = ∞``) is dominated by every feasible plan (a constraint,
not an objective: the empty plan costs nothing but runs nothing) and never enters the archive.

Eq. 15: ``min over the Pareto set of α·AC_nr + (1 − α)·SC_nr`` with both costs normalised by the
set's own minimum and maximum; ``α = 1`` picks the cheapest plan, ``α = 0`` the fastest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "ParetoArchive",
    "choose_by_alpha",
    "dominates",
    "hypervolume",
    "hypervolume_ratio",
    "nondominated",
]


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether objective pair ``a`` dominates ``b`` (minimisation; infeasible = SC ∞)."""
    a_ok, b_ok = math.isfinite(a[1]), math.isfinite(b[1])
    if a_ok != b_ok:
        return a_ok
    if not a_ok:
        return False
    return a[0] <= b[0] and a[1] <= b[1] and (a[0] < b[0] or a[1] < b[1])


def nondominated(points: Sequence[Sequence[float]]) -> list[int]:
    """Indices of the feasible points no other point dominates (first of equal pairs kept),
    sorted by AC then SC."""
    order = sorted(
        (i for i, p in enumerate(points) if math.isfinite(p[1])),
        key=lambda i: (points[i][0], points[i][1], i),
    )
    out: list[int] = []
    best_sc = math.inf
    for i in order:
        if points[i][1] < best_sc:
            out.append(i)
            best_sc = points[i][1]
    return out


@dataclass
class ParetoArchive:
    """The non-dominated plans seen so far (thesis §4.5): one plan per objective pair."""

    ac: list[float] = field(default_factory=list)
    sc: list[float] = field(default_factory=list)
    plans: list[np.ndarray] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ac)

    def add(self, ac: float, sc: float, plan: np.ndarray) -> bool:
        """Add a plan unless an archived one dominates it or has the same costs; drop the
        archived plans it dominates.  Returns whether it was added."""
        if not math.isfinite(sc):
            return False
        for a, s in zip(self.ac, self.sc, strict=True):
            if a <= ac and s <= sc:  # dominates or equals
                return False
        keep = [i for i, (a, s) in enumerate(zip(self.ac, self.sc, strict=True))
                if not (ac <= a and sc <= s)]  # fmt: skip
        self.ac = [self.ac[i] for i in keep] + [ac]
        self.sc = [self.sc[i] for i in keep] + [sc]
        self.plans = [self.plans[i] for i in keep] + [np.array(plan, dtype=bool)]
        return True

    def front(self) -> list[tuple[float, float, np.ndarray]]:
        """The archive sorted by AC (then SC): ``(ac, sc, plan)``."""
        idx = sorted(range(len(self.ac)), key=lambda i: (self.ac[i], self.sc[i]))
        return [(self.ac[i], self.sc[i], self.plans[i]) for i in idx]


def choose_by_alpha(points: Sequence[Sequence[float]], alpha: float) -> int:
    """Thesis eq. 15: the index minimising ``α·AC_nr + (1 − α)·SC_nr`` over ``points`` (a
    Pareto set of ``(AC, SC)``), normalised by the set's min and max (a cost that does not vary
    counts 0).  Ties go to the lower AC, then the lower SC."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha!r}")
    if not points:
        raise ValueError("no plan to choose from")
    acs = [p[0] for p in points]
    scs = [p[1] for p in points]
    ac_lo, ac_span = min(acs), max(acs) - min(acs)
    sc_lo, sc_span = min(scs), max(scs) - min(scs)

    def score(i: int) -> tuple[float, float, float]:
        a = (acs[i] - ac_lo) / ac_span if ac_span > 0 else 0.0
        s = (scs[i] - sc_lo) / sc_span if sc_span > 0 else 0.0
        return (alpha * a + (1.0 - alpha) * s, acs[i], scs[i])

    return min(range(len(points)), key=score)


def hypervolume(points: Sequence[Sequence[float]], reference: Sequence[float]) -> float:
    """Area dominated by ``points`` and bounded by ``reference`` (2 objectives, minimised)."""
    rx, ry = reference
    pts = sorted((x, y) for x, y in points if x < rx and y < ry)
    area = 0.0
    prev_y = ry
    for x, y in pts:
        if y < prev_y:
            area += (rx - x) * (prev_y - y)
            prev_y = y
    return area


def hypervolume_ratio(
    front: Sequence[Sequence[float]], true_front: Sequence[Sequence[float]], margin: float = 0.1
) -> float:
    """Hypervolume of ``front`` over that of ``true_front`` (1 when they coincide).

    Both are normalised by the true front's minimum and range (a range of 0 counts 1) and the
    reference point is the true front's worst corner pushed out by ``margin`` of the range.
    """
    if not true_front:
        raise ValueError("the true front is empty")
    lo = [min(p[k] for p in true_front) for k in (0, 1)]
    span = [max(p[k] for p in true_front) - lo[k] or 1.0 for k in (0, 1)]

    def norm(pts: Sequence[Sequence[float]]) -> list[tuple[float, float]]:
        return [((p[0] - lo[0]) / span[0], (p[1] - lo[1]) / span[1]) for p in pts]

    ref = (1.0 + margin, 1.0 + margin)
    return hypervolume(norm(front), ref) / hypervolume(norm(true_front), ref)
