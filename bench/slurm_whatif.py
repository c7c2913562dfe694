"""The Slurm model against a real Slurm on a larger workload, a what-if beside a real run with
the same change, and the replay speed on a large synthetic dump.

1. ``--jobs`` sleep jobs (default 200) on the real single-node Slurm of the test fixture
   (tests/slurm/cluster.py, the site of tests/slurm/whatif_workload.py: multifactor priority
   with classic fair share, two partitions, accounts physics 70 / biology 30, QOS normal and
   urgent, tuned bf_*), replayed by the Slurm model, FCFS and EASY: per-job start error
   (median, 90th percentile), mean and median wait simulated vs real, rank correlation.
2. The what-if "biology's share doubled" (30 -> 60): the model's change in biology's mean wait
   from run 1's dump, beside a second real run of the same workload with that share.
3. Replay speed: a synthetic sacct dump of ``--speed-jobs`` jobs (Lublin & Feitelson 2003
   model, 512 CPUs in 16 nodes) read and replayed by the Slurm model: simulated days per hour
   of CPU (the ubccr Slurm simulator publishes 100-400x real time, i.e. 4-17 simulated days per
   hour).
4. The same site with Slurm's default Fair Tree (``--fair-tree-jobs`` jobs), replayed.

Needs Slurm (``apt-get install slurm-wlm slurmdbd munge``), MariaDB and root for 1-2.

    .venv/bin/python bench/slurm_whatif.py [--jobs 200] [--speed-jobs 100000] [--skip-real]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduler.slurm import (  # noqa: E402
    SlurmSite,
    comparison,
    group_figures,
    load_dump,
    parse_assoc,
    parse_qos,
    parse_slurm_conf,
    replay,
)
from tests.slurm import whatif_workload as W  # noqa: E402


def real_run(
    args: argparse.Namespace, shares: dict[str, int], tag: str, jobs: int = 0, **settings: str
) -> dict[str, str]:
    """The workload on a real Slurm with these account shares; its dumps (read back from
    ``--keep`` when an earlier run left them there)."""
    keep = Path(args.keep) / tag if args.keep else None
    if keep is not None and (keep / "sacct").exists():
        print(f"(dumps of {tag} read from {keep})")
        return {p.name: p.read_text() for p in keep.iterdir()}
    files = _run_slurm(jobs or args.jobs, args.seed, args.spread, shares, settings)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (keep / name).write_text(text)
    return files


def _run_slurm(
    jobs: int, seed: int, spread: float, shares: dict[str, int], settings: dict[str, str]
) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="slurm-whatif-") as tmp:
        cluster = W.make_cluster(tmp, **settings)
        cluster.start()
        try:
            W.setup_accounts(cluster, shares)
            work = W.workload(jobs, seed, spread)
            t0 = time.monotonic()
            W.submit_all(cluster, work)
            cluster.wait_idle(jobs=len(work), timeout=3600)
            print(f"real Slurm ran {len(work)} jobs in {time.monotonic() - t0:.0f} s", flush=True)
            return W.dumps(cluster)
        finally:
            cluster.stop()


def site_of(files: dict[str, str]) -> SlurmSite:
    return SlurmSite(
        parse_slurm_conf(files["slurm.conf"]), parse_assoc(files["assoc"]), parse_qos(files["qos"])
    )


def figures(files: dict[str, str]) -> tuple[dict, object, SlurmSite]:
    site, dump = site_of(files), load_dump(files["sacct"])
    out = {}
    for policy in ("slurm", "fcfs", "easy"):
        out[policy] = comparison(dump, replay(site, dump, policy)[0])
    return out, dump, site


def print_comparison(out: dict) -> None:
    for name, c in out.items():
        print(
            f"  {name:6} start error median {c['start_error_median']:6.1f} s  p90 "
            f"{c['start_error_p90']:6.1f} s | wait mean {c['wait_mean_sim']:6.1f} (real "
            f"{c['wait_mean_real']:6.1f})  median {c['wait_median_sim']:6.1f} (real "
            f"{c['wait_median_real']:6.1f}) | rank corr {c['rank_correlation']}"
        )


def account_wait(dump, start, account: str) -> float:  # type: ignore[no-untyped-def]
    return group_figures(dump, start, 8)["account"][account]["wait_mean"]


def whatif(args: argparse.Namespace, files: dict[str, str], dump, site: SlurmSite) -> None:  # type: ignore[no-untyped-def]
    doubled = {**W.ACCOUNTS, "biology": 2 * W.ACCOUNTS["biology"]}
    base_sim = account_wait(dump, replay(site, dump)[0], "biology")
    base_real = account_wait(dump, dump.real_start, "biology")
    site2 = replace(site)
    site2.assocs = [
        replace(a, shares=doubled["biology"]) if a.account == "biology" and not a.user else a
        for a in site.assocs
    ]
    model = account_wait(dump, replay(site2, dump)[0], "biology")
    print(f"\n2. what-if: biology's share {W.ACCOUNTS['biology']} -> {doubled['biology']}")
    print(f"  model (run 1's dump): biology mean wait {base_sim:.1f} -> {model:.1f} s")
    if args.skip_real:
        return
    files2 = real_run(args, doubled, "biology-doubled")
    dump2 = load_dump(files2["sacct"])
    real2 = account_wait(dump2, dump2.real_start, "biology")
    print(f"  real Slurm, two runs:  biology mean wait {base_real:.1f} -> {real2:.1f} s")
    out2, _, _ = figures(files2)
    print("  the second real run, replayed:")
    print_comparison(out2)


def synthetic_dump(jobs: int, seed: int) -> str:
    """A sacct -P dump of a Lublin-model workload on 512 CPUs (starts from an EASY replay:
    only the replay's reading and speed matter here)."""
    from scheduler.cluster import simulate
    from scheduler.traces.lublin import generate_lublin99

    trace = generate_lublin99(jobs=jobs, procs=512, seed=seed)
    result = simulate(trace, 512, "easy")
    rng = random.Random(seed)
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    rows = ["JobID|User|Account|Partition|QOS|State|Submit|Start|End|Timelimit|NCPUS"]
    for j, s, e in zip(result.jobs, result.start.tolist(), result.end.tolist(), strict=True):
        acct = rng.choice(("physics", "biology", "chemistry"))
        part = "long" if j.estimate > 3600 else "short"
        limit = max(60, j.estimate)
        rows.append(
            "|".join([
                str(j.job_id), f"u{j.user % 50}", acct, part,
                "urgent" if rng.random() < 0.1 else "normal", "COMPLETED",
                (t0 + timedelta(seconds=j.submit)).isoformat(timespec="seconds"),
                (t0 + timedelta(seconds=s)).isoformat(timespec="seconds"),
                (t0 + timedelta(seconds=e)).isoformat(timespec="seconds"),
                f"{limit // 3600:02d}:{limit // 60 % 60:02d}:{limit % 60:02d}", str(j.procs),
            ])
        )  # fmt: skip
    return "\n".join(rows) + "\n"


SPEED_CONF = """\
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=30,bf_window=1440,bf_resolution=60,bf_max_job_test=500
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightPartition=1000
PriorityWeightQOS=2000
PriorityCalcPeriod=5
NodeName=c[01-16] CPUs=32
PartitionName=short Nodes=c[01-16] Default=YES MaxTime=INFINITE PriorityJobFactor=10
PartitionName=long Nodes=c[05-16] MaxTime=INFINITE PriorityJobFactor=1
"""
SPEED_ASSOC = "Account|User|Share\nphysics||50\nbiology||30\nchemistry||20\n"
SPEED_QOS = "Name|Priority\nnormal|0\nurgent|100\n"


def speed(jobs: int, seed: int) -> None:
    text = synthetic_dump(jobs, seed)
    site = SlurmSite(parse_slurm_conf(SPEED_CONF), parse_assoc(SPEED_ASSOC), parse_qos(SPEED_QOS))
    t0 = time.process_time()
    dump = load_dump(text)
    t1 = time.process_time()
    start, _ = replay(site, dump)
    t2 = time.process_time()
    ok = start >= 0
    span = (int((start[ok] + dump.run[ok]).max()) - int(dump.submit.min())) / 86400
    hours = (t2 - t0) / 3600
    print(f"\n3. replay speed: {len(dump):,} jobs, {span:.1f} simulated days")
    print(f"  read {t1 - t0:.1f} s + replay {t2 - t1:.1f} s of CPU = "
          f"{span / hours:,.0f} simulated days per CPU hour "
          f"({span * 86400 / (t2 - t0):,.0f}x real time; ubccr: 100-400x)")  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--jobs", type=int, default=200)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--spread", type=float, default=90.0, help="submission window (s)")
    p.add_argument("--speed-jobs", type=int, default=100_000)
    p.add_argument("--skip-real", action="store_true", help="only the replay speed")
    p.add_argument("--fair-tree-jobs", type=int, default=60, help="jobs of the Fair Tree run")
    p.add_argument("--keep", help="directory to keep the real runs' dumps in (and reuse)")
    args = p.parse_args()
    if not args.skip_real:
        files = real_run(args, W.ACCOUNTS, "base")
        out, dump, site = figures(files)
        print(f"\n1. {len(dump)} jobs on a real Slurm, replayed:")
        print_comparison(out)
        whatif(args, files, dump, site)
    if args.fair_tree_jobs and not args.skip_real:
        files = real_run(args, W.ACCOUNTS, "fair-tree", args.fair_tree_jobs, PriorityFlags="")
        out, dump, _ = figures(files)
        print(f"\n4. Fair Tree (Slurm's default PriorityFlags): {len(dump)} jobs, replayed:")
        print_comparison(out)
    if args.speed_jobs:
        speed(args.speed_jobs, args.seed)


if __name__ == "__main__":
    main()
