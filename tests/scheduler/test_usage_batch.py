"""The testbed's batch systems (seed 004 slide 26): Condor's and Maui's fair share and the S-PEP
acting through them, on scenarios whose outcome is worked out by hand."""

import pytest

from scheduler.usage import (
    SPEP,
    Condor,
    CondorFairShare,
    Maui,
    MauiFairShare,
    SPEPOverCondor,
    SPEPOverPBS,
)
from scheduler.usage.batch import CONDOR_MIN_RUP, CondorAccountant, maui_fs_usage
from scheduler.usage.metrics import outcome_metrics
from scheduler.usage.simulator import GridState
from scheduler.usage.state import DONE, JobRun

from .usage_helpers import cpus_at, document, jobs, model_of, run

ONE_SITE_TWO_VOS = document({"s": 10}, {"A": [], "B": []}, [("s", "A", 20, 60), ("s", "B", 80, 90)])


def test_documented_defaults():
    # HTCondor manual: NEGOTIATOR_INTERVAL 60 s, PRIORITY_HALFLIFE 86400 s; Maui 3.2.6 source:
    # RMPOLLINTERVAL 60 s, FSINTERVAL 43200 s, FSDEPTH 8, FSDECAY 1.0
    assert (Condor().negotiator_interval, Condor().priority_halflife) == (60, 86400)
    assert (Maui().rmpollinterval, Maui().fsinterval, Maui().fsdepth, Maui().fsdecay) == (
        60,
        43200,
        8,
        1.0,
    )


@pytest.mark.parametrize(
    "strategy, cycle",
    [
        (lambda c: CondorFairShare(Condor(negotiator_interval=c)), 25),
        (lambda c: MauiFairShare(Maui(rmpollinterval=c)), 25),
        (lambda c: SPEPOverCondor(Condor(negotiator_interval=c)), 25),
        (lambda c: SPEPOverPBS(Maui(rmpollinterval=c)), 40),
    ],
)
def test_jobs_start_only_at_the_batch_systems_cycle(strategy, cycle):
    # a job arriving at t = 3 on an idle site waits for the next cycle, at t = cycle
    out = run(ONE_SITE_TWO_VOS, [("A", 0, 500, 1), ("B", 3, 10, 1)], strategy(cycle), 200)
    first, second = out.jobs
    assert first.start == 0  # a cycle at time 0
    assert second.start == cycle


def test_condor_pie_splits_the_pool_by_priority_factors():
    # equal (minimum) user priorities: the pie is split 20 : 80 by the factors 1/EP
    out = run(ONE_SITE_TWO_VOS, [("A", 0, 1000, 1, 10), ("B", 0, 1000, 1, 10)],
              CondorFairShare(), 100)  # fmt: skip
    model = model_of(ONE_SITE_TWO_VOS)
    assert cpus_at(out, model, "A", 0) == 2 and cpus_at(out, model, "B", 0) == 8


def test_condor_pie_spins_again_for_what_a_submitter_does_not_use():
    # B asks for 3 CPUs only: its 8-CPU slice is not used up, A gets the other 7
    out = run(ONE_SITE_TWO_VOS, [("A", 0, 1000, 1, 10), ("B", 0, 1000, 1, 3)],
              CondorFairShare(), 100)  # fmt: skip
    model = model_of(ONE_SITE_TWO_VOS)
    assert cpus_at(out, model, "A", 0) == 7 and cpus_at(out, model, "B", 0) == 3


def test_condor_real_user_priority_halves_in_a_halflife():
    model = model_of(ONE_SITE_TWO_VOS)
    grid = GridState(model, 1)
    site = grid.sites[0]
    acc = CondorAccountant(site, halflife=100)
    acc.update(site, 0)
    job = JobRun(jobs([("A", 0, 1000, 4)])[0], model.path("A", None))
    site.enqueue(job)
    site.start(job, 0)
    acc.update(site, 100)  # ρ = 4 for one half-life: 0.5 · 0.5 + 0.5 · 4
    assert acc.rup[model.index["A"]] == pytest.approx(0.25 + 2.0)
    assert acc.rup[model.index["B"]] == CONDOR_MIN_RUP  # never below 0.5
    site.suspend(job)
    acc.update(site, 300)  # two half-lives idle: 2.25 / 4
    assert acc.rup[model.index["A"]] == pytest.approx(2.25 / 4)


