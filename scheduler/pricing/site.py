"""A site's price list for one reservation request: what a site would show its users (thesis
§5.2, queries 18 and 19).

:func:`site_index` replays the site's trace once under its policy and indexes every job's start
(:mod:`scheduler.cluster.replay`); :func:`state_at` gives the site at any instant from it;
:func:`price_list`
answers a request ``(n, d)`` (from ``s_min`` on, optionally) with every feasible start and its
price, as a small Result (summary, one table, one chart) that the portal renders with its
generic chart code and the REST API returns as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cluster import prepare_jobs
from ..cluster.replay import ReplayIndex, build_index
from ..results import chart, series, table
from ..traces.swf import Trace
from .plan import plannable
from .price import SiteQuote, choose

__all__ = [
    "QUOTE_POLICIES", "QuoteRequestError", "check_quotable", "price_list", "quote_at",
    "site_index", "site_state", "state_at",
]  # fmt: skip

HOUR = 3600.0
#: Policies Figure 22 can re-plan a queue under, besides backfilling with a reservation depth
#: (``backfill-k=K``); a quote of any other site (fair share) is refused.
QUOTE_POLICIES = ("fcfs", "easy", "conservative")
#: site states (plans at an instant) each replay index keeps for the next request
STATES_KEPT = 8


class QuoteRequestError(ValueError):
    """A bad request; ``errors`` maps each offending field to a message."""

    def __init__(self, errors: dict[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


@dataclass(frozen=True)
class SiteState:
    quote: SiteQuote
    origin: int  # the trace's first submission
    at: int  # the instant of the quote (seconds, trace clock)
    running: int
    queued: int


def site_index(trace: Trace, procs: int, policy: str, estimates: str) -> ReplayIndex:
    """The site's whole replay, indexed (:mod:`scheduler.cluster.replay`): build it once per
    trace, site size, policy and estimate mode; every instant is then answered without
    replaying.  ``estimates`` "auto" plans with the requested times when the trace has them.
    Any policy of the simulator is indexed; :func:`state_at` prices only fcfs, easy and
    conservative sites."""
    if estimates == "auto":
        estimates = "requested" if any(j.req_time > 0 for j in trace.jobs) else "accurate"
    if estimates not in ("accurate", "requested"):
        raise QuoteRequestError({"estimates": "must be 'accurate', 'requested' or 'auto'"})
    jobs, _ = prepare_jobs(trace.jobs, procs, estimates)
    if not jobs:
        raise QuoteRequestError({"site": "the site's trace has no job that fits the site"})
    try:
        return build_index(jobs, procs, policy)
    except ValueError as exc:
        raise QuoteRequestError({"site": str(exc)}) from None


def check_quotable(policy: str) -> None:
    """Raise :class:`QuoteRequestError` unless slots can be priced under ``policy``."""
    if not plannable(policy):
        raise QuoteRequestError({
            "site": f"adaptive prices are computed for sites under FCFS, EASY, conservative "
            f"backfilling or a reservation depth K (Figure 22 re-plans the queue under them); "
            f"this site's local policy is {policy!r}"
        })  # fmt: skip


def state_at(index: ReplayIndex, at_hours: float) -> SiteState:
    """The site ``at_hours`` after its trace's first submission, ready to price slots."""
    check_quotable(index.policy)
    span_h = (index.last_submit - index.origin) / HOUR
    ok = isinstance(at_hours, int | float) and not isinstance(at_hours, bool)
    if not (ok and 0 <= at_hours <= span_h):
        raise QuoteRequestError(
            {"at": f"must be between 0 and {span_h:.1f} hours (the trace's span); got {at_hours!r}"}
        )
    at = index.origin + int(round(at_hours * HOUR))

    def build() -> SiteState:
        quote = quote_at(index, at)
        return SiteState(quote, index.origin, at, len(index.running(at)), len(index.queued(at)))

    # the plan at an instant does not depend on the request: a second request at the same
    # instant reuses it (and what its quotes derived from it: prefixes, candidates)
    return index.remember(("quote", at), build, STATES_KEPT)


def quote_at(index: ReplayIndex, at: int) -> SiteQuote:
    """The site's quote at instant ``at`` (trace clock) from its replay index: the running jobs'
    blocks and the queue, as two lists (no pair per queued job)."""
    return SiteQuote.from_queue(index.base_profile(at), *index.queued_lists(at), at, index.policy)


def site_state(trace: Trace, procs: int, policy: str, estimates: str, at_hours: float) -> SiteState:
    """:func:`state_at` of a freshly built :func:`site_index` (one-off use; the portal keeps
    the index between requests)."""
    return state_at(site_index(trace, procs, policy, estimates), at_hours)


