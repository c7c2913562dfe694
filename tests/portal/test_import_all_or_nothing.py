"""Imports are all or nothing: a bundle refused after its inputs were written leaves
no row and no file; orphan files are found by ``manage.py orphans`` and reported by the
sweeper; a sacct upload is converted outside the web process."""

from __future__ import annotations

import io
import json
import os

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from gridportal.inputs.models import Trace

from .factories import finished_experiment, stored_trace
from .test_bundles import _good_files, _rehashed, _zip

pytestmark = pytest.mark.django_db


def _files(root) -> int:
    return sum(p.is_file() for p in root.rglob("*")) if root.exists() else 0


@pytest.fixture
def bundle(alice, media_root):
    exp = finished_experiment(alice, stored_trace(alice, jobs=80), procs=64)
    client = APIClient()
    client.force_authenticate(alice)
    return _good_files(client.get(f"/api/experiments/{exp.pk}/bundle/").content)


def _late_refusals(files: dict[str, bytes]) -> dict[str, dict[str, bytes]]:
    """Bundles refused only after their trace was stored (by experiment_create or the result's
    parameters): the written file must go again."""
    run = json.loads(files["run.json"])
    result = json.loads(files["result/result.json"])
    return {
        "bad parameter": {
            **files, "run.json": json.dumps({**run, "params": {"procs": -5}}).encode()
        },
        "result of other parameters": {
            **files, "result/result.json": json.dumps({**result, "params": {"procs": 1}}).encode()
        },
        "unknown kind": {
            **files,
            "run.json": json.dumps({**run, "kind": "nope"}).encode(),
            "result/result.json": json.dumps({**result, "kind": "nope"}).encode(),
        },
    }  # fmt: skip


@pytest.mark.parametrize("case", ["bad parameter", "result of other parameters", "unknown kind"])
def test_a_bundle_refused_after_its_inputs_were_written_leaves_no_file(
    bundle, bob, media_root, case
):
    api = APIClient()
    api.force_authenticate(bob)
    before = (Experiment.objects.count(), Trace.objects.count(), _files(media_root))
    body = _zip(_rehashed(_late_refusals(bundle)[case]))
    resp = api.post("/api/experiments/import-bundle/", {"file": body}, format="multipart")
    assert resp.status_code == 400, resp.content
    assert (Experiment.objects.count(), Trace.objects.count(), _files(media_root)) == before
    assert not Trace.objects.filter(owner=bob).exists()


def _recording(monkeypatch, tmp_path, target: str):
    """Replace ``target`` (module.name) by a wrapper that writes the pid it ran in."""
    module, name = target.rsplit(".", 1)
    real = getattr(__import__(module, fromlist=[name]), name)
    log = tmp_path / f"{name}.pids"

    def wrapper(*args, **kwargs):
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(target, wrapper)
    return lambda: [int(x) for x in log.read_text().split()] if log.exists() else []


def test_the_web_process_never_opens_an_uploaded_zip(bundle, bob, media_root, monkeypatch,
                                                     tmp_path):  # fmt: skip
    """Bundles and job-array zips are opened (and their JSON parsed) in the limited child."""
    opened = _recording(monkeypatch, tmp_path, "gridportal.experiments.bundles.open_archive")
    parsed = _recording(monkeypatch, tmp_path, "gridportal.experiments.bundles.load_json")
    api = APIClient()
    api.force_authenticate(bob)
    resp = api.post("/api/experiments/import-bundle/", {"file": _zip(bundle)}, format="multipart")
    assert resp.status_code == 201, resp.content
    assert opened() and os.getpid() not in opened()
    assert parsed() and os.getpid() not in parsed()


def test_the_web_process_never_parses_uploaded_results(monkeypatch, tmp_path):
    """What sweep_upload_results runs in its limited child (its parent stores only)."""
    import zipfile

    from gridportal.experiments.jobarray import _read_results
    from gridportal.inputs.services import upload_limited

    opened = _recording(monkeypatch, tmp_path, "gridportal.experiments.jobarray.open_archive")
    parsed = _recording(monkeypatch, tmp_path, "gridportal.experiments.jobarray.load_json")
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.writestr("results/7.json", "{}")
    with pytest.raises(Exception, match="results/7.json: missing key"):
        upload_limited(_read_results, [("r.zip", zipped.getvalue())],
                       {7: ("trace-stats", 0, {}, "", 0.0)},
                       {"engine_version": "0", "inputs": {}}, str(tmp_path), 0.0,
                       what="t")  # fmt: skip
    assert opened() and os.getpid() not in opened()
    assert parsed() and os.getpid() not in parsed()


def test_sacct_is_converted_in_the_limited_child(alice, media_root, monkeypatch, tmp_path):
    from pathlib import Path

    converted = _recording(monkeypatch, tmp_path, "gridportal.inputs.services.sacct_to_swf_file")

    sacct = (Path(__file__).parent.parent / "scheduler/data/slurm-sacct-parsable2.txt").read_bytes()
    from gridportal.inputs.services import trace_create

    trace = trace_create(owner=alice, name="", upload=ContentFile(sacct, name="j.sacct"))
    assert trace.job_count == 7 and converted() and os.getpid() not in converted()
    monkeypatch.setattr("django.conf.settings.GRIDPORTAL_UPLOAD_TIME_LIMIT", 0.001)
    with pytest.raises(Exception, match="time limit"):
        trace_create(owner=alice, name="", upload=ContentFile(sacct, name="j.sacct"))
    assert Trace.objects.count() == 1 and _files(media_root) == 1


def test_the_probe_s_wide_rule_is_refused_naming_line_2(alice, media_root):
    api = APIClient()
    api.force_authenticate(alice)
    body = ("JobID State Submit Start End\n" + "----- " * 200_000 + "\n" + "x\n" * 1000).encode()
    up = io.BytesIO(body)
    up.name = "wide.sacct"
    resp = api.post("/api/traces/", {"name": "w", "file": up}, format="multipart")
    assert resp.status_code == 400
    assert resp.json()["file"][0].startswith("wide.sacct: line 2: ")  # too long / too many spans
    assert Trace.objects.count() == 0 and _files(media_root) == 0


def test_orphans_are_reported_and_deleted_on_request(alice, media_root, capsys):
    trace = stored_trace(alice, jobs=20)
    orphan = media_root / "traces" / "stray.swf"
    orphan.parent.mkdir(parents=True, exist_ok=True)
    orphan.write_bytes(b"x" * 1234)
    old = 1_000_000_000
    os.utime(orphan, (old, old))
    os.utime(trace.file.path, (old, old))
    call_command("orphans")
    assert capsys.readouterr().out.strip() == "orphans=1 bytes=1234"
    call_command("sweep_runs", "--grace", "0", "--inspect-timeout", "0.5")
    out = capsys.readouterr().out
    assert "orphan_files=1" in out and "orphan_bytes=1234" in out and orphan.exists()
    call_command("orphans", "--delete")
    assert capsys.readouterr().out.strip() == "orphans=1 bytes=1234 deleted=1"
    assert not orphan.exists() and os.path.exists(trace.file.path)  # a row's file stays
    call_command("orphans")
    assert capsys.readouterr().out.strip() == "orphans=0 bytes=0"


def test_young_files_are_not_orphans_yet(alice, media_root, capsys):
    young = media_root / "traces" / "being-saved.swf"
    young.parent.mkdir(parents=True, exist_ok=True)
    young.write_bytes(b"x")
    call_command("orphans", "--delete")
    assert capsys.readouterr().out.strip() == "orphans=0 bytes=0 deleted=0" and young.exists()
