"""The contract every batch policy of the cluster simulator implements (pybatsim-style).

A policy never sees the simulator.  It is built from a :class:`ClusterState` — the narrow
view the simulator shares with it — and answers the simulator's calls:

* the per-job lists ``procs``, ``estimate`` (what the scheduler plans with), ``submit_time``
  and ``jobs`` (the :class:`~scheduler.cluster.jobs.SimJob` records, for user and group),
  indexed by job and appended in place when a job is submitted on the fly;
* ``profile``: the availability profile (:class:`~scheduler.cluster.profile.Profile`) holding
  every running job's block ``[start, start + estimate)`` and every fixed reservation;
* ``reservation_ends``: a heap of the ends of the fixed reservations still ahead (empty: none);
* ``capacity`` and ``estimates`` (the estimate mode, ``"accurate"`` or ``"requested"``).

The simulator owns the clock and the events.  At one instant it handles completions first
(an early end gives the rest of the job's block back to the profile, then :meth:`Policy.complete`
is called with ``early=True``), then reservation ends, then arrivals (:meth:`Policy.submit`, in
queue order: submit time, then job id), then calls :meth:`Policy.schedule` once.
:meth:`Policy.schedule` returns the jobs that start *now*, each already holding its block in
the profile.

Policies are listed in one explicit table, :data:`scheduler.cluster.registry.BUILTIN`, with
their names, labels, parameters and accelerations.  Users write policies against the simpler
public face of this contract, :mod:`scheduler.policies` (a priority function, or a decision
step that never touches the profile).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .jobs import SimJob
    from .profile import Profile

__all__ = ["ClusterState", "Policy", "PolicyEntry", "PolicyError", "PolicyRef"]

#: a whole-run acceleration: ``run(simulator, progress) -> bool`` (see :mod:`.whole_run`)
WholeRun = Callable[[Any, Any], bool]


class PolicyError(ValueError):
    """A policy broke the contract (over-committed processors, started a job that is not
    queued, raised an exception); the message names the policy and the job or line."""


@dataclass(frozen=True, slots=True)
class ClusterState:
    """What a policy may see of the cluster (see the module's docstring).  The containers are
    the simulator's own, shared and updated in place; the policy reads them, and changes only
    the profile (by reserving the blocks of the jobs it starts or plans)."""

    capacity: int
    profile: Profile
    procs: list[int]
    estimate: list[int]
    submit_time: list[int]
    jobs: list[SimJob]
    reservation_ends: list[int]
    estimates: str = ""


class Policy(ABC):
    """Base class: a FIFO wait queue in (submit, job id) order and no-op hooks."""

    #: the registry name (set on the class; the registry's entry is the authority)
    name: str = ""

    def __init__(self, state: ClusterState) -> None:
        # The state's containers, not the state object: Simulator.fork copies a policy's
        # containers once each, so they stay shared with the copy's simulator.
        self.capacity = state.capacity
        self.procs = state.procs
        self.estimate = state.estimate
        self.submit_time = state.submit_time
        self.jobs = state.jobs
        self.reservation_ends = state.reservation_ends  # fixed reservations still ahead
        self.profile = state.profile
        self.estimates = state.estimates
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
        were arrivals (nothing freed, no reservation granted since the last decision), which
        lets policies look at the newcomers only."""

    def waiting_count(self) -> int:
        """How many jobs wait now."""
        return len(self.queue)

    def next_wakeup(self) -> int | None:
        """The next instant this policy wants to act without any event (None: never)."""
        return None

    def planned_start(self, k: int) -> int | None:
        """Where queued job ``k`` is planned to start, if the policy plans (else None)."""
        return None

    def untouched(self) -> bool:
        """True while the policy holds no state beyond an empty queue (nothing planned,
        examined or logged): a whole-run acceleration may then take over the run."""
        return not self.queue

    # ------------------------------------------------------------ shared by policies

    def fits_now(self, k: int, now: int) -> bool:
        """Job ``k``'s processors are free over ``[now, now + estimate)``."""
        if not self.reservation_ends:  # free processors only grow from now on
            return self.profile.free_now >= self.procs[k]
        return self.profile.free_over(now, now + self.estimate[k]) >= self.procs[k]

    def start_in_order(self, order: list[int], now: int) -> list[int]:
        """Strict order: start the jobs of ``order`` from the first while each fits now (its
        block reserved); the first that does not fit blocks the rest."""
        started = []
        for k in order:
            if not self.fits_now(k, now):
                break
            self.profile.reserve(now, now + self.estimate[k], self.procs[k])
            started.append(k)
        return started


@dataclass(frozen=True)
class PolicyEntry:
    """One policy of the registry."""

    name: str
    #: short label for charts and tables ("EASY")
    title: str
    #: longer label for forms ("EASY (aggressive) backfilling")
    label: str
    description: str
    #: builds the policy: ``make(state, value)`` (value: the parameter, None if it has none)
    make: Callable[[ClusterState, Any], Policy]
    #: the parameter written after ``=`` in the name (e.g. the depth K of ``backfill-k=K``)
    param: str | None = None
    param_default: Any = None
    #: the policy decides afresh at every call (no plan of future starts), so its decisions
    #: can wait for the ticks of a scheduling interval
    decides_afresh: bool = False
    whole_runs: tuple[WholeRun, ...] = ()
    #: the pricing kernel family that re-plans this policy's queue (None: play it forward)
    quote: str | None = None
    #: which paper and figure the reference implements
    cites: str = ""
    #: a user policy: the text that names it (``mine.py:SJF``) and where it came from (file,
    #: sha256, class); empty for a built-in one
    spec: str = ""
    source: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PolicyRef:
    """A policy with its parameter value: what a run uses."""

    entry: PolicyEntry
    value: Any = None

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def text(self) -> str:
        """The canonical text (``backfill-k=4``); :func:`resolve` reads it back."""
        if self.entry.spec:
            return self.entry.spec
        if self.entry.param is None:
            return self.entry.name
        return f"{self.entry.name}={'inf' if self.value is None else self.value}"

    @property
    def title(self) -> str:
        if self.entry.param is None:
            return self.entry.title
        return f"{self.entry.title} = {'inf' if self.value is None else self.value}"

    @property
    def label(self) -> str:
        if self.entry.param is None:
            return self.entry.label
        return f"{self.entry.label} {'∞' if self.value is None else self.value}"

    def make(self, state: ClusterState) -> Policy:
        return self.entry.make(state, self.value)

    @property
    def quote_kind(self) -> tuple[str, int] | None:
        """``(kernel family, depth)`` of the quote kernel for this policy, or None (pricing
        then plays the policy forward).  Depth K = 1 is EASY and K = ∞ conservative."""
        kind = self.entry.quote
        if kind != "depth":
            return None if kind is None else (kind, 0)
        if self.value is None:
            return ("conservative", 0)
        return ("easy", 0) if self.value == 1 else ("depth", self.value)
