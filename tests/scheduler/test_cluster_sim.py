"""Hand-worked schedules of the cluster simulator (scheduler.cluster)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from scheduler.cluster import (
    Reservation,
    SimJob,
    Simulator,
    prepare_jobs,
    simulate,
)
from scheduler.cluster.registry import resolve
from scheduler.policies import PriorityPolicy
from scheduler.traces.swf import SWFJob

H = 3600
POLICIES = ("fcfs", "easy", "conservative")


def job(job_id, submit, run, procs, req=-1, *, alloc=None, user=1):
    """An SWF record: field 8 (requested procs) = procs, field 5 = alloc (default procs)."""
    alloc = procs if alloc is None else alloc
    fields = (job_id, submit, -1, run, alloc, -1, -1, procs, req, -1, 1, user, 2, 3, 4, 5, -1, -1)
    return SWFJob(*fields)


def starts(result):
    return {row[0]: row[2] for row in result.rows()}


# a hand-worked example: A 2 procs 3 h, B 4 procs 1 h, C 1 proc 2 h, D 3 procs 2 h, all at 0
FIVE = [job(1, 0, 3 * H, 2), job(2, 0, H, 4), job(3, 0, 2 * H, 1), job(4, 0, 2 * H, 3)]


@pytest.mark.parametrize("estimates", ["accurate", "requested"])
def test_five_processor_example(estimates):
    expected = {
        "conservative": {1: 0, 3: 0, 2: 3 * H, 4: 4 * H},
        "easy": {1: 0, 3: 0, 2: 3 * H, 4: 4 * H},
        "fcfs": {1: 0, 2: 3 * H, 3: 3 * H, 4: 4 * H},
    }
    for policy, want in expected.items():
        r = simulate(FIVE, 5, policy, estimates)
        assert starts(r) == want, policy
        assert [row[3] - row[2] for row in r.rows()] == [3 * H, H, 2 * H, 2 * H]


def early_termination_jobs():
    # J1 asks 10 s but ends at 2; J2, J3, J4 queue behind it on 4 processors
    return [
        job(1, 0, 2, 4, req=10),
        job(2, 1, 5, 2, req=5),
        job(3, 1, 3, 2, req=3),
        job(4, 1, 4, 4, req=4),
    ]


def test_early_termination_compresses_the_conservative_plan():
    sim = Simulator(prepare_jobs(early_termination_jobs(), 4, "requested")[0], 4, "conservative")
    sim.run(until=1)
    # planned with J1's request: J2 and J3 at 10, J4 after them at 15
    assert [sim.planned_start(k) for k in range(4)] == [0, 10, 10, 15]
    sim.run()  # J1 ends at 2: J2 and J3 move to 2, J4 to 7 (when J2 ends)
    assert sim.start == [0, 2, 2, 7]
    for policy in POLICIES:
        assert starts(simulate(early_termination_jobs(), 4, policy, "requested")) == {
            1: 0, 2: 2, 3: 2, 4: 7,
        }  # fmt: skip
    # planning with actual runtimes gives the same schedule, J1 known to end at 2
    assert starts(simulate(early_termination_jobs(), 4, "conservative", "accurate")) == {
        1: 0, 2: 2, 3: 2, 4: 7,
    }  # fmt: skip


def test_conservative_backfills_only_without_delaying_earlier_reservations():
    # 4 procs. A runs [0, 10) on 3. B (4 procs, 5 s) is planned at 10. C (1 proc, 20 s) would
    # delay B, so it goes after B (15); D (1 proc, 7 s) ends by 10 and backfills at 3.
    jobs = [job(1, 0, 10, 3), job(2, 1, 5, 4), job(3, 2, 20, 1), job(4, 3, 7, 1)]
    assert starts(simulate(jobs, 4, "conservative", "accurate")) == {1: 0, 2: 10, 3: 15, 4: 3}
    # EASY: C does not fit behind the head's reservation either (needs the leftover at 10: 0)
    assert starts(simulate(jobs, 4, "easy", "accurate")) == {1: 0, 2: 10, 3: 15, 4: 3}
    # D 1 s longer would cross B's reservation: it runs after B, beside C
    jobs[3] = job(4, 3, 8, 1)
    assert starts(simulate(jobs, 4, "conservative", "accurate"))[4] == 15
    assert starts(simulate(jobs, 4, "fcfs", "accurate")) == {1: 0, 2: 10, 3: 15, 4: 15}


def test_easy_and_conservative_differ():
    # 4 procs. A [0, 10) on 2. B (4 procs) head, shadow 10. C (2 procs, 20 s) would cross the
    # shadow time with no leftover -> waits. D (2 procs, 5 s) backfills at 3 under both.
    # E (1 proc, 100 s) arrives at 4: under EASY it only needs to respect B (leftover at 10
    # is 0 -> waits); it then runs after B.  Under conservative, C holds [15, 35) on 2 procs.
    jobs = [
        job(1, 0, 10, 2),
        job(2, 1, 5, 4),
        job(3, 2, 20, 2),
        job(4, 3, 5, 2),
        job(5, 4, 100, 1),
    ]
    easy = starts(simulate(jobs, 4, "easy", "accurate"))
    cons = starts(simulate(jobs, 4, "conservative", "accurate"))
    assert easy == {1: 0, 2: 10, 3: 15, 4: 3, 5: 15}
    # conservative: E gets the earliest start that delays neither B nor C: 15 (1 proc left)
    assert cons == {1: 0, 2: 10, 3: 15, 4: 3, 5: 15}
    # F (3 procs, 1 s) arriving at 16: EASY lets it wait for the head (E, C, started); under
    # conservative it must wait for C and E to leave room: both give 35
    jobs.append(job(6, 16, 1, 3))
    assert starts(simulate(jobs, 4, "easy", "accurate"))[6] == 35
    assert starts(simulate(jobs, 4, "conservative", "accurate"))[6] == 35


def test_requested_estimates_kill_at_the_request():
    jobs = [job(1, 0, 100, 2, req=50), job(2, 0, 30, 2, req=-1), job(3, 0, 10, 2, req=0)]
    r = simulate(jobs, 2, "fcfs", "requested")
    assert r.rows() == [(1, 0, 0, 50, 2), (2, 0, 50, 80, 2), (3, 0, 80, 90, 2)]
    assert r.summary()["killed"] == 1
    r = simulate(jobs, 2, "fcfs", "accurate")  # accurate: nobody is killed
    assert r.rows() == [(1, 0, 0, 100, 2), (2, 0, 100, 130, 2), (3, 0, 130, 140, 2)]
    assert r.summary()["killed"] == 0


def test_fixed_reservation_is_honoured_by_every_policy():
    # 4 procs; 3 of them reserved over [10, 20).  A (2 procs, 5 s) fits at 0.  B (2 procs,
    # 20 s) would overlap the reservation with only 1 free: it must wait until 20.
    jobs = [job(1, 0, 5, 2), job(2, 0, 20, 2), job(3, 1, 3, 1), job(4, 2, 12, 1)]
    resv = [Reservation(10, 10, 3)]
    want = {
        "fcfs": {1: 0, 2: 20, 3: 20, 4: 20},
        # C ends by B's shadow time (20); D fits beside the reservation until 14
        "easy": {1: 0, 2: 20, 3: 1, 4: 2},
        "conservative": {1: 0, 2: 20, 3: 1, 4: 2},
    }
    for policy, expected in want.items():
        r = simulate(jobs, 4, policy, "accurate", reservations=resv)
        assert starts(r) == expected, policy
        assert r.summary()["reservations"] == 1
        assert_no_overcommit(r, 4, resv)
    # without the reservation B starts at once
    assert starts(simulate(jobs, 4, "fcfs", "accurate"))[2] == 0


def test_reservations_that_over_commit_are_refused():
    jobs, _ = prepare_jobs([job(1, 0, 5, 1)], 4, "accurate")
    with pytest.raises(ValueError, match="does not fit"):
        Simulator(jobs, 4, "easy", reservations=[Reservation(0, 10, 3), Reservation(5, 10, 2)])
    sim = Simulator(jobs, 4, "conservative")
    sim.run(until=0)
    with pytest.raises(ValueError, match="does not fit"):
        sim.add_reservation(Reservation(0, 10, 4))  # the job holds 1 processor over [0, 5)
    sim.add_reservation(Reservation(0, 10, 3))


def test_completions_come_before_arrivals_and_queue_order_is_submit_then_id():
    # B arrives exactly when A ends: it starts then.  D and C arrive together; C has the
    # smaller id, so it is ahead although it comes later in the file.
    jobs = [job(1, 0, 10, 4), job(2, 10, 5, 4), job(9, 12, 5, 4), job(7, 12, 5, 4)]
    for policy in POLICIES:
        r = simulate(jobs, 4, policy, "accurate")
        assert starts(r) == {1: 0, 2: 10, 7: 15, 9: 20}
        assert [row[0] for row in r.rows()] == [1, 2, 7, 9]


def test_dropped_jobs_are_counted_by_reason_and_procs_come_from_field_8():
    jobs = [
        job(1, 0, -1, 2),  # runtime unknown
        job(2, 0, 10, -1, alloc=-1),  # processors unknown
        job(3, 0, 10, 9),  # larger than the machine
        job(4, 0, 10, 3, alloc=5),  # field 8 (3) wins over field 5
        job(5, 0, 10, -1, alloc=2),  # field 8 missing: field 5
        job(6, 5, 0, 8),  # zero runtime: simulated
    ]
    r = simulate(jobs, 8, "easy", "accurate")
    s = r.summary()
    assert s["dropped"] == 3
    assert (s["dropped_missing_runtime"], s["dropped_missing_procs"]) == (1, 1)
    assert s["dropped_exceeds_machine"] == 1
    assert r.rows() == [(4, 0, 0, 10, 3), (5, 0, 0, 10, 2), (6, 5, 10, 10, 8)]
    # the machine size can be overridden: on 9 processors job 3 runs
    assert simulate(jobs, 9, "easy", "accurate").summary()["dropped_exceeds_machine"] == 0
    with pytest.raises(ValueError, match="estimates"):
        simulate(jobs, 8, "easy", "guessed")
    with pytest.raises(ValueError, match="unknown policy"):
        simulate(jobs, 8, "sjf", "accurate")


def test_summary_by_hand():
    # 2 procs: A [0, 5) on 2; B submitted at 0 waits 5 then runs 20 s; C (1 s) waits 25
    jobs = [job(1, 0, 5, 2), job(2, 0, 20, 2), job(3, 0, 1, 1)]
    r = simulate(jobs, 2, "fcfs", "accurate")
    assert r.rows() == [(1, 0, 0, 5, 2), (2, 0, 5, 25, 2), (3, 0, 25, 26, 1)]
    s = r.summary()
    assert s["mean_wait"] == pytest.approx(10.0) and s["median_wait"] == 5.0
    # bounded slowdown, tau = 10: A max(1, 5/10) = 1; B 25/20 = 1.25; C 26/10 = 2.6
    assert s["mean_bounded_slowdown"] == pytest.approx((1 + 1.25 + 2.6) / 3, abs=1e-4)
    assert s["makespan"] == 26
    assert s["utilization"] == pytest.approx((10 + 40 + 1) / (2 * 26), abs=1e-6)
    np.testing.assert_array_equal(r.wait, [0, 5, 25])
    # utilization series: 1.0 over [0, 25), 0.5 over [25, 26)
    assert r.binned("utilization", 2) == [[0.0, 1.0], [13.0, pytest.approx(12.5 / 13, abs=1e-6)]]
    assert r.binned("queue", 1) == [[0.0, pytest.approx((2 * 5 + 1 * 20) / 26, abs=1e-6)]]
    out = io.StringIO()
    r.write_csv(out)
    assert out.getvalue().splitlines() == [
        "job_id,submit,start,end,procs",
        "1,0,0,5,2",
        "2,0,5,25,2",
        "3,0,25,26,1",
    ]


def test_stepping_and_on_the_fly_submission():
    jobs = [job(i, 10 * i, 30, 2) for i in range(1, 6)]
    whole = simulate(jobs, 4, "conservative", "accurate")
    sim = Simulator(prepare_jobs(jobs, 4, "accurate")[0], 4, "conservative")
    sim.run(until=25)
    assert sim.now == 20 and sim.queued() == [] and sim.finished is False
    sim.run(until=30)
    assert sim.queued() == [2] and sim.planned_start(2) == 40
    assert sim.profile.free_at(30) == 0
    sim.run()
    assert sim.finished and sim.start == whole.start.tolist()
    # a task submitted on the fly (e.g. by a workflow manager) queues behind the trace
    sim = Simulator(prepare_jobs(jobs, 4, "accurate")[0], 4, "easy")
    sim.run(until=30)
    k = sim.submit(SimJob(0, 99, 0, 5, 5, 4))
    sim.run()
    # EASY: at 40 it heads the queue with shadow time 70 (when J3 ends); J4 and J5 cannot
    # backfill without delaying it
    assert sim.jobs[k].submit == 30 and sim.start[k] == 70


class _FirstComeEasy(PriorityPolicy):
    """EASY written in the public policy API (docs/policies.md)."""

    reservations = 1

    def priority(self, job, now):  # type: ignore[no-untyped-def]
        return -job.submit


@pytest.mark.parametrize("policy", ["easy", _FirstComeEasy])
def test_a_granted_reservation_lets_easy_backfill_at_the_next_arrival(policy):
    """Mu'alem & Feitelson's EASY re-examines the queue at every event.  A reservation granted
    mid-run can move the head's shadow time later, so a job that could not backfill before
    may at the next event, even one with arrivals only (nothing freed)."""
    jobs = [
        SimJob(0, 1, 0, 100, 100, 2),  # runs over [0, 100)
        SimJob(1, 2, 0, 50, 50, 4),  # the head: shadow time 100
        SimJob(2, 3, 0, 150, 150, 2),  # ends at 150 > 100: would delay the head
        SimJob(3, 4, 20, 10, 10, 3),  # arrives at 20: an event with arrivals only
    ]
    sim = Simulator(jobs, 4, resolve(policy))
    sim.run(until=10)
    assert sim.start == [0, -1, -1, -1]
    # 2 processors over [100, 300): the head fits only from 300 on, so job 3 (on the 2
    # processors left now, to 170) no longer delays it: it starts at the arrival at 20, not
    # at the next release (100); job 4 waits for the head (3 processors free from 350)
    sim.insert_reservation(Reservation(100, 200, 2), now=10)
    sim.run()
    assert sim.start == [0, 300, 20, 350]


def assert_no_overcommit(result, procs, reservations=()):
    events = []
    for j, s, e in zip(result.jobs, result.start.tolist(), result.end.tolist(), strict=True):
        if e > s:
            events += [(s, j.procs), (e, -j.procs)]
    for r in reservations:
        events += [(r.start, r.procs), (r.end, -r.procs)]
    used = 0
    for _, delta in sorted(events, key=lambda x: (x[0], x[1])):  # ends (negative) first
        used += delta
        assert used <= procs


def test_conservative_compresses_before_placing_the_arrivals_of_the_same_instant():
    # J1 asks 10 s but ends at 2; J2 was planned at 10.  J3 arrives at 2, when J1 ends:
    # completions come first, so J2 moves to 2 and J3 goes after it (not ahead of it).
    jobs = [job(1, 0, 2, 2, req=10), job(2, 1, 5, 2, req=5), job(3, 2, 3, 2, req=3)]
    assert starts(simulate(jobs, 2, "conservative", "requested")) == {1: 0, 2: 2, 3: 7}


def test_conservative_plan_can_be_rebuilt_from_its_base_profile():
    from scheduler.cluster.conservative import plan_in_order

    jobs = [job(1, 0, 10, 3), job(2, 1, 5, 4), job(3, 2, 20, 1), job(4, 3, 7, 1)]
    sim = Simulator(prepare_jobs(jobs, 4, "accurate")[0], 4, "conservative")
    sim.run(until=3)
    base = sim.policy.base_profile()
    assert list(base.steps()) == [(3, 10, 0), (10, None, 4)]  # A and D run
    assert plan_in_order(base, sim.policy.queued_shapes(), 3) == [10, 15]  # B, C
    assert base == sim.profile
