"""The small base class every local batch policy implements (SPEC §2; pybatsim-style).

The simulator (:mod:`scheduler.cluster.simulator`) owns time, the event queue and the
:class:`~scheduler.cluster.profile.Profile`; a policy owns the wait queue and decides, at each
event instant, which queued jobs start.  Contract:

* a running job always holds the block ``[start, start + estimate)`` in the profile; when it
  ends early the simulator releases the unused rest and calls :meth:`Policy.complete` with
  ``early=True``;
* :meth:`Policy.schedule` returns the jobs that start *now*, each already holding its block;
* at one instant the simulator handles completions first, then reservation ends, then arrivals
  (:meth:`Policy.submit`, in queue order: submit time, then job id), then calls
  :meth:`Policy.schedule` once.

Policies are listed by name in one explicit table, :data:`scheduler.cluster.policies.POLICIES`
(no registration as an import side effect).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = ["Policy", "register_policy"]


class Policy(ABC):
    """Base class: a FIFO wait queue in (submit, job id) order and no-op hooks."""

    name: str = ""

    def __init__(self, sim: Simulator) -> None:
        # The simulator's per-job lists (appended in place), not the simulator itself: no
        # reference cycle, so a finished simulation is freed at once.
        self.procs = sim.procs
        self.estimate = sim.estimate
        self.reservation_ends = sim.reservation_ends  # fixed reservations still ahead
        self.profile = sim.profile
        self.queue: list[int] = []  # job indices, queue order

    def submit(self, k: int, now: int) -> None:
        """Job ``k`` arrives at ``now``."""
        self.queue.append(k)

    def complete(self, k: int, now: int, early: bool) -> None:  # noqa: B027 (optional hook)
        """Job ``k`` ended at ``now`` (``early``: before its planned end)."""

    def freed(self, now: int) -> None:  # noqa: B027 (optional hook)
        """Processors held ahead were given back at ``now`` (a reservation ended early)."""

    @abstractmethod
    def schedule(self, now: int, changed: bool) -> list[int]:
        """Jobs to start at ``now``.  ``changed`` is False when the only events at ``now``
        were arrivals (nothing freed), which lets policies look at the newcomers only."""

    def waiting_count(self) -> int:
        """How many jobs wait now."""
        return len(self.queue)

    def next_wakeup(self) -> int | None:
        """The next instant this policy wants to act without any event (None: never)."""
        return None

    def planned_start(self, k: int) -> int | None:
        """Where queued job ``k`` is planned to start, if the policy plans (else None)."""
        return None


def register_policy(cls: type[Policy]) -> type[Policy]:
    """Class decorator kept for compatibility: it changes nothing.  Policies are listed
    explicitly in :data:`scheduler.cluster.policies.POLICIES` (no import-time registration)."""
    return cls
