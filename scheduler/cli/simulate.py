"""The ``simulate`` subcommand of ``python -m scheduler`` (issue 3 item 6; a stable contract).

    python -m scheduler simulate TRACE.swf[.gz] --procs N
                        --policy {fcfs,easy,conservative,backfill-k[=K],fairshare,...}
                        --estimates {accurate,requested} [--limit K] [--out schedule.csv]

Replays the trace (``--limit K`` keeps the first K jobs of the file, and reads no further) on N
processors.  With
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

from ..cluster.jobs import ESTIMATE_MODES
from ..cluster.policies import POLICIES, get_policy

__all__ = ["add_cluster_commands", "cmd_simulate"]


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.procs < 1:
        raise ValueError(f"--procs must be >= 1, got {args.procs}")
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be >= 1, got {args.limit}")
    from ..cluster.jobs import prepare_jobs, prepare_table
    from ..cluster.simulator import Simulator
    from ..traces.swf import read_swf, read_swf_table

    # the fields the simulation reads, as arrays: no object per SWF record (time, peak memory)
    _, table = read_swf_table(args.trace, limit=args.limit)
    if table is not None:
        jobs, dropped = prepare_table(table, args.procs, args.estimates)
        del table
    else:  # a kept field written with decimals: the records, as the library reads them
        jobs, dropped = prepare_jobs(
            read_swf(args.trace, limit=args.limit).jobs, args.procs, args.estimates
        )  # the parsed trace is freed here: only the simulator's jobs stay (peak memory)
    sim = Simulator(jobs, args.procs, args.policy)
    del jobs
    result = sim.run().result(policy=args.policy, estimates=args.estimates, dropped=dropped)
    del sim
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


def _policy_name(name: str) -> str:
    try:
        get_policy(name)
    except ValueError as exc:
        known = ", ".join(sorted(POLICIES))
        raise argparse.ArgumentTypeError(
            f"invalid choice: {name!r} (choose from {known}, backfill-k=K)"
            if "depth" not in str(exc)
            else str(exc)
        ) from None
    return name


def add_cluster_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``simulate`` on the CLI's subparsers."""
    p = sub.add_parser("simulate", help="replay an SWF trace on one simulated cluster")
    p.add_argument("trace", help="SWF trace (plain or .gz)")
    p.add_argument("--procs", type=int, required=True, help="machine processors")
    p.add_argument(
        "--policy",
        required=True,
        type=_policy_name,
        help=f"one of {', '.join(sorted(POLICIES))}, or backfill-k=K (K >= 1 or inf: "
        "backfilling with reservation depth K; K=1 is EASY, K=inf conservative)",
    )
    p.add_argument("--estimates", choices=ESTIMATE_MODES, required=True)
    p.add_argument("--limit", type=int, help="keep the first K jobs of the file")
    p.add_argument("--out", help="write the schedule CSV here")
    p.set_defaults(func=cmd_simulate)
