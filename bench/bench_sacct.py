"""Slurm accounting conversion speed: rows per second of ``convert_sacct`` on a generated
``sacct --parsable2`` dump (jobs, each with its ``.batch`` and ``.extern`` steps as Slurm
records them; 40 users, 12 accounts, 3 partitions, distinct times), and what that means for a
10⁶-row dump under the upload's time limit (GRIDPORTAL_UPLOAD_TIME_LIMIT, 25 s by default).

The dump is written to a temporary directory and removed afterwards (nothing big is kept).
Each checkout converts it in its own process: CPU seconds (the figure that does not depend on
what else the machine runs) and wall seconds.

    .venv/bin/python bench/bench_sacct.py [--rows 1000000] [--against ../other-checkout]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
COLUMNS = (
    "JobID|User|Group|Account|Partition|QOS|State|Submit|Start|End|Timelimit|NCPUS|AllocCPUS|"
    "ReqCPUS|NNodes|ReqMem|MaxRSS|JobName"
)
STATES = ("COMPLETED",) * 8 + ("FAILED", "TIMEOUT", "CANCELLED by 1000", "OUT_OF_MEMORY")


def _stamp(t: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def write_dump(path: Path, rows: int, seed: int = 1) -> None:
    """``rows`` rows: each job a job row and two step rows (same seed, same file)."""
    rnd = random.Random(seed)
    t = 1_735_689_600  # 2025-01-01
    with open(path, "w") as out:
        out.write(COLUMNS + "\n")
        job, written = 1000, 0
        while written < rows:
            job += 1
            t += rnd.randint(0, 40)
            wait, run = rnd.randint(0, 3600), rnd.randint(1, 86400)
            cpus = rnd.choice((1, 2, 4, 8, 16, 32, 64, 128))
            nodes = max(1, cpus // 32)
            user = rnd.randrange(40)
            sub, start, end = _stamp(t), _stamp(t + wait), _stamp(t + wait + run)
            out.write(
                f"{job}|user{user}|grp{user % 7}|acct{user % 12}|part{user % 3}|normal|"
                f"{rnd.choice(STATES)}|{sub}|{start}|{end}|1-00:00:00|{cpus}|{cpus}|{cpus}|"
                f"{nodes}|{2800 * cpus}Mc||job{job}\n"
            )
            written += 1
            for step in ("batch", "extern"):
                if written >= rows:
                    break
                rss = f"{rnd.randint(1000, 4_000_000)}K"
                out.write(
                    f"{job}.{step}|||acct{user % 12}|part{user % 3}||COMPLETED|{sub}|{start}|"
                    f"{end}||{cpus}|{cpus}|{cpus}|{nodes}||{rss}|{step}\n"
                )
                written += 1


def measure(path: Path) -> dict:
    """(In the checkout's own process) convert the dump; CPU and wall seconds."""
    import time

    from scheduler.traces.sacct import convert_sacct

    wall, cpu = time.perf_counter(), time.process_time()
    with open(path, "rb") as fh:
        _, jobs, report = convert_sacct(fh)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"rows": report.rows, "jobs": len(jobs), "cpu_s": round(cpu, 2),
            "wall_s": round(wall, 2)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--against", type=Path, help="another checkout to measure too (before)")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        sys.path.insert(0, os.getcwd())
        print("RESULT " + json.dumps(measure(args.measure)))
        return
    work = Path(tempfile.mkdtemp(prefix="bench-sacct-"))
    try:
        dump = work / "dump.sacct"
        write_dump(dump, args.rows)
        print(f"dump: {args.rows:,} rows, {dump.stat().st_size / 2**20:.1f} MiB")
        trees = ([("before", args.against)] if args.against else []) + [("after", HERE)]
        for label, tree in trees:
            proc = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--measure", str(dump)],
                cwd=tree, capture_output=True, text=True, check=True,
                env={**os.environ, "PYTHONPATH": str(tree)},
            )  # fmt: skip
            r = json.loads(proc.stdout.split("RESULT ", 1)[1])
            rate = r["rows"] / r["cpu_s"]
            print(f"{label:<7} {r['rows']:>9,} rows -> {r['jobs']:>8,} jobs  CPU {r['cpu_s']:>6} s "
                  f"({rate:>8,.0f} rows/s)  wall {r['wall_s']:>6} s  "
                  f"10^6 rows: {1e6 / rate:5.1f} CPU s")  # fmt: skip
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
