"""Scale-out: one sweep with 1 and then 2 Celery workers.

Needs Redis and PostgreSQL (the real deployment path): it creates its own database
``gridportal_bench`` (dropped and re-created), starts worker processes on a private queue, submits
the sweep through the service the API uses, and prints throughput (runs per minute) and speed-up.

    .venv/bin/python bench/bench_scaleout.py [--runs 40] [--jobs 40000] [--workers 1 2]
    .venv/bin/python bench/bench_scaleout.py --kind provisioning [--trace CTC-SP2.swf.gz]

``trace-stats`` (default): 40 runs on a generated trace, varying the CDF resolution.
``provisioning``: the thesis Figure 13 experiment on CTC-SP2 (430 processors, 50 submissions),
split into one run per α (0, 0.2, …, 1) so that the workers share it.

Environment: BENCH_PG (default postgres://postgres@127.0.0.1:5432), BENCH_REDIS
(default redis://127.0.0.1:6379/0). Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench._portal import portal_in_process  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=40_000, help="jobs in the generated trace")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--kind", choices=["trace-stats", "provisioning"], default="trace-stats")
    ap.add_argument(
        "--trace",
        default=str(ROOT.parent / "shared/data/traces/CTC-SP2-1996-3.1-cln.swf.gz"),
        help="the trace of the provisioning experiment",
    )
    args = ap.parse_args()

    env = portal_in_process("gridportal_bench", "bench")
    queue = env["GRIDPORTAL_QUEUE"]
    from django.contrib.auth.models import User
    from django.core.files.base import ContentFile

    from gridportal.experiments.models import Experiment
    from gridportal.experiments.sweeps import sweep_create, sweep_status
    from gridportal.inputs.services import trace_create
    from scheduler.traces.lublin import generate_lublin99
    from scheduler.traces.swf import write_swf

    user = User.objects.create_user("bench")
    if args.kind == "provisioning":
        from django.core.files import File

        from scheduler.experiments import get_kind

        with open(args.trace, "rb") as fh:
            trace = trace_create(
                owner=user, name="CTC-SP2", upload=File(fh, name=Path(args.trace).name)
            )
        params = dict(get_kind("provisioning").preset("thesis-fig13-ctc").params)
        params["report_alpha"] = 0.0
        alphas = ["0", "0.2", "0.4", "0.6", "0.8", "1"]
        vary = [{"param": "alphas", "values": alphas}]
        args.runs = len(alphas)
    else:
        text = io.StringIO()
        write_swf(generate_lublin99(jobs=args.jobs, procs=128, seed=1), text)
        trace = trace_create(
            owner=user, name="bench", upload=ContentFile(text.getvalue().encode(), name="bench.swf")
        )
        params = {}
        vary = [{"param": "cdf_points", "range": {"start": 10, "stop": 10 * args.runs, "step": 10}}]
    print(
        f"trace: {trace.job_count} jobs; sweep: {args.runs} runs of {args.kind}; "
        f"CPU cores: {os.cpu_count()}"
    )
    print(f"{'workers':>7} {'seconds':>8} {'runs/min':>9} {'speed-up':>8}")

    base_rate = None
    for round_no, n in enumerate(args.workers):
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "gridportal",
                    "worker",
                    "-Q",
                    queue,
                    "--concurrency",
                    "1",
                    "--without-mingle",
                    "--without-gossip",
                    "--loglevel",
                    "WARNING",
                    "--hostname",
                    f"{queue}-{round_no}-{i}@%h",
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for i in range(n)
        ]
        try:
            from gridportal.celery import app

            deadline = time.monotonic() + 60
            while len(app.control.ping(timeout=1.0) or []) < n:
                if time.monotonic() > deadline:
                    raise SystemExit("workers did not come up")
            start = time.monotonic()
            sweep = sweep_create(
                owner=user,
                kind=args.kind,
                params=params,
                traces=[trace],
                seed=1000 * round_no,  # fresh runs each round: nothing is re-used
                vary=vary,
            )
            while sweep_status(sweep)["status"] in ("queued", "running"):
                time.sleep(0.2)
            seconds = time.monotonic() - start
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait()
        failed = sweep.runs.exclude(status=Experiment.Status.SUCCEEDED).count()
        rate = args.runs / seconds * 60
        base_rate = base_rate or rate
        note = f"  ({failed} runs did not succeed)" if failed else ""
        print(f"{n:>7} {seconds:>8.2f} {rate:>9.1f} {rate / base_rate:>8.2f}{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
