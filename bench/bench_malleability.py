"""Benchmark: the malleability simulator (Buisson et al. 2007) on large generated workloads.

    .venv/bin/python bench/bench_malleability.py [--jobs N] [--repeat R] [--profile]

For each approach × policy it generates ``--jobs`` (default 100,000) seed-002 jobs (FT/GADGET2
mixed, all malleable, min 2, max 46/32) on the five DAS-3 clusters (85, 41, 68, 46, 32) with 5 %
local background load, the inter-arrival time scaled so that the system stays loaded but stable
(PRA 60 s, PWA 30 s), and prints seconds (best of ``--repeat``), events per second and jobs per
second on one core, plus the occupancy check on the shared profile when ``--profile`` is given.
Reports figures only; it never asserts timing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler.malleability import (  # noqa: E402
    DAS3_CLUSTERS,
    BackgroundLoad,
    Simulation,
    cluster_profiles,
    clusters_from_sizes,
    seed_workload,
)

INTERARRIVAL = {"PRA": 60.0, "PWA": 30.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--profile", action="store_true", help="also build the occupancy profiles")
    args = ap.parse_args()
    clusters = clusters_from_sizes([s for _, s in DAS3_CLUSTERS], [n for n, _ in DAS3_CLUSTERS])
    print(f"{args.jobs} jobs on DAS-3 {[c.size for c in clusters]}, background 5 %, overhead 10 s")
    print(f"{'combo':12} {'ia(s)':>6} {'sec':>7} {'events':>9} {'events/s':>10} {'jobs/s':>9} "
          f"{'grows':>8} {'shrinks':>8} {'mean resp':>9} {'failed':>6}")  # fmt: skip
    for approach in ("PRA", "PWA"):
        jobs = seed_workload(jobs=args.jobs, interarrival=INTERARRIVAL[approach], seed=1)
        for policy in ("FPSMA", "EGS"):
            best = None
            for _ in range(args.repeat):
                sim = Simulation(
                    jobs, clusters, approach, policy, threshold=4, resize_overhead=10,
                    background=BackgroundLoad(0.05), record_segments=args.profile, seed=1,
                )  # fmt: skip
                t0 = time.perf_counter()
                res = sim.run()
                dt = time.perf_counter() - t0
                best = dt if best is None else min(best, dt)
            done = [r for r in res.records if not r.failed]
            grows = sum(o[1] for o in res.ops)
            shrinks = sum(o[2] for o in res.ops)
            print(
                f"{approach + '/' + policy:12} {INTERARRIVAL[approach]:6.0f} {best:7.2f} "
                f"{res.events:9d} {res.events / best:10.0f} {args.jobs / best:9.0f} "
                f"{grows:8d} {shrinks:8d} {statistics.mean(r.response for r in done):9.1f} "
                f"{len(res.records) - len(done):6d}"
            )
            if args.profile:
                t0 = time.perf_counter()
                cluster_profiles(res)
                print(f"{'':12} occupancy profiles ({len(res.segments)} segments, no over-commit):"
                      f" {time.perf_counter() - t0:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
