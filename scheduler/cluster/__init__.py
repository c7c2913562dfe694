"""One space-shared cluster: availability profile, batch policies, event simulator (SPEC §2).

* :class:`Profile` — free processors over time; the shared core of slots, pricing, VAR and
  provisioning (DESIGN.md);
* policies ``fcfs``, ``easy``, ``conservative``, ``backfill-k[=K]`` (reservation depth K),
  ``fairshare``, ``fairshare-cb`` (one module each, behind :class:`Policy`; listed in
  :mod:`.policies`);
* :class:`Simulator` / :func:`simulate` — the event-driven replay of an SWF trace.
"""

from .jobs import DROP_REASONS, ESTIMATE_MODES, Reservation, SimJob, job_procs, prepare_jobs
from .policies import POLICIES, POLICY_LABELS, get_policy
from .policy import Policy
from .profile import Profile, ProfileError
from .result import BSLD_TAU, SCHEDULE_HEADER, SimulationResult
from .simulator import Simulator, simulate


def native_status() -> str:
    """``"compiled"`` when the profile's hot loops run compiled (scheduler/cluster/_kernel.py
    built by ``make setup``), else ``"pure: <why>"`` (see :mod:`scheduler._native`)."""
    from scheduler._native import status

    return status().get("scheduler.cluster._kernel", "pure: not loaded")


__all__ = [
    "BSLD_TAU",
    "DROP_REASONS",
    "ESTIMATE_MODES",
    "POLICIES",
    "POLICY_LABELS",
    "SCHEDULE_HEADER",
    "Policy",
    "Profile",
    "ProfileError",
    "Reservation",
    "SimJob",
    "SimulationResult",
    "Simulator",
    "get_policy",
    "job_procs",
    "native_status",
    "prepare_jobs",
    "simulate",
]
