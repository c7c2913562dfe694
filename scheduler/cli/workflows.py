"""The workflow subcommands of ``python -m scheduler`` (a stable contract).

    python -m scheduler workflow-info FILE [--default-runtime S]
    python -m scheduler generate-workflow --model {layered,cybershake,montage} [model options]
                        [--clusters-per-level K | --tasks-per-cluster M] --seed S --out FILE.json

``workflow-info`` prints one JSON object whose first keys are, in this order: ``tasks`` (real
tasks, no virtual entry/exit), ``edges`` (distinct parent→child pairs), ``levels`` (longest path
counted in tasks), ``critical_path`` (seconds, runtimes only) and ``average_parallelism`` (total
runtime / critical path; null when the critical path is 0); more keys follow (see
``scheduler.workflows.metrics.summarize``).  ``generate-workflow`` writes the native JSON
format.  Bad input exits with status 2 and a message naming the file and the line or JSON path.

It lives with the CLI (the house): the workflow package knows nothing of argparse, and
the parsers and generators load only when a workflow command runs, not on every command's
start-up.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..workflows.dag import Workflow

__all__ = ["add_workflow_commands", "cmd_generate_workflow", "cmd_workflow_info"]


def _report(path: str, exc) -> int:  # type: ignore[no-untyped-def]
    for location, reason in exc.errors:
        print(f"error: {path}: {location}: {reason}", file=sys.stderr)
    return 2


def cmd_workflow_info(args: argparse.Namespace) -> int:
    from ..workflows.dag import WorkflowError
    from ..workflows.loader import load_workflow
    from ..workflows.metrics import summarize

    try:
        workflow = load_workflow(args.file, default_runtime=args.default_runtime)
    except WorkflowError as exc:
        return _report(args.file, exc)
    print(json.dumps(summarize(workflow)))
    return 0


def _generate(args: argparse.Namespace) -> Workflow:
    from ..workflows.gen_cybershake import generate_cybershake
    from ..workflows.gen_layered import generate_layered
    from ..workflows.gen_montage import generate_montage

    options: dict[str, Any] = {"seed": args.seed, "name": args.name}
    if args.model == "layered":
        return generate_layered(
            args.tasks,
            args.levels,
            mean_runtime=args.mean_runtime,
            mean_processors=args.mean_procs,
            parents_per_task=args.parents,
            max_processors=args.max_procs,
            mean_data=args.mean_data,
            **options,
        )
    if args.model == "cybershake":
        return generate_cybershake(
            args.pairs, runtime_jitter=args.jitter, edge_data=args.edge_data, **options
        )
    return generate_montage(args.images, jpeg=args.jpeg, runtime_jitter=args.jitter, **options)


def cmd_generate_workflow(args: argparse.Namespace) -> int:
    from ..workflows.clustering import cluster_fixed_clusters, cluster_fixed_size
    from ..workflows.metrics import summarize
    from ..workflows.native import write_native

    workflow = _generate(args)
    if args.clusters_per_level is not None:
        workflow = cluster_fixed_clusters(workflow, args.clusters_per_level)
    elif args.tasks_per_cluster is not None:
        workflow = cluster_fixed_size(workflow, args.tasks_per_cluster)
    write_native(workflow, args.out)
    info = summarize(workflow)
    print(
        f"wrote {info['tasks']} tasks, {info['edges']} edges, {info['levels']} levels to {args.out}"
    )
    return 0


def add_workflow_commands(sub: Any) -> None:
    """Register ``workflow-info`` and ``generate-workflow`` on an argparse subparsers object."""
    p = sub.add_parser("workflow-info", help="counts, levels and critical path of a workflow")
    p.add_argument("file", help="Pegasus DAX (XML), WfFormat JSON or gridportal-workflow JSON")
    p.add_argument(
        "--default-runtime",
        type=float,
        default=None,
        metavar="S",
        help="seconds for tasks whose file gives no runtime (default: they are errors)",
    )
    p.set_defaults(func=cmd_workflow_info)

    p = sub.add_parser("generate-workflow", help="generate a workflow (native JSON)")
    p.add_argument("--model", choices=["layered", "cybershake", "montage"], required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default=None, help="workflow name (default: from the model)")
    p.add_argument("--out", required=True, help="where to write the workflow JSON")
    g = p.add_argument_group("layered (thesis §4.7)")
    g.add_argument("--tasks", type=int, default=100)
    g.add_argument("--levels", type=int, default=10)
    g.add_argument("--mean-runtime", type=float, default=1000.0, help="seconds")
    g.add_argument("--mean-procs", type=float, default=22.0)
    g.add_argument("--parents", type=float, default=2.0, help="mean parents per task")
    g.add_argument("--max-procs", type=int, default=None, help="clip processor counts")
    g.add_argument("--mean-data", type=float, default=0.0, help="mean bytes per edge")
    g = p.add_argument_group(
        "cybershake (thesis §4.8) and montage (Singh, Kesselman & Deelman 2005)"
    )
    g.add_argument("--pairs", type=int, default=4017, help="synthSGT/peakValCal pairs")
    g.add_argument("--edge-data", type=int, default=0, help="bytes on every CyberShake edge")
    g.add_argument("--images", type=int, default=166, help="Montage input images")
    g.add_argument("--jpeg", action="store_true", help="Montage: add mShrink and mJPEG")
    g.add_argument("--jitter", type=float, default=0.0, help="runtime spread in [0, 1)")
    g = p.add_argument_group(
        "clustering (Singh, Kesselman & Deelman 2005, §4.2-4.3)"
    ).add_mutually_exclusive_group()
    g.add_argument("--clusters-per-level", type=int, default=None, metavar="K")
    g.add_argument("--tasks-per-cluster", type=int, default=None, metavar="M")
    p.set_defaults(func=cmd_generate_workflow)
