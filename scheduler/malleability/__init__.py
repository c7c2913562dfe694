"""Malleable jobs in multicluster systems (Buisson et al. 2007: KOALA + DYNACO, CoreGRID TR-0092).

Modules, one concept each: :mod:`.model` (clusters, jobs, records), :mod:`.apps` (FT and
GADGET2 speed-up curves), :mod:`.placement` (Worst-Fit, placement queue), :mod:`.policies`
with :mod:`.fpsma` and :mod:`.egs`, :mod:`.approaches` (PRA, PWA), :mod:`.background` (local
users), :mod:`.simulator` (the event loop), :mod:`.workload` (Buisson et al. 2007, §6.3 and SWF
workloads) and :mod:`.occupancy` (the run's allocations on the shared availability profile).
"""

from .approaches import APPROACHES
from .apps import APPS, FT, GADGET2, AppModel, get_app
from .background import BackgroundLoad
from .model import DAS3_CLUSTERS, ClusterSpec, JobRecord, JobSpec, ModelError, clusters_from_sizes
from .occupancy import cluster_profiles
from .policies import POLICY_NAMES, Member
from .policy_table import get_policy
from .simulator import Segment, SimResult, Simulation, simulate
from .workload import seed_workload, trace_workload

__all__ = [
    "APPS",
    "APPROACHES",
    "AppModel",
    "BackgroundLoad",
    "ClusterSpec",
    "DAS3_CLUSTERS",
    "FT",
    "GADGET2",
    "JobRecord",
    "JobSpec",
    "Member",
    "ModelError",
    "POLICY_NAMES",
    "Segment",
    "SimResult",
    "Simulation",
    "cluster_profiles",
    "clusters_from_sizes",
    "get_app",
    "get_policy",
    "seed_workload",
    "simulate",
    "trace_workload",
]
