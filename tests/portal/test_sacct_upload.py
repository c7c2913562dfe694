"""Slurm accounting files upload as traces: converted, reported, or refused whole."""

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
def test_page_and_rest_list_the_first_50_names_and_count_the_others(client, alice, media_root):
    head = "JobID|User|Account|Partition|QOS|State|Submit|Start|End|AllocCPUS"
    rows = [
        f"{k}|u{k:03d}|a{k:03d}|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:01:00|"
        "2025-01-06T09:00:00|1"
        for k in range(1, 201)
    ]
    client.force_login(alice)
    data = ("\n".join([head, *rows]) + "\n").encode()
    resp = client.post("/traces/", {"name": "c", "file": SimpleUploadedFile("j.txt", data)})
    assert resp.status_code == 302
    page = client.get(resp["Location"]).content.decode()
    assert "50 = u050 and 150 more" in page and "u051" not in page
    assert "50 = a050 and 150 more" in page and "a051" not in page
    api = APIClient()
    api.force_authenticate(alice)
    conv = api.get(f"/api/traces/{Trace.objects.get().pk}/").json()["summary"]["conversion"]
    assert len(conv["mappings"]["user"]) == 50 and conv["mappings_more"]["user"] == 150
    assert len(conv["mappings"]["group"]) == 50 and conv["mappings_more"]["group"] == 150


@pytest.mark.django_db
def test_broken_sacct_is_refused_naming_the_line_and_saves_nothing(alice, media_root):
    bad = SACCT + b"2001|x|y|z|batch|normal|COMPLETED|2025-01-07T08:00:00|2025-01"
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post("/api/traces/", {"name": "bad", "file": SimpleUploadedFile("j.sacct", bad)})
    assert resp.status_code == 400
    assert "line 15" in str(resp.json()) and "fields" in str(resp.json())
    assert Trace.objects.count() == 0 and _files_under(media_root) == []


XDMOD_ROW = (
    "41|41|c1|debug|normal|acct|grp|100|ann|1000|2025-01-06T08:00:00|2025-01-06T08:00:00|"
    "2025-01-06T08:00:10|2025-01-06T08:10:10|00:10:00|0:0|COMPLETED|1|8|8|8000M|"
    "billing=8,cpu=8,mem=8000M,node=1|billing=8,cpu=8,node=1|01:00:00|n1|a|b"
)


@pytest.mark.django_db
def test_headerless_gzipped_lenient_upload_reports_as_the_command_line(alice, media_root):
    import gzip
    import json

    from scheduler.traces.sacct import sacct_to_swf

    body = (XDMOD_ROW + "\n" + XDMOD_ROW.replace("41|41", "42|42")[:60] + "\n").encode()
    api = APIClient()
    api.force_authenticate(alice)
    up = SimpleUploadedFile("xdmod.log.gz", gzip.compress(body, mtime=0))
    resp = api.post("/api/traces/", {"file": up})
    assert resp.status_code == 400 and "xdmod.log.gz: line 2: cut off" in str(resp.json())
    up = SimpleUploadedFile("xdmod.log.gz", gzip.compress(body, mtime=0))
    resp = api.post("/api/traces/", {"file": up, "lenient": "true", "procs": 4})
    assert resp.status_code == 201, resp.content
    swf, report = sacct_to_swf(body, lenient=True, max_procs=4)
    assert resp.json()["summary"]["conversion"] == json.loads(json.dumps(report.as_json()))
    assert Trace.objects.get().file.read().decode() == swf


@pytest.mark.django_db
def test_the_form_says_which_formats_it_takes_and_passes_the_options(client, alice, media_root):
    client.force_login(alice)
    page = client.get("/traces/").content.decode()
    assert 'id="upload-formats"' in page and "sacct -P" in page and "gzipped" in page
    assert "with or without its header line" in page and 'name="lenient"' in page
    body = "7|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|2\n"
    post = {"name": "h", "file": SimpleUploadedFile("h.txt", body.encode())}
    resp = client.post("/traces/", post)
    assert resp.status_code == 400 and "give the --format list" in resp.content.decode()
    post = {"name": "h", "file": SimpleUploadedFile("h.txt", body.encode()),
            "sacct_format": "jobid,state,submit,start,end,ncpus"}  # fmt: skip
    resp = client.post("/traces/", post)
    assert resp.status_code == 302 and Trace.objects.get().job_count == 1
