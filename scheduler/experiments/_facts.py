"""Refusals a trace's stored summary allows at submit.

:meth:`ExperimentKind.check_facts` may only refuse what the run itself would refuse; these are
the refusals every kind that simulates a trace's jobs shares (``prepare_jobs`` keeps a job with
a runtime whose requested processors fit the machine):

* no machine size: ``procs`` is 0 and the trace's header gives none;
* no job fits the machine: the trace's smallest job is wider than ``procs``;
* "requested" estimates on a trace with no requested time (SWF field 9), for the kinds that
  refuse it (pricing, virtual reservations);
* a window past the trace's end: "first days only" longer than the trace spans (pricing) or
  "first jobs only" more than it has (cluster-sim).  The run would not fail but quietly
  simulate the whole trace while the page says "first 400 days": a value that cannot mean what
  it says is refused at the door, in the field's units.

A fact missing from the summary (a trace stored before it was recorded) checks nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .schema import ParamError

__all__ = ["check_estimates", "check_trace_facts", "check_window"]


def check_trace_facts(
    fact: dict[str, Any],
    procs: int,
    *,
    estimates: str | None = None,
    procs_field: str = "procs",
    where: str = "the trace",
    first_days: float = 0.0,
    first_jobs: int = 0,
) -> None:
    """Raise :class:`ParamError` naming the field the run would refuse, given one trace's
    summary ``fact`` and the ``procs`` parameter (0: the trace's machine size); with
    ``first_days`` / ``first_jobs`` also a window past the trace's end (:func:`check_window`)."""
    if not fact or "jobs" not in fact:
        return
    errors: dict[str, str] = _window_errors(fact, first_days, first_jobs, "days", "limit", where)
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


def check_window(
    fact: dict[str, Any],
    *,
    first_days: float = 0.0,
    first_jobs: int = 0,
    days_field: str = "days",
    jobs_field: str = "limit",
    where: str = "the trace",
) -> None:
    """Raise :class:`ParamError` when "the first ``first_days`` days" or "the first
    ``first_jobs`` jobs" of a trace reach past its end (0: the whole trace, always fine).

    The span is the trace's summary ``span_days`` (first submission to the last job's end), so
    a window is refused only when it certainly covers the whole trace."""
    errors = _window_errors(fact, first_days, first_jobs, days_field, jobs_field, where)
    if errors:
        raise ParamError(errors)


def check_estimates(estimates: str, jobs: Iterable[Any]) -> None:
    """The run's own refusal of "requested" estimates when no job of the trace requests a time
    (SWF field 9), which :func:`check_trace_facts` mirrors at submit."""
    if estimates == "requested" and not any(j.req_time > 0 for j in jobs):
        raise ParamError({
            "estimates": "the trace has no requested times (SWF field 9 is -1 or 0 "
            "everywhere): choose 'accurate'"
        })  # fmt: skip


def _window_errors(
    fact: dict[str, Any],
    first_days: float,
    first_jobs: int,
    days_field: str,
    jobs_field: str,
    where: str,
) -> dict[str, str]:
    errors: dict[str, str] = {}
    span = fact.get("span_days") if fact else None
    if first_days and span is not None and first_days > span:
        errors[days_field] = (
            f"{where} spans {_days(span)} (first submission to last job's end): the first "
            f"{_days(first_days)} would be all of it; give at most {_days(span)}, or 0 for "
            "the whole trace"
        )
    jobs = fact.get("jobs") if fact else None
    if first_jobs and jobs is not None and first_jobs > jobs:
        errors[jobs_field] = (
            f"{where} has {jobs:,} jobs: the first {first_jobs:,} would be all of them; give at "
            "most that, or 0 for every job"
        )
    return errors


def _days(value: float) -> str:
    """Days for people: '335.6 days', '1 day', '0.5 days'."""
    text = f"{value:,.1f}".removesuffix(".0")
    return f"{text} day" if text == "1" else f"{text} days"
