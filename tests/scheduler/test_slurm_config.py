"""Reading a Slurm site's configuration: slurm.conf's scheduling keys (the rest listed as
ignored), ``sacctmgr -P show assoc`` and ``show qos``; bad input names the line and key."""

from __future__ import annotations

import pytest

from scheduler.slurm import (
    SlurmConfigError,
    SlurmSite,
    parse_assoc,
    parse_qos,
    parse_slurm_conf,
)

CONF = """\
# a site
ClusterName=site
SlurmctldHost=head
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=60,bf_window=2880,bf_resolution=300,bf_max_job_test=200,\\
bf_continue,default_queue_depth=50,sched_interval=30,max_rpc_cnt=150
PriorityType=priority/multifactor
PriorityFlags=NO_FAIR_TREE
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=500
PriorityWeightPartition=2000
PriorityWeightQOS=3000
PriorityDecayHalfLife=14-0
PriorityMaxAge=7-0
PriorityFavorSmall=YES
PriorityCalcPeriod=5
OverTimeLimit=2
AccountingStorageEnforce=associations,limits,qos
NodeName=DEFAULT RealMemory=1000
NodeName=c[01-04] CPUs=32
NodeName=g1 CPUs=64 Gres=gpu:4
PartitionName=DEFAULT State=UP
PartitionName=cpu Nodes=c[01-04] Default=YES MaxTime=2-00:00:00 PriorityJobFactor=1
PartitionName=gpu Nodes=g1,c04 MaxTime=INFINITE PriorityJobFactor=10
"""

_ASSOC_HEADER = (
    "Cluster|Account|User|Partition|Share|Priority|GrpJobs|GrpTRES|GrpSubmit|GrpWall|"
    "GrpTRESMins|MaxJobs|MaxTRES|MaxTRESPerNode|MaxSubmit|MaxWall|MaxTRESMins|QOS|Def QOS|"
    "GrpTRESRunMins"
)


def _assoc_row(account: str, user: str, share: str, **limits: str) -> str:
    fields = dict.fromkeys(_ASSOC_HEADER.split("|"), "")
    fields.update(Cluster="site", Account=account, User=user, Share=share, QOS="normal")
    fields.update(limits)
    return "|".join(fields.values())


ASSOC = "\n".join(
    [
        _ASSOC_HEADER,
        _assoc_row("root", "", "1"),
        _assoc_row("root", "root", "1"),
        _assoc_row("phys", "", "70"),
        _assoc_row("phys", "ann", "1", MaxJobs="3"),
        _assoc_row("bio", "", "30", GrpTRES="cpu=64,mem=1G"),
        _assoc_row("bio", "bob", "parent"),
    ]
)

_QOS_HEADER = (
    "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageThres|"
    "UsageFactor|GrpTRES|GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|GrpWall|MaxTRES|"
    "MaxTRESPerNode|MaxTRESMins|MaxWall|MaxTRESPU|MaxJobsPU|MaxSubmitPU|MaxTRESPA|MaxJobsPA|"
    "MaxSubmitPA|MinTRES"
)


def _qos_row(name: str, priority: str, **limits: str) -> str:
    fields = dict.fromkeys(_QOS_HEADER.split("|"), "")
    fields.update(Name=name, Priority=priority, GraceTime="00:00:00", PreemptMode="cluster")
    fields.update(UsageFactor="1.000000", **limits)
    return "|".join(fields.values())


QOS = "\n".join(
    [
        _QOS_HEADER,
        _qos_row("normal", "0"),
        _qos_row("urgent", "100", GrpTRES="cpu=16", MaxWall="1-00:00:00", MaxJobsPU="2",
                 MaxSubmitPU="5"),
    ]
)  # fmt: skip


