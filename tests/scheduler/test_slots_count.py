"""How many slots a plan advertises (thesis §3.1, Figure 4): the level-band cut, counted by
brute force level by level, and the lower bound every set of disjoint slots obeys.

Why it matters: Figure 4's average (CTC 27) is compared with our count.  A slot must
start at every instant where the free processor count rises (the slots alive just before hold
fewer processors), so no way of cutting the same plan into disjoint slots advertises fewer
slots than there are rise instants; the level-band cut adds one only where a fall splits a band.
"""

from __future__ import annotations

from hypothesis import given

from scheduler.cluster import Simulator
from scheduler.slots import advertise_simulator, horizon
from tests.scheduler.test_slots_advertise import SETTINGS, traces


def free_steps(profile, now: int, end: int) -> list[tuple[int, int, int]]:
    return [(a, end if b is None or b > end else b, f) for a, b, f in profile.steps(now, end)]


def maximal_intervals(steps: list[tuple[int, int, int]], level: int) -> set[tuple[int, int]]:
    """The maximal intervals of ``{t : free(t) >= level}``."""
    out, start = set(), None
    for a, _, f in steps:
        if f >= level and start is None:
            start = a
        elif f < level and start is not None:
            out.add((start, a))
            start = None
    if start is not None:
        out.add((start, steps[-1][1]))
    return out


def level_band_count(steps: list[tuple[int, int, int]], capacity: int) -> int:
    """Slots of the level-band cut, by brute force: a band of levels sharing one maximal
    interval is one slot, so a slot begins at level k for each maximal interval of level k
    that level k − 1 does not have."""
    count, below = 0, None
    for k in range(1, capacity + 1):
        here = maximal_intervals(steps, k)
        count += len(here if below is None else here - below)
        below = here
    return count


def rise_instants(steps: list[tuple[int, int, int]]) -> set[int]:
    """The instants where the free count rises (from 0 before ``now``)."""
    previous, rises = 0, set()
    for a, _, f in steps:
        if f > previous:
            rises.add(a)
        previous = f
    return rises


@SETTINGS
@given(traces())
def test_advertised_count_is_the_level_band_count_and_never_below_the_rise_instants(case):
    procs, jobs, resv, at = case
    sim = Simulator(jobs, procs, "conservative", reservations=resv, origin=0)
    sim.run(until=at)
    slots = advertise_simulator(sim, at)
    steps = free_steps(sim.profile, at, horizon(sim.profile, at))
    assert len(slots) == level_band_count(steps, procs)
    rises = rise_instants(steps)
    assert len(slots) >= len(rises)
    # every slot starts where the free count rises (a split band keeps its start)
    assert {s.start for s in slots} == rises
