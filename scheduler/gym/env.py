"""A Gymnasium environment over the engine's cluster simulator: the agent picks the next job.

The design is RLScheduler's (Zhang et al., SC'20, §III; their ``HPCSimPickJobs.py``), on the
engine's own simulator (:class:`scheduler.cluster.simulator.Simulator`) and availability
profile rather than a second scheduling loop:

* an episode is a sequence of consecutive jobs of a trace (:mod:`.sequences`) replayed from an
  empty machine;
* at every decision — whenever jobs wait and none is chosen — the agent sees the first
  ``queue_size`` waiting jobs in queue order, four features each (time waited, requested time,
  requested processors, whether it can start now), and the machine (free processors, how full
  the queue is), and picks one of them;
* the chosen job starts as soon as its processors are free; until then nothing else starts, or
  — with ``backfill`` — a waiting job starts when it fits without delaying the chosen one
  (``backfill=True`` or ``"easy"``: EASY, Lifka 1995 — the chosen job holds a reservation at
  its earliest start in the profile, and a job that fits now beside it starts).
  ``backfill="rlscheduler"`` is RLScheduler's own rule (``moveforward_for_resources_backfill``):
  when the job is chosen, its "earliest start" is the instant enough processors come back if
  the running jobs end at their requests; until it starts, a waiting job (queue order) starts
  when its processors are free now and it would end, by its request, strictly before that
  instant.  It ignores processors left over beside the chosen job (EASY's second rule), keeps
  that instant fixed, and trusts requests, so a job that runs past its request can delay the
  chosen one;
* the reward is 0 until the last job of the sequence has started, then the episode's score:
  minus the average bounded slowdown (``max(1, (wait + run) / max(run, 10))``, the 10 s bound
  of Feitelson et al., JSSPP 1997), minus the average wait or response time, or the
  utilisation — the four metrics of RLScheduler's ``job_score``.

:class:`AgentPolicy` is the policy the simulator runs: an ordinary
:class:`~scheduler.cluster.policy.Policy` whose choice comes from outside.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..cluster.policy import ClusterState, PolicyEntry
from ..cluster.simulator import Simulator
from ..cluster.userpolicy import PriorityPolicy
from .heuristics import HEURISTICS, Priority, pick
from .sequences import Workload, load_workload

__all__ = ["JOB_FEATURES", "METRICS", "AgentPolicy", "SchedulingEnv", "episode_metrics"]

JOB_FEATURES = 4  # wait, requested time, processors, can start now
MACHINE_FEATURES = 2  # free processors, queue fill
MAX_WAIT = 12 * 3600  # waits are normalised to 12 h, as in RLScheduler
METRICS = ("bsld", "wait", "response", "utilization")
BACKFILL_MODES = (False, True, "easy", "rlscheduler")


class AgentPolicy(PriorityPolicy):
    """Start the job chosen from outside as soon as it fits (see the module's docstring);
    :meth:`needs_choice` says when the simulator waits for a choice.  EASY backfilling behind
    the chosen job is :class:`~scheduler.policies.PriorityPolicy`'s, with the chosen job
    ranked first (it holds the one reservation) and the others in queue order."""

    name = "gym-agent"
    reservations = 1

    def __init__(
        self, state: ClusterState, backfill: bool | str = False, request: list[int] | None = None
    ) -> None:
        super().__init__(state)
        self.mode = "rlscheduler" if backfill == "rlscheduler" else ("easy" if backfill else "")
        #: requested times (what the rlscheduler rule trusts); default: the estimates
        self.request = self.estimate if request is None else request
        self.chosen: int | None = None
        self.started = 0
        self._wake: int | None = None
        self._shadow: int | None = None  # the rlscheduler rule's fixed earliest start

    def choose(self, k: int, now: int) -> None:
        """Job ``k`` (waiting) starts next; the simulator acts on it at ``now``."""
        if self.chosen is not None or k not in self.queue:
            raise ValueError(f"job {k} cannot be chosen now (chosen: {self.chosen})")
        self.chosen = k
        self._wake = now
        self._shadow = None

    def needs_choice(self) -> bool:
        return self.chosen is None and bool(self.queue)

    def next_wakeup(self) -> int | None:
        return self._wake

    def schedule(self, now: int, changed: bool) -> list[int]:
        self._wake = None
        c = self.chosen
        if c is None:
            return []
        if self.profile.free_now >= self.procs[c]:  # nothing is planned ahead: free only grows
            self.profile.reserve(now, now + self.estimate[c], self.procs[c])
            self.chosen = None
            started = [c]
        elif self.mode == "easy":
            started = self._backfill([c, *(k for k in self.queue if k != c)], now)
        elif self.mode == "rlscheduler":
            started = self._backfill_rlscheduler(c, now)
        else:
            return []
        self.started += len(started)
        return self._started(started, now)

    def _backfill_rlscheduler(self, c: int, now: int) -> list[int]:
        procs, request, profile = self.procs, self.request, self.profile
        if self._shadow is None:  # fixed when the job is first found not to fit
            free, shadow = profile.free_now, now
            for end, k in sorted((s + request[k], k) for k, s in self._running.items()):
                free, shadow = free + procs[k], end
                if free >= procs[c]:
                    break
            self._shadow = shadow
        started = []
        for k in self.queue:
            if k != c and procs[k] <= profile.free_now and now + request[k] < self._shadow:
                profile.reserve(now, now + self.estimate[k], procs[k])
                started.append(k)
        return started

    def untouched(self) -> bool:
        return False  # decisions come from outside: never a whole-run acceleration


def episode_metrics(sim: Simulator) -> dict[str, float]:
    """The four scores of a finished sequence (every job started), as RLScheduler computes
    them; utilisation is over ``[first submit, last start]``, as theirs is."""
    start = np.asarray(sim.start, dtype=float)
    submit = np.asarray(sim.submit_time, dtype=float)
    run = np.asarray(sim.runtime, dtype=float)
    procs = np.asarray(sim.procs, dtype=float)
    wait = start - submit
    span = (start.max() - submit.min()) * sim.capacity
    return {
        "bsld": float(np.maximum(1.0, (wait + run) / np.maximum(run, 10.0)).mean()),
        "wait": float(wait.mean()),
        "response": float((wait + run).mean()),
        "utilization": float((run * procs).sum() / span) if span > 0 else 1.0,
    }


class SchedulingEnv(gym.Env):
    """Pick-the-next-job scheduling on sequences of ``workload`` (a :class:`Workload` or an SWF
    trace path); see the module's docstring.  ``reset(seed=..)`` draws the sequence's first
    job from the environment's generator; ``reset(options={"start": i})`` fixes it."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        workload: Workload | str,
        *,
        sequence_length: int = 256,
        queue_size: int = 128,
        backfill: bool | str = False,
        metric: str = "bsld",
    ) -> None:
        if not isinstance(workload, Workload):
            workload = load_workload(workload)
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
        if backfill not in BACKFILL_MODES:
            raise ValueError(
                f"backfill must be False, True, 'easy' or 'rlscheduler', got {backfill!r}"
            )
        if sequence_length < 1 or len(workload) < 2 * sequence_length + 2:
            raise ValueError(
                f"{workload.name} has {len(workload)} jobs: too few for sequences of "
                f"{sequence_length} (need {2 * sequence_length + 2})"
            )
        self.workload, self.length, self.queue_size = workload, sequence_length, queue_size
        self.backfill, self.metric = backfill, metric
        size = queue_size * JOB_FEATURES + MACHINE_FEATURES
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = spaces.Discrete(queue_size)
        # an empty slot: no wait, longest, widest, cannot start
        self._blank = np.zeros(size, dtype=np.float32)
        self._blank[: queue_size * JOB_FEATURES].reshape(queue_size, JOB_FEATURES)[:, 1:3] = 1.0
        self.sim: Simulator | None = None
        self.policy: AgentPolicy | None = None

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        start = (options or {}).get("start")
        if start is None:
            start = int(self.np_random.integers(self.length, len(self.workload) - self.length - 1))
        self._begin(int(start))
        return self._observation(), {"start": self.start, "action_mask": self.action_mask()}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.policy is None or not self.policy.needs_choice():
            raise RuntimeError("call reset() before step() (the episode is over)")
        queue = self.policy.queue
        a = int(action)
        invalid = not 0 <= a < min(len(queue), self.queue_size)
        self._choose(queue[0] if invalid else queue[a])
        info: dict[str, Any] = {"invalid_action": invalid}
        if self.done:
            info["metrics"] = scores = episode_metrics(self.sim)
            reward = scores[self.metric] * (1.0 if self.metric == "utilization" else -1.0)
            return self._observation(), float(reward), True, False, info
        info["action_mask"] = self.action_mask()
        return self._observation(), 0.0, False, False, info

    def action_mask(self) -> np.ndarray:
        """True for the actions that name a waiting job (the others pick the first job)."""
        mask = np.zeros(self.queue_size, dtype=bool)
        mask[: min(len(self.policy.queue), self.queue_size)] = True
        return mask

    # ------------------------------------------------------------------ engine

    @property
    def done(self) -> bool:
        return self.policy.started == self.length

    def _begin(self, start: int) -> None:
        jobs = self.workload.sequence(start, self.length)
        self.start = start
        request = self.workload.requests(start, self.length)
        entry = PolicyEntry(
            "gym-agent", "agent", "the environment's agent", "picks the next job",
            lambda state, _value: AgentPolicy(state, self.backfill, request),
        )  # fmt: skip
        self.sim = Simulator(jobs, self.workload.capacity, entry, estimates="requested")
        self.policy = self.sim.policy
        self._submit = np.fromiter((j.submit for j in jobs), dtype=np.int64, count=self.length)
        self._request = np.asarray(request, dtype=np.int64)
        self._procs = np.asarray(self.sim.procs, dtype=np.int64)
        # features that do not change while a job waits: requested time, processors
        self._static = np.stack(
            [
                np.minimum(self._request / self.workload.max_runtime, 1.0),
                self._procs / self.workload.capacity,
            ],
            axis=1,
        ).astype(np.float32)
        self._advance()

    def _choose(self, k: int) -> None:
        self.policy.choose(k, self.sim.now)
        self._advance()

    def _advance(self) -> None:
        """Run the simulator instant by instant until a choice is needed or all started."""
        sim, policy = self.sim, self.policy
        while not self.done and not policy.needs_choice():
            t = sim.next_event_time()
            if t is None:  # pragma: no cover - a chosen job always fits once the rest end
                raise RuntimeError("the simulation stopped with jobs waiting")
            sim.run(until=t)

    def _observation(self) -> np.ndarray:
        obs = self._blank.copy()
        queue = self.policy.queue[: self.queue_size]
        free = self.policy.profile.free_now
        if queue:
            n = len(queue)
            idx = np.fromiter(queue, dtype=np.int64, count=n)
            jobs = obs[: n * JOB_FEATURES].reshape(n, JOB_FEATURES)
            jobs[:, 0] = np.minimum((self.sim.now - self._submit[idx]) / MAX_WAIT, 1.0)
            jobs[:, 1:3] = self._static[idx]
            jobs[:, 3] = self._procs[idx] <= free
        obs[-2] = free / self.workload.capacity
        obs[-1] = min(len(self.policy.queue) / self.queue_size, 1.0)
        return obs

    # ------------------------------------------------------------------ baselines

    def run_priority(self, priority: Priority | str, start: int) -> dict[str, float]:
        """Schedule the sequence at ``start`` by ``priority`` (a heuristic's name or a
        function, see :mod:`.heuristics`), choosing among all waiting jobs at each decision
        as RLScheduler's heuristics do; returns :func:`episode_metrics`."""
        fn = HEURISTICS[priority] if isinstance(priority, str) else priority
        self._begin(start)
        policy, sim = self.policy, self.sim
        while not self.done:
            self._choose(pick(fn, policy.queue, self._submit, self._request, self._procs, sim.now))
        return episode_metrics(sim)

    def run_agent(
        self, act: Callable[[np.ndarray, np.ndarray], int], start: int
    ) -> dict[str, float]:
        """Schedule the sequence at ``start`` with ``act(observation, mask) -> action``."""
        obs, info = self.reset(options={"start": start})
        mask = info["action_mask"]
        while True:
            obs, _reward, done, _trunc, info = self.step(act(obs, mask))
            if done:
                return info["metrics"]
            mask = info["action_mask"]
