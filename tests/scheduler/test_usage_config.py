"""Policy documents: validation naming JSON paths, warnings, round trip, the input loader."""

import copy
import json

import pytest

from scheduler.io import INPUT_LOADERS, load_input
from scheduler.usage.config import (
    PolicyError,
    load_policy_document,
    load_policy_file,
    policy_warnings,
    to_document,
)
from scheduler.usage.scenarios import seed004_document

from .usage_helpers import document

GOOD = {
    "format": "gridportal-policies",
    "version": 1,
    "sites": [{"name": "site0", "cpus": 100}],
    "vos": [{"name": "VO0", "groups": ["G0", "G1"]}, {"name": "VO1", "groups": []}],
    "policies": [
        {
            "resource": "CPU",
            "provider": "site0",
            "consumer": "VO0",
            "epoch": {"interval": 3600, "percent": 20},
            "burst": {"interval": 5, "percent": 60},
        },
        {
            "resource": "CPU",
            "provider": "VO0",
            "consumer": "VO0.G0",
            "epoch": {"interval": 3600, "percent": 50},
            "burst": {"interval": 5, "percent": 80},
        },
    ],
}


def errors_of(doc) -> dict[str, str]:
    with pytest.raises(PolicyError) as err:
        load_policy_document(doc)
    return dict(err.value.errors)


def test_contract_example_loads():
    ps = load_policy_document(GOOD)
    assert [s.name for s in ps.sites] == ["site0"] and ps.site("site0").cpus == 100
    assert ps.vo("VO0").groups == ("G0", "G1") and ps.vo("VO1").groups == ()
    p = ps.policy("VO0", "VO0.G0")
    assert p.consumer_vo == "VO0" and p.consumer_group == "G0"
    assert p.epoch.interval == 3600 and p.epoch.fraction == 0.5 and p.burst.percent == 80
    assert ps.policy("site0", "VO1") is None


def test_round_trip_and_json_text():
    ps = load_policy_document(GOOD)
    doc = to_document(ps)
    assert doc == GOOD
    assert load_policy_document(json.dumps(doc)) == ps
    seed = load_policy_document(seed004_document(5, 40))
    assert load_policy_document(to_document(seed)) == seed


def test_percent_and_interval_errors_name_the_path():
    doc = copy.deepcopy(GOOD)
    doc["policies"][0]["epoch"]["percent"] = 120
    doc["policies"][0]["burst"]["interval"] = 0
    doc["policies"][1]["burst"]["percent"] = -1
    doc["policies"][1]["epoch"]["interval"] = 2.5
    errs = errors_of(doc)
    assert "between 0 and 100" in errs["$.policies[0].epoch.percent"]
    assert "120" in errs["$.policies[0].epoch.percent"]
    assert "> 0" in errs["$.policies[0].burst.interval"]
    assert "between 0 and 100" in errs["$.policies[1].burst.percent"]
    assert "whole number" in errs["$.policies[1].epoch.interval"]
    doc["policies"][0]["epoch"]["percent"] = "20"
    assert "must be a number" in errors_of(doc)["$.policies[0].epoch.percent"]


def test_consumer_must_belong_to_provider():
    doc = copy.deepcopy(GOOD)
    doc["vos"][1]["groups"] = ["G9"]
    doc["policies"][1]["consumer"] = "VO1.G9"  # VO0 cannot give VO1's group a share
    errs = errors_of(doc)
    assert "does not belong to provider 'VO0'" in errs["$.policies[1].consumer"]
    doc["policies"][1]["consumer"] = "VO1"  # a VO gives shares to groups only
    assert "its own groups" in errors_of(doc)["$.policies[1].consumer"]
    doc["policies"][1]["consumer"] = "VO0.G7"
    assert "has no group 'G7'" in errors_of(doc)["$.policies[1].consumer"]
    doc = copy.deepcopy(GOOD)
    doc["policies"][0]["consumer"] = "VO0.G0"  # a site gives shares to VOs only
    assert "not to groups" in errors_of(doc)["$.policies[0].consumer"]


