"""Slot advertisement (thesis ch. 3): Figure 1 by hand, the horizon and the edge attributes,
the exact cover of the simulator's plan, and the ``slots`` command (a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler.cluster import Profile, Reservation, SimJob, Simulator, prepare_jobs
from scheduler.io import load_trace
from scheduler.slots import Slot, advertise, advertise_simulator, cut_free_area, horizon
from tests.conftest import SHARED_DATA, require
from tests.conftest import scheduler_cli as run_cli

ROOT = Path(__file__).resolve().parents[2]
TRACES = SHARED_DATA / "traces"
CTC = TRACES / "CTC-SP2-1996-3.1-cln.swf.gz"
H = 3600
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def figure1() -> Simulator:
    """Thesis Figure 1: 5 processors; queued A (2 p, 3 h), B (4 p, 1 h), C (1 p, 2 h),
    D (3 p, 2 h), all submitted at 0, conservative backfilling."""
    jobs = [
        SimJob(0, 1, 0, 3 * H, 3 * H, 2),
        SimJob(1, 2, 0, 1 * H, 1 * H, 4),
        SimJob(2, 3, 0, 2 * H, 2 * H, 1),
        SimJob(3, 4, 0, 2 * H, 2 * H, 3),
    ]
    sim = Simulator(jobs, 5, "conservative")
    sim.run(until=0)
    return sim


def test_figure_1_plan_and_its_five_slots():
    sim = figure1()
    assert [sim.planned_start(k) for k in range(4)] == [0, 3 * H, 0, 4 * H]
    slots = advertise_simulator(sim, 0, until=8 * H)  # the figure shows 8 hours
    got = {(s.start // H, s.end // H, s.procs, s.extensible) for s in slots}
    assert got == {
        (0, 8, 1, True),  # S1: open to the future
        (0, 3, 1, False),  # ends when B starts
        (2, 3, 1, False),  # C's processor between C and B
        (4, 8, 1, True),  # S4
        (6, 8, 3, True),  # S5
    }
    assert all(s.divisible == s.extensible for s in slots)
    assert all(s.unit_cost == 1.0 and s.fixed_cost == 0.0 for s in slots)
    # "an arriving task requiring 2 processors for 2 hours can be backfilled into S1 and S3"
    assert sum(s.procs for s in slots if s.start == 0 and s.end >= 2 * H) == 2


def test_horizon_is_48_hours_or_last_finish_plus_5_minutes():
    sim = figure1()
    assert horizon(sim.profile, 0) == 48 * H
    p = Profile(4)
    p.reserve(0, 50 * H, 1)
    assert horizon(p, 0) == 50 * H + 300
    slots = advertise(p, 0)
    assert {(s.start, s.end, s.procs, s.extensible) for s in slots} == {
        (0, 50 * H + 300, 3, True),
        (50 * H, 50 * H + 300, 1, True),
    }


def test_prices_and_site_are_passed_on():
    slots = advertise(Profile(2), 0, unit_cost=2.5, fixed_cost=1.0, site="ctc")
    assert slots == [Slot(0, 2, 48 * H, 2.5, 1.0, True, True, "ctc")]
    assert slots[0].total_cost == pytest.approx(2 * 48 * 2.5 + 1.0)


def test_cut_of_a_full_machine_has_no_slots_there():
    assert cut_free_area([(0, 10, 0), (10, None, 2)], 20) == [(10, 20, 0, 2, True)]


# ------------------------------------------------------------------ exact cover


def assert_exact_cover(profile: Profile, now: int, slots: list[Slot]) -> None:
    end = max(s.end for s in slots) if slots else now
    assert end == horizon(profile, now)
    for a, b, free in profile.steps(now, end):
        for t in (a, (a + b - 1) // 2, b - 1):
            alive = [s for s in slots if s.start <= t < s.end]
            assert sum(s.procs for s in alive) == free, (t, free, alive)
    # disjoint: recompute the level bands and check that no two bands overlap in time
    holes = cut_free_area(profile.steps(now, end), end)
    for i, h in enumerate(holes):
        for g in holes[i + 1 :]:
            overlap_t = h.start < g.end and g.start < h.end
            overlap_p = h.low < g.low + g.procs and g.low < h.low + h.procs
            assert not (overlap_t and overlap_p)
    # an edge slot reaches the horizon; the others end where free capacity drops
    for s in slots:
        assert s.extensible == (s.end == end)
        if not s.extensible:
            assert profile.free_at(s.end) < profile.free_at(s.end - 1)


@st.composite
def traces(draw):
    procs = draw(st.integers(1, 8))
    n = draw(st.integers(1, 18))
    jobs = sorted(
        (draw(st.integers(0, 200)), draw(st.integers(1, procs)), draw(st.integers(0, 300)),
         draw(st.integers(0, 200)))
        for _ in range(n)
    )  # fmt: skip
    sim_jobs = [SimJob(i, i + 1, t, r, r + extra, p) for i, (t, p, r, extra) in enumerate(jobs)]
    resv = (
        [Reservation(draw(st.integers(0, 300)), draw(st.integers(1, 100)), 1)]
        if draw(st.booleans())
        else []
    )
    return procs, sim_jobs, resv, draw(st.integers(0, 400))


@SETTINGS
@given(traces())
def test_slots_cover_exactly_the_free_capacity_of_the_plan(case):
    procs, jobs, resv, at = case
    sim = Simulator(jobs, procs, "conservative", reservations=resv, origin=0)
    sim.run(until=at)
    slots = advertise_simulator(sim, at)
    assert_exact_cover(sim.profile, at, slots)
    assert all(s.start >= at for s in slots)


def real_trace():
    if not CTC.exists():
        require(False, f"real trace not found at {CTC}")
    return load_trace(CTC)


def test_exact_cover_on_ctc_with_requested_estimates():
    trace = real_trace()
    jobs, _ = prepare_jobs(trace.jobs[:4000], 430, "requested")
    sim = Simulator(jobs, 430, "conservative")
    counts = []
    for at in range(jobs[0].submit + 86400, jobs[-1].submit, 86400 * 3):
        sim.run(until=at)
        slots = advertise_simulator(sim, at)
        assert_exact_cover(sim.profile, at, slots)
        counts.append(len(slots))
    assert max(counts) > 5  # a loaded machine leaves many holes


# ------------------------------------------------------------------ command line


def test_cli_slots_writes_the_advertised_list(tmp_path):
    swf = tmp_path / "tiny.swf"
    # 4 processors; job 1: 0 s, 3 procs, 100 s; job 2: 10 s, 2 procs, 50 s; job 3 at 500 s
    swf.write_text(
        "; MaxProcs: 4\n"
        "1 0 -1 100 3 -1 -1 3 100 -1 1 1 1 1 1 1 -1 -1\n"
        "2 10 -1 50 2 -1 -1 2 60 -1 1 1 1 1 1 1 -1 -1\n"
        "3 500 -1 50 2 -1 -1 2 60 -1 1 1 1 1 1 1 -1 -1\n"
    )
    out = tmp_path / "slots.json"
    res = run_cli("slots", str(swf), "--procs", "4", "--at", "10", "--out", str(out))
    assert res.returncode == 0, res.stderr
    slots = json.loads(out.read_text())
    # at 10: job 1 runs [0, 100) on 3; job 2 waits for [100, 150): 1 processor free until
    # 100, then 2 until 150, then all 4 up to the horizon 10 + 48 h
    end = 10 + 48 * H
    assert slots == [
        {"start": 10, "procs": 1, "duration": end - 10, "unit_cost": 1.0, "fixed_cost": 0.0,
         "divisible": True, "extensible": True},
        {"start": 100, "procs": 1, "duration": end - 100, "unit_cost": 1.0, "fixed_cost": 0.0,
         "divisible": True, "extensible": True},
        {"start": 150, "procs": 2, "duration": end - 150, "unit_cost": 1.0, "fixed_cost": 0.0,
         "divisible": True, "extensible": True},
    ]  # fmt: skip
    assert json.loads(res.stdout)["slots"] == 3
    # job 3 is not known yet at 10; requested estimates change the plan (job 2 asks 60 s)
    res = run_cli("slots", str(swf), "--procs", "4", "--at", "10", "--estimates", "requested",
                  "--out", "-")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert [s["start"] for s in json.loads(res.stdout)] == [10, 100, 160]


def test_cli_slots_rejects_bad_input(tmp_path):
    res = run_cli("slots", str(tmp_path / "missing.swf"), "--procs", "4", "--at", "0",
                  "--out", str(tmp_path / "x.json"))  # fmt: skip
    assert res.returncode == 2 and "error" in res.stderr
    res = run_cli("slots", "x.swf", "--procs", "0", "--at", "0", "--out", "-")
    assert res.returncode == 2 and "--procs" in res.stderr
