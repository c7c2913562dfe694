"""Results uploaded from a job array, re-checked on a real `celery worker`: an honest upload is
accepted and shown as computed elsewhere (and never reused by a later worker sweep); a
falsified number is refused by the re-run, naming the run and the value. The sample is every
run (GRIDPORTAL_UPLOAD_RECHECK_FRACTION = 1), so the tests are deterministic."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime

import pytest
from django.test import Client
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from tests.conftest import broker_is_redis, database_is_postgres, require, wait_for
from tests.portal.factories import stored_trace
from tests.portal.jobarray_local import sbatch, unpack
from tests.portal.test_jobarray import engine_env

pytestmark = pytest.mark.integration


@pytest.fixture
def api(alice, settings):
    require(broker_is_redis(), "job-array integration tests need CELERY_BROKER_URL=redis://…")
    require(database_is_postgres(), "job-array integration tests need DATABASE_URL=postgres://…")
    settings.GRIDPORTAL_UPLOAD_RECHECK_FRACTION = 1.0
    client = APIClient()
    client.force_authenticate(alice)
    return client


def _sweep(api, trace, seed: int, executor: str = "slurm") -> dict:
    resp = api.post(
        "/api/sweeps/",
        {"kind": "trace-stats", "traces": [trace.pk], "seed": seed, "executor": executor,
         "vary": [{"param": "cdf_points", "values": [10, 20]}]},
        format="json",
    )  # fmt: skip
    assert resp.status_code == 201, resp.content
    return resp.json()


def _run_array(api, sweep_id: int, tmp_path, monkeypatch) -> dict[int, dict]:
    """Export, run every task here as Slurm would (from the folder above), read the results."""
    resp = api.get(f"/api/sweeps/{sweep_id}/jobarray/")
    assert resp.status_code == 200
    site = tmp_path / f"site-{sweep_id}"
    folder = unpack(resp.content, site)
    monkeypatch.chdir(site)
    for script in sorted(folder.glob("*.sbatch")):
        assert sbatch([str(script.relative_to(site))], env=engine_env(), spool=tmp_path) == 0
    return {int(p.stem): json.loads(p.read_text()) for p in (folder / "results").glob("*.json")}


def _upload(api, sweep_id: int, results: dict[int, dict]):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for run_id, doc in results.items():
            zf.writestr(f"results/{run_id}.json", json.dumps(doc))
    buf.seek(0)
    buf.name = "results.zip"
    return api.post(f"/api/sweeps/{sweep_id}/upload-results/", {"file": buf}, format="multipart")


def _upload_done(api, sweep_id: int) -> dict:
    def done():
        uploads = api.get(f"/api/sweeps/{sweep_id}/").json()["state"]["uploads"]
        return uploads[0] if uploads and uploads[0]["status"] != "checking" else None

    return wait_for(done, timeout=120, what="the upload's re-runs on the worker")


def test_honest_upload_accepted_marked_and_never_reused(
    api, alice, start_worker, media_root, tmp_path, monkeypatch
):
    start_worker()
    start_worker.wait_ready()
    trace = stored_trace(alice, jobs=120)
    sweep = _sweep(api, trace, seed=3)
    results = _run_array(api, sweep["id"], tmp_path, monkeypatch)
    assert len(results) == 2
    up = _upload(api, sweep["id"], results)
    assert up.status_code == 200, up.content
    assert sorted(up.json()["upload"]["sample"]) == sorted(results)  # fraction 1: every run
    upload = _upload_done(api, sweep["id"])
    assert upload["status"] == "accepted", upload
    assert set(upload["checked"].values()) == {"matched"}

    state = api.get(f"/api/sweeps/{sweep['id']}/").json()["state"]
    assert state["status"] == "succeeded"
    assert all(r["computed_elsewhere"] for r in state["runs"])
    run_id = min(results)
    run = api.get(f"/api/experiments/{run_id}/").json()
    assert run["computed_elsewhere"] is True and run["status"] == "succeeded"
    ran = results[run_id]["provenance"]  # the run's real start and end, not the upload's
    for key in ("started_at", "finished_at"):
        when = datetime.fromisoformat(ran[key])
        assert datetime.fromisoformat(run[key].replace("Z", "+00:00")) == when
        assert datetime.fromisoformat(run["provenance"][key]) == when
    got = api.get(f"/api/experiments/{run_id}/result/")
    assert got["GridPortal-Computed-Elsewhere"].startswith("computed elsewhere: a Slurm job array")
    web = Client()
    web.force_login(alice)
    assert b'id="computed-elsewhere"' in web.get(f"/experiments/{run_id}/").content
    assert b"computed elsewhere" in web.get(f"/sweeps/{sweep['id']}/").content
    bundle = api.get(f"/api/experiments/{run_id}/bundle/")
    with zipfile.ZipFile(io.BytesIO(bundle.content)) as zf:
        assert json.loads(zf.read("run.json"))["computed_elsewhere"] is True
    aggregate = api.get(f"/api/sweeps/{sweep['id']}/result/").json()
    assert aggregate["summary"]["computed_elsewhere_runs"] == 2

    # a later worker sweep with the same parameters computes its own runs
    later = _sweep(api, trace, seed=3, executor="workers")
    assert not any(r["reused"] for r in later["state"]["runs"])
    later_ids = {r["id"] for r in later["state"]["runs"]}
    assert not later_ids & set(results)

    def finished():
        state = api.get(f"/api/sweeps/{later['id']}/").json()["state"]
        return state if state["status"] not in ("queued", "running") else None

    assert wait_for(finished, timeout=120, what="the worker sweep")["status"] == "succeeded"
    for exp in Experiment.objects.filter(pk__in=later_ids):
        assert exp.provenance is None  # computed here
        twin = Experiment.objects.get(pk__in=results, fingerprint=exp.fingerprint)
        assert exp.result == twin.result  # honest: the same numbers


def test_a_falsified_number_is_refused_by_the_re_run(
    api, alice, start_worker, media_root, tmp_path, monkeypatch
):
    start_worker()
    start_worker.wait_ready()
    trace = stored_trace(alice, jobs=120)
    sweep = _sweep(api, trace, seed=11)
    results = _run_array(api, sweep["id"], tmp_path, monkeypatch)
    victim = max(results)
    summary = results[victim]["summary"]
    metric = next(k for k, v in sorted(summary.items()) if isinstance(v, int | float) and v)
    honest = summary[metric]
    summary[metric] = honest * 3 + 1  # the provenance stays as the runner wrote it
    up = _upload(api, sweep["id"], results)
    assert up.status_code == 200, up.content  # shape and provenance are fine
    upload = _upload_done(api, sweep["id"])
    assert upload["status"] == "refused", upload
    assert f"run {victim}: summary.{metric}: the upload says" in upload["message"]
    assert f"re-running it on the workers gave {json.dumps(honest)}" in upload["message"]
    state = api.get(f"/api/sweeps/{sweep['id']}/").json()["state"]
    assert state["status"] == "failed" and state["counts"]["failed"] == 2  # all or none
    bad = Experiment.objects.get(pk=victim)
    assert bad.result is None and bad.provenance is None
    assert f"run {victim}: summary.{metric}" in bad.error
    # the runs can be exported and uploaded again
    assert api.get(f"/api/sweeps/{sweep['id']}/jobarray/").status_code == 200
