"""A workload where some jobs buy reservations at adaptive prices (thesis §5.3, Figs 23–31).

A seeded ``fraction`` of the trace's jobs (thesis: 10 %) are *reservation jobs*: at its submit
time such a job asks the site query (18) for a slot of its processors and its planned duration
(the estimate the scheduler would plan with), picks a start by eq. 20 with the trade-off ``α``,
and the slot is granted at once (:meth:`Simulator.insert_reservation`: queued jobs make room,
exactly as priced).  The job then runs in its slot: its wait is ``start − submit``; when it
ends before the slot does, the rest is given back to the site (or, with ``hold``, kept idle).
The other jobs are best effort under the site's policy, whose plan the reservations change.

Whole traces run: the simulation is the shared event-driven :class:`Simulator`; each quote
is the fast, exact Figure 22 of :class:`~scheduler.pricing.price.SiteQuote`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..cluster.jobs import Reservation, SimJob
from ..cluster.simulator import Simulator
from .price import SiteQuote, choose

__all__ = ["ReservationRecord", "PricingRun", "split_reservations", "run_pricing"]


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
        opts = quote.options(job.procs, d)
        pick = choose(opts, alpha() if callable(alpha) else alpha)
        if clock:
            timings.append(clock() - t0)
        sim.insert_reservation(
            Reservation(pick.start, d, job.procs), now=t, used=None if hold else job.runtime
        )
        records.append(
            ReservationRecord(
                job.job_id, t, pick.start, job.procs, d, job.runtime, pick.f, pick.total,
                len(opts), len(quote.shapes),
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
