"""Quotes under backfilling with a reservation depth K (``backfill-k=K`` quotes
re-planned the whole queue in the simulator for every candidate start, 0.5–1.1 s at 200+
queued jobs).  The quote kernel (scheduler/pricing/_easy.py) plays depth K from its snapshots
(EASY at K = 1: test_pricing_easy_fast.py); compiled and pure, its no-slot plan must be the
simulator's
(:func:`~scheduler.pricing.plan.plan_with_policy`, the live policy of
:mod:`scheduler.cluster.depth`) start for start, and every option's price the literal
Figure 22 (:meth:`SiteQuote.price_naive`, which re-plans in the simulator).
"""

from __future__ import annotations

import random

import pytest

from scheduler.pricing import SiteQuote
from scheduler.pricing.plan import plan_with_policy
from tests.conftest import examples, sample
from tests.scheduler.native_helpers import deep_cases, deep_site, literal
from tests.scheduler.test_pricing_depth import _random_site

#: (kernel, seed, depth) of the 200-job queues: the compiled kernel (what runs) on every one,
#: the pure one on a deterministic sample (its deep queues are compared with the compiled one
#: call by call in test_pricing_easy_fast.py; GRIDPORTAL_FULL_TESTS=1 runs every one).
DEEP_CASES = [("compiled", s, k) for s in (1, 2) for k in (2, 4)] + sample(
    [("pure", s, k) for s in (1, 2) for k in (2, 4)], 2
)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 8, 50])
def test_the_kernels_depth_plan_is_the_simulators(easy_kernel, depth):
    """Start for start, on queues of 30–240 jobs, and the events' reach never decreases."""
    for seed in range(4):
        base, shapes = deep_site(seed, jobs=(30, 120, 240, 60)[seed])
        procs, durs = [n for n, _ in shapes], [d for _, d in shapes]
        E = easy_kernel.EasyQueue(base.times, base.free, base.capacity, procs, durs, 0, depth)
        assert E.starts == plan_with_policy(f"backfill-k={depth}", base.copy(), shapes, 0)
        reach = [E.reach[i] for i in range(E.events)]
        assert reach == sorted(reach)


