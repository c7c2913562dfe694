"""Sites, VOs, groups and usage policies: validation, staff-only writes, warnings, document."""

import pytest
from rest_framework.test import APIClient

from gridportal.sites.models import Group, Site, UsagePolicy, VirtualOrganization
from gridportal.sites.services import (
    configuration_import,
    configuration_warnings,
    policy_document,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def grid():
    """Seed 004's configuration: 2 sites, VO0 (groups G0, G1) and VO1."""
    sites = [Site.objects.create(name=f"site{i}", processors=100) for i in range(2)]
    vo0 = VirtualOrganization.objects.create(name="VO0")
    vo1 = VirtualOrganization.objects.create(name="VO1")
    for g in ("G0", "G1"):
        Group.objects.create(vo=vo0, name=g)
    for site in sites:
        UsagePolicy.objects.create(
            provider_site=site,
            consumer_vo=vo0,
            epoch_interval=3600,
            epoch_percent=20,
            burst_interval=5,
            burst_percent=60,
        )
        UsagePolicy.objects.create(
            provider_site=site,
            consumer_vo=vo1,
            epoch_interval=3600,
            epoch_percent=80,
            burst_interval=5,
            burst_percent=90,
        )
    return sites, vo0, vo1


@pytest.fixture
def staff_api(make_user):
    api = APIClient()
    api.force_authenticate(make_user("root", staff=True))
    return api


@pytest.fixture
def user_api(alice):
    api = APIClient()
    api.force_authenticate(alice)
    return api


def policy(provider, consumer, epoch=20, burst=60, **extra):
    return {
        "resource": "CPU",
        "provider": provider,
        "consumer": consumer,
        "epoch_interval": 3600,
        "epoch_percent": epoch,
        "burst_interval": 5,
        "burst_percent": burst,
        **extra,
    }


def test_users_read_staff_write(grid, user_api, staff_api):
    assert user_api.get("/api/sites/").json()["count"] == 2
    assert user_api.get("/api/policies/").json()["count"] == 4
    assert user_api.post("/api/sites/", {"name": "x", "processors": 4}).status_code == 403
    assert user_api.delete(f"/api/sites/{grid[0][0].pk}/").status_code == 403
    assert staff_api.post("/api/sites/", {"name": "x", "processors": 4}).status_code == 201
    assert APIClient().get("/api/sites/").status_code == 401


def test_policy_api_by_names_and_group_policies(grid, staff_api):
    resp = staff_api.post("/api/policies/", policy("VO0", "VO0.G0", 50, 80), format="json")
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert body["provider"] == "VO0" and body["consumer"] == "VO0.G0"
    assert body["warnings"] == []
    vos = staff_api.get("/api/vos/").json()["results"]
    assert {v["name"]: v["groups"] for v in vos} == {"VO0": ["G0", "G1"], "VO1": []}


@pytest.mark.parametrize(
    "payload,field,needle",
    [
        (policy("site0", "VO0", epoch=120), "epoch_percent", "less than or equal to 100"),
        (policy("site0", "VO0", burst=-1), "burst_percent", "greater than or equal to 0"),
        (policy("site0", "VO0", epoch_interval=0), "epoch_interval", "greater than or equal to 1"),
        (policy("nowhere", "VO0"), "provider", "no site or VO named 'nowhere'"),
        (policy("site0", "VO9"), "consumer", "no VO named 'VO9'"),
        (policy("site0", "VO0.G0"), "consumer", "a site gives shares to VOs"),
        (policy("VO1", "VO0.G0"), "consumer", "does not belong to VO VO1"),
        (policy("VO0", "VO1"), "consumer", "not to another VO"),
        (policy("site0", "VO0"), "resource", "already has a CPU policy for VO0"),
        (policy("site0", "VO0", burst_interval=7200), "burst_interval", "not be longer"),
    ],
)
def test_policy_validation_names_the_field(grid, staff_api, payload, field, needle):
    before = UsagePolicy.objects.count()
    resp = staff_api.post("/api/policies/", payload, format="json")
    assert resp.status_code == 400
    assert needle in " ".join(resp.json()[field]), resp.json()
    assert UsagePolicy.objects.count() == before


def test_over_provisioning_is_allowed_but_flagged(grid, staff_api):
    vo2 = VirtualOrganization.objects.create(name="VO2")
    resp = staff_api.post("/api/policies/", policy("site0", vo2.name, epoch=30), format="json")
    assert resp.status_code == 201
    warnings = resp.json()["warnings"]
    assert any(w.startswith("site0 gives 130 % of its CPU") for w in warnings), warnings
    assert not any(w.startswith("site1 gives") for w in warnings)
    assert configuration_warnings() == warnings


def test_admin_forms_validate_and_warn(grid, admin_client):
    sites, vo0, _ = grid
    url = "/admin/sites/usagepolicy/add/"
    form = {
        "resource": "CPU",
        "provider_site": sites[0].pk,
        "consumer_group": Group.objects.get(name="G0").pk,
        "epoch_interval": 3600,
        "epoch_percent": 10,
        "burst_interval": 5,
        "burst_percent": 10,
    }
    resp = admin_client.post(url, form)
    assert resp.status_code == 200 and b"a site gives shares to VOs" in resp.content
    vo2 = VirtualOrganization.objects.create(name="VO2")
    form.update(consumer_group="", consumer_vo=vo2.pk, epoch_percent=5)
    resp = admin_client.post(url, form, follow=True)
    assert resp.status_code == 200
    assert resp.content.count(b"ite0 gives 105 % of its CPU") == 1  # the admin capitalises
    form.update(epoch_percent=101)
    resp = admin_client.post(url, form)
    assert b"less than or equal to 100" in resp.content


def test_policy_document_of_the_configuration(grid):
    doc = policy_document()
    assert doc["format"] == "gridportal-policies"
    assert doc["sites"] == [{"name": "site0", "cpus": 100}, {"name": "site1", "cpus": 100}]
    assert doc["vos"] == [{"name": "VO0", "groups": ["G0", "G1"]}, {"name": "VO1", "groups": []}]
    assert {
        "resource": "CPU",
        "provider": "site1",
        "consumer": "VO1",
        "epoch": {"interval": 3600, "percent": 80.0},
        "burst": {"interval": 5, "percent": 90.0},
    } in doc["policies"]


def test_import_seed_document_round_trips():
    from scheduler.usage.scenarios import seed004_document

    doc = seed004_document(sites=2, cpus=64)
    counts = configuration_import(doc)
    assert counts == {"sites": 2, "vos": 2, "groups": 2, "policies": len(doc["policies"])}
    assert configuration_import(doc) == counts  # idempotent: updated, not duplicated
    assert UsagePolicy.objects.count() == len(doc["policies"])
    mine = policy_document()
    key = lambda p: (p["provider"], p["consumer"])  # noqa: E731
    assert sorted(mine["policies"], key=key) == sorted(doc["policies"], key=key)
    assert mine["sites"] == doc["sites"]


def test_import_refuses_invalid_documents():
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="percent"):
        configuration_import(
            {
                "format": "gridportal-policies",
                "version": 1,
                "sites": [{"name": "s", "cpus": 4}],
                "vos": [{"name": "V"}],
                "policies": [
                    {
                        "resource": "CPU",
                        "provider": "s",
                        "consumer": "V",
                        "epoch": {"interval": 10, "percent": 140},
                        "burst": {"interval": 1, "percent": 50},
                    }
                ],
            }
        )
    assert Site.objects.count() == 0


