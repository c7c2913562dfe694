"""Adaptive prices under backfilling with a reservation depth K: the queue is
planned by the simulator's own depth-K policy, played forward — exactly the EASY, conservative
and FCFS planners at the ends — so every kind that takes a site policy can offer ``backfill-k``."""

from __future__ import annotations

import random

import pytest

from scheduler.cluster import prepare_jobs
from scheduler.cluster.profile import Profile
from scheduler.cluster.simulator import Simulator
from scheduler.experiments import run_experiment
from scheduler.pricing.plan import plan_conservative, plan_fcfs, plan_with_policy
from scheduler.pricing.price import SiteQuote
from scheduler.traces.lublin import generate_lublin99


def _random_site(rng: random.Random) -> tuple[Profile, list[tuple[int, int]], int]:
    cap = rng.choice([4, 8, 16, 32])
    base = Profile(cap, 0)
    for _ in range(rng.randint(0, 6)):
        s, d, n = rng.randint(0, 80), rng.randint(1, 60), rng.randint(1, cap)
        if base.free_over(s, s + d) >= n:
            base.reserve(s, s + d, n)
    shapes = [(rng.randint(1, cap), rng.randint(1, 50)) for _ in range(rng.randint(1, 12))]
    return base, shapes, rng.randint(0, 50)


def _easy(profile, shapes, now):  # type: ignore[no-untyped-def]
    return plan_with_policy("easy", profile, shapes, now)


@pytest.mark.parametrize(
    "policy, reference",
    [("backfill-k=1", _easy), ("backfill-k=inf", plan_conservative),
     ("conservative", plan_conservative), ("fcfs", plan_fcfs)],
)  # fmt: skip
def test_the_simulated_plan_is_the_planners_at_the_ends(policy, reference):
    rng = random.Random(len(policy))
    for _ in range(300):
        base, shapes, now = _random_site(rng)
        a, b = base.copy(), base.copy()
        assert plan_with_policy(policy, a, shapes, now) == reference(b, shapes, now)
        assert a == b  # the same blocks inserted


@pytest.mark.parametrize(
    "depth, twin", [("backfill-k=1", "easy"), ("backfill-k=inf", "conservative")]
)
def test_prices_at_the_ends_equal_easy_and_conservative(depth, twin):
    rng = random.Random(7)
    for _ in range(60):
        base, shapes, now = _random_site(rng)
        q, r = SiteQuote(base, shapes, now, depth), SiteQuote(base, shapes, now, twin)
        n, d = rng.randint(1, base.capacity), rng.randint(1, 40)
        assert [(o.start, o.f) for o in q.options(n, d)] == [
            (o.start, o.f) for o in r.options(n, d)
        ]


def test_a_live_depth_k_site_is_quoted_with_its_own_k_and_whole_queue():
    jobs, _ = prepare_jobs(generate_lublin99(jobs=400, procs=32, seed=3).jobs, 32, "requested")
    sim = Simulator(jobs, 32, "backfill-k=2")
    sim.run(until=(jobs[0].submit + jobs[-1].submit) // 2)
    quote = SiteQuote.of(sim)
    assert quote.policy == "backfill-k=2" and len(quote.shapes) == len(sim.queued())


def test_pricing_runs_under_a_reservation_depth_and_is_deterministic():
    trace = generate_lublin99(jobs=300, procs=32, seed=5)
    params = {"policy": "backfill-k=4", "alphas": "0,1", "fraction": 0.1, "procs": 32}
    one = run_experiment("pricing", params, {"traces": [trace]}, seed=1)
    two = run_experiment("pricing", params, {"traces": [trace]}, seed=1)
    assert one == two and one["params"]["policy"] == "backfill-k=4"
    assert one["summary"]
