"""EASY is backfilling with reservation depth 1 (Mu'alem & Feitelson 2001): the quote kernel's
EASY loop (``EasyQueue(..., depth=0)``, :func:`scheduler.pricing._easy._run`) against its
depth-K loop at K = 1 (:func:`scheduler.pricing._easy._run_depth`) on the instants
bench/kernels_callgrind.py prepared for EASY: whether every price list is the same, and the
CPU time of each (least of ``--repeat`` runs per instant, the two alternating).

    .venv/bin/python bench/kernels_callgrind.py prepare --rev HEAD --dir /tmp/kcg
    .venv/bin/python bench/easy_as_depth1.py --dir /tmp/kcg
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduler.pricing import _easy as E  # noqa: E402
from scheduler.pricing.price import SiteQuote  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True, help="kernels_callgrind.py prepare's directory")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    states = pickle.loads((Path(args.dir) / "easy.pkl").read_bytes())
    same = 0
    cpu = {0: 0.0, 1: 0.0}
    for base, shapes, at in states:
        quote = SiteQuote(base, shapes, at, "easy")
        q = quote._easy
        queue = (
            q.base_times,
            q.base_free,
            q.capacity,
            list(q.procs[: q.m]),
            list(q.durs[: q.m]),
            q.now,
        )
        cands = quote.candidates(quote.now)
        prices = {}
        for depth in (0, 1):
            best = None
            for _ in range(args.repeat):
                t0 = time.process_time()
                prices[depth] = E.prices(E.EasyQueue(*queue, depth), cands, 32, 7200)
                took = time.process_time() - t0
                best = took if best is None else min(best, took)
            cpu[depth] += best
        same += prices[0] == prices[1]
    print(f"{len(states)} instants, identical price lists: {same}")
    print(f"CPU s (least of {args.repeat}): EASY loop {cpu[0]:.3f}, depth-1 loop {cpu[1]:.3f}")


if __name__ == "__main__":
    main()
