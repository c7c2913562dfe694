"""MOGA: Fonseca and Fleming's multi-objective genetic algorithm over resource plans (thesis §4.5,
Figure 11, eqs. 8–14).

A plan is a bit string over the advertised slots ``Â`` (bit ``i`` set: slot ``i`` is in the
plan).  Starting from ``population`` random bit strings (a uniform draw of a number between 0
and ``2^n − 1``, i.e. independent fair bits), each of ``generations`` iterations:

1. **rank** (eq. 8): ``r_i = 1 +`` the number of members that dominate ``i``; ``μ(r)`` is the
   number of members of rank ``r`` (eq. 9);
2. **fitness** (eq. 10): ``F_i = N − Σ_{k < r_i} μ(k) − 0.5 (μ(r_i) − 1)``;
3. **niche sharing** (eq. 11): among members of the same rank,
   ``d_ij = sqrt(((ac_i − ac_j)/(ac_max − ac_min))² + ((sc_i − sc_j)/(sc_max − sc_min))²)`` with
   the extremes taken over the population, ``Sh(d) = 1 − d/σ_share`` if ``d ≤ σ_share`` else 0,
   ``nc_i = Σ_j Sh(d_ij)`` (``j = i`` included); shared fitness ``F'_i = F_i / nc_i`` (eq. 12),
   rescaled so every rank keeps its total fitness ``μ(r)·F_r`` (eq. 13);
4. **selection** (eq. 14): ``N`` roulette draws with ``p_i = F'_i / Σ F'`` fill the mating pool;
5. **crossover**: the pool is shuffled and taken two by two; each pair swaps the bits between
   two random cut points (two-point crossover, always applied; the thesis gives no crossover
   probability); an odd last member is copied;
6. **mutation**: every bit of every offspring flips with probability ``1/n``;
7. the offspring replace the population, are evaluated, and the **archive** keeps the
   non-dominated plans seen so far (:class:`~.pareto.ParetoArchive`).

The initial population is evaluated and archived too, so a run evaluates
``population × (generations + 1)`` plans (fewer distinct ones: evaluations are cached by the
caller).  Infeasible plans (``SC = ∞``) count as dominated by every feasible one (they rank
below all feasible plans), and their distance to one another is 0 (they share a niche).

Everything random comes from one ``numpy.random.Generator(PCG64(seed))``: same seed, same run.

References: C. M. Fonseca and P. J. Fleming, "Genetic algorithms for multiobjective
optimization: formulation, discussion and generalization", ICGA 1993; K. Deb, *Multi-Objective
Optimization using Evolutionary Algorithms*, Wiley 2001, §5.7.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .pareto import ParetoArchive

__all__ = ["SIGMA_SHARE", "MogaResult", "moga", "moga_fitness"]

#: the thesis's niche radius σ_share (normalised objective space)
SIGMA_SHARE = 0.041

Evaluate = Callable[[np.ndarray], tuple[float, float]]


@dataclass(frozen=True)
class MogaResult:
    """The archive's front sorted by AC: ``(ac, sc, plan)``, and how many plans were scored."""

    front: list[tuple[float, float, np.ndarray]]
    evaluations: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "front", [(float(a), float(s), p) for a, s, p in self.front])

    @property
    def points(self) -> list[tuple[float, float]]:
        return [(a, s) for a, s, _ in self.front]


