"""Large Slurm accounting files are converted by a real Celery worker under a run's limits:
the upload answers at once ("converting…"), the trace appears when the worker is done, a file
that cannot be converted is refused naming its line with no trace row and no file left."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from gridportal.inputs.models import SacctImport, Trace
from tests.conftest import wait_for

SACCT = (
    Path(__file__).parent.parent / "scheduler" / "data" / "slurm-sacct-parsable2.txt"
).read_bytes()
BROKEN = SACCT + b"2001|x|y|z|batch|normal|COMPLETED|2025-01-07T08:00:00|2025-01"


def _files_under(root):
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


@pytest.fixture
def background(settings):
    settings.GRIDPORTAL_SACCT_BACKGROUND_BYTES = 100  # the fixture's 2 KB go to the worker


def test_large_sacct_converts_on_the_worker_or_is_refused_whole(
    background, celery_worker, alice, client, media_root
):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/traces/", {"name": "cluster", "file": SimpleUploadedFile("j.sacct", SACCT)}
    )
    assert resp.status_code == 202, resp.content
    assert resp.json()["status"] == "converting" and resp.json()["original_filename"] == "j.sacct"
    client.force_login(alice)
    resp = client.post("/traces/", {"name": "bad", "file": SimpleUploadedFile("b.sacct", BROKEN)})
    assert resp.status_code == 302 and resp["Location"] == "/traces/"
    trace = wait_for(lambda: Trace.objects.filter(name="cluster").first(), 180, what="the trace")
    assert trace.job_count == 7 and trace.original_filename == "j.swf"
    assert trace.summary["conversion"]["steps_folded"] == 3
    refused = wait_for(
        lambda: SacctImport.objects.filter(status="refused").first(), 180, what="the refusal"
    )
    assert "b.sacct: line 15" in refused.error and "fields" in refused.error
    assert SacctImport.objects.count() == 1 and Trace.objects.count() == 1
    assert [p.name for p in _files_under(media_root)] == [Path(trace.file.name).name]
    listed = api.get("/api/traces/imports/").json()
    assert [(i["name"], i["status"]) for i in listed] == [("bad", "refused")]
    page = client.get("/traces/").content.decode()
    assert "refused" in page and "line 15" in page and "converting…" not in page
    assert client.post(f"/traces/imports/{refused.pk}/dismiss/").status_code == 302
    assert SacctImport.objects.count() == 0


def test_the_page_says_converting_until_a_worker_takes_it(background, alice, client, media_root):
    client.force_login(alice)
    resp = client.post("/traces/", {"name": "big", "file": SimpleUploadedFile("j.sacct", SACCT)})
    assert resp.status_code == 302
    page = client.get("/traces/").content.decode()
    assert 'id="sacct-imports"' in page and "converting…" in page
    assert Trace.objects.count() == 0 and len(_files_under(media_root)) == 1  # the upload, kept
    assert "dismiss" not in page.lower()  # a converting file cannot be dismissed
    row = SacctImport.objects.get()
    assert client.post(f"/traces/imports/{row.pk}/dismiss/").status_code == 302
    assert SacctImport.objects.filter(pk=row.pk).exists()


@pytest.mark.django_db
def test_a_user_converts_two_files_at_once_at_most(background, alice, media_root):
    api = APIClient()
    api.force_authenticate(alice)
    for k in range(2):
        resp = api.post("/api/traces/", {"file": SimpleUploadedFile(f"j{k}.sacct", SACCT)})
        assert resp.status_code == 202, resp.content
    resp = api.post("/api/traces/", {"file": SimpleUploadedFile("j2.sacct", SACCT)})
    assert resp.status_code == 400
    assert resp.json()["file"] == [
        "j2.sacct: 2 of your Slurm accounting files are being converted (at most 2 at once); "
        "upload this one when they are done"
    ]
    assert SacctImport.objects.count() == 2 and len(_files_under(media_root)) == 2


@pytest.mark.django_db
def test_small_sacct_still_converts_within_the_request(alice, media_root):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post("/api/traces/", {"file": SimpleUploadedFile("j.sacct", SACCT)})
    assert resp.status_code == 201 and resp.json()["job_count"] == 7
    assert SacctImport.objects.count() == 0
