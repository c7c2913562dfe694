"""The FCFS quote kernel: :class:`scheduler.pricing._replan.FcfsQueue` and
:func:`~scheduler.pricing._replan.fcfs_delays`, compiled and pure, must give the no-slot plan
of :func:`~scheduler.pricing.plan.plan_fcfs` and price every start exactly as Figure 22
literally does (:meth:`SiteQuote.price_naive`).

Its shortcuts are each exercised here, and each of them dropped makes these tests fail
(``bench/fcfs_kernel_mutations.py`` counts the wrong prices): the first job whose block meets
the slot, the jobs that keep their starts while nothing has moved (and the restart from a
kept state nearer to the next job that meets the slot), the re-plan on the profile while a
block starts after the floor (the slot, a reservation of the base) and on its releases after,
the stop where the re-plan's state is the plan's moved later, and the stop where it is the
state an earlier re-plan of the same quote had.  The states are kept at every ``2**shift``-th
job: small queues are priced with ``shift`` 0 and 1 too (every job and every second), so the
stops happen on them.
"""

from __future__ import annotations

import random

import pytest

import scheduler.pricing.price as price_mod
from scheduler.cluster.profile import Profile
from scheduler.pricing import SiteQuote
from scheduler.pricing.plan import plan_fcfs
from tests.scheduler.native_helpers import compiled, deep_site, literal, pure

NAME = "scheduler.pricing._replan"
KERNELS = {"pure": lambda: pure(NAME), "compiled": lambda: compiled(NAME, "re-plan kernel")}


@pytest.fixture(params=sorted(KERNELS))
def kernel(request, monkeypatch):
    """The pure or the compiled kernel, also as the one SiteQuote uses."""
    module = KERNELS[request.param]()
    monkeypatch.setattr(price_mod, "_R", module)
    return module


def fcfs_site(rng: random.Random):
    """A small random FCFS site: 2-10 processors; running jobs (from the origin, some ending
    late) and reservations (starting later: the base profile falls after the floor); a
    queue of 1-40 jobs with short durations, 0 included (many equal instants: the re-plans
    meet the plan and each other often)."""
    cap = rng.randint(2, 10)
    base = Profile(cap)
    for _ in range(rng.randint(0, 3)):  # running: from 0, ending up to late
        d, n = rng.choice((1, 3, 8, 30, 60)), rng.randint(1, cap)
        if base.free_over(0, d) >= n:
            base.reserve(0, d, n)
    for _ in range(rng.randint(0, 2)):  # reservations: later, some far away
        a, d, n = rng.choice((2, 5, 20, 45)), rng.randint(1, 12), rng.randint(1, cap)
        if base.free_over(a, a + d) >= n:
            base.reserve(a, a + d, n)
    durs = rng.choice(((0, 1, 2, 3), (1, 2, 3, 5, 9, 14), (0, 1, 2, 4, 8)))
    shapes = [(rng.randint(1, cap), rng.choice(durs)) for _ in range(rng.randint(1, 40))]
    return base, shapes, cap


def prices(module, q: SiteQuote, starts: list[int], n: int, d: int, shift: int, room: int):
    """``fcfs_delays`` of a queue built with states at every ``2**shift``-th job."""
    Q = module.FcfsQueue(
        q.base.times, q.base.free, [p for p, _ in q.shapes], [dq for _, dq in q.shapes], q.now,
        shift, room,
    )  # fmt: skip
    assert Q.starts == q.starts
    return module.fcfs_delays(Q, starts, n, d)


def test_the_kernel_plans_as_plan_fcfs(kernel):
    rng = random.Random(7)
    for _ in range(300):
        base, shapes, _ = fcfs_site(rng)
        now = rng.randint(0, 4)
        q = SiteQuote(base, shapes, now, "fcfs")
        assert q.starts == plan_fcfs(q.base.copy(), q.shapes, now)
    for seed in range(3):
        base, shapes = deep_site(seed, jobs=300, zeros=seed == 1)
        q = SiteQuote(base, shapes, 0, "fcfs")
        assert q.starts == plan_fcfs(base.copy(), q.shapes, 0)


