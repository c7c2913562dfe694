"""Benchmark: adaptive pricing over whole archive traces (thesis ch. 5).

    .venv/bin/python bench/bench_pricing.py [--trace ctc|sdsc] [--policy conservative|easy]
                                            [--estimates requested|accurate] [--alpha A]
                                            [--fraction F] [--days D] [--naive-sample K]

Runs the ``pricing`` workload — a fraction of the jobs (default 10 %) buy reservations through
query (18) at their submit time — on a whole trace (CTC-SP2 with 430 processors by default,
conservative backfilling, requested estimates) and prints: wall time of the whole run, the
number of quotes, the median / p99 / max time of one query (18), how that time grows with the
queue length (buckets), and the mean price.  With ``--naive-sample K`` it also times the literal
Figure 22 (full re-plan for every candidate start) on K quotes taken along the run and checks
that it gives the same prices — the speed-up of the exact fast path.  Figures only; no timing
assertion.
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

from scheduler.cluster import Simulator, prepare_jobs  # noqa: E402
from scheduler.cluster.jobs import Reservation  # noqa: E402
from scheduler.pricing import SiteQuote, choose  # noqa: E402
from scheduler.pricing.workload import run_pricing, split_reservations  # noqa: E402
from scheduler.traces.swf import read_swf  # noqa: E402

TRACES = ROOT.parent / "shared" / "data" / "traces"
CASES = {
    "ctc": ("CTC-SP2-1996-3.1-cln.swf.gz", 430),
    "sdsc": ("SDSC-SP2-1998-4.2-cln.swf.gz", 128),
}


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def naive_check(jobs, procs, policy, alpha, fraction, seed, sample):  # type: ignore[no-untyped-def]
    """Time the literal algorithm against the fast one on ``sample`` quotes along the run."""
    best, resv = split_reservations(jobs, fraction, seed)
    sim = Simulator(best, procs, policy, origin=jobs[0].submit)
    step = max(1, len(resv) // sample)
    fast_t = naive_t = 0.0
    checked = 0
    for i, job in enumerate(resv):
        sim.run(until=job.submit)
        d = max(1, job.estimate)
        q = SiteQuote.of(sim, job.submit)
        if i % step == 0 and checked < sample:
            t0 = time.perf_counter()
            fast = [(s, q.price(s, job.procs, d)) for s in q.candidates()]
            t1 = time.perf_counter()
            naive = [(s, q.price_naive(s, job.procs, d)) for s in q.candidates()]
            t2 = time.perf_counter()
            if fast != naive:
                raise SystemExit(f"MISMATCH at reservation {i}: fast {fast} naive {naive}")
            fast_t += t1 - t0
            naive_t += t2 - t1
            checked += 1
        pick = choose(q.options(job.procs, d), alpha)
        sim.insert_reservation(Reservation(pick.start, d, job.procs), now=job.submit)
    return checked, fast_t, naive_t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", choices=sorted(CASES), default="ctc")
    ap.add_argument("--policy", choices=("conservative", "easy", "fcfs"), default="conservative")
    ap.add_argument("--estimates", choices=("requested", "accurate"), default="requested")
    ap.add_argument("--alpha", type=float, default=0.0)
    ap.add_argument("--fraction", type=float, default=0.1)
    ap.add_argument("--days", type=float, default=0.0, help="first D days only (0: whole trace)")
    ap.add_argument("--naive-sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    name, procs = CASES[args.trace]
    t0 = time.perf_counter()
    trace = read_swf(TRACES / name)
    jobs, _ = prepare_jobs(trace.jobs, procs, args.estimates)
    if args.days:
        end = jobs[0].submit + args.days * 86400
        jobs = [j for j in jobs if j.submit < end]
    parsed = time.perf_counter() - t0
    print(f"{name}: {len(jobs)} jobs on {procs} processors, parsed in {parsed:.1f} s")
    print(f"policy {args.policy}, estimates {args.estimates}, α = {args.alpha}, "
          f"{args.fraction:.0%} reservations, days {args.days or 'all'}")  # fmt: skip

    t0 = time.perf_counter()
    run = run_pricing(
        jobs, procs, args.policy, alpha=args.alpha, fraction=args.fraction, seed=args.seed,
        clock=time.perf_counter,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    qs = run.quote_seconds
    print(f"whole run: {wall:.1f} s wall ({len(run.reservations)} quotes)")
    med, p99 = statistics.median(qs) * 1e3, pct(qs, 0.99) * 1e3
    print(f"query (18): median {med:.2f} ms, p99 {p99:.1f} ms, max {max(qs) * 1e3:.1f} ms; "
          f"total {sum(qs):.1f} s")  # fmt: skip
    print(f"options per quote: mean {statistics.mean(r.options for r in run.reservations):.1f}")
    buckets = [(0, 10), (10, 25), (25, 50), (50, 100), (100, 200), (200, 10**9)]
    print("queue length -> quotes, median ms, p99 ms")
    for lo, hi in buckets:
        sel = [t for t, r in zip(qs, run.reservations, strict=True) if lo <= r.queued < hi]
        if sel:
            print(f"  [{lo}, {hi if hi < 10**9 else '∞'}): {len(sel):6d}  "
                  f"{statistics.median(sel) * 1e3:8.2f}  {pct(sel, 0.99) * 1e3:8.1f}")  # fmt: skip
    f = [r.f for r in run.reservations]
    rw = [r.wait for r in run.reservations]
    bw = statistics.mean(run.best_effort_waits) / 3600
    print(f"mean price f {statistics.mean(f):.2f} SU; mean wait: reservations "
          f"{statistics.mean(rw) / 3600:.2f} h, best effort {bw:.2f} h; "
          f"utilization {run.utilization:.3f}")  # fmt: skip

    if args.naive_sample:
        checked, fast_t, naive_t = naive_check(
            jobs, procs, args.policy, args.alpha, args.fraction, args.seed, args.naive_sample
        )
        print(f"literal Figure 22 on {checked} quotes: {naive_t:.2f} s vs fast {fast_t:.2f} s "
              f"(x{naive_t / max(fast_t, 1e-9):.1f}); same prices")  # fmt: skip


if __name__ == "__main__":
    main()
