"""The best-effort baseline (thesis §4.7 eq. 16, §4.9): just-in-time submission into live
simulations, AC_BE = Σ n·t, the least-loaded site, and the simulator fork it runs on."""

from __future__ import annotations

import pytest

from scheduler.cluster import SimJob, Simulator
from scheduler.provisioning import (
    Network,
    allocation_cost_best_effort,
    run_best_effort,
    system_jobs,
)
from scheduler.workflows import Edge, Task, Workflow, generate_layered

H = 3600.0


def diamond() -> Workflow:
    return Workflow(
        (Task("a", 100, 2), Task("b", 200, 3), Task("c", 50, 1), Task("d", 10, 4)),
        (Edge("a", "b"), Edge("a", "c"), Edge("b", "d"), Edge("c", "d")),
    )


def empty_site(procs: int = 4) -> Simulator:
    return Simulator([], procs, "conservative", origin=0)


def test_allocation_cost_is_sum_of_n_times_t():
    wf = diamond()
    expected = (2 * 100 + 3 * 200 + 1 * 50 + 4 * 10) / H
    assert allocation_cost_best_effort(wf) == pytest.approx(expected)
    run = run_best_effort([empty_site()], wf, submit=0)
    assert run.allocation_cost == pytest.approx(expected)


def test_an_idle_site_runs_the_critical_path():
    run = run_best_effort([empty_site()], diamond(), submit=1000)
    # a: [1000, 1100); b and c start when a ends (3 + 1 processors of 4); d after b
    assert run.tasks["a"][2:] == (1000, 1100)
    assert run.tasks["b"][2:] == (1100, 1300) and run.tasks["c"][2:] == (1100, 1150)
    assert run.tasks["d"][2:] == (1300, 1310)
    assert run.makespan == 310


def test_tasks_wait_in_the_queue_behind_trace_jobs():
    # a trace job holds 3 of 4 processors over [0, 500): task a (2 p) waits until 500
    site = Simulator([SimJob(0, 1, 0, 500, 500, 3)], 4, "conservative")
    run = run_best_effort([site], diamond(), submit=10)
    assert run.tasks["a"][1:] == (10, 500, 600)
    assert run.makespan == 600 + 200 + 10 - 10
    assert site.now == 0 and site.start == [-1]  # the workflow ran in a fork, not on it


def test_ready_tasks_go_to_the_least_loaded_site():
    busy = Simulator([SimJob(0, 1, 0, 10_000, 10_000, 1), SimJob(1, 2, 0, 10_000, 10_000, 1)],
                     4, "conservative")  # fmt: skip
    idle = empty_site()
    wf = Workflow((Task("x", 100, 1), Task("y", 100, 1)), (Edge("x", "y", 2 * 10**9),))
    net = Network.uniform(2, bandwidth=10**9, latency=5)
    run = run_best_effort([busy, idle], wf, submit=10, sites=["busy", "idle"], network=net)
    # x: busy has 2 running jobs, idle none → idle; y follows on the least loaded: idle again
    assert run.tasks["x"][0] == 1 and run.tasks["y"][0] == 1
    assert run.makespan == 200
    # with the idle site loaded more, x goes to 'busy' and y's data must move (5 + 2 s)
    for k in range(3):
        idle.submit(SimJob(0, 10 + k, 0, 50_000, 50_000, 1))
    idle.run(until=0)
    run = run_best_effort([busy, idle], wf, submit=10, sites=["busy", "idle"], network=net)
    assert run.tasks["x"][0] == 0


def test_transfer_delays_the_submission_on_another_site():
    # site a: a trace job on 3 of 4 processors, and two 1-processor jobs arriving at 50;
    # site b: two running 1-processor jobs
    a = Simulator(
        [SimJob(0, 1, 0, 10_000, 10_000, 3), SimJob(1, 2, 50, 1000, 1000, 1),
         SimJob(2, 3, 50, 1000, 1000, 1)],
        4, "conservative",
    )  # fmt: skip
    b = empty_site()
    b.submit(SimJob(0, 9, 0, 100_000, 100_000, 1))
    b.submit(SimJob(0, 8, 0, 100_000, 100_000, 1))
    b.run(until=0)
    wf = Workflow((Task("x", 100, 1), Task("y", 100, 2)), (Edge("x", "y", 10**9),))
    net = Network.uniform(2, bandwidth=10**8, latency=20)  # 1 GB: 20 + 10 = 30 s
    run = run_best_effort([a, b], wf, submit=0, sites=["a", "b"], network=net)
    # at 0: a runs 1 job, b 2 → x on a over [0, 100)
    assert run.tasks["x"] == (0, 0, 0, 100)
    # at 100: a runs 2 and queues 1, b runs 2 → y on b, submitted when its data is there
    assert run.tasks["y"] == (1, 130, 130, 230)
    assert run.makespan == 230


def test_fork_is_independent():
    wf = generate_layered(10, 3, mean_processors=2, seed=1)
    jobs = [SimJob(i, i + 1, 100 * i, 300, 300, 1 + i % 3) for i in range(20)]
    sim = Simulator(jobs, 4, "conservative")
    sim.run(until=700)
    before = (list(sim.start), sim.profile.copy(), sim.queued(), sim.running_count())
    twin = sim.fork()
    assert system_jobs(twin) == system_jobs(sim)
    run_best_effort([twin], wf, submit=700, fork=False)
    assert len(twin.jobs) == len(jobs) + 10
    assert (list(sim.start), sim.profile, sim.queued(), sim.running_count()) == before
    sim.run()
    reference = Simulator(jobs, 4, "conservative").run()
    assert sim.start == reference.start


def test_running_count_counts_started_unfinished_jobs():
    jobs = [SimJob(0, 1, 0, 100, 100, 2), SimJob(1, 2, 0, 50, 50, 2), SimJob(2, 3, 0, 10, 10, 1)]
    sim = Simulator(jobs, 4, "conservative")
    sim.run(until=0)
    assert sim.running_count() == 2 and system_jobs(sim) == 3
    sim.run(until=55)
    assert sim.running_count() == 2 and system_jobs(sim) == 2  # job 3 started at 50
    sim.run(until=60)
    assert sim.running_count() == 1 and system_jobs(sim) == 1
