"""MOGA (thesis §4.5, eqs. 8–14), the Pareto archive, the choice by α (eq. 15), and MOGA's
front against exhaustive search on small instances."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scheduler.cluster import Profile
from scheduler.provisioning import (
    ParetoArchive,
    PlanEvaluator,
    choose_by_alpha,
    dominates,
    exhaustive_front,
    hypervolume,
    hypervolume_ratio,
    moga,
    moga_fitness,
    nondominated,
)
from scheduler.slots import advertise
from scheduler.workflows import generate_layered

INF = math.inf


def test_dominance_with_infeasible_plans():
    assert dominates((1, 2), (1, 3)) and dominates((1, 2), (2, 2))
    assert not dominates((1, 2), (1, 2)) and not dominates((1, 3), (2, 2))
    assert dominates((100, 5), (0, INF))  # feasible beats infeasible, whatever it costs
    assert not dominates((0, INF), (1, INF))
    assert nondominated([(3, 3), (1, 4), (2, 2), (4, 1), (0, INF), (2, 2)]) == [1, 2, 3]


def test_fitness_by_hand():
    # (1, 4), (2, 2), (4, 1) are non-dominated (rank 1, μ = 3); (3, 3) is dominated by (2, 2)
    # only (rank 2).  Eq. 10 with N = 4: F = 4 − 0 − 0.5·2 = 3 and 4 − 3 − 0 = 1.  The points
    # are far apart for σ = 0.041, so niche counts are 1 and sharing changes nothing.
    ac = np.array([1.0, 2.0, 3.0, 4.0])
    sc = np.array([4.0, 2.0, 3.0, 1.0])
    assert moga_fitness(ac, sc).tolist() == [3.0, 3.0, 1.0, 3.0]
    # a wide niche shares fitness inside rank 1, but the rank keeps its total (eq. 13)
    wide = moga_fitness(ac, sc, sigma_share=2.0)
    assert wide[[0, 1, 3]].sum() == pytest.approx(9.0) and wide[2] == pytest.approx(1.0)
    assert wide[1] < wide[0]  # the middle point is the most crowded
    # infeasible members rank below every feasible one
    f = moga_fitness(np.array([0.0, 5.0, 6.0]), np.array([INF, 2.0, 1.0]))
    assert f[0] < min(f[1], f[2])


def test_archive_keeps_non_dominated_plans_once():
    a = ParetoArchive()
    plan = np.zeros(3, bool)
    assert a.add(2, 2, plan) and a.add(1, 3, plan) and a.add(3, 1, plan)
    assert not a.add(2, 2, plan) and not a.add(2.5, 2.5, plan) and not a.add(0, INF, plan)
    assert a.add(1, 1, plan)  # dominates all three
    assert [(x, y) for x, y, _ in a.front()] == [(1, 1)]


def test_choice_by_alpha_eq_15():
    front = [(10.0, 9.0), (12.0, 5.0), (20.0, 1.0)]
    assert choose_by_alpha(front, 1.0) == 0  # cheapest
    assert choose_by_alpha(front, 0.0) == 2  # fastest
    # α = 0.5: normalised (0, 1), (0.2, 0.5), (1, 0) → 0.5, 0.35, 0.5
    assert choose_by_alpha(front, 0.5) == 1
    assert choose_by_alpha([(3.0, 3.0)], 0.3) == 0
    with pytest.raises(ValueError):
        choose_by_alpha(front, 1.5)


def test_hypervolume_by_hand():
    assert hypervolume([(1, 2), (2, 1)], (3, 3)) == pytest.approx(2 + 1 * 1)
    assert hypervolume_ratio([(0, 1), (1, 0)], [(0, 1), (1, 0)]) == pytest.approx(1.0)
    assert hypervolume_ratio([(1, 0)], [(0, 1), (1, 0)]) < 1.0


def small_instance(seed: int, n_jobs: int = 5):
    """A random small site plan (a handful of slots) and a small layered workflow."""
    rng = np.random.default_rng(seed)
    profile = Profile(8)
    for _ in range(n_jobs):
        start, dur, procs = int(rng.integers(0, 4000)), int(rng.integers(500, 3000)), 1
        procs = int(rng.integers(1, 6))
        s = profile.earliest_start(procs, dur, start)
        profile.reserve(s, s + dur, procs)
    slots = advertise(profile, 0, until=20_000)
    wf = generate_layered(6, 3, mean_runtime=800, mean_processors=3, max_processors=8, seed=seed)
    return PlanEvaluator(wf, slots, sites=[""], submit=0), len(slots)


@pytest.mark.parametrize("seed", [1, 3, 7, 10])
def test_moga_front_is_non_dominated_and_equals_the_exhaustive_front(seed):
    ev, n = small_instance(seed)
    assert 3 <= n <= 12
    result = moga(ev.evaluate, n, population=40, generations=25, seed=seed)
    points = result.points
    assert points, "MOGA found no feasible plan"
    for p in points:
        assert math.isfinite(p[1])
        assert not any(dominates(q, p) for q in points)
        assert ev.evaluate(next(m for a, s, m in result.front if (a, s) == p)) == p
    true = [(a, s) for a, s, _ in exhaustive_front(ev.evaluate, n)]
    assert points == true
    assert hypervolume_ratio(points, true) == pytest.approx(1.0)


def test_alpha_picks_the_cheapest_and_the_fastest_plan_of_all():
    ev, n = small_instance(2)
    true = [(a, s) for a, s, _ in exhaustive_front(ev.evaluate, n)]
    result = moga(ev.evaluate, n, population=40, generations=25, seed=2)
    pts = result.points
    cheapest = min(a for a, _ in true)
    fastest = min(s for _, s in true)
    assert pts[choose_by_alpha(pts, 1.0)][0] == cheapest
    assert pts[choose_by_alpha(pts, 0.0)][1] == fastest


def test_moga_is_seeded_and_counts_evaluations():
    ev, n = small_instance(3)
    a = moga(ev.evaluate, n, population=20, generations=4, seed=7)
    b = moga(ev.evaluate, n, population=20, generations=4, seed=7)
    assert a.points == b.points
    assert a.evaluations == 20 * 5
    with pytest.raises(ValueError):
        moga(ev.evaluate, 0)


def test_seed_plans_enter_the_initial_population():
    ev, n = small_instance(1)
    full = np.ones(n, bool)
    r = moga(ev.evaluate, n, population=4, generations=0, seed=0, seed_plans=[full])
    ac, sc = ev.evaluate(full)
    assert any(p == (ac, sc) or dominates(p, (ac, sc)) for p in r.points)
