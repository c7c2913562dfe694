"""Experiment kind ``coallocation`` (seed 001): contract, determinism, bad input."""

from __future__ import annotations

import copy

import pytest

import scheduler.experiments.coallocation  # noqa: F401  (registers the kind)
from scheduler.coallocation import SEED001
from scheduler.experiments import ParamError, get_kind, run_experiment

# a 6-hour "day" keeps it small: 0.5·232·21600 / (3.5·3.75·4200) ≈ 46 requests
SMALL = {"day": 21600, "max_load": 50, "frames": 5}


def test_kind_declares_its_inputs_and_presets():
    kind = get_kind("coallocation")
    assert [i.name for i in kind.inputs] == ["topology"]
    assert {p.name for p in kind.presets} >= {"seed001-success-ratios", "seed001-admin-options"}
    for preset in kind.presets:
        kind.validate(preset.params)


def test_small_run_is_deterministic_and_well_formed():
    a = run_experiment("coallocation", SMALL, {}, seed=3)
    b = run_experiment("coallocation", SMALL, {}, seed=3)
    assert a == b
    s = a["summary"]
    assert s["requests"] > 20 and s["cpus"] == 232
    for key in ("normal_success", "service_levels_success"):
        assert 0 <= s[key] <= 1
    ids = {c["id"] for c in a["charts"]}
    assert {"success-vs-load", "service-levels", "site-utilization", "ip-solves"} <= ids
    util = next(c for c in a["charts"] if c["id"] == "site-utilization")
    assert all(0 <= y <= 1 for ser in util["series"] for _, y in ser["points"])
    other = run_experiment("coallocation", {**SMALL, "service_levels": False}, {}, seed=4)
    assert other["summary"]["requests"] != s["requests"] or other["tables"] != a["tables"]


def test_light_load_always_succeeds():
    # 3 % load over a 6-hour day: ~3 requests of at most 5 sites × 8 CPUs each, on 10 sites of
    # >= 8 CPUs with 5-10 Gbps links — every one fits in its first frame
    r = run_experiment("coallocation", {**SMALL, "max_load": 3}, {}, seed=1)
    assert r["summary"]["normal_success"] == 1.0


def test_topology_input_is_used_and_checked():
    doc = copy.deepcopy(SEED001)
    doc["sites"] = doc["sites"][:4]  # N only
    doc["exchange_points"] = [{"name": "X1", "domains": ["N"]}]
    keep = {"N0", "N1", "N2", "N3", "X1"}
    doc["links"] = [ln for ln in doc["links"] if set(ln["between"]) <= keep]
    params = {**SMALL, "service_levels": False, "max_load": 20}
    r = run_experiment("coallocation", params, {"topology": [doc]})
    assert r["summary"]["cpus"] == 120 and r["summary"]["sites"] == 4
    bad = copy.deepcopy(SEED001)
    bad["links"][2]["bandwidth"] = -5
    with pytest.raises(ParamError) as info:
        run_experiment("coallocation", SMALL, {"topology": [bad]})
    assert "links[2].bandwidth" in info.value.errors["topology"]


def test_bad_params_name_the_field():
    with pytest.raises(ParamError) as info:
        run_experiment("coallocation", {**SMALL, "domain_order": "N,Q"}, {})
    assert "domain_order" in info.value.errors
    with pytest.raises(ParamError) as info:
        run_experiment("coallocation", {**SMALL, "normal": False, "service_levels": False}, {})
    assert "normal" in info.value.errors
    with pytest.raises(ParamError) as info:
        run_experiment("coallocation", {"day": 60}, {})
    assert "day" in info.value.errors
