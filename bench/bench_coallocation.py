"""Benchmark: planning time per co-allocation request (Takefusa et al. 2010, "Comparison of planning
times": GLPK avg 0.779 s / max 8.49 s, GLPK-st (P_max = 2) avg 0.333 s / max 4.21 s on a Core2
Quad Q9550; issue target: avg <= 0.05 s, max <= 0.5 s).

    .venv/bin/python bench/bench_coallocation.py [--requests N] [--load L] [--seed S]
        [--arc-requests N] [--large-requests N] [--shape star|mesh] [--skip-slow]
    .venv/bin/python bench/bench_coallocation.py --compare [--before-rev REV] [--requests N]
        [--large-requests N] [--mesh-requests N]

"Planning time" is the seed's: steps 2i–2iv for one request, i.e. the IP of *every* one of
the N = 10 frames is solved (identical frames once) and the N' plans are ranked.  The seed's
day-ahead workload (:func:`scheduler.coallocation.simulate.seed_workload`: requests of types
1–4, star-shaped by default, up to 100 % requested load) is replayed on the seed's testbed and
each configuration prints avg / p99 / max / σ per request, in wall seconds and in CPU seconds of
this process (the machine may be shared: CPU time is the steadier figure), the IPs handed to
HiGHS and how many of them needed branch and cut (the rest were settled by an integral LP
optimum, :mod:`scheduler.coallocation.solver`):

* the default — route formulation with product rows, LP first, highspy;
* the same through scipy (``linprog``/``milp``, the same HiGHS);
* route formulation without LP first (HiGHS branch and cut on every IP) and without the
  product rows;
* the seed's arc formulation with (10) + (11) (first ``--arc-requests`` only: it is slow);
* the "earliest" shortcut of the experiment (stop at the first frame with a plan).

Then the generated topology 10x the seed's (``generated-x10``: 106 sites, 357 links) at 50 %
load, beside the seed testbed on the same number of requests, to show how time grows.

``--compare``: today's planner against the one of ``--before-rev`` (loaded from git
beside today's package), request by request on the same reservations: star requests on the
seed testbed (``--requests``), the 10x topology (star requests, 50 % load) and mesh requests
(paths forming cycles) on the seed testbed.  Each request is planned by both (in alternating
order), the per-request wall and CPU times are kept, the objective of every frame's plan is
compared (and the plans themselves), and the before planner's first plan is reserved, so both
always see the same availability.
Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler.coallocation.manager import CoallocationFailed, Managers  # noqa: E402
from scheduler.coallocation.planner import PlannerConfig, plan  # noqa: E402
from scheduler.coallocation.simulate import seed_workload, simulate  # noqa: E402
from scheduler.coallocation.topology import builtin_topologies, load_topology  # noqa: E402

BEFORE_REV = "f11a555"  # the planner before the co-allocation speed-up work


def _before_package(rev: str):  # type: ignore[no-untyped-def]
    """``scheduler/coallocation`` as it was at commit ``rev``, imported as
    ``scheduler._coalloc_before`` (its ``..`` imports resolve to today's ``scheduler``)."""
    blob = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "scheduler/coallocation"], capture_output=True,
        check=True,
    ).stdout  # fmt: skip
    tmp = Path(tempfile.mkdtemp(prefix="coalloc-before-"))
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(tmp, filter="data")
    pkg = tmp / "scheduler" / "coallocation"
    name = "scheduler._coalloc_before"
    spec = importlib.util.spec_from_file_location(
        name, pkg / "__init__.py", submodule_search_locations=[str(pkg)]
    )
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _stats(values: list[float]) -> str:
    return (f"mean {statistics.mean(values):.4f} s  p50 {statistics.median(values):.4f} s  "
            f"max {max(values):.4f} s")  # fmt: skip


