"""A QBETS-like queue-wait predictor (thesis ch. 6, eq. 21; Nurmi, Brevik and Wolski,
"QBETS: Queue Bounds Estimation from Time Series", JSSPP 2007).

The history is the waits of the jobs that have *started* on the site, fed in the order their
waits became known (their start times): no look-ahead.  Jobs are grouped in classes of

* processors: 1 · 2–4 · 5–16 · 17–64 · 65+ — powers of four, because archive workloads are
  dominated by small, power-of-two sizes and the wait of a job grows with the share of the
  machine it needs; five classes keep each one populated on a 128-processor machine;
* requested time (what the scheduler plans with): ≤ 1 h · 1–4 h · 4–12 h · > 12 h — the
  backfilling horizon that matters for the wait; VAR's padded requests (1–12 h) cross them.

A class with fewer than ``min_history`` observations (the fewest for which the bound exists:
59 for the 0.95 quantile at confidence 0.95) falls back to its processor class, then to the
whole history.

**Binomial method.**  With ``n`` observations sorted ``x_(1) ≤ … ≤ x_(n)``, the number of them
below the true ``q``-quantile is Binomial(n, q); the smallest ``k`` with
``P(Binom(n, q) ≤ k − 1) ≥ C`` makes ``x_(k)`` an upper bound of the ``q``-quantile at
confidence ``C`` (no bound when ``k > n``).  Inverted, the probability that a job starts within
``w`` is the largest ``q`` whose bound is ``≤ w``: with ``m`` observations ``≤ w`` that is the
``q`` solving ``P(Binom(n, q) ≤ m − 1) = C``, i.e. the Beta quantile
``I⁻¹_{1−C}(m, n − m + 1)`` (the one-sided Clopper–Pearson lower bound of ``P(wait ≤ w)``).

**Change points** (the idea of QBETS). Each new wait of a class is compared with the class's
current ``q``-quantile bound; under a stationary history a wait above it (a *miss*) has
probability at most ``1 − q``. A run of ``change_run`` consecutive misses is improbable —
``(1−q)^r`` with ``q = 0.95``, ``r = 3`` is ``1.25·10⁻⁴`` if the waits were independent — so it
marks a change: the class forgets everything before the run, keeping the most recent
``min_history`` waits so that a bound still exists. Waits of jobs queued together are strongly
autocorrelated; the QBETS papers account for that; here the run length is a parameter (default
3) chosen by the calibration benchmark (``bench/bench_reservations.py``: runs of 2–5 keep both
CTC-SP2 and SDSC-SP2 under 5 % misses, no trimming does not). Only upward drift is detected this
way, as in QBETS, whose bounds are upper bounds; a few misses in a short history are absorbed by
the order statistic instead (the bound moves up to the new waits by itself).

Adding a wait costs ``O(log n)`` comparisons (plus a list insertion); queries are a cached
order-statistic index or one binary search.

**Checkpoints.**  A class's history is always the *last* ``len`` waits of that class (trimming
only forgets the oldest), so the whole predictor state after any number of adds is, per class,
that length, the current run of misses and the change count (:meth:`WaitPredictor.state`);
with the waits themselves it is restored exactly (:meth:`WaitPredictor.restore`), which lets a
site page resume from a checkpoint instead of replaying a whole trace
(:mod:`scheduler.reservations.site`).
"""

from __future__ import annotations

import math
from bisect import bisect_right, insort
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np


