"""The Gymnasium environment over the engine (scheduler.gym.env)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from scheduler.cluster.simulator import Simulator
from scheduler.gym import SchedulingEnv, load_workload
from scheduler.gym.env import JOB_FEATURES, episode_metrics
from scheduler.traces.lublin import generate_lublin99


@pytest.fixture(scope="module")
def workload():
    return load_workload(generate_lublin99(jobs=800, procs=64, seed=11), name="lublin-800")


def _episode(env: SchedulingEnv, seed: int, pick=lambda obs, mask: 0):
    obs, info = env.reset(seed=seed)
    observations, total, steps = [obs], 0.0, 0
    while True:
        obs, reward, done, trunc, info = env.step(pick(obs, env.action_mask()))
        assert not trunc
        observations.append(obs)
        total += reward
        steps += 1
        if done:
            return observations, total, steps, info


@pytest.mark.parametrize("backfill", [False, "easy", "rlscheduler"])
def test_check_env_passes(workload, backfill):
    env = SchedulingEnv(workload, sequence_length=64, queue_size=16, backfill=backfill)
    check_env(env, skip_render_check=True)


def test_same_seed_same_episode_and_seeds_differ(workload):
    env = SchedulingEnv(workload, sequence_length=128, queue_size=32, backfill="easy")
    rng_pick = lambda obs, mask: int(np.flatnonzero(mask)[-1])  # noqa: E731 (latest waiting job)
    a = _episode(env, 5, rng_pick)
    b = _episode(
        SchedulingEnv(workload, sequence_length=128, queue_size=32, backfill="easy"), 5, rng_pick
    )
    assert a[1] == b[1] and a[2] == b[2]
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0], strict=True))
    c = _episode(env, 6, rng_pick)
    assert c[3]["metrics"] != a[3]["metrics"]


def test_reward_is_minus_the_average_bounded_slowdown(workload):
    env = SchedulingEnv(workload, sequence_length=100, queue_size=8)
    _obs, total, steps, info = _episode(env, 1)
    assert steps == 100  # one decision per job, nothing backfilled
    sim = env.sim
    wait = np.array(sim.start) - np.array(sim.submit_time)
    run = np.array(sim.runtime)
    bsld = np.maximum(1, (wait + run) / np.maximum(run, 10)).mean()
    assert total == pytest.approx(-bsld)
    assert info["metrics"]["bsld"] == pytest.approx(bsld)
    assert min(sim.start) >= 0 and all(
        s >= sub for s, sub in zip(sim.start, sim.submit_time, strict=True)
    )


@pytest.mark.parametrize(("backfill", "builtin"), [(False, "fcfs"), ("easy", "easy")])
def test_first_come_agent_is_the_engines_policy(workload, backfill, builtin):
    """Always picking the first waiting job gives, job by job, the engine's FCFS (strict) and
    EASY schedules: the environment drives the one simulator and profile."""
    env = SchedulingEnv(workload, sequence_length=300, queue_size=16, backfill=backfill)
    env.reset(options={"start": 310})
    while not env.done:
        env.step(0)
    sim = Simulator(workload.sequence(310, 300), workload.capacity, builtin, estimates="requested")
    sim.run()
    assert env.sim.start == sim.start
    assert env.run_priority("FCFS", 310) == episode_metrics(sim)


def test_backfilling_starts_jobs_out_of_order(workload):
    env = SchedulingEnv(workload, sequence_length=300, queue_size=16, backfill="easy")
    env.run_priority("FCFS", 310)
    starts = env.sim.start
    assert any(starts[k] < starts[k - 1] for k in range(1, 300))
    strict = SchedulingEnv(workload, sequence_length=300, queue_size=16)
    strict.run_priority("FCFS", 310)
    assert all(strict.sim.start[k] >= strict.sim.start[k - 1] for k in range(1, 300))


def test_observation_features(workload):
    env = SchedulingEnv(workload, sequence_length=200, queue_size=8)
    obs, _ = env.reset(options={"start": 250})
    while len(env.policy.queue) < 3:
        obs, *_ = env.step(0)
    jobs = obs[: 8 * JOB_FEATURES].reshape(8, JOB_FEATURES)
    queue = env.policy.queue
    for slot, k in enumerate(queue[:8]):
        assert jobs[slot, 2] == pytest.approx(env.sim.procs[k] / 64)
        assert jobs[slot, 3] == float(env.sim.procs[k] <= env.policy.profile.free[0])
    if len(queue) < 8:
        assert list(jobs[len(queue)]) == [0.0, 1.0, 1.0, 0.0]
    assert obs[-2] == pytest.approx(env.policy.profile.free[0] / 64)


def test_invalid_action_picks_the_first_job(workload):
    env = SchedulingEnv(workload, sequence_length=50, queue_size=8)
    env.reset(options={"start": 100})
    assert len(env.policy.queue) < 8  # slot 7 is empty at the first decision
    first = env.policy.queue[0]
    _obs, _r, _d, _t, info = env.step(7)
    assert info["invalid_action"] is True
    assert env.sim.start[first] >= 0
    assert not info["action_mask"][len(env.policy.queue) :].any()
    _obs, _r, _d, _t, info = env.step(0)
    assert info["invalid_action"] is False


def test_sync_vector_env_rolls_out(workload):
    envs = gym.vector.SyncVectorEnv(
        [lambda: SchedulingEnv(workload, sequence_length=40, queue_size=8) for _ in range(3)]
    )
    obs, _ = envs.reset(seed=[1, 2, 3])
    assert obs.shape == (3, 8 * JOB_FEATURES + 2)
    finished = 0
    for _ in range(200):
        obs, rewards, done, _trunc, _info = envs.step(np.zeros(3, dtype=np.int64))
        assert np.all(rewards[~done] == 0) and np.all(rewards[done] < 0)
        finished += int(done.sum())
    assert finished >= 3
    envs.close()


def test_bad_settings_are_refused(workload):
    with pytest.raises(ValueError, match="metric must be one of"):
        SchedulingEnv(workload, metric="makespan")
    with pytest.raises(ValueError, match="backfill must be"):
        SchedulingEnv(workload, backfill="conservative")
    with pytest.raises(ValueError, match="too few for sequences of 500"):
        SchedulingEnv(workload, sequence_length=500)
    env = SchedulingEnv(workload, sequence_length=50)
    with pytest.raises(ValueError, match=r"sequence \[790, 840\) is outside the 800 jobs"):
        env.reset(options={"start": 790})
    with pytest.raises(RuntimeError, match="call reset"):
        SchedulingEnv(workload, sequence_length=50).step(0)


def _tiny_workload():
    """10 processors: A (6 procs, 100 s) runs; B (8 procs) is chosen and waits for A; C (2
    procs, 1000 s) arrives and fits now beside B's reservation, but ends after A."""
    from scheduler.cluster.jobs import SimJob
    from scheduler.gym import Workload

    jobs = [(0, 100, 6), (1, 50, 8), (2, 1000, 2)] + [(5000 + i, 10, 1) for i in range(5)]
    sim_jobs = tuple(SimJob(i, i + 1, s, r, r, n) for i, (s, r, n) in enumerate(jobs))
    return Workload("tiny", sim_jobs, 10, 1000, 0, tuple(r for _s, r, _n in jobs))


