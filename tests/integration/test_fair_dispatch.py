"""Fair sharing of the workers: one user's many heavy runs never hold every slot.

User A submits a sweep of 32 heavy runs (a second or more each), then user B one small run, on one
real Celery worker with two slots. With fair dispatch A's runs past their in-flight limit
wait in the database, so B's run is published at once and starts as soon as a slot frees:
it finishes long before A's sweep. Without it (everything published at submit, as the portal
once did: ``GRIDPORTAL_TEST_FAIR_LIMIT=0`` runs this test so) B's run waits behind all of
A's and the test fails.
"""

import os
import time

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from gridportal.quotas.models import UserQuota
from tests.conftest import broker_is_redis, database_is_postgres, require, wait_for

from .run_control import HEAVY_PARAMS, upload_trace

pytestmark = pytest.mark.integration
A_RUNS = 32
#: A's in-flight limit (their UserQuota, seen by the test process and the worker alike); 0
#: (no limit) is how the portal dispatched before fair dispatch.
LIMIT = int(os.environ.get("GRIDPORTAL_TEST_FAIR_LIMIT", "2"))


def client_of(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_small_run_of_b_is_not_behind_as_many_heavy_runs(alice, bob, start_worker):
    require(broker_is_redis(), "needs CELERY_BROKER_URL=redis://… (Redis)")
    require(database_is_postgres(), "needs DATABASE_URL=postgres://… (PostgreSQL)")
    for user in (alice, bob):
        UserQuota.objects.create(user=user, max_running=LIMIT)
    start_worker(concurrency=2)
    start_worker.wait_ready()
    a, b = client_of(alice), client_of(bob)
    a_trace, b_trace = upload_trace(a), upload_trace(b, jobs=300, procs=64)

    t_a = time.monotonic()
    resp = a.post(
        "/api/sweeps/",
        {
            "kind": "provisioning",
            "traces": [a_trace],
            "params": HEAVY_PARAMS,
            "vary": [{"param": "report_alpha", "values": [0.5]}],
            "repetitions": A_RUNS,
        },
        format="json",
    )
    assert resp.status_code == 201, resp.content
    sweep_id = resp.json()["id"]
    if LIMIT:  # the runs past A's limit are held in the database, saying why and where
        held = a.get("/api/experiments/?status=queued&page_size=100").json()["results"]
        places = sorted(r["queue_place"] for r in held if r["queue_place"])
        assert places == list(range(1, A_RUNS - LIMIT + 1)), places
        assert all(r["message"].startswith("held: you have") for r in held if r["queue_place"])
        quota = a.get("/api/quota/").json()
        assert quota["runs_in_flight"] == LIMIT and quota["runs_held"] == A_RUNS - LIMIT
    wait_for(
        lambda: Experiment.objects.filter(owner=alice, status="running").exists(),
        timeout=60,
        what="A's first run to start",
    )

    t_b = time.monotonic()
    resp = b.post(
        "/api/experiments/",
        {"kind": "trace-stats", "traces": [b_trace], "params": {"procs": 64}},
        format="json",
    )
    assert resp.status_code == 201, resp.content
    b_id = resp.json()["id"]
    wait_for(lambda: Experiment.objects.get(pk=b_id).is_finished, timeout=600, what="B's small run")
    b_wait = time.monotonic() - t_b
    a_done_then = Experiment.objects.filter(owner=alice, status="succeeded").count()
    assert Experiment.objects.get(pk=b_id).status == "succeeded"

    def a_finished():
        state = a.get(f"/api/sweeps/{sweep_id}/").json()["state"]
        return state if state["status"] not in ("queued", "running") else None

    state = wait_for(a_finished, timeout=900, interval=1.0, what="A's sweep")
    a_total = time.monotonic() - t_a
    assert state["counts"]["succeeded"] == A_RUNS, state["counts"]
    print(
        f"fair dispatch (limit {LIMIT or 'none'}): B's small run took {b_wait:.1f} s "
        f"(A had {a_done_then} of {A_RUNS} done); A's {A_RUNS} runs took {a_total:.1f} s"
    )
    assert a_done_then <= A_RUNS // 4, (a_done_then, b_wait, a_total)
    assert b_wait < a_total / 4, (b_wait, a_total)
    # every run of A ran once, and never more than its limit at a time (the claim, the lock)
    assert Experiment.objects.filter(owner=alice, status="succeeded").count() == A_RUNS
