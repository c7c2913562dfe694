"""A workload where some jobs buy reservations at adaptive prices (thesis §5.3, Figs 23–31).

A seeded ``fraction`` of the trace's jobs (thesis: 10 %) are *reservation jobs*: at its submit
time such a job asks the site query (18) for a slot of its processors and its planned duration
(the estimate the scheduler would plan with), picks a start by eq. 20 with the trade-off ``α``,
and the slot is granted at once (:meth:`Simulator.insert_reservation`: queued jobs make room,
exactly as priced).  The job then runs in its slot: its wait is ``start − submit``; when it
ends before the slot does, the rest is given back to the site (or, with ``hold``, kept idle).
The other jobs are best effort under the site's policy, whose plan the reservations change.

Whole traces run: the simulation is the shared event-driven :class:`Simulator`; each quote
is the fast, exact Figure 22 of :class:`~scheduler.pricing.price.SiteQuote`.  At α = 0 and
α = 1 (conservative backfilling or FCFS) eq. 20 needs only part of query (18)'s answer, and
only that part is computed (:func:`pick`): the same option, price and option count.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..cluster.jobs import Reservation, SimJob
from ..cluster.simulator import Simulator
from . import price as _price
from .price import Option, SiteQuote, choose

__all__ = ["ReservationRecord", "PricingRun", "split_reservations", "run_pricing", "pick"]

#: at α = 1 the earliest free start is eq. 20's choice when no earlier price is below 1e-12
#: of the dearest (choose() rounds the scores to 12 places): a bound on every price at most
#: this many times a lower bound on each earlier one
_ROUNDING_SAFE = 10**12


@dataclass(frozen=True, slots=True)
class ReservationRecord:
    """One reservation job: when it asked, what it got and what it paid (SU)."""

    job_id: int
    submit: int
    start: int
    procs: int
    duration: int
    runtime: int
    f: float  # additive price, SU
    total: float  # n·d·c + f, SU
    options: int  # how many starts query (18) offered
    queued: int  # best-effort jobs waiting when it asked

    @property
    def wait(self) -> int:
        return self.start - self.submit


@dataclass(frozen=True)
class PricingRun:
    """The reservations and the best-effort jobs' waits of one run."""

    reservations: list[ReservationRecord]
    best_effort_waits: list[int]
    best_effort_procs: list[int]
    best_effort_submits: list[int]
    utilization: float
    quote_seconds: list[float]


def split_reservations(
    jobs: Sequence[SimJob], fraction: float, seed: int
) -> tuple[list[SimJob], list[SimJob]]:
    """Choose ``round(fraction · len(jobs))`` jobs (seeded) as reservation jobs; return the
    best-effort jobs (re-indexed in queue order, as the simulator wants) and the chosen ones."""
    if not 0 <= fraction <= 1:
        raise ValueError(f"fraction must be in [0, 1]; got {fraction!r}")
    k = round(fraction * len(jobs))
    chosen = set(random.Random(seed).sample(range(len(jobs)), k))
    best = [j for i, j in enumerate(jobs) if i not in chosen]
    best = [j._replace(index=i) for i, j in enumerate(best)]
    resv = [j for i, j in enumerate(jobs) if i in chosen]
    return best, resv


def pick(quote: SiteQuote, n: int, d: int, alpha: float) -> tuple[Option, int]:
    """``choose(quote.options(n, d), alpha)`` and the number of options, computing only what
    the choice needs at ``alpha`` 0 or 1 under conservative backfilling or FCFS
    (:func:`scheduler.pricing._replan.first_options`); else the whole list.

    * α = 0: every score is ``(s − s_lo) / s_span``: the first option wins (0, and the
      earliest start on ties) — only its price is computed.
    * α = 1: every score is ``(f − f_lo) / f_span``; a zero price is offered (then
      ``f_lo = 0``), so the earliest option at price 0 wins, unless an earlier, positive
      price rounds to a score of 0 — impossible when every price is at most 10^12 times a
      lower bound on each earlier one (its score is then at least 1e-12).  A price 0 is
      found by a re-plan that stops at the first job that moves; the delay it has found
      then bounds the price from below.  The bound from above: re-planned in queue order,
      job ``k`` starts by the time the profile is all free, which is at most
      ``E0 + Σ_{j<k} d_j`` (``E0``: the end of the running jobs, reservations and the
      latest slot), so it is delayed at most that minus its planned start.
    """
    zero_one = isinstance(alpha, (int, float)) and (alpha == 0 or alpha == 1)
    kind = getattr(quote, "_kind", quote.policy)  # the plan kind of price.py, if it has one
    if zero_one and quote.policy in ("conservative", "fcfs") and kind == quote.policy:
        fast = _pick_end(quote, n, d, alpha == 1)
        if fast is not None:
            return fast
    opts = quote.options(n, d)
    return choose(opts, alpha), len(opts)


