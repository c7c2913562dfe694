"""The ``convert`` subcommand: other workload formats → SWF.

    python -m scheduler convert sacct FILE -o out.swf [--procs N] [--report report.json]
        [--lenient] [--format jobid,jobidraw,…]

``FILE`` is Slurm accounting output, plain or gzipped: ``sacct -P`` (``--parsable2``, or
``--parsable``) with its columns in any order, with a header line or without one (then
``--format`` names its columns, default Open XDMoD's order), ``--format=ALL`` included, or the
plain fixed-width form; see :mod:`scheduler.traces.sacct` for the command to run on the cluster,
how rows over several lines and ``|`` in job names are repaired, and how every field is mapped.
The conversion report (jobs kept, steps folded, jobs dropped by reason, repaired and skipped
rows, missing fields, the user/group/QOS/partition numbering, jobs wider than ``--procs``) is
printed as JSON on stdout and written to ``--report`` when given; its notes and skipped rows
also go to stderr.  A row that cannot be read exits with status 2, naming its line and the
cause, and nothing is written (strict); ``--lenient`` skips such rows and names them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["add_convert_commands"]


def _cmd_convert_sacct(args: argparse.Namespace) -> int:
    from ..traces.sacct import SacctError, sacct_to_swf

    try:
        data = Path(args.file).read_bytes()
        text, report = sacct_to_swf(
            data, max_procs=args.procs, lenient=args.lenient, columns=args.columns
        )
    except SacctError as exc:
        for line, why in exc.errors:
            where = f"{args.file}: line {line}" if line else args.file
            print(f"error: {where}: {why}", file=sys.stderr)
        return 2
    out = Path(args.out)
    if out.name.endswith(".gz"):
        _write_gz(out, text)
    else:
        out.write_text(text)
    summary = report.as_json()
    for line in report.skipped:
        print(f"skipped: {args.file}: {line}", file=sys.stderr)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.report:
        Path(args.report).write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary))
    return 0


def _write_gz(path: Path, text: str) -> None:
    import gzip

    with gzip.GzipFile(path, "wb", mtime=0) as gz:
        gz.write(text.encode())


def add_convert_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("convert", help="convert other workload formats to SWF")
    formats = p.add_subparsers(dest="format", required=True)
    s = formats.add_parser("sacct", help="Slurm accounting (sacct -P, any columns) → SWF")
    s.add_argument("file", help="sacct -P output (with or without its header line; .gz too)")
    s.add_argument("-o", "--out", required=True, help="the SWF file to write (.gz compresses)")
    s.add_argument("--procs", type=int, help="the cluster's CPUs (MaxProcs); default: peak use")
    s.add_argument("--report", help="also write the conversion report (JSON) here")
    s.add_argument(
        "--lenient", action="store_true",
        help="skip rows that cannot be read (cut off, …) and name them, instead of refusing",
    )  # fmt: skip
    s.add_argument(
        "--format", dest="columns", metavar="LIST",
        help="the sacct --format list of a file without a header line "
        "(default: Open XDMoD's: jobid,jobidraw,cluster,…,jobname)",
    )  # fmt: skip
    s.set_defaults(func=_cmd_convert_sacct)
