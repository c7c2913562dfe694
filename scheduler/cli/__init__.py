"""``python -m scheduler``: the engine's command line (a stable contract; other tools call it).

    python -m scheduler --version                    (the engine's version, e.g. "0.1.0")
    python -m scheduler kinds
    python -m scheduler run KIND [--params P.json] [--preset NAME] [--trace FILE]...
                                 [--workflow FILE]... [--policies FILE] [--topology FILE]
                                 [--slurm-site DIR] [--seed N]
                                 --out RESULT.json
    python -m scheduler reproduce [--kind K] [--preset P] [--trace NAME=FILE]... [--traces DIR]
                        [--max-preset-minutes M] [--budget-minutes M] --out report.json
                                      (and report.html beside it; see experiments/reproduce.py)
    python -m scheduler generate-trace --model lublin99 --jobs N --procs P --seed S --out X.swf
    python -m scheduler workflow-info FILE            (JSON: tasks, edges, levels, critical_path,
                                                       average_parallelism, …)
    python -m scheduler generate-workflow --model {layered,cybershake,montage} ... --seed S
                                          --out FILE.json   (see scheduler/cli/workflows.py)
    python -m scheduler simulate TRACE.swf[.gz] --procs N --policy {fcfs,easy,conservative}
                        --estimates {accurate,requested} [--limit K] [--out schedule.csv]
                                      (CSV job_id,submit,start,end,procs; JSON summary on stdout)
    python -m scheduler convert sacct FILE -o out.swf [--procs N] [--report R.json]
                                      (Slurm accounting → SWF; see scheduler/cli/convert.py)
    python -m scheduler slurm-replay SACCT --slurm-conf slurm.conf [--assoc A] [--qos Q]
                        [--set KEY=VALUE]... --out schedule.csv   (see scheduler/cli/slurm.py)
    python -m scheduler slots TRACE.swf[.gz] --procs N [--estimates accurate|requested] --at T
                        --out slots.json   (see scheduler/cli/slots.py)

Exit status 0 on success, 2 on bad input (the message names the file, line or field).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..traces.swf import SWFError


def _experiments():  # type: ignore[no-untyped-def]
    """The experiment catalogue, imported only by the commands that use it (start-up)."""
    from .. import experiments

    return experiments


def _cmd_kinds(args: argparse.Namespace) -> int:
    experiments = _experiments()
    for kind in experiments.kinds():
        print(kind.name)
    return 0


def _read_params(args: argparse.Namespace, kind) -> dict:  # type: ignore[no-untyped-def]
    experiments = _experiments()
    params: dict = {}
    if args.preset:
        try:
            params.update(kind.preset(args.preset).params)
        except KeyError:
            names = ", ".join(p.name for p in kind.presets) or "none"
            raise experiments.ParamError(
                {"preset": f"unknown preset {args.preset!r} (known: {names})"}
            ) from None
    if args.params:
        try:
            given = json.loads(Path(args.params).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise experiments.ParamError({"params": f"cannot read {args.params}: {exc}"}) from None
        if not isinstance(given, dict):
            raise experiments.ParamError({"params": f"{args.params} must hold a JSON object"})
        params.update(given)
    return params


def _cmd_run(args: argparse.Namespace) -> int:
    from ..experiments.passes import set_workers

    set_workers(args.jobs)
    from ..io import load_input

    experiments = _experiments()
    kind = experiments.get_kind(args.kind)
    params = _read_params(args, kind)
    paths = {
        "traces": args.trace or [],
        "workflows": args.workflow or [],
        "policies": [args.policies] if args.policies else [],
        "topology": [args.topology] if args.topology else [],
        "site": [args.slurm_site] if args.slurm_site else [],
    }
    experiments.base.check_inputs(kind, paths)
    specs = {spec.name: spec for spec in kind.inputs}
    inputs = {
        name: [load_input(specs[name].kind, p) for p in files]
        for name, files in paths.items()
        if files
    }

    def progress(fraction: float, message: str) -> None:
        if args.verbose:
            print(f"{fraction:6.1%} {message}", file=sys.stderr)

    result = experiments.run_experiment(
        kind.name, params, inputs, seed=args.seed, progress=progress
    )
    Path(args.out).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(json.dumps(result["summary"], sort_keys=True))
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from ..experiments.passes import set_workers

    set_workers(args.jobs)
    from ..experiments.reproduce import reproductions
    from ..experiments.reproduce_report import build_report, honest_lines, write_report

    experiments = _experiments()

    given = {}
    for item in args.trace or []:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise experiments.ParamError(
                {"trace": f"give NAME=FILE (e.g. CTC-SP2=ctc.swf.gz), not {item!r}"}
            )
        given[name] = path
    reps = reproductions(args.kind, args.preset)
    if not reps:
        raise experiments.ParamError({"preset": "no preset with published values matches"})
    report = build_report(
        reps, trace_files=given, trace_dirs=tuple(args.traces or ()), seed=args.seed,
        max_preset_minutes=args.max_preset_minutes, budget_minutes=args.budget_minutes,
        log=lambda message: print(message, file=sys.stderr, flush=True),
    )  # fmt: skip
    written = write_report(report, args.out, docs=args.docs)
    print(json.dumps(report["totals"]))
    for line in honest_lines(report):
        print(line, file=sys.stderr)
    print(f"total time {report['elapsed_s']:.0f} s; wrote {', '.join(map(str, written))}",
          file=sys.stderr)  # fmt: skip
    return 0


def _cmd_generate_trace(args: argparse.Namespace) -> int:
    from ..traces.lublin import generate_lublin99
    from ..traces.swf import write_swf

    trace = generate_lublin99(jobs=args.jobs, procs=args.procs, seed=args.seed)
    write_swf(trace, args.out)
    print(f"wrote {len(trace.jobs)} jobs to {args.out}")
    return 0


def _jobs(text: str) -> int:
    from ..experiments.passes import MAX_WORKERS

    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"give a whole number from 1 to {MAX_WORKERS}")
    return n


def _jobs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs", type=_jobs, default=1, metavar="N",
        help="run an experiment's independent passes (pricing: one per α) in N processes; "
        "the results are the same as with 1",
    )  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scheduler", description="GridPortal scheduling engine"
    )
    from .. import __version__

    # (written into each result of an exported job array; the portal compares it on upload)
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("kinds", help="list the experiment kinds, one per line")
    p.set_defaults(func=_cmd_kinds)

    p = sub.add_parser("run", help="run one experiment headless")
    p.add_argument("kind")
    p.add_argument("--params", help="JSON file with the parameters")
    p.add_argument("--preset", help="start from a named preset of the kind")
    p.add_argument("--trace", action="append", help="SWF trace (plain or .gz); repeatable")
    p.add_argument("--workflow", action="append", help="workflow file; repeatable")
    p.add_argument("--policies", help="usage-policy document (JSON: sites, VOs, policies)")
    p.add_argument("--topology", help="co-allocation topology document (JSON: sites, links)")
    p.add_argument("--slurm-site", help="a Slurm site's folder: dump.sacct (or .gz), "
                   "slurm.conf, and optionally assoc.txt, qos.txt")  # fmt: skip
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="where to write the Result JSON")
    p.add_argument("-v", "--verbose", action="store_true", help="print progress to stderr")
    _jobs_option(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser(
        "reproduce", help="run the presets with published values; write a JSON + HTML report"
    )
    p.add_argument("--kind", help="only this experiment kind")
    p.add_argument("--preset", help="only presets of this name")
    p.add_argument(
        "--trace",
        action="append",
        metavar="NAME=FILE",
        help="archive trace NAME (as for manage.py fetch_trace) is FILE; repeatable",
    )
    p.add_argument(
        "--traces",
        action="append",
        metavar="DIR",
        help="directory holding archive traces (<NAME>-*.swf[.gz]); repeatable",
    )
    p.add_argument(
        "--max-preset-minutes",
        type=float,
        default=None,
        help="leave out presets declared longer than this (reported as skipped)",
    )
    p.add_argument(
        "--budget-minutes",
        type=float,
        default=None,
        help="start no preset once this much wall time is spent",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="report JSON; the HTML page goes beside it")
    p.add_argument(
        "--docs", metavar="PATH", help="also write the scoreboard as PATH.md and PATH.json"
    )
    _jobs_option(p)
    p.set_defaults(func=_cmd_reproduce)

    p = sub.add_parser("generate-trace", help="generate a synthetic SWF trace")
    p.add_argument("--model", choices=["lublin99"], default="lublin99")
    p.add_argument("--jobs", type=int, required=True)
    p.add_argument("--procs", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_cmd_generate_trace)

    from .convert import add_convert_commands
    from .simulate import add_cluster_commands
    from .slots import add_slot_commands
    from .slurm import add_slurm_commands
    from .workflows import add_workflow_commands

    add_workflow_commands(sub)  # workflow-info, generate-workflow
    add_cluster_commands(sub)  # simulate
    add_slot_commands(sub)  # slots
    add_convert_commands(sub)  # convert sacct
    add_slurm_commands(sub)  # slurm-replay
    return parser


def _one_blas_thread(argv: list[str] | None) -> None:
    """``simulate`` does no linear algebra: unless told otherwise, numpy's OpenBLAS starts one
    thread instead of a pool, which spares ~40 ms of CPU at its import (a third of it).
    Only before numpy is loaded: in a process that has it, nothing (children included) changes."""
    first = (sys.argv[1:] if argv is None else argv)[:1]
    if first == ["simulate"] and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> int:
    _one_blas_thread(argv)
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:
        # ParamError can only come from the catalogue, hence only once it is imported
        schema = sys.modules.get("scheduler.experiments.schema")
        if schema is None or not isinstance(exc, schema.ParamError):
            return _other_error(exc)
        for field, message in exc.errors.items():
            print(f"error: {field}: {message}", file=sys.stderr)
        return 2
    except (KeyError, OSError) as exc:
        return _other_error(exc)


def _other_error(exc: Exception) -> int:
    if isinstance(exc, SWFError):
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if isinstance(exc, KeyError | ValueError | OSError):
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {message}", file=sys.stderr)
        return 2
    raise exc
