"""Site quotes at every deep instant, this tree against an earlier commit IN THE SAME RUN
(absolute CPU times on a shared machine drift with its load; a same-run ratio does not).

The commit's ``scheduler/pricing/price.py`` is loaded from git beside this tree's, and its two
quote kernels (``_easy.py``, ``_replan.py``) are built from its sources into a temporary
directory exactly as ``make setup`` built them for that commit (the same stamped copy, module
name and flags: the same machine code, so the same layout; see :func:`old_price`) and given
to it; then, at every submission instant
with ``--deep`` or more queued jobs (every ``--every``-th of them), both quote
(``SiteQuote(...).options(32 p, 2 h)``, CPU time), the two alternating which goes first, and
the option lists are compared.  Prints median / p95 / p99 / max per side, how many quotes
took over 10 ms, and whether every option list is identical; then the same per band of queue
length (200-400, 400-800, 800-1,600, 1,600+ queued jobs: under FCFS the queue grows to
thousands of jobs, and ``--every`` samples every depth alike).  The timed quote starts from
the replay index, as a site page's does (this tree: ``scheduler.pricing.site.quote_at``; the
commit: ``SiteQuote(index.base_profile(at), index.queued_shapes(at), ...)``): by default
both sides read this tree's index; with ``--rev-index`` the commit's side reads the same
replay through the commit's ``scheduler/cluster/replay.py`` (the whole site-page quote of
each tree).

``--rev HEAD`` is the null comparison (the same code on both sides): p99 ratio 0.99 on
EASY (session 2026-11-27 (4)); built without the stamp line, the commit's side had run 6 %
faster than the installed build of the same source, a bias in every earlier ratio.

With ``--repeat K`` each instant is quoted K times per side (the sides alternating) and the
least CPU time kept: a p99 over single runs moves by several per cent with bursts of other
load on a shared machine, the least of three does not.

    nice -n 5 .venv/bin/python bench/sweep_site_quotes_against.py --rev 7a0375c --policy easy
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from scheduler._native import status  # noqa: E402
from scheduler.cluster import prepare_jobs  # noqa: E402
from scheduler.cluster.replay import build_index  # noqa: E402
from scheduler.io import load_trace  # noqa: E402
from scheduler.pricing import price as new  # noqa: E402
from scheduler.pricing.site import quote_at  # noqa: E402

TRACE = ROOT.parent / "shared" / "data" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"


def _show(rev: str, path: str) -> str:
    return subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout


def _load(name: str, path: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def old_price(rev: str, tmp: Path):  # type: ignore[no-untyped-def]
    """``rev``'s price.py, with ``rev``'s kernels built in ``tmp`` as ``make setup`` built them
    for that commit: the same stamped copy (``build/native/<path>`` with its
    ``__source_sha256__`` line, setup.py's), module name, directives and flags, so the same
    machine code (checked here: ``objdump -d`` of this tree's own build made so is the
    installed one's).  Layout matters: the same source built without the stamp line (which
    shifts the hot loops by a few bytes) ran 6 % faster or 2 % slower than the installed
    build, kernel by kernel, in the same process (session 2026-11-27 (4))."""
    from Cython.Build import cythonize
    from setuptools import Extension, setup

    paths = {"_E": "scheduler/pricing/_easy.py", "_R": "scheduler/pricing/_replan.py"}
    # the kernels' shared steps: in scheduler/pricing since a40fd1b, in scheduler/cluster since
    # the whole-run loops share them too
    homes = ("scheduler/cluster/_steps.py", "scheduler/pricing/_steps.py")
    steps = next((p for p in homes if _has(rev, p)), homes[0])
    has_steps = _has(rev, steps)
    if has_steps:  # built first, with its .pxd (which the kernels cimport) found in tmp
        for pkg in ("scheduler", str(Path(steps).parent)):
            (tmp / pkg).mkdir(parents=True, exist_ok=True)
            (tmp / pkg / "__init__.py").touch()
        pxd = steps.removesuffix(".py") + ".pxd"
        (tmp / pxd).write_text(_show(rev, pxd))
    exts = []
    for path in ([steps] if has_steps else []) + list(paths.values()):
        text = _show(rev, path)
        digest = hashlib.sha256(text.encode()).hexdigest()
        copy = tmp / "build" / "native" / path
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(text + f'\n__source_sha256__ = "{digest}"\n')
        (tmp / path).parent.mkdir(parents=True, exist_ok=True)  # (where --inplace puts it)
        name = path.removesuffix(".py").replace("/", ".")
        exts.append(Extension(name, [f"build/native/{path}"], extra_compile_args=["-O2"]))
    directives = {"language_level": 3, "binding": False, "embedsignature": False}
    setup(
        ext_modules=cythonize(
            exts, compiler_directives=directives, quiet=True, include_path=[str(tmp)]
        ),
        script_args=["-q", "build_ext", "--inplace", "--build-temp", str(tmp / "btmp")],
    )
    (tmp / "price_rev.py").write_text(_show(rev, "scheduler/pricing/price.py"))
    module = _load("scheduler.pricing.price_rev", tmp / "price_rev.py")
    name = steps.removesuffix(".py").replace("/", ".")
    mine = sys.modules.get(name)
    if has_steps:  # the commit's kernels take their C functions from the commit's steps:
        # registered under the steps' name while they load, then this tree's again
        built = sorted(tmp.rglob("_steps.cpython-*.so")) + sorted(tmp.rglob("_steps.*.pyd"))
        spec = importlib.util.spec_from_file_location(name, built[0])
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    try:
        _load_kernels(module, paths, tmp)
    finally:
        if mine is not None:
            sys.modules[name] = mine
        else:
            sys.modules.pop(name, None)
    return module


def _has(rev: str, path: str) -> bool:
    """Whether commit ``rev`` has the file ``path``."""
    return (
        subprocess.run(["git", "cat-file", "-e", f"{rev}:{path}"], cwd=ROOT, capture_output=True)
    ).returncode == 0


def _load_kernels(module, paths: dict, tmp: Path) -> None:  # type: ignore[no-untyped-def]
    """The kernels built in ``tmp``, set as ``module``'s attributes (``paths``: attribute ->
    source path)."""
    for attr, path in paths.items():  # (loaded under their own names, not registered)
        stem = Path(path).stem
        built = sorted(tmp.rglob(f"{stem}.cpython-*.so")) + sorted(tmp.rglob(f"{stem}.*.pyd"))
        spec = importlib.util.spec_from_file_location(
            path.removesuffix(".py").replace("/", "."), built[0]
        )
        kernel = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(kernel)
        setattr(module, attr, kernel)


def old_replay(rev: str, tmp: Path):  # type: ignore[no-untyped-def]
    """``rev``'s ``scheduler/cluster/replay.py`` (its relative imports: this tree's)."""
    (tmp / "replay_rev.py").write_text(_show(rev, "scheduler/cluster/replay.py"))
    return _load("scheduler.cluster.replay_rev", tmp / "replay_rev.py")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rev", required=True, help="the commit to compare with")
    ap.add_argument("--trace", default=str(TRACE))
    ap.add_argument("--procs", type=int, default=338)
    ap.add_argument("--policy", default="easy")
    ap.add_argument("--deep", type=int, default=200, help="queued jobs that make an instant deep")
    ap.add_argument("--every", type=int, default=1, help="every N-th deep instant")
    ap.add_argument(
        "--repeat", type=int, default=1,
        help="quote each instant this many times per side (alternating) and keep the least "
        "CPU time: what the quote costs on a quiet machine, bursts of other load filtered out",
    )  # fmt: skip
    ap.add_argument(
        "--rev-index", action="store_true", help="the commit's side reads the commit's replay.py"
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path.cwd()
        try:
            os.chdir(tmp)  # (build_ext --inplace writes here)
            old = old_price(args.rev, Path(tmp))
        finally:
            os.chdir(cwd)
        print("this tree's engine modules:", status())
        trace = load_trace(args.trace)
        jobs, _ = prepare_jobs(trace.jobs, args.procs, "requested")
        index = build_index(jobs, args.procs, args.policy)
        indexes = {args.rev: index, "this tree": index}
        if args.rev_index:  # the same replay, read through the commit's ReplayIndex
            arrays = (index.submit, index.start, index.end, index.estimate, index.procs)
            rev_index = old_replay(args.rev, Path(tmp)).ReplayIndex(
                index.capacity, index.policy, *arrays
            )
            indexes[args.rev] = rev_index
        # a site page's process keeps the index, not the trace: without the ~150,000 job
        # objects, the garbage collector's full passes no longer land in a quote (~60 ms each)
        del trace, jobs
        gc.collect()
        subs = np.unique(index.submit)
        started = np.sort(index.start[index.start >= 0])
        queued = np.searchsorted(index.submit, subs, "right") - np.searchsorted(
            started, subs, "right"
        )
        ats = subs[queued >= args.deep][:: args.every].tolist()
        print(f"{Path(args.trace).name} at {args.procs} processors, {args.policy}: {len(ats)} "
              f"instants with {args.deep}+ queued; quote 32 p x 2 h, CPU ms"
              f"{f', least of {args.repeat} per instant' if args.repeat > 1 else ''}"
              f"{' (each side its own replay index)' if args.rev_index else ''}")  # fmt: skip
        times: dict[str, list[float]] = {args.rev: [], "this tree": []}
        depth: list[int] = []
        same = 0
        for i, at in enumerate(ats):
            sides = [(args.rev, old), ("this tree", new)]
            res = {}
            least = {label: float("inf") for label, _ in sides}
            for r in range(args.repeat):
                for label, module in sides if (i + r) % 2 == 0 else sides[::-1]:
                    t0 = time.process_time()
                    ix = indexes[label]
                    if module is new:  # this tree: as its site page does (site.quote_at)
                        quote = quote_at(ix, at)
                    else:
                        quote = module.SiteQuote(ix.base_profile(at), ix.queued_shapes(at), at,
                                                 args.policy)  # fmt: skip
                    opts = quote.options(32, 7200)
                    least[label] = min(least[label], (time.process_time() - t0) * 1e3)
                    res[label] = [(o.start, o.delay) for o in opts]
                    depth_here = len(quote.starts)
            for label, _ in sides:
                times[label].append(least[label])
            depth.append(depth_here)
            same += res[args.rev] == res["this tree"]
        for label, ts in times.items():
            _summary(f"  {label:>10}", sorted(ts))
        print(f"identical option lists: {same} of {len(ats)}")
        for lo, hi in ((args.deep, 400), (400, 800), (800, 1600), (1600, None)):
            pick = [i for i, k in enumerate(depth) if k >= lo and (hi is None or k < hi)]
            if not pick:
                continue
            band = f"{lo}-{hi}" if hi else f"{lo}+"
            print(f"  {band} queued ({len(pick)} instants):")
            for label, ts in times.items():
                _summary(f"    {label:>10}", sorted(ts[i] for i in pick))


def _summary(label: str, ts: list[float]) -> None:
    """Median / p95 / p99 / max of sorted CPU times (ms) and how many are over 10 ms."""

    def q(p: float) -> float:
        return ts[min(len(ts) - 1, int(p * len(ts)))]

    over = sum(t > 10 for t in ts)
    print(f"{label}: median {statistics.median(ts):6.2f} p95 {q(0.95):6.2f} "
          f"p99 {q(0.99):6.2f} max {ts[-1]:6.2f}; over 10 ms: {over}")  # fmt: skip


if __name__ == "__main__":
    main()
