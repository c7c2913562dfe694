"""The ``slurm-replay`` subcommand: a what-if on a real Slurm site's accounting.

    python -m scheduler slurm-replay SACCT --slurm-conf slurm.conf [--assoc assoc.txt]
        [--qos qos.txt] [--set PriorityWeightAge=0 ...] [--baselines fcfs,easy]
        --out schedule.csv

``SACCT``: ``sacct --allusers --duplicates -P --format=JobID,User,Account,Partition,QOS,State,
Submit,Eligible,Start,End,Timelimit,NCPUS,AllocCPUS,ReqCPUS,Priority``; ``--assoc``:
``sacctmgr -P show assoc``; ``--qos``: ``sacctmgr -P show qos``.  Prints JSON on stdout: what
was understood of the configuration (the keys ignored), waits, slowdowns and CPU shares per
user, account, partition and QOS, and — the dump having real starts — the comparison with
them for the Slurm model and the baselines (see :mod:`scheduler.slurm.replay`).  Writes the
Slurm model's schedule to ``--out``.  Bad input exits 2 naming the file, line and key.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

__all__ = ["add_slurm_commands"]


def _site(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from ..slurm.config import SlurmSite, parse_assoc, parse_qos, parse_slurm_conf

    conf = parse_slurm_conf(Path(args.slurm_conf).read_bytes(), args.slurm_conf)
    site = SlurmSite(conf)
    if args.assoc:
        site.assocs = parse_assoc(Path(args.assoc).read_bytes(), args.assoc)
    if args.qos:
        site.qos = parse_qos(Path(args.qos).read_bytes(), args.qos)
    for assignment in args.set or ():
        site.set(assignment)
    return site


def _cmd_slurm_replay(args: argparse.Namespace) -> int:
    from ..slurm.replay import comparison, group_figures, load_dump, replay, write_schedule
    from ..traces.sacct import SacctError

    site = _site(args)
    try:
        dump = load_dump(Path(args.sacct).read_bytes())
    except SacctError as exc:
        for line, why in exc.errors:
            print(f"error: {args.sacct}: {f'line {line}: ' if line else ''}{why}", file=sys.stderr)
        return 2
    out: dict = {
        "jobs": len(dump),
        "understood": {**site.params().__dict__, "names": None},
        "ignored_keys": site.conf.ignored,
        "ignored_scheduler_parameters": site.conf.sched_ignored,
        "notes": dump.notes,
    }
    out["understood"] = {k: v for k, v in out["understood"].items() if k != "names"}
    t0 = time.process_time()
    start, info = replay(site, dump, "slurm")
    out["replay_cpu_seconds"] = round(time.process_time() - t0, 3)
    out["rejected"] = {dump.job_ids[k]: why for k, why in info["rejected"].items()}
    out["groups"] = group_figures(dump, start, info["cpus"])
    out["comparison"] = {"slurm": comparison(dump, start)}
    for base in filter(None, args.baselines.split(",")):
        out["comparison"][base] = comparison(dump, replay(site, dump, base)[0])
    with open(args.out, "w", newline="") as fh:
        write_schedule(dump, start, fh)
    print(json.dumps(out, indent=1, default=_plain))
    return 0


def _plain(value: object) -> object:
    from dataclasses import asdict, is_dataclass

    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return str(value)


def add_slurm_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``slurm-replay`` on the CLI's subparsers."""
    p = sub.add_parser("slurm-replay", help="what-if on a Slurm site's sacct dump")
    p.add_argument("sacct", help="sacct -P dump (with Account, Partition, QOS, Timelimit)")
    p.add_argument("--slurm-conf", required=True, help="the site's slurm.conf")
    p.add_argument("--assoc", help="sacctmgr -P show assoc")
    p.add_argument("--qos", help="sacctmgr -P show qos")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="change a slurm.conf key or bf_* parameter; repeatable")  # fmt: skip
    p.add_argument("--baselines", default="fcfs,easy", help="registry policies to compare")
    p.add_argument("--out", required=True, help="the Slurm model's schedule (CSV)")
    p.set_defaults(func=_cmd_slurm_replay)
