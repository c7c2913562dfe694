"""Every acceleration the policy registry lists is proven equal to its reference policy.

Driven by the registry itself (scheduler/cluster/registry.py): a newly registered whole-run
acceleration is checked here without a line of test code.  The deep checks — real traces,
samples, cancellation, the runs an acceleration must decline — are in test_cluster_loop.py;
the quote kernels' in test_pricing_*_fast.py and test_native_kernel.py.
"""

from __future__ import annotations

import os

import pytest

from scheduler._native import load_compiled
from scheduler.cluster import BUILTIN, Simulator, prepare_jobs
from scheduler.pricing.plan import PLANNERS
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
    """Each registry entry's ``quote`` family names a planner of pricing (or the depth-K
    kernel), so a quote never falls through to a family nobody implements."""
    families = {e.quote for e in BUILTIN.values()} - {None}
    assert families and families <= set(PLANNERS) | {"depth"}
