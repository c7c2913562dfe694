"""Learned-scheduler tooling over the engine: a Gymnasium environment (:mod:`.env`), the
community's heuristic baselines (:mod:`.heuristics`) and RLScheduler's evaluation protocol
(:mod:`.sequences`, :mod:`.protocol`).  Tutorial: docs/gym-tutorial.ipynb."""

from .env import AgentPolicy, SchedulingEnv, episode_metrics
from .heuristics import HEURISTICS, priority_policy
from .protocol import Protocol, evaluate
from .sequences import Workload, legacy_gym_rng, load_workload, sequence_starts

__all__ = [
    "HEURISTICS",
    "AgentPolicy",
    "Protocol",
    "SchedulingEnv",
    "Workload",
    "episode_metrics",
    "evaluate",
    "legacy_gym_rng",
    "load_workload",
    "priority_policy",
    "sequence_starts",
]
