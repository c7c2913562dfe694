"""Benchmark: parse the real SWF traces and generate a Lublin workload.

    .venv/bin/python bench/bench_swf.py [--traces DIR] [--repeat N] [--jobs N]

Prints jobs, seconds and jobs/s for each trace (best of ``--repeat`` runs) and the time to
generate ``--jobs`` Lublin & Feitelson jobs.  Then, per trace (CPU seconds):
``read_swf`` and ``read_swf_table`` against a plain split-and-int parse (no validation, the
bench_engine floor's), the same reads with every line through the per-line validator (the
vectorised path off), and ``read_swf(limit=1000)`` (reading stops early).  Reports figures
only; it never asserts timing.
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

from bench.bench_engine import plain_parse  # noqa: E402
from scheduler.traces import swf  # noqa: E402
from scheduler.traces.lublin import generate_lublin99  # noqa: E402
from scheduler.traces.swf import read_swf, read_swf_table, write_swf  # noqa: E402

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

    if files:
        swf._get_fast_tables()  # numpy imported outside the timings
        print(
            f"\nCPU s, best of {args.repeat}: {'trace':<30} {'plain':>7} {'read_swf':>9} "
            f"{'table':>7} {'per-line':>9} {'limit 1000':>11}"
        )
    for path in files:
        p = str(path)
        plain = best_cpu(args.repeat, lambda p=p: plain_parse(p))
        read = best_cpu(args.repeat, lambda p=p: read_swf(p))
        table = best_cpu(args.repeat, lambda p=p: read_swf_table(p))
        limited = best_cpu(args.repeat, lambda p=p: read_swf(p, limit=1000))
        fast = swf._fast_table
        swf._fast_table = lambda text: None  # type: ignore[assignment]
        try:
            per_line = best_cpu(args.repeat, lambda p=p: read_swf(p))
        finally:
            swf._fast_table = fast  # type: ignore[assignment]
        print(
            f"{'':<20}{path.name:<30} {plain:>7.3f} {read:>9.3f} {table:>7.3f} {per_line:>9.3f}"
            f" {limited:>11.4f}   read_swf/plain = {read / plain:.2f}x"
        )
    return 0


def best_cpu(repeat: int, fn) -> float:  # type: ignore[no-untyped-def]
    """Least CPU time (process_time) of ``repeat`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


if __name__ == "__main__":
    raise SystemExit(main())
