"""Benchmark: parse the real SWF traces and generate a Lublin workload.

    .venv/bin/python bench/bench_swf.py [--traces DIR] [--repeat N] [--jobs N]

Prints jobs, seconds and jobs/s for each trace (best of ``--repeat`` runs) and the time to
generate ``--jobs`` Lublin & Feitelson jobs.  Reports figures only; it never asserts timing.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler.traces.lublin import generate_lublin99  # noqa: E402
from scheduler.traces.swf import read_swf, write_swf  # noqa: E402

DEFAULT_TRACES = ROOT.parent / "shared" / "data" / "traces"


def best_of(repeat: int, fn):  # type: ignore[no-untyped-def]
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=100_000)
    args = parser.parse_args(argv)

    print(f"{'trace':<34} {'jobs':>8} {'seconds':>8} {'jobs/s':>10}")
    files = sorted(args.traces.glob("*.swf*")) if args.traces.is_dir() else []
    if not files:
        print(f"(no traces found at {args.traces})")
    for path in files:
        seconds, trace = best_of(args.repeat, lambda p=path: read_swf(p))
        n = len(trace.jobs)
        print(f"{path.name:<34} {n:>8} {seconds:>8.3f} {n / seconds:>10,.0f}")

    seconds, trace = best_of(
        args.repeat, lambda: generate_lublin99(jobs=args.jobs, procs=128, seed=1)
    )
    n = len(trace.jobs)
    print(f"{'generate_lublin99 (128 procs)':<34} {n:>8} {seconds:>8.3f} {n / seconds:>10,.0f}")

    def write() -> int:
        buf = io.BytesIO()
        write_swf(trace, buf)
        return len(buf.getvalue())

    seconds, size = best_of(args.repeat, write)
    print(f"{'write_swf (same trace)':<34} {n:>8} {seconds:>8.3f} {n / seconds:>10,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
