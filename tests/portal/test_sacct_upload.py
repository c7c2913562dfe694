"""Slurm accounting files upload as traces (issue 22): converted, reported, or refused whole."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from gridportal.inputs.models import Trace

SACCT = (
    Path(__file__).parent.parent / "scheduler" / "data" / "slurm-sacct-parsable2.txt"
).read_bytes()


def _files_under(root):
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


@pytest.mark.django_db
def test_rest_upload_converts_and_keeps_the_report(alice, media_root):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/traces/", {"name": "cluster", "file": SimpleUploadedFile("jobs.sacct", SACCT)}
    )
    assert resp.status_code == 201, resp.content
    trace = Trace.objects.get()
    assert trace.job_count == 7 and trace.original_filename == "jobs.swf"
    conv = trace.summary["conversion"]
    assert conv["steps_folded"] == 3 and conv["jobs_dropped"] == 3
    assert trace.header["Conversion"].startswith("GridPortal sacct import")
    stored = _files_under(media_root)
    assert len(stored) == 1 and stored[0].read_bytes().startswith(b"; Version: 2.2")


@pytest.mark.django_db
def test_page_shows_the_conversion_report(client, alice, media_root):
    client.force_login(alice)
    resp = client.post("/traces/", {"name": "c", "file": SimpleUploadedFile("j.txt", SACCT)})
    assert resp.status_code == 302
    page = client.get(resp["Location"]).content.decode()
    assert 'id="conversion-report"' in page
    assert "Job steps folded into their jobs" in page and "cancelled before start: 1" in page


@pytest.mark.django_db
def test_broken_sacct_is_refused_naming_the_line_and_saves_nothing(alice, media_root):
    bad = SACCT + b"2001|x|y|z|batch|normal|COMPLETED|2025-01-07T08:00:00|2025-01"
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post("/api/traces/", {"name": "bad", "file": SimpleUploadedFile("j.sacct", bad)})
    assert resp.status_code == 400
    assert "line 15" in str(resp.json()) and "fields" in str(resp.json())
    assert Trace.objects.count() == 0 and _files_under(media_root) == []
