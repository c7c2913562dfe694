"""The ``provisioning`` and ``slot-advertisement`` experiment kinds end to end on small
generated traces: the Result's shape, charts and the invariants a reader relies on."""

from __future__ import annotations

import json
import math

import pytest

from scheduler.experiments import ParamError, get_kind, run_experiment
from scheduler.traces.lublin import generate_lublin99
from scheduler.workflows import generate_layered

SMALL = {
    "procs": "64", "submissions": 3, "population": 12, "generations": 2, "tasks": 16,
    "levels": 4, "mean_procs": 4.0, "mean_runtime": 600.0, "exhaustive_max_slots": 0,
}  # fmt: skip


@pytest.fixture(scope="module")
def trace():
    return generate_lublin99(jobs=400, procs=64, seed=3)


@pytest.fixture(scope="module")
def one_site(trace):
    return run_experiment("provisioning", SMALL, {"traces": [trace]}, seed=5)


def charts(result):
    return {c["id"]: c for c in result["charts"]}


def test_provisioning_result_shape(one_site):
    s = one_site["summary"]
    assert s["submissions"] == 3 and s["workflow_tasks"] == 16 and s["sites"] == 1
    c = charts(one_site)
    assert set(c) == {"makespan-vs-alpha", "cost-vs-alpha", "makespan-per-submission",
                      "pareto-front", "plan-gantt"}  # fmt: skip
    prov, be = c["makespan-vs-alpha"]["series"]
    assert [p[0] for p in prov["points"]] == [0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0]
    assert len(prov["errors"]) == len(prov["points"]) and len(be["errors"]) == 7
    assert len({p[1] for p in be["points"]}) == 1  # the best-effort line is flat
    names = [x["name"] for x in c["pareto-front"]["series"]]
    assert names == ["Pareto front", "chosen plan (α = 0.5)", "best effort"]
    assert len(c["pareto-front"]["series"][1]["points"]) == 1
    bars = [b for x in c["plan-gantt"]["series"] for b in x["points"]]
    assert bars and all(b[0] <= b[1] and isinstance(b[2], str) for b in bars)
    assert len(json.dumps(one_site)) < 200_000


def test_provisioned_cost_is_never_below_best_effort(one_site):
    s = one_site["summary"]
    for key in ("a0", "a20", "a50", "a100"):
        assert s[f"prov_cost_su_{key}"] >= s["be_cost_su"] - 1e-6
    # α = 1 is the cheapest plan and α = 0 the fastest one of each front
    assert s["prov_cost_su_a100"] <= s["prov_cost_su_a0"] + 1e-9
    assert s["prov_makespan_h_a0"] <= s["prov_makespan_h_a100"] + 1e-9


def test_same_seed_same_result(trace, one_site):
    again = run_experiment("provisioning", SMALL, {"traces": [trace]}, seed=5)
    assert json.dumps(again, sort_keys=True) == json.dumps(one_site, sort_keys=True)


def test_two_sites_with_data_and_an_uploaded_workflow(trace):
    wf = generate_layered(12, 3, mean_processors=3, mean_data=1e9, seed=2)
    params = {**SMALL, "site_traces": "1,1", "load_p": "0,0.5", "site_names": "x,y",
              "exhaustive_max_slots": 10, "submissions": 2}  # fmt: skip
    r = run_experiment("provisioning", params, {"traces": [trace], "workflows": [wf]}, seed=1)
    s = r["summary"]
    assert s["sites"] == 2 and s["workflow_tasks"] == 12
    assert s["site2_offered_load"] > s["site1_offered_load"]
    if s["exhaustive_cases"]:
        assert 0 < s["hv_ratio_mean"] <= 1 + 1e-9
    rows = charts(r)["plan-gantt"]["series"][0]["points"]
    assert all(row[2].startswith(("x · ", "y · ")) for row in rows)


def test_num_sites_keeps_the_first_sites_of_longer_lists(trace):
    params = {**SMALL, "site_traces": "1,1,1", "procs": "64,48,32", "load_p": "0,0.2,0.4",
              "num_sites": 2, "submissions": 1}  # fmt: skip
    s = run_experiment("provisioning", params, {"traces": [trace]}, seed=1)["summary"]
    assert s["sites"] == 2 and "site3_offered_load" not in s
    with pytest.raises(ParamError) as err:
        run_experiment("provisioning", {**params, "num_sites": 4}, {"traces": [trace]})
    assert "num_sites" in err.value.errors


def test_bad_parameters_are_named(trace):
    with pytest.raises(ParamError) as err:
        run_experiment("provisioning", {**SMALL, "alphas": "0,2"}, {"traces": [trace]})
    assert "alphas" in err.value.errors
    with pytest.raises(ParamError) as err:
        run_experiment("provisioning", {**SMALL, "procs": "64,32"}, {"traces": [trace]})
    assert "procs" in err.value.errors
    with pytest.raises(ParamError) as err:
        run_experiment("provisioning", {**SMALL, "site_traces": "2"}, {"traces": [trace]})
    assert "site_traces" in err.value.errors


@pytest.mark.parametrize("kind", ["provisioning", "slot-advertisement"])
def test_presets_validate(kind):
    k = get_kind(kind)
    assert k.presets
    for preset in k.presets:
        k.validate(preset.params)
    assert any("430" in str(p.params.get("procs", "")) for p in k.presets)
    assert any("128" in str(p.params.get("procs", "")) for p in k.presets)


def test_slot_advertisement_result(trace):
    other = generate_lublin99(jobs=300, procs=32, seed=9)
    params = {"procs": "64,32", "estimates": "both", "interval_hours": 2.0, "days": 10.0}
    r = run_experiment("slot-advertisement", params, {"traces": [trace, other]}, seed=2)
    c = charts(r)
    assert set(c) == {"slot-count", "slots-vs-jobs", "slot-start-duration", "slot-procs",
                      "slot-start-duration-requested"}  # fmt: skip
    assert len(c["slot-count"]["series"]) == 4  # 2 sites × 2 estimate modes
    for ser in c["slot-count"]["series"] + c["slot-procs"]["series"]:
        assert math.isclose(sum(p[1] for p in ser["points"]), 100.0, abs_tol=0.01)
    assert c["slot-count"]["series"][0]["points"][0][0] == "0–1"
    assert c["slot-procs"]["series"][0]["points"][1][0] == "2–5"
    s = r["summary"]
    assert s["s1_adverts"] == 121 and s["s1_mean_slots"] > 0
    # slots start at or after the advertisement and last a while
    for ser in c["slot-start-duration"]["series"]:
        assert all(p[0] >= 0 and p[1] > 0 for p in ser["points"])