def test_a_sites_local_policy_is_one_of_the_registrys(grid, staff_api, admin_client):
    """The choices come from the engine's one policy registry (no list in the portal): REST and
    the admin offer and accept exactly its built-in policies, and refuse anything else."""
    from scheduler.engine import scheduling_policy_choices

    names = [name for name, _ in scheduling_policy_choices()]
    assert {"fcfs", "easy", "conservative", "backfill-k=8", "fairshare-cb"} <= set(names)
    ok = staff_api.post(
        "/api/sites/", {"name": "k8", "processors": 4, "local_policy": "backfill-k=8"}
    )
    assert ok.status_code == 201 and ok.json()["local_policy"] == "backfill-k=8"
    for bad in ("sjf", "backfill-k=0", "mine.py:SJF"):
        resp = staff_api.post("/api/sites/", {"name": "x", "processors": 4, "local_policy": bad})
        assert resp.status_code == 400 and "local_policy" in resp.json(), resp.content
    mine = {"name": "x", "processors": 4, "local_policy": "user:0123456789ab"}
    why = staff_api.post("/api/sites/", mine).json()["local_policy"][0]
    assert why.startswith("a site's local policy is one of the built-in policies: a site is")
    page = admin_client.get("/admin/sites/site/add/").content.decode()
    assert "Built-in policies only: a site" in page and "runs only in the sandbox" in page
    for name, label in scheduling_policy_choices():
        assert f'value="{name}"' in page and label in page
