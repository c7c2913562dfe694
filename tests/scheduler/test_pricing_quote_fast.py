"""The quote's re-plan kernel: scheduler/pricing/_replan.py, compiled by Cython in
pure-Python mode when a build exists, must price every candidate start exactly as Figure 22
literally does (:meth:`SiteQuote.price_naive`), compiled and pure alike, on deep queues
(200+ jobs) under conservative backfilling and FCFS, and queues with jobs of no duration.

The compiled build exists after ``make setup``; without one the compiled comparisons skip,
except under ``CI=1`` (``make test`` builds it), where a missing build fails.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

import scheduler.pricing.price as price_mod
from scheduler import _native
from scheduler.cluster.profile import Profile
from scheduler.pricing import SiteQuote
from tests.scheduler.native_helpers import compiled, deep_site, literal, pure, small_site

NAME = "scheduler.pricing._replan"


def _pure():
    return pure(NAME)


def _compiled():
    return compiled(NAME, "re-plan kernel")


KERNELS = {"pure": _pure, "compiled": _compiled}


@pytest.fixture(params=sorted(KERNELS))
def kernel(request, monkeypatch):
    """Price with the pure or the compiled kernel (whatever the process loaded)."""
    module = KERNELS[request.param]()
    monkeypatch.setattr(price_mod, "_R", module)
    return module


@pytest.mark.parametrize("policy", ["conservative", "fcfs"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_option_of_a_200_job_queue_is_the_literal_price(kernel, policy, seed):
    """Query 18 (all candidate starts in one kernel call) and query 17 (one start at a
    time) against Figure 22 re-planned in full, for several request sizes."""
    base, shapes = deep_site(seed)
    q = SiteQuote(base, shapes, 0, policy)
    assert len(q.shapes) >= 200
    moved = 0
    for n, d in ((1, 600), (8, 3600), (32, 2 * 3600), (64, 900)):
        want = literal(q, n, d)
        assert {o.start: o.delay for o in q.options(n, d)} == want
        assert {s: f for s in q.candidates() if (f := q.price(s, n, d)) is not None} == want
        moved += sum(f > 0 for f in want.values())
    assert moved > 20  # the slots do delay the queue: the re-plan is exercised


@pytest.mark.parametrize("policy", ["conservative", "fcfs", "easy"])
def test_jobs_of_no_duration_are_priced_literally(kernel, policy):
    """A queued job of no duration holds no block but needs its processors free at its
    start: a slot over that instant moves it, even in a hole of the plan."""
    base = Profile(4)
    base.reserve(0, 10, 2)
    q = SiteQuote(base, [(3, 5), (2, 0), (4, 3), (1, 0), (2, 4)], 0, policy)
    assert q.price(0, 2, 6) == q.price_naive(0, 2, 6)
    if policy == "conservative":  # by hand: jobs 1, 3, 4 wait 6 s (2·6 + 1·6 + 2·6)
        assert q.price(0, 2, 6) == 30
    hole = SiteQuote(Profile(4), [(3, 0)], 0, policy)  # starts at 0 holding nothing
    assert hole.plan.free_over(0, 6) >= 2  # the slot fits the plan's hole ...
    assert hole.price(0, 2, 6) == hole.price_naive(0, 2, 6) == 18  # ... yet moves it 6 s
    for seed in range(4):
        base, shapes = deep_site(seed, jobs=60, cap=16, zeros=True)
        q = SiteQuote(base, shapes, 0, policy)
        for n, d in ((2, 600), (8, 3600)):
            assert {o.start: o.delay for o in q.options(n, d)} == literal(q, n, d)


def test_small_random_queues_are_priced_literally(kernel):
    """Many small random sites (seeded), all three policies, durations 0 included."""
    rng = random.Random(21)
    for _ in range(400):
        base, shapes, cap = small_site(rng)
        policy = rng.choice(("conservative", "fcfs", "easy"))
        q = SiteQuote(base, shapes, rng.randint(0, 3), policy)
        n, d = rng.randint(1, cap), rng.randint(1, 12)
        assert {o.start: o.delay for o in q.options(n, d)} == literal(q, n, d)


@pytest.mark.parametrize("policy", ["conservative", "fcfs"])
def test_compiled_and_pure_kernels_agree_call_by_call(policy):
    """Both kernels loaded side by side give the same delay for every candidate start, and
    leave their inputs as they were."""
    compiled, pure = _compiled(), _pure()
    base, shapes = deep_site(5, jobs=240, zeros=True)
    q = SiteQuote(base, shapes, 0, policy)
    base_times, base_free = q.base.lists()
    procs, durs = [n for n, _ in q.shapes], [d for _, d in q.shapes]
    queues = {
        name: module.Queue(base_times, base_free, procs, durs, q.starts)
        for name, module in (("compiled", compiled), ("pure", pure))
    }
    for qq in queues.values():  # its last prefix is the plan (a slot in a hole of it: free)
        plan = slice(qq.off[qq.m], qq.off[qq.m + 1])
        assert (list(qq.pt[plan]), list(qq.pf[plan])) == q.plan.lists()
    cands = q.candidates()
    for n, d in ((4, 1800), (16, 2 * 3600), (48, 600)):
        fast = compiled.delays(queues["compiled"], cands, n, d, 0, policy == "fcfs")
        assert fast == pure.delays(queues["pure"], cands, n, d, 0, policy == "fcfs")
        assert any(fast)
        # the single-start entry point (query 17) gives the same delays
        for name, module in (("compiled", compiled), ("pure", pure)):
            qq = queues[name]
            t, f = module.buffer([], qq.size), module.buffer([], qq.size)
            c = module.buffer([], qq.m)
            for s, delay in zip(cands, fast, strict=True):
                if delay:  # a start that is re-planned
                    assert module.replan(qq, t, f, c, s, s + d, n, 0, policy == "fcfs") == delay
    assert (base_times, base_free) == q.base.lists()  # the kernels only read the lists


def test_a_build_of_another_source_is_not_loaded(tmp_path):
    """The stale-build guard covers this module too: a compiled build beside a changed
    ``.py``, or built before a change of the cluster's step library it cimports
    (scheduler/cluster/_steps.pxd, its inlined bodies, or _steps.py, whose compiled functions
    it calls), is refused (the ``.py`` runs)."""
    module = _compiled()  # skips without a build, except under CI (make test builds it)
    here = Path(price_mod.__file__).parent
    kernel = tmp_path / "scheduler" / "pricing"  # (the tree's layout: the .pxd is found above)
    library = tmp_path / "scheduler" / "cluster"
    kernel.mkdir(parents=True)
    library.mkdir(parents=True)
    shutil.copy(here / "_replan.py", kernel / "_replan.py")
    shutil.copy(module.__file__, kernel / os.path.basename(module.__file__))
    steps_pxd = library / "_steps.pxd"
    shutil.copy(here.parent / "cluster" / "_steps.pxd", steps_pxd)
    shutil.copy(here.parent / "cluster" / "_steps.py", library / "_steps.py")
    module, why = _native.load_compiled(NAME, directory=str(kernel))
    assert module is not None and why == "compiled"
    with open(kernel / "_replan.py", "a") as fh:
        fh.write("\n# changed\n")
    module, why = _native.load_compiled(NAME, directory=str(kernel))
    assert module is None and why.startswith("stale compiled build")
    (kernel / "_replan.py").write_bytes((here / "_replan.py").read_bytes())  # as built again
    module, why = _native.load_compiled(NAME, directory=str(kernel))
    assert module is not None
    with open(steps_pxd, "a") as fh:  # an inlined body changed
        fh.write("\n# changed\n")
    module, why = _native.load_compiled(NAME, directory=str(kernel))
    assert module is None and why.startswith("stale compiled build")
    shutil.copy(here.parent / "cluster" / "_steps.pxd", steps_pxd)
    assert _native.load_compiled(NAME, directory=str(kernel))[0] is not None
    with open(library / "_steps.py", "a") as fh:  # the library's own build is stale now
        fh.write("\n# changed\n")
    module, why = _native.load_compiled(NAME, directory=str(kernel))
    assert module is None and why.startswith("stale compiled build")


def test_the_quote_says_which_kernel_runs():
    status = _native.status()[NAME]
    if os.environ.get(_native.PURE_ENV, "") not in ("", "0"):
        assert status == f"pure: {_native.PURE_ENV} is set"
    else:
        module, why = _native.load_compiled(NAME)
        assert status == ("compiled" if module is not None else f"pure: {why}")


def test_choose_is_eq_20_on_random_lists():
    """:func:`choose` (which rounds only the scores near the least) picks what minimising
    the rounded score over the whole list picks — the first of the least on ties."""
    from scheduler.pricing import choose
    from scheduler.pricing.price import Option

    def reference(options, alpha):
        fs, ss = [o.delay for o in options], [o.start for o in options]
        f_span, s_span = max(fs) - min(fs) or 1, max(ss) - min(ss) or 1

        def score(o):
            value = (
                alpha * (o.delay - min(fs)) / f_span + (1 - alpha) * (o.start - min(ss)) / s_span
            )
            return (round(value, 12), o.start)

        return min(options, key=score)

    rng = random.Random(20)
    for _ in range(2000):
        options = [
            Option(
                rng.choice((rng.randint(0, 10**6), 1000 + 37 * i)), 32, 7200, 1.0,
                rng.choice((0, 5, rng.randint(0, 10**7), 10**12)),
            )
            for i in range(rng.randint(1, 40))
        ]  # fmt: skip
        if rng.random() < 0.3:
            options += options[:3]  # equal options: the first one wins
        for alpha in (0.0, 0.5, 1.0, 1 / 3, 1e-13, rng.random()):
            assert choose(options, alpha) is reference(options, alpha)
