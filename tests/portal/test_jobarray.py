"""A sweep exported as Slurm job arrays, run here with a local stand-in for sbatch, and its
results uploaded back (issue 22 item 5)."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.jobarray import MAX_ARRAY_TASKS, sweep_jobarray_zip
from gridportal.experiments.models import Experiment, Sweep
from gridportal.experiments.services import experiment_execute
from tests.conftest import ROOT

from .factories import stored_trace

pytestmark = pytest.mark.django_db

# A local stand-in for sbatch: reads "#SBATCH --array=0-N" and runs the script once per task
# with SLURM_ARRAY_TASK_ID set, as Slurm would on the cluster.
FAKE_SBATCH = """#!/bin/sh
set -eu
script="$1"
last=$(sed -n 's/^#SBATCH --array=0-\\([0-9]*\\).*/\\1/p' "$script")
i=0
while [ "$i" -le "$last" ]; do
  SLURM_ARRAY_TASK_ID=$i SLURM_SUBMIT_DIR="$PWD" sh "$script"
  i=$((i + 1))
done
echo "Submitted batch job 1"
"""


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def _slurm_sweep(api, trace, monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr("gridportal.experiments.sweeps._enqueue_group", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        resp = api.post(
            "/api/sweeps/",
            {
                "kind": "trace-stats",
                "traces": [trace.pk],
                "seed": 3,
                "repetitions": 2,
                "executor": "slurm",
                "vary": [{"param": "cdf_points", "values": [10, 20]}],
            },
            format="json",
        )
    assert resp.status_code == 201, resp.content
    assert sent == []  # nothing goes to the workers
    sweep = Sweep.objects.get()
    assert sweep.executor == "slurm" and sweep.runs.count() == 4
    assert set(sweep.runs.values_list("status", flat=True)) == {"queued"}
    assert "Slurm job array" in sweep.runs.first().message
    return sweep


def test_export_run_with_stand_in_sbatch_and_upload_back(
    api, alice, media_root, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    trace = stored_trace(alice, jobs=120)
    sweep = _slurm_sweep(api, trace, monkeypatch, django_capture_on_commit_callbacks)
    resp = api.get(f"/api/sweeps/{sweep.pk}/jobarray/")
    assert resp.status_code == 200 and resp["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(resp.content)) as zf:
        zf.extractall(tmp_path)
        for info in zf.infolist():  # zipfile does not restore the executable bits
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(tmp_path / info.filename, mode)
    folder = tmp_path / f"sweep-{sweep.pk}"
    assert (folder / "tasks.tsv").read_text().count("\n") == 4
    sbatch = tmp_path / "sbatch"
    sbatch.write_text(FAKE_SBATCH)
    sbatch.chmod(sbatch.stat().st_mode | stat.S_IEXEC)
    env = {
        **os.environ,
        "SBATCH": str(sbatch),
        "GRIDPORTAL_SIM": f"{sys.executable} -m scheduler",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        ["sh", "submit-all.sh"], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    results = sorted((folder / "results").glob("*.json"))
    assert len(results) == 4

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for path in results:
            zf.write(path, f"results/{path.name}")
    buf.seek(0)
    buf.name = "results.zip"
    up = api.post(f"/api/sweeps/{sweep.pk}/upload-results/", {"file": buf}, format="multipart")
    assert up.status_code == 200, up.content
    assert up.json()["stored"] == 4 and up.json()["state"]["status"] == "succeeded"

    # The engine is deterministic: a worker computing the same run gives the same result.
    exp = sweep.runs.order_by("id").first()
    twin = Experiment.objects.create(
        owner=alice, kind=exp.kind, params=exp.params, seed=exp.seed, snapshot=exp.snapshot
    )
    twin.traces.set(exp.traces.all())
    experiment_execute(experiment_id=twin.pk)
    twin.refresh_from_db()
    exp.refresh_from_db()
    assert twin.status == "succeeded" and twin.result == exp.result

    # Uploading the same results again changes nothing; a different one is refused.
    same = io.BytesIO(results[0].read_bytes())
    same.name = results[0].name
    again = api.post(f"/api/sweeps/{sweep.pk}/upload-results/", {"file": same}, format="multipart")
    assert again.status_code == 200 and again.json()["unchanged"] == 1


def _result_file(exp, **change) -> io.BytesIO:
    doc = {
        "kind": exp.kind,
        "params": exp.params,
        "seed": exp.seed,
        "summary": {"jobs": 1},
        "summary_labels": {},
        "tables": [],
        "charts": [],
        **change,
    }
    f = io.BytesIO(json.dumps(doc).encode())
    f.name = f"{exp.id}.json"
    return f


@pytest.mark.parametrize(
    "change, message",
    [
        ({"seed": 99}, "kind/seed"),
        ({"params": {"procs": 1}}, "parameters differ"),
        ({"charts": [{"type": "pie"}]}, "no known type"),
        ({"summary": {"x": [1]}}, "not a number"),
    ],
)
def test_wrong_results_are_refused_and_nothing_is_stored(
    api, alice, media_root, monkeypatch, django_capture_on_commit_callbacks, change, message
):
    trace = stored_trace(alice, jobs=60)
    sweep = _slurm_sweep(api, trace, monkeypatch, django_capture_on_commit_callbacks)
    first, second = sweep.runs.order_by("id")[:2]
    resp = api.post(
        f"/api/sweeps/{sweep.pk}/upload-results/",
        {"file": [_result_file(first), _result_file(second, **change)]},
        format="multipart",
    )
    assert resp.status_code == 400 and message in str(resp.json())
    assert not sweep.runs.filter(status="succeeded").exists()  # all or none


def test_a_run_of_another_sweep_and_another_user_are_refused(
    api, alice, bob, media_root, monkeypatch, django_capture_on_commit_callbacks
):
    trace = stored_trace(alice, jobs=60)
    sweep = _slurm_sweep(api, trace, monkeypatch, django_capture_on_commit_callbacks)
    stranger = Experiment.objects.create(owner=alice, kind="trace-stats", params={}, seed=0)
    resp = api.post(
        f"/api/sweeps/{sweep.pk}/upload-results/",
        {"file": _result_file(stranger)},
        format="multipart",
    )
    assert resp.status_code == 400 and "not a run of this sweep" in str(resp.json())
    other = APIClient()
    other.force_authenticate(bob)
    assert other.get(f"/api/sweeps/{sweep.pk}/jobarray/").status_code == 404


def test_more_than_a_thousand_runs_make_several_arrays(
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
    data, tasks = sweep_jobarray_zip(sweep=sweep)
    assert tasks == 1200 > MAX_ARRAY_TASKS
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        scripts = sorted(n for n in zf.namelist() if n.endswith(".sbatch"))
        assert len(scripts) == 2
        second = zf.read(scripts[1]).decode()
    assert "#SBATCH --array=0-199\n" in second and "SLURM_ARRAY_TASK_ID + 1000" in second
    assert Path(scripts[0]).name == f"sweep-{sweep.pk}-part1.sbatch"
