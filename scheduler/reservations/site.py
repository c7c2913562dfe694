""" "When would my job start?" for a site page and its REST API (thesis eq. 21).

:func:`prediction_index` replays the site's trace once and indexes it
(:mod:`scheduler.cluster.replay`); :func:`predict_at` feeds the waits of the jobs started by an
instant to the QBETS-like predictor (:mod:`.predictor`) and answers
for a job of ``n`` processors asking ``req_time_s`` seconds: upper bounds (at the predictor's
confidence) of the 0.25/0.5/0.75/0.95 quantiles of its start, in hours from now, the class of
jobs the answer comes from and its history size, plus the probability of starting within a
few horizons.  Bad input raises :class:`PredictionRequestError`, whose ``errors`` name the
fields.

Feeding a whole archive trace's waits to the predictor took ~0.4 s late in CTC-SP2 (77k
adds).  The predictor's state is checkpointed every :data:`CHECKPOINT_EVERY` starts
(:func:`wait_checkpoints`: per class, how many waits it holds, from which start on, its run of
misses and change points — computed by one full replay per index and confidence, kept beside
the index file by :meth:`~scheduler.cluster.replay.ReplayIndex.derived`), so a request restores
the last checkpoint before its instant and adds fewer than :data:`CHECKPOINT_EVERY` waits: the
same predictor state, hence the same answer, as replaying every start.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cluster import prepare_jobs
from ..cluster.registry import resolve
from ..cluster.replay import ReplayIndex, build_index
from ..results import chart, series, table
from ..traces.swf import Trace
from .predictor import PROC_EDGES, REQ_EDGES, WaitPredictor

__all__ = [
    "CHECKPOINT_EVERY",
    "PredictionRequestError",
    "QUANTILES",
    "predict_at",
    "predict_start",
    "prediction_index",
    "predictor_at",
    "wait_checkpoints",
]

HOUR = 3600.0
QUANTILES = (0.25, 0.5, 0.75, 0.95)
HORIZONS_H = (0.25, 0.5, 1, 2, 4, 8, 12, 24, 48)
#: starts between two checkpoints of the predictor: a request adds at most this many minus one
CHECKPOINT_EVERY = 512
_ALL_STARTS = np.iinfo(np.int64).max


class PredictionRequestError(ValueError):
    """A bad request; ``errors`` maps each offending field to a message."""

    def __init__(self, errors: dict[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def prediction_index(trace: Trace, procs: int, policy: str, estimates: str) -> ReplayIndex:
    """The site's whole replay, indexed (:mod:`scheduler.cluster.replay`), for predictions at
    any instant; ``procs`` 0 means the header's MaxProcs; ``estimates`` "auto" plans with the
    requested times when the trace has them."""
    errors: dict[str, str] = {}
    try:
        resolve(policy)
    except ValueError as exc:
        errors["policy"] = str(exc)
    if estimates == "auto":
        estimates = "requested" if any(j.req_time > 0 for j in trace.jobs) else "accurate"
    if estimates not in ("accurate", "requested"):
        errors["estimates"] = f"must be 'accurate', 'requested' or 'auto'; got {estimates!r}"
    if not _is_int(procs) or procs < 0:
        errors["procs"] = f"must be a whole number >= 0 (0: the trace's MaxProcs); got {procs!r}"
    site = (procs or trace.machine_procs) if _is_int(procs) and procs >= 0 else 0
    if "procs" not in errors and site < 1:
        errors["procs"] = "the trace header has no MaxProcs: give the site's processors"
    if errors:
        raise PredictionRequestError(errors)
    jobs, _ = prepare_jobs(trace.jobs, site, estimates)
    if not jobs:
        raise PredictionRequestError({"site": "the site's trace has no job that fits the site"})
    return build_index(jobs, site, policy)


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
    first submission, on ``procs`` processors (0: the header's MaxProcs) under ``policy``:
    :func:`predict_at` of a freshly built :func:`prediction_index` (one-off use; the portal
    keeps the index between requests)."""
    index = prediction_index(trace, procs, policy, estimates)
    return predict_at(index, at_hours, n, req_time_s, confidence=confidence)


