"""S-PEP, V-PEP and the baselines on scenarios whose outcome is obvious by hand (seed 004)."""

import numpy as np
import pytest

from scheduler.usage import (
    FCFS,
    SPEP,
    CondorFairShare,
    FairShare,
    MauiFairShare,
    SPEPOverCondor,
    SPEPOverPBS,
)
from scheduler.usage.simulator import GridState
from scheduler.usage.spep import spep_pass
from scheduler.usage.state import DONE, QUEUED, REJECTED, RUNNING, JobRun

from .usage_helpers import cpus_at, document, jobs, model_of, run

ONE_SITE_TWO_VOS = document({"s": 10}, {"A": [], "B": []}, [("s", "A", 20, 60), ("s", "B", 80, 90)])


def test_lone_vo_uses_up_to_its_burst_share():
    doc = document({"s": 10}, {"A": []}, [("s", "A", 20, 60)])
    model = model_of(doc)
    spec = [("A", 0, 100, 1, 20)]  # twenty 1-CPU jobs of 100 s, all at t = 0
    spep = run(doc, spec, SPEP(), horizon=400)
    held = spep.usage[0][model.index["A"]]
    assert held.max() == 6  # 60 % of 10 CPUs, never more
    assert held[0] == 6 and held[99] == 6 and held[100] == 6
    assert [j.state for j in spep.jobs].count(DONE) == 20
    # without a policy the lone VO takes the whole site
    none = run(doc, spec, FCFS(), horizon=400)
    assert none.usage[0][model.index["A"]].max() == 10
    # a job is released only if it fits: 4 + 4 CPUs would overshoot the 6-CPU burst share
    wide = run(doc, [("A", 0, 100, 4, 3)], SPEP(), horizon=400)
    assert wide.usage[0][model.index["A"]].max() == 4
    assert [j.start for j in wide.jobs] == [0, 100, 200]


def test_spep_releases_a_job_only_if_it_fits_the_burst_share():
    # the S-PEP alone (jobs already queued at the site, no V-PEP in front of it)
    doc = document({"s": 10}, {"A": [], "B": []}, [("s", "A", 20, 60), ("s", "B", 80, 90)])
    model = model_of(doc)
    grid = GridState(model, step=1)
    site = grid.sites[0]
    queued = [JobRun(j, model.path(j.vo, j.group)) for j in jobs([("A", 0, 100, 4, 3)])]
    for job in queued:
        site.enqueue(job)
    spep_pass(site, 0, 0)
    assert site.held[model.index["A"]] == 4  # 4 + 4 would overshoot 60 % of 10 CPUs
    assert [j.state for j in queued] == [RUNNING, QUEUED, QUEUED]


def test_two_busy_vos_converge_to_their_epoch_shares():
    model = model_of(ONE_SITE_TWO_VOS)
    # both VOs ask for the whole site with long jobs; A's jobs come first (lower ids)
    spec = [("A", 0, 1000, 1, 20), ("B", 0, 1000, 1, 20)]
    spep = run(ONE_SITE_TWO_VOS, spec, SPEP(), horizon=300)
    for t in (0, 1, 150, 299):
        assert cpus_at(spep, model, "A", t) == 2 and cpus_at(spep, model, "B", t) == 8
    none = run(ONE_SITE_TWO_VOS, spec, FCFS(), horizon=300)
    assert cpus_at(none, model, "A", 150) == 10  # FCFS: first come takes everything


def test_local_rm_fair_share_converges_slowly_without_suspension():
    model = model_of(ONE_SITE_TWO_VOS)
    spec = [("A", 0, 10, 1, 1000), ("B", 0, 10, 1, 1000)]  # short jobs: the queue reorders
    out = run(ONE_SITE_TWO_VOS, spec, FairShare(), horizon=600)
    usage = out.usage[0]
    assert usage[model.index["B"], :10].sum() == 100  # B is furthest below its target first
    later = usage[:, 100:600].sum(axis=1)
    share_b = later[model.index["B"]] / later.sum()
    assert share_b == pytest.approx(0.8, abs=0.05)
    assert out.suspensions == 0


def test_over_quota_job_is_suspended_for_a_waiting_vo_and_resumes_with_its_progress():
    doc = document({"s": 10}, {"A": [], "B": []}, [("s", "A", 50, 100), ("s", "B", 50, 100)])
    spec = [("A", 0, 100, 1, 10), ("B", 10, 10, 1)]
    out = run(doc, spec, SPEP(), horizon=200)
    by_id = {j.job.id: j for j in out.jobs}
    victim = by_id[10]  # all of A's jobs started at 0: the highest id goes first
    assert victim.suspensions == 1 and victim.state == DONE
    assert victim.start == 0 and victim.end == 110  # 10 s before, 90 s after resuming at 20
    b = by_id[11]
    assert (b.start, b.end) == (10, 20)
    assert all(by_id[i].end == 100 and by_id[i].suspensions == 0 for i in range(1, 10))
    assert out.suspensions == 1
    # the same workload without policy: B waits for a free CPU
    none = run(doc, spec, FCFS(), horizon=200)
    b = next(j for j in none.jobs if j.job.id == 11)
    assert (b.start, b.end) == (100, 110)


