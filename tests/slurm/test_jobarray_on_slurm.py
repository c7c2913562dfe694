"""A sweep exported as Slurm job arrays and run on the real single-node Slurm of this folder:
``submit-all.sh`` called from an unrelated folder submits the arrays (``--chdir``, ``logs/``),
slurmd runs each task's copy of the script from its spool, several runs per task; the results
come back as an upload that keeps their provenance and is accepted only after a real Celery
worker has computed every run again and found it identical.

``GRIDPORTAL_SLURM_ARRAY_RUNS`` sets the sweep's size (12 runs by default; bench/jobarray_slurm.py
runs 200 and prints the figures).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from datetime import datetime

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment, Sweep
from tests.conftest import broker_is_redis, database_is_postgres, require, wait_for
from tests.portal.factories import stored_trace
from tests.portal.jobarray_local import unpack
from tests.portal.test_jobarray import _zip_results, engine_env

pytestmark = pytest.mark.integration

RUNS = int(os.environ.get("GRIDPORTAL_SLURM_ARRAY_RUNS", "12"))
CHUNK = max(1, RUNS // 3 if RUNS <= 30 else 20)


def _sweep(api, trace) -> Sweep:
    points = RUNS // 2
    resp = api.post(
        "/api/sweeps/",
        {
            "kind": "trace-stats", "traces": [trace.pk], "seed": 5, "repetitions": 2,
            "executor": "slurm",
            "vary": [{"param": "cdf_points", "values": list(range(10, 10 + points))}],
        },
        format="json",
    )  # fmt: skip
    assert resp.status_code == 201, resp.content
    return Sweep.objects.get(pk=resp.json()["id"])


def test_a_sweep_runs_as_job_arrays_on_real_slurm_and_comes_back_identical(
    slurm_cluster, alice, start_worker, tmp_path, settings
):
    require(broker_is_redis(), "the re-check needs CELERY_BROKER_URL=redis://…")
    require(database_is_postgres(), "the re-check needs DATABASE_URL=postgres://…")
    settings.GRIDPORTAL_UPLOAD_RECHECK_FRACTION = 1.0  # every run computed again
    start_worker()
    api = APIClient()
    api.force_authenticate(alice)
    sweep = _sweep(api, stored_trace(alice, jobs=300))
    runs = sorted(sweep.runs.values_list("id", flat=True))
    assert len(runs) == RUNS

    resp = api.get(f"/api/sweeps/{sweep.pk}/jobarray/?chunk={CHUNK}")
    assert resp.status_code == 200, resp.content
    folder = unpack(resp.content, tmp_path / "site")
    manifest = json.loads((folder / "manifest.json").read_text())
    tasks = -(-RUNS // CHUNK)
    assert (manifest["runs"], manifest["chunk"], manifest["tasks"]) == (RUNS, CHUNK, tasks)

    # submit-all.sh from a folder that is neither the export nor its parent, with the real
    # sbatch; the nodes find the engine as a site would have it installed (PYTHON, PYTHONPATH)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**engine_env(), **slurm_cluster.env, "SBATCH": shutil.which("sbatch")}
    started = time.monotonic()
    done = subprocess.run(
        ["sh", str(folder / "submit-all.sh")], cwd=elsewhere, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    slurm_cluster.wait_idle(timeout=60 + 10 * RUNS)
    wall = time.monotonic() - started

    acct = slurm_cluster.run(
        "sacct", "-a", "-X", "-n", "-P", "--starttime=1970-01-01", "--endtime=now+1days",
        "-o", "JobName,JobID,State,ExitCode",
    ).stdout  # fmt: skip
    ours = [r.split("|") for r in acct.splitlines() if r.startswith(f"gridportal-sweep-{sweep.pk}")]
    assert len(ours) == tasks, acct
    assert {(state, code) for _, _, state, code in ours} == {("COMPLETED", "0:0")}, acct
    logs = sorted((folder / "logs").glob("*.out"))
    assert len(logs) == tasks  # --output into logs/, which existed before sbatch opened it
    results = sorted((folder / "results").glob("*.json"))
    assert sorted(int(p.stem) for p in results) == runs
    slurm_jobs = {json.loads(p.read_text())["provenance"]["slurm_job"] for p in results}
    assert len(slurm_jobs) == tasks  # several runs per array task, each task's id recorded

    up = api.post(
        f"/api/sweeps/{sweep.pk}/upload-results/", {"file": _zip_results(folder)},
        format="multipart",
    )  # fmt: skip
    assert up.status_code == 200, up.content
    assert sorted(up.json()["upload"]["sample"]) == runs  # fraction 1: every run

    def checked():
        uploads = api.get(f"/api/sweeps/{sweep.pk}/").json()["state"]["uploads"]
        return uploads[0] if uploads and uploads[0]["status"] != "checking" else None

    upload = wait_for(checked, timeout=60 + 5 * RUNS, what="the worker's re-runs")
    assert upload["status"] == "accepted", upload
    assert set(upload["checked"].values()) == {"matched"}
    stored = Experiment.objects.filter(pk__in=runs)
    assert {e.status for e in stored} == {"succeeded"}
    assert all(e.computed_elsewhere for e in stored)
    for e in stored:  # the times Slurm ran them, not the upload's
        prov = json.loads((folder / "results" / f"{e.pk}.json").read_text())["provenance"]
        assert e.started_at == datetime.fromisoformat(prov["started_at"])
    print(
        f"\njob array on Slurm: {RUNS} runs, {tasks} array tasks of {CHUNK}, "
        f"{wall:.1f} s from submit-all.sh to accounting, {len(runs)} of {RUNS} re-runs identical"
    )