#: What the summary of a price list holds, for people (the page and the API show these).
PRICE_LIST_LABELS = {
    "earliest_start_h": "earliest start (from now)",
    "earliest_total_su": "price of the earliest start (n·d·c + f)",
    "earliest_free_start_h": "earliest start at price f = 0 (from now)",
    "earliest_free_total_su": "price at that start (n·d·c)",
    "now_hours": "quote instant (hours into the trace)",
    "running_jobs": "jobs running",
    "queued_jobs": "jobs queued",
    "options": "start times offered",
}
#: The answer first: when it can start and what that costs, then the free start.
PRICE_LIST_KEY = (
    "earliest_start_h",
    "earliest_total_su",
    "earliest_free_start_h",
    "earliest_free_total_su",
)
PRICE_LIST_UNITS = {
    "earliest_start_h": "h",
    "earliest_free_start_h": "h",
    "earliest_total_su": "SU",
    "earliest_free_total_su": "SU",
}


def _check_request(q: SiteQuote, n: Any, duration: Any, s_min_hours: Any) -> None:
    """Raise QuoteRequestError naming every field of a request the site cannot quote."""
    errors = {}
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= q.capacity:
        errors["n"] = f"must be an integer in 1..{q.capacity} (the site's processors); got {n!r}"
    if isinstance(duration, bool) or not isinstance(duration, int) or duration < 1:
        errors["duration"] = f"must be a whole number of seconds >= 1; got {duration!r}"
    if s_min_hours is not None and not s_min_hours >= 0:
        errors["s_min"] = f"must be >= 0 hours after now; got {s_min_hours!r}"
    if errors:
        raise QuoteRequestError(errors)


def price_list(
    state: SiteState,
    n: int,
    duration: int,
    *,
    s_min_hours: float | None = None,
    alphas: tuple[float, ...] = (0.0, 0.5, 1.0),
) -> dict[str, Any]:
    """Query (18) — or (19) from ``s_min_hours`` after the quote instant — for ``n``
    processors over ``duration`` seconds.  Returns ``{"summary", "options", "choices",
    "charts", "tables"}``; starts are reported in hours after the quote instant."""
    q = state.quote
    _check_request(q, n, duration, s_min_hours)
    if s_min_hours is None:
        options = q.options(n, duration)
    else:
        options = q.options_from(state.at + int(round(s_min_hours * HOUR)), n, duration)

    def hours(o: Any) -> float:  # an option's start, in hours after the quote instant
        return round((o.start - state.at) / HOUR, 4)

    rows = [[hours(o), round(o.f, 4), round(o.total, 4)] for o in options]
    # each α's choice (Singh 2008, eq. 20): its start, and its start and price for people
    picked = {f"{a:g}": choose(options, a) for a in alphas} if options else {}
    free = next((r for r in rows if r[1] == 0), None)
    return {
        "summary": {
            "earliest_start_h": rows[0][0] if rows else None,
            "earliest_total_su": rows[0][2] if rows else None,
            "earliest_free_start_h": free[0] if free else None,
            "earliest_free_total_su": free[2] if free else None,
            "now_hours": round((state.at - state.origin) / HOUR, 4),
            "running_jobs": state.running,
            "queued_jobs": state.queued,
            "options": len(options),
        },
        "summary_labels": dict(PRICE_LIST_LABELS),
        "summary_units": dict(PRICE_LIST_UNITS),
        "key": [k for k in PRICE_LIST_KEY if rows and (free or "free" not in k)],
        "chosen": [
            {"alpha": a, "start_h": hours(o), "f": round(o.f, 4), "total": round(o.total, 4)}
            for a, o in picked.items()
        ],
        "options": [
            {"start_h": r[0], "f": r[1], "total": r[2], "start": o.start}
            for r, o in zip(rows, options, strict=True)
        ],
        "choices": {f"{a:g}": hours(choose(options, a)) for a in alphas},
        "tables": [
            table(
                "options",
                f"Start times for {n} processors × {duration / HOUR:g} h",
                ["start (h from now)", "price f (SU)", "total n·d·c + f (SU)"],
                rows,
            )
        ],
        "charts": [
            chart(
                "price-vs-start",
                "scatter",
                "Price of the reservation by start time (query 18)",
                x="start (hours from now)",
                y="additive price f (SU)",
                series=[series("price f", [[r[0], r[1]] for r in rows])],
            )
        ],
    }
