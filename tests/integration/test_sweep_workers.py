"""Sweeps on the real path: API → Redis → two `celery worker` processes → PostgreSQL."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from scheduler.experiments import run_experiment
from scheduler.io import load_trace
from tests.conftest import (
    broker_is_redis,
    database_is_postgres,
    make_swf_bytes,
    require,
    wait_for,
    worker_log,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def api(alice):
    require(broker_is_redis(), "sweep integration tests need CELERY_BROKER_URL=redis://…")
    require(database_is_postgres(), "sweep integration tests need DATABASE_URL=postgres://…")
    client = APIClient()
    client.force_authenticate(alice)
    return client


def upload(api, jobs, seed=5):
    content = make_swf_bytes(jobs=jobs, procs=128, seed=seed)
    resp = api.post(
        "/api/traces/", {"file": SimpleUploadedFile("t.swf", content)}, format="multipart"
    )
    assert resp.status_code == 201, resp.content
    return resp.json()["id"], content


def test_sweep_on_two_workers_reaches_the_right_aggregate(api, start_worker, tmp_path):
    start_worker()
    start_worker()
    start_worker.wait_ready()
    trace_id, content = upload(api, jobs=600)
    procs_values = [32, 64, 128, 256]
    resp = api.post(
        "/api/sweeps/",
        {
            "kind": "trace-stats",
            "traces": [trace_id],
            "repetitions": 2,
            "seed": 3,
            "vary": [{"param": "procs", "values": procs_values}],
        },
        format="json",
    )
    assert resp.status_code == 201, resp.content
    sweep_id = resp.json()["id"]

    def finished():
        state = api.get(f"/api/sweeps/{sweep_id}/").json()["state"]
        return state if state["status"] not in ("queued", "running") else None

    state = wait_for(finished, timeout=180, what="the sweep to finish")
    assert state["status"] == "succeeded" and state["counts"]["succeeded"] == 8

    (tmp_path / "t.swf").write_bytes(content)
    trace = load_trace(tmp_path / "t.swf")
    rows = api.get(f"/api/sweeps/{sweep_id}/result/").json()["tables"][0]
    col = rows["columns"].index("offered_load mean")
    for procs, row in zip(procs_values, rows["rows"], strict=True):
        expected = run_experiment("trace-stats", {"procs": procs}, {"traces": [trace]})
        assert row[0] == procs and row[1] == 2
        assert row[col] == pytest.approx(expected["summary"]["offered_load"])
        assert row[col + 1] == 0 and row[col + 2] == 2
    # both worker processes took part
    assert all("succeeded" in worker_log(i, tmp_path) for i in (0, 1))


def test_cancel_a_running_sweep(api, start_worker):
    start_worker()
    trace_id, _ = upload(api, jobs=20_000, seed=8)
    resp = api.post(
        "/api/sweeps/",
        {
            "kind": "trace-stats",
            "traces": [trace_id],
            "vary": [{"param": "cdf_points", "range": {"start": 10, "stop": 400, "step": 10}}],
        },
        format="json",
    )
    sweep_id = resp.json()["id"]
    wait_for(
        lambda: api.get(f"/api/sweeps/{sweep_id}/").json()["state"]["counts"]["succeeded"],
        timeout=120,
        interval=0.1,
        what="a first finished run",
    )
    state = api.post(f"/api/sweeps/{sweep_id}/cancel/").json()["state"]
    assert state["counts"]["cancelled"] > 0 and state["counts"]["queued"] == 0

    def settled():
        s = api.get(f"/api/sweeps/{sweep_id}/").json()["state"]
        return s if s["counts"]["running"] == 0 else None

    final = wait_for(settled, timeout=60, what="the running run to stop")
    assert final["status"] == "partial"
    assert final["counts"]["succeeded"] + final["counts"]["cancelled"] == 40
    done_ids = {r["id"] for r in final["runs"] if r["status"] == "succeeded"}
    assert Experiment.objects.filter(id__in=done_ids, result__isnull=False).count() == len(done_ids)
    # cancelled runs never get a result, even if a worker had already taken them
    assert not Experiment.objects.filter(status="cancelled", result__isnull=False).exists()
