"""The local batch policies of the cluster simulator, by name: one explicit table.

Adding a policy means adding its class here (no registration as an import side effect; the
layering test, tests/scheduler/test_layers.py, checks that nothing imports upwards).
"""

from __future__ import annotations

from .conservative import Conservative
from .depth import DEFAULT_DEPTH, BackfillDepth, depth_policy, parse_depth_name
from .easy import EASY
from .fairshare import FairShare, FairShareBackfill
from .fcfs import FCFS
from .policy import Policy

__all__ = ["POLICIES", "POLICY_LABELS", "get_policy"]

#: name -> policy class
POLICIES: dict[str, type[Policy]] = {
    cls.name: cls for cls in (FCFS, EASY, Conservative, BackfillDepth, FairShare, FairShareBackfill)
}

#: name -> short human label (forms and charts)
POLICY_LABELS: dict[str, str] = {
    "fcfs": "FCFS",
    "easy": "EASY backfilling",
    "conservative": "conservative backfilling",
    "backfill-k": f"backfilling with reservation depth K (K = {DEFAULT_DEPTH})",
    "fairshare": "fair share",
    "fairshare-cb": "fair share + backfilling",
}


def get_policy(name: str) -> type[Policy]:
    """The policy class of ``name``: a key of :data:`POLICIES`, or ``backfill-k=K`` (K an
    integer >= 1 or ``inf``: backfilling with reservation depth K)."""
    try:
        return POLICIES[name]
    except (KeyError, TypeError):
        depth = parse_depth_name(name)
        if depth is not False:
            return depth_policy(depth)  # type: ignore[arg-type]
        known = ", ".join(sorted(POLICIES))
        raise ValueError(f"unknown policy {name!r} (known: {known})") from None
