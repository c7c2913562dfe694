"""Plans of a site's queue under its policy, as the pricing algorithm sees them (SPEC §5).

Figure 22 of the thesis prices a slot by scheduling the queued best-effort jobs with the site's
policy π twice — without and with the slot — and comparing their start times.  Both plans start
from the *base* profile: running jobs (their blocks up to their planned ends) and the fixed
reservations already granted; queued jobs hold no block in it.  Jobs are assumed to run for
their planned duration (the scheduler's estimate) and nothing new arrives: the plan is what the
site can promise now.

* :func:`plan_conservative` — conservative backfilling from scratch: each queued job, in queue
  order, at its earliest start (the profile's ``earliest_start``).
* :func:`plan_fcfs` — first come first served: the same, but no job starts before the one
  ahead of it.
* :func:`plan_with_policy` — any policy of the cluster simulator played forward (the queue
  submitted at ``now``, the profile's occupied processors as fixed reservations): used for
  backfilling with a reservation depth K (``backfill-k=K``); it gives exactly the three plans
  above for ``fcfs``, ``easy`` (= ``backfill-k=1``) and ``conservative`` (= ``backfill-k=inf``)
  (tests/scheduler/test_pricing_depth.py).
* :func:`plan_easy` — EASY backfilling played forward: at every instant the availability
  changes, start the head of the queue while it fits, then backfill later jobs that fit now and
  do not delay the head's reservation at its shadow time — the live policy's rules
  (:mod:`scheduler.cluster.easy`) on a copy of the profile.

Both insert the jobs' blocks into the profile they are given and return the starts in queue
order.  References: thesis §5.1 (Figure 22), §5.3 (Figure 29, CB against AB); SPEC §2, §5.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from ..cluster.depth import parse_depth_name
from ..cluster.profile import Profile

__all__ = [
    "PLANNERS", "plan_conservative", "plan_easy", "plan_fcfs", "plan_queue", "plan_with_policy",
    "plannable",
]  # fmt: skip


def plan_conservative(profile: Profile, shapes: Sequence[tuple[int, int]], now: int) -> list[int]:
    """Place ``(processors, duration)`` jobs in queue order, each at its earliest start
    ``>= now`` given the ones before it; their blocks are inserted into ``profile``."""
    earliest, reserve = profile.earliest_start, profile.reserve
    out = []
    for n, d in shapes:
        s = earliest(n, d, now)
        if s is None:
            raise ValueError(f"a job of {n} processors never fits {profile.capacity}")
        reserve(s, s + d, n)
        out.append(s)
    return out


def plan_fcfs(profile: Profile, shapes: Sequence[tuple[int, int]], now: int) -> list[int]:
    """Place the queue in order, each job at its earliest start no earlier than the job ahead
    of it (no backfilling); their blocks are inserted into ``profile``."""
    earliest, reserve = profile.earliest_start, profile.reserve
    out = []
    floor = now
    for n, d in shapes:
        s = earliest(n, d, floor)
        if s is None:
            raise ValueError(f"a job of {n} processors never fits {profile.capacity}")
        reserve(s, s + d, n)
        out.append(s)
        floor = s
    return out


def plan_easy(profile: Profile, shapes: Sequence[tuple[int, int]], now: int) -> list[int]:
    """EASY backfilling of the queue from ``now`` on, jobs running their planned durations;
    their blocks are inserted into ``profile``.  Starts in queue order."""
    m = len(shapes)
    for n, _ in shapes:
        if n > profile.capacity:
            raise ValueError(f"a job of {n} processors never fits {profile.capacity}")
    starts = [-1] * m
    queue = list(range(m))
    free_over, reserve = profile.free_over, profile.reserve
    times = profile.times
    t = now
    while queue:
        # 1. the head, and each next head, while it fits
        h = 0
        while h < len(queue):
            n, d = shapes[queue[h]]
            if free_over(t, t + d) < n:
                break
            reserve(t, t + d, n)
            starts[queue[h]] = t
            h += 1
        del queue[:h]
        if not queue:
            break
        # 2. backfill behind the head's reservation at its shadow time
        hn, hd = shapes[queue[0]]
        shadow = profile.earliest_start(hn, hd, t)
        h_end = shadow + hd
        kept = [queue[0]]
        for k in queue[1:]:
            n, d = shapes[k]
            end = t + d
            if free_over(t, end) < n or (
                end > shadow and free_over(shadow, min(end, h_end)) < n + hn
            ):
                kept.append(k)
                continue
            reserve(t, end, n)
            starts[k] = t
        queue = kept
        # 3. the next instant the availability changes (a planned end frees processors)
        # (there is one: past the last breakpoint the whole machine is free, and the head
        # would have fitted)
        t = times[bisect_right(times, t)]
    return starts


PLANNERS = {"conservative": plan_conservative, "easy": plan_easy, "fcfs": plan_fcfs}


def plannable(policy: str) -> bool:
    """Whether the pricing algorithm can plan a queue under ``policy``: fcfs, easy,
    conservative, or backfilling with a reservation depth (``backfill-k[=K]``)."""
    if policy in PLANNERS:
        return True
    try:
        return parse_depth_name(policy) is not False
    except ValueError:
        return False


def plan_with_policy(
    policy: str, profile: Profile, shapes: Sequence[tuple[int, int]], now: int
) -> list[int]:
    """The queue planned by the cluster simulator's own ``policy``, played forward from
    ``now``: every job submitted at ``now`` in queue order and running its planned duration,
    the processors ``profile`` holds from ``now`` on as fixed reservations.  Their blocks are
    inserted into ``profile``; starts in queue order."""
    from ..cluster.jobs import Reservation, SimJob
    from ..cluster.simulator import Simulator

    cap = profile.capacity
    for n, _ in shapes:
        if n > cap:
            raise ValueError(f"a job of {n} processors never fits {cap}")
    times, free = profile.times, profile.free
    held = []
    for i in range(len(times) - 1):  # past the last breakpoint the machine is free
        used, a, b = cap - free[i], max(times[i], now), times[i + 1]
        if used > 0 and b > a:
            held.append(Reservation(a, b - a, used))
    jobs = [SimJob(k, k, now, d, d, n) for k, (n, d) in enumerate(shapes)]
    sim = Simulator(jobs, cap, policy, reservations=held, origin=now)
    sim.run()
    starts = list(sim.start)
    for (n, d), s in zip(shapes, starts, strict=True):
        profile.reserve(s, s + d, n)
    return starts


def plan_queue(
    policy: str, profile: Profile, shapes: Sequence[tuple[int, int]], now: int
) -> list[int]:
    """The plan of ``policy`` (see :func:`plannable`) for the queue ``shapes``."""
    planner = PLANNERS.get(policy)
    if planner is not None:
        return planner(profile, shapes, now)
    if not plannable(policy):
        raise ValueError(
            f"pricing plans the queue with {', '.join(PLANNERS)} or backfill-k=K; not {policy!r}"
        )
    return plan_with_policy(policy, profile, shapes, now)
