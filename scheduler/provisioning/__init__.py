"""Provisioning a workflow on advertised slots (thesis ch. 4).

=================  ==============================================================
module             what
=================  ==============================================================
``network``        per-pair bandwidth and latency between sites
``plan``           plan evaluation: AC and SC of a bit mask over the slots
``pareto``         dominance, the Pareto archive, choice by α (eq. 15), hypervolume
``moga``           Fonseca–Fleming MOGA over plans
``exhaustive``     the true Pareto front of ≤ 16 slots
``best_effort``    the workflow submitted just in time into live trace simulations
``live``           fork / load hooks on a running cluster simulator
=================  ==============================================================
"""

from __future__ import annotations

from .best_effort import BestEffortRun, allocation_cost_best_effort, run_best_effort
from .exhaustive import MAX_EXHAUSTIVE_SLOTS, exhaustive_front
from .live import system_jobs
from .moga import SIGMA_SHARE, MogaResult, moga, moga_fitness
from .network import GBIT, Network
from .pareto import (
    ParetoArchive,
    choose_by_alpha,
    dominates,
    hypervolume,
    hypervolume_ratio,
    nondominated,
)
from .plan import INFEASIBLE, PlanEvaluator, PlanSchedule, TaskPlacement

__all__ = [
    "GBIT",
    "INFEASIBLE",
    "MAX_EXHAUSTIVE_SLOTS",
    "SIGMA_SHARE",
    "BestEffortRun",
    "MogaResult",
    "Network",
    "ParetoArchive",
    "PlanEvaluator",
    "PlanSchedule",
    "TaskPlacement",
    "allocation_cost_best_effort",
    "choose_by_alpha",
    "dominates",
    "exhaustive_front",
    "hypervolume",
    "hypervolume_ratio",
    "moga",
    "moga_fitness",
    "nondominated",
    "run_best_effort",
    "system_jobs",
]
