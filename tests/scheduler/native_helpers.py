"""Shared by the tests of the compiled kernels (scheduler/_native.py): load a kernel's
pure source or its compiled build, and a deep random site queue for the quote kernels."""

from __future__ import annotations

import os
import random
from contextlib import contextmanager

import pytest

import scheduler.cluster.conservative as conservative_mod
import scheduler.cluster.profile as profile_mod
from scheduler import _native
from scheduler.cluster import Simulator, prepare_jobs
from scheduler.cluster.profile import Profile
from scheduler.traces.swf import SWFJob


def pure(name: str):
    """Module ``name`` from its ``.py``, under a name of its own (the process's copy untouched)."""
    return _native.load_pure(name, f"{name}_pure_for_tests")


def compiled(name: str, what: str = "kernel"):
    """Module ``name``'s compiled build; skips without one (with the reason), except under
    ``CI=1`` (``make test`` builds it), where a missing or stale build fails."""
    module, why = _native.load_compiled(name)
    if module is None:
        if os.environ.get("CI"):
            pytest.fail(f"no usable compiled {what} under CI ({why}): make setup builds it")
        pytest.skip(f"no compiled {what} ({why}); make setup builds it")
    return module


@contextmanager
def kernel(module):  # type: ignore[no-untyped-def]
    """Run the engine on ``module`` (a build of the compression pass or its pure source, with
    the profile library it steps: every profile made meanwhile holds that library's steps)."""
    saved = profile_mod._C, conservative_mod._C
    profile_mod._C = conservative_mod._C = module
    try:
        yield
    finally:
        profile_mod._C, conservative_mod._C = saved


#: the EASY / depth-K quote kernel
EASY = "scheduler.pricing._easy"


def easy_kernels():
    """The EASY kernel's two builds, loaded when called: ``{"pure": ..., "compiled": ...}``."""
    return {"pure": lambda: pure(EASY), "compiled": lambda: compiled(EASY, "EASY kernel")}


def literal(q, n: int, d: int) -> dict[int, int]:  # type: ignore[no-untyped-def]
    """Figure 22 taken literally for every candidate start of ``q`` (``price_naive``):
    ``{start: price}`` of the feasible ones."""
    return {s: f for s in q.candidates() if (f := q.price_naive(s, n, d)) is not None}


def small_site(rng: random.Random):
    """A small random site (a machine of 2–12 processors with up to 4 running blocks) and a
    queue of 1–25 shapes, durations 0 included: ``(base, shapes, capacity)``."""
    cap = rng.randint(2, 12)
    base = Profile(cap)
    for _ in range(rng.randint(0, 4)):
        a, d, n = rng.randint(0, 20), rng.randint(1, 15), rng.randint(1, cap)
        if base.free_over(a, a + d) >= n:
            base.reserve(a, a + d, n)
    shapes = [
        (rng.randint(1, cap), rng.choice((0, 1, 2, 5, 9, 14))) for _ in range(rng.randint(1, 25))
    ]
    return base, shapes, cap


def deep_site(seed: int, jobs: int = 220, cap: int = 64, zeros: bool = False):
    """A busy machine with a deep queue: a few running blocks and ``jobs`` queued shapes,
    many small and alike (under conservative backfilling the lower bound from the nearest
    no-bigger job ahead is used all the time; under EASY they backfill), some wide and long
    (long cascades and shadows); with ``zeros``, some of no duration."""
    rng = random.Random(seed)
    base = Profile(cap, 0)
    for _ in range(rng.randint(3, 12)):
        a = rng.randint(0, 3600)
        d = rng.randint(60, 4 * 3600)
        n = rng.randint(1, cap // 2)
        if base.free_over(a, a + d) >= n:
            base.reserve(a, a + d, n)
    shapes = []
    for _ in range(jobs):
        r = rng.random()
        if r < 0.5:
            shape = (rng.choice((1, 2, 4, 8)), rng.choice((300, 600, 1800, 3600)))
        elif r < 0.9:
            shape = (rng.randint(1, cap), rng.randint(60, 6 * 3600))
        else:
            shape = (rng.randint(cap // 2, cap), rng.randint(3600, 12 * 3600))
        if zeros and rng.random() < 0.1:
            shape = (shape[0], 0)
        shapes.append(shape)
    return base, shapes


def deep_cases(kernel, cases: list) -> list:
    """The deep-queue cases a test runs with ``kernel``: all of them compiled (what runs in
    production), the first one as pure Python (slow, and compared with the compiled build call
    by call elsewhere), or all of them under ``GRIDPORTAL_FULL_TESTS=1``."""
    from tests.conftest import sample

    pure_source = kernel.__name__.endswith("_pure_for_tests")
    return sample(cases, 1) if pure_source else list(cases)


def deep_queue_trace(seed: int, jobs: int = 300, procs: int = 32) -> list[SWFJob]:
    """An overloaded machine: arrivals faster than it serves, many jobs end before their
    estimate (so the plan is compressed often), a few repeated shapes."""
    rng = random.Random(seed)
    out, t = [], 0
    for i in range(jobs):
        t += rng.choice([0, 0, 1, 5, 30, 120])
        req = rng.choice([60, 300, 600, 1800, 3600, rng.randint(1, 7200)])
        run = rng.randint(0, req) if rng.random() < 0.7 else req
        n = rng.choice([1, 1, 2, 4, 8, procs // 2, procs, rng.randint(1, procs)])
        out.append(
            SWFJob(i + 1, t, -1, run, n, -1, -1, n, req, -1, 1, 1, 1, 1, 1, 1, -1, -1)
        )  # fmt: skip
    return out


def run_policy(trace, procs, policy, estimates="requested"):
    sim_jobs, _ = prepare_jobs(trace, procs, estimates)
    sim = Simulator(sim_jobs, procs, policy)
    sim.run()
    return list(sim.start)
