"""Benchmark: the cluster simulator on whole archive traces, and the peer simulator AccaSim.

    .venv/bin/python bench/bench_cluster.py [--traces DIR] [--repeat N] [--no-accasim]
                                            [--accasim-venv DIR] [--only ctc|sdsc]

For CTC-SP2 (430 processors, as in the thesis) and SDSC-SP2 (128) under each policy and
estimate mode it prints, from a fresh subprocess per configuration: seconds (best of
``--repeat``; job preparation + simulation, the trace already parsed — parsing is reported
once per trace), jobs/s, peak RSS of that process (MB, includes the interpreter, numpy and the
parsed trace) and the tracemalloc peak of one extra, untimed simulation (MB allocated by the
simulation itself).

Then it installs AccaSim 1.1.3 (PyPI) into a throwaway venv (default under /tmp; never in the
repository), runs its FIFO and its "EASY" on the same jobs (CTC-SP2 by default, see
``--accasim-on``) (one node with N cores, its
fastest layout; ``collections.Mapping`` patched for Python >= 3.10) and reports the speed
ratio.  AccaSim never kills a job at its request and plans without estimates for FIFO, so its
FIFO schedule is compared job by job with our FCFS in *accurate* mode (no job killed): they
must agree.  Its EASY variant does not protect the head job's reservation, so only its speed is
compared.  Reports figures only; it never asserts timing.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler.cluster import Simulator, prepare_jobs  # noqa: E402
from scheduler.traces.swf import Trace, read_swf, write_swf  # noqa: E402

DEFAULT_TRACES = ROOT.parent / "shared" / "data" / "traces"
CASES = {
    "ctc": ("CTC-SP2-1996-3.1-cln.swf.gz", 430),
    "sdsc": ("SDSC-SP2-1998-4.2-cln.swf.gz", 128),
}
POLICIES = ("fcfs", "easy", "conservative")
MODES = ("requested", "accurate")
ACCASIM = "accasim==1.1.3"

ACCASIM_RUNNER = r"""
import collections, collections.abc, json, os, sys, time
for _n in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Callable"):
    setattr(collections, _n, getattr(collections.abc, _n))  # AccaSim predates Python 3.10
from accasim.base.simulator_class import Simulator
from accasim.base.scheduler_class import FirstInFirstOut, EASYBackfilling
from accasim.base.allocator_class import FirstFit
workload, procs, policy, outdir = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.makedirs(outdir, exist_ok=True)
cfg = os.path.join(outdir, "system.json")
with open(cfg, "w") as fh:  # one node with N cores: AccaSim's fastest layout
    json.dump({"groups": {"g": {"core": procs}}, "resources": {"g": 1},
               "equivalence": {"processor": {"core": 1}}, "start_time": 0}, fh)
allocator = FirstFit()
dispatcher = FirstInFirstOut(allocator) if policy == "fifo" else EASYBackfilling(allocator)
fmt = {"format": "{job_id};{queue_time};{start_time};{end_time};{total_cpu}",
       "attributes": {"job_id": ("id", "str"), "queue_time": ("queued_time", "int"),
                      "start_time": ("start_time", "int"), "end_time": ("end_time", "int"),
                      "total_cpu": ("core", "int")}}
t0 = time.perf_counter()
sim = Simulator(workload, cfg, dispatcher, RESULTS_FOLDER_NAME=outdir, SCHEDULE_OUTPUT=fmt,
                statistics_output=False, show_statistics=False, LOG_LEVEL="ERROR")