def test_slurm_conf_scheduling_keys_are_read_and_the_rest_listed() -> None:
    conf = parse_slurm_conf(CONF)
    v = conf.values
    assert v["backfill"] and v["multifactor"] and not v["fair_tree"] and v["enforce_limits"]
    assert (v["bf_interval"], v["bf_window"], v["bf_resolution"]) == (60, 2880 * 60, 300)
    assert (v["bf_max_job_test"], v["default_queue_depth"], v["sched_interval"]) == (200, 50, 30)
    assert v["bf_continue"] is True
    assert (v["weight_age"], v["weight_fairshare"], v["weight_jobsize"]) == (1000, 10000, 500)
    assert (v["weight_partition"], v["weight_qos"]) == (2000, 3000)
    assert v["decay_half_life"] == 14 * 86400 and v["max_age"] == 7 * 86400
    assert v["favor_small"] is True and v["calc_period"] == 300 and v["overtime"] == 120
    assert conf.nodes == [("c01", 32), ("c02", 32), ("c03", 32), ("c04", 32), ("g1", 64)]
    cpu, gpu = conf.partitions
    assert cpu.nodes == ("c01", "c02", "c03", "c04") and cpu.default and cpu.max_time == 172800
    assert gpu.nodes == ("g1", "c04") and gpu.max_time == -1 and gpu.job_factor == 10
    assert conf.ignored == ["ClusterName", "SlurmctldHost"]
    assert conf.sched_ignored == ["max_rpc_cnt"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("PriorityWeightAge=lots", "line 2: PriorityWeightAge: an integer"),
        ("SchedulerType=sched/fancy", "line 2: SchedulerType: 'sched/fancy'"),
        ("SchedulerParameters=bf_window", "line 2: SchedulerParameters: bf_window needs a value"),
        ("PriorityFavorSmall=maybe", "line 2: PriorityFavorSmall: YES or NO"),
        ("NodeName=n[1-x] CPUs=4", "line 2: NodeName: bad host range"),
        ("PartitionName=p Nodes=nowhere", "PartitionName=p: Nodes: 'nowhere' has no NodeName"),
        ("PriorityMaxAge=1-2-3", "line 2: PriorityMaxAge"),
        ("just words", "line 2: not a Key=Value line"),
    ],
)
def test_bad_slurm_conf_names_line_and_key(line: str, message: str) -> None:
    with pytest.raises(SlurmConfigError) as exc:
        parse_slurm_conf(f"NodeName=n1 CPUs=4\n{line}\n", "site.conf")
    assert str(exc.value).startswith("site.conf: ") and message in str(exc.value)


def test_assoc_and_qos_tables() -> None:
    assocs = parse_assoc(ASSOC)
    by = {(a.account, a.user): a for a in assocs}
    # the root account's row goes, its users stay (they are siblings of the accounts)
    assert set(by) == {
        ("root", "root"), ("phys", ""), ("phys", "ann"), ("bio", ""), ("bio", "bob"),
    }  # fmt: skip
    assert by[("phys", "")].shares == 70 and by[("bio", "bob")].shares == -1
    assert by[("phys", "ann")].max_jobs == 3 and by[("bio", "")].grp_cpus == 64
    normal, urgent = parse_qos(QOS)
    assert (normal.name, normal.priority, normal.max_jobs_pu) == ("normal", 0, -1)
    assert (urgent.priority, urgent.grp_cpus, urgent.max_wall) == (100, 16, 86400)
    assert (urgent.max_jobs_pu, urgent.max_submit_pu) == (2, 5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no header here\n", "line 1: not sacctmgr -P output"),
        ("Name|Priority\nnormal|0|extra\n", "line 2: 3 fields where the header has 2"),
        ("Name|Priority\nnormal|high\n", "line 2: Priority: 'high' is not a valid value"),
        ("Name|Priority\n|5\n", "line 2: Name: empty"),
        ("Name|MaxWall\nq|forever\n", "line 2: MaxWall: 'forever'"),
    ],
)
def test_bad_qos_table_names_line_and_key(text: str, message: str) -> None:
    with pytest.raises(SlurmConfigError) as exc:
        parse_qos(text, "qos.txt")
    assert message in str(exc.value) and str(exc.value).startswith("qos.txt: ")


def test_bad_assoc_share_names_line() -> None:
    with pytest.raises(SlurmConfigError, match=r"assoc: line 2: Share: 'lots'"):
        parse_assoc("Account|User|Share\nphys||lots\n")


def test_site_set_overrides_like_a_slurm_conf_line() -> None:
    site = SlurmSite(parse_slurm_conf(CONF), parse_assoc(ASSOC), parse_qos(QOS))
    site.set("PriorityWeightAge=0")
    site.set("bf_window=60")
    p = site.params()
    assert p.weight_age == 0 and p.bf_window == 3600 and p.weight_fairshare == 10000
    assert len(p.partitions) == 2 and len(p.qos) == 2 and len(p.assocs) == 5
    with pytest.raises(SlurmConfigError, match="--set ClusterName: not a scheduling key"):
        site.set("ClusterName=x")
    with pytest.raises(SlurmConfigError, match="write Key=Value"):
        site.set("PriorityWeightAge")
    with pytest.raises(SlurmConfigError, match="--set PriorityWeightQOS: line 1: "):
        site.set("PriorityWeightQOS=-3")
