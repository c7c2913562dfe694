"""The malleability simulator: hand-worked PRA/PWA runs and invariants (seed 002)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.malleability import (
    BackgroundLoad,
    JobSpec,
    ModelError,
    cluster_profiles,
    clusters_from_sizes,
    seed_workload,
    simulate,
)
from scheduler.malleability.apps import pow2_floor

ONE10 = clusters_from_sizes([10])


def mall(i, submit, lo=2, hi=10, app="gadget2"):
    return JobSpec(i, submit, app, "malleable", lo, hi)


def rigid(i, submit, size=2, app="gadget2"):
    return JobSpec(i, submit, app, "rigid", size, size)


def run(jobs, approach="PRA", policy="FPSMA", clusters=ONE10, **kw):
    res = simulate(jobs, clusters, approach=approach, policy=policy, record_segments=True, **kw)
    return res, {r.id: r for r in res.records}


# GADGET2 T(p) = 184.9 + 826.5/p + 0.918 p:  T(10) = 276.73, T(8) = 295.5565, T(2) = 599.986.


def test_pra_single_job_grows_to_its_max_and_runs_at_that_speed():
    # placed at its minimum 2 at t=0, then PRA grows it by the 8 idle processors at once;
    # no overhead → it runs all its work on 10: ceil(276.73) = 277
    res, r = run([mall(1, 0)])
    assert (r[1].start, r[1].finish, r[1].max_procs, r[1].grows) == (0, 277, 10, 1)
    assert r[1].avg_procs == pytest.approx(10)


def test_resize_overhead_suspends_progress():
    # same job, 10 s overhead after the grow at t=0 → 10 + 277
    _, r = run([mall(1, 0)], resize_overhead=10)
    assert r[1].finish == 287


def test_pra_gives_precedence_to_the_running_job():
    # A holds all 10 processors from t=0 to 277; B (rigid 2) arrives at 100, waits for A, then
    # runs 600 s on 2 processors (ceil(599.986)): finish 877, response 777.
    _, r = run([mall(1, 0), rigid(2, 100)])
    assert r[1].finish == 277 and r[1].shrinks == 0
    assert (r[2].start, r[2].finish, r[2].response) == (277, 877, 777)


def test_pwa_shrinks_the_running_job_to_place_the_waiting_one():
    # A grows to 10 at t=0 (queue empty). B arrives at 100: no idle processor, so A is shrunk
    # by 2 to 8 and B starts at once.  A has done 100/276.73 of its work (remaining
    # 0.638637); at 8 processors that takes 0.638637 · 295.5565 = 188.75 s → finish 289.
    _, r = run([mall(1, 0), rigid(2, 100)], approach="PWA")
    assert (r[2].start, r[2].finish) == (100, 700)
    assert (r[1].finish, r[1].grows, r[1].shrinks, r[1].max_procs) == (289, 1, 1, 10)
    # time-averaged size: (10·100 + 8·189) / 289
    assert r[1].avg_procs == pytest.approx((10 * 100 + 8 * 189) / 289)


def test_pwa_fpsma_vs_egs_shrink_choice():
    # Cluster of 20, no overhead. A (t=0, 2..10) is placed at 2 and grows to 10; B (t=1,
    # 2..10) is placed at 2 and grows by the 8 idle left → 10; nothing idle.  C (rigid 4) at
    # t=2 needs 4: FPSMA takes them from the latest started, B (10 → 6); EGS splits them
    # equally, 2 from each (A 8, B 8).  C starts at once either way.
    cl = clusters_from_sizes([20])
    expected = {"FPSMA": {1: 10, 2: 6}, "EGS": {1: 8, 2: 8}}
    for policy, sizes in expected.items():
        res, r = run([mall(1, 0), mall(2, 1), rigid(3, 2, size=4)], "PWA", policy, clusters=cl)
        assert r[3].start == 2
        # the size each job holds from t=2 on (a job that was not resized keeps its segment)
        held = {o: next(s.procs for s in res.segments if s.owner == o and s.start <= 2 < s.end)
                for o in (1, 2)}  # fmt: skip
        assert held == sizes, policy
        assert r[2].shrinks == 1 and r[1].shrinks == (0 if policy == "FPSMA" else 1)


def test_ft_runs_on_a_power_of_two():
    # FT alone on 20 processors: PRA offers 18 more; FT takes 16 (highest power of 2 <= 20)
    # and runs ceil(T_FT(16)) = ceil(40.4 + 156.7/16 + 0.612·16) = ceil(59.986) = 60 s
    res, r = run([mall(1, 0, hi=32, app="ft")], clusters=clusters_from_sizes([20]))
    assert (r[1].max_procs, r[1].finish) == (16, 60)
    assert all(pow2_floor(s.procs) == s.procs for s in res.segments if s.owner == 1)


def test_worst_fit_spreads_jobs_over_clusters():
    # three rigid jobs of 2 on clusters (5, 8, 6): WF takes the most idle each time: 8→6 left,
    # then 6 (cluster 3, tie 6 vs 6 → first, cluster 2)…
    cl = clusters_from_sizes([5, 8, 6], ["a", "b", "c"])
    _, r = run([rigid(1, 0), rigid(2, 0), rigid(3, 0)], clusters=cl)
    # idle (5, 8, 6) → b (6 left); idle (5, 6, 6) → b (first of the tie); (5, 4, 6) → c
    assert [r[i].cluster for i in (1, 2, 3)] == ["b", "b", "c"]


def test_placement_fails_after_max_tries():
    # B needs 8 but A holds 4 of 10 for 600 s; polls every 30 s: tries at 0 (submission),
    # 30, 60 and 90 → the fourth failed try exceeds max_tries=3 (seed §4.1: "when this number
    # exceeds a certain threshold value, the submission of that job fails").
    jobs = [rigid(1, 0, size=4), rigid(2, 0, size=8)]
    _, r = run(jobs, max_tries=3, poll_interval=30)
    assert r[2].failed and r[2].tries == 4 and r[2].start is None
    assert not r[1].failed


def test_threshold_is_left_to_local_users_when_growing():
    _, r = run([mall(1, 0)], threshold=3)
    assert r[1].max_procs == 7  # 10 - 3


def test_threshold_scope_all_keeps_it_from_placement_too():
    # a rigid 8 on a cluster of 10 with 3 kept for local users: placed when the threshold
    # binds growth only; never placed (fails after its tries) when it binds everything KOALA
    # manages (seed §5.2 "never expands the total set of the jobs it manages")
    _, r = run([rigid(1, 0, size=8)], threshold=3)
    assert r[1].start == 0
    _, r = run([rigid(1, 0, size=8)], threshold=3, threshold_scope="all", max_tries=2)
    assert r[1].failed
    with pytest.raises(ModelError) as err:
        run([rigid(1, 0)], threshold_scope="cluster")
    assert err.value.field == "threshold_scope"


def test_pra_waiting_malleable_job_is_not_placed_while_a_running_one_can_grow():
    # seed §5.2 PRA: "any waiting malleable jobs are not considered as long as at least one
    # running malleable job can still be grown".  Cluster of 10, 3 kept for local users:
    # A grows to 7 (its maximum is 10, so it can still be grown).  B (malleable) arrives at 50
    # and waits for A to finish at ceil(T(7)) = ceil(309.40) = 310; C (rigid) arrives at 50
    # too and is placed at once (the rule is about malleable jobs).
    _, r = run([mall(1, 0), mall(2, 50), rigid(3, 50)], threshold=3)
    assert (r[1].max_procs, r[1].finish) == (7, 310)
    assert r[3].start == 50
    assert r[2].start == 310
    # a running job at its maximum cannot be grown: then B is placed at once
    _, r = run([mall(1, 0, hi=7), mall(2, 50)], threshold=3)
    assert r[2].start == 50


def test_shrunk_processors_come_back_once_the_job_has_adapted():
    # seed §5.1: "we let the execution resume before releasing processors to GRAM", and
    # Figures 4-5 "wait for Job to release the processors".  As in the PWA test above, with a
    # 10 s overhead: A grows to 10 at t=0 (adapting until 10); B (rigid 2) arrives at 100, A is
    # shrunk to 8 but holds the 2 until 110, when B starts.
    res, r = run([mall(1, 0), rigid(2, 100)], approach="PWA", resize_overhead=10)
    assert r[2].start == 110 and r[2].wait == 10
    held = [(s.start, s.end, s.procs) for s in res.segments if s.owner == 1]
    assert held[:3] == [(0, 100, 10), (100, 110, 10), (110, held[2][1], 8)]


def test_a_job_adapting_takes_no_new_resize_request():
    # A grows at t=0 and adapts until 10; B (rigid 2) arrives at 5: A can be shrunk only at 10,
    # and releases the 2 processors at 20.
    _, r = run([mall(1, 0), rigid(2, 5)], approach="PWA", resize_overhead=10)
    assert r[2].start == 20
    assert r[1].shrinks == 1


def test_bad_simulation_input():
    with pytest.raises(ModelError) as err:
        simulate([mall(1, 0, lo=12, hi=20)], ONE10, approach="PRA", policy="EGS")
    assert err.value.field == "min_procs"
    with pytest.raises(ModelError) as err:
        simulate([mall(1, 0, lo=3, hi=8, app="ft")], ONE10, approach="PRA", policy="EGS")
    assert err.value.field == "min_procs"
    with pytest.raises(ModelError) as err:
        simulate([mall(1, 0)], ONE10, approach="LIFO", policy="EGS")
    assert err.value.field == "approach"


def test_deterministic():
    jobs = seed_workload(jobs=80, interarrival=20, malleable_fraction=0.5, seed=3)
    kw = dict(approach="PWA", policy="EGS", threshold=2, resize_overhead=5,
              background=BackgroundLoad(0.2), seed=3)  # fmt: skip
    assert simulate(jobs, clusters_from_sizes([30, 20]), **kw) == simulate(
        jobs, clusters_from_sizes([30, 20]), **kw
    )


job_st = st.tuples(
    st.integers(0, 600),  # submit
    st.sampled_from(["rigid", "moldable", "malleable"]),
    st.sampled_from(["gadget2", "ft"]),
    st.integers(1, 6),  # min
    st.integers(0, 40),  # max - min
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    sizes=st.lists(st.integers(2, 24), min_size=1, max_size=3),
    raw=st.lists(job_st, min_size=1, max_size=25),
    approach=st.sampled_from(["PRA", "PWA"]),
    policy=st.sampled_from(["FPSMA", "EGS"]),
    threshold=st.integers(0, 3),
    overhead=st.integers(0, 20),
    load=st.sampled_from([0.0, 0.3]),
    scope=st.sampled_from(["growth", "all"]),
    rounds=st.sampled_from(["one", "repeat"]),
)
def test_invariants_over_random_workloads(
    sizes, raw, approach, policy, threshold, overhead, load, scope, rounds
):
    cl = clusters_from_sizes(sizes)
    cap = max(sizes)
    jobs = []
    for i, (submit, kind, app, lo, extra) in enumerate(raw):
        lo = min(lo, cap)
        hi = lo + extra
        if app == "ft":
            lo, hi = pow2_floor(lo), pow2_floor(hi)
        if kind == "rigid":
            hi = lo
        jobs.append(JobSpec(i, submit, app, kind, lo, hi))
    res = simulate(
        jobs, cl, approach=approach, policy=policy, threshold=threshold,
        resize_overhead=overhead, background=BackgroundLoad(load), record_segments=True,
        max_tries=50, seed=len(raw), threshold_scope=scope, egs_shrink_rounds=rounds,
    )  # fmt: skip
    # no processor over-committed on any cluster at any time (KOALA + local users): the shared
    # profile refuses any block that does not fit
    cluster_profiles(res)
    assert sorted(r.id for r in res.records) == list(range(len(jobs)))
    spec = {j.id: j for j in jobs}
    for s in res.segments:
        if s.owner < 0:
            continue
        j = spec[s.owner]
        assert j.min_procs <= s.procs <= j.max_procs  # never below min nor above max
        if j.app == "ft":
            assert pow2_floor(s.procs) == s.procs  # FT always on a power of 2
        if j.kind != "malleable":
            first = next(x for x in res.segments if x.owner == s.owner)
            assert s.procs == first.procs  # rigid and moldable never resize
    for r in res.records:
        if not r.failed:
            assert r.submit <= r.start < r.finish or r.start == r.finish
            assert spec[r.id].min_procs <= r.max_procs <= spec[r.id].max_procs
        if approach == "PRA":
            assert r.shrinks == 0  # PRA never shrinks