def compare(topology, requests, label: str, before) -> None:  # type: ignore[no-untyped-def]
    """Before and today's planner on the same reservations, request by request."""
    old_config = before.planner.PlannerConfig()
    new_config = PlannerConfig()
    managers = Managers(topology)
    times: dict[str, dict[str, list[float]]] = {
        "before": {"wall": [], "cpu": []},
        "after": {"wall": [], "cpu": []},
    }
    frames = same_obj = same_plan = 0
    mismatches: list[str] = []
    not_optimal = {"before": 0, "after": 0}
    for k, r in enumerate(requests):
        out = {}
        order = ("before", "after") if k % 2 == 0 else ("after", "before")
        for who in order:
            fn, config = (before.planner.plan, old_config) if who == "before" else (
                plan, new_config)  # fmt: skip
            c0, w0 = time.process_time(), time.perf_counter()
            out[who] = fn(topology, r, managers, config)
            times[who]["cpu"].append(time.process_time() - c0)
            times[who]["wall"].append(time.perf_counter() - w0)
        for who in out:
            not_optimal[who] += sum(not p.optimal for p in out[who].plans)
        old = {p.frame: p for p in out["before"].plans}
        new = {p.frame: p for p in out["after"].plans}
        for f in sorted(set(old) | set(new)):
            frames += 1
            a, b = old.get(f), new.get(f)
            if a is not None and b is not None and a.objective == b.objective:
                same_obj += 1
                same_plan += (a.mapping, a.routes) == (b.mapping, b.routes)
            else:
                mismatches.append(
                    f"request {r.id} frame {f}: before {a and a.objective} "
                    f"({a and ('optimal' if a.optimal else 'time limit')}), "
                    f"after {b and b.objective} ({b and ('optimal' if b.optimal else 'limit')})"
                )
        for p in out["before"].plans:  # reserve as today's code did
            try:
                managers.reserve(p.start, p.end, p.site_blocks, p.link_blocks, r.user)
            except CoallocationFailed:
                continue
            break
    print(f"\n{label}: {len(requests)} requests, {frames} frames with a plan")
    for who in ("before", "after"):
        print(f"  {who:6s} wall {_stats(times[who]['wall'])} | "
              f"cpu {_stats(times[who]['cpu'])} | at time limit {not_optimal[who]}")  # fmt: skip
    print(f"  objectives identical on {same_obj} of {frames} frames "
          f"(plans identical on {same_plan})", flush=True)  # fmt: skip
    for m in mismatches[:20]:
        print("  differs:", m, flush=True)


def _p99(values: list[float]) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, round(0.99 * (len(v) - 1)))]


