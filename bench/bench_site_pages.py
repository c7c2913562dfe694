"""Benchmark: the site page's "Price a reservation" and "When would my job start?" (issue 21:
each ≤ 0.3 s at any instant of a whole archive trace; quote p99 ≤ 10 ms at 200+ queued jobs).

    .venv/bin/python bench/bench_site_pages.py [--trace FILE] [--procs N] [--policy P]
        [--instants K] [--before K]

Side by side, in one run, on the same instants of the whole trace (requested estimates):

* **before** — what a request did until now: replay the trace up to the instant
  (``Simulator.run(until=t)``), then quote (query 18 for 32 processors × 2 h) or feed the
  predictor the waits seen so far and predict (8 processors × 1 h);
* **after** — what a request does now: read the site's replay index from its ``.npz`` file
  (as a fresh process, or a forked child under the web limits, does), take the state at the
  instant (:mod:`scheduler.cluster.replay`) and quote / predict.  Building the index (one full
  replay, once per trace × site size × policy × estimates) is printed apart.

Then the quote alone (the index state in hand) against the queue length at the instant:
median / p99 / max by queue-length class, before (each re-planned job of the fast path scanned
the profile from "now") and after (:func:`scheduler.pricing.price._earliest_near` scans only
where the job can start), with a check that both give the same options.  ``--procs 338``
gives deep queues (200+ queued jobs).  CPU seconds of this process (the machine may be
shared); nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler.cluster import prepare_jobs  # noqa: E402
from scheduler.cluster.replay import build_index, load_index  # noqa: E402
from scheduler.cluster.simulator import Simulator  # noqa: E402
from scheduler.io import load_trace  # noqa: E402
from scheduler.pricing import price as price_mod  # noqa: E402
from scheduler.pricing.price import SiteQuote  # noqa: E402
from scheduler.pricing.site import price_list, state_at  # noqa: E402
from scheduler.reservations.history import SiteHistory  # noqa: E402
from scheduler.reservations.predictor import WaitPredictor  # noqa: E402
from scheduler.reservations.site import QUANTILES, predict_at  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "traces"
HOUR = 3600


def _stats(values: list[float]) -> str:
    v = sorted(values)
    p99 = v[min(len(v) - 1, round(0.99 * (len(v) - 1)))]
    med = statistics.median(v)
    return f"median {med * 1e3:8.2f} ms  p99 {p99 * 1e3:8.2f} ms  max {v[-1] * 1e3:8.2f} ms"


def cpu(fn, *args):  # type: ignore[no-untyped-def]
    t = time.process_time()
    out = fn(*args)
    return time.process_time() - t, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default=str(DATA / "CTC-SP2-1996-3.1-cln.swf.gz"))
    ap.add_argument("--procs", type=int, default=430)
    ap.add_argument("--policy", default="conservative")
    ap.add_argument("--instants", type=int, default=200)
    ap.add_argument("--before", type=int, default=12, help="instants timed the old way")
    args = ap.parse_args()
    trace = load_trace(args.trace)
    jobs, _ = prepare_jobs(trace.jobs, args.procs, "requested")
    print(f"{Path(args.trace).name}: {len(jobs):,} jobs on {args.procs} processors, "
          f"{args.policy}, requested estimates")  # fmt: skip
    build_s, index = cpu(build_index, jobs, args.procs, args.policy)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "site.npz"
        index.save(path)
        size = path.stat().st_size
        load_s = min(cpu(load_index, path)[0] for _ in range(5))
        print(f"index: built once in {build_s:.2f} s CPU (one full replay); {size / 2**20:.1f} MiB "
              f"on disk; loaded in {load_s * 1e3:.1f} ms")  # fmt: skip
        span_h = (index.last_submit - index.origin) / HOUR
        rng = random.Random(7)
        instants = sorted(rng.uniform(0, span_h) for _ in range(args.instants))

        old_q, old_p, new_q, new_p = [], [], [], []
        for h in rng.sample(instants, min(args.before, len(instants))):
            at = index.origin + int(round(h * HOUR))

            def replay_quote(at=at):  # type: ignore[no-untyped-def]
                sim = Simulator(jobs, args.procs, args.policy)
                sim.run(until=at)
                return SiteQuote.of(sim, at).options(32, 2 * HOUR)

            def replay_predict(at=at):  # type: ignore[no-untyped-def]
                sim = Simulator(jobs, args.procs, args.policy)
                sim.run(until=at)
                p = WaitPredictor()
                SiteHistory(sim, p).sync()
                return p.predict(8, HOUR, QUANTILES)

            old_q.append(cpu(replay_quote)[0])
            old_p.append(cpu(replay_predict)[0])
        for h in instants:

            def quote(h=h):  # type: ignore[no-untyped-def]
                return price_list(state_at(load_index(path), h), 32, 2 * HOUR)

            def predict(h=h):  # type: ignore[no-untyped-def]
                return predict_at(load_index(path), h, 8, HOUR)

            new_q.append(cpu(quote)[0])
            new_p.append(cpu(predict)[0])
    print(f"{'':28}{'quote (32 p x 2 h)':>56}   prediction (8 p x 1 h)")
    print(f"before (replay, {len(old_q):3} instants) {_stats(old_q)}   {_stats(old_p)}")
    print(f"after  (index,  {len(new_q):3} instants) {_stats(new_q)}   {_stats(new_p)}")
    rq = statistics.median(new_q) / statistics.median(old_q)
    rp = statistics.median(new_p) / statistics.median(old_p)
    print(f"ratio of medians after/before: quote {rq:.4f}, prediction {rp:.4f}")

    # quote alone, side by side: the fast path's re-planning scan before this issue (every
    # re-planned job scanned the profile from "now") and now (only where it can start)
    def old_scan(p, n, d, now, v, u_lo, u_hi):  # type: ignore[no-untyped-def]
        return p.earliest_start(n, d, now)

    new_scan = price_mod._earliest_near
    by_class: dict[str, tuple[list[float], list[float]]] = {}
    same = True
    for h in instants:
        state = state_at(index, h)
        label = next(c for lo, c in ((200, ">=200"), (100, "100-199"), (50, "50-99"), (0, "<50"))
                     if state.queued >= lo)  # fmt: skip
        row = by_class.setdefault(label, ([], []))
        answers = []
        for k, scan in enumerate((old_scan, new_scan)):
            price_mod._earliest_near = scan
            q = state.quote
            fresh = SiteQuote(q.base, q.shapes, q.now, q.policy)  # no cached prefixes
            t = time.process_time()
            answers.append(fresh.options(32, 2 * HOUR))
            row[k].append(time.process_time() - t)
        price_mod._earliest_near = new_scan
        same = same and answers[0] == answers[1]
    print("quote alone (query 18, 32 p x 2 h) by jobs queued at the instant, before / after:")
    for label in ("<50", "50-99", "100-199", ">=200"):
        if label in by_class:
            before, after = by_class[label]
            print(f"  {label:>8} queued ({len(before):3} instants) before: {_stats(before)}")
            print(f"  {'':>8}                  after:  {_stats(after)}")
    print(f"identical option lists before and after: {same}")


if __name__ == "__main__":
    main()
