"""Adaptive pricing (thesis ch. 5, Figure 22): hand-worked prices, the fast path against the
literal algorithm, and invariants."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.cluster import Simulator
from scheduler.cluster.jobs import Reservation, SimJob
from scheduler.cluster.profile import Profile
from scheduler.pricing import SiteQuote, choose
from scheduler.pricing.plan import plan_with_policy
from scheduler.slots.advertise import advertise


def hand_site(policy: str = "conservative") -> SiteQuote:
    """4 processors at t = 0.  Running: A (3 processors until 2), B (1 processor until 4).
    Queue: J1 (3 p, 2 s), J2 (4 p, 1 s), J3 (1 p, 1 s).

    Without a slot (conservative, by hand): base free [0,2):0 [2,4):3 [4,∞):4.
    J1 fits first at 2; J2 needs all 4: at 4 ([4,5)); J3 then finds nothing free before 5.
    v = (2, 4, 5)."""
    base = Profile(4)
    base.reserve(0, 2, 3)
    base.reserve(0, 4, 1)
    return SiteQuote(base, [(3, 2), (4, 1), (1, 1)], 0, policy)


def test_no_slot_plan_by_hand():
    assert hand_site().starts == [2, 4, 5]


def test_slot_delaying_two_of_three_jobs():
    """Slot X = 1 processor over [2, 5).  Base + X: [0,2):0 [2,4):2 [4,5):3 [5,∞):4.
    J1 (3 p, 2 s): first fits at 4 -> delayed 2 s x 3 p = 6.
    J2 (4 p, 1 s): [4,6) now holds J1, so 6 -> delayed 2 s x 4 p = 8.
    J3 (1 p, 1 s): [2,3) has 2 free -> 2, three seconds *earlier*: counts 0 (max(0, .)).
    f = 6 + 8 = 14 processor-seconds."""
    q = hand_site()
    assert q.price(2, 1, 3) == 14
    assert q.price_naive(2, 1, 3) == 14
    assert q.options(1, 3)[0].f == pytest.approx(14 / 3600)  # in SU (processor-hours)


def test_candidate_list_and_prices_by_hand():
    """Candidates (thesis §5.2): now (0), ends of A (2) and B (4), starts/ends of the planned
    jobs (2, 4 | 4, 5 | 5, 6).  At 0 the slot does not fit (A and B hold all 4 processors):
    dropped.  At 4 (X over [4,7)): J1 keeps 2; J2 needs all 4 and waits until 7
    (3 s x 4 p = 12); J3 backfills at 4.  At 5 and 6 the slot fits in the plan's holes: 0."""
    q = hand_site()
    opts = q.options(1, 3)
    assert [(o.start, o.delay) for o in opts] == [(2, 14), (4, 12), (5, 0), (6, 0)]
    # eq. 20: α = 0 takes the earliest start, α = 1 the earliest free one; at α = 0.5 the
    # scores are 2: .5, 4: .5*12/14 + .5*.5 = .679, 5: .5*3/4 = .375, 6: .5 -> 5
    assert choose(opts, 0.0).start == 2
    assert choose(opts, 1.0).start == 5
    assert choose(opts, 0.5).start == 5
    # query (19) from 3: 3 itself (feasible: [3,4) has 3 free beside B) and later candidates
    later = q.options_from(3, 1, 3)
    assert [o.start for o in later] == [3, 4, 5, 6]
    assert later[0].delay == q.price_naive(3, 1, 3)


def test_infeasible_and_bad_slots():
    q = hand_site()
    assert q.price(0, 1, 1) is None  # A and B hold all 4 processors at 0
    assert q.price(1, 2, 5) is None  # nothing is free over [1, 2)
    assert q.price(2, 4, 1) is None  # B holds one processor until 4
    with pytest.raises(ValueError, match="procs must be in 1..4"):
        q.price(5, 5, 1)
    with pytest.raises(ValueError, match="duration"):
        q.price(5, 1, 0)
    q2 = SiteQuote(Profile(4), [], 10)
    with pytest.raises(ValueError, match="past"):
        q2.price(5, 1, 1)


