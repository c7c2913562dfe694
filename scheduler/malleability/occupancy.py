"""Occupancy of each cluster over time, on the shared availability profile
(Buisson et al. 2007, Figure 8: utilization over time).

After a run recorded with ``record_segments=True``, every allocation segment (a KOALA job at
one size, or a local user's job) is inserted into one :class:`~scheduler.cluster.profile.Profile`
per cluster.  The profile refuses a block that does not fit (``ProfileError``), so building the
profiles is an independent proof that no cluster was over-committed at any instant; and
``capacity - free`` over its steps is the cluster's utilization as a step function (Buisson et al.
2007, Figures 7(e) and 8(e) plot the total over all clusters).
"""

from __future__ import annotations

from ..cluster.profile import Profile
from .simulator import SimResult

__all__ = ["cluster_profiles", "used_steps"]


def cluster_profiles(result: SimResult, *, koala_only: bool = False) -> list[Profile]:
    """One profile per cluster with every recorded segment reserved (raises
    :class:`~scheduler.cluster.profile.ProfileError` on an over-commit)."""
    if result.segments is None:
        raise ValueError("the run did not record its segments (record_segments=True)")
    origin = min((s.start for s in result.segments), default=0)
    profiles = [Profile(c.size, origin) for c in result.clusters]
    # in start order, so most insertions touch the tail of the step lists
    for s in sorted(result.segments, key=lambda s: (s.start, s.end, s.cluster, s.owner)):
        if koala_only and s.owner < 0:
            continue
        profiles[s.cluster].reserve(s.start, s.end, s.procs)
    return profiles


def used_steps(profile: Profile) -> list[tuple[int, int]]:
    """``(t, processors in use from t on)`` at every breakpoint of ``profile``."""
    return [(a, profile.capacity - free) for a, _b, free in profile.steps()]
