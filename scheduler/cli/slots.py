"""The ``slots`` subcommand of ``python -m scheduler`` (a stable contract).

    python -m scheduler slots TRACE --procs N [--estimates accurate|requested] --at T
                              --out slots.json

Replays the SWF trace under conservative backfilling on N processors up to simulated time T
(the trace's own time base, seconds; every job submitted at or before T is known, every event
at or before T has happened) and writes the slots the plan advertises at T
(:func:`scheduler.slots.advertise`) as a JSON list of objects with ``start``, ``procs``,
``duration`` (seconds; an extensible edge slot's advertised duration runs to the horizon
``max(T + 48 h, last planned finish + 5 min)``), ``unit_cost``, ``fixed_cost``, ``divisible``
and ``extensible``, sorted by start.  ``--estimates`` defaults to ``accurate`` (thesis ch. 3).
``--out -`` writes the list to stdout; otherwise the file appears only when complete and a
one-line JSON summary goes to stdout.  Bad input exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from ..cluster import ESTIMATE_MODES, Simulator, prepare_jobs
from ..slots.advertise import DEFAULT_TAIL, DEFAULT_WINDOW, advertise_simulator
from ..traces.swf import read_swf

__all__ = ["add_slot_commands", "cmd_slots"]


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cmd_slots(args: argparse.Namespace) -> int:
    if args.procs < 1:
        raise ValueError(f"--procs must be >= 1, got {args.procs}")
    for name in ("unit_cost", "fixed_cost"):
        if not getattr(args, name) >= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 0")
    trace = read_swf(args.trace)
    jobs, dropped = prepare_jobs(trace.jobs, args.procs, args.estimates)
    origin = min([args.at] + [j.submit for j in jobs[:1]])
    sim = Simulator(jobs, args.procs, "conservative", origin=origin)
    sim.run(until=args.at)
    slots = advertise_simulator(
        sim, args.at, window=DEFAULT_WINDOW, tail=DEFAULT_TAIL,
        unit_cost=args.unit_cost, fixed_cost=args.fixed_cost,
    )  # fmt: skip
    text = json.dumps([s.as_json() for s in slots], indent=1) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    _write_atomic(Path(args.out), text)
    known = sum(1 for j in jobs if j.submit <= args.at)
    summary = {
        "at": args.at,
        "slots": len(slots),
        "jobs_known": known,
        "jobs_dropped": sum(dropped.values()),
        "horizon": max((s.end for s in slots), default=args.at),
        "free_procs_now": sim.profile.free_at(args.at),
    }
    print(json.dumps(summary, sort_keys=True))
    return 0


def add_slot_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``slots`` on the CLI's subparsers."""
    p = sub.add_parser(
        "slots", help="the slots a conservative-backfilling site advertises at time T"
    )
    p.add_argument("trace", help="SWF trace (plain or .gz)")
    p.add_argument("--procs", type=int, required=True, help="machine processors")
    p.add_argument("--estimates", choices=ESTIMATE_MODES, default="accurate")
    p.add_argument("--at", type=int, required=True, metavar="T",
                   help="simulated time (seconds, the trace's time base)")  # fmt: skip
    p.add_argument("--out", required=True, help="where to write the JSON list ('-': stdout)")
    p.add_argument("--unit-cost", type=float, default=1.0, help="c: SU per processor-hour")
    p.add_argument("--fixed-cost", type=float, default=0.0, help="f: SU per slot")
    p.set_defaults(func=cmd_slots)
