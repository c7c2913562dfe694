"""The Slurm model's rules, each on a small schedule worked out by hand (the module
docstring of scheduler/cluster/slurm.py cites the Slurm page each rule follows)."""

from __future__ import annotations

import pytest

from scheduler.cluster import BUILTIN, PolicyRef, SimJob, Simulator
from scheduler.cluster.slurm import (
    SlurmAssoc,
    SlurmParams,
    SlurmPartition,
    SlurmQOS,
    _classic,
    _fair_tree,
)

NAMES = {
    "user": {1: "ann", 2: "bob"},
    "account": {1: "phys", 2: "bio"},
    "qos": {1: "normal", 2: "urgent"},
    "partition": {1: "a", 2: "b"},
}
TWO_NODES = (("n1", 4), ("n2", 4))


def params(**kw) -> SlurmParams:  # type: ignore[no-untyped-def]
    base = dict(
        nodes=TWO_NODES,
        partitions=(SlurmPartition("a", ("n1", "n2"), default=True), SlurmPartition("b", ("n2",))),
        qos=(SlurmQOS("normal"), SlurmQOS("urgent", priority=100)),
        names=NAMES, sched_interval=1, bf_interval=1, bf_resolution=1, calc_period=60,
        release_lag=False,
    )  # fmt: skip
    base.update(kw)
    return SlurmParams(**base)


def job(k, submit, run, procs, *, limit=None, user=1, account=1, qos=1, part=1):  # type: ignore[no-untyped-def]
    return SimJob(k, k + 1, submit, run, limit or run, procs, False, user, account, qos, part)


def starts(jobs, p: SlurmParams, cpus: int = 8) -> list[int]:  # type: ignore[no-untyped-def]
    sim = Simulator(jobs, cpus, PolicyRef(BUILTIN["slurm"], p))
    sim.run()
    return sim.start


def test_a_job_runs_only_on_its_partition_nodes() -> None:
    # n2 (partition b) is full until 100; a job of b waits although n1 is free, a job of a
    # starts on n1 at once
    jobs = [job(0, 0, 100, 4, part=2), job(1, 1, 10, 2, part=2), job(2, 2, 10, 2, part=1)]
    assert starts(jobs, params()) == [0, 100, 2]


def test_qos_priority_orders_the_queue() -> None:
    jobs = [job(0, 0, 50, 8), job(1, 1, 10, 8), job(2, 2, 10, 8, qos=2)]
    assert starts(jobs, params(weight_qos=1000)) == [0, 60, 50]
    assert starts(jobs, params(weight_qos=0)) == [0, 50, 60]  # equal priorities: job order


def test_partition_priority_job_factor() -> None:
    parts = (
        SlurmPartition("a", ("n1", "n2"), job_factor=1, default=True),
        SlurmPartition("b", ("n1", "n2"), job_factor=10),
    )
    jobs = [job(0, 0, 50, 8), job(1, 1, 10, 8, part=1), job(2, 2, 10, 8, part=2)]
    assert starts(jobs, params(partitions=parts, weight_partition=100)) == [0, 60, 50]


def test_qos_max_jobs_per_user_holds_the_second_job() -> None:
    qos = (SlurmQOS("normal"), SlurmQOS("urgent", max_jobs_pu=1))
    jobs = [job(0, 0, 30, 1, qos=2), job(1, 0, 30, 1, qos=2), job(2, 0, 30, 1, qos=2, user=2)]
    assert starts(jobs, params(qos=qos, enforce_limits=True)) == [0, 30, 0]
    assert starts(jobs, params(qos=qos, enforce_limits=False)) == [0, 0, 0]


def test_qos_grp_cpus_limits_the_qos_running_cpus() -> None:
    qos = (SlurmQOS("normal", grp_cpus=4),)
    jobs = [job(0, 0, 30, 3), job(1, 0, 30, 2), job(2, 0, 30, 1)]
    # 3 CPUs run; 2 more would pass 4: job 1 waits, job 2 (1 CPU) fits the limit
    assert starts(jobs, params(qos=qos, enforce_limits=True)) == [0, 30, 0]


def test_association_max_jobs() -> None:
    assocs = (SlurmAssoc("phys"), SlurmAssoc("phys", "ann", max_jobs=1))
    jobs = [job(0, 0, 30, 1), job(1, 0, 30, 1)]
    assert starts(jobs, params(assocs=assocs, enforce_limits=True)) == [0, 30]


def test_max_wall_and_partition_max_time_reject_the_job() -> None:
    qos = (SlurmQOS("normal", max_wall=60),)
    parts = (SlurmPartition("a", ("n1", "n2"), max_time=120, default=True),)
    jobs = [job(0, 0, 10, 1, limit=100), job(1, 0, 10, 1, limit=200), job(2, 0, 10, 1)]
    sim = Simulator(jobs, 8, PolicyRef(BUILTIN["slurm"], params(qos=qos, partitions=parts,
                                                               enforce_limits=True)))  # fmt: skip
    sim.run()
    assert sim.start == [-1, -1, 0]
    assert sim.policy.rejected == {0: "QOSMaxWallDurationPerJobLimit", 1: "PartitionTimeLimit"}


