"""Redis restarted empty with runs queued: the database says what must run.

Runs are submitted while no worker listens, so their messages wait in Redis; Redis is then
stopped and started again without persistence (its messages are gone) and one more run is
submitted while it is down. The sweeper (``manage.py sweep_runs``) finds the queued runs that
have no task message anywhere and enqueues them again: every run finishes, exactly once.
A duplicate message for a run (published twice) never runs it twice either.
"""

import pytest

from tests.conftest import make_swf_bytes, wait_for

from .conftest import monotonic, record_figure

pytestmark = pytest.mark.integration

RUNS = 10


@pytest.fixture(scope="module")
def small_trace(stack):
    return stack.api.upload_trace("restart.swf", make_swf_bytes(jobs=300, procs=64, seed=11))


def submit(stack, trace_id: int, seed: int) -> dict:
    status, body = stack.api.post(
        "/api/experiments/", {"kind": "trace-stats", "traces": [trace_id], "seed": seed}
    )
    assert status == 201, body
    return body


def test_redis_restarted_empty_every_queued_run_finishes_exactly_once(services, small_trace):
    stack = services
    queued = [submit(stack, small_trace, seed=100 + i)["id"] for i in range(RUNS)]
    # their messages are in Redis: the sweeper leaves them alone (no duplicate)
    counts = stack.sweep()
    assert counts["orphans"] == 0, counts

    stack.redis.stop()
    during = submit(stack, small_trace, seed=200)  # accepted, held: the broker is down
    assert during["message"].startswith("waiting for the task queue"), during
    stack.redis.start()  # empty: no message of any of these runs exists anywhere
    restarted = monotonic()

    counts = stack.sweep()
    assert counts["enqueued"] == 1 and counts["orphans"] == RUNS, counts
    assert stack.sweep()["orphans"] == 0  # enqueued once, not at every pass
    stack.start_worker()
    for run_id in [*queued, during["id"]]:
        final = stack.api.wait_status(run_id, {"succeeded", "failed"}, 120)
        assert final["status"] == "succeeded", final
        assert stack.executions_of(run_id) == {"delivered": 1, "started": 1}, run_id
    record_figure("broker_restart_runs_recovered", RUNS + 1)
    record_figure("broker_restart_seconds_to_all_finished", round(monotonic() - restarted, 1))


def test_a_duplicate_message_never_runs_a_run_twice(services, small_trace):
    stack = services
    run_id = submit(stack, small_trace, seed=300)["id"]
    stack.manage(  # a second message for the same run, as a lost-then-found message would be
        "shell",
        "-c",
        "from gridportal.experiments.services import experiment_enqueue\n"
        f"experiment_enqueue(experiment_id={run_id})",
    )
    stack.start_worker(concurrency=2)
    final = stack.api.wait_status(run_id, {"succeeded", "failed"}, 120)
    assert final["status"] == "succeeded", final
    wait_for(lambda: stack.executions_of(run_id)["delivered"] == 2, 60, 0.2, "both messages")
    assert stack.executions_of(run_id) == {"delivered": 2, "started": 1}