def _pick_end(quote: SiteQuote, n: int, d: int, free: bool) -> tuple[Option, int] | None:
    """:func:`pick` at α = 1 (``free``) or α = 0; None: ask the whole list."""
    R = _price._R
    quote._check(quote.now, n, d)  # what options() refuses
    cands = quote.candidates()
    Q = quote._queue()
    fcfs = quote.policy == "fcfs"
    count, first, zero, least = R.first_options(Q, cands, n, d, quote.now, fcfs, free)
    if count == 0:
        return None  # choose() refuses an empty list
    if not free:
        s = cands[first]
        (f,) = R.delays(Q, [s], n, d, quote.now, fcfs)
        return Option(s, n, d, quote.unit_cost, f), count
    if zero < 0:
        return None
    if zero > first and _price_bound(quote, cands[-1] + d) > least * _ROUNDING_SAFE:
        return None  # (no earlier option: nothing to round)
    return Option(cands[zero], n, d, quote.unit_cost, 0), count


def _price_bound(quote: SiteQuote, end: int) -> int:
    """An upper bound on the price (processor-seconds) of any slot ending by ``end``."""
    horizon = max(quote.base.times[-1], end, quote.now)  # all free from here, slot or not
    bound = 0
    for (q, dq), v in zip(quote.shapes, quote.starts, strict=True):
        if horizon > v:
            bound += (horizon - v) * q
        horizon += dq
    return bound


def run_pricing(
    jobs: Sequence[SimJob],
    procs: int,
    policy: str,
    *,
    alpha: float | Callable[[], float],
    fraction: float = 0.1,
    seed: int = 0,
    unit_cost: float = 1.0,
    hold: bool = False,
    progress: Callable[[float, str], None] | None = None,
    clock: Callable[[], float] | None = None,
    slot: str = "estimate",
) -> PricingRun:
    """Replay ``jobs`` on ``procs`` processors under ``policy`` with a ``fraction`` of them
    buying reservations chosen at trade-off ``alpha`` (or a fresh ``alpha()`` per reservation,
    thesis Figure 29).  A reservation job that ends before its slot does gives the rest back
    (the site compresses its plan into it), unless ``hold``: then the slot stays taken to its
    end, paid and idle.  ``slot``: a reservation asks for its job's ``estimate`` (what the
    scheduler plans best-effort jobs with) or its actual ``runtime`` (thesis §5.3, Figures
    30–31 give only "the best effort workload" the requested estimates).  ``clock`` (e.g.
    ``time.perf_counter``) times each quote for the benchmark; results never depend on it."""
    if slot not in ("estimate", "runtime"):
        raise ValueError(f"slot must be 'estimate' or 'runtime'; got {slot!r}")
    best, resv = split_reservations(jobs, fraction, seed)
    sim = Simulator(best, procs, policy, origin=jobs[0].submit if jobs else 0)
    records: list[ReservationRecord] = []
    timings: list[float] = []
    total = len(resv)
    for i, job in enumerate(resv):
        if progress is not None and i % 64 == 0:
            progress(i / total if total else 1.0, f"reservation {i + 1} of {total}")
        t = job.submit
        sim.run(until=t)
        d = max(1, job.estimate if slot == "estimate" else job.runtime)
        t0 = clock() if clock else 0.0
        quote = SiteQuote.of(sim, t, unit_cost=unit_cost)
        chosen, offered = pick(quote, job.procs, d, alpha() if callable(alpha) else alpha)
        if clock:
            timings.append(clock() - t0)
        sim.insert_reservation(
            Reservation(chosen.start, d, job.procs), now=t, used=None if hold else job.runtime
        )
        records.append(
            ReservationRecord(
                job.job_id, t, chosen.start, job.procs, d, job.runtime, chosen.f, chosen.total,
                offered, len(quote.shapes),
            )
        )  # fmt: skip
    sim.run()
    waits = [s - j.submit for j, s in zip(sim.jobs, sim.start, strict=True)]
    work = sum(j.procs * j.runtime for j in sim.jobs) + sum(r.procs * r.runtime for r in records)
    first = min((j.submit for j in jobs), default=0)
    last = max(
        [s + j.runtime for j, s in zip(sim.jobs, sim.start, strict=True)]
        + [r.start + (r.duration if hold else r.runtime) for r in records]
        + [first + 1]
    )
    return PricingRun(
        records,
        waits,
        [j.procs for j in sim.jobs],
        [j.submit for j in sim.jobs],
        work / (procs * (last - first)),
        timings,
    )
