"""Reading a running :class:`~scheduler.cluster.Simulator` the way provisioning needs it.

The best-effort baseline submits a workflow into a site's *live* simulation at a submission
time ``T``; the same trace state at ``T`` must serve the provisioned run and the next submission
times, so the workflow goes into a copy (:meth:`Simulator.fork`) instead of replaying the trace
``K`` times.

* :func:`system_jobs` — "the resource with the least number of tasks (running and
  queued)" (thesis §4.9).
"""

from __future__ import annotations

from ..cluster.simulator import Simulator

__all__ = ["system_jobs"]


def system_jobs(sim: Simulator) -> int:
    """Running plus queued jobs: the load the best-effort broker compares (thesis §4.9)."""
    return sim.running_count() + len(sim.queued())