def _special():  # type: ignore[no-untyped-def]
    """SciPy's special functions, imported when first needed (about a second at start-up, which
    every engine process that never predicts a wait would pay): ``(betaincinv, binom_cdf
    kernel, binom_ppf kernel)``."""
    global _SPECIAL
    if _SPECIAL is None:
        from scipy.special import betaincinv

        try:  # the kernels of scipy.stats.binom's cdf and ppf, without scipy.stats (~0.4 s)
            from scipy.special._ufuncs import _binom_cdf, _binom_ppf
        except ImportError:  # pragma: no cover - a SciPy without them: the public distribution
            from scipy.stats import binom

            def _binom_cdf(k: float, n: float, p: float) -> float:
                return float(binom._cdf(k, n, p))

            def _binom_ppf(c: float, n: float, p: float) -> float:
                return float(binom._ppf(c, n, p))

        _SPECIAL = (betaincinv, _binom_cdf, _binom_ppf)
    return _SPECIAL


_SPECIAL = None


__all__ = [
    "PROC_EDGES",
    "REQ_EDGES",
    "Pool",
    "WaitPredictor",
    "binom_cdf",
    "binom_ppf",
    "bound_index",
    "min_history_for",
    "proc_class",
    "req_class",
]

PROC_EDGES = (1, 4, 16, 64)  # classes 1 · 2–4 · 5–16 · 17–64 · 65+
REQ_EDGES = (3600, 4 * 3600, 12 * 3600)  # ≤ 1 h · 1–4 h · 4–12 h · > 12 h


def proc_class(procs: int) -> int:
    """Index of the processor class of ``procs`` (0 for 1 processor … 4 for 65+)."""
    return bisect_right(PROC_EDGES, procs - 1)


def req_class(req_time: int) -> int:
    """Index of the requested-time class (0 for ≤ 1 h … 3 for > 12 h)."""
    return bisect_right(REQ_EDGES, req_time - 1)


def _proc_label(i: int) -> str:
    lo = 1 if i == 0 else PROC_EDGES[i - 1] + 1
    hi = PROC_EDGES[i] if i < len(PROC_EDGES) else None
    if hi is None:
        return f"{lo}+ processors"
    return f"{lo} processor" if lo == hi == 1 else f"{lo}–{hi} processors"


