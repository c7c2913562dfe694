"""The ``simulate`` subcommand of ``python -m scheduler`` (a stable contract).

    python -m scheduler simulate TRACE.swf[.gz] [--procs N]
                        --policy {fcfs,easy,conservative,backfill-k[=K],fairshare,...,FILE.py:CLASS}
                        [--policy ...] --estimates {accurate,requested}
                        [--limit K] [--out schedule.csv]

Replays the trace (``--limit K`` keeps the first K jobs of the file, and reads no further) on N
processors — without ``--procs``, the trace header's MaxProcs (said on stderr).  ``--policy``
takes a built-in policy (the registry, :mod:`scheduler.cluster.registry`) or a user policy
file ``path/to/mine.py:ClassName`` (docs/policies.md); given several times, the same trace is
replayed under each, one after the other (a comparison).  With ``--out`` (one policy only) the
schedule is written as CSV with the header ``job_id,submit,start,end,procs`` and one row per
simulated job (seconds, as in the trace; queue order); the file appears only when complete.
A one-line JSON summary (keys sorted) per policy goes to stdout.  Bad input exits with status
2 and a message naming the problem (``main`` maps ValueError and SWFError to 2).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from ..cluster.jobs import ESTIMATE_MODES
from ..cluster.policy import PolicyError
from ..cluster.registry import BUILTIN, resolve

__all__ = ["add_cluster_commands", "cmd_simulate"]


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.procs is not None and args.procs < 1:
        raise ValueError(f"--procs must be >= 1, got {args.procs}")
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be >= 1, got {args.limit}")
    refs = [resolve(p, files=True) for p in args.policy]  # all checked before the trace is read
    if args.out and len(refs) > 1:
        raise ValueError("--out writes one schedule: give one --policy with it")
    from ..cluster.jobs import prepare_jobs, prepare_table
    from ..cluster.simulator import Simulator
    from ..traces.swf import read_swf, read_swf_table

    # the fields the simulation reads, as arrays: no object per SWF record (time, peak memory)
    header, table = read_swf_table(args.trace, limit=args.limit)
    procs = args.procs
    if procs is None:
        procs = next((v for v in (header.max_procs, header.max_nodes) if v and v > 0), 0)
        if procs < 1:
            raise ValueError("the trace header gives no machine size (MaxProcs): give --procs")
        print(f"simulate: {procs} processors (the trace header's MaxProcs)", file=sys.stderr)
    if table is not None:
        jobs, dropped = prepare_table(table, procs, args.estimates)
        del table
    else:  # a kept field written with decimals: the records, as the library reads them
        jobs, dropped = prepare_jobs(
            read_swf(args.trace, limit=args.limit).jobs, procs, args.estimates
        )  # the parsed trace is freed here: only the simulator's jobs stay (peak memory)
    for ref in refs:
        sim = Simulator(jobs, procs, ref, estimates=args.estimates)
        result = sim.run().result(policy=ref.text, estimates=args.estimates, dropped=dropped)
        del sim
        if args.out:
            _write_schedule(result, Path(args.out))
        print(json.dumps(result.summary(), sort_keys=True), flush=True)
    return 0


def _write_schedule(result, out: Path) -> None:  # type: ignore[no-untyped-def]
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent or ".")
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            result.write_csv(fh)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _policy(text: str) -> str:
    try:
        resolve(text, files=True)
    except PolicyError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_cluster_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``simulate`` on the CLI's subparsers."""
    p = sub.add_parser("simulate", help="replay an SWF trace on one simulated cluster")
    p.add_argument("trace", help="SWF trace (plain or .gz)")
    p.add_argument(
        "--procs", type=int, help="machine processors (default: the trace header's MaxProcs)"
    )
    p.add_argument(
        "--policy",
        required=True,
        action="append",
        type=_policy,
        help=f"one of {', '.join(BUILTIN)} (backfill-k=K: K >= 1 or inf; K=1 is EASY, K=inf "
        "conservative), or a policy file path/to/mine.py:ClassName; repeat to compare",
    )
    p.add_argument("--estimates", choices=ESTIMATE_MODES, required=True)
    p.add_argument("--limit", type=int, help="keep the first K jobs of the file")
    p.add_argument("--out", help="write the schedule CSV here (one policy)")
    p.set_defaults(func=cmd_simulate)
