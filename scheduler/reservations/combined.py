"""VAR and adaptive reservations combined (thesis §6.4, Figure 45, eq. 23).

The user buys the adaptive reservation (price ``f``) and lets VAR submit its job too; a
cancelled reservation costs the penalty ``p·f`` (p = 0.1 in the thesis)::

    if f == 0: keep the reservation (VAR cannot be cheaper)
    else submit the VAR job;
        if it has not started by S: cancel it, keep the reservation
        elif (S − t2)·n + p·f ≤ f: cancel the reservation (pay p·f), use the VAR job
        else: cancel the VAR job, keep the reservation

When the reservation cannot be granted, VAR is the only alternative (thesis §6.4).  The scheme
fails only when both fail, and never pays more than ``f``.  Costs are processor-seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CombinedOutcome", "combine", "PENALTY"]

PENALTY = 0.1


@dataclass(frozen=True, slots=True)
class CombinedOutcome:
    choice: str  # "adaptive", "var" or "none"
    cost: float | None  # processor-seconds; None when it failed
    var_submitted: bool

    @property
    def success(self) -> bool:
        return self.choice != "none"


def combine(
    f: int | None, var_started: int | None, n: int, start: int, p: float = PENALTY
) -> CombinedOutcome:
    """Figure 45 for an adaptive price ``f`` (None: not grantable) and the start ``t2`` of the
    VAR job (None: not started by ``start``)."""
    if not 0 <= p:
        raise ValueError(f"the penalty factor must be >= 0; got {p!r}")
    if f == 0:
        return CombinedOutcome("adaptive", 0.0, False)
    if var_started is not None and var_started > start:
        raise ValueError(f"the VAR job started at {var_started}, after the start {start}")
    if f is None:  # no reservation: VAR alone
        if var_started is None:
            return CombinedOutcome("none", None, True)
        return CombinedOutcome("var", float((start - var_started) * n), True)
    if var_started is None:
        return CombinedOutcome("adaptive", float(f), True)
    via_var = (start - var_started) * n + p * f
    if via_var <= f:
        return CombinedOutcome("var", via_var, True)
    return CombinedOutcome("adaptive", float(f), True)
