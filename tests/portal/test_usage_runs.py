"""The usage-policy experiment from the portal: staff configuration copied into the run."""

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_execute
from gridportal.sites.models import UsagePolicy
from gridportal.sites.services import configuration_import
from scheduler.usage.scenarios import seed004_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def seed_config():
    configuration_import(seed004_document(sites=2))


def test_run_with_configured_policies_keeps_a_snapshot(seed_config, alice):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/experiments/",
        {
            "kind": "usage-policy",
            "policies": "configured",
            "params": {"scenario": "custom", "jobs": 60},
        },
        format="json",
    )
    assert resp.status_code == 201, resp.content
    exp = Experiment.objects.get(pk=resp.json()["id"])
    snap = exp.snapshot["policies"][0]
    assert [s["name"] for s in snap["sites"]] == ["site0", "site1"]
    # staff edit the configuration afterwards: the run still uses what it was given
    UsagePolicy.objects.filter(consumer_vo__name="VO0").update(epoch_percent=55)
    assert experiment_execute(experiment_id=exp.pk) == "succeeded", Experiment.objects.get(
        pk=exp.pk
    ).error
    exp.refresh_from_db()
    policies = next(t for t in exp.result["tables"] if "polic" in t["id"])
    assert any(20 in row or 20.0 in row for row in policies["rows"]), policies["rows"]
    assert not any(55 in row or 55.0 in row for row in policies["rows"])
    for strategy in ("spep", "rm-fairshare", "none"):
        for metric in ("BUPV", "EUPV", "ARU", "ART", "AJC"):
            assert isinstance(exp.result["summary"][f"{strategy}.{metric}"], (int, float))


def test_invalid_policy_document_is_refused(alice):
    api = APIClient()
    api.force_authenticate(alice)
    doc = seed004_document(sites=2)
    doc["policies"][0]["epoch"]["percent"] = 180
    resp = api.post(
        "/api/experiments/",
        {"kind": "usage-policy", "policies": doc, "params": {"scenario": "custom"}},
        format="json",
    )
    assert resp.status_code == 400
    assert "percent" in str(resp.json()["policies"])
    assert Experiment.objects.count() == 0


def test_form_checkbox_uses_the_configuration(seed_config, client, alice):
    client.force_login(alice)
    page = client.get("/experiments/new/?kind=usage-policy")
    assert page.status_code == 200
    assert "use the configured sites and policies" in page.content.decode()
    data = {"kind": "usage-policy", "seed": 0, "policies": "on"}
    for field in page.context["form"]:
        if field.name.startswith("p_"):
            value = field.value()
            if isinstance(value, bool):
                if value:
                    data[field.name] = "on"
            elif value is not None:
                data[field.name] = value
    data["p_scenario"] = "custom"
    resp = client.post("/experiments/new/", data)
    assert resp.status_code == 302, resp.context["form"].errors
    exp = Experiment.objects.get()
    assert exp.snapshot["policies"][0]["vos"][0]["groups"] == ["G0", "G1"]
