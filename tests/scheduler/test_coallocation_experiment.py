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


def test_wiring_variants_of_the_seed_testbed():
    from scheduler.experiments.coallocation import wire

    def in_domain(doc):
        dom = {s["name"]: s["domain"] for s in doc["sites"]}
        return {
            tuple(ln["between"])
            for ln in doc["links"]
            if all(n in dom for n in ln["between"]) and len({dom[n] for n in ln["between"]}) == 1
        }

    mesh = in_domain(wire(SEED001, "mesh"))
    assert len(mesh) == 6 + 3 + 3  # N: 4 sites, S and U: 3
    star = in_domain(wire(SEED001, "star"))
    assert len(star) == 3 + 2 + 2 and all({"N3", "S2", "U2"} & set(p) for p in star)
    assert in_domain(wire(SEED001, "none")) == set()
    inter = len(SEED001["links"]) - len(mesh)
    for wiring, n in (("mesh", 12), ("star", 7), ("none", 0)):
        r = run_experiment("coallocation", {**SMALL, "wiring": wiring, "service_levels": False},
                           {}, seed=2)  # fmt: skip
        assert r["summary"]["links"] == inter + n


def test_same_cpus_per_request():
    a = run_experiment("coallocation", {**SMALL, "request_cpus": "same"}, {}, seed=5)
    b = run_experiment("coallocation", {**SMALL, "request_cpus": "per-site"}, {}, seed=5)
    assert a["summary"]["requests"] == b["summary"]["requests"]  # same arrivals
    assert a["tables"] != b["tables"]


def test_presets_use_the_calibrated_set_up():
    from scheduler.experiments.coallocation import CALIBRATION

    kind = get_kind("coallocation")
    defaults = {p.name: p.default for p in kind.params}
    for preset in kind.presets:
        params = {**defaults, **preset.params}
        for unknown, chosen in CALIBRATION["chosen"].items():
            assert params[unknown] == chosen, (preset.name, unknown)
    assert set(CALIBRATION["chosen"]) == set(CALIBRATION["unknowns"])
