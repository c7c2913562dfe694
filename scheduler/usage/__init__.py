"""Usage-policy based resource allocation in grids (Dumitrescu, Wilde & Foster 2005).

* :mod:`.config` — policy documents: sites, VOs, groups, ``<resource, provider, consumer,
  epoch, burst>`` policies; validation naming JSON paths; warnings (over-provisioning);
* :mod:`.shares` — recursive shares (site → VO → group) resolved per site;
* :mod:`.workload` — Poisson job streams per VO/group, or an SWF trace mapped onto VOs;
* :mod:`.simulator` / :mod:`.state` — the time-stepped grid simulation and its usage ledger;
* :mod:`.spep` — the site policy enforcement point; :mod:`.vpep` — the VO's V-PEP and the
  baselines' least-loaded dispatch; :mod:`.rm` — local RM fair share and FCFS;
* :mod:`.batch` — the testbed's batch systems (Condor, OpenPBS/Maui): their own fair share, and
  the S-PEP acting through them;
* :mod:`.metrics` — BUPV, EUPV, ARU, ART, AJC;
* :mod:`.scenarios` — Dumitrescu, Wilde & Foster's (2005) grids.
"""

from .batch import (
    Condor,
    CondorFairShare,
    Maui,
    MauiFairShare,
    SPEPOverCondor,
    SPEPOverPBS,
)
from .config import (
    Allocation,
    Policy,
    PolicyError,
    PolicySet,
    Site,
    load_policy_document,
    load_policy_file,
    policy_warnings,
    to_document,
)
from .metrics import METRICS, outcome_metrics
from .rm import FCFS, FairShare
from .shares import GridModel
from .simulator import SimOutcome, Strategy, simulate
from .spep import SPEP
from .workload import UsageJob, poisson_jobs, swf_jobs

#: The strategies compared by the ``usage-policy`` experiment, by result name.
STRATEGIES: dict[str, type[Strategy]] = {
    "spep": SPEP,
    "rm-fairshare": FairShare,
    "none": FCFS,
    "spep-condor": SPEPOverCondor,
    "spep-pbs": SPEPOverPBS,
    "rm-condor": CondorFairShare,
    "rm-pbs": MauiFairShare,
}

__all__ = [
    "Allocation",
    "Condor",
    "CondorFairShare",
    "Maui",
    "MauiFairShare",
    "SPEPOverCondor",
    "SPEPOverPBS",
    "FCFS",
    "FairShare",
    "GridModel",
    "METRICS",
    "Policy",
    "PolicyError",
    "PolicySet",
    "SPEP",
    "STRATEGIES",
    "SimOutcome",
    "Site",
    "Strategy",
    "UsageJob",
    "load_policy_document",
    "load_policy_file",
    "outcome_metrics",
    "policy_warnings",
    "poisson_jobs",
    "simulate",
    "swf_jobs",
    "to_document",
]
