"""Refusals a trace's stored summary allows at submit (issue 20, "forms for people").

:meth:`ExperimentKind.check_facts` may only refuse what the run itself would refuse; these are
the refusals every kind that simulates a trace's jobs shares (``prepare_jobs`` keeps a job with
a runtime whose requested processors fit the machine):

* no machine size: ``procs`` is 0 and the trace's header gives none;
* no job fits the machine: the trace's smallest job is wider than ``procs``;
* "requested" estimates on a trace with no requested time (SWF field 9), for the kinds that
  refuse it (pricing, virtual reservations).

A fact missing from the summary (a trace stored before it was recorded) checks nothing.
"""

from __future__ import annotations

from typing import Any

from .schema import ParamError

__all__ = ["check_trace_facts"]


def check_trace_facts(
    fact: dict[str, Any],
    procs: int,
    *,
    estimates: str | None = None,
    procs_field: str = "procs",
    where: str = "the trace",
) -> None:
    """Raise :class:`ParamError` naming the field the run would refuse, given one trace's
    summary ``fact`` and the ``procs`` parameter (0: the trace's machine size)."""
    if not fact or "jobs" not in fact:
        return
    errors: dict[str, str] = {}
    machine = procs or fact.get("machine_procs") or 0
    smallest = fact.get("smallest_job_procs", 0)
    if "machine_procs" in fact and not machine:
        errors[procs_field] = f"{where} has no machine size (no MaxProcs): give the processors"
    elif machine and fact["jobs"] and smallest is None:
        errors[procs_field] = f"{where} has no job with a runtime and processors"
    elif machine and smallest and smallest > machine:
        errors[procs_field] = (
            f"no job of {where} fits {machine:,} processors: its smallest job needs {smallest:,}"
        )
    if estimates == "requested" and fact.get("jobs_with_requested_time") == 0:
        errors["estimates"] = (
            f"{where} has no requested times (SWF field 9 is -1 or 0 everywhere): choose 'accurate'"
        )
    if errors:
        raise ParamError(errors)