def test_no_suspension_when_the_running_vo_is_within_its_share():
    doc = document({"s": 10}, {"A": [], "B": []}, [("s", "A", 50, 100), ("s", "B", 50, 100)])
    spec = [("A", 0, 100, 1, 5), ("B", 0, 100, 1, 5), ("B", 10, 10, 1)]
    out = run(doc, spec, SPEP(), horizon=200)
    assert out.suspensions == 0  # B is at its share already; A is not over its share


def test_epoch_quota_suspends_and_the_window_lets_it_resume():
    # quota: 10 % of 10 CPUs over 100 s = 100 CPU-seconds per sliding 100 s window
    doc = document({"s": 10}, {"A": []}, [("s", "A", 10, 100, 100, 5)])
    model = model_of(doc)
    out = run(doc, [("A", 0, 50, 10)], SPEP(), horizon=600)
    job = out.jobs[0]
    use = out.usage[0][model.index["A"]]
    assert use[:11].tolist() == [10] * 11 and use[11] == 0  # EA > EP after step 10: suspended
    assert job.suspensions >= 1 and job.state == DONE and use.sum() == 500
    # the quota holds (within one step) over every sliding window
    windows = np.convolve(use, np.ones(100))[: use.size]
    assert windows.max() <= 100 + 10
    assert use[101] == 10  # resumed once the first usage left the window


def test_group_shares_inside_a_vo():
    doc = document(
        {"s": 10},
        {"A": ["g0", "g1"]},
        [("s", "A", 100, 100), ("A", "A.g0", 30, 100), ("A", "A.g1", 70, 100)],
    )
    model = model_of(doc)
    spec = [("A.g0", 0, 1000, 1, 10), ("A.g1", 5, 1000, 1, 10)]
    spep = run(doc, spec, SPEP(), horizon=100)
    assert cpus_at(spep, model, "A.g0", 4) == 10  # alone, g0 bursts to the whole VO share
    assert cpus_at(spep, model, "A.g0", 50) == 3 and cpus_at(spep, model, "A.g1", 50) == 7
    assert cpus_at(spep, model, "A", 50) == 10
    none = run(doc, spec, FCFS(), horizon=100)
    assert cpus_at(none, model, "A.g0", 50) == 10 and cpus_at(none, model, "A.g1", 50) == 0


def test_group_burst_share_is_the_product_of_the_chain():
    # VO burst 50 % of 20 CPUs = 10; group burst 40 % of that = 4 CPUs
    doc = document({"s": 20}, {"A": ["g"]}, [("s", "A", 50, 50), ("A", "A.g", 40, 40)])
    model = model_of(doc)
    out = run(doc, [("A.g", 0, 100, 1, 10)], SPEP(), horizon=50)
    assert out.usage[0][model.index["A.g"]].max() == 4


def test_vpep_spreads_jobs_over_sites_within_the_shares():
    doc = document({"s0": 10, "s1": 10}, {"A": []}, [("s0", "A", 50, 50), ("s1", "A", 50, 50)])
    model = model_of(doc)
    out = run(doc, [("A", 0, 100, 1, 12), ("A", 0, 100, 6)], SPEP(), horizon=300)
    assert cpus_at(out, model, "A", 0, site=0) == 5 and cpus_at(out, model, "A", 0, site=1) == 5
    sites = [j.site for j in out.jobs[:10]]
    assert sites == [0, 1] * 5  # least loaded, ties to the first site
    assert out.jobs[12].state == REJECTED  # 6 CPUs fit no site's 5-CPU burst share
    none = run(doc, [("A", 0, 100, 1, 12), ("A", 0, 100, 6)], FCFS(), horizon=300)
    assert none.jobs[12].state == DONE


def test_jobs_of_a_vo_without_a_site_share_are_rejected():
    doc = document({"s": 10}, {"A": [], "B": []}, [("s", "A", 50, 50)])
    for strategy in (SPEP(), FairShare(), FCFS()):
        out = run(doc, [("B", 0, 10, 1)], strategy, horizon=50)
        assert out.jobs[0].state == REJECTED


@pytest.mark.parametrize(
    "strategy", [SPEP, FairShare, FCFS, SPEPOverCondor, SPEPOverPBS, CondorFairShare, MauiFairShare]
)
def test_no_overcommit_and_no_early_start(strategy):
    doc = document(
        {"s0": 16, "s1": 8},
        {"A": ["g", "h"], "B": []},
        [
            ("s0", "A", 30, 70),
            ("s0", "B", 70, 90),
            ("s1", "A", 50, 80),
            ("s1", "B", 50, 80),
            ("A", "A.g", 40, 90),
        ],
    )
    rng = np.random.default_rng(5)
    spec = [
        (["A.g", "A.h", "B"][int(rng.integers(3))], int(t), int(rng.integers(1, 200)),
         int(rng.integers(1, 5)))
        for t in np.sort(rng.integers(0, 1000, 150))
    ]  # fmt: skip
    out = run(doc, spec, strategy(), horizon=1500)
    model = model_of(doc)
    for s, site in enumerate(model.sites):
        total = out.usage[s][list(model.vo_nodes)].sum(axis=0)
        assert total.max() <= site.cpus
    for j in out.jobs:
        assert j.start is None or j.start >= j.job.submit
        if j.state == DONE:
            assert j.end - j.start >= j.job.runtime  # suspensions only add time
    for s in range(len(model.sites)):  # CPU-seconds recorded = work done
        done = sum(j.job.procs * (j.job.runtime - j.remaining) for j in out.jobs if j.site == s)
        assert out.usage[s][list(model.vo_nodes)].sum() == pytest.approx(done)
