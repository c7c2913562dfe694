"""Benchmark: MOGA plan search and the provisioning experiment.

    .venv/bin/python bench/bench_provisioning.py [--traces DIR] [--instants N] [--repeat N]
                                                 [--experiment] [--submissions K]

1. Plan evaluation (µs per plan) and MOGA with population 100 × 10 generations (thesis §4.7)
   on a 100-task (10 levels) and a 400-task (20 levels) layered workflow, with the slots that
   CTC-SP2 (430 processors, accurate estimates) advertises at ``--instants`` instants spread
   over the trace.  Targets: 100 tasks under 1 s, 400 tasks under 5 s per MOGA run.
2. With ``--experiment``: the ``provisioning`` experiment as in thesis Figure 13 on CTC-SP2
   (50 submissions × 6 α, in-process, one core), its wall time and headline numbers.

Reports figures only; it never asserts timing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler.cluster import Simulator, prepare_jobs  # noqa: E402
from scheduler.experiments import get_kind, run_experiment  # noqa: E402
from scheduler.io import load_trace  # noqa: E402
from scheduler.provisioning import PlanEvaluator, moga  # noqa: E402
from scheduler.slots import advertise_simulator  # noqa: E402
from scheduler.workflows import generate_layered  # noqa: E402

DEFAULT_TRACES = ROOT.parent / "shared" / "data" / "traces"
CTC = "CTC-SP2-1996-3.1-cln.swf.gz"


def ctc_slot_sets(path: Path, instants: int) -> list[tuple[int, list]]:
    trace = load_trace(path)
    jobs, _ = prepare_jobs(trace.jobs, 430, "accurate")
    sim = Simulator(jobs, 430, "conservative")
    first, last = jobs[0].submit, jobs[-1].submit
    out = []
    for k in range(instants):
        t = int(first + (0.05 + 0.9 * (k + 0.5) / instants) * (last - first))
        sim.run(until=t)
        out.append((t, advertise_simulator(sim, t)))
    return out


def bench_moga(sets: list[tuple[int, list]], tasks: int, levels: int, repeat: int) -> None:
    wf = generate_layered(tasks, levels, mean_processors=22, max_processors=430, seed=1)
    rng = np.random.default_rng(0)
    per_plan, runs, uniq = [], [], []
    for t, slots in sets:
        masks = rng.random((200, len(slots))) < 0.5
        ev = PlanEvaluator(wf, slots, sites=[""], submit=t)
        start = time.perf_counter()
        for m in masks:
            ev.evaluate(m)
        per_plan.append((time.perf_counter() - start) / len(masks))
        best = float("inf")
        for r in range(repeat):
            ev = PlanEvaluator(wf, slots, sites=[""], submit=t)
            start = time.perf_counter()
            moga(ev.evaluate, len(slots), population=100, generations=10, seed=r)
            best = min(best, time.perf_counter() - start)
        runs.append(best)
        uniq.append(ev.evaluations)
    sizes = [len(s) for _, s in sets]
    print(
        f"{tasks:>5} tasks  slots {min(sizes)}–{max(sizes)} (median {statistics.median(sizes)})"
        f"  plan evaluation {1e6 * statistics.median(per_plan):8.0f} µs (median)"
        f"  MOGA 100×10: median {statistics.median(runs):6.2f} s, max {max(runs):6.2f} s"
        f"  ({statistics.mean(uniq):.0f} distinct plans of 1100)"
    )


def bench_experiment(path: Path, submissions: int) -> None:
    trace = load_trace(path)
    params = dict(get_kind("provisioning").preset("thesis-fig13-ctc").params)
    params["submissions"] = submissions
    start = time.perf_counter()
    result = run_experiment("provisioning", params, {"traces": [trace]}, seed=1)
    seconds = time.perf_counter() - start
    s = result["summary"]
    print(
        f"provisioning, thesis Figure 13 on CTC-SP2: {submissions} submissions × 7 α "
        f"(6 + the headline 0.5) in {seconds:.1f} s wall ({seconds / submissions:.2f} s per "
        f"submission: advertisement, MOGA and the best-effort run)"
    )
    print(
        f"  best effort {s['be_makespan_h']:.2f} h, {s['be_cost_su']:.1f} SU; provisioned α=0 "
        f"{s['prov_makespan_h_a0']:.2f} h, {s['prov_cost_su_a0']:.1f} SU; α=1 "
        f"{s['prov_makespan_h_a100']:.2f} h, {s['prov_cost_su_a100']:.1f} SU"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--instants", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=2, help="MOGA runs per instant (best)")
    parser.add_argument("--experiment", action="store_true")
    parser.add_argument("--submissions", type=int, default=50)
    args = parser.parse_args(argv)
    path = args.traces / CTC
    if not path.exists():
        print(f"(CTC-SP2 not found at {path})")
        return 0
    start = time.perf_counter()
    sets = ctc_slot_sets(path, args.instants)
    print(f"CTC-SP2 simulated to {args.instants} instants in {time.perf_counter() - start:.1f} s")
    bench_moga(sets, 100, 10, args.repeat)
    bench_moga(sets, 400, 20, args.repeat)
    if args.experiment:
        bench_experiment(path, args.submissions)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
