"""Synthetic rigid-job workloads from the Lublin & Feitelson model.

Model:
    U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling the
    characteristics of rigid jobs", J. Parallel Distrib. Comput. 63(11):1105-1122, 2003.

Parameter values and the structure of the algorithm follow the authors' reference program
``m_lublin99.c`` as published in the Parallel Workloads Archive
(https://www.cs.huji.ac.il/labs/parallel/workload/m_lublin99/m_lublin99.c).  The constants below
were read from a public copy of that program and cross-checked against GridSim's port
(``gridsim.parallel.util.WorkloadLublin99``, M. Dias de Assuncao), which carries the same
values.  This module is an independent Python implementation, not a translation.

The model, per job class (batch / interactive):

* **Size.**  With probability ``serial_prob`` the job is serial (1 processor).  Otherwise
  ``log2(size)`` is drawn from a *two-stage uniform*: uniform on ``[ulow, umed]`` with
  probability ``uprob``, else uniform on ``[umed, uhi]``; with probability ``pow2_prob`` (of all
  jobs, drawn with the same uniform as the serial test) it is rounded to an integer, giving a
  power of two; the size is ``round(2 ** x)``.
* **Runtime.**  ``ln(runtime)`` follows a *hyper-gamma*: gamma(a1, b1) with probability
  ``p = pa * size + pb`` (clipped to [0, 1]), else gamma(a2, b2); so bigger jobs run longer.
  Draws above ``ln(runtime) = 12`` (about 45 h) are redrawn; runtime = ``floor(exp(x))`` >= 1 s.
* **Arrivals.**  The day has 48 half-hour buckets whose relative arrival rates ("points") are
  the probabilities of a gamma(anum, bnum) distribution over bucket numbers, cyclically shifted
  so that the fitted day starts at bucket 11 (``CYCLIC_DAY_START``; the program applies it in
  bucket units), normalised to mean 1.  Each inter-arrival draws ``g ~ gamma(aarr * arar,
  barr)`` (redrawn above 13, i.e. ~5 days) and spends ``exp(g) / 1800`` points walking through
  the buckets: a bucket with weight w costs w points, so busy (daytime) buckets pass slowly
  and receive many arrivals, quiet (night) buckets pass quickly.  The fraction of the current
  bucket already used is carried over from one arrival to the next.
* With both classes, each class has its own arrival stream and the next job is the one of the
  class whose next arrival comes first (interactive on ties, as in the program).

Machine size: the published parameters describe a 128-processor machine (``UHI = 7``).  For
``procs`` processors, ``uhi`` and ``umed`` are shifted by ``log2(procs) - 7`` (for batch jobs
this gives ``umed = uhi - 2``, inside the ``[uhi - 3.5, uhi - 1.5]`` range the program's notes
recommend); ``ulow`` stays (smallest parallel job 2 processors) but is clipped to
``[0, umed]`` on small machines.  A power-of-two size above ``procs`` (possible when ``procs``
is not a power of two) is halved.  ``pa`` (the size-runtime correlation) is used unchanged.

Choices of this implementation (documented here and in :func:`generate_lublin99`):

* Job classes: ``job_types="batch"`` (default) generates the model's batch jobs only (the
  workloads GridPortal simulates are batch queues); ``"both"`` merges batch and interactive
  jobs as the program does with ``INCLUDE_JOBS_TYPE = 1``; ``"typeless"`` uses the program's
  "whole sample" parameter set (``INCLUDE_JOBS_TYPE = 0``).
* SWF fields: queue (field 15) is 1 for batch and 0 for interactive jobs (SWF's convention
  for interactive; the program writes its job type there too), -1 for typeless jobs;
  user/group/app/partition are -1 (the model has no users); wait is -1; status is 1.
* Requested times (field 9): the model has none.  They are drawn with the Tsafrir, Etsion &
  Feitelson (2005) estimates model (:mod:`scheduler.traces.estimates`) with a maximal estimate
  of 18 h by default.  Runtimes longer than the maximal estimate (about 0.5 % of batch jobs
  with the 18 h default) are cut to it, as the estimates model's reference program does: a
  job cannot run past its request.
* Randomness: numpy ``Generator(PCG64)`` streams derived from ``seed`` via ``SeedSequence``
  (one per quantity), and numpy's gamma sampler instead of the program's (Jain's method via
  ``drand48``): same distributions, different numbers.  Submit times are kept as floats and
  floored on output (the program truncates at every step, losing < 1 s per job).
* The day cycle is aligned to wall-clock time: ``UnixStartTime`` is midnight UTC and the
  arrival process starts at the time of day of ``start_time`` (the program's ``START`` hour,
  0 = midnight, generalised to any second).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .estimates import DEFAULT_MAX_ESTIMATE, assign_estimates
from .swf import SWFHeader, SWFJob, Trace

__all__ = [
    "BATCH",
    "DEFAULT_UNIX_START_TIME",
    "INTERACTIVE",
    "TYPELESS",
    "LublinParams",
    "generate_lublin99",
]

#: 2002-01-01 00:00:00 UTC: the default ``UnixStartTime`` (midnight, so hour-of-day analyses
#: of ``submit`` see the model's day cycle).
DEFAULT_UNIX_START_TIME = 1009843200

SECONDS_IN_BUCKET = 1800  # 48 half-hour buckets per day
BUCKETS = 48
CYCLIC_DAY_START = 11  # first bucket number of the fitted day (see module notes)
TOO_MUCH_TIME = 12.0  # max ln(runtime): exp(12) s ~ 45 h
TOO_MUCH_ARRIVE_TIME = 13.0  # max ln(inter-arrival): exp(13) s ~ 5 days
REFERENCE_UHI = 7.0  # the published parameters are for 2**7 = 128 processors


@dataclass(frozen=True, slots=True)
class LublinParams:
    """One job class of the model (names as in ``m_lublin99.c``, lower case)."""

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


#: Batch jobs (``*_BATCH`` constants of m_lublin99.c).
BATCH = LublinParams(
    serial_prob=0.2927,
    pow2_prob=0.6686,
    ulow=1.2,
    umed=5.0,
    uhi=7.0,
    uprob=0.875,
    a1=6.57,
    b1=0.823,
    a2=639.1,
    b2=0.0156,
    pa=-0.003,
    pb=0.6986,
    aarr=6.0415,
    barr=0.8531,
    anum=6.1271,
    bnum=5.2740,
    arar=1.0519,
)

#: Interactive jobs (``*_ACTIVE`` constants; largest interactive job 2**5.5 ~ 45 processors).
INTERACTIVE = LublinParams(
    serial_prob=0.1541,
    pow2_prob=0.625,
    ulow=1.0,
    umed=3.0,
    uhi=5.5,
    uprob=0.705,
    a1=3.8351,
    b1=0.6605,
    a2=7.073,
    b2=0.6856,
    pa=-0.0118,
    pb=0.9156,
    aarr=6.5510,
    barr=0.6621,
    anum=8.9186,
    bnum=3.6680,
    arar=0.9797,
)

#: The "whole sample" parameters, used when job types are not distinguished.
TYPELESS = LublinParams(
    serial_prob=0.244,
    pow2_prob=0.576,
    ulow=0.8,
    umed=4.5,
    uhi=7.0,
    uprob=0.86,
    a1=4.2,
    b1=0.94,
    a2=312.0,
    b2=0.03,
    pa=-0.0054,
    pb=0.78,
    aarr=10.2303,
    barr=0.4871,
    anum=8.1737,
    bnum=3.9631,
    arar=1.0225,
)

_QUEUE = {"batch": 1, "interactive": 0, "typeless": -1}


# --------------------------------------------------------------------------------------------
# The gamma distribution function (for the daily-cycle weights)
# --------------------------------------------------------------------------------------------


def _gamma_p(a: float, x: float) -> float:
    """Regularised lower incomplete gamma function P(a, x) (series / continued fraction)."""
    if x <= 0.0:
        return 0.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    eps = 1e-14
    if x < a + 1.0:
        term = total = 1.0 / a
        denom = a
        for _ in range(10_000):
            denom += 1.0
            term *= x / denom
            total += term
            if abs(term) < abs(total) * eps:
                break
        return total * math.exp(log_prefix)
    # Q(a, x) by its continued fraction, evaluated with the modified Lentz method
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return 1.0 - math.exp(log_prefix) * h


def _gamma_cdf(x: float, shape: float, scale: float) -> float:
    return _gamma_p(shape, x / scale)


def bucket_weights(params: LublinParams) -> list[float]:
    """Relative arrival rate of each half-hour of the day (index 0 = 00:00-00:30), mean 1."""
    w = [0.0] * BUCKETS
    for i in range(CYCLIC_DAY_START, BUCKETS + CYCLIC_DAY_START):
        idx = (i - 1) % BUCKETS
        w[idx] = _gamma_cdf(i + 0.5, params.anum, params.bnum) - _gamma_cdf(
            i - 0.5, params.anum, params.bnum
        )
    mean = sum(w) / BUCKETS
    return [v / mean for v in w]


# --------------------------------------------------------------------------------------------
# Arrival process
# --------------------------------------------------------------------------------------------


class _ArrivalStream:
    """The arrival process of one job class (times in seconds from the workload start)."""

    def __init__(self, params: LublinParams, rng: np.random.Generator, start_tod: int) -> None:
        self._rng = rng
        self._shape = params.aarr * params.arar
        self._scale = params.barr
        self._w = bucket_weights(params)
        self._bucket = (start_tod // SECONDS_IN_BUCKET) % BUCKETS
        frac = (start_tod % SECONDS_IN_BUCKET) / SECONDS_IN_BUCKET
        self._remainder = frac  # fraction of the current bucket already elapsed
        self._points = frac * self._w[self._bucket]
        self._time = 0.0
        self._buf: list[float] = []
        self._pos = 0
        self.next_time = self._advance()

    def _next_points(self) -> float:
        while self._pos >= len(self._buf):
            g = self._rng.gamma(self._shape, self._scale, size=4096)
            g = g[g <= TOO_MUCH_ARRIVE_TIME]  # the program redraws such values
            self._buf = (np.exp(g) / SECONDS_IN_BUCKET).tolist()
            self._pos = 0
        value = self._buf[self._pos]
        self._pos += 1
        return value

    def _advance(self) -> float:
        w = self._w
        bucket = self._bucket
        points = self._points + self._next_points()
        step = 0.0
        while points > w[bucket]:  # pay for whole buckets while we can
            points -= w[bucket]
            bucket = (bucket + 1) % BUCKETS
            step += SECONDS_IN_BUCKET
        remainder = points / w[bucket]
        step += SECONDS_IN_BUCKET * (remainder - self._remainder)
        self._remainder = remainder
        self._points = points
        self._bucket = bucket
        self._time += step
        return self._time

    def pop(self) -> float:
        """Return the pending arrival time and draw the following one."""
        t = self.next_time
        self.next_time = self._advance()
        return t


# --------------------------------------------------------------------------------------------
# Sizes and runtimes
# --------------------------------------------------------------------------------------------


def _size_range(params: LublinParams, procs: int) -> tuple[float, float, float]:
    """(ulow, umed, uhi) of the two-stage uniform on log2(size) for a ``procs`` machine."""
    top = math.log2(procs)
    shift = top - REFERENCE_UHI
    uhi = min(max(params.uhi + shift, 0.0), top)
    umed = min(max(params.umed + shift, 0.0), uhi)
    ulow = min(max(params.ulow, 0.0), umed)
    return ulow, umed, uhi


def _sizes(params: LublinParams, procs: int, n: int, rng: np.random.Generator) -> np.ndarray:
    ulow, umed, uhi = _size_range(params, procs)
    u = rng.random(n)
    first_stage = rng.random(n) <= params.uprob
    x = rng.random(n)
    par = np.where(first_stage, ulow + x * (umed - ulow), umed + x * (uhi - umed))
    serial = u <= params.serial_prob
    pow2 = ~serial & (u <= params.serial_prob + params.pow2_prob)
    par = np.where(pow2, np.floor(par + 0.5), par)
    size = np.floor(np.exp2(par) + 0.5)
    over = pow2 & (size > procs)  # rounding up log2 can pass a non-power-of-two machine
    size = np.where(over, np.exp2(par - 1.0), size)
    size = np.where(serial, 1.0, size)
    return np.clip(size, 1, procs).astype(np.int64)


def _runtimes(params: LublinParams, sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n = len(sizes)
    p = np.clip(params.pa * sizes + params.pb, 0.0, 1.0)
    hg = np.empty(n)
    todo = np.arange(n)
    while len(todo):
        first = rng.random(len(todo)) <= p[todo]
        g = np.where(
            first,
            rng.gamma(params.a1, params.b1, size=len(todo)),
            rng.gamma(params.a2, params.b2, size=len(todo)),
        )
        ok = g <= TOO_MUCH_TIME
        hg[todo[ok]] = g[ok]
        todo = todo[~ok]
    return np.maximum(np.floor(np.exp(hg)), 1.0).astype(np.int64)


# --------------------------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------------------------


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def generate_lublin99(
    *,
    jobs: int,
    procs: int,
    seed: int,
    start_time: int = 0,
    job_types: Literal["batch", "both", "typeless"] = "batch",
    max_estimate: int = DEFAULT_MAX_ESTIMATE,
    unix_start_time: int = DEFAULT_UNIX_START_TIME,
) -> Trace:
    """Generate ``jobs`` jobs of the Lublin & Feitelson (2003) model for a ``procs`` machine.

    Same arguments give the same trace.  ``start_time`` is added to every submit time (the
    first job arrives one inter-arrival time after it) and sets the time of day the arrival
    process starts at (``unix_start_time`` is midnight UTC by default).  ``job_types`` selects
    batch jobs only (default), batch and interactive jobs, or the typeless parameter set.
    Requested times come from the Tsafrir et al. (2005) estimates model with maximal estimate
    ``max_estimate`` seconds (runtimes are cut to it).  See the module docstring for details.
    """
    jobs = _check_int("jobs", jobs, 1)
    procs = _check_int("procs", procs, 1)
    seed = _check_int("seed", seed, 0)
    start_time = _check_int("start_time", start_time, 0)
    max_estimate = _check_int("max_estimate", max_estimate, 3600)
    unix_start_time = _check_int("unix_start_time", unix_start_time, 0)
    if job_types not in ("batch", "both", "typeless"):
        raise ValueError(f"job_types must be 'batch', 'both' or 'typeless', got {job_types!r}")

    s_arr_batch, s_arr_inter, s_size, s_run, s_est = np.random.SeedSequence(seed).spawn(5)

    def gen(ss: np.random.SeedSequence) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(ss))

    start_tod = (unix_start_time + start_time) % 86400

    # arrivals and job classes
    if job_types == "both":
        batch = _ArrivalStream(BATCH, gen(s_arr_batch), start_tod)
        inter = _ArrivalStream(INTERACTIVE, gen(s_arr_inter), start_tod)
        times = np.empty(jobs)
        kinds: list[str] = []
        for i in range(jobs):
            if batch.next_time < inter.next_time:
                times[i] = batch.pop()
                kinds.append("batch")
            else:
                times[i] = inter.pop()
                kinds.append("interactive")
        classes = {"batch": BATCH, "interactive": INTERACTIVE}
    else:
        params = BATCH if job_types == "batch" else TYPELESS
        stream = _ArrivalStream(params, gen(s_arr_batch), start_tod)
        times = np.array([stream.pop() for _ in range(jobs)])
        kinds = [job_types] * jobs
        classes = {job_types: params}
    kind_arr = np.array(kinds)

    # sizes and runtimes, per class
    sizes = np.empty(jobs, dtype=np.int64)
    runs = np.empty(jobs, dtype=np.int64)
    rng_size, rng_run = gen(s_size), gen(s_run)
    for name, params in classes.items():
        mask = kind_arr == name
        count = int(mask.sum())
        if count == 0:
            continue
        sz = _sizes(params, procs, count, rng_size)
        sizes[mask] = sz
        runs[mask] = _runtimes(params, sz, rng_run)

    cut = int((runs > max_estimate).sum())
    runs = np.minimum(runs, max_estimate)
    run_list = runs.tolist()
    estimates = assign_estimates(run_list, max_estimate=max_estimate, rng=gen(s_est))

    submits = (np.floor(times).astype(np.int64) + start_time).tolist()
    size_list = sizes.tolist()
    queues = [_QUEUE[k] for k in kinds]
    rows = zip(range(1, jobs + 1), submits, run_list, size_list, estimates, queues, strict=True)
    job_list = tuple(
        SWFJob(i, s, -1, r, p, -1, -1, p, e, -1, 1, -1, -1, -1, q, -1, -1, -1)
        for i, s, r, p, e, q in rows
    )

    header = {
        "Version": "2.2",
        "Computer": "synthetic (Lublin & Feitelson 2003 model)",
        "Installation": "GridPortal",
        "Acknowledge": "workload model: Uri Lublin and Dror G. Feitelson; runtime estimates "
        "model: Dan Tsafrir, Yoav Etsion and Dror G. Feitelson",
        "Information": "https://www.cs.huji.ac.il/labs/parallel/workload/m_lublin99/",
        "MaxJobs": str(jobs),
        "MaxRecords": str(jobs),
        "Preemption": "No",
        "UnixStartTime": str(unix_start_time),
        "TimeZoneString": "UTC",
        "MaxNodes": str(procs),
        "MaxProcs": str(procs),
        "MaxRuntime": str(max_estimate),
        "AllowOveruse": "No",
        "Note": f"generated by GridPortal lublin99 model, seed {seed}",
    }
    notes = [
        f" Note: job_types={job_types}, procs={procs}, start_time={start_time}; queue 1 = batch,"
        " 0 = interactive",
        f" Note: requested times from the Tsafrir-Etsion-Feitelson (2005) estimates model,"
        f" max estimate {max_estimate} s; {cut} runtime(s) were cut to it",
    ]
    return Trace(header=SWFHeader.from_fields(header, notes), jobs=job_list)
