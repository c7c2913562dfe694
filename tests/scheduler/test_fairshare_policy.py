"""Maui-style fair-share priority policy (seed 003 §2): hand-worked priorities and
orders, backfilling with protected jobs, and invariants on random workloads."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.cluster.fairshare import FairShareWeights
from scheduler.cluster.jobs import SimJob
from scheduler.cluster.simulator import Simulator

ZERO = dict(
    fs_weight=0.0, queue_time_weight=0.0, xfactor_weight=0.0, bypass_weight=0.0, size_weight=0.0
)


def jobs_of(rows):
    """rows: (submit, runtime, estimate, procs, user) in queue order."""
    return [SimJob(i, i + 1, s, r, e, n, False, u) for i, (s, r, e, n, u) in enumerate(rows)]


def sim_with(rows, procs, policy, **weights):
    sim = Simulator(jobs_of(rows), procs, policy)
    sim.policy.configure(FairShareWeights(**weights))
    return sim


# Three users.  On 10 processors user 1 runs A (6 procs, [0, 100)) and user 2 runs B (4 procs,
# [0, 50)); at t = 10 C (user 1), D (user 2), E (user 3) each ask for the whole machine.
FS_ROWS = [
    (0, 100, 100, 6, 1),  # A
    (0, 50, 50, 4, 2),  # B
    (10, 10, 10, 10, 1),  # C
    (10, 10, 10, 10, 2),  # D
    (10, 10, 10, 10, 3),  # E
]
FS_ONLY = dict(ZERO, fs_weight=1.0, fs_interval=100, fs_depth=2, fs_decay=0.5)


def test_usage_shares_by_hand():
    sim = sim_with(FS_ROWS, 10, "fairshare", **FS_ONLY)
    sim.run(until=60)
    # At 75 (bin 0 is current, factor 1): A has run 6 x 75 = 450, B finished with 4 x 50 = 200.
    shares = sim.policy.usage_shares(75)
    assert shares[1] == pytest.approx(100 * 450 / 650)
    assert shares[2] == pytest.approx(100 * 200 / 650)
    assert 3 not in shares
    sim.run(until=100)
    # At 100 bin 0 = [0, 100) is one interval back (factor 0.5): 600 vs 200 -> 75 % / 25 %.
    shares = sim.policy.usage_shares(100)
    assert shares[1] == pytest.approx(75.0)
    assert shares[2] == pytest.approx(25.0)


def test_fair_share_orders_light_users_first():
    sim = sim_with(FS_ROWS, 10, "fairshare", **FS_ONLY).run()
    # priorities at 100: E (0 %) > D (-25) > C (-75); each takes the machine for 10 s
    assert sim.start[2:] == [120, 110, 100]
    fifo = Simulator(jobs_of(FS_ROWS), 10, "fcfs").run()
    assert fifo.start[2:] == [100, 110, 120]


def test_service_and_size_components_by_hand():
    # default weights: 1 per minute queued, 10 per unit of expansion factor (wallclock at least
    # 900 s), 0.1 per processor; fair share and bypass zero here.
    rows = [
        (0, 5000, 5000, 10, 9),  # keeps the machine busy
        (0, 600, 600, 4, 1),  # X: estimate 600 -> counted as 900
        (1800, 7200, 7200, 2, 2),  # Y
    ]
    sim = sim_with(rows, 10, "fairshare", fs_weight=0.0, bypass_weight=0.0)
    sim.run(until=1800)
    prio = sim.policy.priorities(3600)
    # X waited 3600 s: 60 + 10 * (1 + 3600 / 900) + 0.1 * 4 = 110.4
    assert prio[1] == pytest.approx(110.4)
    # Y waited 1800 s: 30 + 10 * (1 + 1800 / 7200) + 0.1 * 2 = 42.7
    assert prio[2] == pytest.approx(42.7)
    assert sim.policy.ordered(3600) == [1, 2]


# Backfilling: X holds 8 of 10 processors until 100; P1 (10 procs, 50 s) outranks P2 and P3
# (2 procs each; 200 s and 50 s) by size alone.
BF_ROWS = [
    (0, 100, 100, 8, 9),  # X
    (1, 50, 50, 10, 1),  # P1
    (1, 200, 200, 2, 2),  # P2
    (1, 50, 50, 2, 3),  # P3
]
SIZE_ONLY = dict(ZERO, size_weight=1.0)


def test_strict_priority_never_backfills():
    sim = sim_with(BF_ROWS, 10, "fairshare", **SIZE_ONLY).run()
    # P1 blocks the queue until X ends at 100; P2 and P3 start together when P1 ends
    assert sim.start[1:] == [100, 150, 150]


def test_backfill_protects_the_top_jobs():
    sim = sim_with(BF_ROWS, 10, "fairshare-cb", reservation_depth=1, **SIZE_ONLY)
    sim.run(until=1)
    assert sim.start[3] == 1  # P3 ends by 51 < 100: fits before P1's reservation
    assert sim.policy._bypass == {1: 1, 2: 1}  # P1 and P2 were bypassed once
    sim.run()
    # P2 (200 s) would overlap P1's reservation at [100, 150): it waits until P1 ends
    assert sim.start[1:] == [100, 150, 1]


def test_backfill_without_protection_lets_p1_starve():
    sim = sim_with(BF_ROWS, 10, "fairshare-cb", reservation_depth=0, **SIZE_ONLY).run()
    # P2 takes the 2 free processors at 1; P3 backfills at 100; P1 waits for P2's end
    assert sim.start[1:] == [201, 1, 100]


def test_probe_ranked_last():
    sim = sim_with(BF_ROWS, 10, "fairshare", **SIZE_ONLY)
    sim.policy.rank_last(1)
    sim.run()
    # at 1 P2 heads the queue (tie with P3, queue order) and takes the 2 free processors;
    # at 100 P3 starts; P1, last whatever its size, waits for P2's end at 201
    assert sim.start[1:] == [201, 1, 100]


def test_bad_weights_are_refused():
    with pytest.raises(ValueError, match="fs_decay"):
        FairShareWeights(fs_decay=1.5)
    with pytest.raises(ValueError, match="size_weight"):
        FairShareWeights(size_weight=-1)


# --------------------------------------------------------------------------- invariants


def random_rows(seed: int, n: int, procs: int):
    rng = random.Random(seed)
    rows, t = [], 0
    for _ in range(n):
        t += rng.randint(0, 300)
        est = rng.randint(1, 2000)
        rows.append((t, rng.randint(0, est), est, rng.randint(1, procs), rng.randint(1, 4)))
    return rows


def check_schedule(sim, procs):
    events = []
    for k, s in enumerate(sim.start):
        assert s >= sim.submit_time[k], f"job {k} starts before its submission"
        events.append((s + sim.runtime[k], -sim.procs[k]))
        events.append((s, sim.procs[k]))
    busy = 0
    for _, delta in sorted(events):  # ends (negative) before starts at one instant
        busy += delta
        assert busy <= procs, "processors over-committed"


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 40),
    policy=st.sampled_from(["fairshare", "fairshare-cb"]),
    depth=st.integers(0, 5),
)
def test_every_job_runs_without_overcommit(seed, n, policy, depth):
    procs = 16
    rows = random_rows(seed, n, procs)
    sim = sim_with(rows, procs, policy, reservation_depth=depth, fs_interval=500).run()
    assert all(s >= 0 for s in sim.start)
    check_schedule(sim, procs)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40))
def test_queue_time_only_is_fifo(seed, n):
    # priority = minutes queued: the oldest job first (ties by queue order) - FCFS exactly
    rows = random_rows(seed, n, 16)
    fs = sim_with(rows, 16, "fairshare", **dict(ZERO, queue_time_weight=1.0)).run()
    fifo = Simulator(jobs_of(rows), 16, "fcfs").run()
    assert fs.start == fifo.start


@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000))
def test_fork_is_independent(seed):
    rows = random_rows(seed, 30, 16)
    sim = sim_with(rows, 16, "fairshare-cb", reservation_depth=2)
    sim.run(until=rows[len(rows) // 2][0])
    twin = sim.fork()
    twin.run()
    sim.run()
    assert twin.start == sim.start
    assert twin.policy._usage == sim.policy._usage
