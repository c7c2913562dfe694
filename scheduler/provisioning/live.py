"""Hooks on a running :class:`~scheduler.cluster.Simulator` that provisioning needs and the
simulator does not offer (yet): an independent copy of its state, and its load.

* :func:`fork_simulator` — the best-effort baseline submits a workflow into a site's *live*
  simulation at a submission time ``T``; the same trace state at ``T`` must serve the
  provisioned run and the next submission times, so the workflow goes into a copy.  Replaying
  the trace from the start for each submission would cost ``K`` full simulations.
* :func:`running_jobs` — "the resource with the fewest running + queued jobs" (SPEC §4).

Both rely only on the simulator and its policy keeping their state in plain attributes
(lists, dicts, heaps of immutable items, the :class:`~scheduler.cluster.Profile`), which is
true of every policy in :mod:`scheduler.cluster`; a public ``Simulator.fork()`` and
``Simulator.running_count()`` would replace them.
"""

from __future__ import annotations

import copy

from ..cluster.profile import Profile
from ..cluster.simulator import Simulator

__all__ = ["fork_simulator", "running_jobs", "system_jobs"]


def _copy_state(obj: object, memo: dict[int, object]) -> object:
    """A shallow copy of ``obj`` whose containers (lists, dicts, sets, the profile) are
    copied once each: an object shared by the simulator and its policy stays shared."""
    new = copy.copy(obj)
    for name, value in vars(obj).items():
        key = id(value)
        if key in memo:
            setattr(new, name, memo[key])
        elif isinstance(value, Profile | list | dict | set):
            twin = value.copy()
            memo[key] = twin
            setattr(new, name, twin)
    return new


def fork_simulator(sim: Simulator) -> Simulator:
    """An independent copy of ``sim`` (same time, plan, queue and future): running either one
    further leaves the other untouched.  Cost: one copy of each job list (C speed)."""
    memo: dict[int, object] = {}
    new = _copy_state(sim, memo)
    assert isinstance(new, Simulator)
    memo[id(sim)] = new
    new.policy = _copy_state(sim.policy, memo)  # type: ignore[assignment]
    return new


def running_jobs(sim: Simulator) -> int:
    """How many jobs are running at ``sim.now`` (started, not yet completed)."""
    heap = getattr(sim, "_completions", None)
    if isinstance(heap, list):
        return len(heap)
    now = sim.now
    return sum(
        1 for s, r in zip(sim.start, sim.runtime, strict=True) if 0 <= s <= now < s + r
    )  # fallback: a full scan


def system_jobs(sim: Simulator) -> int:
    """Running plus queued jobs: the load the best-effort broker compares (thesis §4.9)."""
    return running_jobs(sim) + len(sim.queued())