def test_backfill_starts_a_job_that_ends_before_the_reservation_only() -> None:
    # one node of 4: job 0 holds 3 CPUs until 100; job 1 (4 CPUs) is reserved at 100;
    # job 2 (1 CPU, limit 50) backfills now, job 3 (1 CPU, limit 200) would delay job 1
    one = (("n1", 4),)
    parts = (SlurmPartition("a", ("n1",), default=True),)
    jobs = [job(0, 0, 100, 3), job(1, 1, 10, 4), job(2, 2, 50, 1), job(3, 2, 20, 1, limit=200)]
    assert starts(jobs, params(nodes=one, partitions=parts), cpus=4) == [0, 100, 2, 110]
    # without the backfill scheduler the main scheduler stops at job 1
    assert starts(jobs, params(nodes=one, partitions=parts, backfill=False), cpus=4) == [
        0, 100, 110, 110,
    ]  # fmt: skip


def test_a_reservation_holds_the_whole_node_in_the_backfill_plan() -> None:
    # node of 8: job 0 holds 4 CPUs until 100; job 1 (6 CPUs) reserved at 100 takes the
    # node; job 2 (1 CPU, limit 300) would fit beside job 1 by CPUs (8 - 6 = 2) but not by
    # nodes: it is not backfilled at 2 and starts with job 1 at 100 (main scheduler)
    one = (("n1", 8),)
    parts = (SlurmPartition("a", ("n1",), default=True),)
    jobs = [job(0, 0, 100, 4), job(1, 1, 50, 6), job(2, 2, 300, 1)]
    assert starts(jobs, params(nodes=one, partitions=parts), cpus=8) == [0, 100, 100]
    # two nodes of 4, 6 CPUs busy until 100: job 1 (4 CPUs) reserved at 100 holds one node,
    # job 2 backfills now on the CPUs left
    two = (("n1", 4), ("n2", 4))
    parts2 = (SlurmPartition("a", ("n1", "n2"), default=True),)
    jobs = [job(0, 0, 100, 6), job(1, 1, 50, 4), job(2, 2, 300, 1)]
    assert starts(jobs, params(nodes=two, partitions=parts2), cpus=8)[2] == 2


def test_bf_window_leaves_far_jobs_unreserved() -> None:
    # job 1's reservation at 1000 lies beyond a 600 s window: job 2 backfills over it
    one = (("n1", 4),)
    parts = (SlurmPartition("a", ("n1",), default=True),)
    jobs = [job(0, 0, 1000, 3), job(1, 1, 10, 4), job(2, 2, 2000, 1)]
    far = params(nodes=one, partitions=parts, bf_window=600)
    assert starts(jobs, far, cpus=4) == [0, 2002, 2]
    near = params(nodes=one, partitions=parts, bf_window=5000)
    assert starts(jobs, near, cpus=4) == [0, 1000, 1010]


def test_main_scheduler_stops_a_partition_at_its_first_blocked_job() -> None:
    # job 1 (8 CPUs) cannot start; job 2 of the same partition, lower priority (later),
    # is not started by the main scheduler; with backfill off it waits for job 1
    jobs = [job(0, 0, 50, 4), job(1, 1, 10, 8), job(2, 2, 10, 1)]
    assert starts(jobs, params(backfill=False)) == [0, 50, 60]
    assert starts(jobs, params(backfill=False, default_queue_depth=1)) == [0, 50, 60]


def test_a_pass_in_the_second_of_an_end_does_not_see_its_cpus() -> None:
    # job 0 ends at 100: with the lag job 1 starts at the next main pass (101, interval 1;
    # 102 with interval 2, whose tick at 100 does not see the CPUs)
    jobs = [job(0, 0, 100, 8), job(1, 1, 10, 8), job(2, 1, 10, 8)]
    assert starts(jobs, params()) == [0, 100, 110]
    assert starts(jobs, params(release_lag=True)) == [0, 101, 112]
    assert starts(jobs, params(release_lag=True, sched_interval=2, bf_interval=2)) == [0, 102, 114]


def test_priority_basic_is_fifo() -> None:
    jobs = [job(0, 0, 50, 8), job(1, 1, 10, 8), job(2, 2, 10, 8, qos=2)]
    assert starts(jobs, params(weight_qos=1000, multifactor=False)) == [0, 50, 60]


def test_fair_share_puts_the_heavy_account_behind() -> None:
    # phys ran 8 CPUs for 600 s; at the next calculation bio's job outranks phys's
    assocs = (SlurmAssoc("phys", shares=50), SlurmAssoc("bio", shares=50))
    jobs = [job(0, 0, 600, 8), job(1, 10, 100, 8, account=1), job(2, 20, 100, 8, account=2, user=2)]
    assert starts(jobs, params(assocs=assocs, weight_fairshare=1000, fair_tree=False)) == [
        0, 700, 600,
    ]  # fmt: skip
    assert starts(jobs, params(assocs=assocs, weight_fairshare=1000, fair_tree=True)) == [
        0, 700, 600,
    ]  # fmt: skip
    assert starts(jobs, params(assocs=assocs, weight_fairshare=0)) == [0, 600, 700]


