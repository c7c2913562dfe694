"""BUPV, EUPV, ARU, ART, AJC on tiny timelines computed by hand (seed 004 slides 25, 29)."""

import numpy as np
import pytest

from scheduler.usage import FCFS, SPEP, outcome_metrics
from scheduler.usage.metrics import downsample, over_share, trailing_average

from .usage_helpers import document, model_of, run


def test_trailing_average_pads_with_zeros():
    avg = trailing_average(np.array([10, 10, 0, 0]), 2)
    assert avg.tolist() == [5, 10, 5, 0]


def test_over_share_by_hand():
    # 10 CPUs, burst window 2 s, share 50 %: allocations 0.5, 1.0, 0.5, 0 → 0.5 over for 1 s
    bet = over_share(np.array([10, 10, 0, 0]), cpus=10, step=1, interval=2, share=0.5)
    assert bet == pytest.approx(5.0)  # 0.5 × 10 CPUs × 1 s
    # step 2 s: usage in CPU-seconds per step; window of 1 step; share 25 % of 4 CPUs
    bet = over_share(np.array([8, 4]), cpus=4, step=2, interval=2, share=0.25)
    assert bet == pytest.approx((1.0 - 0.25) * 4 * 2 + (0.5 - 0.25) * 4 * 2)
    assert over_share(np.array([1, 1]), cpus=10, step=1, interval=5, share=0.5) == 0


def test_downsample_keeps_means_and_sizes():
    first, mean = downsample(np.arange(10.0), 4)
    assert first.tolist() == [0, 2, 5, 7] and mean.tolist() == [0.5, 3.0, 5.5, 8.0]
    first, mean = downsample(np.ones(3), 300)
    assert first.tolist() == [0, 1, 2] and mean.tolist() == [1, 1, 1]


def test_metrics_of_a_lone_vo_without_policy_by_hand():
    # 20 one-CPU jobs of 100 s on 10 CPUs under FCFS: 10 CPUs busy over [0, 200).
    # Burst window 5 s, share 60 %: BA(k) = 0.2, 0.4, 0.6, 0.8, then 1.0 up to step 199,
    # then 0.8, 0.6, …  Over the share: 0.2 (k = 3) + 0.4 × 196 (k = 4..199) + 0.2 (k = 200)
    # = 78.8 fractions × 10 CPUs × 1 s = 788 CPU-seconds.
    doc = document({"s": 10}, {"A": []}, [("s", "A", 20, 60)])
    model = model_of(doc)
    out = run(doc, [("A", 0, 100, 1, 20)], FCFS(), horizon=300)
    m = outcome_metrics(out, model)
    assert m["overall"]["BUPV"] == pytest.approx(788 / (10 * 300))
    # epoch (3600 s, 20 %): EA(k) = 10 (k + 1) / 36000 stays below 0.2 within 200 s
    assert m["overall"]["EUPV"] == 0
    assert m["overall"]["ARU"] == pytest.approx(2000 / 3000)
    assert m["overall"]["ART"] == pytest.approx((10 * 100 + 10 * 200) / 20)
    assert m["overall"]["AJC"] == 1
    assert m["sites"]["s"]["BUPV"] == m["overall"]["BUPV"]
    assert m["vos"]["A"]["ARU"] == m["overall"]["ARU"]

    spep = outcome_metrics(run(doc, [("A", 0, 100, 1, 20)], SPEP(), horizon=300), model)
    assert spep["overall"]["BUPV"] == 0  # never above 6 CPUs
    # 6 CPUs: batches of 6 end at 100, 200 and 300 (= the horizon), the last two at 400
    assert spep["overall"]["AJC"] == pytest.approx(18 / 20)
    assert spep["overall"]["ART"] == pytest.approx((6 * 100 + 6 * 200 + 6 * 300) / 18)


def test_epoch_violation_and_per_scope_normalisation_by_hand():
    # Two sites of 10 CPUs; A's epoch share is 10 % over 10 s at each; A runs 10 CPUs on s0
    # for 5 s (one 10-CPU job), nothing on s1.  EA on s0 at the end of step k: (k + 1)·10 /
    # (10·10) for k < 5, then 0.5 until step 9, then 0.4, 0.3, … (the window slides).
    doc = document(
        {"s0": 10, "s1": 10}, {"A": []}, [("s0", "A", 10, 100, 10), ("s1", "A", 10, 100, 10)]
    )
    model = model_of(doc)
    out = run(doc, [("A", 0, 5, 10)], FCFS(), horizon=20)
    ea = [min(k + 1, 5) / 10 if k < 10 else max(0, 15 - k - 1) / 10 for k in range(20)]
    eet = sum(max(0.0, x - 0.1) for x in ea) * 10  # CPU-seconds on s0
    m = outcome_metrics(out, model)
    assert m["sites"]["s0"]["EUPV"] == pytest.approx(eet / (10 * 20))
    assert m["sites"]["s1"]["EUPV"] == 0 and m["sites"]["s1"]["AJC"] is None
    assert m["overall"]["EUPV"] == pytest.approx(eet / (20 * 20))  # the grid's capacity
    assert m["vos"]["A"]["EUPV"] == m["overall"]["EUPV"]
    assert m["overall"]["ARU"] == pytest.approx(50 / 400)


def test_unfinished_and_rejected_jobs_count_against_completion():
    doc = document({"s": 4}, {"A": []}, [("s", "A", 100, 100)])
    model = model_of(doc)
    # one job finishes (10 s), one runs past the horizon, one needs 8 CPUs of a 4-CPU site
    out = run(doc, [("A", 0, 10, 1), ("A", 0, 500, 1), ("A", 0, 10, 8)], FCFS(), horizon=100)
    m = outcome_metrics(out, model)
    assert m["overall"]["AJC"] == pytest.approx(1 / 3) and m["overall"]["ART"] == 10
    assert m["counts"]["rejected"] == 1 and m["counts"]["completed"] == 1
    assert m["overall"]["ARU"] == pytest.approx((10 + 100) / 400)  # unfinished work counts