@pytest.mark.parametrize("shift", [0, 1, 3])
def test_small_random_sites_are_priced_literally(kernel, shift):
    """Every candidate start, the plan's end and a few other starts (past the end too),
    states kept at every job, every second or every eighth; a small room for the kept
    re-plan states in one run of three (those that do not fit are not kept)."""
    rng = random.Random(100 + shift)
    moved = 0
    for i in range(700):
        base, shapes, cap = fcfs_site(rng)
        now = rng.randint(0, 3)
        q = SiteQuote(base, shapes, now, "fcfs")
        n, d = rng.randint(1, cap), rng.randint(1, 12)
        end = max(v + dq for (_, dq), v in zip(q.shapes, q.starts, strict=True))
        starts = sorted(set(q.candidates()) | {end, end + 1, now + rng.randint(0, 30)})
        want = [q.price_naive(s, n, d) for s in starts]
        room = 3 if i % 3 == 0 else 64
        assert prices(kernel, q, starts, n, d, shift, room) == want, (base, shapes, now, n, d)
        moved += sum(bool(f) for f in want)
    assert moved > 1000  # the slots do move the queues


@pytest.mark.parametrize("seed", [1, 2])
def test_deep_queues_are_priced_as_by_the_prefix_kernel(kernel, seed):
    """600 queued jobs: every option as the conservative kernel's FCFS re-plan from the
    prefix (``delays(..., fcfs=True)``, checked against Figure 22 on 200-job queues) prices
    it, and the quote's options as Figure 22 literally for one request."""
    base, shapes = deep_site(seed, jobs=600, zeros=seed == 2)
    q = SiteQuote(base, shapes, 0, "fcfs")
    procs, durs = [p for p, _ in q.shapes], [dq for _, dq in q.shapes]
    old = kernel.Queue(q.base.times, q.base.free, procs, durs, q.starts)
    cands = q.candidates()
    moved = 0
    for n, d in ((1, 600), (8, 3600), (32, 2 * 3600), (64, 900)):
        want = kernel.delays(old, cands, n, d, 0, True)
        for shift in (0, 3, 5):
            assert prices(kernel, q, cands, n, d, shift, 64) == want
        moved += sum(bool(f) for f in want)
    assert moved > 200
    assert {o.start: o.delay for o in q.options(8, 3600)} == literal(q, 8, 3600)


def test_a_reservation_after_the_floor_is_priced_literally(kernel):
    """By hand: a reservation starting later than every floor of the re-plan keeps the
    re-plan on the profile (no job may start before it and run into it)."""
    base = Profile(4)
    base.reserve(10, 20, 3)  # only 1 processor over [10, 20)
    q = SiteQuote(base, [(2, 6), (2, 6), (1, 30)], 0, "fcfs")
    assert q.starts == [0, 0, 6]
    for s in range(0, 12):
        assert q.price(s, 1, 3) == q.price_naive(s, 1, 3)
    # job 1 no longer fits by the reservation: from 0 to 20; job 2 from 6 to 20
    assert q.price(4, 2, 2) == q.price_naive(4, 2, 2) == 2 * 20 + 1 * 14


def test_unix_times_price_as_times_from_zero(kernel):
    """The same deep site at a Unix-time origin: every price as at origin 0 (sums of starts
    are kept from ``now``, far from 63 bits)."""
    base, shapes = deep_site(4, jobs=400)
    origin = 1_700_000_000
    late = Profile(base.capacity, origin)
    for a, b, free in base.steps():
        if b is not None and free < base.capacity:
            late.reserve(origin + a, origin + b, base.capacity - free)
    q0 = SiteQuote(base, shapes, 0, "fcfs")
    q1 = SiteQuote(late, shapes, origin, "fcfs")
    assert q1.starts == [origin + v for v in q0.starts]
    for n, d in ((8, 3600), (32, 2 * 3600)):
        at0 = {o.start: o.delay for o in q0.options(n, d)}
        at1 = {o.start - origin: o.delay for o in q1.options(n, d)}
        assert at1 == at0 and any(at0.values())


def test_the_first_job_a_slot_moves_is_found_past_jobs_that_keep_their_starts(kernel):
    """By hand: the re-plan starts at the first job the slot moves — past one that keeps its
    start after the slot's (its spare processors there hold the slot) — from a state kept
    before both; and a slot that moves nobody is priced 0."""
    base = Profile(10)
    base.reserve(0, 12, 4)  # running until 12
    shapes = [(6, 10), (8, 5), (2, 5)]  # 0-10; 12-17 (waits for 12); 12-17 (the 2 left)
    q = SiteQuote(base, shapes, 0, "fcfs")
    assert q.starts == [0, 12, 12]
    for shift in (0, 2):
        # [10, 20) x 2: job 1 keeps 12 (10 - 2 >= 8), job 2 waits for job 1's end
        assert prices(kernel, q, [10], 2, 10, shift, 64) == [q.price_naive(10, 2, 10)] == [10]
        assert prices(kernel, q, [17], 2, 10, shift, 64) == [0]  # after every block
        starts = q.candidates()
        want = [q.price_naive(s, 2, 10) for s in starts]
        assert prices(kernel, q, starts, 2, 10, shift, 64) == want
