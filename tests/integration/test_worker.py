"""The real path: API → Redis broker → a `celery worker` process → PostgreSQL → API."""

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from scheduler.experiments import run_experiment
from scheduler.io import load_trace
from scheduler.labels import labelled
from tests.conftest import broker_is_redis, database_is_postgres, make_swf_bytes, require, wait_for

pytestmark = pytest.mark.integration


@pytest.fixture
def services_present():
    require(broker_is_redis(), "integration test needs CELERY_BROKER_URL=redis://… (Redis)")
    require(database_is_postgres(), "integration test needs DATABASE_URL=postgres://… (PostgreSQL)")


def test_trace_stats_runs_on_a_real_worker(services_present, celery_worker, alice, tmp_path):
    api = APIClient()
    api.force_authenticate(alice)
    content = make_swf_bytes(jobs=800, procs=96, seed=11)
    resp = api.post(
        "/api/traces/",
        {"name": "gen", "file": SimpleUploadedFile("gen.swf", content)},
        format="multipart",
    )
    assert resp.status_code == 201, resp.content
    trace_id = resp.json()["id"]

    resp = api.post(
        "/api/experiments/",
        {"kind": "trace-stats", "traces": [trace_id], "params": {"procs": 100}, "seed": 5},
        format="json",
    )
    assert resp.status_code == 201, resp.content
    exp_id = resp.json()["id"]

    def finished():
        body = api.get(f"/api/experiments/{exp_id}/").json()
        return body if body["status"] in ("succeeded", "failed", "cancelled") else None

    body = wait_for(finished, timeout=90, what="the worker to finish the run")
    assert body["status"] == "succeeded", body
    assert body["progress"] == 1.0 and body["started_at"] and body["finished_at"]

    result = api.get(f"/api/experiments/{exp_id}/result/").json()
    (tmp_path / "t.swf").write_bytes(content)
    expected = run_experiment(
        "trace-stats", {"procs": 100}, {"traces": [load_trace(tmp_path / "t.swf")]}, seed=5
    )
    # the API adds a label and unit to every metric, and says what it could not show (nothing)
    assert result.pop("unshown") == []
    assert result == labelled(expected)
    assert result["summary"]["jobs"] == 800 and result["summary"]["machine_procs"] == 100

    rows = list(
        csv.reader(io.StringIO(api.get(f"/api/experiments/{exp_id}/result/csv/").content.decode()))
    )
    assert ["jobs", "800", "job lines"] in rows


def test_worker_marks_a_broken_run_failed(services_present, celery_worker, alice, media_root):
    from tests.portal.factories import stored_trace

    api = APIClient()
    api.force_authenticate(alice)
    trace = stored_trace(alice)
    trace.file.storage.delete(trace.file.name)
    resp = api.post(
        "/api/experiments/", {"kind": "trace-stats", "traces": [trace.pk]}, format="json"
    )
    exp_id = resp.json()["id"]
    body = wait_for(
        lambda: (
            (b := api.get(f"/api/experiments/{exp_id}/").json())["status"]
            in ("succeeded", "failed")
            and b
        ),
        timeout=90,
        what="the run to fail",
    )
    assert body["status"] == "failed" and "No such file" in body["error"]


def test_slurm_whatif_runs_on_a_real_worker(services_present, celery_worker, alice, tmp_path):
    """A Slurm site uploaded over REST, its what-if (a share and a weight changed) run by a
    real worker: the result equals the engine's own, and the unchanged replay follows the
    recording (the model's own schedule of the site) to the second."""
    from scheduler.engine import load_slurm_site
    from tests.slurm.sites import ASSOC, QOS, SLURM_CONF, recorded_dump

    dump = recorded_dump(60, seed=7)
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/slurm-sites/",
        {"name": "site", **{f: SimpleUploadedFile(n, t.encode()) for f, n, t in (
            ("dump", "sacct.txt", dump), ("slurm_conf", "slurm.conf", SLURM_CONF),
            ("assoc", "assoc.txt", ASSOC), ("qos", "qos.txt", QOS))}},
        format="multipart",
    )  # fmt: skip
    assert resp.status_code == 201, resp.content
    params = {"overrides": "PriorityWeightQOS=0 Fairshare:biology=70", "share_bins": 24}
    resp = api.post(
        "/api/experiments/",
        {"kind": "slurm-whatif", "slurm_sites": [resp.json()["id"]], "params": params},
        format="json",
    )
    assert resp.status_code == 201, resp.content
    exp_id = resp.json()["id"]
    body = wait_for(
        lambda: (b := api.get(f"/api/experiments/{exp_id}/").json())["status"]
        in ("succeeded", "failed", "cancelled") and b,
        timeout=90, what="the worker to finish the what-if",
    )  # fmt: skip
    assert body["status"] == "succeeded", body
    result = api.get(f"/api/experiments/{exp_id}/result/").json()
    site = load_slurm_site(dump, SLURM_CONF, ASSOC, QOS)
    expected = run_experiment("slurm-whatif", params, {"site": [site]}, seed=0)
    assert result.pop("unshown") == []
    assert result == labelled(expected)
    s = result["summary"]
    assert s["start_error_median"] == 0 and s["rank_correlation"] == 1.0
    assert s["wait_mean_changed"] != s["wait_mean_unchanged"]
