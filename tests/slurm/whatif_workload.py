"""The workload and site of the what-if validation against real Slurm (used by
tests/slurm/test_slurm_whatif.py and bench/slurm_whatif.py): a single node, multifactor
priority, two partitions over it, two accounts of different shares, two QOS and tuned
backfill parameters; jobs only sleep.  Deterministic for a seed (the submission times and
job shapes; Slurm's own timing is what is measured)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from .cluster import SlurmCluster

#: slurm.conf keys of the validation site (slurm.conf.html; priority_multifactor.html)
SETTINGS = {
    "SchedulerType": "sched/backfill",
    "SchedulerParameters": "sched_interval=2,default_queue_depth=100,bf_interval=5,"
    "bf_window=10,bf_resolution=5,bf_max_job_test=60,bf_continue",
    "PriorityType": "priority/multifactor",
    "PriorityFlags": "NO_FAIR_TREE",
    "PriorityWeightAge": "1000",
    "PriorityWeightFairshare": "4000",
    "PriorityWeightJobSize": "0",
    "PriorityWeightPartition": "1000",
    "PriorityWeightQOS": "2000",
    "PriorityMaxAge": "5",
    "PriorityDecayHalfLife": "0-00:05:00",
    "PriorityCalcPeriod": "1",
    "AccountingStorageEnforce": "associations,limits,qos",
    "OverTimeLimit": "0",
}
PARTITIONS = (
    "short Nodes=localhost Default=YES MaxTime=2 PriorityJobFactor=10 State=UP",
    "long Nodes=localhost MaxTime=10 PriorityJobFactor=1 State=UP",
)
#: accounts and their Fairshare
ACCOUNTS = {"physics": 70, "biology": 30}
#: QOS: name -> sacctmgr settings
QOS = {"normal": ("Priority=0",), "urgent": ("Priority=100", "MaxJobsPerUser=2")}


@dataclass(frozen=True)
class Job:
    at: float  # seconds after the first submission
    cpus: int
    sleep: int
    limit_min: int
    account: str
    partition: str
    qos: str


def workload(jobs: int, seed: int, spread: float) -> list[Job]:
    """``jobs`` sleep jobs submitted over ``spread`` seconds: 1-4 CPUs, 2-12 s."""
    rng = random.Random(seed)
    out = []
    for _ in range(jobs):
        account = rng.choices(list(ACCOUNTS), weights=(1, 1))[0]
        long = rng.random() < 0.3
        out.append(
            Job(
                at=round(rng.uniform(0, spread), 1),
                cpus=rng.choice((1, 1, 2, 2, 3, 4)),
                sleep=rng.randint(8, 20) if long else rng.randint(2, 8),
                limit_min=rng.choice((3, 5)) if long else rng.choice((1, 2)),
                account=account,
                partition="long" if long else "short",
                qos="urgent" if rng.random() < 0.15 else "normal",
            )
        )
    return sorted(out, key=lambda j: j.at)


def make_cluster(root, cpus: int = 8, **settings: str) -> SlurmCluster:  # type: ignore[no-untyped-def]
    """The validation site; ``settings`` override slurm.conf keys (an empty value drops the
    key: ``PriorityFlags=""`` is Slurm's default, Fair Tree)."""
    merged = {k: v for k, v in {**SETTINGS, **settings}.items() if v}
    return SlurmCluster(root, cpus=cpus, settings=merged, partitions=PARTITIONS)


def setup_accounts(c: SlurmCluster, shares: dict[str, int] | None = None) -> None:
    """Accounts with their shares, root as a user of each, and the QOS."""
    for name, opts in QOS.items():
        if name != "normal":
            c.sacctmgr("add", "qos", name)
        c.sacctmgr("modify", "qos", name, "set", *opts)
    for account, share in (shares or ACCOUNTS).items():
        c.sacctmgr("add", "account", account, f"Fairshare={share}")
        c.sacctmgr("add", "user", "root", f"Account={account}", "Fairshare=1",
                   "QOS=normal,urgent")  # fmt: skip
    c.sacctmgr("modify", "user", "root", "set", "QOS=normal,urgent")


def submit_all(c: SlurmCluster, jobs: list[Job]) -> list[int]:
    """Submit at the workload's instants (relative to now); the Slurm job ids."""
    t0 = time.monotonic()
    ids = []
    for j in jobs:
        delay = t0 + j.at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        ids.append(
            c.sbatch(f"--ntasks={j.cpus}", f"--time={j.limit_min}", f"--account={j.account}",
                     f"--partition={j.partition}", f"--qos={j.qos}", wrap=f"sleep {j.sleep}")
        )  # fmt: skip
    return ids


SACCT_FORMAT = (
    "JobID,User,Account,Partition,QOS,State,Submit,Eligible,Start,End,Timelimit,NCPUS,"
    "AllocCPUS,ReqCPUS,Priority"
)


def dumps(c: SlurmCluster) -> dict[str, str]:
    """What a site brings: slurm.conf, sacctmgr's assoc and qos tables, sacct, sshare."""
    return {
        "slurm.conf": c.slurm_conf.read_text(),
        "assoc": c.run("sacctmgr", "-P", "show", "assoc").stdout,
        "qos": c.run("sacctmgr", "-P", "show", "qos").stdout,
        "sacct": c.sacct_dump(SACCT_FORMAT, options=("-X",)),
        "sshare": c.run("sshare", "-a", "-P", check=False).stdout,
    }