def test_easy_plan_by_hand():
    """EASY (the simulator's policy played forward) on the hand site: J1 heads; at 0 nothing
    is free.  At 2: J1 starts (3 free); J2 heads (shadow 4); J3 would need [2,3): 0 left ->
    waits.  At 4: J2.  At 5: J3."""
    base = Profile(4)
    base.reserve(0, 2, 3)
    base.reserve(0, 4, 1)
    assert plan_with_policy("easy", base.copy(), [(3, 2), (4, 1), (1, 1)], 0) == [2, 4, 5]
    # Backfilling: 2 of 4 busy until 3.  Head (4 p, 1 s) waits for its shadow 3; (2 p, 3 s)
    # ends by the shadow and starts at 0; (2 p, 2 s) finds nothing free until the head has
    # run [3, 4), so it starts at 4.
    base = Profile(4)
    base.reserve(0, 3, 2)
    assert plan_with_policy("easy", base.copy(), [(4, 1), (2, 3), (2, 2)], 0) == [3, 0, 4]


# ---------------------------------------------------------------- random sites


@st.composite
def sites(draw):
    cap = draw(st.integers(2, 12))
    base = Profile(cap)
    for _ in range(draw(st.integers(0, 4))):  # running jobs and reservations
        a = draw(st.integers(0, 20))
        d = draw(st.integers(1, 15))
        n = draw(st.integers(1, cap))
        if base.free_over(a, a + d) >= n:
            base.reserve(a, a + d, n)
    shapes = draw(
        st.lists(st.tuples(st.integers(1, cap), st.integers(1, 12)), min_size=0, max_size=8)
    )
    return base, shapes


slots = st.tuples(st.integers(0, 40), st.integers(1, 12), st.integers(1, 15))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(sites(), slots, st.sampled_from(["conservative", "fcfs", "easy"]))
def test_fast_price_is_the_literal_algorithm(site, slot, policy):
    base, shapes = site
    s, n, d = slot
    q = SiteQuote(base, shapes, 0, policy)
    if n > q.capacity:
        return
    fast = q.price(s, n, d)
    assert fast == q.price_naive(s, n, d)
    if fast is not None:
        assert fast >= 0


@settings(max_examples=200, deadline=None, derandomize=True)
@given(sites(), st.sampled_from(["conservative", "fcfs", "easy"]))
def test_query_18_always_offers_a_free_start(site, policy):
    base, shapes = site
    q = SiteQuote(base, shapes, 0, policy)
    for n in {1, q.capacity}:
        opts = q.options(n, 5)
        assert opts and min(o.delay for o in opts) == 0
        assert [o.start for o in opts] == sorted({o.start for o in opts})
        # the earliest feasible start of the slot is offered (thesis §5.2)
        assert opts[0].start == q.base.earliest_start(n, 5, 0)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(sites(), st.data())
def test_slots_inside_advertised_holes_are_free(site, data):
    """Thesis ch. 3 is the special case f = 0: a slot taken inside a hole of the CB plan
    (scheduler.slots advertises them) delays nobody."""
    base, shapes = site
    q = SiteQuote(base, shapes, 0, "conservative")
    holes = advertise(q.plan, 0, until=60)
    for hole in holes[:6]:
        n = data.draw(st.integers(1, hole.procs))
        a = data.draw(st.integers(hole.start, hole.start + hole.duration - 1))
        d = data.draw(st.integers(1, hole.start + hole.duration - a))
        assert q.price(a, n, d) == 0


@settings(max_examples=200, deadline=None, derandomize=True)
@given(sites(), slots)
def test_feasibility_is_monotone_in_processors(site, slot):
    base, shapes = site
    s, n, d = slot
    q = SiteQuote(base, shapes, 0)
    feasible = [q.price(s, k, d) is not None for k in range(1, q.capacity + 1)]
    assert feasible == sorted(feasible, reverse=True)


