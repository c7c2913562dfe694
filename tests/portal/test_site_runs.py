"""Experiments over the sites staff configured: their traces are usable by every user."""

import pytest
from rest_framework.test import APIClient

from gridportal.sites.models import Site

from .factories import stored_trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def sites(make_user, media_root):
    staff = make_user("root", staff=True)
    a = stored_trace(staff, jobs=120, procs=64, seed=1, name="site A background")
    b = stored_trace(staff, jobs=120, procs=32, seed=2, name="site B background")
    return [
        Site.objects.create(name="alpha", processors=64, trace=a, unit_cost=1.0),
        Site.objects.create(name="beta", processors=32, trace=b, unit_cost=2.5, fixed_cost=10),
    ]


def test_form_fills_in_the_configured_sites(client, alice, sites):
    client.force_login(alice)
    page = client.get("/experiments/new/?kind=slot-advertisement&sites=configured")
    assert page.status_code == 200
    initial = page.context["form"].initial
    assert initial["p_site_names"] == "alpha,beta"
    assert initial["p_procs"] == "64,32"
    assert initial["p_unit_cost"] == "1,2.5" and initial["p_fixed_cost"] == "0,10"
    assert initial["traces"] == [s.trace_id for s in sites]
    assert b'id="use-sites"' in page.content


def test_cluster_kinds_take_the_configured_site_sizes(client, alice, sites):
    client.force_login(alice)
    page = client.get("/experiments/new/?kind=malleability&sites=configured")
    initial = page.context["form"].initial
    assert initial["p_clusters"] == "64,32" and initial["p_cluster_names"] == "alpha,beta"
    assert b'id="use-sites"' in page.content


def test_site_traces_are_usable_but_other_traces_are_not(alice, bob, sites, media_root):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/experiments/",
        {
            "kind": "slot-advertisement",
            "traces": [s.trace_id for s in sites],
            "params": {"site_names": "alpha,beta", "procs": "64,32"},
        },
        format="json",
    )
    assert resp.status_code == 201, resp.content
    private = stored_trace(bob, name="bob's own")
    resp = api.post(
        "/api/experiments/", {"kind": "slot-advertisement", "traces": [private.pk]}, format="json"
    )
    assert resp.status_code == 400 and "traces" in resp.json()
    # the site traces stay out of the user's own trace list and pages
    assert api.get("/api/traces/").json()["count"] == 0
    assert api.get(f"/api/traces/{sites[0].trace_id}/").status_code == 404


def test_traces_keep_the_order_they_were_given(alice, media_root):
    """Site k runs on trace k: a run given [later upload, earlier upload] keeps that order,
    in the run and in its clone (the many-to-many rows alone would sort them by id)."""
    from gridportal.experiments.models import Experiment
    from gridportal.experiments.services import run_inputs_of

    first = stored_trace(alice, jobs=120, procs=64, seed=1, name="first")
    second = stored_trace(alice, jobs=120, procs=32, seed=2, name="second")
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post("/api/experiments/", {
        "kind": "slot-advertisement", "traces": [second.pk, first.pk],
        "params": {"days": 1.0, "interval_hours": 12.0},
    }, format="json")  # fmt: skip
    assert resp.status_code == 201, resp.content
    exp = Experiment.objects.get(pk=resp.json()["id"])
    assert [t.pk for t in run_inputs_of(exp).traces] == [second.pk, first.pk]
    clone = api.post(f"/api/experiments/{exp.pk}/clone/", {}, format="json")
    assert clone.status_code == 201, clone.content
    copy = Experiment.objects.get(pk=clone.json()["id"])
    assert [t.pk for t in run_inputs_of(copy).traces] == [second.pk, first.pk]
