"""VAR (thesis Figure 33, eq. 22), the adaptive arm and the combined scheme (Figure 45):
hand-worked examples and invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.cluster import Simulator
from scheduler.cluster.jobs import Reservation, SimJob
from scheduler.pricing.price import SiteQuote
from scheduler.reservations.adaptive import adaptive_reservation
from scheduler.reservations.combined import combine
from scheduler.reservations.history import SiteHistory
from scheduler.reservations.predictor import WaitPredictor
from scheduler.reservations.var import VarPlan, plan_var, probability_curve, run_var

# ----------------------------------------------------------------------------- Figure 33


def test_var_waits_for_the_submission_time_whose_class_starts_fast():
    # 1-processor jobs asking <= 1 h never waited; those asking 1–4 h always waited 3 h.
    # Request: 1 processor for D = 30 min at S = now + 2 h.  Submitted dt after now, the job
    # asks D + (2 h - dt): more than 1 h (probability 0: 3 h > the 2 h - dt left) until
    # dt = 90 min, when it asks exactly 1 h; all 59 waits (0 s) are then within S - t, so the
    # probability is 0.05^(1/59) (all 59 of 59 below: 1 - q^59 = 0.95).
    p = WaitPredictor(change_run=0)
    for _ in range(59):
        p.add(1, 1800, 0)
        p.add(1, 7200, 3 * 3600)
    now, s = 1000, 1000 + 7200
    plan = plan_var(p, 1, 1800, s, now)
    assert plan.submit == now + 5400
    assert plan.request == 3600
    assert plan.prob == pytest.approx(0.05 ** (1 / 59))
    ts, probs = probability_curve(p, 1, 1800, s, now)
    assert len(ts) == 240 and ts[0] == now and ts[-1] == s - 30  # 30 s steps, t < S
    assert max(probs[:180]) == 0 and min(probs[180:]) == pytest.approx(plan.prob)


def test_var_without_history_submits_now():
    plan = plan_var(WaitPredictor(), 32, 3600, 5000, 1000)
    assert plan == VarPlan(1000, 3600 + 4000, 0.0)


def test_var_rejects_a_start_not_in_the_future():
    with pytest.raises(ValueError, match="not after now"):
        plan_var(WaitPredictor(), 32, 3600, 1000, 1000)
    with pytest.raises(ValueError, match="duration"):
        plan_var(WaitPredictor(), 32, 0, 5000, 1000)


def busy_site() -> Simulator:
    """4 processors, one job holding all of them over [0, 1000)."""
    sim = Simulator([SimJob(0, 1, 0, 1000, 1000, 4)], 4, "conservative")
    sim.run(until=0)
    return sim


def test_var_job_really_queues():
    sim = busy_site()
    # S = 2000, D = 100: submitted at 0 asking 2100 s, it starts when the machine frees, at
    # 1000, and idles 1000 s on 2 processors: cost 2000 processor-seconds (10 × n·D)
    out = run_var(sim, VarPlan(0, 2100, 0.5), 2, 2000)
    assert out.success and out.started == 1000 and out.cost == 2000
    # S = 500: it cannot start by then: a failure, without cost
    out = run_var(sim, VarPlan(0, 600, 0.5), 2, 500)
    assert not out.success and out.cost is None
    # the site itself never saw the probes
    assert len(sim.jobs) == 1 and sim.start == [0]


def test_var_job_beside_a_granted_reservation():
    sim = busy_site()
    # the reservation takes the 4 processors over [2000, 2500); the VAR job (4 procs from 0,
    # asking 2500 s) would run over [1000, 3500) and is planned after it: no start by S
    resv = Reservation(2000, 500, 4)
    out = run_var(sim, VarPlan(0, 2500, 0.5), 4, 2000, reservation=resv, now=0)
    assert not out.success
    assert run_var(sim, VarPlan(0, 2500, 0.5), 4, 2000).started == 1000  # alone it would


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(st.integers(0, 3000), st.integers(1, 8), st.integers(1, 2000)),
        min_size=1,
        max_size=30,
    ),
    st.integers(0, 3000),
    st.integers(1, 8),
    st.integers(60, 3600),
    st.integers(30, 7200),
)
def test_var_invariants(raw, now, n, duration, offset):
    raw = sorted(raw)
    jobs = [SimJob(i, i + 1, s, r, r, p) for i, (s, p, r) in enumerate(raw)]
    sim = Simulator(jobs, 8, "conservative")
    sim.run(until=now)
    pred = WaitPredictor()
    SiteHistory(sim, pred).sync()
    before = list(sim.start)
    s = now + offset
    plan = plan_var(pred, n, duration, s, now)
    assert now <= plan.submit < s and (plan.submit - now) % 30 == 0
    assert plan.request == duration + (s - plan.submit)
    out = run_var(sim, plan, n, s)
    if out.success:
        assert plan.submit <= out.started <= s
        assert 0 <= out.cost <= (s - plan.submit) * n  # eq. 22: the upper bound
    assert sim.start == before


# ----------------------------------------------------------------------------- adaptive arm


def test_adaptive_arm_prices_the_slot_at_exactly_s():
    # 4 processors: R holds all 4 over [0, 1000); Q (4 procs, 500 s) queued at 10 is planned
    # over [1000, 1500).  A 2-processor slot [1000, 1100) pushes Q to 1100: f = 100 s × 4
    jobs = [SimJob(0, 1, 0, 1000, 1000, 4), SimJob(1, 2, 10, 500, 500, 4)]
    sim = Simulator(jobs, 4, "conservative")
    sim.run(until=10)
    quote = SiteQuote.of(sim, 10)
    got = adaptive_reservation(quote, 2, 1000, 100)
    assert got.success and got.cost == 400
    assert not adaptive_reservation(quote, 2, 500, 100).success  # conflicts with R
    assert adaptive_reservation(quote, 2, 1500, 100).cost == 0  # after Q: a hole


# ----------------------------------------------------------------------------- Figure 45


def test_combined_hand_worked():
    s, n = 10_000, 2
    assert combine(0, s - 100, n, s).choice == "adaptive"  # f = 0: VAR not even submitted
    assert combine(0, None, n, s).cost == 0 and not combine(0, None, n, s).var_submitted
    assert combine(None, None, n, s).choice == "none"  # both failed
    only_var = combine(None, s - 100, n, s)  # no reservation: VAR alone, 100 s × 2
    assert (only_var.choice, only_var.cost) == ("var", 200)
    assert (combine(1000, None, n, s).choice, combine(1000, None, n, s).cost) == ("adaptive", 1000)
    # started 400 s early: 800 + 0.1 × 1000 = 900 <= 1000: cancel the reservation
    assert (combine(1000, s - 400, n, s).choice, combine(1000, s - 400, n, s).cost) == ("var", 900)
    # 450 s early: 900 + 100 = 1000 <= 1000 (equality keeps VAR, as Figure 45's "<=")
    assert combine(1000, s - 450, n, s).choice == "var"
    # 460 s early: 920 + 100 > 1000: cancel the VAR job
    assert (combine(1000, s - 460, n, s).choice, combine(1000, s - 460, n, s).cost) == (
        "adaptive",
        1000,
    )


@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    st.one_of(st.none(), st.integers(0, 10**6)),
    st.one_of(st.none(), st.integers(0, 5000)),
    st.integers(1, 64),
    st.floats(0, 1),
)
def test_combined_fails_only_when_both_fail_and_never_pays_more_than_f(f, early, n, p):
    s = 10_000
    t2 = None if early is None else s - early
    out = combine(f, t2, n, s, p)
    assert out.success == (f is not None or t2 is not None)
    if f is not None:
        assert 0 <= out.cost <= f
    elif t2 is not None:
        assert out.cost == (s - t2) * n


def test_combined_rejects_a_var_start_after_s():
    with pytest.raises(ValueError, match="after the start"):
        combine(100, 20_000, 2, 10_000)
