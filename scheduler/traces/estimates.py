"""User runtime estimates (SWF field 9, "requested time") for traces that have none.

Implements the model of

    D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling User Runtime Estimates",
    Job Scheduling Strategies for Parallel Processing (JSSPP 2005), LNCS 3834, pp. 1-35.
    https://www.cs.huji.ac.il/labs/parallel/workload/m_tsafrir05/

Users do not pick arbitrary estimates: about 89 % of jobs use one of ~20 popular, round values
(5 min, 15 min, 1 h, ...), the single most popular one being the system's maximal estimate.
The model therefore works in two steps:

1. :func:`estimate_histogram` builds the *distribution* of estimates for ``njobs`` jobs:

   * the number of distinct values ("bins") grows with the number of jobs (a piecewise linear
     function through (0,0), (20,10), (200,20), (1000,35), (10^4,90), (7*10^4,340),
     (2.5*10^5,565));
   * the 20 "head" values are the maximal estimate, the values common to the four logs the
     model was fitted on (5, 10, 15, 20, 30 min; 1, 2, 3, 4, 5, 6, 8, 10, 12, 18 h) below the
     maximum, completed with round multiples (of 200/100/50/10/5/2/1 h, 20/10/5 min) counting
     down from the maximum;
   * head popularity: rank x = 2..20 holds ``14.0491 * exp(-0.177531 x) + 0.462513`` percent of
     the jobs, rank 1 (the maximal estimate) the rest of 89 %;
   * which head value gets which popularity rank is drawn at random, constrained by the
     time-rank -> popularity-rank table observed in the SDSC SP2, CTC SP2, KTH SP2 and SDSC Blue
     Horizon logs (the maximum is always rank 1, a rank must be used no later than the latest
     time rank it had in any of the logs, two draws favour the more popular of the two);
   * the remaining 11 % of jobs spread over the "tail" values: times
     ``max * (a-1) x / (a-x)`` for the relative time rank x (``a = 1 + 12.1039 * bins^-0.6026``),
     rounded to minutes, with popularity ``795.6 * rank^-2.267`` (normalised), matched at random.

2. :func:`assign_estimates` hands those estimates out to jobs so that no job gets an estimate
   shorter than its runtime: jobs sorted by decreasing runtime each draw uniformly from the
   still-unused estimates that are long enough.

Parameter values (all of the above numbers) are those of the authors' reference implementation
``est_model.cc`` / ``est_model.hh`` (Dan Tsafrir), distributed with the paper; this module is an
independent Python re-implementation, not a translation.  Differences, all documented here:

* Randomness comes from a numpy ``Generator`` instead of ``drand48``/``lrand48``/
  ``random_shuffle``, so the numbers differ from the C program's for the same seed (the
  distributions are the same).
* The reference program's optional "user-supplied bins" (site-specific hints) are not
  supported: the model runs in its autonomous mode.
* The C program aborts when the drawn histogram cannot cover the runtimes (e.g. the maximal
  estimate is much smaller than the real one).  Here the estimates that are too short are
  instead raised to the next longer value of the histogram, so an assignment always exists;
  :func:`assign_estimates_report` says how many were raised (0 for the Lublin model's runtimes
  in our tests).
* When the maximal estimate is so small that fewer than 20 head values exist (below ~5 h), the
  C program indexes past its popularity table; here the drawn popularity ranks are re-ranked
  onto the values that exist.
* Ties in "sort the bins by size" are broken by estimate time (the C ``std::sort`` leaves them
  unspecified).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "DEFAULT_MAX_ESTIMATE",
    "EstimateBin",
    "assign_estimates",
    "assign_estimates_report",
    "estimate_histogram",
]

MIN = 60
HOUR = 3600

#: Default maximal estimate: 18 h, the limit of the CTC SP2 batch queues.
DEFAULT_MAX_ESTIMATE = 18 * HOUR

# --- model constants (est_model.cc / est_model.hh, Tsafrir 2005) ----------------------------

#: Number of "head" (most popular) estimate values.
TOP = 20

#: time rank (0 = maximal estimate, then shortest to longest) -> popularity rank, as observed
#: in four logs (columns: SDSC SP2, CTC SP2, KTH SP2, SDSC Blue Horizon).
TIMRNK_TO_POPRNK: tuple[tuple[int, int, int, int], ...] = (
    (3, 1, 1, 1),
    (1, 3, 4, 6),
    (4, 4, 10, 5),
    (17, 2, 14, 3),
    (13, 12, 20, 7),
    (7, 9, 2, 2),
    (8, 8, 3, 18),
    (18, 18, 7, 19),
    (2, 6, 12, 4),
    (6, 7, 6, 11),
    (16, 11, 19, 20),
    (10, 20, 5, 9),
    (5, 16, 18, 10),
    (15, 5, 16, 14),
    (14, 14, 9, 13),
    (19, 13, 17, 16),
    (11, 10, 15, 15),
    (12, 15, 13, 17),
    (9, 17, 8, 8),
    (20, 19, 11, 12),
)

#: Estimates among the top 20 of all four logs (seconds).
EST_JOINT: tuple[int, ...] = (
    5 * MIN,
    15 * MIN,
    10 * MIN,
    20 * MIN,
    30 * MIN,
    1 * HOUR,
    2 * HOUR,
    3 * HOUR,
    4 * HOUR,
    5 * HOUR,
    6 * HOUR,
    8 * HOUR,
    10 * HOUR,
    12 * HOUR,
    18 * HOUR,
)

#: Round steps used (largest first) to complete the head, counting down from the maximum.
EST_ROUND: tuple[int, ...] = (
    200 * HOUR,
    100 * HOUR,
    50 * HOUR,
    10 * HOUR,
    5 * HOUR,
    2 * HOUR,
    1 * HOUR,
    20 * MIN,
    10 * MIN,
    5 * MIN,
)

#: (jobs, distinct estimate values): the piecewise linear model of the number of bins.
BINNUM_LINEAR: tuple[tuple[int, int], ...] = (
    (0, 0),
    (20, 10),
    (200, 20),
    (1000, 35),
    (10000, 90),
    (70000, 340),
    (250000, 565),
)

#: Head popularity size(x) = a * exp(b x) + c percent, for popularity ranks x = 2..20.
BINSIZ_HEAD_PARAMS = (14.0491, -0.177531, 0.462513)
#: Percent of jobs using one of the head values.
BINSIZ_HEAD_SUM = 89.0
#: Tail popularity size(x) = a * x^b (normalised to the remaining 11 %), ranks x >= 21.
BINSIZ_TAIL_PARAMS = (795.6, -2.267)
#: Tail times parameter a = 1 + p * bins^q.
BINTIM_PARAMS = (12.1039, -0.6026)

_FAVOR_SMALL = 2  # draws per random popularity-rank choice; the most popular one is kept
_TAIL_OFFSETS = (0, 30, -30, 20, -20, 10, -10)  # seconds, to avoid colliding estimate values


@dataclass(frozen=True, slots=True)
class EstimateBin:
    """One value of the estimate distribution: ``jobs`` jobs request ``time`` seconds."""

    time: int
    jobs: int


def _cround(x: float) -> int:
    """C ``round()``: halves away from zero (Python's ``round`` rounds halves to even)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def _as_generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        raise ValueError("rng: pass a numpy Generator or an int seed (results must be seeded)")
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)) or rng < 0:
        raise ValueError(f"rng: seed must be a non-negative int, got {rng!r}")
    return np.random.Generator(np.random.PCG64(int(rng)))


