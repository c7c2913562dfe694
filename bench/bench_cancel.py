"""Cancel latency: from the cancel request to the run's engine child process gone.

A provisioning run that computes for minutes and reports progress only when it starts (the
kind of run a hostile-user probe found still computing 11.7 minutes after its cancel) runs on
a real Celery worker; once its engine child computes, the run is cancelled through the
service the page and the REST action call, and the time until the child process is gone is
printed (``--repeat`` times). Before cancel killed the engine child, a cancel reached the
worker only at the run's next progress report: here the child goes on past ``--give-up`` seconds.

Needs Redis and PostgreSQL (the real deployment path): it creates its own database
``gridportal_bench_cancel`` (dropped and re-created) and a worker on a private queue.

    .venv/bin/python bench/bench_cancel.py [--repeat 3] [--give-up 120]

Environment: BENCH_PG (default postgres://postgres@127.0.0.1:5432), BENCH_REDIS
(default redis://127.0.0.1:6379/0). Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench._portal import portal_in_process  # noqa: E402

#: minutes of MOGA on one workflow submission, one progress report at its start
LONG_PARAMS = {
    "procs": "128",
    "submissions": 1,
    "tasks": 5000,
    "generations": 10000,
    "population": 1000,
    "alphas": "0.5",
}


def engine_children(worker_pid: int) -> list[int]:
    """Processes under the worker that lead their own process group (run_limited's child)."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,pgid="], capture_output=True, text=True)
    kids: dict[int, list[tuple[int, int]]] = {}
    for line in out.stdout.splitlines():
        pid, ppid, pgid = map(int, line.split())
        kids.setdefault(ppid, []).append((pid, pgid))
    found, todo = [], [worker_pid]
    while todo:
        for pid, pgid in kids.get(todo.pop(), ()):
            todo.append(pid)
            if pid == pgid:
                found.append(pid)
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--give-up", type=float, default=120.0, help="seconds to wait for the child")
    args = ap.parse_args()

    env = portal_in_process("gridportal_bench_cancel", "bench-cancel")
    queue = env["GRIDPORTAL_QUEUE"]
    from django.contrib.auth.models import User
    from django.core.files.base import ContentFile

    from gridportal.celery import app
    from gridportal.experiments.models import Experiment
    from gridportal.experiments.services import experiment_cancel, experiment_create
    from gridportal.inputs.services import trace_create
    from tests.conftest import make_swf_bytes

    user = User.objects.create_user("bench")
    trace = trace_create(
        owner=user,
        name="bench",
        upload=ContentFile(make_swf_bytes(jobs=2000, procs=128, seed=5), name="bench.swf"),
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "gridportal", "worker", "-Q", queue,
         "--concurrency", "1", "--without-mingle", "--without-gossip", "--loglevel", "WARNING",
         "--hostname", f"{queue}@%h"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    latencies: list[float] = []
    try:
        deadline = time.monotonic() + 60
        while not app.control.ping(timeout=1.0):
            if time.monotonic() > deadline:
                raise SystemExit("the worker did not come up")
        print(f"long provisioning run {LONG_PARAMS}; one worker; CPU cores: {os.cpu_count()}")
        for i in range(args.repeat):
            exp = experiment_create(
                owner=user, kind="provisioning", params=LONG_PARAMS, traces=[trace], seed=i
            )
            deadline = time.monotonic() + 120
            while not (children := engine_children(worker.pid)):
                if time.monotonic() > deadline:
                    raise SystemExit("the run did not start")
                time.sleep(0.1)
            pid = children[0]
            time.sleep(2.0)  # computing, past its only progress report
            t0 = time.monotonic()
            experiment_cancel(experiment=Experiment.objects.get(pk=exp.pk))
            while alive(pid) and time.monotonic() - t0 < args.give_up:
                time.sleep(0.02)
            seconds = time.monotonic() - t0
            if alive(pid):
                print(f"run {i + 1}: child still computing {seconds:.0f} s after the cancel")
                os.kill(pid, 9)  # the bench's own clean-up
            else:
                latencies.append(seconds)
                print(f"run {i + 1}: cancel -> engine child gone in {seconds:.2f} s")
    finally:
        worker.terminate()
        worker.wait()
    if latencies:
        print(
            f"cancel latency: median {statistics.median(latencies):.2f} s, "
            f"max {max(latencies):.2f} s over {len(latencies)} runs"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
