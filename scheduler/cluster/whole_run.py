"""Whole-run accelerations: a whole replay of FCFS, EASY or conservative backfilling in one
loop, without the event loop's hooks.

Each function here is registered, in :data:`scheduler.cluster.registry.BUILTIN`, against the
reference policy whose decisions it makes (:mod:`.fcfs`, :mod:`.easy`, :mod:`.conservative`),
and is proven equal to it job by job by one differential harness
(tests/scheduler/test_accelerations.py).  The simulator offers a run to them only when it is
plain: from an empty machine, with nothing but the trace (no fixed reservation, no scheduling
interval, nothing submitted on the fly, no ``until``) and a policy that holds no state yet
(:meth:`~scheduler.cluster.policy.Policy.untouched`).

Each takes ``(sim, progress)`` and returns True when it ran the whole replay — leaving the
simulator in the state the event loop would have left — or False, having changed nothing,
when it declines (the compiled build is missing, or an instant does not fit its 64-bit keys).
A cancellation raised by ``progress`` leaves the simulator as it was before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler._native import load as _load_native

__all__ = ["compiled_conservative", "compiled_easy", "compiled_fcfs"]

PROGRESS_EVERY = 8192  # instants between progress callbacks

#: the compiled loops (scheduler/cluster/_loop.py), when a build of that very source exists
_L = _load_native("scheduler.cluster._loop")

Progress = Callable[[float, str], None] | None
#: a :class:`~scheduler.cluster.simulator.Simulator` (the simulator imports the registry, which
#: imports this module: named here without importing it)
Simulator = Any


def _finish(sim: Simulator, start: list[int], series: Any, last: int | None) -> None:
    sim.start[:] = start
    sim._series.extend(series)
    sim._next_arrival = sim._trace_jobs
    sim.busy = 0
    if last is not None:
        sim.now = last


def compiled_fcfs(sim: Simulator, progress: Progress) -> bool:
    """FCFS: without reservations the free count now is all FCFS reads, so the profile is a
    count and the queue two indices (``replay_fcfs`` in scheduler/cluster/_loop.py)."""
    sub = sim.submit_time
    if not (_L.COMPILED and sub and _L.fits(sub[0], sub, sim.runtime, sim.runtime)):
        return False
    start, series, last = _L.replay_fcfs(
        sub, sim.runtime, sim.procs, sim.capacity, progress, PROGRESS_EVERY
    )
    _finish(sim, start, series, last)
    sim.profile.advance(last)  # every block has ended: the profile is one step
    return True


def _profile_loop(loop, sim: Simulator, progress: Progress):  # type: ignore[no-untyped-def]
    if not (_L.COMPILED and _L.fits(sim.now, sim.submit_time, sim.runtime, sim.estimate)):
        return None  # as Python the loop is slower than the event loop: not taken
    profile = sim.profile
    run = _L.Run(
        sim.submit_time, sim.runtime, sim.estimate, sim.procs, *profile.lists(),
        sim.capacity, progress, PROGRESS_EVERY,
    )  # fmt: skip
    start, series, times, free, last, *rest = loop(run)
    # nothing was changed before here: a cancellation from progress leaves the initial state
    _finish(sim, start, series, last)
    profile.load_steps(times, free)  # one step, at the last instant: every block has ended
    return rest


def compiled_easy(sim: Simulator, progress: Progress) -> bool:
    """EASY backfilling in one compiled loop (scheduler/cluster/_loop.py ``run_easy``)."""
    rest = _profile_loop(_L.run_easy, sim, progress)
    if rest is None:
        return False
    sim.policy._examined = rest[0]  # how many queued jobs it had examined
    return True


def compiled_conservative(sim: Simulator, progress: Progress) -> bool:
    """Conservative backfilling in one compiled loop (``run_conservative``)."""
    return _profile_loop(_L.run_conservative, sim, progress) is not None
