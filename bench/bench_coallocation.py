"""Benchmark: planning time per co-allocation request (SPEC §9; seed 001 "Comparison of planning
times": GLPK avg 0.779 s / max 8.49 s, GLPK-st (P_max = 2) avg 0.333 s / max 4.21 s on a Core2
Quad Q9550).

    .venv/bin/python bench/bench_coallocation.py [--requests N] [--load L] [--seed S]
                                                 [--large-requests N] [--skip-scipy]

On the seed's testbed, the day-ahead workload (:func:`scheduler.coallocation.simulate.
seed_workload`, star requests of types 1–4) is replayed with every frame's IP solved (N = 10,
as the seed; identical frames solved once), and prints per configuration the planning time
per request (avg, max, σ) and per IP solve:

* highspy with constraints (10) + (11) (the seed's "-st"), without them, and with the
  tightening inequalities of :func:`scheduler.coallocation.ip.build_ip`;
* scipy.optimize.milp (the same HiGHS behind SciPy's wrapper) with (10) + (11);
* the "earliest" shortcut the experiment uses (stop at the first frame with a plan).

Then the same on a generated topology 10× larger (``generated-x10``: ~100 sites) to show how
planning time grows with the graph.  Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler.coallocation.planner import PlannerConfig  # noqa: E402
from scheduler.coallocation.simulate import seed_workload, simulate  # noqa: E402
from scheduler.coallocation.topology import builtin_topologies, load_topology  # noqa: E402


def run(topology, requests, config: PlannerConfig, label: str) -> dict:
    t0 = time.perf_counter()
    res = simulate(topology, requests, config)
    wall = time.perf_counter() - t0
    per = [o.seconds for o in res.outcomes]
    solves = [s for o in res.outcomes for s in o.solve_seconds]
    by_sites: dict[int, list[float]] = {}
    for o in res.outcomes:
        by_sites.setdefault(o.sites, []).append(o.seconds)
    row = {
        "label": label,
        "requests": len(per),
        "success": sum(o.success for o in res.outcomes) / max(len(per), 1),
        "avg": statistics.mean(per),
        "max": max(per),
        "sd": statistics.pstdev(per),
        "solves": len(solves),
        "solve_avg": statistics.mean(solves) if solves else 0.0,
        "wall": wall,
        "by_sites": {k: statistics.mean(v) for k, v in sorted(by_sites.items())},
    }
    print(
        f"{label:44s} n={row['requests']:4d} success={row['success']:.3f} "
        f"avg={row['avg']:.4f}s max={row['max']:.3f}s sd={row['sd']:.4f}s "
        f"IPs={row['solves']:5d} per-IP={row['solve_avg']:.4f}s  "
        + " ".join(f"{k}sites:{v:.3f}s" for k, v in row["by_sites"].items()),
        flush=True,
    )
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=0, help="first N requests (0: all)")
    ap.add_argument("--load", type=float, default=1.0, help="requested load at the end")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--large-requests", type=int, default=60)
    ap.add_argument("--skip-scipy", action="store_true")
    args = ap.parse_args()

    docs = builtin_topologies()
    seed_t = load_topology(docs["seed001"])
    reqs = seed_workload(seed_t, args.load, random.Random(args.seed))
    if args.requests:
        reqs = reqs[: args.requests]
    print(f"seed 001 testbed: {len(seed_t.sites)} sites, {len(seed_t.links)} links, "
          f"{len(reqs)} requests up to {args.load:.0%} load")  # fmt: skip
    configs = [
        ("highspy, (10)+(11) P_max=2 [seed GLPK-st]", PlannerConfig()),
        ("highspy, no (10)/(11) [seed GLPK]", PlannerConfig(p_max=None, two_way=False)),
        ("highspy, (10)+(11) + tightening", PlannerConfig(tighten=True)),
    ]
    if not args.skip_scipy:
        configs.append(("scipy.milp, (10)+(11) P_max=2", PlannerConfig(solver="scipy")))
    configs.append(("highspy, (10)+(11), earliest shortcut", PlannerConfig(stop_at_first=True)))
    base = [run(seed_t, reqs, c, label) for label, c in configs]

    big = load_topology(docs["generated-x10"])
    big_reqs = seed_workload(big, 0.5, random.Random(args.seed))[: args.large_requests]
    print(f"\ngenerated-x10: {len(big.sites)} sites, {len(big.links)} links, "
          f"first {len(big_reqs)} requests (50 % load)")  # fmt: skip
    small_same = run(seed_t, reqs[: len(big_reqs)], PlannerConfig(), "seed001, same count")
    large = run(big, big_reqs, PlannerConfig(), "generated-x10, (10)+(11)")
    print(
        f"\ngrowth: {len(big.sites) / len(seed_t.sites):.1f}x sites, "
        f"{len(big.links) / len(seed_t.links):.1f}x links -> "
        f"{large['avg'] / small_same['avg']:.1f}x avg planning time, "
        f"{large['solve_avg'] / max(small_same['solve_avg'], 1e-9):.1f}x per IP"
    )
    print(f"\nseed (GLPK-st, Core2 Q9550): avg 0.333 s, max 4.205 s; ours: avg "
          f"{base[0]['avg']:.3f} s, max {base[0]['max']:.3f} s")  # fmt: skip


if __name__ == "__main__":
    main()