def moga_fitness(ac: np.ndarray, sc: np.ndarray, sigma_share: float = SIGMA_SHARE) -> np.ndarray:
    """Shared, rescaled fitness of each member (eqs. 8–13); infeasible members have ``sc = ∞``."""
    ac = np.asarray(ac, dtype=float)
    sc = np.asarray(sc, dtype=float)
    N = ac.size
    feasible = np.isfinite(sc)
    a = np.where(feasible, ac, np.inf)
    s = np.where(feasible, sc, np.inf)
    # dom[i, j]: i dominates j (an infeasible j is dominated by every feasible i)
    le = (a[:, None] <= a[None, :]) & (s[:, None] <= s[None, :])
    lt = (a[:, None] < a[None, :]) | (s[:, None] < s[None, :])
    dom = le & lt
    dom |= feasible[:, None] & ~feasible[None, :]
    rank = 1 + dom.sum(axis=0)
    mu = np.bincount(rank, minlength=N + 2)
    below = np.cumsum(mu) - mu  # members of lower rank
    F = N - below[rank] - 0.5 * (mu[rank] - 1)
    # niche counts among members of the same rank, in objective space normalised over the
    # feasible members of the population
    if feasible.any():
        fa, fs = ac[feasible], sc[feasible]
        span_a = fa.max() - fa.min()
        span_s = fs.max() - fs.min()
        na = np.where(feasible, (ac - fa.min()) / span_a if span_a > 0 else 0.0, 0.0)
        ns = np.where(feasible, (sc - fs.min()) / span_s if span_s > 0 else 0.0, 0.0)
    else:
        na = ns = np.zeros(N)
    d = np.hypot(na[:, None] - na[None, :], ns[:, None] - ns[None, :])
    d = np.where(feasible[:, None] != feasible[None, :], np.inf, d)
    sh = np.where(d <= sigma_share, 1.0 - d / sigma_share, 0.0)
    same = rank[:, None] == rank[None, :]
    nc = (sh * same).sum(axis=1)
    shared = F / nc
    # rescale: every rank keeps the total fitness it had before sharing
    total = np.bincount(rank, weights=shared, minlength=N + 2)
    return shared * (F * mu[rank]) / total[rank]


def _crossover(pool: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Two-point crossover of consecutive pairs of ``pool`` (rows); an odd last row is kept."""
    N, L = pool.shape
    out = pool.copy()
    pairs = N // 2
    if pairs == 0 or L < 2:
        return out
    cuts = np.sort(rng.integers(0, L + 1, size=(pairs, 2)), axis=1)
    idx = np.arange(L)
    seg = (idx[None, :] >= cuts[:, :1]) & (idx[None, :] < cuts[:, 1:])
    a, b = pool[0 : 2 * pairs : 2], pool[1 : 2 * pairs : 2]
    out[0 : 2 * pairs : 2] = np.where(seg, b, a)
    out[1 : 2 * pairs : 2] = np.where(seg, a, b)
    return out


def moga(
    evaluate: Evaluate,
    n_bits: int,
    *,
    population: int = 100,
    generations: int = 10,
    sigma_share: float = SIGMA_SHARE,
    seed: int = 0,
    seed_plans: Sequence[np.ndarray] = (),
) -> MogaResult:
    """Run MOGA over plans of ``n_bits`` bits; ``evaluate(plan) -> (AC, SC)``.

    ``seed_plans`` replace the first members of the random initial population (none by
    default: the thesis starts from random plans).  Returns the Pareto archive (feasible,
    non-dominated plans seen in the run).
    """
    if n_bits < 1:
        raise ValueError("there are no slots to choose from")
    if population < 2:
        raise ValueError(f"population must be >= 2, got {population}")
    if generations < 0:
        raise ValueError(f"generations must be >= 0, got {generations}")
    if not sigma_share > 0:
        raise ValueError(f"sigma_share must be > 0, got {sigma_share}")
    rng = np.random.Generator(np.random.PCG64(seed))
    archive = ParetoArchive()
    evaluations = 0

    def score(pop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        nonlocal evaluations
        ac = np.empty(len(pop))
        sc = np.empty(len(pop))
        for i, plan in enumerate(pop):
            ac[i], sc[i] = evaluate(plan)
            archive.add(ac[i], sc[i], plan)
        evaluations += len(pop)
        return ac, sc

    pop = rng.random((population, n_bits)) < 0.5
    for i, plan in enumerate(list(seed_plans)[:population]):
        pop[i] = np.asarray(plan, dtype=bool)
    ac, sc = score(pop)
    for _ in range(generations):
        fitness = moga_fitness(ac, sc, sigma_share)
        pool = pop[rng.choice(population, size=population, p=fitness / fitness.sum())]
        pool = pool[rng.permutation(population)]
        pop = _crossover(pool, rng)
        pop ^= rng.random(pop.shape) < 1.0 / n_bits
        ac, sc = score(pop)
    return MogaResult(archive.front(), evaluations)
