"""``python -m scheduler slurm-replay``: a sacct dump replayed under a site's configuration,
figures per user/account/partition/QOS, the comparison with the recorded starts (the Slurm
model and the FCFS/EASY baselines), ``--set`` what-ifs and bad input naming file and line."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from scheduler.slurm import SlurmSite, comparison, load_dump, parse_slurm_conf, replay
from tests.conftest import scheduler_cli

CONF = """\
ClusterName=t
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1,bf_resolution=1
PriorityType=priority/multifactor
PriorityWeightQOS=1000
PriorityWeightPartition=100
OverTimeLimit=1
NodeName=n1 CPUs=4
PartitionName=main Nodes=n1 Default=YES MaxTime=60
"""
HEADER = "JobID|User|Account|Partition|QOS|State|Submit|Eligible|Start|End|Timelimit|NCPUS|" \
    "AllocCPUS|ReqCPUS|Priority"  # fmt: skip
T0 = datetime(2025, 3, 1, tzinfo=UTC)


def _row(jid: int, submit: int, start: int, run: int, cpus: int, limit: str,
         qos: str = "normal", account: str = "phys", user: str = "ann") -> str:  # fmt: skip
    def t(s: int) -> str:
        return (T0 + timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S")

    return "|".join(
        [str(jid), user, account, "main", qos, "COMPLETED", t(submit), t(submit), t(start),
         t(start + run), limit, str(cpus), str(cpus), str(cpus), "1000"]
    )  # fmt: skip


def _dump(rows: list[str]) -> str:
    return "\n".join([HEADER, *rows]) + "\n"


#: what the site's Slurm did: job 3 (urgent) went before job 2 although submitted later,
#: each start a second after the end that freed its CPUs
RECORDED = _dump(
    [
        _row(1, 0, 0, 100, 4, "00:05:00"),
        _row(2, 10, 152, 50, 4, "00:02:00"),
        _row(3, 20, 101, 50, 4, "00:02:00", qos="urgent", account="bio", user="bob"),
    ]
)
QOS = "Name|Priority|MaxJobsPU\nnormal|0|\nurgent|10|\n"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "slurm.conf").write_text(CONF)
    (tmp_path / "qos.txt").write_text(QOS)
    (tmp_path / "sacct.txt").write_text(RECORDED)
    return tmp_path


def _run(site: Path, *extra: str):  # type: ignore[no-untyped-def]
    return scheduler_cli(
        "slurm-replay", str(site / "sacct.txt"), "--slurm-conf", str(site / "slurm.conf"),
        "--qos", str(site / "qos.txt"), "--out", str(site / "s.csv"), *extra,
    )  # fmt: skip


def test_replay_follows_the_qos_priority_and_beats_fcfs(site: Path) -> None:
    done = _run(site)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["comparison"]["slurm"]["start_error_median"] == 0
    assert out["comparison"]["slurm"]["rank_correlation"] == 1.0
    assert out["comparison"]["fcfs"]["start_error_p90"] > 0  # FCFS runs job 2 first
    assert out["groups"]["qos"]["urgent"] == {
        "jobs": 1, "wait_mean": 81.0, "wait_median": 81.0, "bsld_mean": 2.62,
        "utilisation": 0.2475, "cpu_share": 0.25,
    }  # fmt: skip
    assert out["groups"]["account"]["phys"]["jobs"] == 2
    assert out["ignored_keys"] == ["ClusterName"]
    rows = (site / "s.csv").read_text().splitlines()
    assert rows[0] == "job_id,user,account,partition,qos,submit,start,end,cpus,real_start"
    assert rows[3] == "3,bob,bio,main,urgent,20,101,151,4,101"


def test_set_changes_the_what_if(site: Path) -> None:
    done = _run(site, "--set", "PriorityWeightQOS=0")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["understood"]["weight_qos"] == 0
    assert out["comparison"]["slurm"]["start_error_median"] == 51  # job 2 and 3 swap


def test_jobs_are_killed_at_their_limit_plus_overtime(tmp_path: Path) -> None:
    # a job that ran 200 s with a 1 min limit: OverTimeLimit=1 kills it at 120 s (job 2
    # starts a second later, the pass at 120 not seeing the CPUs yet)
    dump = load_dump(_dump([_row(1, 0, 0, 200, 1, "00:01:00"), _row(2, 0, 0, 10, 4, "1")]))
    site = SlurmSite(parse_slurm_conf(CONF))
    start, _ = replay(site, dump)
    assert start.tolist() == [0, 121]
    site.set("OverTimeLimit=0")
    assert replay(site, dump)[0].tolist() == [0, 61]
    c = comparison(dump, start)
    assert c["jobs"] == 2 and c["wait_mean_real"] == 0 and c["wait_mean_sim"] == 60.5


def test_a_job_over_the_partition_max_time_never_starts(tmp_path: Path) -> None:
    dump = load_dump(_dump([_row(1, 0, 0, 10, 1, "02:00:00"), _row(2, 0, 0, 10, 1, "1")]))
    start, info = replay(SlurmSite(parse_slurm_conf(CONF)), dump)
    assert start.tolist() == [-1, 0] and info["rejected"] == {0: "PartitionTimeLimit"}
    assert comparison(dump, start)["never_started"] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--set", "bogus"), "error: --set 'bogus': write Key=Value"),
        (("--set", "bf_window=x"), "error: --set bf_window: line 1: SchedulerParameters:"),
    ],
)
def test_bad_set_exits_2(site: Path, args: tuple[str, ...], message: str) -> None:
    done = _run(site, *args)
    assert done.returncode == 2 and message in done.stderr


def test_bad_files_exit_2_naming_file_and_line(site: Path) -> None:
    (site / "qos.txt").write_text("Name|Priority\nurgent|high\n")
    done = _run(site)
    assert done.returncode == 2
    assert f"{site / 'qos.txt'}: line 2: Priority: 'high'" in done.stderr
    (site / "qos.txt").write_text(QOS)
    (site / "sacct.txt").write_text(
        RECORDED + "9|ann|phys|main|normal|COMPLETED|bad|x|y|z|1|1|1|1|1\n"
    )
    done = _run(site)
    assert done.returncode == 2 and "line 5:" in done.stderr and "sacct.txt" in done.stderr
    assert not (site / "s.csv").exists()