@pytest.mark.parametrize(("backfill", "c_start"), [(False, 100), ("easy", 2), ("rlscheduler", 100)])
def test_backfill_rules(backfill, c_start):
    """EASY starts C on the processors B leaves free; RLScheduler's rule only backfills jobs
    that end before B's earliest start, so C waits for the next choice (at 100, beside B)."""
    env = SchedulingEnv(_tiny_workload(), sequence_length=3, queue_size=4, backfill=backfill)
    env.reset(options={"start": 0})
    env.step(0)  # A starts at 0
    assert env.policy.queue == [1] and env.sim.now == 1
    _obs, reward, done, _t, info = env.step(0)  # B is chosen at 1
    while not done:
        _obs, reward, done, _t, info = env.step(0)
    assert env.sim.start[:2] == [0, 100] and env.sim.start[2] == c_start


@pytest.mark.parametrize("metric", ["wait", "response", "utilization"])
def test_other_metrics_are_the_reward(workload, metric):
    env = SchedulingEnv(workload, sequence_length=120, queue_size=8, metric=metric)
    _obs, total, _steps, info = _episode(env, 2)
    sim = env.sim
    start, submit = np.array(sim.start), np.array(sim.submit_time)
    run, procs = np.array(sim.runtime), np.array(sim.procs)
    expected = {
        "wait": -(start - submit).mean(),
        "response": -(start - submit + run).mean(),
        "utilization": (run * procs).sum() / ((start.max() - submit.min()) * 64),
    }[metric]
    assert total == pytest.approx(expected)
    assert info["metrics"][metric] == pytest.approx(abs(expected))