@pytest.mark.parametrize(("easy_kernel", "seed", "depth"), DEEP_CASES, indirect=["easy_kernel"])
def test_every_depth_option_of_a_200_job_queue_is_the_literal_price(easy_kernel, seed, depth):
    """Query 18 and query 17 at depth K against Figure 22 re-planned in full by the simulator."""
    base, shapes = deep_site(seed)
    q = SiteQuote(base, shapes, 0, f"backfill-k={depth}")
    assert len(q.shapes) >= 200 and q._easy is not None and q._easy.depth == depth
    moved = 0
    for n, d in ((1, 600), (8, 3600), (32, 2 * 3600)):
        want = literal(q, n, d)
        assert {o.start: o.delay for o in q.options(n, d)} == want
        moved += sum(f > 0 for f in want.values())
        s = sorted(want)[len(want) // 2]
        assert q.price(s, n, d) == want[s]
    assert moved > 20  # the slots do delay the queue: the re-plan is exercised
    E = q._easy  # and re-plans start from later events than the first (snapshots used)
    assert sum(E.reach[0] <= s < E.reach[E.events - 1] for s in q.candidates()) > 10


def test_a_depth_queue_with_jobs_of_no_duration_is_replanned_by_the_simulator():
    """The simulator plans a 0-second job for 1 s and ends it at once (its reservations move
    up): the kernel does not model that, so such a queue is priced by the literal re-plan."""
    base, shapes = deep_site(1, jobs=80, zeros=True)
    assert any(d == 0 for _, d in shapes)
    q = SiteQuote(base, shapes, 0, "backfill-k=2")
    assert q._easy is None
    assert q.starts == plan_with_policy("backfill-k=2", base.copy(), shapes, 0)
    want = literal(q, 8, 3600)
    assert {o.start: o.delay for o in q.options(8, 3600)} == want
    assert any(f > 0 for f in want.values())


def test_unbounded_depth_is_quoted_as_conservative_backfilling():
    base, shapes = deep_site(3, jobs=120)
    inf = SiteQuote(base, shapes, 0, "backfill-k=inf")
    cons = SiteQuote(base, shapes, 0, "conservative")
    assert inf.starts == cons.starts
    assert inf.options(16, 3600) == cons.options(16, 3600)
    assert inf.options(16, 3600) == [
        o for o in inf.options(16, 3600) if o.delay == inf.price_naive(o.start, 16, 3600)
    ]


@pytest.mark.parametrize("depth", [2, 3, 5])
def test_small_random_sites_price_as_figure_22_at_depth_k(easy_kernel, depth):
    """Many small sites (reservations, a clock past the origin, short queues): every
    candidate start of every quote is the literal price."""
    rng = random.Random(depth)
    compared = moved = 0
    for _ in range(150):
        base, shapes, now = _random_site(rng)
        q = SiteQuote(base, shapes, now, f"backfill-k={depth}")
        assert q.starts == plan_with_policy(f"backfill-k={depth}", base.copy(), shapes, now)
        n, d = rng.randint(1, base.capacity), rng.randint(1, 40)
        want = literal(q, n, d)
        assert {o.start: o.delay for o in q.options(n, d)} == want
        compared += len(want)
        moved += sum(f > 0 for f in want.values())
    assert compared > 1000 and moved > 100


def test_a_depth_at_least_the_queue_is_quoted_as_conservative_backfilling():
    """K >= the queue: every job holds a reservation, conservative backfilling's plan, priced
    by its prefix re-plan — the same options as the literal re-plan in the simulator."""
    base, shapes = deep_site(4, jobs=40)
    q = SiteQuote(base, shapes, 0, "backfill-k=40")
    assert q._kind == "conservative" and q._easy is None
    assert q.starts == plan_with_policy("backfill-k=40", base.copy(), shapes, 0)
    want = literal(q, 16, 3600)
    assert {o.start: o.delay for o in q.options(16, 3600)} == want and any(want.values())
    assert SiteQuote(base, shapes, 0, "backfill-k=39")._kind == "depth"


@pytest.mark.parametrize("policy", ["backfill-k=1", "backfill-k=2", "backfill-k=3"])
def test_depth_queues_with_jobs_of_no_duration_are_priced_literally(policy):
    """The simulator plans a 0-second job for 1 s and ends it at once; the kernels would give
    it no block.  A depth queue holding one is re-planned by the simulator, K = 1
    included (before: K = 1 went to the EASY kernel and 270 of 2,476 such options over 2,000
    random sites differed from Figure 22's literal price)."""
    rng = random.Random(len(policy))
    compared = 0
    for _ in range(120):
        base, shapes, now = _random_site(rng)
        shapes = [(n, 0 if rng.random() < 0.2 else d) for n, d in shapes]
        q = SiteQuote(base, shapes, now, policy)
        assert (q._kind == "simulate") == any(d == 0 for _, d in shapes)
        n, d = rng.randint(1, base.capacity), rng.randint(1, 40)
        want = literal(q, n, d)
        assert {o.start: o.delay for o in q.options(n, d)} == want
        compared += len(want)
    assert compared > 500


def _sites_and_slots(seed: int, count: int):
    """Small random depth-K sites (K 2–4, queues of 1–24 jobs, no job of no duration: such a
    queue is re-planned by the simulator) and a dozen slots each (any start, width, duration)."""
    rng = random.Random(seed)
    for _ in range(count):
        depth = rng.choice((2, 3, 4))
        base, shapes, now = _random_site(rng)
        cap = base.capacity
        more = [(rng.randint(1, cap), rng.randint(1, 50)) for _ in range(rng.randint(0, 12))]
        slots = [
            (now + rng.randint(0, 120), rng.randint(1, 40), rng.randint(1, base.capacity))
            for _ in range(12)
        ]
        yield SiteQuote(base, shapes + more, now, f"backfill-k={depth}"), slots, rng


def test_depth_re_plans_stop_once_their_state_is_the_no_slot_or_the_last_re_plans(easy_kernel):
    """A depth-K re-plan stops at the first instant from the slot's end where it has decided
    (placed or started) as many jobs as the no-slot plan had, and every job whose start
    differs from it ended in both (Work.counts[2]); or the same against the last re-plan of
    the same Work, once both slots are over and the jobs started before the restart event
    are settled too (Work.counts[3]).  Sequences of slots on one Work per small random site,
    and query 18, at the literal price: dropping the slot's end, the moved reservations or
    backfills, the count, the last slot's end or the jobs before the restart prices wrong
    (47 to 6,868 of 8,479 over the 400 sites of the full budget, GRIDPORTAL_FULL_TESTS=1)."""
    checked = 0
    counts = [0, 0, 0, 0]
    sites = examples(400, 0.3)  # the first 120 of the same sequence; 400 in the full budget
    for q, slots, rng in _sites_and_slots(7, sites):
        if q._easy is None:  # K >= the queue: conservative backfilling's prefix re-plan
            continue
        w = easy_kernel.Work(q._easy)
        for s, d, n in slots:
            if q.feasible(s, n, d):
                assert easy_kernel.delay(q._easy, w, s, s + d, n) == q.price_naive(s, n, d)
                checked += 1
        counts = [a + w.counts[i] for i, a in enumerate(counts)]
        n, d = rng.randint(1, q.capacity), rng.randint(1, 40)
        assert {o.start: o.delay for o in q.options(n, d)} == literal(q, n, d)
    assert checked > 3000 * sites // 400
    assert counts[2] > 100 * sites // 400 and counts[3] > 20 * sites // 400  # both stops taken


def test_depth_re_plans_start_at_the_first_event_whose_tests_the_slot_may_fail(easy_kernel):
    """From the first event whose whole-window reach passes ``s``, a depth-K re-plan starts at
    the first event where a placement's or a backfill's window, checked on the profile after
    the event, has fewer than ``n`` processors free over its overlap with the slot; often
    later, at the literal price (deep queues; the small random sites of the test above catch
    a dropped placement or backfill window: 6,073 and 468 wrong of 8,479)."""
    later = 0
    for seed in deep_cases(easy_kernel, [1, 2]):
        base, shapes = deep_site(seed)
        q = SiteQuote(base, shapes, 0, "backfill-k=4")
        E = q._easy
        reach = [E.reach[i] for i in range(E.events)]
        w = easy_kernel.Work(E)
        for n, d in ((4, 1800), (32, 2 * 3600)):
            for s in q.candidates():
                if not q.feasible(s, n, d):
                    continue
                first = next((i for i, x in enumerate(reach) if x > s), E.events)
                r = easy_kernel.restart(E, s, s + d, n)
                assert first <= r <= E.events
                later += r > first
                assert easy_kernel.delay(E, w, s, s + d, n) == q.price_naive(s, n, d)
        assert w.counts[2] + w.counts[3] > 0
    assert later > 50


@pytest.mark.parametrize("policy", ["easy", "backfill-k=2", "backfill-k=4"])
def test_queues_of_mostly_one_processor_jobs_price_as_figure_22(easy_kernel, policy):
    """CTC-SP2's queues are two thirds one-processor jobs: the depth-K search keeps them in
    trees of their own (a range of long one-processor jobs and short wide ones is skipped
    whole), and a job the search finds starts without a second test.  Such queues, short
    one-processor jobs among long ones and short wide jobs, price as Figure 22 at every
    candidate start."""
    for seed in range(2):
        rng = random.Random(seed)
        base, _ = deep_site(seed, jobs=1)
        shapes = []
        for _ in range(120):
            r = rng.random()
            if r < 0.65:
                shapes.append((1, rng.choice((60, 300, 1800, 3 * 3600, 8 * 3600))))
            elif r < 0.9:
                shapes.append((rng.randint(2, base.capacity), rng.choice((60, 120, 600))))
            else:
                shapes.append((rng.randint(2, base.capacity), rng.randint(3600, 6 * 3600)))
        q = SiteQuote(base, shapes, 0, policy)
        assert q._easy is not None
        moved = 0
        for n, d in ((1, 900), (16, 2 * 3600)):
            want = literal(q, n, d)
            assert {o.start: o.delay for o in q.options(n, d)} == want
            moved += sum(f > 0 for f in want.values())
        assert moved > 10


@pytest.mark.parametrize("depth", [2, 3])
def test_durations_at_the_32_bit_bound_of_the_depth_trees_price_as_figure_22(easy_kernel, depth):
    """The depth-K trees hold widths and durations in 32 bits (_TREE_INF = 2**32 - 1: none),
    so planned durations up to 2**32 - 2 s (the door allows 100 years, 3.2e9 s) must be
    searched exactly: one-processor and wide jobs of 2**31 - 1 .. 2**32 - 2 s among ordinary
    ones plan as the simulator and price as Figure 22 (searching with a 31-bit bound skips
    a long one-processor job that fits now, and plans wrong)."""
    rng = random.Random(32 + depth)
    big = (2**31 - 1, 2**31, 2**31 + 12345, 2**32 - 3, 2**32 - 2)
    compared = backfilled_big = 0
    for _ in range(120):
        base, shapes, now = _random_site(rng)
        shapes = [(n, rng.choice(big) if rng.random() < 0.3 else d) for n, d in shapes]
        shapes.append((1, rng.choice(big)))
        q = SiteQuote(base, shapes, now, f"backfill-k={depth}")
        starts = plan_with_policy(f"backfill-k={depth}", base.copy(), shapes, now)
        assert q.starts == starts
        if q._easy is None:  # K >= the queue: conservative backfilling's prefix re-plan
            continue
        backfilled_big += sum(
            d >= 2**31 and v == now and k >= depth for k, ((_, d), v) in
            enumerate(zip(shapes, starts, strict=True))
        )  # fmt: skip
        n, d = rng.randint(1, base.capacity), rng.randint(1, 40)
        want = literal(q, n, d)
        assert {o.start: o.delay for o in q.options(n, d)} == want
        compared += len(want)
    assert compared > 300 and backfilled_big > 5


def test_the_depth_kernel_refuses_durations_its_trees_cannot_hold(easy_kernel):
    """Past 2**32 - 2 s (68 years beyond the door's bound), below 1 s (a job of no duration
    is re-planned in full: test_pricing_easy_fast.py), or at a depth below 1, a queue is
    refused with the bound named; at the bounds it is planned."""
    base, _ = deep_site(0, jobs=1)
    for depth in (1, 2):
        for bad in (2**32 - 1, 2**40, 0, -1):
            with pytest.raises(ValueError, match=r"planned durations must be in 1\.\.4294967294"):
                easy_kernel.EasyQueue(
                    base.times, base.free, base.capacity, [1, 2], [60, bad], 0, depth
                )
        E = easy_kernel.EasyQueue(
            base.times, base.free, base.capacity, [1, 2], [1, 2**32 - 2], 0, depth
        )
        assert len(E.starts) == 2
    with pytest.raises(ValueError, match="reservation depth must be >= 1"):
        easy_kernel.EasyQueue(base.times, base.free, base.capacity, [1, 2], [60, 60], 0, 0)


def test_the_kernels_decision_order_lists_the_jobs_decided_before_each_event(easy_kernel):
    """A depth-K re-plan (EASY: K = 1) from event r visits only the jobs decided (started, or
    placed) before r to set its state up: the first m - left[r] of E.order, which must be
    exactly those whose deciding event (E.ev) is before r, for every r, in queue order
    within an event."""
    for seed, depth in ((1, 2), (2, 4), (3, 8), (4, 1), (5, 1)):
        base, shapes = deep_site(seed, jobs=150)
        procs, durs = [n for n, _ in shapes], [d for _, d in shapes]
        E = easy_kernel.EasyQueue(base.times, base.free, base.capacity, procs, durs, 0, depth)
        m = len(procs)
        order = [E.order[i] for i in range(m)]
        ev = [E.ev[x] for x in range(m)]
        assert sorted(order) == list(range(m))
        assert [(ev[x], x) for x in order] == sorted((ev[x], x) for x in range(m))
        for r in range(E.events + 1):
            decided = m - E.left[r]
            assert set(order[:decided]) == {x for x in range(m) if ev[x] < r}
