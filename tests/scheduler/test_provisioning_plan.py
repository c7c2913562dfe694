"""Plan evaluation (thesis §4.5): AC and SC worked by hand on one and two sites, the
Table 1 accounting of touched slots, infeasible plans, and the HEFT order it uses."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scheduler.provisioning import Network, PlanEvaluator
from scheduler.slots import Slot
from scheduler.workflows import Edge, Task, Workflow, heft_order

H = 3600.0


def chain() -> Workflow:
    return Workflow((Task("t1", 60, 2), Task("t2", 30, 2)), (Edge("t1", "t2"),))


def one_site_slots() -> list[Slot]:
    return [
        Slot(0, 2, 100),  # A: a hole before a job, indivisible
        Slot(50, 4, 1000, divisible=True, extensible=True),  # E: an edge slot
    ]


def test_chain_on_one_site_by_hand():
    ev = PlanEvaluator(chain(), one_site_slots(), sites=[""], submit=0)
    # {A}: t1 on A over [0, 60), t2 on what A leaves over [60, 90); A costs in full
    assert ev.evaluate([True, False]) == (pytest.approx(2 * 100 / H), 90.0)
    # {A, E}: E is never touched, so it costs nothing and changes nothing
    assert ev.evaluate([True, True]) == ev.evaluate([True, False])
    # {E}: t1 over [50, 110), t2 over [110, 140); a divisible slot costs what is used
    assert ev.evaluate([False, True]) == (pytest.approx((2 * 60 + 2 * 30) / H), 140.0)
    # {}: nothing can run
    ac, sc = ev.evaluate([False, False])
    assert ac == 0 and math.isinf(sc)


def test_schedule_details_match_the_evaluation():
    ev = PlanEvaluator(chain(), one_site_slots(), sites=[""], submit=0)
    plan = ev.schedule([False, True])
    assert [(p.task, p.start, p.end, p.slots) for p in plan.placements] == [
        ("t1", 50, 110, (1,)),
        ("t2", 110, 140, (1,)),
    ]
    assert plan.slot_costs == {1: pytest.approx(180 / H)}
    assert plan.feasible and plan.scheduling_cost == 140


def test_indivisible_extensible_slot_is_paid_up_to_the_latest_end():
    # Table 1 (b = F, e = T): n_i * d_k * c_i + f_i with d_k = 150 s past the 100 s advertised
    slots = [Slot(0, 2, 100, unit_cost=2.0, fixed_cost=1.0, divisible=False, extensible=True)]
    wf = Workflow((Task("t", 150, 2),))
    ac, sc = PlanEvaluator(wf, slots, sites=[""], submit=0).evaluate([True])
    assert sc == 150 and ac == pytest.approx(2 * 150 / H * 2.0 + 1.0)


def test_fixed_cost_is_paid_once_per_touched_slot():
    slots = [Slot(0, 4, 1000, fixed_cost=3.0, divisible=True, extensible=True)]
    ac, sc = PlanEvaluator(chain(), slots, sites=[""], submit=0).evaluate([True])
    assert sc == 90 and ac == pytest.approx(180 / H + 3.0)


def two_site_case():
    wf = Workflow(
        (Task("t1", 100, 2), Task("t2", 100, 2), Task("t3", 100, 2)),
        (Edge("t1", "t2", 10**9), Edge("t1", "t3", 10**9)),
    )
    slots = [
        Slot(0, 2, 10_000, divisible=True, extensible=True, site="a"),
        Slot(0, 2, 10_000, divisible=True, extensible=True, site="b"),
    ]
    net = Network.uniform(2, bandwidth=1e9, latency=10)  # 1 GB takes 10 + 1 = 11 s
    return wf, slots, net


def test_transfer_time_between_sites_by_hand():
    wf, slots, net = two_site_case()
    ev = PlanEvaluator(wf, slots, sites=["a", "b"], submit=0, network=net)
    plan = ev.schedule([True, True])
    where = {p.task: (p.site, p.start, p.end) for p in plan.placements}
    # t1 on a at 0; t2 stays on a (no transfer) at 100; t3 would wait for a until 200 but
    # starts on b once the data has arrived: 100 + 11
    assert where == {"t1": (0, 0, 100), "t2": (0, 100, 200), "t3": (1, 111, 211)}
    assert plan.scheduling_cost == 211
    assert plan.allocation_cost == pytest.approx(3 * 2 * 100 / H)
    # with site b alone there is no transfer at all
    assert ev.evaluate([False, True]) == (pytest.approx(600 / H), 300.0)


def test_plan_order_is_the_heft_order_of_the_workflow_package():
    wf, slots, net = two_site_case()
    ev = PlanEvaluator(wf, slots, sites=["a", "b"], submit=0, network=net)
    assert ev.order == heft_order(wf, sites=["a", "b"], network=net.mean_model())


def test_a_task_wider_than_the_plan_makes_it_infeasible():
    wf = Workflow((Task("big", 10, 8),))
    slots = [Slot(0, 4, 100, divisible=True, extensible=True), Slot(0, 2, 100)]
    ev = PlanEvaluator(wf, slots, sites=[""], submit=0)
    assert math.isinf(ev.evaluate([True, True])[1])


def test_evaluations_are_cached_and_checked():
    ev = PlanEvaluator(chain(), one_site_slots(), sites=[""], submit=0)
    ev.evaluate(np.array([True, False]))
    ev.evaluate(np.array([True, False]))
    assert ev.evaluations == 1
    with pytest.raises(ValueError, match="mask of 2 bits"):
        ev.evaluate([True])
    with pytest.raises(ValueError, match="unknown site"):
        PlanEvaluator(chain(), [Slot(0, 1, 1, site="x")], sites=["a"], submit=0)
    with pytest.raises(ValueError, match="before the submission"):
        PlanEvaluator(chain(), [Slot(0, 1, 1)], sites=[""], submit=5)
