"""Slot advertisement: the holes of a conservative plan as slots (thesis ch. 3, Figure 1).

A site running conservative backfilling knows, at any instant, how many processors its plan
leaves free at every future time: the availability profile (:class:`~scheduler.cluster.Profile`,
the engine's shared core).  Advertising the holes (Maui's "backfill windows") lets a user
backfill by hand, so provisioning a slot delays nobody and costs ``c = 1``, ``f = 0``.

Horizon
-------
Slots are advertised over ``[now, H)`` with ``H = max(now + 48 h, last planned finish + 5 min)``
(thesis §3.1, the line ``start + duration = 48 h`` in Figure 6).  After the last planned finish
every processor is free, so at ``H`` the whole machine is covered by edge slots.

How the free area is cut into rectangles
----------------------------------------
The free area under the step function ``free(t)`` on ``[now, H)`` is cut into *level bands*:
processor level ``k`` (1 ≤ k ≤ capacity) is free over the set ``{t : free(t) ≥ k}``, a union of
maximal intervals; a slot is a maximal band of consecutive levels ``(low, low + n]`` that share
the same maximal interval ``[s, s + d)``.  Equivalently, sweeping the steps left to right with a
stack of open bands (the "skyline" sweep):

* when ``free`` rises from ``a`` to ``b`` at ``t``, a band ``(a, b]`` opens at ``t``;
* when it falls to ``b`` at ``t``, every open band above ``b`` closes at ``t``; a band
  ``(lo, hi]`` with ``lo < b < hi`` is split: ``(b, hi]`` closes at ``t`` and ``(lo, b]`` stays
  open with its original start;
* at ``H`` every open band closes: these are the *edge* slots.

This reproduces the five slots S1–S5 of thesis Figure 1 (see the tests).  Properties:

* the slots are disjoint (distinct level bands where their times overlap) and, at every instant
  of ``[now, H)``, their processors add up to ``free(t)`` exactly;
* lower bands are longer: the slots alive at an instant are nested in time, so for any interval
  ``[a, b)`` the processors of the slots that span all of it add up to ``min free`` over it —
  stacking slots vertically (Figure 2) finds exactly what the profile offers;
* there are at most as many slots as steps (each rise opens one band).

Attributes (thesis p. 29): a slot that closes before ``H`` ends because a job (or reservation)
starts there, so it is indivisible and inextensible (``b = e = False``); an edge slot is open to
the future, divisible and extensible (``b = e = True``), and advertised up to ``H``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from .model import Slot

if TYPE_CHECKING:
    from ..cluster.profile import Profile
    from ..cluster.simulator import Simulator

__all__ = [
    "DEFAULT_TAIL",
    "DEFAULT_WINDOW",
    "Hole",
    "advertise",
    "advertise_simulator",
    "cut_free_area",
    "horizon",
]

#: advertise at least this far ahead (seconds): 48 h.
DEFAULT_WINDOW = 48 * 3600
#: ... and this far past the last planned finish (seconds): 5 min.
DEFAULT_TAIL = 300


class Hole(NamedTuple):
    """One rectangle of free area: processor levels ``(low, low + procs]`` over
    ``[start, end)``; ``edge`` when it reaches the horizon."""

    start: int
    end: int
    low: int
    procs: int
    edge: bool


def cut_free_area(steps: Iterable[tuple[int, int | None, int]], end: int) -> list[Hole]:
    """Cut the free area of ``steps`` (``(start, end, free)`` in time order, contiguous, as
    :meth:`Profile.steps` yields them) up to ``end`` into level-band rectangles.

    Returned sorted by ``(start, low)``.
    """
    holes: list[Hole] = []
    stack: list[list[int]] = []  # open bands [start, lo, hi], lo increasing
    level = 0
    last = None
    for a, b, free in steps:
        if a >= end:
            break
        if last is not None and a != last:
            raise ValueError(f"steps are not contiguous at {a} (previous step ended at {last})")
        last = end if b is None or b > end else b
        if free > level:
            stack.append([a, level, free])
        elif free < level:
            while stack and stack[-1][1] >= free:
                s, lo, hi = stack.pop()
                holes.append(Hole(s, a, lo, hi - lo, False))
            if stack and stack[-1][2] > free:
                top = stack[-1]
                holes.append(Hole(top[0], a, free, top[2] - free, False))
                top[2] = free
        level = free
    while stack:
        s, lo, hi = stack.pop()
        if s < end:
            holes.append(Hole(s, end, lo, hi - lo, True))
    holes.sort(key=lambda h: (h.start, h.low))
    return holes


def horizon(
    profile: Profile, now: int, *, window: int = DEFAULT_WINDOW, tail: int = DEFAULT_TAIL
) -> int:
    """``max(now + window, last planned finish + tail)`` (thesis §3.1: 48 h and 5 min)."""
    times = profile.times
    last_finish = times[-1] if len(times) > 1 else now
    return max(now + window, last_finish + tail)


def advertise(
    profile: Profile,
    now: int,
    *,
    window: int = DEFAULT_WINDOW,
    tail: int = DEFAULT_TAIL,
    until: int | None = None,
    unit_cost: float = 1.0,
    fixed_cost: float = 0.0,
    site: str = "",
) -> list[Slot]:
    """The slots a site advertises at ``now`` from its plan ``profile`` (thesis ch. 3).

    ``until`` overrides the horizon (default :func:`horizon`).  Edge slots are divisible and
    extensible, the others neither; every slot costs ``unit_cost`` per processor-hour plus
    ``fixed_cost`` (thesis defaults 1 and 0).  Sorted by start, then by processor level.
    """
    if now < profile.origin:
        raise ValueError(f"now ({now}) is before the profile's origin ({profile.origin})")
    end = horizon(profile, now, window=window, tail=tail) if until is None else until
    if end <= now:
        return []
    return [
        Slot(h.start, h.procs, h.end - h.start, unit_cost, fixed_cost, h.edge, h.edge, site)
        for h in cut_free_area(profile.steps(now, end), end)
    ]


def advertise_simulator(sim: Simulator, at: int | None = None, **options: object) -> list[Slot]:
    """:func:`advertise` for a running :class:`~scheduler.cluster.Simulator` at ``at``
    (default: its current time).  Call ``sim.run(until=at)`` first so that every job
    submitted at or before ``at`` is in the plan."""
    now = sim.now if at is None else at
    if now < sim.now:
        raise ValueError(f"cannot advertise at {now}: the simulation is already at {sim.now}")
    return advertise(sim.profile, now, **options)  # type: ignore[arg-type]
