"""The QBETS-like wait predictor (thesis ch. 6, eq. 21): binomial bounds, the
probability inversion, job classes, change-point trimming, calibration, history feeding."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.cluster import Simulator
from scheduler.cluster.jobs import SimJob
from scheduler.reservations.history import SiteHistory
from scheduler.reservations.predictor import (
    Pool,
    WaitPredictor,
    bound_index,
    min_history_for,
    proc_class,
    req_class,
)


def binom_cdf(j: int, n: int, q: float) -> float:
    """Exact P(Binom(n, q) <= j), summed term by term (independent of scipy)."""
    return sum(math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(j + 1))


def test_bound_index_hand_worked():
    # n = 59, q = C = 0.95: P(X <= 58) = 1 - 0.95^59 = 0.9515 >= 0.95 and
    # P(X <= 57) = 1 - 0.95^59 - 59·0.05·0.95^58 = 0.80 < 0.95: the largest sample (index 58)
    assert bound_index(59, 0.95, 0.95) == 58
    # n = 58: 1 - 0.95^58 = 0.9490 < 0.95 even for the largest: no bound
    assert bound_index(58, 0.95, 0.95) is None
    # the median of 100 at 95 %: binomial tables give P(X <= 58) = 0.9557, P(X <= 57) = 0.9334
    assert bound_index(100, 0.5, 0.95) == 58
    assert min_history_for(0.95, 0.95) == 59
    assert min_history_for(0.5, 0.95) == 5  # 1 - 0.5^5 = 0.969; 1 - 0.5^4 = 0.9375


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.integers(1, 120),
    st.sampled_from([0.25, 0.5, 0.75, 0.9, 0.95]),
    st.sampled_from([0.8, 0.9, 0.95]),
)
def test_bound_index_is_the_smallest_order_statistic_with_enough_confidence(n, q, c):
    j = bound_index(n, q, c)
    exact = next((k for k in range(n) if binom_cdf(k, n, q) >= c - 1e-12), None)
    assert j == exact


def test_binomial_kernels_equal_scipy_stats_binom():
    """bound_index calls SciPy's binomial kernels without importing scipy.stats (for the
    start-up and cold requests); they must give scipy.stats.binom's values exactly, so the
    bounds — and every prediction — are those computed through scipy.stats."""
    from scipy.stats import binom

    from scheduler.reservations import predictor

    rng = random.Random(21)
    cases = [(n, 0.95, 0.95) for n in (*range(1, 400), 1000, 5000, 20000, 77222)]
    qs, cs = (0.25, 0.5, 0.75, 0.9, 0.95, 0.99), (0.5, 0.8, 0.9, 0.95, 0.99)
    cases += [(rng.randint(1, 80000), rng.choice(qs), rng.choice(cs)) for _ in range(300)]
    for n, q, c in cases:
        ppf = float(binom.ppf(c, n, q))
        assert predictor.binom_ppf(c, n, q) == ppf
        for k in {int(ppf) - 2, int(ppf) - 1, int(ppf), int(ppf) + 1, -1, 0, n - 1, n, n + 1}:
            assert predictor.binom_cdf(k, n, q) == float(binom.cdf(k, n, q)), (k, n, q, c)
        j = int(ppf)  # the bound through scipy.stats, as bound_index defines it
        while j > 0 and binom.cdf(j - 1, n, q) >= c:
            j -= 1
        while j < n and binom.cdf(j, n, q) < c:
            j += 1
        assert predictor.bound_index(n, q, c) == (j if j < n else None)


def test_probability_hand_worked():
    pool = Pool("t")
    for w in range(1, 60):  # 59 waits 1..59 s
        pool.add(w, 0.95, 0.95, 0, 59)
    # all 59 within the deadline: P(X <= 58) = 1 - q^59 = 0.95  =>  q = 0.05^(1/59)
    assert pool.prob_within(100, 0.95) == pytest.approx(0.05 ** (1 / 59))
    assert pool.prob_within(0, 0.95) == 0.0  # none within
    assert pool.prob_within(-5, 0.95) == 0.0
    one = Pool("one")
    one.add(10, 0.95, 0.95, 0, 59)
    assert one.prob_within(10, 0.95) == pytest.approx(0.05)  # q^1 = 0.05
    two = Pool("two")
    two.add(10, 0.95, 0.95, 0, 59)
    two.add(20, 0.95, 0.95, 0, 59)
    # m = 1 of n = 2: P(X <= 0) = (1 - q)^2 = 0.95  =>  q = 1 - sqrt(0.95)
    assert two.prob_within(15, 0.95) == pytest.approx(1 - math.sqrt(0.95))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=150), st.integers(0, 10_000))
def test_probability_is_the_largest_quantile_bounded_by_the_deadline(waits, w):
    pool = Pool("p")
    for x in waits:
        pool.add(x, 0.95, 0.95, 0, 59)
    p = pool.prob_within(w, 0.95)
    assert 0 <= p <= 1
    if p > 1e-6:  # a slightly smaller quantile has a bound within the deadline
        b = pool.bound(p * (1 - 1e-7), 0.95)
        assert b is not None and b <= w
    if p < 1 - 1e-6:  # a slightly larger one does not
        b = pool.bound(min(p * (1 + 1e-6) + 1e-9, 1 - 1e-12), 0.95)
        assert b is None or b > w
    assert pool.prob_within(w + 1, 0.95) >= p  # monotone in the deadline
    import numpy as np

    many = pool.prob_within_many(np.array([w, w + 1, -1]), 0.95)
    assert many[0] == pytest.approx(p) and many[2] == 0


def test_classes():
    assert [proc_class(n) for n in (1, 2, 4, 5, 16, 17, 64, 65, 430)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]
    hours = [1, 3600, 3601, 14400, 14401, 43200, 43201, 10**6]
    assert [req_class(r) for r in hours] == [0, 0, 1, 1, 2, 2, 3, 3]


def test_fallback_to_coarser_classes_and_no_history():
    p = WaitPredictor()
    assert p.pool_for(32, 3600) is None
    assert p.bound(32, 3600) is None
    assert p.prob_start_by(32, 3600, 0, 10**6) == 0.0
    assert p.predict(32, 3600, (0.5,)).label == "no history"
    for _ in range(30):  # 30 waits of 32-processor, 1 h jobs: too few for the fine class
        p.add(32, 3600, 100)
    for _ in range(30):  # 30 more, same processor class, 10 h requests
        p.add(20, 36000, 500)
    # fine class (17–64 × ≤ 1 h) has 30 < 59: the processor class (60 waits) is used
    assert p.pool_for(32, 3600).label.startswith("17–64 processors, any")
    assert p.bound(32, 3600) == 500  # the largest of 60
    for _ in range(29):
        p.add(32, 3600, 100)
    assert p.pool_for(32, 3600).label == "17–64 processors × requested ≤ 1 h"
    assert p.bound(32, 3600) == 100
    # a class never seen, on a site with history: the processor class is empty, so all jobs
    assert p.pool_for(1, 3600).label == "all jobs"


def test_change_point_trims_the_history():
    p = WaitPredictor(change_run=3)
    for _ in range(1000):
        p.add(1, 60, 10)  # a stationary history: the 0.95 bound is 10 s
    assert p.bound(1, 60) == 10
    p.add(1, 60, 1000)
    p.add(1, 60, 1000)
    # 2 misses: with 1002 waits the bound is still one of the 1000 tens (about the 960th)
    assert p.changes() == 0 and p.bound(1, 60) == 10
    p.add(1, 60, 1000)  # the third consecutive miss: a change point in all three pools
    assert p.changes() == 3
    # every pool keeps its last 59 waits (56 × 10 s, 3 × 1000 s): the bound is the largest
    pool = p.pool_for(1, 60)
    assert len(pool) == 59 and sorted(pool.sorted)[-4:] == [10, 1000, 1000, 1000]
    assert p.bound(1, 60) == 1000


def test_few_outliers_in_a_short_history_are_absorbed_not_a_change():
    # 100 waits of 10 s, then 1000 s waits: the bound (index 98 of 100, 99 of 101) misses
    # twice, but with 102 waits its index is 100 (exact binomial: P(X <= 99) = 0.890,
    # P(X <= 100) = 0.966) — the first 1000: the third wait is no miss, the run breaks
    p = WaitPredictor(change_run=3)
    for _ in range(100):
        p.add(1, 60, 10)
    for _ in range(3):
        p.add(1, 60, 1000)
    assert p.changes() == 0 and p.bound(1, 60) == 1000


def test_no_trimming_when_disabled():
    p = WaitPredictor(change_run=0)
    for _ in range(1000):
        p.add(1, 60, 10)
    for _ in range(10):
        p.add(1, 60, 1000)
    assert p.changes() == 0 and len(p.pool_for(1, 60)) == 1010


def test_stationary_waits_are_calibrated():
    # i.i.d. exponential waits (seeded): the fraction above the predicted 0.95 bound must stay
    # within 5 % + 3 binomial standard deviations
    rng = random.Random(11)
    p = WaitPredictor()
    predicted = misses = 0
    for _ in range(4000):
        w = int(rng.expovariate(1 / 3600))
        b = p.bound(8, 7200)
        if b is not None:
            predicted += 1
            misses += w > b
        p.add(8, 7200, w)
    assert predicted == 4000 - 59
    assert misses / predicted <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / predicted)


def test_bad_settings():
    with pytest.raises(ValueError, match="quantile"):
        WaitPredictor(quantile=1.5)
    with pytest.raises(ValueError, match="confidence"):
        WaitPredictor(confidence=0)
    with pytest.raises(ValueError, match="change_run"):
        WaitPredictor(change_run=-1)


def test_history_follows_the_simulation_without_look_ahead():
    # 2 processors: A (2 procs, 100 s) at 0 starts at once; B (2 procs, 50 s) at 10 waits
    # until A ends at 100: wait 90
    jobs = [SimJob(0, 1, 0, 100, 100, 2), SimJob(1, 2, 10, 50, 50, 2)]
    sim = Simulator(jobs, 2, "conservative")
    pred = WaitPredictor(change_run=0)
    hist = SiteHistory(sim, pred)
    sim.run(until=50)
    assert hist.sync() == 1 and pred.size == 1
    assert pred.pool_for(2, 100).sorted == [0]
    twin = sim.fork()  # a probe job submitted in a fork never reaches the history
    twin.submit(SimJob(0, -1, 60, 10, 10, 1))
    sim.run(until=100)
    assert hist.sync() == 1 and hist.sync() == 0  # each job once
    assert pred.pool_for(2, 100).sorted == [0, 90]
