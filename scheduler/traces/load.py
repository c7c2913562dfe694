"""Raising the load of a trace without changing its jobs (thesis §4.7, "load scaling").

* :func:`shifted_copy` — thesis §4.7: take a second copy of the trace shifted by one week and
  submit each of its jobs with probability ``p`` (seeded).  Raising ``p`` raises utilization
  while job sizes, runtimes and estimates keep their distributions.  Copied jobs submitted after
  the original trace's last submission are left out by default (``clip=True``), so the load is
  raised evenly over the original span rather than by a one-week tail.
* :func:`duplicate_jobs` — thesis §5.3: add ``fraction`` × 100 % jobs by duplicating randomly
  chosen jobs (same submit time, runtime, processors and estimate); 0.2 adds about 20 %.

Both return a new :class:`~scheduler.traces.swf.Trace` sorted by submit time; added jobs get new
ids above the original maximum (``SWF field 1``), so schedules stay traceable.  Use
:func:`offered_load` (Parallel Workloads Archive convention, as
:func:`scheduler.traces.stats.trace_summary`) to report the load reached.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .stats import trace_summary
from .swf import SWFHeader, SWFJob, Trace

__all__ = ["WEEK", "DAY", "duplicate_jobs", "first_days", "offered_load", "shifted_copy"]

WEEK = 7 * 86400
DAY = 86400.0


def _rng(seed: int) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return np.random.Generator(np.random.PCG64(int(seed)))


def _rebuild(trace: Trace, jobs: list[SWFJob], note: str) -> Trace:
    jobs.sort(key=lambda j: (j.submit, j.job_id))
    comments = (*trace.header.comments, f" Note: {note}")
    return Trace(header=SWFHeader.from_comments(comments), jobs=tuple(jobs))


def shifted_copy(
    trace: Trace, p: float, *, seed: int, shift: int = WEEK, clip: bool = True
) -> Trace:
    """The trace plus each job of a copy shifted by ``shift`` seconds, kept with probability
    ``p`` (thesis §4.7)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p!r}")
    if shift < 0:
        raise ValueError(f"shift must be >= 0, got {shift!r}")
    jobs = list(trace.jobs)
    if not jobs:
        return trace
    keep = _rng(seed).random(len(jobs)) < p
    last = max(j.submit for j in jobs)
    offset = max(j.job_id for j in jobs)
    added = [
        dataclasses.replace(j, job_id=offset + j.job_id, submit=j.submit + shift)
        for j, k in zip(jobs, keep.tolist(), strict=True)
        if k and (not clip or j.submit + shift <= last)
    ]
    note = f"load scaled: shifted copy (+{shift} s) with p={p}, seed {seed}, {len(added)} jobs"
    return _rebuild(trace, jobs + added, note)


def duplicate_jobs(trace: Trace, fraction: float, *, seed: int) -> Trace:
    """The trace plus duplicates of randomly chosen jobs: each job gets ``floor(fraction)``
    copies and one more with probability ``frac(fraction)`` (thesis §5.3)."""
    if not 0.0 <= fraction <= 10.0:
        raise ValueError(f"fraction must be in [0, 10], got {fraction!r}")
    jobs = list(trace.jobs)
    if not jobs:
        return trace
    whole = int(fraction)
    extra = _rng(seed).random(len(jobs)) < (fraction - whole)
    next_id = max(j.job_id for j in jobs)
    added = []
    for j, e in zip(jobs, extra.tolist(), strict=True):
        for _ in range(whole + int(e)):
            next_id += 1
            added.append(dataclasses.replace(j, job_id=next_id))
    note = f"load scaled: +{fraction:.0%} duplicated jobs, seed {seed}, {len(added)} jobs"
    return _rebuild(trace, jobs + added, note)


def first_days(trace: Trace, days: float) -> Trace:
    """The jobs submitted in the first ``days`` days after the trace's first submission (the
    thesis's "the simulation was limited to the first 30 days", §5.3); ``days = 0``: all.  The
    window is the trace's: its jobs, drop counts and offered load."""
    if not days or not trace.jobs:
        return trace
    end = min(j.submit for j in trace.jobs) + days * DAY
    return dataclasses.replace(trace, jobs=tuple(j for j in trace.jobs if j.submit < end))


def offered_load(trace: Trace, machine_procs: int | None = None) -> float | None:
    """Σ(run × processors) / (machine × span), span from first submit to last end."""
    return trace_summary(trace, machine_procs)["offered_load"]
