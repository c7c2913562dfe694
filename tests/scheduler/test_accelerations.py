"""Every acceleration the policy registry lists is proven equal to its reference policy.

Driven by the registry itself (scheduler/cluster/registry.py): a newly registered whole-run
acceleration or quote family is checked here without a line of test code — each whole-run
loop against the event loop, each quote kernel against its policy's own class played forward
without and with the slot (Figure 22 of Singh 2008 taken literally).  The deep checks — real
traces, samples, cancellation, the runs an acceleration must decline, 200-job queues,
compiled against pure — are in test_cluster_loop.py, test_pricing_*_fast.py and
test_native_kernel.py.

The registry's EASY and FCFS are also written exactly in the public policy API (a first come
first served priority with one reservation, or without backfilling: docs/policies.md); the
generic priority engine re-examines the whole queue at every decision, so the registry's
classes and their quote kernels must agree with it job by job — here in pricing's live
simulation, where reservations are granted mid-run and given back early.
"""

from __future__ import annotations

import os

import pytest

from scheduler._native import load_compiled
from scheduler.cluster import BUILTIN, Simulator, prepare_jobs, registry
from scheduler.pricing.plan import PLANNERS, plan_with_policy
from scheduler.pricing.price import SiteQuote
from scheduler.pricing.workload import PricingRun, run_pricing, split_reservations
from scheduler.traces.lublin import generate_lublin99

WHOLE_RUNS = [
    pytest.param(name, run, id=f"{name}-{run.__name__}")
    for name, entry in BUILTIN.items()
    for run in entry.whole_runs
]


def _reference(jobs, procs: int, policy: str) -> Simulator:  # type: ignore[no-untyped-def]
    sim = Simulator(jobs, procs, policy)
    sim._run(None, None)  # the event loop: the reference policy, call by call
    return sim


@pytest.mark.parametrize(("policy", "accelerated"), WHOLE_RUNS)
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("estimates", ["requested", "accurate"])
def test_every_whole_run_equals_its_reference(policy, accelerated, seed, estimates) -> None:
    trace = generate_lublin99(jobs=800, procs=64, seed=seed)
    jobs, _ = prepare_jobs(trace.jobs, 64, estimates)
    fast = Simulator(jobs, 64, policy)
    if not accelerated(fast, None):  # declined: a compiled loop without its build
        assert accelerated.__name__.startswith("compiled"), accelerated.__name__
        module, why = load_compiled("scheduler.cluster._loop")
        if os.environ.get("CI"):
            pytest.fail(f"{accelerated.__name__} declined under CI ({why}): make setup builds it")
        pytest.skip(f"{accelerated.__name__}: no compiled build ({why})")
    slow = _reference(jobs, 64, policy)
    assert fast.start == slow.start
    assert fast._series == slow._series
    assert (fast.now, fast.busy, fast.profile) == (slow.now, slow.busy, slow.profile)


def test_every_quote_family_has_a_kernel() -> None:
    """Each registry entry's ``quote`` family names a planner of pricing (or the EASY /
    depth-K kernel, whose no-slot plan is the policy played forward: no planner of its own),
    so a quote never falls through to a family nobody implements."""
    families = {e.quote for e in BUILTIN.values()} - {None}
    assert families and families <= set(PLANNERS) | {"easy", "depth"}


#: registry policy -> its exact form in the public API: a priority policy by submit time
#: (ties: queue order) with this class attribute (docs/policies.md, "exactly EASY")
PUBLIC_FORMS = {"easy": "reservations = 1", "fcfs": "backfill = False"}
FIRST_COME = """from scheduler.policies import PriorityPolicy


class FirstCome(PriorityPolicy):
    {attribute}

    def priority(self, job, now):
        return -job.submit
"""
USER_REF = "user:00000000a11e"

#: (jobs, processors, seed = split of the reservations, fraction reserving): generated traces
#: (Lublin & Feitelson 2003, requested estimates).  The first is the smallest found where
#: EASY's class, before the simulator told it of granted reservations, kept its "arrivals
#: only: examine the newcomers" shortcut after a reservation had moved its head's shadow time
#: later: job 12 backfilled at 18863 (the next release) instead of 18707 (the next arrival)
LIVE_CASES = [(30, 16, 1, 0.3), (40, 64, 7, 0.3), (120, 32, 2, 0.2)]


