"""What a malleability-management policy sees and returns (Buisson et al. 2007, §5.3).

A policy works on one cluster at a time (Buisson et al. 2007, §5.3: no co-allocation, so policies
apply per cluster).  It receives the running malleable jobs of that cluster as :class:`Member` views
and a number of processors to hand out (grow) or to reclaim (shrink), sends offers/requests and
returns the size each job settled on.  A job answers an offer itself (:meth:`AppModel.settle`):
it never goes below its minimum or above its maximum, and FT only takes powers of 2.

The two policies are :mod:`.fpsma` and :mod:`.egs`; :data:`POLICIES` maps names to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .apps import AppModel

__all__ = ["Member", "Policy", "POLICY_NAMES"]  # get_policy: see .policy_table

POLICY_NAMES = ("FPSMA", "EGS")


@dataclass(frozen=True, slots=True)
class Member:
    """A running malleable job as a policy sees it."""

    key: int
    start: int
    size: int
    lo: int
    hi: int
    app: AppModel

    def accept_grow(self, size: int, offer: int) -> int:
        """Processors accepted out of ``offer`` when currently at ``size``."""
        return max(0, self.app.settle(size, size + offer, self.lo, self.hi) - size)

    def accept_shrink(self, size: int, request: int) -> int:
        """Processors released when asked for ``request`` at ``size`` (FT may release more:
        it drops to the next power of 2, Buisson et al. 2007, §6.1)."""
        return max(0, size - self.app.settle(size, size - request, self.lo, self.hi))

    def can_grow(self, size: int) -> bool:
        return self.accept_grow(size, self.hi) > 0

    def can_shrink(self, size: int) -> bool:
        return size > self.lo


class Policy(Protocol):
    name: str

    def grow(self, members: list[Member], value: int) -> dict[int, int]: ...

    def shrink(self, members: list[Member], value: int) -> dict[int, int]: ...
