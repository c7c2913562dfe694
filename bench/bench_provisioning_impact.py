"""Benchmark: the ``provisioning-impact`` kind (Singh, Kesselman & Deelman 2005) on one core, beside
the seed's numbers.

    .venv/bin/python bench/bench_provisioning_impact.py [--trace PATH] [--preset NAME ...]
                                                       [--dax PATH] [--json OUT]

Default trace: SDSC-SP2 (``../shared/data/traces``, as ``REPRO_TRACES`` in the Makefile), days 0–10,
jobs widened by 890/128 onto the seed's 890-processor cluster, workflow submitted at 168 h; the
presets use the seed's Montage (17,034 tasks) and a 60-s scheduling interval.  For each
preset (default: ``seed003-fig7`` and ``seed003-grid``) it prints the wall time of the run (one
process, one core), then the original graph's completion times beside the seed's Section 5.1
figures and the mean reduction vs no provisioning per policy.  Figures only; no assertion.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import scheduler.experiments.provisioning_impact  # noqa: E402, F401  (registers the kind)
from scheduler.experiments import get_kind, run_experiment  # noqa: E402
from scheduler.traces.swf import read_swf  # noqa: E402
from scheduler.workflows import load_workflow  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
# Singh, Kesselman & Deelman 2005, §5.1: original Montage, minutes (none / best AR / DP of that
# request)
SEED = {
    "fcfs": (3930, 1351, 699),
    "fairshare": (2611, None, None),
    "fairshare-cb": (794, None, None),
}
POLICY_KEYS = {"fcfs": "fcfs", "fairshare": "fairshare", "fairshare-cb": "fairshare_cb"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=str(DATA / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz"))
    ap.add_argument("--preset", action="append", default=None)
    ap.add_argument("--dax", default=None, help="a Montage DAX instead of the generated one")
    ap.add_argument("--json", default=None, help="write the last Result here")
    args = ap.parse_args()
    kind = get_kind("provisioning-impact")
    t0 = time.perf_counter()
    trace = read_swf(args.trace)
    print(f"trace {Path(args.trace).name}: {len(trace.jobs)} jobs, parsed in "
          f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
    inputs: dict = {"traces": [trace]}
    if args.dax:
        inputs["workflows"] = [load_workflow(args.dax)]
    result = None
    for name in args.preset or ["seed003-fig7", "seed003-grid"]:
        params = kind.preset(name).params
        t0 = time.perf_counter()
        result = run_experiment("provisioning-impact", params, inputs, seed=0)
        wall = time.perf_counter() - t0
        comp = next(t for t in result["tables"] if t["id"] == "completion")
        print(f"\npreset {name}: {wall:.1f} s wall, {len(comp['rows'])} (graph, policy) runs")
        s = result["summary"]
        print(f"  {'policy':<26}{'none':>9}{'AR':>9}{'DP':>9}   seed: none / AR / DP (min)")
        for pol, key in POLICY_KEYS.items():
            if f"{key}_none_min" not in s:
                continue
            seed = " / ".join("-" if v is None else str(v) for v in SEED[pol])
            n = s[f"{key}_ar_procs"]
            seed_n = "; seed 84" if pol == "fcfs" else ""
            print(f"  {pol:<26}{s[f'{key}_none_min']:>9}{s[f'{key}_ar_min']:>9}"
                  f"{s[f'{key}_dp_min']:>9}   {seed}  (n = {n}{seed_n})")  # fmt: skip
        for pol, key in POLICY_KEYS.items():
            ar, dp = s.get(f"{key}_mean_reduction_ar"), s.get(f"{key}_mean_reduction_dp")
            if ar is not None:
                print(f"  mean reduction vs none, {pol:<14} AR {ar:6.1f} %   DP {dp:6.1f} %")
    if args.json and result is not None:
        Path(args.json).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
