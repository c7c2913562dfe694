"""A whole worker SIGKILLed is noticed by the sweeper loop as ``scripts/run-portal.sh`` runs
it (every 5 s, GRIDPORTAL_SWEEP_GRACE = 10 s): the run is re-queued within ~15 s and
finishes exactly once more (it stayed "running" 126 s with the old 120 s grace)."""

import subprocess

import pytest

from tests.conftest import ROOT, wait_for

from .conftest import PY, monotonic, record_figure
from .test_worker_kill import ctc_trace, pool_children, submit_long_run, wait_mid_run

pytestmark = pytest.mark.integration
__all__ = ["ctc_trace"]  # the module's fixture, shared


def test_sweeper_loop_requeues_a_dead_workers_run_quickly(services, ctc_trace):
    stack = services
    workers = [stack.start_worker(), stack.start_worker()]
    log = open(stack.root / "sweeper.log", "ab")  # noqa: SIM115
    sweeper = subprocess.Popen(
        [PY, "manage.py", "sweep_runs", "--every", "5"],
        cwd=ROOT,
        env=stack.env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        exp_id = submit_long_run(stack, ctc_trace, seed=7)
        wait_mid_run(stack, exp_id)
        (running_it,) = [w for w in workers if stack.started_pid(exp_id) in pool_children(w.pid)]
        stack.kill_worker(running_it)
        killed = monotonic()
        wait_for(
            lambda: stack.api.experiment(exp_id)["snapshot"].get("worker_losses") == 1,
            timeout=60,
            interval=0.2,
            what="the sweeper to re-queue the dead worker's run",
        )
        detected = monotonic() - killed
        final = stack.api.wait_status(exp_id, {"succeeded", "failed"}, 240, "the re-run")
    finally:
        sweeper.terminate()
        sweeper.wait(20)
        log.close()
    assert final["status"] == "succeeded", final
    assert stack.executions_of(exp_id) == {"delivered": 2, "started": 2}
    record_figure("dead_worker_seconds_to_requeued_by_sweeper_loop", round(detected, 1))
    assert detected < 30, detected
