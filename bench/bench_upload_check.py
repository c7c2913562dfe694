"""Benchmark: checking an uploaded trace (target: "validation memory does not grow with the
file; the 200 MB case stays under 100 MB of extra memory").

    .venv/bin/python bench/bench_upload_check.py [--mb 200]

Writes an SWF file of about ``--mb`` MB of valid job lines (CTC-SP2's jobs repeated) with one bad
line at the end, then checks it in a fresh process each way, side by side: ``read_swf`` +
``trace_summary`` (what an upload did before: every job kept) and ``scan_swf`` + ``SummarySink``
(what the upload check does now: every line checked, no job kept).  Prints wall time, CPU and
the peak resident memory above the process's own start (ru_maxrss of the child, minus an empty
child's).  Nothing is asserted.  (The portal refuses bodies over GRIDPORTAL_MAX_UPLOAD_BYTES —
100 MiB by default — before reading them; this measures the check itself.)
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"

CHILD = r"""
import resource, sys, time
sys.path.insert(0, sys.argv[3])
from scheduler.traces.swf import SWFError, read_swf, scan_swf
from scheduler.traces.stats import SummarySink, trace_summary
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0, c0 = time.monotonic(), time.process_time()
try:
    if sys.argv[1] == "read":
        trace_summary(read_swf(sys.argv[2]))
    elif sys.argv[1] == "scan":
        scan_swf(sys.argv[2], SummarySink())
    outcome = "accepted"
except SWFError as exc:
    outcome = f"refused: line {exc.errors[0][0]}"
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
wall, cpu = time.monotonic() - t0, time.process_time() - c0
print(f"{wall:.2f} {cpu:.2f} {(peak - base) / 1024:.0f} {outcome}")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=200)
    args = ap.parse_args()
    lines = [ln for ln in gzip.open(DATA, "rt") if ln.strip() and not ln.startswith(";")]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.swf"
        target = int(args.mb * 1e6)
        with open(path, "w") as fh:
            fh.write("; MaxProcs: 430\n")
            written = 0
            while written < target:
                chunk = "".join(lines)
                fh.write(chunk)
                written += len(chunk)
            fh.write("1 2 3 this line is broken\n")
        size = path.stat().st_size
        print(f"{size / 1e6:.0f} MB of job lines ({size // 83:,} jobs approx.), bad last line")
        print(f"{'':6} {'wall s':>7} {'CPU s':>7} {'extra MiB':>10}  outcome")
        for how in ("read", "scan"):
            out = subprocess.run(
                [sys.executable, "-c", CHILD, how, str(path), str(ROOT)],
                capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"},
            )  # fmt: skip
            wall, cpu, mib, *outcome = out.stdout.split() or ["?", "?", "?", out.stderr[-200:]]
            print(f"{how:6} {wall:>7} {cpu:>7} {mib:>10}  {' '.join(outcome)}")


if __name__ == "__main__":
    main()
