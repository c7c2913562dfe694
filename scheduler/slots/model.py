"""The slot ``<s, n, d, c, f, b, e>`` and the Table 1 sub-slot rules (thesis ch. 3).

A slot offers ``n`` processors from time ``s`` for ``d`` seconds at a per-unit cost ``c`` and a
fixed cost ``f``; its total cost is ``n·d·c + f`` (thesis eq. 1).  ``b`` (divisible) lets a user
take a part of it, ``e`` (extensible) lets a user take it past ``s + d``.

Units: times and durations are integer seconds (as in the traces); costs are in service units
(SU, 1 SU = 1 processor-hour at ``c = 1``), so the cost of ``n`` processors for ``d`` seconds is
``n · (d / 3600) · c``.  The thesis writes ``n × d × c + f`` with durations in hours.

Table 1 (thesis p. 22) — taking the sub-slot ``<s_k, n_k, d_k>`` out of
``<s_i, n_i, d_i, c_i, f_i, b_i, e_i>``:

=====  =====  ==========================================  =====================
b_i    e_i    allowed                                     cost
=====  =====  ==========================================  =====================
F      F      n_k = n_i, s_k = s_i, d_k = d_i             n_i · d_i · c_i + f_i
F      T      n_k = n_i, s_k = s_i, d_k ≥ d_i             n_i · d_k · c_i + f_i
T      F      n_k ≤ n_i, s_i ≤ s_k, s_k + d_k ≤ s_i + d_i  n_k · d_k · c_i + f_i
T      T      n_k ≤ n_i, s_i ≤ s_k                        n_k · d_k · c_i + f_i
=====  =====  ==========================================  =====================

>>> s = Slot(start=0, procs=4, duration=7200, unit_cost=1.0, fixed_cost=0.5)
>>> s.total_cost
8.5
>>> s.subslot_cost(0, 4, 7200)
8.5
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SECONDS_PER_SU", "Slot", "SubslotError"]

#: seconds in one processor-hour: costs are ``procs · seconds / SECONDS_PER_SU · c``.
SECONDS_PER_SU = 3600.0


class SubslotError(ValueError):
    """A sub-slot that Table 1 does not allow for this slot."""


def _check_int(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"slot {name} must be an int >= {low}, got {value!r}")


@dataclass(frozen=True, slots=True)
class Slot:
    """``procs`` processors over ``[start, start + duration)`` (thesis eq. 1 and 2).

    ``site`` names the resource that advertised the slot (empty for a single resource).
    """

    start: int
    procs: int
    duration: int
    unit_cost: float = 1.0
    fixed_cost: float = 0.0
    divisible: bool = False
    extensible: bool = False
    site: str = ""

    def __post_init__(self) -> None:
        _check_int("start", self.start, -(2**62))
        _check_int("procs", self.procs, 1)
        _check_int("duration", self.duration, 1)
        for name in ("unit_cost", "fixed_cost"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                raise ValueError(f"slot {name} must be a number >= 0, got {value!r}")
            if value == float("inf"):
                raise ValueError(f"slot {name} must be finite")

    @property
    def end(self) -> int:
        """``s + d``: the advertised end (an extensible slot may be taken past it)."""
        return self.start + self.duration

    @property
    def total_cost(self) -> float:
        """``n · d · c + f`` in SU (thesis eq. 1)."""
        return self.procs * self.duration / SECONDS_PER_SU * self.unit_cost + self.fixed_cost

    def allows(self, start: int, procs: int, duration: int) -> bool:
        """Whether Table 1 allows taking ``<start, procs, duration>`` from this slot."""
        try:
            self.subslot_cost(start, procs, duration)
        except SubslotError:
            return False
        return True

    def subslot_cost(self, start: int, procs: int, duration: int) -> float:
        """Cost of the sub-slot ``<start, procs, duration>`` per Table 1, in SU.

        Raises :class:`SubslotError` naming the violated restriction.
        """
        if procs < 1 or duration < 1:
            raise SubslotError("a sub-slot needs at least one processor for one second")
        c, f = self.unit_cost, self.fixed_cost
        if not self.divisible:
            if procs != self.procs or start != self.start:
                raise SubslotError(
                    "an indivisible slot must be taken whole: "
                    f"n_k = {self.procs} and s_k = {self.start}"
                )
            if self.extensible:
                if duration < self.duration:
                    raise SubslotError(f"an indivisible slot needs d_k >= {self.duration}")
                return procs * duration / SECONDS_PER_SU * c + f
            if duration != self.duration:
                raise SubslotError(f"an indivisible, inextensible slot needs d_k = {self.duration}")
            return self.total_cost
        if procs > self.procs:
            raise SubslotError(f"n_k = {procs} exceeds the slot's {self.procs} processors")
        if start < self.start:
            raise SubslotError(f"s_k = {start} is before the slot's start {self.start}")
        if not self.extensible and start + duration > self.end:
            raise SubslotError(f"s_k + d_k = {start + duration} is past the slot's end {self.end}")
        return procs * duration / SECONDS_PER_SU * c + f

    def as_json(self) -> dict[str, Any]:
        """The CLI's JSON object."""
        out: dict[str, Any] = {
            "start": self.start,
            "procs": self.procs,
            "duration": self.duration,
            "unit_cost": self.unit_cost,
            "fixed_cost": self.fixed_cost,
            "divisible": self.divisible,
            "extensible": self.extensible,
        }
        if self.site:
            out["site"] = self.site
        return out
