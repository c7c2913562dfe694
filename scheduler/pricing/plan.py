"""Plans of a site's queue under its policy, as the pricing algorithm sees them.

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
order.  References: thesis §5.1 (Figure 22), §5.3 (Figure 29, CB against AB).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from ..cluster.conservative import plan_in_order
from ..cluster.policy import PolicyError
from ..cluster.profile import Profile
from ..cluster.registry import is_user_policy_name, resolve

__all__ = [
    "PLANNERS", "plan_conservative", "plan_easy", "plan_fcfs", "plan_queue", "plan_with_policy",
    "plannable",
]  # fmt: skip

_NEVER = float("inf")  # "never short": past the last breakpoint the machine is free
_FAR = np.iinfo(np.int64).max


def plan_conservative(profile: Profile, shapes: Sequence[tuple[int, int]], now: int) -> list[int]:
    """Place ``(processors, duration)`` jobs in queue order, each at its earliest start
    ``>= now`` given the ones before it; their blocks are inserted into ``profile`` (the
    conservative policy's own plan, :func:`~scheduler.cluster.conservative.plan_in_order`)."""
    return plan_in_order(profile, shapes, now)


def plan_fcfs(profile: Profile, shapes: Sequence[tuple[int, int]], now: int) -> list[int]:
    """Place the queue in order, each job at its earliest start no earlier than the job ahead
    of it (no backfilling); their blocks are inserted into ``profile``."""
    return plan_in_order(profile, shapes, now, overtaking=False)


def plan_easy(profile: Profile, shapes: Sequence[tuple[int, int]], now: int) -> list[int]:
    """EASY backfilling of the queue from ``now`` on, jobs running their planned durations;
    their blocks are inserted into ``profile``.  Starts in queue order.

    At an instant only the waiting jobs no wider than the processors free then can backfill:
    they are picked with one array test, and "is ``n`` free over ``[t, t + d)``" is answered
    from the first instant with fewer than ``n`` free, kept per width until a block is
    inserted — the live policy's decisions, without rescanning the queue job by job."""
    m = len(shapes)
    for n, _ in shapes:
        if n > profile.capacity:
            raise ValueError(f"a job of {n} processors never fits {profile.capacity}")
    starts = [-1] * m
    widths = np.fromiter((n for n, _ in shapes), dtype=np.int64, count=m)
    lengths = np.fromiter((d for _, d in shapes), dtype=np.int64, count=m)
    waiting = np.ones(m, dtype=bool)
    left = m
    free_over, reserve = profile.free_over, profile.reserve
    times, free = profile.times, profile.free  # the profile's own lists (reserve edits them)
    t = now
    h = 0  # the head: the first waiting job in queue order
    while left:
        # 1. the head, and each next head, while it fits
        while h < m:
            if not waiting[h]:  # backfilled earlier
                h += 1
                continue
            n, d = shapes[h]
            if free_over(t, t + d) < n:
                break
            reserve(t, t + d, n)
            starts[h] = t
            waiting[h] = False
            left -= 1
            h += 1
        if not left:
            break
        # 2. backfill behind the head's reservation at its shadow time
        hn, hd = shapes[h]
        shadow = profile.earliest_start(hn, hd, t)
        h_end = shadow + hd
        now_free = free[bisect_right(times, t) - 1]  # a job wider than this cannot start at t
        if now_free:
            fit = np.flatnonzero(waiting[h + 1 :] & (widths[h + 1 :] <= now_free)) + (h + 1)
            if len(fit) > 16 and hd > 0:
                # many: drop at once those that do not fit now or would take processors the
                # head needs (the same tests as below, on the profile before this instant's
                # backfills, which only take room away)
                w, end = widths[fit], t + lengths[fit]
                fit = fit[
                    (end <= _first_short(times, free, t, w))
                    & (
                        (end <= shadow)
                        | (np.minimum(end, h_end) <= _first_short(times, free, shadow, w + hn))
                    )
                ]
            short: dict[int, float] = {}  # n -> the first instant >= t with fewer than n free
            beside: dict[int, float] = {}  # n -> the same from the shadow time for n + hn
            for k in fit.tolist():
                n, d = shapes[k]
                if n > now_free:
                    continue
                until = short.get(n)
                if until is None:
                    j = bisect_right(times, t) - 1
                    last = len(times) - 1  # the last step holds the whole machine
                    while j < last and free[j] >= n:
                        j += 1
                    until = short[n] = times[j] if free[j] < n else _NEVER
                end = t + d
                if end > until:
                    continue
                if end > shadow:  # would it take processors the head needs at its shadow?
                    if hd > 0:
                        until = beside.get(n)
                        if until is None:
                            j = bisect_right(times, shadow) - 1
                            last = len(times) - 1
                            need = n + hn
                            while j < last and free[j] >= need:
                                j += 1
                            until = beside[n] = times[j] if free[j] < need else _NEVER
                        if min(end, h_end) > until:
                            continue
                    elif free_over(shadow, shadow) < n + hn:
                        continue
                reserve(t, end, n)
                starts[k] = t
                waiting[k] = False
                left -= 1
                if end > t:  # the block took room from t on (a 0-second job takes none)
                    now_free -= n
                    if not now_free:
                        break
                    short.clear()
                    beside.clear()
        # 3. the next instant the availability changes (a planned end frees processors)
        # (there is one: past the last breakpoint the whole machine is free, and the head
        # would have fitted)
        t = times[bisect_right(times, t)]
    return starts


def _first_short(times: list[int], free: list[int], t: int, widths: np.ndarray) -> np.ndarray:
    """For each width ``n``: the first instant ``>= t`` of a step with fewer than ``n``
    free (the start of the step holding ``t`` when that one has; far away when none has), so
    ``n`` is free over ``[t, b)`` exactly when ``b`` is not after it (``b > t``)."""
    j = bisect_right(times, t) - 1
    low = np.minimum.accumulate(np.asarray(free[j:], dtype=np.int64))  # non-increasing
    at = np.asarray(times[j:], dtype=np.int64)
    k = np.searchsorted(-low, -widths, side="right")  # how many steps have >= n free
    return np.where(k < len(at), at[np.minimum(k, len(at) - 1)], _FAR)


#: the planners that accelerate playing a policy forward (:func:`plan_with_policy`, the
#: reference), by the registry's quote family; proven equal by tests/scheduler/test_pricing*.py
PLANNERS = {"conservative": plan_conservative, "easy": plan_easy, "fcfs": plan_fcfs}


def plannable(policy: str) -> bool:
    """Whether the pricing algorithm can plan a queue under ``policy``: a policy the registry
    gives a quote kernel (fcfs, easy, conservative, backfill-k[=K]), or a user's policy where
    this process may run it (the portal's sandbox: ``user:<sha>``), whose plan is the policy
    itself played forward by the simulator (:func:`plan_with_policy`, no kernel)."""
    try:
        ref = resolve(policy)
    except PolicyError:
        return False
    return ref.quote_kind is not None or is_user_policy_name(ref.entry.name)


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
