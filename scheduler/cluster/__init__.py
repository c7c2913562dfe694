"""One space-shared cluster: availability profile, batch policies, event simulator.

* :class:`Profile` — free processors over time; the shared core of slots, pricing, VAR and
  provisioning;
* policies ``fcfs``, ``easy``, ``conservative``, ``backfill-k[=K]`` (reservation depth K),
  ``fairshare``, ``fairshare-cb`` (one module each, behind :class:`Policy`; listed with their
  labels, parameters and accelerations in :mod:`.registry`);
* :class:`Simulator` / :func:`simulate` — the event-driven replay of an SWF trace.
"""

from .jobs import DROP_REASONS, ESTIMATE_MODES, Reservation, SimJob, job_procs, prepare_jobs
from .policy import ClusterState, Policy, PolicyError
from .profile import Profile, ProfileError
from .registry import (
    BUILTIN,
    PolicyEntry,
    PolicyRef,
    is_user_policy_name,
    policy_choices,
    policy_label,
    resolve,
    run_user_policies,
)
from .result import BSLD_TAU, SCHEDULE_HEADER, SimulationResult
from .simulator import Simulator, simulate


def native_status() -> str:
    """``"compiled"`` when the profile's operations run compiled (the profile library
    scheduler/cluster/_steps.py and the compression pass scheduler/cluster/_compress.py that
    cimports it, built by ``make setup``), else ``"pure: <why>"`` (see
    :mod:`scheduler._native`)."""
    from scheduler._native import status

    return status().get("scheduler.cluster._compress", "pure: not loaded")


__all__ = [
    "BSLD_TAU",
    "DROP_REASONS",
    "ESTIMATE_MODES",
    "BUILTIN",
    "ClusterState",
    "PolicyEntry",
    "PolicyError",
    "PolicyRef",
    "SCHEDULE_HEADER",
    "Policy",
    "Profile",
    "ProfileError",
    "Reservation",
    "SimJob",
    "SimulationResult",
    "Simulator",
    "is_user_policy_name",
    "job_procs",
    "native_status",
    "policy_choices",
    "policy_label",
    "prepare_jobs",
    "resolve",
    "run_user_policies",
    "simulate",
]
