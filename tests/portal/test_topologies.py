"""Co-allocation topologies in the portal (seed 001): staff configure them (admin, API,
``load_topology``), everybody sees them drawn and plans requests against them."""

import json
import re

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from gridportal.sites.models import Site, Topology
from scheduler.coallocation import SEED001

pytestmark = pytest.mark.django_db

REQUEST = {
    "sites": [{"name": "A", "cpus": 4}, {"name": "B", "cpus": 4}],
    "paths": [{"between": ["A", "B"], "bandwidth": 1}],
    "frame": {"earliest_start": 0, "latest_start": 3600, "duration": 1800},
}


@pytest.fixture
def seed001():
    call_command("load_topology", "seed001")
    return Topology.objects.get(name="seed001")


def test_load_topology_command(tmp_path, seed001):
    assert len(seed001.document["sites"]) == 10
    assert {"X1", "X2"} <= {x["name"] for x in seed001.document["exchange_points"]}
    call_command("load_topology", "seed001")  # loading again replaces, never duplicates
    assert Topology.objects.filter(name="seed001").count() == 1
    bad = dict(SEED001, name="broken", links=[{**SEED001["links"][0], "bandwidth": -1}])
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(CommandError, match=r"links\[0\]\.bandwidth"):
        call_command("load_topology", str(path))
    assert not Topology.objects.filter(name="broken").exists()


def test_staff_write_users_read(alice, make_user, seed001):
    staff = make_user("root", staff=True)
    api = APIClient()
    api.force_authenticate(alice)
    assert api.get("/api/topologies/").json()["results"][0]["name"] == "seed001"
    doc = dict(SEED001, name="mine")
    assert api.post("/api/topologies/", {"name": "mine", "document": doc},
                    format="json").status_code == 403  # fmt: skip
    api.force_authenticate(staff)
    bad = dict(SEED001, links=[{"between": ["N0", "nowhere"], "bandwidth": 1, "value": 1}])
    resp = api.post("/api/topologies/", {"name": "bad", "document": bad}, format="json")
    assert resp.status_code == 400 and "links[0].between" in json.dumps(resp.json())
    resp = api.post("/api/topologies/", {"name": "mine", "document": doc}, format="json")
    assert resp.status_code == 201, resp.content
    assert not Topology.objects.filter(name="bad").exists()


def test_plan_endpoint_ranks_plans(alice, seed001):
    api = APIClient()
    api.force_authenticate(alice)
    url = f"/api/topologies/{seed001.pk}/plan/"
    resp = api.post(url, {"request": REQUEST, "options": {"option": "cheapest"}}, format="json")
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["feasible"] and body["plans"]
    prices = [p["price"] for p in body["plans"]]
    assert prices == sorted(prices)  # "cheapest" ranks by price
    best = body["plans"][0]
    assert set(best["sites"]) == {"A", "B"} and best["sites"]["A"] != best["sites"]["B"]
    # too many CPUs everywhere: infeasible, reported as such
    huge = dict(REQUEST, sites=[{"name": "A", "cpus": 1000}, {"name": "B", "cpus": 4}])
    body = api.post(url, {"request": huge}, format="json").json()
    assert body == {"plans": [], "feasible": False}
    # a path between unknown requested sites names the field
    wrong = dict(REQUEST, paths=[{"between": ["A", "Z"], "bandwidth": 1}])
    resp = api.post(url, {"request": wrong}, format="json")
    assert resp.status_code == 400 and "request.paths[0].between" in json.dumps(resp.json())
    late = dict(REQUEST, frame={"earliest_start": 7200, "latest_start": 3600, "duration": 60})
    resp = api.post(url, {"request": late}, format="json")
    assert resp.status_code == 400 and "request.frame.earliest_start" in resp.json()
    resp = api.post(url, {"request": REQUEST, "options": {"frames": 0}}, format="json")
    assert resp.status_code == 400 and "options.frames" in resp.json()
    assert APIClient().post(url, {"request": REQUEST}, format="json").status_code in (401, 403)


