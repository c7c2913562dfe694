"""Pegasus 5 YAML workflows upload beside DAX and WfFormat."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from gridportal.inputs.models import Workflow

YAML = b"""\
pegasus: "5.0"
name: two-step
jobs:
  - {type: job, name: a, id: j1, arguments: [], uses: [{lfn: f, type: output, size: 10}],
     profiles: {pegasus: {runtime: 120, cores: 8}}}
  - {type: job, name: b, id: j2, arguments: [], uses: [{lfn: f, type: input}]}
jobDependencies:
  - {id: j1, children: [j2]}
"""


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


@pytest.mark.django_db
def test_yaml_workflow_is_stored_with_its_summary(api, media_root):
    resp = api.post("/api/workflows/", {"file": SimpleUploadedFile("wf.yml", YAML)})
    assert resp.status_code == 201, resp.content
    wf = Workflow.objects.get()
    assert wf.format == "pegasus-yaml" and wf.file.name.endswith(".yml")
    assert wf.task_count == 2 and wf.summary["max_processors"] == 8
    assert wf.summary["notes"] == [
        "default runtime of 60 s (no pegasus.runtime profile) for 1 of 2 jobs: j2",
        "default of 1 processor (no pegasus.cores or globus.count profile) for 1 of 2 jobs: j2",
    ]


@pytest.mark.django_db
def test_bad_yaml_names_the_path_and_saves_nothing(api, media_root):
    bad = YAML.replace(b"children: [j2]", b"children: [j7]")
    resp = api.post("/api/workflows/", {"file": SimpleUploadedFile("wf.yml", bad)})
    assert resp.status_code == 400
    assert "$.jobDependencies[0].children[0]" in str(resp.json())
    assert Workflow.objects.count() == 0


@pytest.mark.django_db
def test_pegasus_json_upload_page_shows_the_default_runtime_note(client, alice, media_root):
    """Pegasus 5 JSON (the API's ``_format="json"``) through the upload page; the workflow's
    page lists what the reader assumed, and the upload help names the defaults."""
    import html
    import json

    import yaml

    client.force_login(alice)
    page = client.get("/workflows/")
    help_text = page.content.decode()
    assert "Pegasus 5 YAML or JSON" in help_text
    assert "without a <code>pegasus.runtime</code> profile runs for 60 s" in help_text
    doc = json.dumps(yaml.safe_load(YAML)).encode()
    resp = client.post(
        "/workflows/", {"action": "upload", "file": SimpleUploadedFile("wf.json", doc)}
    )
    assert resp.status_code == 302, resp.content.decode()[-2000:]
    wf = Workflow.objects.get()
    assert wf.format == "pegasus-json" and wf.task_count == 2
    detail = html.unescape(client.get(resp["Location"]).content.decode())
    notes = detail.split('<ul id="workflow-notes">', 1)[1].split("</ul>", 1)[0]
    assert "<li>Default runtime of 60 s (no pegasus.runtime profile) for 1 of 2 jobs: j2</li>" in (
        notes
    )
    assert "Default of 1 processor" in notes
