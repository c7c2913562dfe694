"""Site quotes on a fixed set of deep instants, for an instruction count (callgrind) A/B of the
quote kernels against another commit: wall time on a shared, loaded machine drifts by several
per cent, the instructions a quote executes do not.

    .venv/bin/python bench/kernels_callgrind.py prepare --rev a40fd1b --dir /tmp/kcg
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python bench/kernels_callgrind.py run --dir /tmp/kcg --side rev --policy easy
    (the same with --side tree, and each with --passes 2: the difference is one warm pass)

``prepare`` builds the commit's kernels as ``make setup`` built them (bench/
sweep_site_quotes_against.py's ``old_price``) into ``--dir`` and pickles, per policy, the
site state (base profile, queued shapes) of every ``--every``-th instant with ``--deep`` or
more queued jobs of CTC-SP2 at 338 processors.  ``run`` loads one side (``rev``: the
commit's price.py and kernels from ``--dir``; ``tree``: this tree's, as installed) and
quotes ``SiteQuote(...).options(32, 7200)`` at each instant, ``--passes`` times.  The
quotes' cost is the difference of the totals with ``--passes 2`` and ``--passes 1``: one
pass with every import, cache and bytecode file already warm.

On a loaded machine one run a side is enough: count only inside the kernel module's Python
entry points (Cython names their wrappers ``__pyx_pw_<module>_*``; one called from inside
another, such as ``_easy._play`` from ``EasyQueue``, toggles counting off until it returns,
alike on both sides), with

    valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
        --toggle-collect='__pyx_pw_9scheduler_7pricing_7_replan_*' \
        .venv/bin/python bench/kernels_callgrind.py run --dir /tmp/kcg --side rev --policy fcfs

(``_replan`` for ``fcfs`` and ``conservative``, ``5_easy`` for ``easy`` and ``backfill-k=4``;
the same with ``--side tree``): the ratio of the two totals is the kernels' own.
"""

from __future__ import annotations

import argparse
import importlib.util
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

POLICIES = ("easy", "backfill-k=4", "fcfs", "conservative")


def prepare(args: argparse.Namespace) -> None:
    import os

    import numpy as np
    from sweep_site_quotes_against import TRACE, old_price

    from scheduler.cluster import prepare_jobs
    from scheduler.cluster.replay import build_index
    from scheduler.io import load_trace

    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    cwd = Path.cwd()
    try:
        os.chdir(out)
        old_price(args.rev, out)
    finally:
        os.chdir(cwd)
    trace = load_trace(str(TRACE))
    jobs, _ = prepare_jobs(trace.jobs, 338, "requested")
    for policy in POLICIES:
        index = build_index(jobs, 338, policy)
        subs = np.unique(index.submit)
        started = np.sort(index.start[index.start >= 0])
        queued = np.searchsorted(index.submit, subs, "right") - np.searchsorted(
            started, subs, "right"
        )
        ats = subs[queued >= args.deep][:: args.every].tolist()
        states = [(index.base_profile(at), index.queued_shapes(at), at) for at in ats]
        (out / f"{policy}.pkl").write_bytes(pickle.dumps(states))
        print(f"{policy}: {len(states)} instants")


def run(args: argparse.Namespace) -> None:
    out = Path(args.dir)
    states = pickle.loads((out / f"{args.policy}.pkl").read_bytes())
    states = states[:: max(1, len(states) // args.quotes)][: args.quotes] if args.quotes else []
    if args.side == "tree":
        from scheduler.pricing.price import SiteQuote
    else:
        from sweep_site_quotes_against import _load

        module = _load("scheduler.pricing.price_rev", out / "price_rev.py")
        steps = sorted(out.rglob("_steps.cpython-*.so"))
        if steps:  # (the commit's kernels take their C functions from the commit's steps)
            package = steps[0].parent.name  # (pricing before the library moved to cluster)
            spec = importlib.util.spec_from_file_location(f"scheduler.{package}._steps", steps[0])
            sys.modules[spec.name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(sys.modules[spec.name])
        for attr, stem in (("_E", "_easy"), ("_R", "_replan")):
            built = sorted(out.rglob(f"{stem}.cpython-*.so"))
            name = f"scheduler.pricing.{stem}"
            spec = importlib.util.spec_from_file_location(name, built[0])
            kernel = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(kernel)
            setattr(module, attr, kernel)
        SiteQuote = module.SiteQuote
    total = 0
    for _ in range(args.passes):
        for base, shapes, at in states:
            opts = SiteQuote(base, shapes, at, args.policy).options(32, 7200)
            total += sum(o.delay for o in opts)
    print(args.side, args.policy, len(states), "quotes x", args.passes, "sum of delays", total)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--rev", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--deep", type=int, default=200)
    p.add_argument("--every", type=int, default=40)
    r = sub.add_parser("run")
    r.add_argument("--dir", required=True)
    r.add_argument("--side", choices=("rev", "tree"), required=True)
    r.add_argument("--policy", choices=POLICIES, required=True)
    r.add_argument("--passes", type=int, default=1, help="quote them this many times")
    r.add_argument("--quotes", type=int, default=40, help="how many instants (spread evenly)")
    args = ap.parse_args()
    prepare(args) if args.cmd == "prepare" else run(args)


if __name__ == "__main__":
    main()