def test_pages_draw_the_graph_and_plan(client, alice, seed001):
    client.force_login(alice)
    assert b"seed001" in client.get("/sites/").content
    page = client.get(f"/sites/topologies/{seed001.pk}/")
    assert page.status_code == 200
    svg = page.content.decode()
    assert svg.count('class="node node-site') == 10 and svg.count('class="node node-exchange') == 2
    assert svg.count('<line class="link"') == len(seed001.document["links"])
    page = client.post(f"/sites/topologies/{seed001.pk}/", {
        "request": json.dumps(REQUEST), "option": "earliest", "admin": "none",
        "priority": "normal", "frames": 10,
    })  # fmt: skip
    assert page.status_code == 200 and page.context["plans"]
    assert b'id="plan-table"' in page.content
    # a frame whose solution is reused says so instead of "0.0000 s"
    cells = re.findall(r'<td data-role="solve">(.*?)</td>', page.content.decode())
    plans = page.context["plans"]
    assert len(cells) == len(plans) and any(p["cached"] for p in plans)
    for plan, cell in zip(plans, cells, strict=True):
        assert ("reused" in cell) == plan["cached"] and (cell.endswith(" s") != plan["cached"])
    page = client.post(f"/sites/topologies/{seed001.pk}/", {
        "request": "{not json", "option": "earliest", "admin": "none", "priority": "normal",
        "frames": 10,
    })  # fmt: skip
    assert page.context["plans"] is None and "not JSON" in str(page.context["form"].errors)


def test_site_page_shows_its_topology(client, alice, seed001):
    site = Site.objects.create(name="N3", processors=64)
    client.force_login(alice)
    page = client.get(f"/sites/{site.pk}/")
    assert b'class="node node-site highlight"' in page.content


def test_a_run_takes_a_configured_topology(alice, seed001):
    """The topology input is copied into the run (later edits never change it) and reaches
    the engine; a bad document is a 400 naming the JSON path, with nothing saved."""
    from gridportal.experiments.models import Experiment
    from gridportal.experiments.services import experiment_execute

    api = APIClient()
    api.force_authenticate(alice)
    params = {"max_load": 20, "day": 21600, "service_levels": False}
    resp = api.post("/api/experiments/", {"kind": "coallocation", "params": params,
                                          "topology": "seed001"}, format="json")  # fmt: skip
    assert resp.status_code == 201, resp.content
    exp = Experiment.objects.get(pk=resp.json()["id"])
    assert exp.snapshot["topology"] == [seed001.document]
    seed001.document = {**seed001.document, "sites": seed001.document["sites"][:2]}
    seed001.save()
    assert experiment_execute(experiment_id=exp.pk) == "succeeded", exp.error
    exp.refresh_from_db()
    assert exp.result["summary"]["sites"] == 10  # the snapshot, not the edited topology
    broken = dict(SEED001, links=[{"between": ["N0", "N1"], "bandwidth": 0, "value": 1}])
    before = Experiment.objects.count()
    resp = api.post("/api/experiments/", {"kind": "coallocation", "params": params,
                                          "topology": broken}, format="json")  # fmt: skip
    assert resp.status_code == 400 and "links[0].bandwidth" in json.dumps(resp.json())
    assert Experiment.objects.count() == before
    resp = api.post("/api/experiments/", {"kind": "coallocation", "topology": "nope"},
                    format="json")  # fmt: skip
    assert resp.status_code == 400 and "topology" in resp.json()
    resp = api.post("/api/experiments/", {"kind": "trace-stats", "topology": "seed001"},
                    format="json")  # fmt: skip
    assert resp.status_code == 400 and "topology" in resp.json()


def test_the_form_offers_the_configured_topologies(client, alice, seed001):
    client.force_login(alice)
    page = client.get("/experiments/new/?kind=coallocation")
    assert page.status_code == 200 and b"seed001" in page.content
