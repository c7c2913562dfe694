"""The ``virtual-reservations`` kind (thesis Figures 38–49) and the portal's ``predict_start``:
result shape, invariants, determinism and bad input naming the field."""

from __future__ import annotations

import dataclasses
import json

import pytest

import scheduler.experiments.virtual_reservations  # noqa: F401  (registers the kind)
from scheduler.experiments import ParamError, run_experiment
from scheduler.reservations.predictor import bound_index
from scheduler.reservations.site import PredictionRequestError, predict_start
from scheduler.traces.lublin import generate_lublin99
from scheduler.traces.swf import SWFHeader, SWFJob, Trace

KIND = "virtual-reservations"


@pytest.fixture(scope="module")
def trace():
    return generate_lublin99(jobs=1500, procs=128, seed=4)


@pytest.fixture(scope="module")
def result(trace):
    return run_experiment(KIND, {"days": 4, "warmup_days": 2}, {"traces": [trace]}, seed=2)


def test_twelve_requests_a_day(result):
    s = result["summary"]
    assert s["days"] == 4 and s["cases"] == 48  # 2 sizes × 2 durations × 3 starts × 4 days
    rows = result["tables"][0]["rows"]
    assert [(r[0], r[1], r[2]) for r in rows][:4] == [
        (32, 1, 1),
        (32, 1, 4),
        (32, 1, 8),
        (32, 4, 1),
    ]
    assert all(r[3] == 4 for r in rows)


def test_combined_is_at_least_as_successful_as_either(result):
    for r in result["tables"][0]["rows"]:  # VAR %, AR %, combined %
        assert r[6] >= max(r[4], r[5])
        assert all(0 <= x <= 100 for x in r[4:7])
    s = result["summary"]
    assert s["combined_success_pct"] >= max(s["var_success_pct"], s["adaptive_success_pct"])


def test_var_cost_is_bounded_by_the_start_offset(result):
    # eq. 22: the normalised VAR cost is at most (S - T)/D: start offset / duration
    for r in result["tables"][0]["rows"]:
        if r[7] is not None:
            assert 0 <= r[7] <= r[2] / r[1]


def test_charts(result):
    ids = [c["id"] for c in result["charts"]]
    assert ids[:3] == ["cost", "success", "cheaper"] and "var-probability" in ids
    cost = result["charts"][0]
    assert [s["name"] for s in cost["series"]] == ["VAR", "Adaptive (AR)", "Combined"]
    assert all(isinstance(p[0], str) for s in cost["series"] for p in s["points"])


def test_same_result_twice(trace, result):
    again = run_experiment(KIND, {"days": 4, "warmup_days": 2}, {"traces": [trace]}, seed=2)
    assert json.dumps(again, sort_keys=True) == json.dumps(result, sort_keys=True)


def test_live_combined_mode_keeps_the_success_invariant(trace):
    res = run_experiment(
        KIND,
        {"days": 2, "warmup_days": 2, "sizes": "32", "combined_mode": "live", "penalty": 0.5},
        {"traces": [trace]},
        seed=0,
    )
    for r in res["tables"][0]["rows"]:
        assert r[6] >= max(r[4], r[5])


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"sizes": "32,256"}, "sizes"),  # over the site's 128 processors
        ({"sizes": "abc"}, "sizes"),
        ({"sizes": "32.5"}, "sizes"),
        ({"offsets_h": "0,4"}, "offsets_h"),  # a start that is not in the future
        ({"offsets_h": "-1"}, "offsets_h"),
        ({"durations_h": "0"}, "durations_h"),
        ({"warmup_days": 5000}, "warmup_days"),  # no day left after the warm-up
        ({"penalty": 2}, "penalty"),
        ({"policy": "fcfs"}, "policy"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_bad_input_names_the_field(trace, params, field):
    with pytest.raises(ParamError) as err:
        run_experiment(KIND, {"days": 1, **params}, {"traces": [trace]}, seed=0)
    assert field in err.value.errors


def test_requested_estimates_need_requested_times(trace):
    bare = Trace(trace.header, tuple(dataclasses.replace(j, req_time=-1) for j in trace.jobs))
    with pytest.raises(ParamError) as err:
        run_experiment(KIND, {"days": 1}, {"traces": [bare]}, seed=0)
    assert "estimates" in err.value.errors


# ----------------------------------------------------------------------------- predict_start


def staircase() -> Trace:
    """One processor; job k (k = 0..99) arrives at k s and runs 100 s (requests 100 s), so it
    starts at 100·k and waits 99·k s; job 100 arrives at 7000 s, extending the span."""
    rows = [(k, 100) for k in range(100)] + [(7000, 100)]
    jobs = tuple(
        SWFJob(i + 1, s, -1, r, 1, -1, -1, 1, r, -1, 1, 1, 1, -1, -1, -1, -1, -1)
        for i, (s, r) in enumerate(rows)
    )
    return Trace(SWFHeader.from_fields({"MaxProcs": "1"}), jobs)


def test_predict_start_hand_worked():
    # at 6000 s jobs 0..60 have started (100·k <= 6000): 61 waits 0, 99, …, 5940 s.  Job
    # k >= 59 exceeds every earlier wait, so jobs 59 and 60 are two misses in a row — one
    # short of a change point.  The class "1 processor × ≤ 1 h" holds all 61 waits: the
    # q-bound is the wait of index bound_index(61, q, 0.95), i.e. 99·index seconds.
    out = predict_start(staircase(), 0, "fcfs", "requested", 6000 / 3600, 1, 100)
    s = out["summary"]
    assert s["history"] == 61 and s["class"] == "1 processor × requested ≤ 1 h"
    got = {q["quantile"]: q["start_h"] for q in out["quantiles"]}
    for q in (0.25, 0.5, 0.75, 0.95):
        assert got[q] == pytest.approx(99 * bound_index(61, q, 0.95) / 3600, abs=1e-4)
    assert got[0.95] == pytest.approx(99 * 60 / 3600, abs=1e-4)  # 1 - 0.95^61 >= 0.95
    probs = [p for _, p in out["charts"][0]["series"][0]["points"]]
    assert probs == sorted(probs) and probs[-1] == pytest.approx(0.05 ** (1 / 61), abs=1e-4)


def test_predict_start_on_a_generated_site(trace):
    out = predict_start(trace, 0, "conservative", "auto", 240.0, 16, 7200)
    hs = [q["start_h"] for q in out["quantiles"] if q["defined"]]
    assert hs == sorted(hs) and out["summary"]["history"] >= 59


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n": 0}, "n"),
        ({"n": 129}, "n"),  # over the site
        ({"n": True}, "n"),
        ({"req_time_s": 0}, "req_time"),
        ({"at_hours": -1.0}, "at"),  # before the trace
        ({"at_hours": 10**6}, "at"),  # after it
        ({"policy": "lottery"}, "policy"),
        ({"estimates": "psychic"}, "estimates"),
        ({"procs": -3}, "procs"),
    ],
)
def test_predict_start_bad_input(trace, kwargs, field):
    args = {"procs": 0, "policy": "easy", "estimates": "auto", "at_hours": 24.0, "n": 8,
            "req_time_s": 3600, **kwargs}  # fmt: skip
    with pytest.raises(PredictionRequestError) as err:
        predict_start(trace, **args)
    assert field in err.value.errors
    assert isinstance(err.value, ValueError)
