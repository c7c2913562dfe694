"""Deep queues in whole-trace pricing runs (the SDSC-SP2 +40 % preset, thousands queued):
eq. 20 at α = 0 and α = 1 computes only part of query (18)'s answer
(:func:`scheduler.pricing.workload.pick`, :func:`scheduler.pricing._replan.first_options`),
and the re-plan kernel moves its steps with memmove and searches without branches.  Each
must give what the whole list, priced by Figure 22 literally, gives: the same option, price
and option count, compiled and pure.
"""

from __future__ import annotations

import pytest

import scheduler.pricing.price as price_mod
import scheduler.pricing.workload as workload
from scheduler.cluster import prepare_jobs
from scheduler.pricing import SiteQuote, choose
from scheduler.traces.lublin import generate_lublin99
from tests.scheduler.native_helpers import compiled, deep_site, pure

NAME = "scheduler.pricing._replan"
KERNELS = {"pure": lambda: pure(NAME), "compiled": lambda: compiled(NAME, "re-plan kernel")}
SLOTS = ((1, 600), (8, 3600), (32, 2 * 3600), (64, 900))


@pytest.fixture(params=sorted(KERNELS))
def kernel(request, monkeypatch):
    """Price with the pure or the compiled kernel."""
    module = KERNELS[request.param]()
    monkeypatch.setattr(price_mod, "_R", module)
    return module


def literal_options(q: SiteQuote, n: int, d: int) -> list[tuple[int, int]]:
    """Query 18 by Figure 22 re-planned in full: (start, delay) of every feasible start."""
    return [(s, f) for s in q.candidates() if (f := q.price_naive(s, n, d)) is not None]


@pytest.mark.parametrize("policy", ["conservative", "fcfs"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_first_options_against_the_literal_prices(kernel, policy, seed):
    """The count of feasible starts, the first of them and the first free one (found by
    re-plans that stop at the first job that moves) are those of the literal list."""
    base, shapes = deep_site(seed)
    q = SiteQuote(base, shapes, 0, policy)
    cands = q.candidates()
    index = {s: i for i, s in enumerate(cands)}
    for n, d in SLOTS:
        want = literal_options(q, n, d)
        count, first, free, least = kernel.first_options(
            q._queue(), cands, n, d, q.now, policy == "fcfs", True
        )
        assert count == len(want)
        assert first == index[want[0][0]]
        assert free == index[next(s for s, f in want if f == 0)]
        before = [f for s, f in want if index[s] < free]  # all positive
        assert 0 < least <= min(before) if before else least == 0
        no_zero = kernel.first_options(q._queue(), cands, n, d, q.now, policy == "fcfs", False)
        assert no_zero == (count, first, -1, 0)


@pytest.mark.parametrize("policy", ["conservative", "fcfs"])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_pick_is_the_choice_over_the_literal_list(kernel, policy, seed):
    """pick() at α = 0, 1 (the shortcuts) and 0.5 (the whole list) against choose() over
    the options priced by Figure 22 literally."""
    base, shapes = deep_site(seed, jobs=160)
    q = SiteQuote(base, shapes, 0, policy)
    for n, d in SLOTS:
        want = literal_options(q, n, d)
        opts = [price_mod.Option(s, n, d, q.unit_cost, f) for s, f in want]
        for alpha in (0.0, 1.0, 0.5, 0, 1):
            got, offered = workload.pick(q, n, d, alpha)
            assert (got, offered) == (choose(opts, alpha), len(opts))
    picks = {workload.pick(q, n, d, 0.0)[0].delay for n, d in SLOTS}
    assert any(f > 0 for f in picks)  # α = 0 takes a start that delays the queue


def test_the_price_bound_bounds_every_price(kernel):
    """_price_bound (the α = 1 rounding guard) is at least every literal price."""
    for seed in (1, 2, 3):
        base, shapes = deep_site(seed)
        q = SiteQuote(base, shapes, 0, "conservative")
        for n, d in SLOTS:
            want = literal_options(q, n, d)
            bound = workload._price_bound(q, want[-1][0] + d)
            assert max(f for _, f in want) <= bound


def test_alpha_one_falls_back_to_the_whole_list_past_the_bound(kernel, monkeypatch):
    """When the bound exceeds the rounding-safe limit, the whole list is priced (and the
    same option comes out)."""
    base, shapes = deep_site(5)
    q = SiteQuote(base, shapes, 0, "conservative")
    calls = []
    real = SiteQuote.options

    def spy(self, n, d):
        calls.append((n, d))
        return real(self, n, d)

    monkeypatch.setattr(SiteQuote, "options", spy)
    fast = workload.pick(q, 8, 3600, 1.0)
    assert calls == []
    assert fast[0].start > q.options(8, 3600)[0].start  # positive prices come first
    calls.clear()
    monkeypatch.setattr(workload, "_ROUNDING_SAFE", 0)
    assert workload.pick(q, 8, 3600, 1.0) == fast
    assert calls == [(8, 3600)]


def _whole_list(quote, n, d, alpha):
    """pick() as run_pricing did it before: choose() over the whole list."""
    opts = quote.options(n, d)
    return choose(opts, alpha), len(opts)


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_a_whole_run_is_the_run_over_the_whole_lists(kernel, alpha, monkeypatch):
    """A Lublin–Feitelson workload at four times its load (queues of 100+): every
    reservation's start, price and option count, every best-effort wait, as when each
    quote prices its whole list."""
    jobs, _ = prepare_jobs(generate_lublin99(jobs=500, procs=64, seed=8).jobs, 32, "accurate")
    jobs = [j._replace(submit=j.submit // 4) for j in jobs]
    got = workload.run_pricing(jobs, 32, "conservative", alpha=alpha, seed=3)
    monkeypatch.setattr(workload, "pick", _whole_list)
    want = workload.run_pricing(jobs, 32, "conservative", alpha=alpha, seed=3)
    assert got.reservations == want.reservations
    assert got.best_effort_waits == want.best_effort_waits
    assert max(r.queued for r in got.reservations) >= 50  # deep enough to matter
    assert any(r.f > 0 for r in got.reservations) or alpha == 1.0
