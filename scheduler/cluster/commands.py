"""The ``simulate`` subcommand of ``python -m scheduler`` (issue 3 item 6; a stable contract).

    python -m scheduler simulate TRACE.swf[.gz] --procs N --policy {fcfs,easy,conservative}
                        --estimates {accurate,requested} [--limit K] [--out schedule.csv]

Replays the trace (``--limit K`` keeps the first K jobs of the file) on N processors.  With
``--out`` the schedule is written as CSV with the header ``job_id,submit,start,end,procs`` and
one row per simulated job (seconds, as in the trace; queue order); the file appears only when
complete.  A one-line JSON summary (keys sorted) goes to stdout.  Bad input exits with status
2 and a message naming the problem (``main`` maps ValueError and SWFError to 2).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from ..io import load_trace
from .jobs import ESTIMATE_MODES
from .policy import POLICIES
from .simulator import simulate

__all__ = ["add_cluster_commands", "cmd_simulate"]


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.procs < 1:
        raise ValueError(f"--procs must be >= 1, got {args.procs}")
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be >= 1, got {args.limit}")
    trace = load_trace(args.trace)
    result = simulate(trace, args.procs, args.policy, args.estimates, limit=args.limit)
    if args.out:
        out = Path(args.out)
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent or ".")
        try:
            with os.fdopen(fd, "w", newline="") as fh:
                result.write_csv(fh)
            os.replace(tmp, out)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    print(json.dumps(result.summary(), sort_keys=True))
    return 0


def add_cluster_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``simulate`` on the CLI's subparsers."""
    p = sub.add_parser("simulate", help="replay an SWF trace on one simulated cluster")
    p.add_argument("trace", help="SWF trace (plain or .gz)")
    p.add_argument("--procs", type=int, required=True, help="machine processors")
    p.add_argument("--policy", choices=sorted(POLICIES), required=True)
    p.add_argument("--estimates", choices=ESTIMATE_MODES, required=True)
    p.add_argument("--limit", type=int, help="keep the first K jobs of the file")
    p.add_argument("--out", help="write the schedule CSV here")
    p.set_defaults(func=cmd_simulate)