def test_classic_fair_share_factor_formula() -> None:
    # two accounts 70/30, one user each; all usage by phys: F = 2^(-UE/S)
    tree = {"phys": {"ann": (1.0, 100.0)}, "bio": {"bob": (1.0, 0.0)}}
    f = _classic(tree, {"phys": 70.0, "bio": 30.0}, 100.0, 100.0)
    assert f[("bio", "bob")] == 1.0
    assert f[("phys", "ann")] == pytest.approx(2 ** (-1 / 0.7))


def test_fair_tree_ranks_by_level_fairshare() -> None:
    # bio used less than its share -> every bio user ranks above every phys user
    tree = {
        "phys": {"ann": (1.0, 60.0), "cid": (1.0, 10.0)},
        "bio": {"bob": (1.0, 30.0), "dee": (1.0, 0.0)},
    }
    f = _fair_tree(tree, {"phys": 50.0, "bio": 50.0}, 100.0, 100.0)
    assert [u for _, u in sorted(f, key=lambda k: -f[k])] == ["dee", "bob", "cid", "ann"]
    assert f[("bio", "dee")] == 1.0 and f[("phys", "ann")] == 0.25


def test_same_inputs_same_schedule() -> None:
    from scheduler.traces.lublin import generate_lublin99

    trace = generate_lublin99(jobs=400, procs=32, seed=3)
    from scheduler.cluster import prepare_jobs

    jobs, _ = prepare_jobs(trace.jobs, 32, "requested")
    p = SlurmParams(weight_age=100, weight_fairshare=1000, calc_period=300)
    first = starts(jobs, p, cpus=32)
    assert first == starts(jobs, p, cpus=32)
    assert min(first) >= 0


def test_registry_names_slurm_with_defaults() -> None:
    from scheduler.cluster import resolve, simulate
    from scheduler.traces.lublin import generate_lublin99

    ref = resolve("slurm")
    assert ref.entry is BUILTIN["slurm"] and ref.value is None and ref.text == "slurm"
    result = simulate(generate_lublin99(jobs=200, procs=16, seed=1), 16, "slurm")
    assert result.summary()["jobs"] == 200


def test_a_fork_runs_on_independently() -> None:
    # Simulator.fork (workflow submission, pricing) copies the node sets' profiles too
    from scheduler.cluster import prepare_jobs
    from scheduler.traces.lublin import generate_lublin99

    trace = generate_lublin99(jobs=300, procs=8, seed=5)
    jobs, _ = prepare_jobs(trace.jobs, 8, "requested")
    p = params(weight_qos=10)
    whole = Simulator(jobs, 8, PolicyRef(BUILTIN["slurm"], p))
    whole.run()
    half = Simulator(jobs, 8, PolicyRef(BUILTIN["slurm"], p))
    half.run(until=jobs[150].submit)
    twin = half.fork()
    twin.run()
    half.run()
    assert twin.start == whole.start == half.start


def test_fair_tree_merges_accounts_of_equal_level_fairshare() -> None:
    # no usage at all: every Level Fairshare is infinite, so every user ties first
    tree = {"phys": {"ann": (1.0, 0.0)}, "bio": {"bob": (1.0, 0.0)}, "root": {"root": (1.0, 0.0)}}
    f = _fair_tree(tree, {"phys": 70.0, "bio": 30.0, "root": 1.0}, 101.0, 0.0)
    assert set(f.values()) == {1.0}
    # the root account's own user, without usage, ranks above both accounts' users
    tree["phys"]["ann"] = (1.0, 50.0)
    tree["bio"]["bob"] = (1.0, 50.0)
    f = _fair_tree(tree, {"phys": 70.0, "bio": 30.0, "root": 1.0}, 101.0, 100.0)
    assert f[("root", "root")] == 1.0 and f[("phys", "ann")] > f[("bio", "bob")]


def test_fair_tree_factor_is_zero_until_the_first_calculation() -> None:
    # Fair Tree computes factors at PriorityCalcPeriod: job 1 (submitted before the first
    # calculation) gets none; classic fair share of no usage is 1
    assocs = (SlurmAssoc("phys"),)
    jobs = [job(0, 0, 10, 8), job(1, 1, 10, 8)]
    for tree, factor in ((True, 0.0), (False, 1.0)):
        sim = Simulator(jobs, 8, PolicyRef(BUILTIN["slurm"], params(
            assocs=assocs, weight_fairshare=1000, fair_tree=tree)))  # fmt: skip
        sim.run(until=1)
        assert sim.policy.prio[1] == int(1000 * factor)
