"""A worker SIGKILLed in the middle of a long run: the run is never left "running".

The long run is a whole-trace conservative-backfilling ``cluster-sim`` of CTC-SP2 (77,222
jobs, planned with accurate runtimes: a few seconds here, long enough to die in the middle of
and short enough for the suite). Two ways a worker dies:

* the whole worker (main process and pool child) is killed, as when its machine dies: the
  message stays unacknowledged in Redis until the visibility timeout (hours), so the run
  would stay "running"; the sweeper (``manage.py sweep_runs``) re-queues it and another
  worker finishes it;
* only the pool child is killed (the kernel's out-of-memory killer): Celery rejects the
  message (``task_reject_on_worker_lost``), it is re-delivered at once and the run finishes.

Times to recovery are recorded as figures (no timing assertion: the machine is shared).
"""

import os
import signal
import subprocess

import pytest

from tests.conftest import SHARED_DATA, shared_data_file, wait_for

from .conftest import monotonic, record_figure

pytestmark = pytest.mark.integration

CTC = SHARED_DATA / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"


def ctc_bytes() -> bytes:
    """The whole CTC-SP2 trace, through the shared-data setting (skips or fails by name)."""
    return shared_data_file("traces", CTC.name).read_bytes()


LONG_RUN = {
    "kind": "cluster-sim",
    "params": {
        "fcfs": False,
        "easy": False,
        "conservative": True,
        "accurate": True,
        "requested": False,
    },
}


@pytest.fixture(scope="module")
def ctc_trace(stack):
    return stack.api.upload_trace("ctc.swf.gz", ctc_bytes())


def submit_long_run(stack, trace_id: int, seed: int) -> int:
    status, body = stack.api.post(
        "/api/experiments/", {**LONG_RUN, "traces": [trace_id], "seed": seed}
    )
    assert status == 201, body
    return body["id"]


def wait_mid_run(stack, exp_id: int) -> dict:
    return wait_for(
        lambda: (
            (b := stack.api.experiment(exp_id))["status"] == "running" and b["progress"] > 0 and b
        ),
        timeout=120,
        interval=0.05,
        what="the long run to be well under way",
    )


def pool_children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def test_whole_worker_killed_run_is_requeued_by_the_sweeper(services, ctc_trace):
    stack = services
    workers = [stack.start_worker(), stack.start_worker()]
    exp_id = submit_long_run(stack, ctc_trace, seed=1)
    at_kill = wait_mid_run(stack, exp_id)
    (running_it,) = [w for w in workers if stack.started_pid(exp_id) in pool_children(w.pid)]

    stack.kill_worker(running_it)
    killed = monotonic()
    # Nothing else would ever finish it: the row stays "running".
    assert stack.api.experiment(exp_id)["status"] == "running"

    counts = stack.sweep()
    assert counts["requeued"] == 1, counts
    body = stack.api.experiment(exp_id)
    assert body["snapshot"]["worker_losses"] == 1
    restarted = stack.api.wait_status(exp_id, {"running", "succeeded", "failed"}, 60)
    requeued = monotonic()
    final = stack.api.wait_status(exp_id, {"succeeded", "failed"}, 240, "the re-run to finish")
    done = monotonic()

    assert final["status"] == "succeeded", final
    assert restarted["status"] in ("running", "succeeded")
    _, result = stack.api.get(f"/api/experiments/{exp_id}/result/")
    assert result["summary"]["simulated_jobs"] == 77_222
    runs = stack.executions_of(exp_id)
    assert runs == {"delivered": 2, "started": 2}, runs  # the killed one and the re-run
    record_figure("kill_whole_worker_progress_at_kill", round(at_kill["progress"], 3))
    record_figure("kill_whole_worker_seconds_to_requeued", round(requeued - killed, 1))
    record_figure("kill_whole_worker_seconds_to_finished", round(done - killed, 1))


def test_pool_child_killed_run_is_redelivered_and_finishes(services, ctc_trace):
    stack = services
    worker = stack.start_worker()
    exp_id = submit_long_run(stack, ctc_trace, seed=2)
    wait_mid_run(stack, exp_id)
    (child,) = pool_children(worker.pid)
    os.kill(child, signal.SIGKILL)
    killed = monotonic()

    final = stack.api.wait_status(exp_id, {"succeeded", "failed"}, 240, "the re-delivered run")
    done = monotonic()
    assert final["status"] == "succeeded", final
    assert final["snapshot"]["worker_losses"] == 1
    assert stack.executions_of(exp_id) == {"delivered": 2, "started": 2}
    record_figure("kill_pool_child_seconds_to_finished", round(done - killed, 1))
