"""Helpers of the run-control tests: a long run, a small run, the engine children of a worker."""

from __future__ import annotations

import os
import subprocess

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.conftest import make_swf_bytes

#: A provisioning run that computes for minutes and reports progress only at its start
#: (one submission of a 5,000-task workflow, 10,000 MOGA generations of 1,000 plans) in
#: under 100 MiB: without the worker's check a cancel reached it only when it ended.
LONG_PARAMS = {
    "procs": "128",
    "submissions": 1,
    "tasks": 5000,
    "generations": 10000,
    "population": 1000,
    "alphas": "0.5",
}
#: About a second of provisioning on an idle machine (600 tasks, 400 generations of 60).
HEAVY_PARAMS = {**LONG_PARAMS, "tasks": 600, "generations": 400, "population": 60}


def upload_trace(api, *, jobs: int = 2000, procs: int = 128, seed: int = 5) -> int:
    content = make_swf_bytes(jobs=jobs, procs=procs, seed=seed)
    resp = api.post(
        "/api/traces/", {"file": SimpleUploadedFile("t.swf", content)}, format="multipart"
    )
    assert resp.status_code == 201, resp.content
    return resp.json()["id"]


def submit(api, kind: str, trace_id: int, params: dict, seed: int = 0) -> dict:
    resp = api.post(
        "/api/experiments/",
        {"kind": kind, "traces": [trace_id], "params": params, "seed": seed},
        format="json",
    )
    assert resp.status_code == 201, resp.content
    return resp.json()


def engine_children(worker_pid: int) -> list[int]:
    """The limited children under a worker: each leads a process group of its own
    (``run_limited`` calls setpgid), unlike the worker's pool processes."""
    out = subprocess.run(
        ["ps", "-e", "-o", "pid=,ppid=,pgid="], capture_output=True, text=True, check=True
    )
    rows = [tuple(map(int, line.split())) for line in out.stdout.splitlines() if line.strip()]
    children: dict[int, list[tuple[int, int]]] = {}
    for pid, ppid, pgid in rows:
        children.setdefault(ppid, []).append((pid, pgid))
    found, todo = [], [worker_pid]
    while todo:
        for pid, pgid in children.get(todo.pop(), ()):
            todo.append(pid)
            if pid == pgid:
                found.append(pid)
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is gone
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0
