"""Thesis Figure 2 (a task onto a slot list) and Figure 3 (left-overs): cases worked by hand, the
fast search against a literal transcription of Figure 2, and a site run on its slot list
against the conservative-backfilling simulator (accurate estimates)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler.cluster import SimJob, Simulator
from scheduler.slots import FreeSlot, SlotListScheduler, find_start, fit_task, schedule_on_slots

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def S(start, end, procs, ext=False, origin=0):  # noqa: N802
    return FreeSlot(start, end, procs, ext, origin)


# ------------------------------------------------------------------ hand-worked cases


def test_single_slot_case_a_leaves_beside_and_after():
    fit = fit_task([S(0, 100, 4)], 2, 30)
    assert fit.start == 0
    # beside: 2 processors over the whole [0, 100); after: the task's 2 over [30, 100)
    assert fit.slots == [S(0, 100, 2), S(30, 100, 2)]
    assert [tuple(u) for u in fit.used] == [(0, 2, 0, 30)]


def test_whole_slot_taken_leaves_only_after():
    fit = fit_task([S(0, 100, 4)], 4, 100)
    assert fit.start == 0 and fit.slots == []


def test_three_left_overs_at_most():
    # a task placed in the middle of a slot (earliest 30): beside, before and after
    fit = fit_task([S(0, 100, 4)], 1, 20, 30)
    assert fit.start == 30
    assert fit.slots == [S(0, 30, 1), S(0, 100, 3), S(50, 100, 1)]


def test_stacking_two_slots_vertically():
    # A: 2 processors over [0, 50); B: 3 over [10, 60).  A 4-processor task of 20 s:
    # A alone is too narrow at 0; at B's start 10 both span [10, 30): 3 + 2 >= 4.
    a, b = S(0, 50, 2, origin=0), S(10, 60, 3, origin=1)
    fit = fit_task([a, b], 4, 20)
    assert fit.start == 10
    # B (S_i) is used whole, A gives the last processor: A keeps 1 processor over [0, 50),
    # and leaves 1 over [0, 10) before and 1 over [30, 50) after; B leaves 3 over [30, 60)
    assert fit.slots == [S(0, 10, 1, origin=0), S(0, 50, 1, origin=0), S(30, 50, 1, origin=0),
                         S(30, 60, 3, origin=1)]  # fmt: skip
    assert sorted(tuple(u) for u in fit.used) == [(0, 1, 10, 30), (1, 3, 10, 30)]


def test_time_is_never_stacked():
    # [0, 10) then [10, 20) on one processor each: a 15 s task fits neither
    assert fit_task([S(0, 10, 1), S(10, 20, 1)], 1, 15) is None


def test_extension_five_minutes_past_the_task():
    # an extensible slot shorter than the task is extended to 300 s past it
    fit = fit_task([S(0, 100, 4, ext=True)], 2, 150)
    assert fit.start == 0
    assert fit.slots == [S(0, 450, 2, ext=True), S(150, 450, 2, ext=True)]


def test_short_inextensible_slot_is_skipped_for_a_later_one():
    slots = [S(0, 100, 8), S(200, 300, 2, ext=True)]
    fit = fit_task(slots, 2, 150)
    assert fit.start == 200
    assert fit.slots[0] == S(0, 100, 8)  # untouched


def test_earliest_time_prefers_the_slot_that_opened_last():
    # both span [50, 80); the one that opened at 50 is taken (nothing left before the task)
    old, new = S(0, 200, 2, origin=0), S(50, 200, 2, origin=1)
    fit = fit_task([old, new], 2, 30, 50)
    assert fit.start == 50
    assert [u.origin for u in fit.used] == [1]
    assert S(0, 200, 2, origin=0) in fit.slots


def test_zero_duration_needs_free_processors_at_the_instant_only():
    fit = fit_task([S(0, 10, 1), S(10, 20, 2)], 2, 0)
    assert fit.start == 10 and fit.slots == [S(0, 10, 1), S(10, 20, 2)]


def test_figure_3_stack_of_two_with_three_left_overs_on_c1():
    # c1: 3 processors over [0, 100); c2: 2 over [20, 60).  A 4-processor task of 30 s starts
    # at 20 on c2 (whole) and 2 processors of c1, which leaves three pieces.
    c1, c2 = S(0, 100, 3, origin=1), S(20, 60, 2, origin=2)
    fit = fit_task([c1, c2], 4, 30)
    assert fit.start == 20
    c1_left = [p for p in fit.slots if p.origin == 1]
    assert c1_left == [S(0, 20, 2, origin=1), S(0, 100, 1, origin=1), S(50, 100, 2, origin=1)]
    assert [p for p in fit.slots if p.origin == 2] == [S(50, 60, 2, origin=2)]


# ------------------------------------------------------------------ literal Figure 2


def literal_figure2(slots, n, d, t):
    """Figure 2 word for word on the scan order of the module docstring (slots opened by t
    latest first, then the rest by start); walk back by decreasing start among the slots
    scanned before S_i."""
    span = d if d > 0 else 1
    j = sum(1 for s in slots if s[0] <= t)
    order = list(range(j - 1, -1, -1)) + list(range(j, len(slots)))
    for pos, i in enumerate(order):
        s, e, k, x, _ = slots[i]
        c = max(s, t)

        def covers(q, c=c):
            return slots[q][3] or slots[q][1] >= c + span

        if not covers(i):
            continue
        if k >= n:
            return c, [i]
        delta = k - n
        z = [i]
        for q in sorted(order[:pos], reverse=True):
            if covers(q):
                z.append(q)
                delta += slots[q][2]
                if delta >= 0:
                    return c, z
    return None


@st.composite
def slot_lists(draw):
    m = draw(st.integers(0, 9))
    out = []
    for _ in range(m):
        s = draw(st.integers(0, 40))
        out.append(FreeSlot(s, s + draw(st.integers(1, 40)), draw(st.integers(1, 5)),
                            draw(st.booleans()), len(out)))  # fmt: skip
    return sorted(out)


@SETTINGS
@given(slot_lists(), st.integers(1, 8), st.integers(0, 30), st.integers(0, 50))
def test_fast_search_is_figure_2(slots, n, d, t):
    assert find_start(slots, n, d, t) == literal_figure2(slots, n, d, t)


@SETTINGS
@given(slot_lists(), st.integers(1, 8), st.integers(1, 30), st.integers(0, 50))
def test_left_overs_keep_the_free_area(slots, n, d, t):
    """What the task took plus what is left = what there was (extensions aside)."""
    fit = fit_task(slots, n, d, t)
    if fit is None:
        return
    before = sum(p.procs * (p.end - p.start) for p in slots)
    extended = 0
    for p in slots:
        if p.extensible and p.end <= fit.start + d and any(u.origin == p.origin for u in fit.used):
            extended += p.procs * (fit.start + d + 300 - p.end)
    after = sum(p.procs * (p.end - p.start) for p in fit.slots)
    assert after + n * d == before + extended
    assert sum(u.procs for u in fit.used) == n


# ------------------------------------------------------------------ conservative backfilling


@st.composite
def accurate_workloads(draw):
    # runtimes >= 1 s: the simulator plans a job of runtime 0 for 1 s and compresses its plan
    # when the job ends at once, which is an inaccurate estimate
    procs = draw(st.integers(1, 8))
    jobs = sorted(
        (draw(st.integers(0, 60)), draw(st.integers(1, procs)), draw(st.integers(1, 30)))
        for _ in range(draw(st.integers(1, 20)))
    )
    return procs, jobs


def simulator_starts(procs, jobs):
    sim_jobs = [SimJob(i, i + 1, t, d, d, n) for i, (t, n, d) in enumerate(jobs)]
    sim = Simulator(sim_jobs, procs, "conservative")
    sim.run()
    return sim.start


@SETTINGS
@given(accurate_workloads())
def test_slot_list_site_is_conservative_backfilling(workload):
    procs, jobs = workload
    assert schedule_on_slots(jobs, procs) == simulator_starts(procs, jobs)


@SETTINGS
@given(accurate_workloads())
def test_without_recut_the_schedule_stays_valid(workload):
    procs, jobs = workload
    starts = schedule_on_slots(jobs, procs, recut=False)
    events = sorted(
        {s for s in starts} | {s + d for s, (_, _, d) in zip(starts, jobs, strict=True)}
    )
    for t in events:
        busy = sum(n for s, (_, n, d) in zip(starts, jobs, strict=True) if s <= t < s + d)
        assert busy <= procs
    assert all(s >= t for s, (t, _, _) in zip(starts, jobs, strict=True))


def test_fixed_processors_can_fragment_the_list():
    # the smallest case found: without re-cutting, job 4 (1 processor for 9 s from 4) finds
    # one processor free over [4, 9) and another over [9, 13) but no single slot across both
    jobs = [(1, 2, 8), (1, 3, 6), (4, 1, 5), (4, 1, 9), (8, 1, 2)]
    assert simulator_starts(4, jobs) == [1, 9, 4, 4, 13]
    assert schedule_on_slots(jobs, 4) == [1, 9, 4, 4, 13]
    assert schedule_on_slots(jobs, 4, recut=False) == [1, 9, 4, 9, 15]


def test_site_refuses_a_job_larger_than_the_machine():
    site = SlotListScheduler(4)
    try:
        site.submit(5, 10, 0)
    except ValueError as exc:
        assert "cannot run" in str(exc)
    else:
        raise AssertionError("accepted a job larger than the machine")