def _req_label(i: int) -> str:
    hours = [e // 3600 for e in REQ_EDGES]
    if i == 0:
        return f"requested ≤ {hours[0]} h"
    if i == len(REQ_EDGES):
        return f"requested > {hours[-1]} h"
    return f"requested {hours[i - 1]}–{hours[i]} h"


def binom_cdf(k: int, n: int, q: float) -> float:
    """``scipy.stats.binom.cdf(k, n, q)`` for a whole ``k`` (the same value: its kernel, with
    the distribution's support and clipping, at a fraction of the call's cost)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return min(max(float(_special()[1](k, n, q)), 0.0), 1.0)


def binom_ppf(c: float, n: int, q: float) -> float:
    """``scipy.stats.binom.ppf(c, n, q)`` for ``0 < c < 1`` (its kernel, the same value)."""
    return float(_special()[2](c, n, q))


@lru_cache(maxsize=65536)
def bound_index(n: int, q: float, confidence: float) -> int | None:
    """0-based index of the order statistic bounding the ``q``-quantile of ``n`` samples
    from above at ``confidence``: the smallest ``j`` with ``P(Binom(n, q) ≤ j) ≥ C``; None
    when ``j ≥ n`` (too few samples for such a bound)."""
    if n < 1:
        return None
    j = int(binom_ppf(confidence, n, q))
    # guard the floating-point edge of ppf with the exact definition
    while j > 0 and binom_cdf(j - 1, n, q) >= confidence:
        j -= 1
    while j < n and binom_cdf(j, n, q) < confidence:
        j += 1
    return j if j < n else None


def min_history_for(q: float, confidence: float) -> int:
    """The fewest samples for which a ``q``-quantile bound at ``confidence`` exists: the
    smallest ``n`` with ``1 − qⁿ ≥ C`` (then the bound is the largest sample)."""
    return max(1, math.ceil(math.log(1 - confidence) / math.log(q) - 1e-12))


class Pool:
    """The waits of one job class: in observation order (for trimming) and sorted."""

    __slots__ = ("label", "recent", "sorted", "misses", "changes", "_array", "_version", "_av")

    def __init__(self, label: str) -> None:
        self.label = label
        self.recent: deque[int] = deque()
        self.sorted: list[int] = []
        self.misses = 0  # current run of consecutive waits above the bound
        self.changes = 0  # change points detected so far
        self._array: np.ndarray | None = None
        self._version = 0
        self._av = -1

    def __len__(self) -> int:
        return len(self.sorted)

    def bound(self, q: float, confidence: float) -> int | None:
        j = bound_index(len(self.sorted), q, confidence)
        return None if j is None else self.sorted[j]

    def add(self, wait: int, q: float, confidence: float, run: int, keep: int) -> None:
        if run > 0:
            b = self.bound(q, confidence)
            self.misses = self.misses + 1 if b is not None and wait > b else 0
        self.recent.append(wait)
        insort(self.sorted, wait)
        self._version += 1
        if run > 0 and self.misses >= run:
            # a change point: forget the history before the run of misses
            while len(self.recent) > max(keep, self.misses):
                self.recent.popleft()
            self.sorted = sorted(self.recent)
            self.misses = 0
            self.changes += 1

    def prob_within(self, w: float, confidence: float) -> float:
        """The largest ``q`` whose bound at ``confidence`` is ``≤ w``."""
        n = len(self.sorted)
        m = bisect_right(self.sorted, w) if w >= 0 else 0
        if m == 0:
            return 0.0
        return float(_special()[0](m, n - m + 1, 1 - confidence))

    def prob_within_many(self, ws: np.ndarray, confidence: float) -> np.ndarray:
        """:meth:`prob_within` for an array of waits (one sorted-array search)."""
        if self._av != self._version or self._array is None:
            self._array = np.asarray(self.sorted, dtype=np.int64)
            self._av = self._version
        n = len(self.sorted)
        m = np.searchsorted(self._array, ws, side="right")
        m = np.where(ws < 0, 0, m)
        out = np.zeros(len(ws), dtype=float)
        pos = m > 0
        if pos.any():
            out[pos] = _special()[0](m[pos], n - m[pos] + 1, 1 - confidence)
        return out


@dataclass(frozen=True, slots=True)
class Prediction:
    """Upper bounds (seconds) of wait quantiles for one job shape, and where they came from."""

    quantiles: dict[float, int | None]
    history: int
    label: str


class WaitPredictor:
    """Per-class wait histories with binomial quantile bounds and change-point trimming.

    ``quantile``/``confidence``: the bound used to detect change points (and the default of
    :meth:`bound`); ``change_run``: consecutive misses that mark a change (0 disables it);
    ``min_history``: the fewest waits a class needs before it is used instead of a coarser one
    (default: the fewest for which the ``quantile`` bound exists).
    """

    def __init__(
        self,
        *,
        quantile: float = 0.95,
        confidence: float = 0.95,
        change_run: int = 3,
        min_history: int | None = None,
    ) -> None:
        if not 0 < quantile < 1:
            raise ValueError(f"quantile must be in (0, 1); got {quantile!r}")
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")
        if change_run < 0:
            raise ValueError(f"change_run must be >= 0; got {change_run!r}")
        self.quantile = quantile
        self.confidence = confidence
        self.change_run = change_run
        self.min_history = min_history or min_history_for(quantile, confidence)
        np_, nr = len(PROC_EDGES) + 1, len(REQ_EDGES) + 1
        self._fine = [
            [Pool(f"{_proc_label(i)} × {_req_label(j)}") for j in range(nr)] for i in range(np_)
        ]
        self._proc = [Pool(f"{_proc_label(i)}, any requested time") for i in range(np_)]
        self._all = Pool("all jobs")
        self.size = 0

    def add(self, procs: int, req_time: int, wait: int) -> None:
        """Record the wait of a job that has just started (call in start-time order)."""
        i, j = proc_class(procs), req_class(req_time)
        args = (self.quantile, self.confidence, self.change_run, self.min_history)
        self._fine[i][j].add(wait, *args)
        self._proc[i].add(wait, *args)
        self._all.add(wait, *args)
        self.size += 1

    def pool_for(self, procs: int, req_time: int) -> Pool | None:
        """The finest class of this job shape with enough history (None: no history)."""
        i, j = proc_class(procs), req_class(req_time)
        for pool in (self._fine[i][j], self._proc[i], self._all):
            if len(pool) >= self.min_history:
                return pool
        return self._all if len(self._all) else None

    def bound(self, procs: int, req_time: int, q: float | None = None) -> int | None:
        """Upper bound (seconds, at the predictor's confidence) of the ``q``-quantile of the
        wait of a job of this shape; None when the history is too short for it."""
        pool = self.pool_for(procs, req_time)
        if pool is None:
            return None
        return pool.bound(self.quantile if q is None else q, self.confidence)

    def predict(self, procs: int, req_time: int, quantiles: tuple[float, ...]) -> Prediction:
        pool = self.pool_for(procs, req_time)
        if pool is None:
            return Prediction(dict.fromkeys(quantiles), 0, "no history")
        return Prediction(
            {q: pool.bound(q, self.confidence) for q in quantiles}, len(pool), pool.label
        )

    def prob_start_by(self, procs: int, req_time: int, submit_at: int, deadline: int) -> float:
        """Probability (a lower confidence bound) that a job submitted at ``submit_at`` starts
        by ``deadline`` — QBETS(machine, queue, nodes, wallTime, startDeadline), eq. 21."""
        pool = self.pool_for(procs, req_time)
        if pool is None:
            return 0.0
        return pool.prob_within(deadline - submit_at, self.confidence)

    def pools(self) -> list[Pool]:
        """Every class, in a fixed order: the fine classes row by row (processor class, then
        requested-time class), the processor classes, the whole history."""
        return [p for row in self._fine for p in row] + self._proc + [self._all]

    @staticmethod
    def pool_keys(procs: np.ndarray, req_time: np.ndarray) -> np.ndarray:
        """For jobs ``(procs, req_time)``: one row per job, the index (in :meth:`pools`) of
        its fine class, its processor class and the whole history."""
        pc = np.searchsorted(PROC_EDGES, np.asarray(procs) - 1, side="right")
        rc = np.searchsorted(REQ_EDGES, np.asarray(req_time) - 1, side="right")
        n_fine = (len(PROC_EDGES) + 1) * (len(REQ_EDGES) + 1)
        every = np.full_like(pc, n_fine + len(PROC_EDGES) + 1)
        return np.stack([pc * (len(REQ_EDGES) + 1) + rc, n_fine + pc, every], axis=1)

    def state(self) -> np.ndarray:
        """The state besides the waits, one row per pool (:meth:`pools` order): how many
        waits it holds, its current run of misses, its change points."""
        rows = [(len(p.recent), p.misses, p.changes) for p in self.pools()]
        return np.array(rows, dtype=np.int64)

    def restore(self, state: np.ndarray, waits: list[np.ndarray], size: int) -> None:
        """Set the predictor to a :meth:`state` taken after ``size`` adds; ``waits[k]``: the
        waits pool ``k`` held (the last ``state[k, 0]`` waits of its class, oldest first)."""
        rows = state.tolist()
        for pool, (n, misses, changes), held in zip(self.pools(), rows, waits, strict=True):
            if len(held) != n:
                raise ValueError(f"pool {pool.label!r} held {n} waits; got {len(held)}")
            pool.recent = deque(held.tolist())
            pool.sorted = np.sort(held).tolist()
            pool.misses = misses
            pool.changes = changes
            pool._version += 1
        self.size = size

    def changes(self) -> int:
        """Change points detected over all classes (fine, processor and whole history)."""
        return sum(p.changes for p in self.pools())