def test_live_conservative_insertion_follows_the_priced_plan():
    """Granting the slot in a running simulation re-plans the queue exactly as priced."""
    jobs = [
        SimJob(0, 1, 0, 2, 2, 3),  # A
        SimJob(1, 2, 0, 4, 4, 1),  # B
        SimJob(2, 3, 0, 2, 2, 3),  # J1
        SimJob(3, 4, 0, 1, 1, 4),  # J2
        SimJob(4, 5, 0, 1, 1, 1),  # J3
    ]
    sim = Simulator(jobs, 4, "conservative")
    sim.run(until=0)
    q = SiteQuote.of(sim)
    assert q.starts == [2, 4, 5]
    assert q.price(2, 1, 3) == 14
    sim.insert_reservation(Reservation(2, 3, 1))
    sim.run()
    assert sim.start[2:] == [4, 6, 2]  # the with-slot plan of the hand-worked price
    with pytest.raises(ValueError, match="does not fit"):
        sim2 = Simulator(jobs, 4, "conservative")
        sim2.run(until=0)
        sim2.insert_reservation(Reservation(0, 1, 1))


def test_price_is_not_monotone_in_processors_under_cb():
    """A scheduling anomaly (found by hypothesis, checked by hand): 3 processors, queue
    J1 (1 p, 2 s), J2 (3 p, 1 s); v = (0, 2).  Slot over [1, 4):
    * 2 processors: J1 still fits at 0 (1 free over [1, 2)), J2 must wait for the slot's end:
      4 − 2 = 2 s x 3 p = 6;
    * 3 processors: J1 cannot run across 1 and waits until 4 (4 s x 1 p = 4) while J2 takes
      [0, 1) before the slot: f = 4 < 6.
    So the issue's "price monotone in n" holds only in special cases (below)."""
    q = SiteQuote(Profile(3), [(1, 2), (3, 1)], 0)
    assert q.starts == [0, 2]
    assert q.price(1, 2, 3) == 6
    assert q.price(1, 3, 3) == 4


@settings(max_examples=200, deadline=None, derandomize=True)
@given(sites(), slots, st.sampled_from(["conservative", "fcfs", "easy"]))
def test_price_is_monotone_in_processors_for_one_queued_job(site, slot, policy):
    """With one queued job a wider slot leaves it less room: it can only start later."""
    base, shapes = site
    s, _, d = slot
    q = SiteQuote(base, shapes[:1], 0, policy)
    prices = [q.price(s, k, d) for k in range(1, q.capacity + 1)]
    feasible = [f for f in prices if f is not None]
    assert feasible == sorted(feasible)


def test_an_early_ending_reservation_gives_its_rest_back():
    """A reservation of 4 p over [0, 100) whose job ends at 30: a queued job (4 p, 10 s)
    planned at 100 starts at 30 under conservative, EASY and FCFS."""
    for policy in ("conservative", "easy", "fcfs"):
        sim = Simulator([SimJob(0, 1, 5, 10, 10, 4)], 4, policy, origin=0)
        sim.insert_reservation(Reservation(0, 100, 4), used=30)
        sim.run()
        assert sim.start == [30], policy
        held = Simulator([SimJob(0, 1, 5, 10, 10, 4)], 4, policy, origin=0)
        held.insert_reservation(Reservation(0, 100, 4))
        held.run()
        assert held.start == [100], policy


@st.composite
def deep_sites(draw):
    """Busy conservative sites with long queues: a slot sets off long cascades, some jobs
    move later and free room that later jobs backfill into (the fast path's hard case)."""
    cap = draw(st.integers(4, 16))
    base = Profile(cap)
    for _ in range(draw(st.integers(0, 6))):
        a = draw(st.integers(0, 30))
        d = draw(st.integers(1, 25))
        n = draw(st.integers(1, cap))
        if base.free_over(a, a + d) >= n:
            base.reserve(a, a + d, n)
    shapes = draw(
        st.lists(st.tuples(st.integers(1, cap), st.integers(1, 20)), min_size=8, max_size=40)
    )
    return base, shapes


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    deep_sites(), st.integers(1, 16), st.integers(1, 20), st.sampled_from(["conservative", "fcfs"])
)
def test_every_option_of_a_deep_queue_is_the_literal_price(site, n, d, policy):
    base, shapes = site
    q = SiteQuote(base, shapes, 0, policy)
    n = min(n, q.capacity)
    options = q.options(n, d)
    assert options, "query 18 always offers a start"
    by_start = {o.start: o.delay for o in options}
    for s in q.candidates():
        assert by_start.get(s) == q.price_naive(s, n, d)


