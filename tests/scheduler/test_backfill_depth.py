"""Backfilling with a reservation depth K: policy ``backfill-k``.

K = 1 must schedule exactly as EASY and K = ∞ exactly as conservative backfilling, job by job,
on generated and archive traces; in between, nobody overtakes a reservation and the machine is
never over-committed.
"""

from __future__ import annotations

import pytest

from scheduler.cluster import (
    BUILTIN,
    PolicyError,
    Reservation,
    Simulator,
    prepare_jobs,
    resolve,
    simulate,
)
from scheduler.cluster.depth import BackfillDepth
from scheduler.traces.lublin import generate_lublin99
from scheduler.traces.swf import SWFJob, read_swf
from tests.conftest import SHARED_DATA, require
from tests.scheduler.test_cluster_sim import assert_no_overcommit, job

CTC = SHARED_DATA / "traces"
CTC = CTC / "CTC-SP2-1996-3.1-cln.swf.gz"


def starts_of(jobs, procs: int, policy: str, estimates: str, reservations=()) -> list[int]:
    sim_jobs, _ = prepare_jobs(jobs, procs, estimates)
    return Simulator(sim_jobs, procs, policy, reservations=reservations).run().start


def test_names() -> None:
    assert "backfill-k" in BUILTIN
    assert resolve("backfill-k").value == 4
    assert resolve("backfill-k=1").value == 1
    assert resolve("backfill-k=inf").value is None
    assert resolve("easy").value is None and resolve("easy").entry.param is None
    assert resolve("backfill-k=16").text == "backfill-k=16"
    assert resolve("backfill-k = 8").text == "backfill-k=8"
    sim = Simulator([], 4, "backfill-k=inf")
    assert isinstance(sim.policy, BackfillDepth) and sim.policy.depth is None
    for bad in ("backfill-k=0", "backfill-k=-3", "backfill-k=1e9", "backfill-k=x"):
        with pytest.raises(PolicyError, match="reservation depth K"):
            resolve(bad)
    with pytest.raises(PolicyError, match="unknown policy"):
        resolve("backfill-kk")
    with pytest.raises(PolicyError, match="takes no parameter"):
        resolve("easy=3")


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("estimates", ["requested", "accurate"])
def test_ends_are_easy_and_conservative_on_generated_traces(seed: int, estimates: str) -> None:
    trace = generate_lublin99(jobs=3000, procs=64, seed=seed)
    easy = starts_of(trace.jobs, 64, "easy", estimates)
    cons = starts_of(trace.jobs, 64, "conservative", estimates)
    assert easy != cons  # the two ends differ: the comparison below means something
    assert starts_of(trace.jobs, 64, "backfill-k=1", estimates) == easy
    assert starts_of(trace.jobs, 64, "backfill-k=inf", estimates) == cons
    # a depth beyond the longest queue is conservative too
    assert starts_of(trace.jobs, 64, "backfill-k=100000", estimates) == cons


def test_ends_with_fixed_reservations() -> None:
    trace = generate_lublin99(jobs=1500, procs=32, seed=7)
    t0 = trace.jobs[0].submit
    resv = [Reservation(t0 + 3600 * i, 7200, 8 + i % 16) for i in range(0, 200, 9)]
    for a, b in (("easy", "backfill-k=1"), ("conservative", "backfill-k=inf")):
        assert starts_of(trace.jobs, 32, b, "requested", resv) == starts_of(
            trace.jobs, 32, a, "requested", resv
        )


@pytest.mark.parametrize("procs", [430, 338])
def test_ends_on_the_archive_trace(procs: int) -> None:
    require(CTC.is_file(), f"archive trace not found at {CTC}")
    jobs = read_swf(CTC, limit=20_000).jobs
    for a, b in (("easy", "backfill-k=1"), ("conservative", "backfill-k=inf")):
        assert starts_of(jobs, procs, b, "requested") == starts_of(jobs, procs, a, "requested")


@pytest.mark.parametrize("depth", [2, 4, 16])
def test_middle_depths_keep_their_reservations(depth: int) -> None:
    trace = generate_lublin99(jobs=2000, procs=64, seed=11)
    sim_jobs, _ = prepare_jobs(trace.jobs, 64, "requested")
    sim = Simulator(sim_jobs, 64, f"backfill-k={depth}")
    promised: dict[int, int] = {}
    # step through the events; a reservation, once held, is never delayed
    while True:
        t = sim.next_event_time()
        if t is None:
            break
        sim.run(until=t)
        for k, s in sim.policy._plan.items():
            assert s <= promised.get(k, s), f"job {k} delayed from {promised[k]} to {s}"
            promised[k] = s
        assert len(sim.policy._plan) <= depth
    for k, s in promised.items():
        assert sim.start[k] <= s
    result = sim.result()
    assert_no_overcommit(result, 64)
    assert all(st >= sj.submit for st, sj in zip(sim.start, sim_jobs, strict=True))


def test_depth_matters_in_between() -> None:
    # 10 processors.  A (6 procs, 0..100) runs.  C (8 procs, 50 s) heads the queue: its
    # reservation is at 100.  D (10 procs, 50 s) is second, E (2 procs, 200 s) third.
    # K = 1 (EASY): only C is protected; E fits beside C's block (2 spare processors) and
    #   starts at 3, so D, which needs the whole machine, waits until E ends at 203.
    # K = 2: D holds a reservation at 150 too; E would overlap it, so E waits until 200.
    jobs = [job(1, 0, 100, 6), job(2, 1, 50, 8), job(3, 2, 50, 10), job(4, 3, 200, 2)]

    def starts(policy: str) -> dict[int, int]:
        return {r[0]: r[2] for r in simulate(jobs, 10, policy, "accurate").rows()}

    assert starts("backfill-k=1") == starts("easy") == {1: 0, 2: 100, 3: 203, 4: 3}
    assert starts("backfill-k=2") == starts("conservative") == {1: 0, 2: 100, 3: 150, 4: 200}


def test_swf_job_helper_is_a_swf_job() -> None:
    assert isinstance(job(1, 0, 1, 1), SWFJob)


def test_cluster_sim_kind_offers_the_depth() -> None:
    from scheduler.experiments import run_experiment

    trace = generate_lublin99(jobs=500, procs=32, seed=1)
    params = {"procs": 32, "accurate": False}
    result = run_experiment(
        "cluster-sim", {**params, "policies": "easy, conservative, backfill-k=1"},
        {"traces": [trace]}, seed=0,
    )  # fmt: skip
    (summary,) = [t for t in result["tables"] if t["id"] == "summary"]
    rows = {row[0]: row[2:] for row in summary["rows"]}
    assert rows["Backfilling, depth K = 1"] == rows["EASY"]
    # a run stored before the `policies` parameter: its ticks read as that list
    legacy = {"fcfs": False, "easy": True, "conservative": True, "backfill_k": True, "depth": 0}
    result = run_experiment("cluster-sim", {**params, **legacy}, {"traces": [trace]}, seed=0)
    (summary,) = [t for t in result["tables"] if t["id"] == "summary"]
    rows = {row[0]: row[2:] for row in summary["rows"]}
    assert rows["Backfilling, depth K = inf"] == rows["Conservative"]
