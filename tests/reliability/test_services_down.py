"""Broker down at submit, PostgreSQL restarted under a running worker, and a 200-run burst."""

import concurrent.futures

import pytest

from tests.conftest import make_swf_bytes, wait_for

from .conftest import monotonic, record_figure
from .test_worker_kill import LONG_RUN, ctc_bytes

pytestmark = pytest.mark.integration

NOT_ENQUEUED = "waiting for the task queue"  # gridportal.experiments.services.NOT_ENQUEUED


@pytest.fixture(scope="module")
def small_trace(stack):
    return stack.api.upload_trace("small.swf", make_swf_bytes(jobs=300, procs=64, seed=4))


def test_broker_down_at_submit_holds_the_run_and_the_sweeper_queues_it(services, small_trace):
    stack = services
    stack.start_worker()
    stack.redis.stop()
    t0 = monotonic()
    status, body = stack.api.post(
        "/api/experiments/", {"kind": "trace-stats", "traces": [small_trace], "seed": 9}
    )
    submit_s = monotonic() - t0
    # Not a server error: the run is recorded and the answer says why it does not start.
    assert status == 201, body
    assert body["status"] == "queued" and body["message"].startswith(NOT_ENQUEUED), body
    assert "broker is unreachable" in body["message"]
    exp_id = body["id"]
    status, sweep = stack.api.post(
        "/api/sweeps/",
        {
            "kind": "trace-stats",
            "traces": [small_trace],
            "vary": [{"param": "procs", "values": [32, 64, 128]}],
        },
    )
    assert status == 201, sweep
    sweep_ids = [r["id"] for r in sweep["state"]["runs"]]
    for run_id in [exp_id, *sweep_ids]:
        assert stack.api.experiment(run_id)["message"].startswith(NOT_ENQUEUED)
    # The sweeper cannot enqueue them yet and says so; nothing is lost or failed.
    assert stack.sweep()["held"] == 1
    assert stack.api.experiment(exp_id)["status"] == "queued"

    stack.redis.start()  # an empty Redis: no task of these runs exists anywhere
    counts = stack.sweep()
    assert counts["enqueued"] == 4, counts
    for run_id in [exp_id, *sweep_ids]:
        final = stack.api.wait_status(run_id, {"succeeded", "failed"}, 90)
        assert final["status"] == "succeeded", final
        assert stack.executions_of(run_id) == {"delivered": 1, "started": 1}
    record_figure("broker_down_submit_seconds", round(submit_s, 2))
    record_figure(
        "broker_down_behaviour",
        "201, run kept queued with the message 'waiting for the task queue: the broker is "
        "unreachable…'; sweep_runs enqueues it when the broker is back; it then succeeds",
    )


def test_postgres_restart_while_a_worker_runs(services):
    stack = services
    trace_id = stack.api.upload_trace("ctc.swf.gz", ctc_bytes())
    stack.start_worker()
    status, body = stack.api.post("/api/experiments/", {**LONG_RUN, "traces": [trace_id]})
    assert status == 201, body
    exp_id = body["id"]
    stack.api.wait_status(exp_id, {"running"}, 60)
    stack.pg.restart()  # terminates every connection, the worker's included
    restarted = monotonic()
    final = stack.api.wait_status(exp_id, {"succeeded", "failed"}, 180, "the run to settle")
    settled = monotonic()
    if final["status"] == "failed":
        assert final["error"], final  # failing is acceptable only with a reason
    record_figure("postgres_restart_outcome", final["status"])
    record_figure("postgres_restart_seconds_to_settled", round(settled - restarted, 1))
    assert final["status"] == "succeeded", final


def test_burst_of_200_runs_on_two_workers(services):
    stack = services
    # A trace of its own, so that the burst's runs are exactly the runs that read it.
    trace_id = stack.api.upload_trace("burst.swf", make_swf_bytes(jobs=200, procs=32, seed=6))
    stack.start_worker()
    stack.start_worker()

    def submit(seed: int) -> int:
        status, body = stack.api.post(
            "/api/experiments/", {"kind": "trace-stats", "traces": [trace_id], "seed": seed}
        )
        assert status == 201, body
        return body["id"]

    t0 = monotonic()
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        ids = list(pool.map(submit, range(200)))
    assert len(set(ids)) == 200
    record_figure("burst_200_submit_seconds", round(monotonic() - t0, 1))

    def count(status: str) -> int:
        return stack.api.get(f"/api/experiments/?trace={trace_id}&status={status}")[1]["count"]

    try:
        wait_for(lambda: count("succeeded") + count("failed") == 200, 240, 1.0, "the burst")
    except AssertionError:
        pass  # counted below: what did not finish is lost
    statuses = {i: stack.api.experiment(i)["status"] for i in ids}
    runs = {i: stack.executions_of(i) for i in ids}
    finished = sum(s == "succeeded" for s in statuses.values())
    lost = sum(s in ("queued", "running") for s in statuses.values())
    duplicated = sum(r["started"] > 1 or r["delivered"] > 1 for r in runs.values())
    record_figure("burst_200", {"finished": finished, "lost": lost, "duplicated": duplicated})
    record_figure("burst_200_seconds", round(monotonic() - t0, 1))
    assert (finished, lost, duplicated) == (200, 0, 0), statuses
    assert all(r == {"delivered": 1, "started": 1} for r in runs.values()), runs
    # both workers took part
    assert len({stack.started_pid(i) for i in ids}) == 2