def binnum(njobs: int) -> int:
    """Number of distinct estimate values for ``njobs`` jobs (piecewise linear model)."""
    if njobs > BINNUM_LINEAR[-1][0]:
        return BINNUM_LINEAR[-1][1]
    for (x0, y0), (x1, y1) in zip(BINNUM_LINEAR, BINNUM_LINEAR[1:], strict=False):
        if njobs <= x1:
            return y0 + _cround((njobs - x0) * (y1 - y0) / (x1 - x0))
    raise AssertionError("unreachable")


def _head_times(max_est: int) -> list[int]:
    """The head values: [max_est, then the others ascending], at most TOP of them."""
    values = [max_est]
    values.extend(e for e in EST_JOINT[:TOP] if e < max_est)
    missing = max(0, TOP - len(values))
    for step in EST_ROUND:
        if missing == 0:
            break
        start = (max_est // step) * step
        est = start
        while est > 0 and missing > 0:
            if est not in values:
                values.append(est)
                missing -= 1
            est -= step
    return [values[0], *sorted(values[1:])]


def _head_sizes(ntop: int) -> list[float]:
    """Percent of jobs per popularity rank 1..ntop (descending)."""
    a, b, c = BINSIZ_HEAD_PARAMS
    others = [a * math.exp(b * rank) + c for rank in range(2, ntop + 1)]
    first = BINSIZ_HEAD_SUM - sum(others)
    return sorted([first, *others], reverse=True)


def _time_rank_to_popularity(rng: np.random.Generator) -> list[int]:
    """Draw the popularity rank (1..TOP) of each head time rank (0 = maximum)."""
    bound: dict[int, int] = {}  # popularity rank -> latest time rank it may be given at
    for ttr in range(TOP - 1, -1, -1):
        for poprnk in TIMRNK_TO_POPRNK[ttr]:
            bound.setdefault(poprnk, ttr)
    mapping: list[int] = []
    chosen: set[int] = set()
    pool: list[int] = []
    for ttr in range(TOP):
        pool.extend(p for p in TIMRNK_TO_POPRNK[ttr] if p not in chosen)
        poprnk = -1
        if ttr == 0:
            poprnk = 1  # the maximal estimate is the most popular one
        else:
            for pr in range(1, TOP + 1):  # a rank that is due now must be used now
                if bound[pr] <= ttr and pr not in chosen:
                    poprnk = pr
                    break
        if poprnk == -1:
            for _ in range(_FAVOR_SMALL):
                cand = pool[int(rng.integers(len(pool)))]
                if poprnk == -1 or cand < poprnk:
                    poprnk = cand
        mapping.append(poprnk)
        chosen.add(poprnk)
        pool = [p for p in pool if p != poprnk]
    return mapping


def _tail_times(max_est: int, head: set[int], nbins: int, bintim_a: float) -> list[int]:
    taken: set[int] = set()
    out: list[int] = []
    a = bintim_a
    for i in range(1, nbins + 1):
        x = i / nbins
        y = (a - 1.0) * x / (a - x)
        sec = _cround(y * max_est / 60.0) * 60
        for off in _TAIL_OFFSETS:
            s = sec + off
            if s not in taken and s not in head and 0 < s < max_est:
                taken.add(s)
                out.append(s)
                break
    return sorted(out)


def _tail_sizes(nbins: int) -> list[float]:
    a, b = BINSIZ_TAIL_PARAMS
    sizes = [a * float(TOP + 1 + i) ** b for i in range(nbins)]
    total = sum(sizes)
    scale = (100.0 - BINSIZ_HEAD_SUM) / total if total > 0 else 0.0
    return sorted((s * scale for s in sizes), reverse=True)


def _equalize(time2j: dict[int, int], njobs: int) -> dict[int, int]:
    """Make the bin counts (rounded from percentages) add up to ``njobs`` exactly."""
    total = sum(time2j.values())
    diff = abs(njobs - total)
    sign = 1 if njobs > total else -1
    if diff == 0:
        return time2j
    for attempt in range(4):  # proportional, +-1 each, down to 1, down to 0
        if diff == 0:
            break
        cur = diff
        f = diff / total  # (the reference divides by the sum before any adjustment)
        for t in sorted(time2j, key=lambda k: -time2j[k]):  # biggest bins first, ties by time
            n = time2j[t]
            if n == 0:
                continue
            adjust = (math.ceil(f * n), 1, n - 1, n)[attempt]
            if sign < 0:
                adjust = min(adjust, n)
                if adjust == n and attempt != 3:
                    adjust -= 1
            adjust = min(adjust, cur)
            time2j[t] += sign * adjust
            cur -= adjust
            if cur == 0:
                break
        diff = cur
    if diff != 0:  # pragma: no cover - cannot happen: the last attempt can zero any bin
        raise AssertionError("could not equalize the estimate histogram")
    return time2j


def estimate_histogram(
    njobs: int,
    max_estimate: int = DEFAULT_MAX_ESTIMATE,
    *,
    rng: np.random.Generator | int | None = None,
) -> list[EstimateBin]:
    """Draw the distribution of estimates for ``njobs`` jobs (bins sorted by time).

    The counts add up to ``njobs``; every value is at most ``max_estimate`` seconds (which must
    be at least one hour, as in the reference implementation).
    """
    if isinstance(njobs, bool) or not isinstance(njobs, (int, np.integer)) or njobs < 1:
        raise ValueError(f"njobs must be an int >= 1, got {njobs!r}")
    if (
        isinstance(max_estimate, bool)
        or not isinstance(max_estimate, (int, np.integer))
        or max_estimate < HOUR
    ):
        raise ValueError(f"max_estimate must be an int >= {HOUR} seconds, got {max_estimate!r}")
    gen = _as_generator(rng)
    njobs = int(njobs)
    max_est = int(max_estimate)

    nbins = binnum(njobs)
    bintim_a = 1.0 + BINTIM_PARAMS[0] * nbins ** BINTIM_PARAMS[1]

    # head: times, popularity per rank, and the random time-rank -> popularity-rank map
    head_t = _head_times(max_est)
    head_s = _head_sizes(len(head_t))
    ranks = _time_rank_to_popularity(gen)[: len(head_t)]
    if len(head_t) < TOP:  # re-rank the drawn ranks onto the values that exist
        order = sorted(range(len(ranks)), key=lambda i: ranks[i])
        ranks = [0] * len(order)
        for new_rank, i in enumerate(order, start=1):
            ranks[i] = new_rank
    time2p = {t: head_s[r - 1] for t, r in zip(head_t, ranks, strict=True)}

    # tail: times and popularity, matched at random
    n_tail = nbins - len(head_t)
    if n_tail > 0:
        tail_t = _tail_times(max_est, set(time2p), n_tail, bintim_a)
        tail_s = _tail_sizes(len(tail_t))
        perm = gen.permutation(len(tail_t))
        for t, i in zip(tail_t, perm.tolist(), strict=True):
            time2p[t] = tail_s[i]

    time2j = {t: max(1, _cround(p * njobs / 100.0)) for t, p in sorted(time2p.items())}
    time2j = _equalize(time2j, njobs)
    return [EstimateBin(t, n) for t, n in sorted(time2j.items())]


def assign_estimates_report(
    runtimes: Sequence[int],
    *,
    max_estimate: int = DEFAULT_MAX_ESTIMATE,
    rng: np.random.Generator | int | None = None,
) -> tuple[list[int], int]:
    """Like :func:`assign_estimates`, also returning how many estimates had to be raised
    because the drawn histogram could not cover the runtimes (see the module notes)."""
    n = len(runtimes)
    if n == 0:
        return [], 0
    runs = [int(r) for r in runtimes]
    too_long = sum(1 for r in runs if r > max_estimate)
    if too_long:
        raise ValueError(
            f"runtimes: {too_long} runtime(s) exceed max_estimate={max_estimate}; "
            "truncate them first (a job cannot run past its maximal request)"
        )
    gen = _as_generator(rng)
    hist = estimate_histogram(n, max_estimate, rng=gen)
    values = sorted(b.time for b in hist)
    ests: list[int] = []
    for b in sorted(hist, key=lambda b: -b.time):
        ests.extend([b.time] * b.jobs)

    order = sorted(range(n), key=lambda i: -runs[i])  # jobs by decreasing runtime (stable)
    sruns = [runs[i] for i in order]

    # feasibility repair (the reference program aborts instead)
    raised = 0
    for k in range(n):
        if sruns[k] > ests[k]:
            ests[k] = values[bisect.bisect_left(values, sruns[k])]
            raised += 1

    # each job, longest first, draws uniformly among the unused estimates >= its runtime
    out = [0] * n
    draws = gen.random(n).tolist()
    hi = 0
    for j in range(n):
        r = sruns[j]
        if hi < j:
            hi = j
        while hi < n - 1 and r <= ests[hi + 1]:
            hi += 1
        k = j + int(draws[j] * (hi - j + 1))
        if k > hi:  # guard against draws[j]*len rounding up
            k = hi
        est = ests[k]
        ests[k] = ests[j]
        ests[j] = est
        if est < r:  # pragma: no cover - excluded by the repair above
            raise AssertionError("estimate shorter than runtime")
        out[order[j]] = est
    return out, raised


def assign_estimates(
    runtimes: Sequence[int],
    *,
    max_estimate: int = DEFAULT_MAX_ESTIMATE,
    rng: np.random.Generator | int | None = None,
) -> list[int]:
    """Draw a model estimate for each runtime (same order), never shorter than the runtime.

    ``runtimes`` must not exceed ``max_estimate`` (truncate them first, as the reference
    implementation does).  ``rng`` is a numpy Generator or an int seed.
    """
    return assign_estimates_report(runtimes, max_estimate=max_estimate, rng=rng)[0]
