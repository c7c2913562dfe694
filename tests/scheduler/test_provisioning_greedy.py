"""Greedy provisioning with adaptive prices (thesis ch. 7, Figure 51): a hand-worked plan at
both ends of α, and the α = 1 property of §7.2 (the cost of best effort, f = 0)."""

from __future__ import annotations

import pytest

from scheduler.cluster import SimJob, Simulator
from scheduler.cluster.jobs import prepare_jobs
from scheduler.provisioning.best_effort import allocation_cost_best_effort, run_best_effort
from scheduler.provisioning.greedy import greedy_provision
from scheduler.traces.lublin import generate_lublin99
from scheduler.workflows import Edge, Task, Workflow, generate_layered

SU = 3600


def busy_site() -> Simulator:
    """4 processors: a trace job holds 3 over [0, 500); a queued job Q (4 p, 100 s) is
    planned at 500."""
    return Simulator(
        [SimJob(0, 1, 0, 500, 500, 3), SimJob(1, 2, 0, 100, 100, 4)], 4, "conservative"
    )


def chain() -> Workflow:
    return Workflow((Task("a", 100, 2), Task("b", 50, 1)), (Edge("a", "b"),))


def test_alpha_one_takes_the_free_slots():
    """a (2 p, 100 s) from 10: at 10 only 1 processor is free (infeasible); at 500 it
    delays Q by 100 s x 4 p (f = 400 p-s); at 600, after Q, it is free.  α = 1 takes 600;
    then b (1 p, 50 s) from 700 is free at once.  Makespan 750 − 10, cost (200 + 50) p-s."""
    site = busy_site()
    plan = greedy_provision([site], chain(), submit=10, alpha=1.0)
    assert [(p.task, p.start, p.finish) for p in plan.placements] == [
        ("a", 600, 700), ("b", 700, 750),
    ]  # fmt: skip
    assert plan.makespan == 740
    assert plan.allocation_cost == pytest.approx(250 / SU)
    assert plan.delay_cost == 0
    assert site.now == 0 and site.start == [-1, -1]  # the plan went into a fork


def test_alpha_zero_pays_for_the_earliest_finish():
    """α = 0: a at 500 (finish 600) for f = 400 p-s, Q moves to [600, 700).  b from 600:
    at 600 it delays Q by 50 s x 4 p (f = 200 p-s, finish 650); at 700 it is free (finish
    750) — α = 0 takes 600.  Makespan 650 − 10; cost 250 + 400 + 200 p-s."""
    plan = greedy_provision([busy_site()], chain(), submit=10, alpha=0.0)
    assert [(p.task, p.start, p.finish) for p in plan.placements] == [
        ("a", 500, 600), ("b", 600, 650),
    ]  # fmt: skip
    assert plan.makespan == 640
    assert plan.delay_cost == pytest.approx(600 / SU)
    assert plan.allocation_cost == pytest.approx(850 / SU)


def test_best_effort_on_the_hand_site():
    # best effort: a queues behind Q (planned at 500) and starts at 600, b at 700
    run = run_best_effort([busy_site()], chain(), submit=10)
    assert run.makespan == 740


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_alpha_one_costs_what_best_effort_costs(seed):
    """Thesis §7.2: at α = 1 every slot has f = 0, so with c = 1 the allocation cost is
    best effort's Σ n·t (eq. 16); the makespan is not worse on these loaded sites."""
    jobs, _ = prepare_jobs(generate_lublin99(jobs=600, procs=64, seed=seed).jobs, 64, "accurate")
    site = Simulator(jobs, 64, "conservative")
    wf = generate_layered(20, 4, mean_runtime=600.0, mean_processors=6.0, max_processors=64,
                          seed=seed)  # fmt: skip
    T = jobs[len(jobs) // 2].submit
    site.run(until=T)
    plan = greedy_provision([site], wf, submit=T, alpha=1.0)
    assert all(p.f == 0 for p in plan.placements)
    assert plan.allocation_cost == pytest.approx(allocation_cost_best_effort(wf))
    cheapest = greedy_provision([site], wf, submit=T, alpha=0.0)
    assert cheapest.makespan <= plan.makespan
    assert cheapest.allocation_cost >= plan.allocation_cost


def test_bad_requests():
    with pytest.raises(ValueError, match="alpha"):
        greedy_provision([busy_site()], chain(), submit=10, alpha=1.5)
    big = Workflow((Task("a", 10, 8),), ())
    with pytest.raises(ValueError, match="needs 8 processors"):
        greedy_provision([busy_site()], big, submit=10, alpha=0.5)