def run(topology, requests, config: PlannerConfig, label: str) -> dict:
    cpu: list[float] = []
    mark = [time.process_time()]

    def tick(done: int, total: int) -> None:  # called after each request
        now = time.process_time()
        cpu.append(now - mark[0])
        mark[0] = now

    t0 = time.perf_counter()
    res = simulate(topology, requests, config, on_request=tick)
    wall = time.perf_counter() - t0
    per = [o.seconds for o in res.outcomes]
    by_sites: dict[int, list[float]] = {}
    for o in res.outcomes:
        by_sites.setdefault(o.sites, []).append(o.seconds)
    row = {
        "label": label,
        "requests": len(per),
        "success": sum(o.success for o in res.outcomes) / max(len(per), 1),
        "avg": statistics.mean(per),
        "p99": _p99(per),
        "max": max(per),
        "sd": statistics.pstdev(per),
        "cpu_avg": statistics.mean(cpu),
        "cpu_p99": _p99(cpu),
        "cpu_max": max(cpu),
        "solves": sum(o.solves for o in res.outcomes),
        "mip": sum(o.mip_solves for o in res.outcomes),
        "wall": wall,
        "by_sites": {k: statistics.mean(v) for k, v in sorted(by_sites.items())},
    }
    print(
        f"{label:46s} n={row['requests']:4d} success={row['success']:.3f} "
        f"wall avg={row['avg']:.4f}s p99={row['p99']:.4f}s max={row['max']:.4f}s "
        f"sd={row['sd']:.4f}s | cpu avg={row['cpu_avg']:.4f}s p99={row['cpu_p99']:.4f}s "
        f"max={row['cpu_max']:.4f}s | IPs={row['solves']} B&B={row['mip']} | "
        + " ".join(f"{k}sites:{v:.4f}s" for k, v in row["by_sites"].items()),
        flush=True,
    )
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=0, help="first N requests (0: all)")
    ap.add_argument("--load", type=float, default=1.0, help="requested load at the end")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shape", choices=("star", "mesh"), default="star")
    ap.add_argument("--arc-requests", type=int, default=40)
    ap.add_argument("--large-requests", type=int, default=100)
    ap.add_argument("--skip-slow", action="store_true", help="no arc / no-LP-first runs")
    ap.add_argument("--compare", action="store_true", help="before/after, objectives checked")
    ap.add_argument("--before-rev", default=BEFORE_REV)
    ap.add_argument("--mesh-requests", type=int, default=100)
    args = ap.parse_args()

    docs = builtin_topologies()
    if args.compare:
        before = _before_package(args.before_rev)
        seed_t = load_topology(docs["seed001"])
        star = seed_workload(seed_t, args.load, random.Random(args.seed), shape="star")
        compare(seed_t, star[: args.requests or None], "seed001, star requests", before)
        big = load_topology(docs["generated-x10"])
        big_reqs = seed_workload(big, 0.5, random.Random(args.seed), shape="star")
        compare(big, big_reqs[: args.large_requests], "generated-x10, star, 50 % load", before)
        mesh = seed_workload(seed_t, args.load, random.Random(args.seed), shape="mesh")
        compare(seed_t, mesh[: args.mesh_requests], "seed001, mesh requests", before)
        return
    seed_t = load_topology(docs["seed001"])
    reqs = seed_workload(seed_t, args.load, random.Random(args.seed), shape=args.shape)
    if args.requests:
        reqs = reqs[: args.requests]
    print(
        f"Takefusa et al. 2010 testbed: {len(seed_t.sites)} sites, {len(seed_t.links)} links, "
        f"{len(reqs)} {args.shape} requests up to {args.load:.0%} load, all 10 frames solved"
    )
    configs = [
        ("routes+RLT, LP first, highspy [default]", PlannerConfig(), reqs),
        ("routes+RLT, LP first, scipy", PlannerConfig(solver="scipy"), reqs),
        ("routes+RLT, LP first, earliest shortcut", PlannerConfig(stop_at_first=True), reqs),
    ]
    if not args.skip_slow:
        few = reqs[: args.arc_requests]
        configs += [
            ("routes+RLT, B&B only, highspy", PlannerConfig(lp_first=False), reqs),
            ("routes, no RLT, LP first, highspy", PlannerConfig(rlt=False), reqs),
            ("routes+RLT, LP first, highspy (same requests)", PlannerConfig(), few),
            ("arcs (10)+(11) [seed GLPK-st], LP first", PlannerConfig(formulation="arcs"), few),
            ("arcs (10)+(11), B&B only", PlannerConfig(formulation="arcs", lp_first=False), few),
        ]
    base = [run(seed_t, r, c, label) for label, c, r in configs]

    big = load_topology(docs["generated-x10"])
    big_reqs = seed_workload(big, 0.5, random.Random(args.seed), shape=args.shape)
    big_reqs = big_reqs[: args.large_requests]
    print(f"\ngenerated-x10: {len(big.sites)} sites, {len(big.links)} links, "
          f"first {len(big_reqs)} requests (50 % load)")  # fmt: skip
    small_same = run(seed_t, reqs[: len(big_reqs)], PlannerConfig(), "seed001, same count")
    large = run(big, big_reqs, PlannerConfig(), "generated-x10, routes+RLT, LP first")
    print(
        f"\ngrowth: {len(big.sites) / len(seed_t.sites):.1f}x sites, "
        f"{len(big.links) / len(seed_t.links):.1f}x links -> "
        f"{large['avg'] / small_same['avg']:.1f}x avg wall, "
        f"{large['cpu_avg'] / small_same['cpu_avg']:.1f}x avg CPU planning time per request"
    )
    print(f"\nseed (GLPK-st, Core2 Q9550): avg 0.333 s, max 4.205 s; target avg <= 0.05 s, "
          f"max <= 0.5 s; ours (default): avg {base[0]['avg']:.4f} s, p99 {base[0]['p99']:.4f} s, "
          f"max {base[0]['max']:.4f} s")  # fmt: skip


if __name__ == "__main__":
    main()
