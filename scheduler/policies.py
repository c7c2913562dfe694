"""Write your own batch scheduling policy: the public API (tutorial: docs/policies.md).

Two kinds of policy, each a class in a plain Python file or a notebook cell:

* :class:`PriorityPolicy` — define ``priority(job, now)`` (higher runs first) and choose
  ``backfill`` (True/False) and ``reservations`` (1: EASY; None: every waiting job);
* :class:`DecisionPolicy` — define ``decide(view)`` returning the jobs to start now.

Run it beside the built-in policies::

    from scheduler.policies import PriorityPolicy, simulate

    class SJF(PriorityPolicy):
        def priority(self, job, now):
            return -job.estimate

    result = simulate("CTC-SP2.swf.gz", policy=SJF, procs=430, estimates="requested")

or ``python -m scheduler simulate TRACE --policy path/to/mine.py:SJF --estimates requested``.

:func:`policy_names` lists the built-in policies; :func:`resolve` checks a policy name the
way a run does (``resolve(text, files=True)`` loads a policy file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .cluster.policy import PolicyError, PolicyRef
from .cluster.registry import BUILTIN, resolve
from .cluster.result import SimulationResult
from .cluster.userpolicy import DecisionPolicy, Job, PriorityPolicy, Running, View

__all__ = [
    "DecisionPolicy",
    "Job",
    "PolicyError",
    "PriorityPolicy",
    "Running",
    "View",
    "compare",
    "policy_names",
    "resolve",
    "simulate",
]


def policy_names() -> list[str]:
    """The built-in policies' names (``backfill-k`` takes ``=K``)."""
    return list(BUILTIN)


def simulate(
    trace: Any,
    policy: str | type | PolicyRef = "easy",
    *,
    procs: int | None = None,
    estimates: str = "requested",
    limit: int | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> SimulationResult:
    """Replay ``trace`` (a path to an SWF file, a parsed trace, or SWF jobs) under ``policy``
    (a built-in name, ``file.py:Class``, or a policy class) on ``procs`` processors (default:
    the trace header's MaxProcs).  Returns the schedule and its summary
    (:class:`~scheduler.cluster.result.SimulationResult`)."""
    from .cluster.simulator import simulate as _simulate  # noqa: PLC0415
    from .traces.swf import read_swf  # noqa: PLC0415

    if isinstance(trace, str | Path):
        trace = read_swf(trace, limit=limit)
        limit = None
    ref = resolve(policy, files=True)
    return _simulate(trace, procs, ref, estimates, limit=limit, progress=progress)


def compare(
    trace: Any, policies: Iterable[str | type | PolicyRef], **options: Any
) -> dict[str, dict[str, Any]]:
    """The summary of each policy on the same trace: ``{policy text: summary}``."""
    refs = [resolve(p, files=True) for p in policies]
    return {r.text: simulate(trace, r, **options).summary() for r in refs}
