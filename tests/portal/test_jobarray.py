"""A sweep exported as Slurm job arrays, its tasks run here the way Slurm runs them (a copy of
the batch script from a spool folder, from another working directory; see jobarray_local),
and its results uploaded back with their provenance. The re-run of a sample on the workers
is tested with a real worker in tests/integration/test_jobarray_workers.py."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from gridportal.experiments.jobarray import (
    DEFAULT_CHUNK,
    MAX_ARRAY_TASKS,
    default_chunk,
    first_difference,
    input_files,
    sweep_jobarray_zip,
)
from gridportal.experiments.jobarray_runner import FORMAT, params_sha256
from gridportal.experiments.models import Experiment, ResultUpload, Sweep
from gridportal.experiments.services import run_inputs_of
from scheduler import engine
from tests.conftest import ROOT

from .factories import stored_trace
from .jobarray_local import sbatch, unpack

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def _slurm_sweep(api, trace, monkeypatch, capture, seed=3):
    sent = []
    monkeypatch.setattr("gridportal.experiments.sweeps._enqueue_group", sent.append)
    with capture(execute=True):
        resp = api.post(
            "/api/sweeps/",
            {
                "kind": "trace-stats",
                "traces": [trace.pk],
                "seed": seed,
                "repetitions": 2,
                "executor": "slurm",
                "vary": [{"param": "cdf_points", "values": [10, 20]}],
            },
            format="json",
        )
    assert resp.status_code == 201, resp.content
    assert sent == []  # nothing goes to the workers
    sweep = Sweep.objects.get(pk=resp.json()["id"])
    assert sweep.executor == "slurm" and sweep.runs.count() == 4
    assert set(sweep.runs.values_list("status", flat=True)) == {"queued"}
    assert "Slurm job array" in sweep.runs.first().message
    return sweep


def engine_env() -> dict[str, str]:
    """What a cluster node needs: the engine importable by python3 (here: this checkout)."""
    return {**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(ROOT)}


def _zip_results(folder: Path) -> io.BytesIO:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for path in sorted((folder / "results").glob("*.json")):
            zf.write(path, f"results/{path.name}")
    buf.seek(0)
    buf.name = "results.zip"
    return buf


def test_export_runs_chunked_from_other_folders_resumes_and_uploads_with_provenance(
    api, alice, media_root, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    trace = stored_trace(alice, jobs=120)
    sweep = _slurm_sweep(api, trace, monkeypatch, django_capture_on_commit_callbacks)
    resp = api.get(f"/api/sweeps/{sweep.pk}/jobarray/?chunk=3")
    assert resp.status_code == 200 and resp["Content-Type"] == "application/zip"
    site = tmp_path / "site"
    folder = unpack(resp.content, site)
    assert folder == site / f"sweep-{sweep.pk}"
    assert (folder / "logs").is_dir() and (folder / "results").is_dir()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["chunk"] == 3 and manifest["tasks"] == 2 and manifest["runs"] == 4
    script = folder / f"sweep-{sweep.pk}-part1.sbatch"
    assert "#SBATCH --array=0-1\n" in script.read_text()  # 4 runs, 3 per task: 2 tasks

    # `sbatch sweep-N/sweep-N-part1.sbatch` from the folder above it: Slurm runs a copy of
    # the script from its spool folder, in the submit folder; output there (it exists).
    env = engine_env()
    spool = tmp_path / "spool"
    monkeypatch.chdir(site)
    assert sbatch([str(script.relative_to(site))], env=env, spool=spool) == 0
    results = sorted((folder / "results").glob("*.json"), key=lambda p: int(p.stem))  # (97 < 100)
    assert len(results) == 4 and not list((folder / "results").glob(".*"))  # no leftovers
    logs = sorted(site.glob("slurm-*.out"))
    assert len(logs) == 2 and "0 already done, 3 to run" in logs[0].read_text()

    ids = sorted(sweep.runs.values_list("id", flat=True))
    assert [int(p.stem) for p in results] == ids
    doc = json.loads(results[0].read_text())
    prov = doc["provenance"]
    exp = Experiment.objects.get(pk=ids[0])
    ((_, trace_name, _, trace_sha),) = input_files(run_inputs_of(sweep))
    assert prov["format"] == FORMAT and prov["run"] == exp.id
    assert prov["engine_version"] == engine.engine_version()
    assert prov["params_sha256"] == params_sha256(exp.params)
    assert prov["inputs_sha256"] == {trace_name: trace_sha}
    start, end = (datetime.fromisoformat(prov[k]) for k in ("started_at", "finished_at"))
    assert timezone.now() - timedelta(minutes=5) < start <= end <= timezone.now()

    # Resumable: a task started again skips what is done; a missing result is computed again.
    mtimes = {p.name: p.stat().st_mtime_ns for p in results}
    results[1].unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    # plain sbatch from an unrelated folder: the script asks Slurm where it was submitted from
    scontrol = tmp_path / "bin" / "scontrol"
    scontrol.parent.mkdir()
    scontrol.write_text(f"#!/bin/sh\necho 'JobId=1 JobName=x'\necho '   Command={script}'\n")
    scontrol.chmod(0o755)
    lost = {**env, "PATH": f"{scontrol.parent}:{env['PATH']}"}
    assert sbatch([str(script)], env=lost, spool=spool) == 0
    again = sorted(elsewhere.glob("slurm-*.out"))
    assert "2 already done, 1 to run" in again[0].read_text()
    assert "1 already done, 0 to run" in again[1].read_text()
    for p in results:
        assert p.exists()
        if p != results[1]:
            assert p.stat().st_mtime_ns == mtimes[p.name]  # not run twice

    # Without scontrol and far from the folder, the task says how to submit instead.
    bare = {**env, "PATH": "/usr/bin:/bin"}
    assert sbatch([str(script)], env=bare, spool=spool) == 2
    assert "submit-all.sh" in sorted(elsewhere.glob("slurm-*.out"))[-1].read_text()

    # submit-all.sh from anywhere: --chdir and logs/ (which exists before sbatch opens it).
    results[3].unlink()
    stand_in = tmp_path / "bin" / "sbatch"
    stand_in.write_text(f'#!/bin/sh\nexec {sys.executable} -m tests.portal.jobarray_local "$@"\n')
    stand_in.chmod(0o755)
    done = subprocess.run(
        ["sh", str(folder / "submit-all.sh")], cwd=elsewhere, capture_output=True, text=True,
        env={**env, "SBATCH": str(stand_in), "TMPDIR": str(spool)}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    logs = sorted((folder / "logs").glob(f"gridportal-sweep-{sweep.pk}-1-*.out"))
    assert len(logs) == 2 and "0 already done, 1 to run" in logs[1].read_text()
    assert len(list((folder / "results").glob("*.json"))) == 4

    # The upload: checked, staged, runs keep their real start and end times, shown as
    # computed elsewhere; a sample waits for its re-run on the workers.
    before = timezone.now()
    up = api.post(
        f"/api/sweeps/{sweep.pk}/upload-results/", {"file": _zip_results(folder)},
        format="multipart",
    )  # fmt: skip
    assert up.status_code == 200, up.content
    body = up.json()
    assert body["stored"] == 4 and body["upload"]["status"] == "checking"
    assert len(body["upload"]["sample"]) == 1  # 10 % of 4, at least one
    upload = ResultUpload.objects.get()
    assert sorted(upload.runs) == ids
    exp.refresh_from_db()
    prov = json.loads((folder / "results" / f"{exp.id}.json").read_text())["provenance"]
    assert exp.status == "queued" and exp.computed_elsewhere
    assert exp.started_at == datetime.fromisoformat(prov["started_at"]) < before
    assert exp.finished_at == datetime.fromisoformat(prov["finished_at"]) < before
    assert exp.provenance["upload"] == upload.pk and exp.provenance["host"]
    run_json = api.get(f"/api/experiments/{exp.id}/").json()
    assert run_json["computed_elsewhere"] is True and run_json["result_url"] is None
    state = api.get(f"/api/sweeps/{sweep.pk}/").json()["state"]
    assert {r["computed_elsewhere"] for r in state["runs"]} == {True}
    assert state["uploads"][0]["status"] == "checking"
    # a second upload while the first is checked is refused
    again = api.post(
        f"/api/sweeps/{sweep.pk}/upload-results/", {"file": _zip_results(folder)},
        format="multipart",
    )  # fmt: skip
    assert again.status_code == 400 and "still being checked" in str(again.json())


def _honest(sweep, exp, **change) -> dict:
    name, sha = next((n, s) for _, n, _, s in input_files(run_inputs_of(sweep)))
    now = timezone.now()
    provenance = {
        "format": FORMAT,
        "run": exp.id,
        "engine_version": engine.engine_version(),
        "inputs_sha256": {name: sha},
        "params_sha256": params_sha256(exp.params),
        "started_at": (now - timedelta(seconds=3)).isoformat(),
        "finished_at": now.isoformat(),
        "host": "node001",
        "slurm_job": "77_0",
    }
    provenance.update(change.pop("provenance", {}))
    return {
        "kind": exp.kind,
        "params": exp.params,
        "seed": exp.seed,
        "summary": {"jobs": 1},
        "summary_labels": {},
        "tables": [],
        "charts": [],
        "provenance": provenance,
        **change,
    }


def _file(doc: dict, run_id: int) -> io.BytesIO:
    f = io.BytesIO(json.dumps(doc).encode())
    f.name = f"{run_id}.json"
    return f


@pytest.mark.parametrize(
    "change, message",
    [
        ({"seed": 99}, "kind/seed"),
        ({"params": {"procs": 1}}, "parameters differ"),
        ({"charts": [{"type": "pie"}]}, "no known type"),
        ({"summary": {"x": [1]}}, "not a number"),
        ({"provenance": {"params_sha256": "0" * 64}}, "provenance.params_sha256"),
        ({"provenance": {"inputs_sha256": {"inputs/trace-1.swf": "f" * 64}}},
         "inputs/trace-1.swf is not the exported file"),
        ({"provenance": {"engine_version": "0.0.1"}}, "engine version '0.0.1'"),
        ({"provenance": {"format": "other"}}, "no provenance"),
        ({"provenance": {"started_at": "2999-01-01T00:00:00+00:00"}}, "before its started_at"),
        ({"provenance": {"finished_at": "yesterday"}}, "not an ISO 8601 time"),
    ],
)  # fmt: skip
def test_wrong_results_and_tampered_provenance_are_refused_naming_the_run(
    api, alice, media_root, monkeypatch, django_capture_on_commit_callbacks, change, message
):
    trace = stored_trace(alice, jobs=60)
    sweep = _slurm_sweep(api, trace, monkeypatch, django_capture_on_commit_callbacks)
    first, second = sweep.runs.order_by("id")[:2]
    resp = api.post(
        f"/api/sweeps/{sweep.pk}/upload-results/",
        {"file": [_file(_honest(sweep, first), first.id),
                  _file(_honest(sweep, second, **change), second.id)]},
        format="multipart",
    )  # fmt: skip
    assert resp.status_code == 400 and message in str(resp.json()), resp.json()
    if "provenance" in change:
        assert f"run {second.id}: " in str(resp.json())
    assert not sweep.runs.exclude(status="queued").exists()  # all or none
    assert not sweep.runs.filter(provenance__isnull=False).exists()
    assert not ResultUpload.objects.exists()


def test_an_honest_upload_is_staged_and_a_result_without_provenance_refused(
    api, alice, media_root, monkeypatch, django_capture_on_commit_callbacks
):
    trace = stored_trace(alice, jobs=60)
    sweep = _slurm_sweep(api, trace, monkeypatch, django_capture_on_commit_callbacks)
    first = sweep.runs.order_by("id").first()
    bare = _honest(sweep, first)
    del bare["provenance"]
    resp = api.post(f"/api/sweeps/{sweep.pk}/upload-results/", {"file": _file(bare, first.id)},
                    format="multipart")  # fmt: skip
    assert resp.status_code == 400 and f"run {first.id}: no provenance" in str(resp.json())
    ok = api.post(f"/api/sweeps/{sweep.pk}/upload-results/",
                  {"file": _file(_honest(sweep, first), first.id)}, format="multipart")  # fmt: skip
    assert ok.status_code == 200 and ok.json()["upload"]["sample"] == [first.id]
    first.refresh_from_db()
    assert first.provenance["computed"] == "elsewhere" and first.result["summary"] == {"jobs": 1}
    assert "provenance" not in first.result  # stored apart from the Result
    # an upload whose re-runs never report back (a lost task message) gives way to a new one
    stuck = ResultUpload.objects.get()
    again = {"file": _file(_honest(sweep, first), first.id)}
    resp = api.post(f"/api/sweeps/{sweep.pk}/upload-results/", again, format="multipart")
    assert resp.status_code == 400 and "still being checked" in str(resp.json())
    ResultUpload.objects.filter(pk=stuck.pk).update(created=timezone.now() - timedelta(days=1))
    again = {"file": _file(_honest(sweep, first), first.id)}
    resp = api.post(f"/api/sweeps/{sweep.pk}/upload-results/", again, format="multipart")
    assert resp.status_code == 200, resp.content
    stuck.refresh_from_db()
    assert stuck.status == "refused" and "took its place" in stuck.message
    first.refresh_from_db()
    assert first.provenance["upload"] == resp.json()["upload"]["id"] != stuck.pk


def test_a_run_of_another_sweep_and_another_user_are_refused(
    api, alice, bob, media_root, monkeypatch, django_capture_on_commit_callbacks
):
    trace = stored_trace(alice, jobs=60)
    sweep = _slurm_sweep(api, trace, monkeypatch, django_capture_on_commit_callbacks)
    stranger = Experiment.objects.create(owner=alice, kind="trace-stats", params={}, seed=0)
    resp = api.post(
        f"/api/sweeps/{sweep.pk}/upload-results/",
        {"file": _file(_honest(sweep, stranger), stranger.id)},
        format="multipart",
    )
    assert resp.status_code == 400 and "not a run of this sweep" in str(resp.json())
    other = APIClient()
    other.force_authenticate(bob)
    assert other.get(f"/api/sweeps/{sweep.pk}/jobarray/").status_code == 404
    assert api.get(f"/api/sweeps/{sweep.pk}/jobarray/?chunk=0").status_code == 400
    assert api.get(f"/api/sweeps/{sweep.pk}/jobarray/?chunk=x").status_code == 400


def test_chunk_defaults_to_minutes_of_work_and_many_tasks_make_several_arrays(
    alice, media_root, monkeypatch, django_capture_on_commit_callbacks
):
    from gridportal.experiments.sweeps import sweep_create

    trace = stored_trace(alice, jobs=30)
    sweep = sweep_create(
        owner=alice,
        kind="trace-stats",
        params={},
        traces=[trace],
        vary=[
            {"param": "cdf_points", "range": {"start": 10, "stop": 209, "step": 1}},
            {"param": "procs", "values": [64, 128, 256, 512, 1024, 2048]},
        ],
        executor="slurm",
    )
    assert default_chunk(sweep, 1200) == DEFAULT_CHUNK  # the workers never ran this kind here
    data, runs = sweep_jobarray_zip(sweep=sweep)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        scripts = sorted(n for n in zf.namelist() if n.endswith(".sbatch"))
        assert len(scripts) == 1 and "#SBATCH --array=0-59\n" in zf.read(scripts[0]).decode()
    # runs of 8 s on the workers (same kind, same trace): 600 s / (8 + 2) s = 60 per task
    now = timezone.now()
    done = Experiment.objects.create(
        owner=alice, kind="trace-stats", status="succeeded", started_at=now - timedelta(seconds=8),
        finished_at=now,
    )  # fmt: skip
    done.traces.set([trace])
    assert default_chunk(sweep, 1200) == 60
    data, runs = sweep_jobarray_zip(sweep=sweep, chunk=1)
    assert runs == 1200 > MAX_ARRAY_TASKS
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        scripts = sorted(n for n in zf.namelist() if n.endswith(".sbatch"))
        assert len(scripts) == 2
        second = zf.read(scripts[1]).decode()
    assert "#SBATCH --array=0-199\n" in second and "SLURM_ARRAY_TASK_ID + 1000" in second
    assert Path(scripts[0]).name == f"sweep-{sweep.pk}-part1.sbatch"


def test_results_computed_elsewhere_are_never_reused(
    api, alice, media_root, monkeypatch, django_capture_on_commit_callbacks
):
    """A worker sweep with a slurm sweep's parameters: neither the uploaded results nor the
    runs still waiting for their upload are taken; its own runs are computed here."""
    trace = stored_trace(alice, jobs=60)
    sweep = _slurm_sweep(api, trace, monkeypatch, django_capture_on_commit_callbacks)
    uploaded = sweep.runs.order_by("id").first()
    Experiment.objects.filter(pk=uploaded.pk).update(
        status="succeeded", result=_honest(sweep, uploaded), provenance={"computed": "elsewhere"}
    )
    with django_capture_on_commit_callbacks(execute=True):
        resp = api.post(
            "/api/sweeps/",
            {"kind": "trace-stats", "traces": [trace.pk], "seed": 3, "repetitions": 2,
             "vary": [{"param": "cdf_points", "values": [10, 20]}]},
            format="json",
        )  # fmt: skip
    assert resp.status_code == 201, resp.content
    runs = resp.json()["state"]["runs"]
    assert not any(r["reused"] for r in runs)
    assert not {r["id"] for r in runs} & set(sweep.runs.values_list("id", flat=True))


def test_first_difference_names_the_value():
    a = {"summary": {"jobs": 60, "wait": 1.0}, "tables": [{"rows": [[1, 2]]}]}
    assert first_difference(a, json.loads(json.dumps(a))) is None
    assert first_difference(a, {**a, "summary": {"jobs": 60, "wait": 1.0 + 1e-12}}) is None
    why = first_difference({**a, "summary": {"jobs": 61, "wait": 1.0}}, a)
    assert why == "summary.jobs: the upload says 61, re-running it on the workers gave 60"
    b = {**a, "tables": [{"rows": [[1, 3]]}]}
    assert first_difference(b, a).startswith("tables[0].rows[0][1]: the upload says 3")