def _first_difference(jobs, seed: int, fraction: float, a: PricingRun, b: PricingRun) -> str:
    """The first job (trace number) whose start differs between two pricing runs, or ''."""
    best, _ = split_reservations(jobs, fraction, seed)
    for job, wa, wb in zip(best, a.best_effort_waits, b.best_effort_waits, strict=True):
        if wa != wb:
            return (
                f"best-effort job {job.job_id} (submitted {job.submit}) starts at "
                f"{job.submit + wa} under the registry's policy, {job.submit + wb} written"
            )
    for ra, rb in zip(a.reservations, b.reservations, strict=True):
        if (ra.start, ra.f) != (rb.start, rb.f):
            return (
                f"reservation of job {ra.job_id} (asked at {ra.submit}): start {ra.start} "
                f"price {ra.f} under the registry's policy, start {rb.start} price {rb.f} written"
            )
    return ""


@pytest.mark.parametrize("policy", sorted(PUBLIC_FORMS))
@pytest.mark.parametrize(("jobs", "procs", "seed", "fraction"), LIVE_CASES)
def test_pricing_live_runs_equal_the_policy_written_in_the_public_api(
    policy, jobs, procs, seed, fraction, tmp_path, monkeypatch
) -> None:
    path = tmp_path / "first_come.py"
    path.write_text(FIRST_COME.format(attribute=PUBLIC_FORMS[policy]))
    monkeypatch.setitem(registry._USER_POLICIES, USER_REF, f"{path}:FirstCome")
    trace = generate_lublin99(jobs=jobs, procs=procs, seed=seed)
    sim_jobs, _ = prepare_jobs(trace.jobs, procs, "requested")
    for alpha in (0.0, 1.0):
        runs = [
            run_pricing(sim_jobs, procs, p, alpha=alpha, fraction=fraction, seed=seed)
            for p in (policy, USER_REF)
        ]
        assert _first_difference(sim_jobs, seed, fraction, *runs) == "", (policy, alpha)
        assert runs[0].reservations == runs[1].reservations
        assert runs[0].best_effort_waits == runs[1].best_effort_waits
        if alpha == 0:  # some slot does move queued jobs (not only free holes)
            assert any(r.f > 0 for r in runs[0].reservations)


#: every quote family at work: the registry's text of a policy with a quote kernel, and the
#: depths the depth-K kernel is taken at (K = 1 is routed to EASY's family, K >= the queue's
#: length to conservative's)
QUOTED = [
    *(name for name, entry in BUILTIN.items() if entry.quote not in (None, "depth")),
    *(f"backfill-k={k}" for k in (1, 2, 4)),
]


def _played_forward_delays(quote, policy: str, cands, n: int, d: int) -> list:  # type: ignore[no-untyped-def]
    """Figure 22 with the policy itself: the queue played forward by the simulator's own class
    (:func:`~scheduler.pricing.plan.plan_with_policy`) without and with the slot; its delay
    Σ max(0, v' − v)·q at each start, None where the slot does not fit."""
    before = plan_with_policy(policy, quote.base.copy(), quote.shapes, quote.now)
    out = []
    for s in cands:
        if quote.base.free_over(s, s + d) < n:
            out.append(None)
            continue
        p = quote.base.copy()
        p.reserve(s, s + d, n)
        after = plan_with_policy(policy, p, quote.shapes, quote.now)
        out.append(
            sum(
                (b - a) * q
                for (q, _), a, b in zip(quote.shapes, before, after, strict=True)
                if b > a
            )
        )
    return before, out


@pytest.mark.parametrize("policy", QUOTED)
@pytest.mark.parametrize("seed", [3, 4, 5])
def test_every_quote_kernel_equals_its_policy_played_forward(policy, seed) -> None:
    """The registry's quote kernel of each policy (``quote``) against the policy's own class
    played forward: the no-slot plan and every candidate's price, at instants of a live
    simulation (generated trace, Lublin & Feitelson 2003; requested estimates)."""
    procs = 32
    trace = generate_lublin99(jobs=300, procs=procs, seed=seed)
    jobs, _ = prepare_jobs(trace.jobs, procs, "requested")
    sim = Simulator(jobs, procs, policy)
    checked = 0
    step = max(1, (jobs[-1].submit - jobs[0].submit) // 24)
    for at in range(jobs[0].submit, jobs[-1].submit, step):
        sim.run(until=at)
        quote = SiteQuote.of(sim, at)
        if not quote.shapes:
            continue
        for n, d in ((1, 600), (procs // 2, 3600), (procs, 7200)):
            options = {o.start: o.delay for o in quote.options(n, d)}
            cands = quote.candidates()
            before, reference = _played_forward_delays(quote, policy, cands, n, d)
            assert list(quote.starts) == before, (policy, at, "the no-slot plan")
            kernel = [options.get(s) for s in cands]
            assert kernel == reference, (policy, at, n, d)
            checked += sum(f is not None for f in reference)
    assert checked >= 20, f"only {checked} prices compared"