def test_unknown_names_duplicates_and_keys():
    doc = copy.deepcopy(GOOD)
    doc["policies"][0]["provider"] = "site9"
    doc["policies"][1]["resource"] = "GPU"
    errs = errors_of(doc)
    assert "unknown site or VO 'site9'" in errs["$.policies[0].provider"]
    assert "CPU, NET, STORAGE" in errs["$.policies[1].resource"]

    doc = copy.deepcopy(GOOD)
    doc["policies"].append(copy.deepcopy(doc["policies"][0]))
    errs = errors_of(doc)
    assert "duplicate policy" in errs["$.policies[2]"] and "$.policies[0]" in errs["$.policies[2]"]

    doc = copy.deepcopy(GOOD)
    doc["policies"][0]["epoch"]["percentage"] = 20
    del doc["policies"][0]["epoch"]["percent"]
    errs = errors_of(doc)
    assert "unknown key" in errs["$.policies[0].epoch.percentage"]
    assert "missing required key 'percent'" in errs["$.policies[0].epoch"]

    doc = copy.deepcopy(GOOD)
    doc["vos"].append({"name": "site0", "groups": []})
    doc["vos"].append({"name": "VO.X", "groups": ["a", "a"]})
    doc["sites"].append({"name": "site1", "cpus": 0})
    errs = errors_of(doc)
    assert "already defined at $.sites[0]" in errs["$.vos[2].name"]
    assert "'.'" in errs["$.vos[3].name"]
    assert "listed twice" in errs["$.vos[3].groups[1]"]
    assert "integer >= 1" in errs["$.sites[1].cpus"]


def test_format_version_and_shape():
    errs = errors_of({"sites": [], "vos": [], "policies": []})
    assert "gridportal-policies" in errs["$.format"] and "$.version" in errs
    assert "JSON object" in errors_of([1, 2])["$"]
    doc = copy.deepcopy(GOOD)
    doc["policies"] = {"a": 1}
    assert "JSON array" in errors_of(doc)["$.policies"]
    with pytest.raises(PolicyError, match="not JSON"):
        load_policy_document("{not json")


def test_over_provisioning_and_other_warnings():
    assert policy_warnings(load_policy_document(GOOD)) == [
        "VO VO1 has no CPU share at any site: its jobs cannot run"
    ]
    doc = document(
        {"s": 10},
        {"A": ["g", "h"], "B": []},
        [("s", "A", 40, 60), ("s", "B", 80, 70), ("A", "A.g", 50, 50), ("A", "A.h", 50, 60)],
    )
    warnings = policy_warnings(load_policy_document(doc))
    assert len(warnings) == 2
    assert warnings[0].startswith("s gives 120 % of its CPU in epoch shares (A 40 %, B 80 %)")
    assert "over-provisioned" in warnings[0]
    assert "B: burst share 70 % is below the epoch share 80 %" in warnings[1]
    # exactly 100 % is not over-provisioned
    doc["policies"][1]["epoch"]["percent"] = 60
    assert not any("over-provisioned" in w for w in policy_warnings(load_policy_document(doc)))


def test_input_loader_reads_files(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(GOOD))
    assert INPUT_LOADERS["policies"] is load_policy_file
    assert load_input("policies", path) == GOOD
    with open(path, "rb") as fh:
        assert load_policy_file(fh) == GOOD
    assert load_policy_file(path.read_bytes(), name="upload.json") == GOOD
    with pytest.raises(PolicyError, match="upload.json: not JSON"):
        load_policy_file(b"nope", name="upload.json")
    assert load_policy_document(path) == load_policy_document(GOOD)
    bad = copy.deepcopy(GOOD)
    bad["policies"][0]["burst"]["percent"] = 101
    path.write_text(json.dumps(bad))
    with pytest.raises(PolicyError, match=r"\$\.policies\[0\]\.burst\.percent"):
        load_input("policies", path)
    with pytest.raises(PolicyError, match="cannot read"):
        load_policy_file(tmp_path / "missing.json")
    with pytest.raises(PolicyError, match="larger than the limit"):
        load_policy_file(path, max_bytes=10)
