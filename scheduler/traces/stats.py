"""Headline numbers of a trace: size, span, machine and offered load (SPEC §2).

Offered load follows the Parallel Workloads Archive convention:
Σ(run × processors) / (machine processors × span), where the span runs from the first submit to
the last end (submit + wait + run, unknown waits counted as 0). Jobs with an unknown runtime or
processor count contribute no work.
"""

from __future__ import annotations

from typing import Any

from .swf import Trace

__all__ = ["trace_summary"]


def trace_summary(trace: Trace, machine_procs: int | None = None) -> dict[str, Any]:
    """Return jobs, valid_jobs, first_submit, last_end, span_days, machine_procs,
    offered_load and largest_job_procs for ``trace`` (machine size from the header unless
    ``machine_procs`` is given)."""
    machine = machine_procs or trace.machine_procs
    first = min(j.submit for j in trace.jobs)
    last = first
    work = 0.0
    valid = 0
    largest = 0
    for j in trace.jobs:
        run = j.run if j.run > 0 else 0
        end = j.submit + (j.wait if j.wait > 0 else 0) + run
        if end > last:
            last = end
        procs = j.procs
        if run > 0 and procs > 0:
            valid += 1
            work += run * procs
            if procs > largest:
                largest = procs
    span = max(last - first, 1)
    return {
        "jobs": len(trace.jobs),
        "valid_jobs": valid,
        "first_submit": int(first),
        "last_end": int(last),
        "span_days": round(span / 86400, 3),
        "machine_procs": int(machine) if machine else None,
        "offered_load": round(work / (machine * span), 4) if machine else None,
        "largest_job_procs": int(largest),
    }
