"""Benchmark: queue-wait prediction calibration and the ``virtual-reservations`` kind over whole
archive traces (thesis ch. 6).

    .venv/bin/python bench/bench_reservations.py [--traces ctc,sdsc] [--policy conservative]
                                                 [--estimates requested] [--change-runs 0,3]
                                                 [--skip-kind] [--days 0]

1. Calibration, per trace (CTC-SP2 on 430 processors, SDSC-SP2 on 128): replay the whole
   trace once, then give every job, at its submit time, the predicted upper bound of the 0.95
   quantile of its wait (confidence 0.95) from the waits of the jobs started before; print the
   fraction of jobs whose actual wait exceeded it (target ≤ 5 % + binomial slack), for each
   change-point setting (0 = no trimming), and the time of one prediction.
2. The experiment kind over every day of each trace (``days = 0``; twice for CTC with
   ``--repeat`` to check that the result is identical): wall time and the per-arm figures.
Figures only; no timing assertion.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import scheduler.experiments.virtual_reservations  # noqa: E402, F401  (registers the kind)
from scheduler.cluster import Simulator, prepare_jobs  # noqa: E402
from scheduler.experiments import run_experiment  # noqa: E402
from scheduler.reservations.calibration import calibrate  # noqa: E402
from scheduler.reservations.predictor import WaitPredictor  # noqa: E402
from scheduler.traces.swf import read_swf  # noqa: E402

TRACES = ROOT.parent / "shared" / "data" / "traces"
CASES = {
    "ctc": ("CTC-SP2-1996-3.1-cln.swf.gz", 430),
    "sdsc": ("SDSC-SP2-1998-4.2-cln.swf.gz", 128),
}


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def calibration(trace, procs: int, policy: str, estimates: str, runs: list[int]) -> None:  # type: ignore[no-untyped-def]
    jobs, _ = prepare_jobs(trace.jobs, procs, estimates)
    t0 = time.perf_counter()
    sim = Simulator(jobs, procs, policy)
    sim.run()
    print(f"  simulation of {len(jobs)} jobs: {time.perf_counter() - t0:.1f} s")
    print("  change_run  predicted  no-bound  misses  miss rate  limit(5%+slack)  changes  "
          "query median / p99 (µs)")  # fmt: skip
    for run in runs:
        pred = WaitPredictor(quantile=0.95, confidence=0.95, change_run=run)
        c = calibrate(
            sim.submit_time, sim.start, sim.procs, sim.estimate, pred, clock=time.perf_counter
        )
        n = c.predicted
        slack = 0.05 + 1.645 * math.sqrt(0.05 * 0.95 / n) if n else float("nan")
        qs = c.query_seconds
        print(
            f"  {run:>10}  {n:>9}  {c.unpredicted:>8}  {c.misses:>6}  {c.miss_rate:>9.4f}  "
            f"{slack:>15.4f}  {c.change_points:>7}  "
            f"{statistics.median(qs) * 1e6:.1f} / {pct(qs, 0.99) * 1e6:.1f}"
        )


def kind_run(trace, procs: int, policy: str, estimates: str, days: int, repeat: bool) -> None:  # type: ignore[no-untyped-def]
    params = {"procs": procs, "policy": policy, "estimates": estimates, "days": days}
    t0 = time.perf_counter()
    res = run_experiment("virtual-reservations", params, {"traces": [trace]}, seed=1)
    wall = time.perf_counter() - t0
    s = res["summary"]
    print(f"  kind, days={days or 'all'}: {s['days']} days, {s['cases']} cases, "
          f"wall {wall:.1f} s on one core")  # fmt: skip
    print("  arm        success %   mean normalised cost (successes)")
    for arm in ("var", "adaptive", "combined"):
        print(f"  {arm:<9}  {s[f'{arm}_success_pct']:>9}   {s[f'{arm}_cost']}")
    print(f"  cheaper (both succeeded): VAR {s['var_cheaper_pct']} %, adaptive "
          f"{s['adaptive_cheaper_pct']} %, equal {s['equal_cheaper_pct']} %; "
          f"change points {s['change_points']}")  # fmt: skip
    print("  per request: nodes D S | success V/A/C | cost V/A/C | cheaper V/A")
    for row in res["tables"][0]["rows"]:
        print(f"    {row[0]:>3} {row[1]:g} {row[2]:g} | {row[4]}/{row[5]}/{row[6]} | "
              f"{row[7]}/{row[8]}/{row[9]} | {row[10]}/{row[11]}")  # fmt: skip
    if repeat:
        again = run_experiment("virtual-reservations", params, {"traces": [trace]}, seed=1)
        same = json.dumps(again, sort_keys=True) == json.dumps(res, sort_keys=True)
        print(f"  same result twice: {same}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", default="ctc,sdsc")
    ap.add_argument("--policy", choices=("conservative", "easy"), default="conservative")
    ap.add_argument("--estimates", choices=("requested", "accurate"), default="requested")
    ap.add_argument("--change-runs", default="0,3")
    ap.add_argument("--days", type=int, default=0, help="0 = every day of the trace")
    ap.add_argument("--skip-kind", action="store_true")
    ap.add_argument("--repeat", action="store_true", help="run the kind twice (determinism)")
    args = ap.parse_args()
    runs = [int(v) for v in args.change_runs.split(",")]
    for name in args.traces.split(","):
        fn, procs = CASES[name]
        t0 = time.perf_counter()
        trace = read_swf(TRACES / fn)
        print(f"{name.upper()} ({fn}, {procs} processors, {args.policy}, {args.estimates}); "
              f"read in {time.perf_counter() - t0:.1f} s")  # fmt: skip
        calibration(trace, procs, args.policy, args.estimates, runs)
        if not args.skip_kind:
            kind_run(trace, procs, args.policy, args.estimates, args.days,
                     args.repeat and name == "ctc")  # fmt: skip


if __name__ == "__main__":
    main()
