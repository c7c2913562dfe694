"""Independent passes in worker processes (scheduler/experiments/passes.py; `--jobs N`): the
same results in the same order as in one process, errors raised, bad counts refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from scheduler.experiments import passes, run_experiment
from scheduler.traces.lublin import generate_lublin99

ROOT = Path(__file__).resolve().parents[2]


def _square_pid(item, progress=None):  # type: ignore[no-untyped-def]
    if item < 0:
        raise ValueError(f"negative item {item}")
    return item * item, os.getpid()


@pytest.fixture
def two_workers():
    passes.set_workers(2)
    yield
    passes.set_workers(1)


def test_one_process_by_default_calls_progress_and_done():
    seen, ended = [], []
    out = passes.map_passes(
        _square_pid, [3, 1, 2],
        progress=lambda i, item: seen.append((i, item)),
        done=lambda k, n, item: ended.append((k, n, item)),
    )  # fmt: skip
    assert [v for v, _ in out] == [9, 1, 4]
    assert {pid for _, pid in out} == {os.getpid()}
    assert seen == [(0, 3), (1, 1), (2, 2)]
    assert ended == [(1, 3, 3), (2, 3, 1), (3, 3, 2)]


def test_workers_keep_the_items_order_whatever_order_they_run_in(two_workers):
    items = list(range(12))
    ended = []
    out = passes.map_passes(
        _square_pid, items, first=lambda item: -item,  # hand the last items out first
        done=lambda k, n, item: ended.append(k),
    )  # fmt: skip
    assert [v for v, _ in out] == [i * i for i in items]
    assert os.getpid() not in {pid for _, pid in out}  # ran in the worker processes
    assert ended == list(range(1, 13))


def test_a_pass_error_is_raised_in_the_caller(two_workers):
    with pytest.raises(ValueError, match="negative item -5"):
        passes.map_passes(_square_pid, [1, 2, -5, 4])


@pytest.mark.parametrize("bad", [0, -1, 65, 2.0, True, "3"])
def test_bad_worker_counts_are_refused(bad):
    with pytest.raises(ValueError, match="--jobs must be a whole number from 1 to 64"):
        passes.set_workers(bad)
    assert passes.workers() == 1


def test_pricing_in_worker_processes_equals_one_process(two_workers):
    trace = generate_lublin99(jobs=900, procs=64, seed=8)
    params = {"procs": 64, "estimates": "accurate", "alphas": "0,0.3,0.6,1",
              "random_alpha": True, "fraction": 0.2}  # fmt: skip
    messages: list[str] = []
    parallel = run_experiment(
        "pricing", params, {"traces": [trace]}, seed=2,
        progress=lambda f, msg: messages.append(msg),
    )  # fmt: skip
    passes.set_workers(1)
    serial = run_experiment("pricing", params, {"traces": [trace]}, seed=2)
    assert parallel == serial
    assert parallel["summary"]["price_su_a0"] > parallel["summary"]["price_su_a100"] == 0
    assert sum("passes)" in m for m in messages) == 6  # 4 α + random + baseline


def test_cli_refuses_a_bad_jobs_count():
    proc = subprocess.run(
        [sys.executable, "-m", "scheduler", "reproduce", "--out", "/dev/null", "--jobs", "0"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--jobs: give a whole number from 1 to 64" in proc.stderr


def test_with_other_threads_running_the_workers_are_not_forked_from_them(two_workers):
    """A child forked from a process with other threads can inherit a lock one of them held
    and wait forever (seen under pytest-xdist beside a live server): then the children come
    from a forkserver, with the same results."""
    import threading

    held = threading.Lock()
    held.acquire()  # a thread that holds a lock at the moment of the fork, and keeps it
    thread = threading.Thread(target=lambda: held.acquire(timeout=30), daemon=True)
    thread.start()
    try:
        assert passes._start_method() == "forkserver"
        out = passes.map_passes(_square_pid, [3, 1, 2])
        assert [v for v, _ in out] == [9, 1, 4] and os.getpid() not in {p for _, p in out}
    finally:
        held.release()
        thread.join()
    assert passes._start_method() in ("fork", "forkserver")  # other runner threads may remain
