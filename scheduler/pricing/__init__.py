"""Adaptive reservation pricing (thesis ch. 5): the price of a slot is the delay it
causes to the queued best-effort jobs (Figure 22), offered over the candidate starts of the
current plan (queries 17–19) and chosen by the user's trade-off α (eq. 20)."""

from .plan import PLANNERS, plan_conservative, plan_fcfs, plan_queue
from .price import SECONDS_PER_SU, Option, SiteQuote, choose

__all__ = [
    "PLANNERS",
    "SECONDS_PER_SU",
    "Option",
    "SiteQuote",
    "choose",
    "plan_conservative",
    "plan_fcfs",
    "plan_queue",
]
