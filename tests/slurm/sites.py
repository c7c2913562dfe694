"""A small Slurm site for the what-if's portal and engine tests: the configuration of the
validation site of :mod:`tests.slurm.whatif_workload` (multifactor priority, classic fair
share between two accounts of 70 and 30 shares, two partitions, two QOS) on two 8-CPU nodes,
and a ``sacct -P`` dump in the columns the README asks for.

The dump's recorded starts are the Slurm model's own schedule of the unchanged configuration
(:func:`recorded_dump` replays it once), so a replay of the unchanged site follows the
recording to the second — a check with a known answer; the real-Slurm comparison is
tests/slurm/test_slurm_whatif.py's.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

SLURM_CONF = """\
ClusterName=whatif
SlurmctldHost=head
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=60,default_queue_depth=100,bf_interval=30,bf_window=1440,bf_resolution=60,bf_continue
PriorityType=priority/multifactor
PriorityFlags=NO_FAIR_TREE
PriorityWeightAge=1000
PriorityWeightFairshare=4000
PriorityWeightPartition=1000
PriorityWeightQOS=2000
PriorityMaxAge=1-0
PriorityDecayHalfLife=0-06:00:00
PriorityCalcPeriod=5
AccountingStorageEnforce=associations,limits,qos
NodeName=n[1-2] CPUs=8 RealMemory=16000
PartitionName=short Nodes=n[1-2] Default=YES MaxTime=02:00:00 PriorityJobFactor=10
PartitionName=long Nodes=n[1-2] MaxTime=1-00:00:00 PriorityJobFactor=1
"""
ASSOC = """\
Cluster|Account|User|Partition|Share|MaxJobs|GrpTRES|QOS
whatif|root||||||normal,urgent
whatif|physics|||70|||normal,urgent
whatif|physics|ann||1|||normal,urgent
whatif|physics|carl||1|||normal,urgent
whatif|biology|||30|||normal,urgent
whatif|biology|bob||1|||normal,urgent
"""
QOS = """\
Name|Priority|MaxWall|MaxJobsPU|MaxSubmitPU|GrpTRES
normal|0||||
urgent|100||2||
"""
#: ``sshare -a -P`` when the dump starts: physics has used the machine much more than biology
SSHARE = """\
Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare
root||||2000000|1.000000|
 physics||70|0.700000|1900000|0.950000|
  physics|ann|1|0.500000|1000000|0.500000|0.100000
  physics|carl|1|0.500000|900000|0.450000|0.150000
 biology||30|0.300000|100000|0.050000|
  biology|bob|1|1.000000|100000|0.050000|0.900000
"""
HEADER = ("JobID|User|Account|Partition|QOS|State|Submit|Eligible|Start|End|Timelimit|NCPUS|"
          "AllocCPUS|ReqCPUS|Priority")  # fmt: skip
T0 = datetime(2025, 3, 3, 8, 0, tzinfo=UTC)
USERS = (("ann", "physics"), ("carl", "physics"), ("bob", "biology"))


def _jobs(jobs: int, seed: int) -> list[dict]:
    """``jobs`` jobs over about six hours: 1-8 CPUs, minutes to two hours."""
    rng = random.Random(seed)
    out, t = [], 0
    for k in range(jobs):
        t += rng.randint(60, 1500)
        user, account = rng.choice(USERS)
        long = rng.random() < 0.3
        limit = rng.choice((180, 240)) if long else rng.choice((30, 60, 120))
        run = rng.randint(limit * 20, limit * 60)  # seconds, within the limit in minutes
        out.append({
            "id": 1000 + k, "user": user, "account": account, "submit": t, "run": run,
            "limit": limit, "cpus": rng.choice((1, 2, 2, 4, 4, 8)),
            "partition": "long" if long else "short",
            "qos": "urgent" if rng.random() < 0.15 else "normal",
        })  # fmt: skip
    return out


def _stamp(s: int) -> str:
    return (T0 + timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S")


def _text(jobs: list[dict], starts: list[int]) -> str:
    rows = [HEADER]
    for j, s in zip(jobs, starts, strict=True):
        rows.append("|".join([
            str(j["id"]), j["user"], j["account"], j["partition"], j["qos"], "COMPLETED",
            _stamp(j["submit"]), _stamp(j["submit"]), _stamp(s), _stamp(s + j["run"]),
            f"{j['limit'] // 60:02d}:{j['limit'] % 60:02d}:00", str(j["cpus"]),
            str(j["cpus"]), str(j["cpus"]), "1000",
        ]))  # fmt: skip
    return "\n".join(rows) + "\n"


def recorded_dump(jobs: int = 120, seed: int = 1) -> str:
    """A sacct dump whose starts are the model's schedule of :data:`SLURM_CONF` (+ assoc, QOS)."""
    from scheduler.slurm.replay import replay
    from scheduler.slurm.whatif import load_site

    made = _jobs(jobs, seed)
    draft = _text(made, [j["submit"] for j in made])
    loaded = load_site(draft, SLURM_CONF, ASSOC, QOS)
    start, _ = replay(loaded.site, loaded.dump)
    order = {jid: k for k, jid in enumerate(loaded.dump.job_ids)}
    first = made[0]["submit"]  # the dump's times count from the first submission
    return _text(made, [int(start[order[str(j["id"])]]) + first for j in made])
