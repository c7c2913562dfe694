"""The real traces of ../shared/data/traces: parsing, simulation invariants on their first
jobs, and load scaling (thesis §4.7, §5.3)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from scheduler.cluster import simulate
from scheduler.traces.load import WEEK, duplicate_jobs, offered_load, shifted_copy
from scheduler.traces.swf import read_swf
from tests.conftest import SHARED_DATA, make_swf_bytes, require

TRACES = SHARED_DATA / "traces"
EXPECTED_JOBS = {
    "CTC-SP2-1996-3.1-cln.swf.gz": 77_222,
    "SDSC-SP2-1998-4.2-cln.swf.gz": 59_715,
    "KTH-SP2-1996-2.1-cln.swf.gz": 28_476,
    "NASA-iPSC-1993-3.1-cln.swf.gz": 18_239,
}


def trace_path(name: str) -> Path:
    path = TRACES / name
    if not path.exists():
        require(False, f"trace {name} not found under {TRACES} (shared data set absent)")
    return path


@pytest.mark.parametrize("name", sorted(EXPECTED_JOBS))
def test_every_shared_trace_parses_and_simulates(name):
    trace = read_swf(trace_path(name))
    assert len(trace.jobs) == EXPECTED_JOBS[name]
    procs = 430 if name.startswith("CTC") else trace.machine_procs
    for policy in ("fcfs", "easy", "conservative"):
        for estimates in ("accurate", "requested"):
            r = simulate(trace, procs, policy, estimates, limit=1500)
            s = r.summary()
            assert s["jobs"] + s["dropped"] == 1500
            assert (r.start >= r.submit).all()
            # no over-commit: the busy-processor series never exceeds the machine
            assert r.series_busy.max() <= procs
            if estimates == "accurate":
                assert s["killed"] == 0


def test_ctc_at_338_versus_430_processors():
    trace = read_swf(trace_path("CTC-SP2-1996-3.1-cln.swf.gz"))
    small = simulate(trace, 338, "easy", "requested", limit=3000).summary()
    large = simulate(trace, 430, "easy", "requested", limit=3000).summary()
    assert small["dropped_exceeds_machine"] == large["dropped_exceeds_machine"] == 0
    assert large["mean_wait"] < small["mean_wait"]


def small():
    return read_swf(io.BytesIO(make_swf_bytes(jobs=400, procs=64, seed=9)))


def test_shifted_copy_raises_the_load_reproducibly():
    base = small()
    assert shifted_copy(base, 0.0, seed=1).jobs == base.jobs
    full = shifted_copy(base, 1.0, seed=1, clip=False)
    assert len(full.jobs) == 2 * len(base.jobs)
    max_id = max(j.job_id for j in base.jobs)
    copies = [j for j in full.jobs if j.job_id > max_id]
    by_id = {j.job_id: j for j in base.jobs}
    assert all(c.submit == by_id[c.job_id - max_id].submit + WEEK for c in copies)
    assert [j.submit for j in full.jobs] == sorted(j.submit for j in full.jobs)
    half = shifted_copy(base, 0.5, seed=7)
    assert half.jobs == shifted_copy(base, 0.5, seed=7).jobs
    assert half.jobs != shifted_copy(base, 0.5, seed=8).jobs
    last = max(j.submit for j in base.jobs)
    assert max(j.submit for j in half.jobs) <= last  # clipped to the original span
    assert offered_load(half, 64) > offered_load(base, 64)
    with pytest.raises(ValueError):
        shifted_copy(base, 1.5, seed=1)


def test_duplicate_jobs_adds_the_fraction():
    base = small()
    plus = duplicate_jobs(base, 0.25, seed=2)
    added = len(plus.jobs) - len(base.jobs)
    assert 50 <= added <= 150  # about 100 of 400
    assert len(duplicate_jobs(base, 1.0, seed=2).jobs) == 2 * len(base.jobs)
    assert len({j.job_id for j in plus.jobs}) == len(plus.jobs)
    assert offered_load(plus, 64) > offered_load(base, 64)
    r = simulate(plus, 64, "easy", "accurate")
    assert r.summary()["jobs"] == len(plus.jobs)
