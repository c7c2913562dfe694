"""The malleability policies by name: one explicit table.

:mod:`.policies` defines what a policy is (:class:`~.policies.Member`, the ``Policy``
protocol); :mod:`.fpsma` and :mod:`.egs` implement it; this module, above all three, lists them.
(``get_policy`` used to live in :mod:`.policies` and import the policies from inside a
function, a circle: policies -> egs -> policies.)
"""

from __future__ import annotations

from .egs import EGS
from .fpsma import FPSMA
from .model import ModelError
from .policies import POLICY_NAMES, Policy

__all__ = ["POLICIES", "get_policy"]

#: name (upper case) -> policy class; a fresh instance is made per simulation
POLICIES: dict[str, type] = {"FPSMA": FPSMA, "EGS": EGS}
assert tuple(POLICIES) == POLICY_NAMES


def get_policy(name: str) -> Policy:
    try:
        return POLICIES[name.upper()]()
    except (KeyError, AttributeError):
        raise ModelError(
            "policy", f"unknown policy {name!r} (known: {', '.join(POLICY_NAMES)})"
        ) from None