def test_maui_fair_share_windows_depth_and_decay_by_hand():
    # windows of 10 s; A used 4 CPUs in window 0, B 4 CPUs in window 1 (now in window 2)
    doc = document({"s": 10}, {"A": [], "B": []}, [("s", "A", 50, 100), ("s", "B", 50, 100)])
    model = model_of(doc)
    out = run(doc, [("A", 0, 10, 4), ("B", 10, 10, 4)], MauiFairShare(Maui(rmpollinterval=1)), 25)
    assert [j.start for j in out.jobs] == [0, 10]
    grid = GridState(model, 1)
    site = grid.sites[0]
    for n in range(len(model.nodes)):  # replay the recorded usage into a site ledger
        for x in out.usage[0][n]:
            site.cum[n].append(site.cum[n][-1] + x)
    a, b = model.index["A"], model.index["B"]
    # FSDECAY 0.5, FSDEPTH 3: window 1 weighs 0.5, window 0 weighs 0.25 → A 40·0.25, B 40·0.5
    u = maui_fs_usage(site, 25, Maui(fsinterval=10, fsdepth=3, fsdecay=0.5))
    assert u[a] == pytest.approx(10 / 30) and u[b] == pytest.approx(20 / 30)
    # FSDEPTH 2 drops window 0: only B's use counts
    u = maui_fs_usage(site, 25, Maui(fsinterval=10, fsdepth=2, fsdecay=0.5))
    assert (u[a], u[b]) == (0.0, pytest.approx(1.0))
    # one long window (the default 12 h): the shares of all use since the start
    u = maui_fs_usage(site, 25, Maui())
    assert u[a] == pytest.approx(0.5) and u[b] == pytest.approx(0.5)


def test_maui_starts_the_vo_under_its_target_first_and_backfills():
    # A has used the site, B not: B's waiting 6-CPU job goes first; A's 1-CPU jobs fill the
    # rest (FIRSTFIT) although they arrived earlier
    spec = [("A", 0, 30, 10), ("A", 5, 100, 1, 6), ("B", 6, 100, 6)]
    out = run(ONE_SITE_TWO_VOS, spec, MauiFairShare(Maui(rmpollinterval=10)), 200)
    model = model_of(ONE_SITE_TWO_VOS)
    assert out.jobs[0].start == 0 and out.jobs[-1].start == 30  # at the cycle after A's end
    assert cpus_at(out, model, "B", 30) == 6 and cpus_at(out, model, "A", 30) == 4


def test_the_spep_over_a_batch_system_overshoots_the_burst_share_the_ideal_one_keeps():
    # a lone VO with a 50 % burst share: the ideal S-PEP holds 5 CPUs; through a batch system
    # with a 60 s cycle it releases one job per poll on the usage reported (1 CPU), and the
    # cycle at t = 60 starts all released jobs that fit
    doc = document({"s": 10}, {"A": []}, [("s", "A", 100, 50, 3600, 30)])
    model = model_of(doc)
    spec = [("A", 0, 1000, 1, 30)]
    ideal = run(doc, spec, SPEP(), 200)
    lagged = run(doc, spec, SPEPOverPBS(Maui(rmpollinterval=60)), 200)
    assert max(cpus_at(ideal, model, "A", t) for t in range(200)) == 5
    assert cpus_at(lagged, model, "A", 59) == 1 and cpus_at(lagged, model, "A", 60) == 10
    assert outcome_metrics(ideal, model)["overall"]["BUPV"] == 0
    assert outcome_metrics(lagged, model)["overall"]["BUPV"] > 0
    # with a 1-second cycle the lag is gone again
    quick = run(doc, spec, SPEPOverPBS(Maui(rmpollinterval=1)), 200)
    assert max(cpus_at(quick, model, "A", t) for t in range(200)) <= 6


def test_spep_over_a_batch_system_still_enforces_the_epoch_quota():
    # A (20 % epoch over 100 s) alone on the site: suspended once its epoch use passes 20 %
    doc = document({"s": 10}, {"A": []}, [("s", "A", 20, 100, 100, 5)])
    model = model_of(doc)
    out = run(doc, [("A", 0, 300, 1, 10)], SPEPOverCondor(Condor(negotiator_interval=20)), 400)
    m = outcome_metrics(out, model)
    assert m["counts"]["suspensions"] > 0
    assert m["overall"]["EUPV"] < 0.01
    assert all(j.state == DONE or j.remaining > 0 for j in out.jobs)
