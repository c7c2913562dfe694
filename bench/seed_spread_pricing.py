"""How much one pricing run's mean price moves with the seed (thesis §5.3).

The thesis compares CTC and SDSC by one 30-day run each ("For the same trade-off factor, the
price at SDSC is higher than CTC"). This prints the α = 0 mean price of the presets
``first-30-days-ctc`` and ``first-30-days-sdsc`` for several seeds (the seed picks which jobs
buy reservations), so the claim's cause on the Reproductions page can be checked:

    .venv/bin/python bench/seed_spread_pricing.py --traces ../shared/data/traces --seeds 0-5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SITES = {"ctc": "CTC-SP2-1996-3.1-cln.swf.gz", "sdsc": "SDSC-SP2-1998-4.2-cln.swf.gz"}


def run(site: str, trace: Path, seed: int, tmp: Path) -> dict:
    params, out = tmp / "p.json", tmp / f"{site}-{seed}.json"
    params.write_text(json.dumps({"alphas": "0"}))
    subprocess.run(
        [sys.executable, "-m", "scheduler", "run", "pricing", "--preset", f"first-30-days-{site}",
         "--params", str(params), "--trace", str(trace), "--seed", str(seed), "--out", str(out)],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return json.loads(out.read_text())["summary"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", default="../shared/data/traces")
    ap.add_argument("--seeds", default="0-5", help="a range a-b")
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for seed in seeds:
            got = {s: run(s, Path(a.traces) / f, seed, Path(d)) for s, f in SITES.items()}
            rows.append((seed, got["ctc"]["price_su_a0"], got["sdsc"]["price_su_a0"],
                         got["ctc"]["baseline_utilization"],
                         got["sdsc"]["baseline_utilization"]))  # fmt: skip
            print(f"seed {seed}: CTC {rows[-1][1]:.2f} SU, SDSC {rows[-1][2]:.2f} SU, "
                  f"SDSC - CTC {rows[-1][2] - rows[-1][1]:+.2f}", flush=True)  # fmt: skip
    diffs = [r[2] - r[1] for r in rows]
    ctc, sdsc = (sum(r[i] for r in rows) / len(rows) for i in (1, 2))
    print(f"utilization CTC {rows[0][3]:.3f}, SDSC {rows[0][4]:.3f}")
    print(f"SDSC dearer for {sum(d > 0 for d in diffs)} of {len(diffs)} seeds; "
          f"SDSC - CTC from {min(diffs):+.2f} to {max(diffs):+.2f} SU; means CTC "
          f"{ctc:.2f}, SDSC {sdsc:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
