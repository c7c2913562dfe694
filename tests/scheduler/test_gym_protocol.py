"""RLScheduler's heuristics and evaluation protocol on the engine (scheduler.gym)."""

from __future__ import annotations

import hashlib
import io

import numpy as np
import pytest

from scheduler.cluster.simulator import Simulator
from scheduler.cluster.userpolicy import Job
from scheduler.gym import (
    HEURISTICS,
    Protocol,
    evaluate,
    legacy_gym_rng,
    load_workload,
    priority_policy,
    sequence_starts,
)
from scheduler.gym.heuristics import pick
from scheduler.traces.lublin import generate_lublin99
from scheduler.traces.swf import SWFJob, Trace, read_swf
from tests.conftest import shared_data_file


@pytest.fixture(scope="module")
def workload():
    return load_workload(generate_lublin99(jobs=900, procs=64, seed=4), name="lublin-900")


def _rank(name, jobs, now):
    submit, request, procs = (np.array(x) for x in zip(*jobs, strict=True))
    return pick(HEURISTICS[name], list(range(len(jobs))), submit, request, procs, now)


def test_heuristic_rankings():
    # (submit, requested time, processors)
    jobs = [(100, 3600, 4), (200, 60, 32), (300, 600, 1)]
    assert _rank("FCFS", jobs, 1000) == 0
    assert _rank("SJF", jobs, 1000) == 1
    # WFP3: (wait / r)^3 * n -> (900/3600)^3*4, (800/60)^3*32, (700/600)^3*1
    assert _rank("WFP3", jobs, 1000) == 1
    # UNICEP: wait / (log2 n * r); one processor: log2(1) ~ 0, the top
    assert _rank("UNICEP", jobs, 1000) == 2
    # F1: log10(r)*n + 870*log10(s), smallest first
    f1 = [np.log10(r) * n + 870 * np.log10(s) for s, r, n in jobs]
    assert _rank("F1", jobs, 1000) == int(np.argmin(f1))
    # RLScheduler's code: WFP3 by ((1 + s) / r)^3 * n, smallest first
    coded = [((1 + s) / r) ** 3 * n for s, r, n in jobs]
    assert _rank("WFP3_AS_CODED", jobs, 1000) == int(np.argmin(coded))
    # ties go to queue order
    assert _rank("SJF", [(5, 60, 1), (1, 60, 1)], 10) == 0


def test_priority_policy_fcfs_with_easy_is_easy(workload):
    jobs = workload.sequence(0, 400)
    ours = Simulator(jobs, 64, priority_policy("FCFS", backfill=True), estimates="requested")
    easy = Simulator(jobs, 64, "easy", estimates="requested")
    assert ours.run().start == easy.run().start
    strict = Simulator(jobs, 64, priority_policy("SJF", backfill=False), estimates="requested")
    strict.run()
    assert strict.start != easy.start
    job = Job(0, 1, 10, 600, 1, -1, -1, -1, -1)
    policy = priority_policy("UNICEP")
    assert np.isfinite(policy.priority(None, job, 100))  # log2(1) = 0 is made finite


def test_legacy_gym_seeding_is_gym_2019s():
    """Gym 0.14's seeding: SHA-512 of the seed's text, first 8 bytes as two little-endian
    32-bit words, a Mersenne Twister seeded with them."""
    for seed in (0, 1, 7, 12345):
        digest = hashlib.sha512(str(seed).encode()).digest()
        big = int.from_bytes(digest[:8], "little")
        words = [big & 0xFFFFFFFF] + ([big >> 32] if big >> 32 else [])
        ref = np.random.RandomState(words)
        assert (
            legacy_gym_rng(seed).randint(0, 10**9, 5).tolist() == ref.randint(0, 10**9, 5).tolist()
        )
    starts = sequence_starts(10000, 1024, 10, 1)
    assert starts == sequence_starts(10000, 1024, 10, 1)
    assert all(1024 <= s < 10000 - 1024 - 1 for s in starts)
    assert starts != sequence_starts(10000, 1024, 10, 2)
    with pytest.raises(ValueError, match="cannot hold sequences of 1024"):
        sequence_starts(2000, 1024, 1, 1)
    with pytest.raises(ValueError, match="seed must be an int >= 0"):
        legacy_gym_rng(-1)


def test_load_workload_follows_rlschedulers_rules():
    text = "\n".join(
        [
            "; MaxProcs: 16",
            "1 0 -1 100 4 -1 -1 8 200 -1 1 1 1 -1 -1 -1 -1 -1",  # procs max(4, 8) = 8
            "2 5 -1 -1 2 -1 -1 -1 300 -1 1 1 1 -1 -1 -1 -1 -1",  # runtime -1 -> 10 s
            "3 6 -1 0 2 -1 -1 -1 300 -1 1 1 1 -1 -1 -1 -1 -1",  # runtime 0: left out
            "4 7 -1 500 2 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1",  # no request: its runtime
            "5 9 -1 900 2 -1 -1 -1 600 -1 1 1 1 -1 -1 -1 -1 -1",  # runs past its request
        ]
    )
    trace = read_swf(io.BytesIO(text.encode()), name="rules.swf")
    kill = load_workload(trace)
    assert [(j.job_id, j.runtime, j.estimate, j.procs) for j in kill.jobs] == [
        (1, 100, 200, 8), (2, 10, 300, 2), (4, 500, 500, 2), (5, 600, 600, 2),
    ]  # fmt: skip
    assert kill.overrun == 1 and kill.capacity == 16 and kill.request == (200, 300, 500, 600)
    extend = load_workload(trace, overrun="extend")
    assert extend.jobs[-1].runtime == 900 and extend.jobs[-1].estimate == 900
    assert extend.request[-1] == 600  # still ranked by its request
    wide = Trace(
        trace.header, (SWFJob(9, 0, -1, 5, 32, -1, -1, -1, 5, -1, 1, 1, 1, 1, 1, 1, -1, -1),)
    )
    with pytest.raises(ValueError, match="job 9 needs 32 processors of 16"):
        load_workload(wide)


def test_evaluate_is_deterministic_and_backfilling_helps(workload):
    protocol = Protocol(length=128, iterations=3, seed=3)
    strict = evaluate(workload, protocol, heuristics=["FCFS", "SJF"])
    assert strict == evaluate(workload, protocol, heuristics=["FCFS", "SJF"])
    backfilled = evaluate(workload, protocol, heuristics=["FCFS"], backfill="easy")
    assert backfilled["FCFS"] <= strict["FCFS"]
    agent = evaluate(workload, protocol, heuristics=[], agents={"first": lambda obs, mask: 0})
    assert agent["first"] == pytest.approx(strict["FCFS"])
    with pytest.raises(ValueError, match="unknown heuristic 'LJF'"):
        evaluate(workload, protocol, heuristics=["LJF"])


@pytest.mark.parametrize(
    ("name", "backfill", "published"),
    [("FCFS", False, 1727.54), ("SJF", False, 2680.55), ("F1", False, 1232.06)],
)
def test_published_sdsc_sp2_cells(name, backfill, published):
    """RLScheduler's README table, SDSC-SP2 without backfilling: the same 10 sequences of
    1024 jobs (seed 1, first 10,000 jobs) give the published average bounded slowdown."""
    path = shared_data_file("traces", "SDSC-SP2-1998-4.2-cln.swf.gz")
    workload = load_workload(path, overrun="extend")
    ours = evaluate(workload, Protocol(slice_end=10000), heuristics=[name], backfill=backfill)
    assert ours[name] == pytest.approx(published, abs=0.01)
