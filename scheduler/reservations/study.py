"""The daily comparison of VAR, adaptive and combined reservations (thesis §6.2–6.4,
Figures 38–49).

The site replays its trace under its policy (the thesis observed the NCSA TeraGrid cluster;
here the observed site is the simulation).  Once a day, at the issue instant ``T``, a user asks
for each request ``(n, D, start in h)``, ``S = T + h``:

* VAR: the predictor, fed with the waits of the jobs started by ``T``, plans the submission
  (Figure 33); the job goes through the queue in a fork of the site (:func:`.var.run_var`);
* adaptive: the slot at exactly ``S`` priced by Figure 22 at ``T`` (:mod:`.adaptive`);
* combined (Figure 45, :mod:`.combined`): in mode ``replay`` (the thesis, §6.4: "we simulated
  the combined scheme using the experimental data") from the two arms' outcomes; in mode
  ``live`` the VAR job is submitted into a fork that also holds the granted reservation, as a
  user doing both at once would see it.

Every request is answered in its own fork, so requests never disturb the site or each other,
as the thesis's daily probes did not (its VAR jobs were few against a production load).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..cluster.jobs import Reservation, SimJob
from ..cluster.simulator import Simulator
from ..pricing.price import SiteQuote
from .adaptive import AdaptiveOutcome, adaptive_reservation
from .combined import PENALTY, CombinedOutcome, combine
from .history import SiteHistory
from .predictor import WaitPredictor
from .var import STEP, VarOutcome, plan_var, probability_curve, run_var

__all__ = ["Request", "Case", "StudyRun", "issue_times", "run_study", "thesis_requests"]

HOUR = 3600
DAY = 86400


@dataclass(frozen=True, slots=True)
class Request:
    """``procs`` processors for ``duration`` s, starting ``offset`` s after the request."""

    procs: int
    duration: int
    offset: int

    @property
    def label(self) -> str:
        return f"{self.procs}n × {self.duration / HOUR:g} h, start +{self.offset / HOUR:g} h"


def thesis_requests(
    sizes: Sequence[int] = (32, 64),
    durations_h: Sequence[float] = (1, 4),
    offsets_h: Sequence[float] = (1, 4, 8),
) -> list[Request]:
    """The thesis's 12 reservations (§6.2): sizes × durations × start offsets, in its order."""
    return [
        Request(n, round(d * HOUR), round(o * HOUR))
        for n in sizes
        for d in durations_h
        for o in offsets_h
    ]


@dataclass(frozen=True, slots=True)
class Case:
    """One request on one day, with the three arms' outcomes."""

    day: int
    issue: int
    request: Request
    var: VarOutcome
    adaptive: AdaptiveOutcome
    combined: CombinedOutcome
    history: int  # waits the predictor knew at the issue instant
    queued: int  # jobs waiting at the issue instant

    def normalised(self, cost: float | None) -> float | None:
        """A cost in processor-seconds over the base charge ``n·D``."""
        return None if cost is None else cost / (self.request.procs * self.request.duration)


@dataclass
class StudyRun:
    cases: list[Case]
    curves: dict[Request, tuple[list[int], list[float]]] = field(default_factory=dict)
    change_points: int = 0


def issue_times(
    jobs: Sequence[SimJob],
    *,
    days: int,
    warmup_days: float,
    hour: float,
    horizon: int,
    midnight: int,
    jitter_h: float = 0.0,
    seed: int = 0,
) -> list[int]:
    """Once a day at ``hour`` (+ a seeded jitter in ``[0, jitter_h)``) from ``midnight`` on:
    the instants after the warm-up whose latest request (``horizon`` s later) still falls
    within the trace's submissions.  ``days = 0``: every such day."""
    if not jobs:
        return []
    first, last = jobs[0].submit, jobs[-1].submit
    rng = random.Random(seed)
    out: list[int] = []
    k = 0
    while True:
        t = midnight + k * DAY + round(hour * HOUR)
        if jitter_h > 0:
            t += int(rng.random() * jitter_h * HOUR)
        k += 1
        if t + horizon > last:
            break
        if t >= first + warmup_days * DAY:
            out.append(t)
            if days and len(out) >= days:
                break
    return out


def run_study(
    jobs: Sequence[SimJob],
    procs: int,
    policy: str,
    requests: Sequence[Request],
    issues: Sequence[int],
    *,
    predictor: WaitPredictor | None = None,
    penalty: float = PENALTY,
    combined_mode: str = "replay",
    step: int = STEP,
    curve_offset: int | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> StudyRun:
    """Replay ``jobs`` and answer every request at every issue instant (sorted)."""
    if combined_mode not in ("replay", "live"):
        raise ValueError(f"combined_mode must be 'replay' or 'live'; got {combined_mode!r}")
    pred = predictor or WaitPredictor()
    sim = Simulator(jobs, procs, policy, origin=jobs[0].submit if jobs else 0)
    hist = SiteHistory(sim, pred)
    out = StudyRun([])
    total = len(issues)
    for day, t in enumerate(sorted(issues)):
        if progress is not None:
            progress(day / total if total else 1.0, f"day {day + 1} of {total}")
        sim.run(until=t)
        hist.sync()
        quote = SiteQuote.of(sim, t)
        queued = len(quote.shapes)
        for r in requests:
            s = t + r.offset
            plan = plan_var(pred, r.procs, r.duration, s, t, step)
            var = run_var(sim, plan, r.procs, s)
            ad = adaptive_reservation(quote, r.procs, s, r.duration)
            var_start = var.started
            if combined_mode == "live" and ad.delay:  # f > 0: the VAR job meets the slot
                resv = Reservation(s, r.duration, r.procs)
                var_start = run_var(sim, plan, r.procs, s, reservation=resv, now=t).started
            comb = combine(ad.delay, var_start, r.procs, s, penalty)
            out.cases.append(Case(day, t, r, var, ad, comb, pred.size, queued))
            if day == 0 and (curve_offset is None or r.offset == curve_offset):
                ts, probs = probability_curve(pred, r.procs, r.duration, s, t, step)
                out.curves[r] = ((ts - t).tolist(), np.round(probs, 4).tolist())
    out.change_points = pred.changes()
    return out
