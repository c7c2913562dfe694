"""The adaptive-pricing arm of the comparison (thesis §6.2–6.3, Figures 38–44).

At the request time the user asks the site for the slot ``(S, n, D)`` at adaptive prices
(query 19 with ``s_min = S``; its first answer is the slot at exactly ``S`` when that is
feasible, priced by query 17 — the only answer this comparison needs, so only it is priced).
As in the thesis (§6.3.1), the reservation *fails* when it cannot be granted at ``S`` because
it would conflict with running jobs or granted reservations; otherwise it succeeds and costs
the additive price ``f`` (Figure 22), normalised by the base charge ``n·D``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..pricing.price import SiteQuote

__all__ = ["AdaptiveOutcome", "adaptive_reservation"]


@dataclass(frozen=True, slots=True)
class AdaptiveOutcome:
    procs: int
    start: int
    duration: int
    delay: int | None  # f in processor-seconds; None: not grantable at S

    @property
    def success(self) -> bool:
        return self.delay is not None

    @property
    def cost(self) -> int | None:
        return self.delay


def adaptive_reservation(quote: SiteQuote, n: int, start: int, duration: int) -> AdaptiveOutcome:
    """Price the slot ``(start, n, duration)`` at the quote's instant (None: infeasible)."""
    return AdaptiveOutcome(n, start, duration, quote.price(start, n, duration))
