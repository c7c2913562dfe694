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


def test_domain_utilization_follows_the_administrators_preference():
    # seed 001 (B1): "Preferred resources are selected first" — the summary reports each
    # domain's utilization per scenario, and the preferred domain is the busiest one
    from scheduler.coallocation.admin_options import domain_utilization
    from scheduler.coallocation.topology import load_topology

    base = {**SMALL, "workloads": 1, "service_levels": False, "pref_domain": True}
    r = run_experiment("coallocation", {**base, "domain_order": "N,S,U"}, {}, seed=1)
    s = r["summary"]
    assert s["pref_domain_util_N"] > s["pref_domain_util_U"]
    flipped = run_experiment("coallocation", {**base, "domain_order": "U,S,N"}, {}, seed=1)
    f = flipped["summary"]
    assert f["pref_domain_util_U"] > f["pref_domain_util_N"]
    assert f["normal_util_N"] == s["normal_util_N"]  # the order only acts on (B1)
    # the domains add up to the site chart and to the overall utilization
    t = load_topology(SEED001)
    sites = next(c for c in r["charts"] if c["id"] == "site-utilization")
    for ser, key in zip(sites["series"], ("normal", "pref_domain"), strict=True):
        util = dict((name, y) for name, y in ser["points"])
        for d in ("N", "S", "U"):
            mine = [x for x in t.sites if x.domain == d]
            want = sum(util[x.name] * x.cpus for x in mine) / sum(x.cpus for x in mine)
            assert s[f"{key}_util_{d}"] == pytest.approx(want, abs=1e-3)
        total = sum(s[f"{key}_util_{d}"] * c for d, c in (("N", 120), ("S", 56), ("U", 56)))
        assert total / 232 == pytest.approx(s[f"{key}_utilization"], abs=1e-3)
    domains = next(c for c in r["charts"] if c["id"] == "domain-utilization")
    assert [p[0] for p in domains["series"][1]["points"]] == ["N", "S", "U"]
    with pytest.raises(ValueError, match="busy times"):
        domain_utilization(t, [0.0], 3600)


def test_admin_options_preset_measures_its_claims():
    from scheduler.experiments.claims import of

    kind = get_kind("coallocation")
    preset = kind.preset("seed001-admin-options")
    small = {**preset.params, **SMALL, "workloads": 1, "load_balancing": False,
             "pref_cpus": False}  # fmt: skip
    s = run_experiment("coallocation", small, {}, seed=0)["summary"]
    for claim in of("coallocation", "seed001-admin-options"):
        assert claim.metric in s and claim.than in s
