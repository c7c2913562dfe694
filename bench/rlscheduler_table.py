"""RLScheduler's heuristic table (average bounded slowdown) reproduced on the engine, and the
Gymnasium environment's steps per second on CTC-SP2.

RLScheduler (Zhang et al., SC'20) publishes in its repository's README (github.com/DIR-LAB/
deep-batch-scheduler, "Results of Scheduling Towards average bounded slowdown") the mean over
10 sequences of 1024 jobs (seed 1) of each heuristic's average bounded slowdown, without and
with backfilling.  This bench runs the same protocol (scheduler.gym.protocol) and prints our
value beside the published one with the relative difference.

Traces are looked up by file name (plain or .gz) in ``--data`` folders (default: the shared
``data/traces`` folder beside the repository): ``lublin_256.swf`` (Lublin-1, from RLScheduler's
repository), ``SDSC-SP2-1998-4.2-cln.swf``, ``HPC2N-2002-2.2-cln.swf`` (Parallel Workloads
Archive).  A missing trace is reported, not fatal.

    .venv/bin/python bench/rlscheduler_table.py [--data DIR ...] [--out FILE] [--steps-episodes 5]

Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from scheduler.gym import Protocol, SchedulingEnv, evaluate, load_workload  # noqa: E402

#: trace label -> (file name, first jobs the sequences are drawn from; 0: all)
TRACES = {
    "Lublin-1": ("lublin_256.swf", 0),
    "SDSC-SP2": ("SDSC-SP2-1998-4.2-cln.swf", 10000),
    "HPC2N": ("HPC2N-2002-2.2-cln.swf", 10000),
}
COLUMNS = ("FCFS", "WFP3", "UNI", "SJF", "F1")
#: our heuristic for each published column: RLScheduler's code ranks WFP3 and UNICEP by
#: -1 - submit instead of the wait (scheduler.gym.heuristics)
AS_PUBLISHED = {
    "FCFS": "FCFS",
    "WFP3": "WFP3_AS_CODED",
    "UNI": "UNICEP_AS_CODED",
    "SJF": "SJF",
    "F1": "F1",
}
#: the README's table: (backfilling, trace) -> values in COLUMNS order
PUBLISHED = {
    (False, "Lublin-1"): (7273.77, 19753.53, 22274.74, 277.35, 258.37),
    (False, "SDSC-SP2"): (1727.54, 3000.88, 1848.45, 2680.55, 1232.06),
    (False, "HPC2N"): (297.18, 426.99, 609.77, 157.71, 118.01),
    (True, "Lublin-1"): (235.82, 133.87, 307.23, 73.31, 75.07),
    (True, "SDSC-SP2"): (1595.12, 1083.12, 548.01, 2167.84, 1098.22),
    (True, "HPC2N"): (127.38, 97.39, 175.12, 122.04, 71.95),
}


def find(name: str, dirs: list[Path]) -> Path | None:
    for d in dirs:
        for candidate in (d / name, d / f"{name}.gz"):
            if candidate.is_file():
                return candidate
    return None


def table(dirs: list[Path], overrun: str, say) -> None:  # type: ignore[no-untyped-def]
    say(f"average bounded slowdown, ours / published (relative difference); overrun={overrun}")
    say(f"{'trace':<10} {'backfill':<9} " + " ".join(f"{c:>26}" for c in COLUMNS))
    for backfill in (False, True):
        for label, (name, slice_end) in TRACES.items():
            path = find(name, dirs)
            published = PUBLISHED[(backfill, label)]
            if path is None:
                say(f"{label:<10} {backfill!s:<9} trace {name} not found in the --data "
                    f"folders; published: {published}")  # fmt: skip
                continue
            t0 = time.perf_counter()
            workload = load_workload(path, overrun=overrun)
            if not backfill:
                say(f"{label}: {path.name}, {len(workload)} jobs, {workload.capacity} processors, "
                    f"{workload.overrun} run past their request")  # fmt: skip
            ours = evaluate(
                workload, Protocol(slice_end=slice_end),
                heuristics=[AS_PUBLISHED[c] for c in COLUMNS],
                backfill="rlscheduler" if backfill else False,
            )  # fmt: skip
            mode = "RLScheduler's backfilling rule" if backfill else "no backfilling"
            cells = []
            for c, pub in zip(COLUMNS, published, strict=True):
                v = ours[AS_PUBLISHED[c]]
                cells.append(f"{v:>9.2f} / {pub:>8.2f} ({(v - pub) / pub:+6.1%})")
            say(f"{label:<10} {backfill!s:<9} " + " ".join(f"{c:>26}" for c in cells)
                + f"   [{mode}; {time.perf_counter() - t0:.1f} s]")  # fmt: skip
            extra = evaluate(
                workload, Protocol(slice_end=slice_end), heuristics=["WFP3", "UNICEP"],
                backfill="easy" if backfill else False,
            )  # fmt: skip
            say(f"{'':<20} papers' WFP3 / UNICEP (true wait{', EASY' if backfill else ''}): "
                f"{extra['WFP3']:.2f} / {extra['UNICEP']:.2f}")  # fmt: skip


def steps_per_second(dirs: list[Path], episodes: int, say) -> None:  # type: ignore[no-untyped-def]
    path = find("CTC-SP2-1996-3.1-cln.swf", dirs)
    if path is None:
        say("CTC-SP2 not found: no steps/s figure")
        return
    workload = load_workload(path)
    say(f"CTC-SP2: {len(workload)} jobs, {workload.capacity} processors (header MaxProcs)")
    for backfill in (False, "easy"):
        env = SchedulingEnv(workload, sequence_length=1024, backfill=backfill)
        rng = np.random.default_rng(0)
        steps, resets, t_reset, t0 = 0, 0, 0.0, time.perf_counter()
        for e in range(episodes):
            r0 = time.perf_counter()
            _obs, info = env.reset(seed=e)
            t_reset += time.perf_counter() - r0
            resets += 1
            done = False
            while not done:
                mask = info["action_mask"] if "action_mask" in info else env.action_mask()
                action = int(rng.choice(np.flatnonzero(mask)))
                _obs, _r, done, _t, info = env.step(action)
                steps += 1
        elapsed = time.perf_counter() - t0
        say(f"  backfill={backfill!s:<5} {steps} steps in {elapsed:.2f} s: "
            f"{steps / elapsed:,.0f} steps/s (random valid actions, 1024-job sequences, "
            f"queue 128); reset {1000 * t_reset / resets:.1f} ms")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", action="append", type=Path, help="folder holding traces")
    ap.add_argument("--out", type=Path, help="also write the output to this file")
    ap.add_argument("--steps-episodes", type=int, default=5)
    args = ap.parse_args()
    dirs = args.data or [ROOT.parent / "shared" / "data" / "traces"]
    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    t0 = time.perf_counter()
    say("RLScheduler protocol: 10 sequences of 1024 jobs, seed 1 (Gym 2019 seeding)")
    table(dirs, "extend", say)
    t_table = time.perf_counter() - t0
    say(f"whole table: {t_table:.1f} s")
    say("")
    say("Gymnasium environment, steps per second")
    steps_per_second(dirs, args.steps_episodes, say)
    say(f"total: {time.perf_counter() - t0:.1f} s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
