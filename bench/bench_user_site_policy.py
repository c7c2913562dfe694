"""Benchmark: a user's policy as a site policy, against the built-in policy's quote kernel.

    .venv/bin/python bench/bench_user_site_policy.py [--jobs 400] [--procs 64] [--alphas 0,0.5,1]

No compiled quote kernel runs a user's policy: each price re-plays the queue under the policy
itself on the reference event loop (thesis Figure 22 literally).  This times the ``pricing``
and ``virtual-reservations`` kinds on a generated trace (Lublin & Feitelson 2003) under
``easy`` (its kernel) and under EASY written as a user priority policy (first come first
served, one reservation; registered the way the portal's sandboxed child registers an upload),
in this process, and prints the best wall times and their ratio.  Figures only; no assertion.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler.cluster import run_user_policies  # noqa: E402
from scheduler.experiments import run_experiment  # noqa: E402
from scheduler.traces.lublin import generate_lublin99  # noqa: E402

REF = "user:000000000000"
EASY_AS_PRIORITY = """from scheduler.policies import PriorityPolicy


class FirstCome(PriorityPolicy):
    reservations = 1

    def priority(self, job, now):
        return -job.submit
"""


def timed(kind: str, params: dict, trace, repeat: int) -> float:
    """The best of ``repeat`` runs (after one warm-up run: lazy imports, caches)."""
    run_experiment(kind, params, {"traces": [trace]}, seed=0)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run_experiment(kind, params, {"traces": [trace]}, seed=0)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=400)
    ap.add_argument("--procs", type=int, default=64)
    ap.add_argument("--alphas", default="0,0.5,1")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "first_come.py"
        path.write_text(EASY_AS_PRIORITY)
        run_user_policies({REF: f"{path}:FirstCome"})
        trace = generate_lublin99(jobs=args.jobs, procs=args.procs, seed=3)
        cases = {
            "pricing": {"procs": args.procs, "alphas": args.alphas},
            "virtual-reservations": {"procs": args.procs, "days": 2, "warmup_days": 0},
        }
        print(f"{args.jobs} generated jobs on {args.procs} processors; best of {args.repeat}")
        for kind, params in cases.items():
            kernel = timed(kind, {**params, "policy": "easy"}, trace, args.repeat)
            mine = timed(kind, {**params, "policy": REF}, trace, args.repeat)
            print(f"{kind:>22}: easy (kernel) {kernel:7.2f} s   user policy (event loop) "
                  f"{mine:7.2f} s   ratio {mine / kernel:6.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