@pytest.mark.parametrize("policy", ["conservative", "fcfs"])
def test_a_deep_archive_like_queue_is_priced_literally(policy):
    """A Lublin–Feitelson workload on half its machine at four times its load: 100+ jobs
    queued at the instant with the longest queue, many of them small and alike (the re-plan
    kernel's lower bound from the nearest no-bigger job ahead is used all the time).  Every
    candidate of query 18, for several sizes, is the literal Figure 22 price."""
    from scheduler.cluster import prepare_jobs
    from scheduler.cluster.replay import build_index
    from scheduler.traces.lublin import generate_lublin99

    jobs, _ = prepare_jobs(generate_lublin99(jobs=600, procs=64, seed=8).jobs, 32, "requested")
    jobs = [j._replace(submit=j.submit // 4) for j in jobs]  # four times the load
    index = build_index(jobs, 32, policy)
    t = max(range(index.origin, index.last_submit, 600), key=lambda t: len(index.queued(t)))
    q = SiteQuote(index.base_profile(t), index.queued_shapes(t), t, policy)
    assert len(q.shapes) >= 100
    for n, d in ((1, 600), (4, 3600), (16, 4 * 3600), (32, 900)):
        options = q.options(n, d)
        assert {o.start: o.delay for o in options} == {
            s: f for s in q.candidates() if (f := q.price_naive(s, n, d)) is not None
        }
        assert any(o.delay > 0 for o in options)


def test_options_filled_through_their_slots_are_the_dataclass_options():
    """``price._options`` builds Options without ``__init__`` (deep FCFS quotes): they must be
    the very Options the dataclass builds — equal, same hash, repr and JSON, still frozen."""
    import dataclasses

    from scheduler.pricing import price

    cands, fs = [0, 60, 120, 7200], [None, 3600, 0, 12]
    got = price._options(cands, fs, 8, 1800, 1.5)
    want = [
        price.Option(s, 8, 1800, 1.5, f) for s, f in zip(cands, fs, strict=True) if f is not None
    ]
    assert got == want
    assert [hash(o) for o in got] == [hash(o) for o in want]
    assert [repr(o) for o in got] == [repr(o) for o in want]
    assert [o.as_json() for o in got] == [o.as_json() for o in want]
    with pytest.raises(dataclasses.FrozenInstanceError):
        got[0].delay = 1
    with pytest.raises(ValueError, match="as many prices as starts"):
        price._options(cands, fs[:-1], 8, 1800, 1.5)


def test_queue_shapes_of_other_types_are_made_int_pairs():
    """``price._shapes`` takes a list of int pairs as it is and converts anything else."""
    import numpy as np

    from scheduler.pricing import price

    plain = [(1, 60), (4, 3600)]
    assert price._shapes(plain) == plain
    odd = [[np.int64(2), 60.0], (True, np.int32(5))]
    out = price._shapes(odd)
    assert out == [(2, 60), (1, 5)]
    assert all(type(x) is int for pair in out for x in pair) and all(type(p) is tuple for p in out)


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "backfill-k=2"])
def test_a_queue_given_as_two_lists_is_the_queue_given_as_pairs(policy):
    """``SiteQuote.from_queue`` (a site page's quote: no pair per queued job) is
    the quote of the same queue as pairs — plan, prices, shapes — and takes other integer
    sequences as ints; lists of different lengths are refused."""
    import random

    import numpy as np

    rng = random.Random(7)
    base = Profile(32, 0)
    base.reserve(0, 5000, 20)
    base.reserve(0, 900, 6)
    shapes = [(rng.randint(1, 32), rng.randint(60, 8000)) for _ in range(40)]
    procs, durs = [n for n, _ in shapes], [d for _, d in shapes]
    want = SiteQuote(base, shapes, 0, policy)
    for got in (
        SiteQuote.from_queue(base, procs, durs, 0, policy),
        SiteQuote.from_queue(base, np.array(procs), tuple(np.int32(d) for d in durs), 0, policy),
    ):
        assert got.starts == want.starts
        assert got.options(8, 3600) == want.options(8, 3600)
        assert got.shapes == shapes and all(type(x) is int for p in got.shapes for x in p)
    with pytest.raises(ValueError, match="3 processor counts for 2 durations"):
        SiteQuote.from_queue(base, [1, 2, 3], [60, 60], 0, policy)
