"""The ``slurm-replay`` subcommand: a what-if on a real Slurm site's accounting.

    python -m scheduler slurm-replay SACCT --slurm-conf slurm.conf [--assoc assoc.txt]
        [--qos qos.txt] [--sshare sshare.txt] [--set PriorityWeightAge=0 ...]
        [--baselines fcfs,easy]
        --out schedule.csv

``SACCT``: ``sacct --allusers --duplicates -P --format=JobID,User,Account,Partition,QOS,State,
Submit,Eligible,Start,End,Timelimit,NCPUS,AllocCPUS,ReqCPUS,Priority``; ``--assoc``:
``sacctmgr -P show assoc``; ``--qos``: ``sacctmgr -P show qos``; ``--sshare``:
``sshare -a -P`` taken when the dump starts (each user's RawUsage is their usage before the
first job).  Prints JSON on stdout: what was understood of the configuration (the keys
ignored), waits, slowdowns and CPU shares per user, account, partition and QOS, and — the
dump having real starts — the comparison with them for the Slurm model and the baselines
(see :mod:`scheduler.slurm.replay`); under ``figures`` the figures of the portal's
``slurm-whatif`` run, from the same function (:func:`scheduler.slurm.whatif.whatif_figures`:
the configuration changed by ``--set`` against the unchanged one and the recording, shares
over time against their targets).  Writes the Slurm model's schedule (with the changes) to
``--out``.  Bad input exits 2 naming the file, line and key.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

__all__ = ["add_slurm_commands"]


def _site(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The site as its files say (the changes of ``--set`` are applied by the what-if)."""
    from ..slurm.config import SlurmSite, parse_assoc, parse_qos, parse_slurm_conf, parse_sshare

    conf = parse_slurm_conf(Path(args.slurm_conf).read_bytes(), args.slurm_conf)
    site = SlurmSite(conf)
    if args.assoc:
        site.assocs = parse_assoc(Path(args.assoc).read_bytes(), args.assoc)
    if args.qos:
        site.qos = parse_qos(Path(args.qos).read_bytes(), args.qos)
    if args.sshare:
        site.usage = parse_sshare(Path(args.sshare).read_bytes(), args.sshare)
    for assignment in args.set or ():
        site.copy().set(assignment)  # refused here, naming the key, before any replay
    return site


def _cmd_slurm_replay(args: argparse.Namespace) -> int:
    from ..slurm.replay import comparison, load_dump, replay, write_schedule
    from ..slurm.whatif import SiteInput, whatif_figures, whatif_replays
    from ..traces.sacct import SacctError

    site = _site(args)
    try:
        dump = load_dump(Path(args.sacct).read_bytes())
    except SacctError as exc:
        for line, why in exc.errors:
            print(f"error: {args.sacct}: {f'line {line}: ' if line else ''}{why}", file=sys.stderr)
        return 2
    overrides = list(args.set or ())
    loaded = SiteInput(site, dump, args.sacct)
    t0 = time.process_time()
    replays = whatif_replays(loaded, overrides)
    cpu_seconds = round(time.process_time() - t0, 3)
    changed, start = replays["changed"], replays["starts"]["changed"]
    # the figures of the portal's slurm-whatif run, computed by the same function
    figures = whatif_figures(loaded, overrides, replays=replays)
    understood = {k: v for k, v in changed.params().__dict__.items() if k != "names"}
    out: dict = {
        "jobs": len(dump),
        "understood": understood,
        "ignored_keys": site.conf.ignored,
        "ignored_scheduler_parameters": site.conf.sched_ignored,
        "notes": dump.notes,
        "replay_cpu_seconds": cpu_seconds,
        "rejected": figures["rejected"]["changed"],
        "groups": figures["groups"]["changed"],
        "comparison": {"slurm": figures["comparison"]["changed"]},
        "figures": figures,
    }
    for base in filter(None, args.baselines.split(",")):
        out["comparison"][base] = comparison(dump, replay(changed, dump, base)[0])
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
    p.add_argument("--sshare", help="sshare -a -P: the users' RawUsage before the dump")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="change a slurm.conf key or bf_* parameter; repeatable")  # fmt: skip
    p.add_argument("--baselines", default="fcfs,easy", help="registry policies to compare")
    p.add_argument("--out", required=True, help="the Slurm model's schedule (CSV)")
    p.set_defaults(func=_cmd_slurm_replay)
