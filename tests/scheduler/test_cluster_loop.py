"""The whole-run loops (scheduler/cluster/_loop.py): what ``Simulator.run`` does
for plain conservative backfilling and plain FCFS must be the event loop's run, job by job —
the same start times, samples, final state and summary — compiled and as Python; and the loops
must never take a run that is not plain (fixed reservations, a scheduling interval, a run
stopped at ``until``, a fork of a run under way, jobs submitted on the fly, another policy).

The compiled comparisons skip without a build, except under ``CI=1`` (``make test`` builds it),
where a missing or stale build fails.
"""

from __future__ import annotations

import functools
import random
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler.cluster import whole_run as loops_module
from scheduler.cluster.jobs import Reservation, SimJob, prepare_jobs
from scheduler.cluster.simulator import Simulator
from scheduler.traces.swf import SWFJob, read_swf
from tests.conftest import FULL, SHARED_DATA, examples, require
from tests.scheduler.native_helpers import compiled, pure

NAME = "scheduler.cluster._loop"
TRACES = SHARED_DATA / "traces"


def _loops():
    return {"pure": lambda: pure(NAME), "compiled": lambda: compiled(NAME, "whole-run loop")}


@pytest.fixture(params=sorted(_loops()))
def loop(request, monkeypatch):
    """``Simulator.run`` with the pure or the compiled loop module, taken whenever the run is
    plain (as Python the simulator does not take it by itself: it is slower there); records
    each call in ``.calls``."""
    module = _loops()[request.param]()
    calls: list[str] = []

    def spy(name):  # type: ignore[no-untyped-def]
        real = getattr(module, name)
        return lambda *a: calls.append(name) or real(*a)

    fake = SimpleNamespace(
        COMPILED=True,
        fits=module.fits,
        Run=module.Run,
        run_conservative=spy("run_conservative"),
        run_easy=spy("run_easy"),
        replay_fcfs=spy("replay_fcfs"),
        calls=calls,
        name=request.param,
    )
    monkeypatch.setattr(loops_module, "_L", fake)
    return fake


def event_loop(jobs, procs, policy, progress=None):  # type: ignore[no-untyped-def]
    """The general event loop, whatever ``run`` would take."""
    sim = Simulator(jobs, procs, policy)
    sim._run(None, progress)
    sim.finished = True
    return sim


def assert_same_run(fast: Simulator, slow: Simulator, policy: str) -> None:
    assert fast.start == slow.start
    assert fast._series == slow._series
    assert (fast.now, fast.busy, fast.profile, fast.queued(), fast.finished) == (
        slow.now, slow.busy, slow.profile, slow.queued(), slow.finished,
    )  # fmt: skip
    assert fast._next_arrival == slow._next_arrival and fast._completions == slow._completions
    assert fast.next_event_time() is None and slow.next_event_time() is None
    a, b = fast.policy, slow.policy
    if policy == "conservative":
        assert (a._plan, a._starts, a._shapes, a._dirty) == (
            b._plan, b._starts, b._shapes, b._dirty,
        )  # fmt: skip
    if policy == "easy":
        assert a._examined == b._examined
    assert fast.result(policy=policy).summary() == slow.result(policy=policy).summary()


# ------------------------------------------------------------------ the shared real traces

#: (file, processors): CTC-SP2 at 430 (the bench) and 338 (its batch partition), the others
#: at their header's MaxProcs
REAL = [
    ("CTC-SP2-1996-3.1-cln.swf.gz", 430),
    ("CTC-SP2-1996-3.1-cln.swf.gz", 338),
    ("SDSC-SP2-1998-4.2-cln.swf.gz", 128),
    ("KTH-SP2-1996-2.1-cln.swf.gz", 100),
    ("NASA-iPSC-1993-3.1-cln.swf.gz", 128),
]


@functools.cache
def _real_jobs(name: str, procs: int, estimates: str) -> tuple[SimJob, ...]:
    path = TRACES / name
    require(path.exists(), f"trace {name} not found under {TRACES} (shared data set absent)")
    return tuple(prepare_jobs(read_swf(path).jobs, procs, estimates)[0])


