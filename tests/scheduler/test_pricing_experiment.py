"""The ``pricing`` experiment kind (thesis §5.3, Figures 23–31): result shape beside the
thesis's, determinism, and bad input."""

from __future__ import annotations

import dataclasses

import pytest

from scheduler.experiments import ParamError, run_experiment
from scheduler.traces.lublin import generate_lublin99


@pytest.fixture(scope="module")
def trace():
    return generate_lublin99(jobs=1500, procs=64, seed=5)


@pytest.fixture(scope="module")
def result(trace):
    params = {"procs": 64, "estimates": "accurate", "alphas": "0,0.5,1", "fraction": 0.1}
    return run_experiment("pricing", params, {"traces": [trace]}, seed=3)


def test_price_falls_with_alpha_and_is_zero_at_one(result):
    s = result["summary"]
    assert s["reservations"] == 150
    assert s["price_su_a0"] > s["price_su_a50"] >= s["price_su_a100"] == 0  # Figure 23
    assert s["free_share_a100"] == 1.0


def test_reservations_wait_less_than_best_effort_jobs(result):
    s = result["summary"]  # Figure 24: at low α reservations wait much less
    assert s["resv_wait_h_a0"] < s["be_wait_h_a0"]
    assert s["norm_wait_a0"] < s["norm_wait_a100"]


def test_charts_and_tables(result):
    ids = {c["id"] for c in result["charts"]}
    assert {"price-vs-alpha", "wait-vs-alpha", "normalised-wait-vs-alpha"} <= ids
    rows = result["tables"][0]["rows"]
    assert [r[0] for r in rows] == ["α = 0", "α = 0.5", "α = 1"]


def test_same_seed_same_result(trace, result):
    params = {"procs": 64, "estimates": "accurate", "alphas": "0,0.5,1", "fraction": 0.1}
    again = run_experiment("pricing", params, {"traces": [trace]}, seed=3)
    assert again == result
    other = run_experiment("pricing", params, {"traces": [trace]}, seed=4)
    assert other["summary"] != result["summary"]


def test_random_alpha_and_easy(trace):
    params = {"procs": 64, "policy": "easy", "alphas": "0", "random_alpha": True,
              "baseline": False, "days": 3.0}  # fmt: skip
    r = run_experiment("pricing", params, {"traces": [trace]}, seed=1)
    assert r["summary"]["price_su_random"] is not None
    assert r["summary"]["price_su_a0"] >= r["summary"]["price_su_random"]


def test_bad_input_names_the_field(trace):
    with pytest.raises(ParamError) as err:
        run_experiment("pricing", {"alphas": "0,2"}, {"traces": [trace]})
    assert "alphas" in err.value.errors
    no_request = dataclasses.replace(
        trace, jobs=tuple(dataclasses.replace(j, req_time=-1) for j in trace.jobs)
    )
    with pytest.raises(ParamError) as err:
        run_experiment("pricing", {"estimates": "requested"}, {"traces": [no_request]})
    assert "estimates" in err.value.errors and "field 9" in err.value.errors["estimates"]
    with pytest.raises(ParamError) as err:
        run_experiment("pricing", {"fraction": 1.5}, {"traces": [trace]})
    assert "fraction" in err.value.errors
