"""Site quotes at EVERY instant with a deep queue (targets: "quote ≤ 0.3 s at any instant of a
whole archive trace; p99 ≤ 10 ms at 200+ queued jobs"): the quote (a SiteQuote from the replay
index's state + ``options(32 p, 2 h)``, thesis Figure 22 query 18) at every submission instant
with ``--deep`` or more queued jobs, and at every 10th submission instant overall; CPU time per
quote.  Prints the kernels' status first (compiled or pure).

    nice -n 5 .venv/bin/python bench/sweep_site_quotes.py --policy backfill-k=4 [--procs 338]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from scheduler._native import status  # noqa: E402
from scheduler.cluster import prepare_jobs  # noqa: E402
from scheduler.cluster.replay import build_index  # noqa: E402
from scheduler.io import load_trace  # noqa: E402
from scheduler.pricing.price import SiteQuote  # noqa: E402

TRACE = ROOT.parent / "shared" / "data" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default=str(TRACE))
    ap.add_argument("--procs", type=int, default=338)
    ap.add_argument("--policy", default="easy")
    ap.add_argument("--deep", type=int, default=200, help="queued jobs that make an instant deep")
    ap.add_argument("--every", type=int, default=10, help="also every N-th submission instant")
    args = ap.parse_args()
    trace = load_trace(args.trace)
    jobs, _ = prepare_jobs(trace.jobs, args.procs, "requested")
    t0 = time.process_time()
    index = build_index(jobs, args.procs, args.policy)
    built = time.process_time() - t0
    print(f"{Path(args.trace).name}: {len(jobs):,} jobs on {args.procs} processors, "
          f"{args.policy}, requested estimates; index built in {built:.2f} s")  # fmt: skip
    subs = np.unique(index.submit)
    started = np.sort(index.start[index.start >= 0])
    queued = np.searchsorted(index.submit, subs, "right") - np.searchsorted(started, subs, "right")
    print(f"# quote (32 p x 2 h) CPU per instant; max queued {int(queued.max())}")
    sets = ((f"{args.deep}+ queued, all", subs[queued >= args.deep]),
            (f"every {args.every}th submission", subs[:: args.every]))  # fmt: skip
    for label, ats in sets:
        ts = []
        for at in ats.tolist():
            t = time.process_time()
            base, shapes = index.base_profile(at), index.queued_shapes(at)
            SiteQuote(base, shapes, at, args.policy).options(32, 7200)
            ts.append((time.process_time() - t) * 1e3)
        if not ts:
            print(f"{label}: no instant")
            continue
        ts.sort()

        def q(p: float, ts=ts) -> float:
            return ts[min(len(ts) - 1, int(p * len(ts)))]

        print(f"{label}: {len(ts)} instants, median {statistics.median(ts):.2f} p95 {q(0.95):.2f} "
              f"p99 {q(0.99):.2f} max {ts[-1]:.2f} ms CPU; over 300 ms: "
              f"{sum(t > 300 for t in ts)}; over 10 ms: {sum(t > 10 for t in ts)}")  # fmt: skip
    print("engine modules:", ", ".join(f"{k} {v}" for k, v in sorted(status().items())))


if __name__ == "__main__":
    main()