@functools.cache
def _real_event_loop(name: str, procs: int, estimates: str, policy: str) -> Simulator:
    return event_loop(_real_jobs(name, procs, estimates), procs, policy)


#: the real-trace cases of the pure loop (slow): CTC-SP2 at 430 requested, KTH accurate and
#: NASA requested (both estimates and three traces); GRIDPORTAL_FULL_TESTS=1 adds KTH
#: requested and NASA accurate. The compiled loop (what runs) is checked on every one.
PURE_REAL = {("CTC-", 430, "requested"), ("KTH-", 100, "accurate"), ("NASA", 128, "requested")}


def _real_cases():  # type: ignore[no-untyped-def]
    """(loop, trace, processors, estimates): compiled on every real trace; as Python (slow) on
    CTC-SP2 at 430 (requested), KTH and NASA only (a sample of these: PURE_REAL)."""
    for name, procs in REAL:
        for estimates in ("requested", "accurate"):
            for mode in ("compiled", "pure"):
                some = (name, procs, estimates) == (REAL[0][0], 430, "requested")
                if mode == "pure" and not (some or name.startswith(("KTH", "NASA"))):
                    continue
                if mode == "pure" and not FULL and (name[:4], procs, estimates) not in PURE_REAL:
                    continue
                yield pytest.param(
                    mode, name, procs, estimates, id=f"{mode}-{name[:4]}-{procs}-{estimates}"
                )


# (one xdist worker runs every real-trace case: XDIST_GROUPS in tests/conftest.py)
@pytest.mark.parametrize("policy", ["conservative", "easy"])
@pytest.mark.parametrize(
    ("loop", "name", "procs", "estimates"), list(_real_cases()), indirect=["loop"]
)
def test_backfilling_on_the_real_traces_equals_the_event_loop(loop, name, procs, estimates, policy):
    jobs = _real_jobs(name, procs, estimates)
    fast = Simulator(jobs, procs, policy).run()
    assert loop.calls == [f"run_{policy}"]
    assert_same_run(fast, _real_event_loop(name, procs, estimates, policy), policy)


@pytest.mark.parametrize(("name", "procs"), REAL[1:3], ids=["CTC-338", "SDSC-128"])
def test_fcfs_on_the_real_traces_equals_the_event_loop(loop, name, procs):
    jobs = _real_jobs(name, procs, "requested")
    fast = Simulator(jobs, procs, "fcfs").run()
    assert loop.calls == ["replay_fcfs"]
    assert_same_run(fast, _real_event_loop(name, procs, "requested", "fcfs"), "fcfs")


# ------------------------------------------------------------------ small random traces


def _jobs(rows, procs, estimates="requested"):  # type: ignore[no-untyped-def]
    """SWF records from ``(submit, runtime, request, processors)`` rows, prepared."""
    swf = [
        SWFJob(i + 1, s, -1, run, n, -1, -1, n, req, -1, 1, 1, 1, 1, 1, 1, -1, -1)
        for i, (s, run, req, n) in enumerate(rows)
    ]  # fmt: skip
    return prepare_jobs(swf, procs, estimates)[0]


@st.composite
def small_traces(draw):  # type: ignore[no-untyped-def]
    """Machines of 1-16 processors; jobs of runtime 0, jobs as wide as the machine, many at
    one submit time, most ending before their request (early ends: compressions)."""
    procs = draw(st.integers(1, 16))
    rows, t = [], draw(st.integers(0, 5))
    for _ in range(draw(st.integers(0, 60))):
        t += draw(st.sampled_from([0, 0, 0, 1, 2, 7, 30]))
        req = draw(st.sampled_from([0, 1, 2, 5, 10, 60, 100]))
        run = draw(st.one_of(st.just(0), st.just(req), st.integers(0, max(req, 0))))
        n = draw(st.one_of(st.just(procs), st.just(1), st.integers(1, procs)))
        rows.append((t, run, req if req else -1, n))
    return rows, procs


