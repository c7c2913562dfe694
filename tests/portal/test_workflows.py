"""Workflow inputs: upload with validation (nothing saved on error), generation, preview, API."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from gridportal.inputs.models import Workflow
from tests.conftest import SHARED_DATA, require

pytestmark = pytest.mark.django_db

NATIVE = {
    "format": "gridportal-workflow",
    "version": 1,
    "name": "diamond",
    "tasks": [
        {"id": "a", "runtime": 10},
        {"id": "b", "runtime": 20, "processors": 4},
        {"id": "c", "runtime": 5},
        {"id": "d", "runtime": 1},
    ],
    "edges": [
        {"parent": "a", "child": "b"},
        {"parent": "a", "child": "c"},
        {"parent": "b", "child": "d"},
        {"parent": "c", "child": "d"},
    ],
}

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>
<adag><job id="a" runtime="&lol2;"/></adag>"""

BAD = {
    "cycle": (
        "cycle.json",
        json.dumps({**NATIVE, "edges": NATIVE["edges"] + [{"parent": "d", "child": "a"}]}).encode(),
        "cycle",
    ),
    "unknown id": (
        "unknown.json",
        json.dumps({**NATIVE, "edges": [{"parent": "a", "child": "zz"}]}).encode(),
        "zz",
    ),
    "negative runtime": (
        "neg.json",
        json.dumps({**NATIVE, "tasks": [{"id": "a", "runtime": -3}]}).encode(),
        "$.tasks[0].runtime",
    ),
    "xml bomb": ("bomb.xml", BOMB, "line 2"),
    "not a workflow": ("x.txt", b"hello", "neither XML (Pegasus DAX), Pegasus 5 YAML"),
}


def files_under(root):
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def test_upload_native_workflow_and_preview(client, alice, media_root):
    client.force_login(alice)
    upload = SimpleUploadedFile("diamond.json", json.dumps(NATIVE).encode())
    resp = client.post("/workflows/", {"action": "upload", "file": upload})
    wf = Workflow.objects.get()
    assert resp.status_code == 302 and resp["Location"] == f"/workflows/{wf.pk}/"
    assert (wf.task_count, wf.edge_count, wf.format) == (4, 4, "native")
    assert wf.summary["levels"] == 3 and wf.summary["critical_path"] == 31
    page = client.get(f"/workflows/{wf.pk}/")
    assert page.status_code == 200
    bars = page.context["preview"]["charts"][0]["series"][0]["points"]
    assert bars == [["1", 1], ["2", 2], ["3", 1]]


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_workflows_are_refused_naming_the_place(client, alice, media_root, case):
    name, content, needle = BAD[case]
    client.force_login(alice)
    resp = client.post(
        "/workflows/", {"action": "upload", "file": SimpleUploadedFile(name, content)}
    )
    assert resp.status_code == 400
    text = " ".join(resp.context["form"].errors["file"])
    assert needle in text and name in text, text
    assert Workflow.objects.count() == 0 and files_under(media_root) == []


def test_real_dax_file(alice, media_root):
    path = SHARED_DATA / "workflows" / "Montage_25.xml"
    if not path.exists():
        require(False, f"shared workflows not found at {path.parent}")
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/workflows/",
        {"file": SimpleUploadedFile(path.name, path.read_bytes())},
        format="multipart",
    )
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert (body["task_count"], body["edge_count"], body["format"]) == (25, 45, "dax")


def test_generate_from_form_and_api(client, alice, media_root):
    client.force_login(alice)
    resp = client.post(
        "/workflows/",
        {
            "action": "generate",
            "model": "layered",
            "seed": 3,
            "tasks": 40,
            "levels": 5,
            "mean_runtime": 100,
            "mean_processors": 4,
            "pairs": 10,
            "images": 10,
        },
    )
    wf = Workflow.objects.get()
    assert resp.status_code == 302 and wf.task_count == 40 and wf.summary["levels"] == 5
    assert wf.generator == {
        "model": "layered",
        "params": {
            "tasks": 40,
            "levels": 5,
            "mean_runtime": 100.0,
            "mean_processors": 4.0,
            "seed": 3,
        },
    }
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/workflows/generate/", {"model": "cybershake", "params": {"pairs": 20}}, format="json"
    )
    assert resp.status_code == 201 and resp.json()["task_count"] == 45
    assert resp.json()["summary"]["levels"] == 5
    bad = api.post(
        "/api/workflows/generate/",
        {"model": "layered", "params": {"tasks": 5, "levels": 9}},
        format="json",
    )
    assert bad.status_code == 400 and "levels" in str(bad.json())


def test_workflow_ownership(alice, bob, media_root):
    api = APIClient()
    api.force_authenticate(alice)
    wf_id = api.post(
        "/api/workflows/generate/", {"model": "montage", "params": {"images": 4}}, format="json"
    ).json()["id"]
    other = APIClient()
    other.force_authenticate(bob)
    assert other.get(f"/api/workflows/{wf_id}/").status_code == 404
    assert other.get("/api/workflows/").json()["count"] == 0
    resp = other.post(
        "/api/experiments/", {"kind": "trace-stats", "workflows": [wf_id]}, format="json"
    )
    assert resp.status_code == 400 and "workflows" in resp.json()


def test_kind_without_workflow_input_refuses_one(alice, media_root):
    from tests.portal.factories import stored_trace

    api = APIClient()
    api.force_authenticate(alice)
    wf_id = api.post(
        "/api/workflows/generate/", {"model": "montage", "params": {"images": 4}}, format="json"
    ).json()["id"]
    trace = stored_trace(alice)
    resp = api.post(
        "/api/experiments/",
        {"kind": "trace-stats", "traces": [trace.pk], "workflows": [wf_id]},
        format="json",
    )
    assert resp.status_code == 400
    assert "takes no workflow input" in " ".join(resp.json()["workflows"])
