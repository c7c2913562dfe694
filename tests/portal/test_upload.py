"""Trace upload through the page and the API: validation errors name the line; nothing saved."""

import gzip

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from gridportal.inputs.models import Trace

HEADER = b"; Version: 2.2\n; MaxProcs: 64\n; UnixStartTime: 0\n"
GOOD = (
    b"1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n2 10 0 50 1 -1 -1 1 60 -1 1 2 1 1 1 1 -1 -1\n"
)

MALFORMED = {
    # name: (file name, content, text that must appear in the error)
    "non-numeric field": (
        "bad.swf",
        HEADER + GOOD + b"3 20 0 abc 1 -1 -1 1 60 -1 1 2 1 1 1 1 -1 -1\n",
        "line 6",
    ),
    "17 fields": ("short.swf", HEADER + b"1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1\n", "17"),
    "negative processors": (
        "neg.swf",
        HEADER + b"1 0 5 100 -5 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n",
        "line 4",
    ),
    "empty file": ("empty.swf", b"", "empty"),
    "not gzip though named .gz": ("fake.swf.gz", HEADER + GOOD, "gzip"),
}


def _files_under(root):
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


@pytest.fixture
def logged_in(client, alice):
    client.force_login(alice)
    return client


@pytest.mark.django_db
def test_page_upload_valid_trace_is_stored_with_stats(logged_in, media_root):
    upload = SimpleUploadedFile("small.swf", HEADER + GOOD)
    resp = logged_in.post("/traces/", {"name": "small", "file": upload})
    trace = Trace.objects.get()
    assert resp.status_code == 302 and resp["Location"] == f"/traces/{trace.pk}/"
    assert trace.job_count == 2 and trace.machine_procs == 64
    assert trace.summary["offered_load"] == pytest.approx(
        (100 * 4 + 50 * 1) / (64 * 105), abs=1e-4
    )  # span 0..105
    assert len(_files_under(media_root)) == 1
    page = logged_in.get(f"/traces/{trace.pk}/")
    assert b"small" in page.content and b"Offered load" in page.content


@pytest.mark.django_db
def test_page_upload_gzip_trace(logged_in, media_root, swf_bytes):
    upload = SimpleUploadedFile("gen.swf.gz", gzip.compress(swf_bytes))
    resp = logged_in.post("/traces/", {"file": upload})
    assert resp.status_code == 302
    assert Trace.objects.get().job_count == 300


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_page_upload_malformed_shows_line_and_reason_and_saves_nothing(logged_in, media_root, case):
    name, content, needle = MALFORMED[case]
    resp = logged_in.post("/traces/", {"file": SimpleUploadedFile(name, content)})
    assert resp.status_code == 400
    errors = resp.context["form"].errors["file"]
    text = " ".join(errors)
    assert needle in text, text
    assert name in text
    assert Trace.objects.count() == 0
    assert _files_under(media_root) == []
    assert b'id="upload-errors"' in resp.content


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_api_upload_malformed_is_400_naming_the_line(alice, media_root, case):
    name, content, needle = MALFORMED[case]
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post("/api/traces/", {"file": SimpleUploadedFile(name, content)}, format="multipart")
    assert resp.status_code == 400
    assert needle in " ".join(resp.json()["file"])
    assert Trace.objects.count() == 0 and _files_under(media_root) == []


@pytest.mark.django_db
def test_api_upload_valid(alice, media_root):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/traces/",
        {"name": "t", "file": SimpleUploadedFile("t.swf", HEADER + GOOD)},
        format="multipart",
    )
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert body["job_count"] == 2 and body["owner"] == "alice"
    assert body["header"]["MaxProcs"] == "64"
    assert "file" not in body


@pytest.mark.django_db
def test_upload_over_the_size_limit_is_refused(logged_in, media_root, settings):
    settings.GRIDPORTAL_MAX_UPLOAD_BYTES = 50
    resp = logged_in.post("/traces/", {"file": SimpleUploadedFile("big.swf", HEADER + GOOD)})
    assert resp.status_code == 400
    assert "limit" in " ".join(resp.context["form"].errors["file"])
    assert Trace.objects.count() == 0


@pytest.mark.django_db
def test_decompressed_size_limit_stops_gzip_bombs(logged_in, media_root, settings):
    settings.GRIDPORTAL_MAX_TRACE_BYTES = 10_000
    bomb = gzip.compress(HEADER + b"; " + b"x" * 200_000 + b"\n" + GOOD)
    resp = logged_in.post("/traces/", {"file": SimpleUploadedFile("bomb.swf.gz", bomb)})
    assert resp.status_code == 400
    assert "larger than" in " ".join(resp.context["form"].errors["file"])
    assert Trace.objects.count() == 0