def wait_checkpoints(
    index: ReplayIndex, confidence: float = 0.95, every: int = CHECKPOINT_EVERY
) -> dict[str, np.ndarray]:
    """The predictor's state after every ``every`` starts of the replay (a WaitPredictor at
    ``confidence`` fed every start in order): ``state[c]`` (:meth:`WaitPredictor.state`) and
    ``first[c]`` (per pool, the start order position of its oldest wait) after ``(c+1)·every``
    starts.  Computed once per index and confidence (:meth:`ReplayIndex.derived`)."""

    def build() -> dict[str, np.ndarray]:
        procs, est, wait = index.started_arrays(_ALL_STARTS)
        predictor = WaitPredictor(confidence=confidence)
        add = predictor.add
        states = []
        rows = zip(procs.tolist(), est.tolist(), wait.tolist(), strict=True)
        for k, (p, r, w) in enumerate(rows, 1):
            add(p, r, w)
            if k % every == 0:
                states.append(predictor.state())
        n_pools = len(predictor.pools())
        state = np.array(states, dtype=np.int64).reshape(-1, n_pools, 3)
        keys = WaitPredictor.pool_keys(procs, est)
        first = np.zeros(state.shape[:2], dtype=np.int64)
        ends = every * np.arange(1, len(state) + 1)
        for k in range(n_pools):
            at = np.flatnonzero(keys[:, _key_column(k)] == k)  # the pool's adds, in order
            held = state[:, k, 0]
            count = np.searchsorted(at, ends)  # its adds before each checkpoint
            idx = count - held
            if len(at):
                first[:, k] = np.where(held > 0, at[np.minimum(idx, len(at) - 1)], ends)
            else:
                first[:, k] = ends
        return {"every": np.array(every), "state": state, "first": first}

    name = f"wait-checkpoints-{float(confidence)!r}-{every}"
    return index.derived(name, build)


def _key_column(pool: int) -> int:
    """The column of :meth:`WaitPredictor.pool_keys` that holds pools of index ``pool``."""
    n_fine = (len(PROC_EDGES) + 1) * (len(REQ_EDGES) + 1)
    return 0 if pool < n_fine else 1 if pool < n_fine + len(PROC_EDGES) + 1 else 2


def predictor_at(
    index: ReplayIndex, at: int, confidence: float = 0.95, every: int = CHECKPOINT_EVERY
) -> WaitPredictor:
    """The predictor at ``confidence`` that has learnt the waits of the jobs started at or
    before ``at`` (seconds, the trace's clock), in start order: restored from the last
    checkpoint (:func:`wait_checkpoints`), then fed the starts since (fewer than ``every``);
    ``every`` 0 replays every start."""
    procs, est, wait = index.started_arrays(at)
    predictor = WaitPredictor(confidence=confidence)
    done = (len(wait) // every) * every if every > 0 else 0
    if done:
        cps = wait_checkpoints(index, confidence, every)
        c = done // every - 1
        first = cps["first"][c]
        lo = int(first.min())
        keys = WaitPredictor.pool_keys(procs[lo:done], est[lo:done])
        held = []
        for k, f in enumerate(first.tolist()):
            mine = keys[f - lo :, _key_column(k)] == k
            held.append(wait[f:done][mine])
        predictor.restore(cps["state"][c], held, done)
    add = predictor.add
    for p, r, w in zip(
        procs[done:].tolist(), est[done:].tolist(), wait[done:].tolist(), strict=True
    ):
        add(p, r, w)
    return predictor


def predict_at(
    index: ReplayIndex, at_hours: float, n: int, req_time_s: int, *, confidence: float = 0.95
) -> dict[str, Any]:
    """The prediction ``at_hours`` into the indexed replay: the predictor learns the waits of
    the jobs started by then, in start order (what an observer of the site knows)."""
    errors: dict[str, str] = {}
    site = index.capacity
    if not _is_int(n) or n < 1 or n > site:
        errors["n"] = f"must be a whole number of processors in 1..{site}; got {n!r}"
    if not _is_int(req_time_s) or req_time_s < 1:
        errors["req_time"] = f"must be a whole number of seconds >= 1; got {req_time_s!r}"
    if not 0 < confidence < 1:
        errors["confidence"] = f"must be in (0, 1); got {confidence!r}"
    span_h = (index.last_submit - index.origin) / HOUR
    ok = isinstance(at_hours, int | float) and not isinstance(at_hours, bool)
    if not (ok and 0 <= at_hours <= span_h):
        errors["at"] = (
            f"must be between 0 and {span_h:.1f} hours (the trace's span); got {at_hours!r}"
        )
    if errors:
        raise PredictionRequestError(errors)
    origin = index.origin
    at = origin + int(round(at_hours * HOUR))
    predictor = predictor_at(index, at, confidence)
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
            "running_jobs": len(index.running(at)),
            "queued_jobs": len(index.queued(at)),
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