paths = sim.start_simulation()
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "schedule": list(paths.values())[0]}))
"""


# ------------------------------------------------------------------ one run (child process)


def child(trace_path: str, procs: int, policy: str, mode: str, repeat: int) -> None:
    trace = read_swf(trace_path)
    best = float("inf")
    sim = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        jobs, _ = prepare_jobs(trace.jobs, procs, mode)
        sim = Simulator(jobs, procs, policy).run()
        best = min(best, time.perf_counter() - t0)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    summary = sim.result(estimates=mode).summary()
    tracemalloc.start()
    jobs, _ = prepare_jobs(trace.jobs, procs, mode)
    Simulator(jobs, procs, policy).run()
    traced_mb = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(
        json.dumps(
            {
                "seconds": best,
                "jobs": summary["jobs"],
                "rss_mb": rss_mb,
                "traced_mb": traced_mb,
                "mean_wait": summary["mean_wait"],
                "utilization": summary["utilization"],
            }
        )
    )


def run_child(trace: Path, procs: int, policy: str, mode: str, repeat: int) -> dict:
    cmd = [sys.executable, __file__, "--child", str(trace), str(procs), policy, mode, str(repeat)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


# ---------------------------------------------------------------------------- AccaSim


def accasim_python(venv: Path) -> Path | None:
    py = venv / "bin" / "python"
    check = [str(py), "-c", "import importlib.metadata as m; print(m.version('accasim'))"]
    if py.exists():
        ok = subprocess.run(check, capture_output=True, text=True)
        if ok.returncode == 0 and ok.stdout.strip() == ACCASIM.split("==")[1]:
            return py
    print(f"installing {ACCASIM} into {venv} (throwaway venv) ...", flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run(
            [str(py), "-m", "pip", "install", "--quiet", ACCASIM], check=True, timeout=900
        )
    except (subprocess.SubprocessError, OSError) as exc:
        print(f"(AccaSim could not be installed: {exc})")
        return None
    return py


def simulated_subset(trace: Trace, procs: int, path: Path, *, zero_runtime: bool = True) -> None:
    """The jobs our simulator runs (runtime and processors known, not larger than the machine),
    written as SWF so that both simulators see the same workload; optionally without the jobs
    of runtime 0."""
    keep = [
        j
        for j in trace.jobs
        if j.run >= (0 if zero_runtime else 1)
        and 0 < (j.req_procs if j.req_procs > 0 else j.alloc_procs) <= procs
    ]
    write_swf(Trace(header=trace.header, jobs=tuple(keep)), path)


def run_accasim(py: Path, swf: Path, procs: int, policy: str, workdir: Path) -> dict:
    runner = workdir / "run_accasim.py"
    runner.write_text(ACCASIM_RUNNER)
    out = workdir / f"out-{policy}"
    res = subprocess.run(
        [str(py), str(runner), str(swf), str(procs), policy, str(out)],
        capture_output=True,
        text=True,
        cwd=workdir,
        timeout=3600,
    )
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-2000:])
    return json.loads(res.stdout.strip().splitlines()[-1])


def compare_fcfs(swf: Path, procs: int, schedule: Path) -> tuple[int, list[int], list[str]]:
    """Job-by-job comparison of AccaSim FIFO with our FCFS (accurate: nobody is killed)."""
    jobs, _ = prepare_jobs(read_swf(swf).jobs, procs, "accurate")
    sim = Simulator(jobs, procs, "fcfs").run()
    ours = {j.job_id: (sim.start[j.index], sim.start[j.index] + j.runtime) for j in jobs}
    theirs = {}
    for line in schedule.read_text().splitlines():
        job_id, _, start, end, _ = line.split(";")
        theirs[int(job_id)] = (int(start), int(end))
    differ = sorted(k for k in ours if theirs.get(k) != ours[k])
    examples = [f"job {k}: ours {ours[k]} AccaSim {theirs.get(k)}" for k in differ[:3]]
    return len(ours), differ, examples


def first_difference_cause(swf: Path, differ: list[int]) -> str:
    """Where the first differing job (in queue order) stands relative to zero-runtime jobs;
    under FCFS every later job inherits a difference, so the first one is what matters."""
    jobs = read_swf(swf).jobs
    pos = {j.job_id: i for i, j in enumerate(jobs)}
    first = min(differ, key=pos.__getitem__)
    zero = [j.job_id for j in jobs[max(0, pos[first] - 20) : pos[first] + 1] if j.run == 0]
    if zero:
        return f"the first, job {first}, queued right behind zero-runtime job(s) {zero}"
    return f"the first, job {first}, is not near a zero-runtime job"


def report_fifo(py: Path, trace: Trace, procs: int, swf: Path, schedule: Path, work: Path) -> None:
    n, differ, examples = compare_fcfs(swf, procs, schedule)
    verdict = "identical" if not differ else f"{len(differ)} differ"
    print(f"{'':<9} FIFO vs our FCFS (accurate), job by job: {n} jobs, {verdict}")
    for line in examples:
        print(f"{'':<11}{line}")
    if not differ:
        return
    print(f"{'':<11}{first_difference_cause(swf, differ)}")
    print(f"{'':<11}(AccaSim keeps a zero-runtime job's processors until its next event; here")
    print(f"{'':<11}they are free again at once).  The same jobs without runtime-0 ones:")
    swf0 = swf.with_name(swf.stem + "-no-zero.swf")
    simulated_subset(trace, procs, swf0, zero_runtime=False)
    r0 = run_accasim(py, swf0, procs, "fifo", work)
    n0, differ0, examples0 = compare_fcfs(swf0, procs, Path(r0["schedule"]))
    verdict0 = "identical" if not differ0 else f"{len(differ0)} differ"
    print(f"{'':<11}{n0} jobs, {verdict0}")
    for line in examples0:
        print(f"{'':<11}{line}")


# -------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-accasim", action="store_true")
    parser.add_argument(
        "--accasim-venv", type=Path, default=Path(tempfile.gettempdir()) / "gridportal-accasim"
    )
    parser.add_argument("--only", choices=sorted(CASES))
    parser.add_argument(
        "--accasim-on",
        default="ctc",
        help="comma-separated traces to run AccaSim on (default ctc; its FIFO on SDSC-SP2, "
        "whose queue grows to thousands of jobs, takes far longer)",
    )
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        trace, procs, policy, mode, repeat = args.child
        child(trace, int(procs), policy, mode, int(repeat))
        return 0

    cases = {k: v for k, v in CASES.items() if args.only in (None, k)}
    ours: dict[tuple[str, str], float] = {}
    print(
        f"{'trace':<9} {'procs':>5} {'policy':<13} {'estimates':<10} {'seconds':>8} "
        f"{'jobs/s':>9} {'RSS MB':>7} {'sim MB':>7} {'mean wait s':>12} {'util':>6}"
    )
    traces: dict[str, Trace] = {}
    for key, (name, procs) in cases.items():
        path = args.traces / name
        if not path.exists():
            print(f"(trace {path} not found; skipped)")
            continue
        t0 = time.perf_counter()
        traces[key] = read_swf(path)
        parse = time.perf_counter() - t0
        for mode in MODES:
            for policy in POLICIES:
                r = run_child(path, procs, policy, mode, args.repeat)
                ours[(key, policy, mode)] = r["seconds"]
                print(
                    f"{key:<9} {procs:>5} {policy:<13} {mode:<10} {r['seconds']:>8.3f} "
                    f"{r['jobs'] / r['seconds']:>9,.0f} {r['rss_mb']:>7.1f} "
                    f"{r['traced_mb']:>7.1f} {r['mean_wait']:>12,.0f} {r['utilization']:>6.3f}",
                    flush=True,
                )
        print(f"{key:<9} parsing the trace (read_swf, once): {parse:.3f} s")

    if args.no_accasim or not traces:
        return 0
    py = accasim_python(args.accasim_venv)
    if py is None:
        return 0
    print("\nAccaSim 1.1.3 (one node x N cores) vs this simulator, same jobs:")
    print(f"{'trace':<9} {'AccaSim policy':<15} {'AccaSim s':>10} {'ours s':>8} {'ratio':>7}")
    with tempfile.TemporaryDirectory(prefix="accasim-bench-") as tmp:
        work = Path(tmp)
        for key, trace in traces.items():
            if key not in args.accasim_on.split(","):
                continue
            procs = cases[key][1]
            swf = work / f"{key}.swf"
            simulated_subset(trace, procs, swf)
            for acc_policy, our_policy in (("fifo", "fcfs"), ("easy", "easy")):
                try:
                    r = run_accasim(py, swf, procs, acc_policy, work)
                except (RuntimeError, subprocess.SubprocessError) as exc:
                    print(f"{key:<9} {acc_policy:<15} failed: {exc}")
                    continue
                mine = ours[(key, our_policy, "requested")]
                print(
                    f"{key:<9} {acc_policy:<15} {r['seconds']:>10.2f} {mine:>8.3f} "
                    f"{r['seconds'] / mine:>6.1f}x",
                    flush=True,
                )
                if acc_policy == "fifo":
                    report_fifo(py, trace, procs, swf, Path(r["schedule"]), work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
