"""Benchmark: the whole ``simulate`` command of this tree against another checkout, same run.

    .venv/bin/python bench/simulate_against.py OTHER_TREE [--repeat N] [--trace FILE]
                                               [--procs N] [--policies fcfs,easy,...]
                                               [--limit K]

For each policy, ``python -m scheduler simulate TRACE --procs N --policy P --estimates
requested --out schedule.csv`` (``--limit K``: the first K jobs only, for the slow
policies, so that more repetitions fit) runs in each tree (each with its own ``.venv`` and compiled
build), alternating trees every repetition; the least CPU time (user + system of the child,
from ``os.wait4``) of ``--repeat`` runs is kept.  Prints both CPU times and their ratio
(this tree / other), and whether the two schedules are identical job by job (the CSV files
compared byte for byte).  Reports figures only; never asserts timing.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRACE = ROOT.parent / "shared" / "data" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"


def run(tree: Path, trace: str, procs: int, policy: str, out: Path, limit: int | None) -> float:
    cmd = [
        str(tree / ".venv" / "bin" / "python"), "-m", "scheduler", "simulate", trace,
        "--procs", str(procs), "--policy", policy, "--estimates", "requested", "--out", str(out),
    ] + ([] if limit is None else ["--limit", str(limit)])  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{tree}: {' '.join(cmd)} failed: {proc.stderr.read().decode()[-500:]}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("other", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trace", default=str(DEFAULT_TRACE))
    ap.add_argument("--procs", type=int, default=430)
    ap.add_argument("--policies", default="fcfs,easy,conservative,backfill-k=4")
    ap.add_argument("--limit", type=int, default=None, help="the first K jobs only")
    args = ap.parse_args()
    jobs = "" if args.limit is None else f", first {args.limit} jobs"
    print(f"simulate, {Path(args.trace).name}{jobs} at {args.procs}, requested estimates, "
          f"least CPU of {args.repeat}: this tree ({ROOT}) / other ({args.other})")  # fmt: skip
    print(f"{'policy':<16}{'this (s)':>10}{'other (s)':>11}{'ratio':>8}  schedules")
    with tempfile.TemporaryDirectory() as tmp:
        for policy in args.policies.split(","):
            mine, theirs = [], []
            a, b = Path(tmp, "a.csv"), Path(tmp, "b.csv")
            for _ in range(args.repeat):
                mine.append(run(ROOT, args.trace, args.procs, policy, a, args.limit))
                theirs.append(
                    run(args.other.resolve(), args.trace, args.procs, policy, b, args.limit)
                )
            same = "identical" if filecmp.cmp(a, b, shallow=False) else "DIFFER"
            m, t = min(mine), min(theirs)
            print(f"{policy:<16}{m:>10.2f}{t:>11.2f}{m / t:>8.3f}  {same}")


if __name__ == "__main__":
    main()
