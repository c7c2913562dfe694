"""Headline numbers of a trace: size, span, machine and offered load.

Offered load follows the Parallel Workloads Archive convention:
Σ(run × processors) / (machine processors × span), where the span runs from the first submit to
the last end (submit + wait + run, unknown waits counted as 0). Jobs with an unknown runtime or
processor count contribute no work.
"""

from __future__ import annotations

from typing import Any

from .swf import SWFHeader, Trace

__all__ = ["SummarySink", "header_machine", "trace_summary"]


class SummarySink:
    """Accumulates :func:`trace_summary`'s figures job by job, keeping no job: handed to
    :func:`~scheduler.traces.swf.scan_swf` it checks a whole upload in constant memory."""

    __slots__ = (
        "count", "first", "last", "work", "valid", "largest", "widest", "requested", "smallest",
    )  # fmt: skip

    def __init__(self) -> None:
        self.count = self.valid = self.largest = self.widest = self.requested = self.smallest = 0
        self.first: int | None = None
        self.last: int | None = None
        self.work = 0.0

    def __len__(self) -> int:
        return self.count

    def append(self, j) -> None:  # type: ignore[no-untyped-def]  (an SWFJob)
        self.count += 1
        submit = j.submit
        if self.first is None or submit < self.first:
            self.first = submit
        run = j.run if j.run > 0 else 0
        end = submit + (j.wait if j.wait > 0 else 0) + run
        if self.last is None or end > self.last:
            self.last = end
        if j.req_time > 0:
            self.requested += 1
        if j.run >= 0:  # the smallest job a simulation keeps (scheduler.cluster.prepare_jobs)
            width = j.req_procs if j.req_procs > 0 else j.alloc_procs
            if width > 0 and (not self.smallest or width < self.smallest):
                self.smallest = width
        procs = j.procs
        if procs > self.widest:
            self.widest = procs
        if run > 0 and procs > 0:
            self.valid += 1
            self.work += run * procs
            if procs > self.largest:
                self.largest = procs

    def summary(self, machine: int | None) -> dict[str, Any]:
        """The figures, ``machine`` processors (None: unknown)."""
        first = self.first or 0
        last = max(self.last or first, first)
        span = max(last - first, 1)
        return {
            "jobs": self.count,
            "valid_jobs": self.valid,
            "first_submit": int(first),
            "last_end": int(last),
            "span_days": round(span / 86400, 3),
            "machine_procs": int(machine) if machine else None,
            "offered_load": round(self.work / (machine * span), 4) if machine else None,
            "largest_job_procs": int(self.largest),
            # facts a kind's check_facts refuses on at submit
            "jobs_with_requested_time": self.requested,
            "smallest_job_procs": int(self.smallest) or None,
        }


def header_machine(header: SWFHeader, widest_job: int) -> int:
    """The machine size :attr:`Trace.machine_procs` gives (MaxProcs, else MaxNodes, else the
    widest job) without the jobs at hand."""
    return Trace(header=header, jobs=()).machine_procs or max(0, widest_job)


def trace_summary(trace: Trace, machine_procs: int | None = None) -> dict[str, Any]:
    """Return jobs, valid_jobs, first_submit, last_end, span_days, machine_procs,
    offered_load, largest_job_procs, jobs_with_requested_time and smallest_job_procs (the
    narrowest job with a runtime a simulation keeps, by requested processors) for ``trace``
    (machine size from the header unless ``machine_procs`` is given)."""
    sink = SummarySink()
    for j in trace.jobs:
        sink.append(j)
    return sink.summary(machine_procs or trace.machine_procs)