# 150 examples in the full budget (GRIDPORTAL_FULL_TESTS=1); each runs three policies with
# both loops against the event loop
@settings(max_examples=examples(150, 0.3), deadline=None, suppress_health_check=list(HealthCheck))
@given(case=small_traces(), estimates=st.sampled_from(["requested", "accurate"]))
def test_small_random_traces_equal_the_event_loop(case, estimates):
    rows, procs = case
    jobs = _jobs(rows, procs, estimates)
    for name, module in (("pure", pure(NAME)), ("compiled", _compiled_or_none())):
        if module is None:
            continue
        fake = SimpleNamespace(COMPILED=True, fits=module.fits, Run=module.Run, **{
            f: getattr(module, f) for f in ("run_conservative", "run_easy", "replay_fcfs")
        })  # fmt: skip
        saved = loops_module._L
        loops_module._L = fake
        try:
            for policy in ("conservative", "easy", "fcfs"):
                fast = Simulator(jobs, procs, policy).run()
                assert_same_run(fast, event_loop(jobs, procs, policy), policy), name
        finally:
            loops_module._L = saved


def _compiled_or_none():  # type: ignore[no-untyped-def]
    try:
        return compiled(NAME, "whole-run loop")
    except pytest.skip.Exception:
        return None


def deep_queue(seed: int, jobs: int = 400, procs: int = 32, gap: int = 0) -> list[SimJob]:
    """A loaded machine with many early ends and zero-length jobs; with ``gap`` 0 it is
    overloaded (plans hundreds of jobs deep), larger gaps between arrivals lighten it."""
    rng = random.Random(seed)
    rows, t = [], 0
    for _ in range(jobs):
        t += rng.choice([0, 0, 1, 5, 30, 120, gap, gap])
        req = rng.choice([60, 300, 600, 1800, 3600, rng.randint(1, 7200)])
        run = rng.choice([0, req, rng.randint(0, req), rng.randint(0, req)])
        n = rng.choice([1, 1, 2, 4, 8, procs // 2, procs, rng.randint(1, procs)])
        rows.append((t, run, req, n))
    return _jobs(rows, procs)


@pytest.mark.parametrize("seed", range(4))
def test_deep_queues_equal_the_event_loop(loop, seed):
    jobs = deep_queue(seed)
    for policy in ("conservative", "easy", "fcfs"):
        fast = Simulator(jobs, 32, policy).run()
        assert_same_run(fast, event_loop(jobs, 32, policy), policy)
    assert loop.calls == ["run_conservative", "run_easy", "replay_fcfs"]


# ------------------------------------------------------------------ progress and cancellation


@pytest.mark.parametrize("policy", ["conservative", "easy", "fcfs"])
def test_progress_is_called_as_by_the_event_loop(loop, policy):
    jobs = deep_queue(7, jobs=11_000, gap=1200)
    got: list[tuple[float, str]] = []
    want: list[tuple[float, str]] = []
    fast = Simulator(jobs, 32, policy).run(progress=lambda f, m: got.append((f, m)))
    slow = event_loop(jobs, 32, policy, progress=lambda f, m: want.append((f, m)))
    assert len(loop.calls) == 1
    assert len(got) >= 2 and got == want
    assert_same_run(fast, slow, policy)


@pytest.mark.parametrize("policy", ["conservative", "easy", "fcfs"])
def test_a_cancelled_loop_leaves_the_simulator_as_it_was(loop, policy):
    """A cancellation raised by ``progress`` changes nothing: run again, the whole run."""
    jobs = deep_queue(8, jobs=11_000, gap=1200)
    whole = Simulator(jobs, 32, policy).run()

    def cancel(fraction: float, message: str) -> None:
        raise KeyboardInterrupt(message)

    sim = Simulator(jobs, 32, policy)
    with pytest.raises(KeyboardInterrupt):
        sim.run(progress=cancel)
    fresh = Simulator(jobs, 32, policy)
    assert (sim.start, sim._series, sim.profile) == (fresh.start, fresh._series, fresh.profile)
    sim.run()
    assert_same_run(sim, whole, policy)
    assert len(loop.calls) == 3


# ------------------------------------------------------------------ runs the loops must not take


def test_the_loops_take_only_plain_runs(loop):
    jobs = deep_queue(9, jobs=400)
    procs = 32
    first = jobs[0].submit

    def taken(make, *, until=None):  # type: ignore[no-untyped-def]
        before = len(loop.calls)
        sim = make()
        sim.run(until=until)
        return len(loop.calls) > before

    assert taken(lambda: Simulator(jobs, procs, "conservative"))
    assert taken(lambda: Simulator(jobs, procs, "easy"))
    assert taken(lambda: Simulator(jobs, procs, "fcfs"))
    # a reservation of no length or no processors holds nothing: still plain
    assert taken(
        lambda: Simulator(jobs, procs, "conservative", reservations=[Reservation(50, 0, 4)])
    )
    # a fixed reservation, a reservation given back early, a scheduling interval
    assert not taken(
        lambda: Simulator(
            jobs, procs, "conservative", reservations=[Reservation(first + 100, 50, 1)]
        )
    )
    with pytest.raises(ValueError, match="interval"):
        Simulator(jobs, procs, "conservative", interval=60)
    ticking = Simulator(jobs, procs, "conservative")
    ticking.interval = 60  # (refused by the constructor for conservative; the hook checks too)
    assert not ticking._plain_from_start()
    assert not taken(lambda: Simulator(jobs, procs, "fcfs", interval=60))
    # other policies, a subclass of conservative (depth K), an arrival log
    for policy in ("backfill-k=inf", "backfill-k=1", "backfill-k=3", "fairshare", "fairshare-cb"):
        assert not taken(lambda policy=policy: Simulator(jobs, procs, policy))
    logged = Simulator(jobs, procs, "conservative")
    logged.policy.arrival_log = {}
    n = len(loop.calls)
    logged.run()
    assert len(loop.calls) == n and len(logged.policy.arrival_log) == len(jobs)
    shadowed = Simulator(jobs, procs, "easy")
    shadowed.policy.shadow_log = {}
    shadowed.run()
    assert len(loop.calls) == n and shadowed.policy.shadow_log
    assert_same_run(shadowed, event_loop(jobs, procs, "easy"), "easy")
    # until=: a run that stops, then the rest of it; a fork of a run under way
    for policy in ("conservative", "easy", "fcfs"):
        part = Simulator(jobs, procs, policy)
        assert not taken(lambda part=part: part, until=jobs[100].submit)
        twin = part.fork()
        assert not taken(lambda part=part: part)
        assert not taken(lambda twin=twin: twin)
        assert_same_run(part, event_loop(jobs, procs, policy), policy)
        assert twin.start == part.start
        # a fork before anything ran is a plain run
        fresh = Simulator(jobs, procs, policy)
        assert taken(lambda fresh=fresh: fresh.fork())
    # a job submitted on the fly; a reservation granted at the start
    for policy in ("conservative", "easy"):
        extra = Simulator(jobs, procs, policy)
        extra.submit(SimJob(0, 99999, first + 10, 5, 10, 2))
        assert not taken(lambda extra=extra: extra)
        held = Simulator(jobs, procs, policy, reservations=[Reservation(first + 100, 50, 1)])
        assert not taken(lambda held=held: held)
    granted = Simulator(jobs, procs, "conservative")
    granted.insert_reservation(Reservation(first + 5, 100, 3))
    assert not taken(lambda: granted)
    # times too far apart for the loop's 64-bit keys: the event loop
    far = _jobs([(0, 10, 10, 1), (1 << 61, 10, 10, 1)], 4)
    assert not taken(lambda: Simulator(far, 4, "conservative"))
    assert Simulator(far, 4, "conservative").run().start == [0, 1 << 61]


def test_the_simulator_takes_the_loops_only_compiled():
    """As Python the loops are slower than the event loop: ``run`` takes them only compiled."""
    assert loops_module._L.COMPILED == (loops_module._L.__file__.endswith((".so", ".pyd")))
    pure_loop = pure(NAME)
    assert pure_loop.COMPILED is False
