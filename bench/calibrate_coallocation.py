"""Takefusa et al. 2010 calibration: the testbed's in-domain wiring, the request shape and how
requested CPUs are drawn are not in the seed; run the success-ratio set-up for every combination and
print its fit to the paper's printed ratios (success 0.90 at 50 %, over 0.61 at 80 %, UserA
0.60 / UserB 0.37 at 100 % with UserB at low priority).

    .venv/bin/python bench/calibrate_coallocation.py [--workloads 10] [--seed 0]
        [--wiring mesh,star,none] [--shape star,mesh] [--cpus per-site,same]

Takes about a minute per combination on one core (12 combinations).  The chosen set-up is
``CALIBRATION["chosen"]`` in scheduler/experiments/coallocation.py (the presets' defaults).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scheduler.experiments.coallocation import CALIBRATION, calibrate  # noqa: E402

COLS = ("wiring", "shape", "request_cpus", "normal_success_at_50", "normal_success_at_80",
        "service_levels_UserA_at_100", "service_levels_UserB_at_100", "fit")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--wiring", default="mesh,star,none", help="comma-separated")
    ap.add_argument("--shape", default="star,mesh", help="comma-separated")
    ap.add_argument("--cpus", default="per-site,same", help="comma-separated")
    args = ap.parse_args()
    grid = {"wiring": tuple(args.wiring.split(",")), "shape": tuple(args.shape.split(",")),
            "request_cpus": tuple(args.cpus.split(","))}  # fmt: skip
    t = CALIBRATION["printed"]
    print("paper:", ", ".join(f"{k} = {v}" for k, v in t.items()))
    print("fit on:", ", ".join(CALIBRATION["targets"]), "(the others are held out)")
    print(" | ".join(f"{c:>14}" for c in ("wiring", "shape", "cpus", "at 50", "at 80",
                                          "UserA 100", "UserB 100", "fit")))  # fmt: skip
    t0 = time.perf_counter()

    def show(row):  # type: ignore[no-untyped-def]
        print(" | ".join(f"{row[c]!s:>14}" for c in COLS), flush=True)

    rows = calibrate(grid, workloads=args.workloads, seed=args.seed, on_row=show)
    best = rows[0]
    print(f"best: wiring={best['wiring']}, shape={best['shape']}, "
          f"request_cpus={best['request_cpus']} (fit {best['fit']}); "
          f"chosen: {CALIBRATION['chosen']}; {time.perf_counter() - t0:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
