"""Topology documents of seed 001 co-allocation: loading, errors naming the JSON path, layout."""

from __future__ import annotations

import copy

import pytest

from scheduler.coallocation import (
    SEED001,
    TopologyError,
    builtin_topologies,
    layout,
    load_topology,
    topology_as_json,
)


def test_seed_testbed_matches_the_seed():
    t = load_topology(SEED001)
    # seed 001: N{8,16,32,64}, S{8,16,32}, U{8,16,32} -> 120 + 56 + 56 CPUs
    assert [s.cpus for s in t.sites] == [8, 16, 32, 64, 8, 16, 32, 8, 16, 32]
    assert t.total_cpus == 232
    assert t.domains == ("N", "S", "U")
    # in-domain full meshes: C(4,2) + C(3,2) + C(3,2) = 12 links of 5 Gbps (value 5);
    # X1 reaches all 10 sites, X2 the 7 of N and S: 17 links of 10 Gbps (value 3)
    inside = [ln for ln in t.links if ln.mbps == 5000]
    inter = [ln for ln in t.links if ln.mbps == 10000]
    assert len(inside) == 12 and {ln.value for ln in inside} == {5.0}
    assert len(inter) == 17 and {ln.value for ln in inter} == {3.0}
    assert not any("X2" in (ln.a, ln.b) and ln.a.startswith("U") for ln in t.links)


def test_round_trip_and_builtins():
    for doc in builtin_topologies().values():
        t = load_topology(doc)
        assert load_topology(topology_as_json(t)) == t


def _bad(doc, path):
    with pytest.raises(TopologyError) as info:
        load_topology(doc)
    assert path in info.value.errors, info.value.errors
    assert isinstance(info.value, ValueError)
    return info.value


def test_errors_name_the_json_path():
    doc = copy.deepcopy(SEED001)
    doc["links"][3]["bandwidth"] = -1
    err = _bad(doc, "links[3].bandwidth")
    assert str(err).startswith("links[3].bandwidth: must be > 0")
    doc = copy.deepcopy(SEED001)
    doc["links"][0]["between"] = ["N0", "Z9"]
    _bad(doc, "links[0].between[1]")
    doc = copy.deepcopy(SEED001)
    doc["sites"][2]["cpus"] = 2.5
    _bad(doc, "sites[2].cpus")
    doc = copy.deepcopy(SEED001)
    doc["sites"][1]["name"] = "N0"
    _bad(doc, "sites[1].name")
    doc = copy.deepcopy(SEED001)
    doc["exchange_points"][0]["domains"] = ["N", "Q"]
    _bad(doc, "exchange_points[0].domains[1]")
    _bad("not json", "$")
    _bad({"sites": []}, "sites")


def test_disconnected_topology_is_refused():
    doc = {
        "sites": [
            {"name": "a", "domain": "D", "cpus": 4},
            {"name": "b", "domain": "D", "cpus": 4},
            {"name": "c", "domain": "E", "cpus": 4},
        ],
        "links": [{"between": ["a", "b"], "bandwidth": 1}],
    }
    err = _bad(doc, "links")
    assert "disconnected" in err.errors["links"] and "c" in err.errors["links"]


def test_layout_is_deterministic_and_inside_the_unit_square():
    t = load_topology(SEED001)
    pos = layout(t)
    assert pos == layout(load_topology(SEED001))
    assert set(pos) == set(t.nodes)
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in pos.values())
    assert len(set(pos.values())) == len(pos)  # no two nodes drawn on one spot
