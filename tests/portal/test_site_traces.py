"""A site's background trace is the site's: setting it (API, admin, ``seed_demo``) copies the
upload into a trace the sites' system account owns, so the uploader's trace page lists only
their own runs, other users' bundles carry the site's copy (not the uploader's row, name or
account), and the uploader may delete their trace without breaking the site."""

import io
import json
import zipfile

import pytest
from django.apps import apps
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_create, experiment_execute
from gridportal.inputs.models import Trace
from gridportal.inputs.services import trace_delete
from gridportal.sites.models import Site
from gridportal.sites.traces import SITE_TRACES_USERNAME

from .factories import stored_trace

pytestmark = pytest.mark.django_db

PRIVATE = "alice's unpublished cluster log"


@pytest.fixture
def staff(make_user):
    user = make_user("root", staff=True)
    user.is_superuser = True  # (the admin's change form needs the model permissions)
    user.save()
    return user


@pytest.fixture
def alices_trace(alice, media_root):
    return stored_trace(alice, jobs=120, procs=32, seed=5, name=PRIVATE)


def api_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def assert_site_copy(site: Site, original: Trace) -> Trace:
    site.refresh_from_db()
    copy = site.trace
    assert copy is not None and copy.pk != original.pk
    assert copy.site_owned and copy.owner.username == SITE_TRACES_USERNAME
    assert copy.sha256 == original.sha256 and copy.job_count == original.job_count
    assert site.name in copy.name and PRIVATE not in copy.name
    assert copy.file.name != original.file.name
    return copy


def test_staff_setting_a_trace_over_the_api_stores_a_site_copy(staff, alices_trace):
    resp = api_for(staff).post(
        "/api/sites/", {"name": "north", "processors": 32, "trace": alices_trace.pk}, format="json"
    )
    assert resp.status_code == 201, resp.content
    site = Site.objects.get(name="north")
    copy = assert_site_copy(site, alices_trace)
    assert resp.json()["trace"] == alices_trace.pk or site.trace_id == copy.pk
    # setting the copy again (or saving the site) makes no second copy
    site.save()
    assert Trace.objects.filter(site_owned=True).count() == 1


def test_staff_setting_a_trace_in_the_admin_stores_a_site_copy(client, staff, alices_trace):
    site = Site.objects.create(name="south", processors=32)
    client.force_login(staff)
    resp = client.post(
        f"/admin/sites/site/{site.pk}/change/",
        {"name": "south", "description": "", "processors": 32, "local_policy": "conservative",
         "trace": alices_trace.pk, "unit_cost": 1.0, "fixed_cost": 0.0},
    )  # fmt: skip
    assert resp.status_code == 302, resp.content[:2000]
    assert_site_copy(site, alices_trace)


def test_seed_demo_gives_the_sites_a_copy_of_the_demo_trace(media_root):
    call_command("seed_demo", stdout=io.StringIO())
    demo = Trace.objects.get(owner__username="demo", site_owned=False)
    sites = list(Site.objects.all())
    assert sites
    for site in sites:
        assert_site_copy(site, demo)
    assert not demo.sites.exists()


def test_other_users_runs_on_the_site_stay_theirs(client, alice, bob, staff, alices_trace):
    site = Site.objects.create(name="west", processors=32, trace=alices_trace)
    copy = assert_site_copy(site, alices_trace)
    # bob runs on the site's trace (the experiment form offers it as "the configured sites")
    resp = api_for(bob).post(
        "/api/experiments/", {"kind": "trace-stats", "traces": [copy.pk]}, format="json"
    )
    assert resp.status_code == 201, resp.content
    run = Experiment.objects.get(pk=resp.json()["id"])
    assert experiment_execute(experiment_id=run.pk) == "succeeded"
    # alice's trace page lists her runs only
    mine = experiment_create(owner=alice, kind="trace-stats", params={}, traces=[alices_trace])
    client.force_login(alice)
    page = client.get(reverse("trace-detail", args=[alices_trace.pk]))
    assert page.status_code == 200
    assert reverse("experiment-detail", args=[mine.pk]) in page.content.decode()
    assert reverse("experiment-detail", args=[run.pk]) not in page.content.decode()
    # bob's bundle carries the site's trace, nothing of alice's row, name or account
    bundle = api_for(bob).get(f"/api/experiments/{run.pk}/bundle/")
    assert bundle.status_code == 200
    with zipfile.ZipFile(
        io.BytesIO(b"".join(bundle.streaming_content) if bundle.streaming else bundle.content)
    ) as zf:
        text = "".join(zf.read(n).decode("utf-8", "replace") for n in zf.namelist())
        meta = json.loads(zf.read("ro-crate-metadata.json"))
    assert PRIVATE not in text and "alice" not in text
    assert any(site.name in str(e.get("about", "")) or site.name in str(e.get("name", ""))
               for e in meta["@graph"])  # fmt: skip
    # alice deletes her trace (her own run first): the site keeps its background trace
    mine.delete()
    trace_delete(trace=alices_trace)
    site.refresh_from_db()
    assert site.trace_id == copy.pk and copy.file.storage.exists(copy.file.name)
    quote = api_for(bob).get(f"/api/sites/{site.pk}/quote/?n=4&duration=3600&at=1")
    assert quote.status_code == 200, quote.content


def test_the_migration_moves_existing_sites_and_other_users_runs_to_a_copy(
    alice, bob, alices_trace
):
    site = Site.objects.create(name="east", processors=32)
    Site.objects.filter(pk=site.pk).update(trace=alices_trace)  # as stored before the change
    bobs = experiment_create(owner=bob, kind="trace-stats", params={}, traces=[alices_trace])
    hers = experiment_create(owner=alice, kind="trace-stats", params={}, traces=[alices_trace])
    migration = __import__(
        "gridportal.sites.migrations.0007_site_background_traces_are_copies", fromlist=["x"]
    )
    migration.forwards(apps, None)
    copy = assert_site_copy(site, alices_trace)
    assert list(bobs.traces.all()) == [copy]
    assert list(hers.traces.all()) == [alices_trace]
