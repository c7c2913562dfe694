"""Provisioning impact (seed 003 §3): list scheduling by hand, the three models, the
advance-reservation start cross-checked with the simulator, and the clusterings' invariants."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.cluster.fairshare import FairShareWeights
from scheduler.cluster.jobs import Reservation, SimJob
from scheduler.provisioning.impact import (
    Candidate,
    evaluate_requests,
    pessimistic_copy,
    pilot_start,
    reservation_start,
    run_without_provisioning,
    select,
    site_at,
)
from scheduler.provisioning.listsched import list_schedule, timed_dag
from scheduler.workflows import (
    Edge,
    Task,
    Workflow,
    cluster_fixed_clusters,
    cluster_fixed_size,
    critical_path,
    load_workflow,
    tasks_per_level,
    total_runtime,
)
from tests.conftest import SHARED_DATA, require


def dag_of(runtimes: dict[str, float], edges: list[tuple[str, str]], procs=None):
    procs = procs or {}
    tasks = tuple(Task(t, r, procs.get(t, 1)) for t, r in runtimes.items())
    return Workflow(tasks, tuple(Edge(a, b) for a, b in edges), "test")


# Seed 003 Figure 3: five 5-minute tasks, A -> {B, C, D} -> E.
FIG3 = dag_of(
    {"A": 300, "B": 300, "C": 300, "D": 300, "E": 300},
    [("A", "B"), ("A", "C"), ("A", "D"), ("B", "E"), ("C", "E"), ("D", "E")],
)


def test_figure3_requests_by_hand():
    dag = timed_dag(FIG3)
    # 1 processor: 25 min, 100 %; 2: A | B C | D | E = 20 min, 25 / 40 = 62.5 %;
    # 3: A | B C D | E = 15 min, 25 / 45 = 55.6 % (the seed prints 55 %)
    s1, s2, s3 = (list_schedule(dag, n) for n in (1, 2, 3))
    assert (s1.makespan, s2.makespan, s3.makespan) == (1500, 1200, 900)
    assert s1.utilization == pytest.approx(1.0)
    assert s2.utilization == pytest.approx(0.625)
    assert s3.utilization == pytest.approx(25 / 45)
    assert list_schedule(dag, 50).makespan == 900  # more processors than width: the critical path


def test_fork_join_by_hand():
    wf = dag_of(
        {"A": 5, "B": 10, "C": 20, "D": 30, "E": 5},
        [("A", "B"), ("A", "C"), ("A", "D"), ("B", "E"), ("C", "E"), ("D", "E")],
    )
    s = list_schedule(timed_dag(wf), 2, keep_starts=True)
    # A 0-5; B on p0 5-15, C on p1 5-25; D takes the first free processor (p0) 15-45; E 45-50
    assert s.start == (0, 5, 5, 15, 45)
    assert s.makespan == 50
    assert s.utilization == pytest.approx(70 / 100)


def test_wide_task_needs_enough_processors():
    wf = dag_of({"A": 10, "B": 10}, [("A", "B")], procs={"B": 3})
    dag = timed_dag(wf)
    assert list_schedule(dag, 2) is None
    s = list_schedule(dag, 3)
    assert s.makespan == 20
    assert s.utilization == pytest.approx((10 + 30) / 60)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), tasks=st.integers(1, 30), n=st.integers(1, 8))
def test_list_schedule_bounds(seed, tasks, n):
    rng = random.Random(seed)
    runtimes = {f"t{i}": rng.randint(1, 50) for i in range(tasks)}
    edges = [(f"t{i}", f"t{j}") for j in range(tasks) for i in range(j) if rng.random() < 0.2]
    wf = dag_of(runtimes, edges)
    dag = timed_dag(wf)
    s = list_schedule(dag, n)
    work = sum(runtimes.values())
    assert s.makespan >= max(critical_path(wf), work / n) - 1e-9
    assert s.makespan <= work  # never worse than one processor
    assert list_schedule(dag, 1).makespan == work


# --------------------------------------------------------------------------- clustering


def montage25():
    path = SHARED_DATA / "workflows" / "Montage_25.xml"
    require(path.exists(), f"{path} is missing")
    return load_workflow(path)


@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_fixed_clusters_keep_dag_and_runtime(k):
    wf = montage25()
    c = cluster_fixed_clusters(wf, k)
    assert len(c.topological_indices) == len(c.tasks)  # acyclic (Workflow also validates)
    assert total_runtime(c) == pytest.approx(total_runtime(wf))
    assert len(tasks_per_level(c)) == len(tasks_per_level(wf))
    assert max(tasks_per_level(c)) == min(k, max(tasks_per_level(wf)))
    # one cluster per level: a chain, list scheduling on 1 processor = the total runtime
    if k == 1:
        assert list_schedule(timed_dag(c), 1).makespan == sum(timed_dag(c).runtime)


@pytest.mark.parametrize("m", [2, 3, 8, 64])
def test_fixed_size_keeps_dag_and_runtime(m):
    wf = montage25()
    c = cluster_fixed_size(wf, m)
    assert len(c.topological_indices) == len(c.tasks)
    assert total_runtime(c) == pytest.approx(total_runtime(wf))
    per_level = tasks_per_level(wf)
    assert tasks_per_level(c) == [-(-n // m) for n in per_level]


# --------------------------------------------------------------------------- the three models


def random_site_jobs(seed: int, n: int, procs: int):
    """A busy small site; requested times up to 4x the actual runtimes."""
    rng = random.Random(seed)
    rows, t = [], 0
    for i in range(n):
        t += rng.randint(0, 120)
        run = rng.randint(1, 900)
        est = run * rng.randint(1, 4)
        rows.append(SimJob(i, i + 1, t, run, est, rng.randint(1, procs), False, rng.randint(1, 5)))
    return rows


WEIGHTS = FairShareWeights(fs_interval=600)


def queued_starts(site, T, reservation=None):
    """Starts, in the pessimistic world, of the jobs queued at T (with an extra reservation)."""
    copy = pessimistic_copy(site)
    queued = copy.queued()
    if reservation is not None:
        copy.add_reservation(reservation)
    copy.run()
    return {k: copy.start[k] for k in queued}


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    policy=st.sampled_from(["fcfs", "fairshare", "fairshare-cb"]),
    n=st.integers(1, 16),
    d=st.integers(1, 3000),
)
def test_reservation_delays_no_queued_job(seed, policy, n, d):
    # Under FIFO the seed's probe (a job submitted last) delays no queued job (seed 003 §3.1);
    # under a priority policy only the stricter "behind the queue" probe guarantees it.
    procs = 16
    jobs = random_site_jobs(seed, 60, procs)
    T = jobs[40].submit
    # with backfilling, protect the whole queue (the seed's 50 covers its queue the same way)
    weights = FairShareWeights(fs_interval=600, reservation_depth=1000)
    site = site_at(jobs, procs, policy, T, weights=None if policy == "fcfs" else weights)
    behind = policy != "fcfs"
    s = reservation_start(pessimistic_copy(site), T, n, d, behind_queue=behind)
    if policy == "fcfs":  # the seed's probe is already behind the queue under FIFO
        assert reservation_start(pessimistic_copy(site), T, n, d, behind_queue=True) == s
    assert s >= T
    before = queued_starts(site, T)
    after = queued_starts(site, T, Reservation(s, d, n))  # must fit: add_reservation checks
    assert all(after[k] <= before[k] for k in before), "the reservation delayed a queued job"


def test_fifo_reservation_waits_behind_the_queue_by_hand():
    # 10 processors; J0 runs [0, 100) on 10, requested 300; J1 (4 procs, requested 50) queues.
    jobs = [SimJob(0, 1, 0, 100, 300, 10, False, 1), SimJob(1, 2, 5, 50, 50, 4, False, 2)]
    site = site_at(jobs, 10, "fcfs", 10)
    pess = pessimistic_copy(site)
    # the scheduler believes J0 ends at 300; J1 then runs [300, 350) on 4 of 10 processors:
    # a 6-processor reservation fits at 300, a 7-processor one only at 350
    assert reservation_start(pess, 10, 6, 500) == 300
    assert reservation_start(pess, 10, 7, 500) == 350
    # in reality J0 ends at 100: the pilot job (dynamic provisioning) starts then
    assert pilot_start(site, 10, 6, 500) == 100


def test_fair_share_reservation_takes_the_policys_rank_by_hand():
    # Seed 003 §3.1: the reservation's start is that of the request submitted as a job "taking
    # the current scheduling policy into account" (§1: no start-time advantage over the queue,
    # and none lost either).  10 processors, fair share on usage only.  User 1 has used the
    # machine alone: J0 runs [0, 100) on 10 (requested 100) and J1 (10 procs, 200 s) queues.
    # The workflow's user has no usage, so its request outranks J1 and starts when J0 ends.
    jobs = [SimJob(0, 1, 0, 100, 100, 10, False, 1), SimJob(1, 2, 5, 200, 200, 10, False, 1)]
    weights = FairShareWeights(
        fs_weight=10.0, queue_time_weight=0.0, xfactor_weight=0.0, bypass_weight=0.0,
        size_weight=0.0,
    )  # fmt: skip
    for policy in ("fairshare", "fairshare-cb"):
        site = site_at(jobs, 10, policy, 10, weights=weights)
        pess = pessimistic_copy(site)
        assert reservation_start(pess, 10, 6, 50) == 100
        # the pilot job (dynamic provisioning) sees the same rank: AR and DP agree (§5.1)
        assert pilot_start(site, 10, 6, 50) == 100
        # the stricter reading (behind every queued job) waits for J1: [100, 300)
        assert reservation_start(pess, 10, 6, 50, behind_queue=True) == 300
    # FIFO: the request waits behind J1 whatever the user
    site = site_at(jobs, 10, "fcfs", 10)
    assert reservation_start(pessimistic_copy(site), 10, 6, 50) == 300


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    policy=st.sampled_from(["fcfs", "fairshare", "fairshare-cb"]),
    n=st.integers(1, 16),
    d=st.integers(1, 3000),
    interval=st.sampled_from([0, 60]),
)
def test_reservation_is_the_pilot_start_when_the_scheduler_foresees_everything(
    seed, policy, n, d, interval
):
    # Seed 003 §3.3 names the two reasons why the pilot's actual start differs from the
    # reservation's: jobs end before their requested time, and jobs submitted later.  Without
    # either (runtime = requested, no arrival after T) the two starts coincide, whatever the
    # policy.
    procs = 16
    jobs = [
        SimJob(j.index, j.job_id, j.submit, j.estimate, j.estimate, j.procs, False, j.user)
        for j in random_site_jobs(seed, 41, procs)
    ]
    T = jobs[-1].submit
    weights = None if policy == "fcfs" else FairShareWeights(fs_interval=600)
    site = site_at(jobs, procs, policy, T, weights=weights, interval=interval)
    assert reservation_start(pessimistic_copy(site), T, n, d) == pilot_start(site, T, n, d)


def test_task_walltime_matters_under_backfilling_only_by_hand():
    # 10 processors.  J0 runs [0, 100) on 6 (requested 100); J1 (10 procs, 500 s) queues and,
    # protected, holds [100, 600).  At 10 a one-task workflow (1 processor, 10 s) arrives.
    # Asking its runtime the task backfills into [10, 20); asking 1 h it does not fit before
    # J1's reservation and starts when J1 ends.  FIFO never looks at the request: the task
    # queues behind J1 either way.
    jobs = [SimJob(0, 1, 0, 100, 100, 6, False, 1), SimJob(1, 2, 5, 500, 500, 10, False, 1)]
    dag = timed_dag(dag_of({"A": 10}, []))
    size_only = FairShareWeights(
        fs_weight=0.0, queue_time_weight=0.0, xfactor_weight=0.0, bypass_weight=0.0,
        size_weight=1.0,
    )  # fmt: skip
    site = site_at(jobs, 10, "fairshare-cb", 10, weights=size_only)
    assert run_without_provisioning(site, dag, 10).completion == 10
    assert run_without_provisioning(site, dag, 10, walltime=3600).completion == 600
    fifo = site_at(jobs, 10, "fcfs", 10)
    assert run_without_provisioning(fifo, dag, 10).completion == 600
    assert run_without_provisioning(fifo, dag, 10, walltime=3600).completion == 600
    with pytest.raises(ValueError, match="walltime"):
        run_without_provisioning(site, dag, 10, walltime=-1)


def test_no_provisioning_on_an_idle_cluster_is_the_critical_path():
    wf = dag_of(
        {"A": 5, "B": 10, "C": 20, "D": 30, "E": 5},
        [("A", "B"), ("A", "C"), ("A", "D"), ("B", "E"), ("C", "E"), ("D", "E")],
    )
    dag = timed_dag(wf)
    site = site_at([], 10, "fcfs", 0)
    assert run_without_provisioning(site, dag, 0).completion == 40  # 5 + 30 + 5
    # one task in the system at a time: the tasks run one after the other
    assert run_without_provisioning(site, dag, 0, limit=1).completion == 70
    assert pilot_start(site, 0, 4, 40) == 0


def test_no_provisioning_queues_behind_the_trace():
    # J0 holds all 4 processors for 100 s; the workflow's chain A -> B queues behind it
    jobs = [SimJob(0, 1, 0, 100, 100, 4, False, 1)]
    wf = dag_of({"A": 10, "B": 20}, [("A", "B")])
    site = site_at(jobs, 4, "fcfs", 0)
    r = run_without_provisioning(site, timed_dag(wf), 0)
    assert r.completion == 130 and r.total_wait == 100


def test_request_selection_by_hand():
    c = [
        Candidate(1, 1000, 1.0, 100),  # completion 1100, util 1
        Candidate(2, 600, 0.8, 100),  # completion 700, util .8
        Candidate(4, 400, 0.5, 100),  # completion 500, util .5
    ]
    assert select(c, 0).n == 4  # min completion
    # x = 1: 1/1100 = .00091, .8/700 = .00114, .5/500 = .001 -> n = 2
    assert select(c, 1).n == 2
    # x = 3: 1/1100 = .00091, .512/700 = .00073, .125/500 = .00025 -> n = 1
    assert select(c, 3).n == 1
    with pytest.raises(ValueError):
        select([], 0)


def test_evaluate_requests_uses_the_cache_and_skips_infeasible():
    wf = dag_of({"A": 10, "B": 10}, [("A", "B")], procs={"B": 3})
    site = site_at([], 8, "fcfs", 0)
    cache: dict = {}
    cands = evaluate_requests(pessimistic_copy(site), timed_dag(wf), 0, range(1, 5), cache=cache)
    assert [c.n for c in cands] == [3, 4]
    assert all(c.ar_wait == 0 for c in cands)
    assert set(cache) == {(3, 20), (4, 20)}
