""" "When would my job start?" for a site page and its REST API (SPEC §6; thesis eq. 21).

:func:`predict_start` replays the site's trace under its policy up to an instant, feeds the
waits of the jobs started by then to the QBETS-like predictor (:mod:`.predictor`) and answers
for a job of ``n`` processors asking ``req_time_s`` seconds: upper bounds (at the predictor's
confidence) of the 0.25/0.5/0.75/0.95 quantiles of its start, in hours from now, the class of
jobs the answer comes from and its history size, plus the probability of starting within a
few horizons.  Bad input raises :class:`PredictionRequestError`, whose ``errors`` name the
fields.
"""

from __future__ import annotations

from typing import Any

from ..cluster import prepare_jobs
from ..cluster.simulator import Simulator
from ..experiments.base import chart, series, table
from ..traces.swf import Trace
from .history import SiteHistory
from .predictor import WaitPredictor

__all__ = ["PredictionRequestError", "predict_start", "QUANTILES"]

HOUR = 3600.0
QUANTILES = (0.25, 0.5, 0.75, 0.95)
HORIZONS_H = (0.25, 0.5, 1, 2, 4, 8, 12, 24, 48)


class PredictionRequestError(ValueError):
    """A bad request; ``errors`` maps each offending field to a message."""

    def __init__(self, errors: dict[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def predict_start(
    trace: Trace,
    procs: int,
    policy: str,
    estimates: str,
    at_hours: float,
    n: int,
    req_time_s: int,
    *,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Predicted start of a job ``(n, req_time_s)`` submitted ``at_hours`` after the trace's
    first submission, on ``procs`` processors (0: the header's MaxProcs) under ``policy``.
    ``estimates`` "auto" plans with the requested times when the trace has them."""
    errors: dict[str, str] = {}
    if policy not in ("fcfs", "easy", "conservative"):
        errors["policy"] = f"must be fcfs, easy or conservative; got {policy!r}"
    if estimates == "auto":
        estimates = "requested" if any(j.req_time > 0 for j in trace.jobs) else "accurate"
    if estimates not in ("accurate", "requested"):
        errors["estimates"] = f"must be 'accurate', 'requested' or 'auto'; got {estimates!r}"
    if not _is_int(procs) or procs < 0:
        errors["procs"] = f"must be a whole number >= 0 (0: the trace's MaxProcs); got {procs!r}"
    site = (procs or trace.machine_procs) if _is_int(procs) and procs >= 0 else 0
    if "procs" not in errors and site < 1:
        errors["procs"] = "the trace header has no MaxProcs: give the site's processors"
    if not _is_int(n) or n < 1 or (site and n > site):
        errors["n"] = f"must be a whole number of processors in 1..{site or '?'}; got {n!r}"
    if not _is_int(req_time_s) or req_time_s < 1:
        errors["req_time"] = f"must be a whole number of seconds >= 1; got {req_time_s!r}"
    if not 0 < confidence < 1:
        errors["confidence"] = f"must be in (0, 1); got {confidence!r}"
    if errors:
        raise PredictionRequestError(errors)
    jobs, _ = prepare_jobs(trace.jobs, site, estimates)
    if not jobs:
        raise PredictionRequestError({"site": "the site's trace has no job that fits the site"})
    origin = jobs[0].submit
    span_h = (jobs[-1].submit - origin) / HOUR
    ok = isinstance(at_hours, int | float) and not isinstance(at_hours, bool)
    if not (ok and 0 <= at_hours <= span_h):
        raise PredictionRequestError(
            {"at": f"must be between 0 and {span_h:.1f} hours (the trace's span); got {at_hours!r}"}
        )
    at = origin + int(round(at_hours * HOUR))
    sim = Simulator(jobs, site, policy)
    sim.run(until=at)
    predictor = WaitPredictor(confidence=confidence)
    SiteHistory(sim, predictor).sync()
    if predictor.size == 0:
        raise PredictionRequestError({
            "at": f"no job has started on the site {at_hours:g} h into the trace: there is no "
            "history to predict from; choose a later instant"
        })  # fmt: skip
    pred = predictor.predict(n, req_time_s, QUANTILES)
    pool = predictor.pool_for(n, req_time_s)
    rows = [[q, None if b is None else round(b / HOUR, 4)] for q, b in pred.quantiles.items()]
    probs = [
        [h, round(pool.prob_within(h * HOUR, confidence), 4) if pool else 0.0] for h in HORIZONS_H
    ]
    return {
        "summary": {
            "now_hours": round((at - origin) / HOUR, 4),
            "history": pred.history,
            "history_total": predictor.size,
            "class": pred.label,
            "confidence": confidence,
            "running_jobs": sim.running_count(),
            "queued_jobs": len(sim.queued()),
        },
        "summary_labels": {
            "now_hours": "instant (hours into the trace)",
            "history": "waits in the class used",
            "history_total": "waits observed on the site so far",
            "class": "class of jobs the prediction uses",
            "confidence": "confidence of the bounds",
            "running_jobs": "jobs running",
            "queued_jobs": "jobs queued",
        },
        "quantiles": [{"quantile": q, "start_h": h, "defined": h is not None} for q, h in rows],
        "tables": [
            table(
                "start-quantiles",
                f"Predicted start of {n} processors × {req_time_s / HOUR:g} h "
                f"(upper bounds at {confidence:g} confidence)",
                ["quantile", "starts within (h from now)"],
                rows,
            )
        ],
        "charts": [
            chart(
                "start-probability",
                "line",
                "Probability of starting within a horizon",
                x="hours from now",
                y="probability (lower bound)",
                series=[series(pred.label, probs)],
            )
        ],
    }
