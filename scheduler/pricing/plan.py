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
  submitted at ``now``, the profile's occupied processors as fixed reservations): EASY
  (:mod:`scheduler.cluster.easy`, Lifka 1995), backfilling with a reservation depth K
  (``backfill-k=K``) and a user's policy; it gives exactly the two plans above for ``fcfs``
  and ``conservative`` (= ``backfill-k=inf``) (tests/scheduler/test_pricing_depth.py).

All insert the jobs' blocks into the profile they are given and return the starts in queue
order.  References: thesis §5.1 (Figure 22), §5.3 (Figure 29, CB against AB).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cluster.conservative import plan_in_order
from ..cluster.policy import PolicyError
from ..cluster.profile import Profile
from ..cluster.registry import is_user_policy_name, resolve

__all__ = [
    "PLANNERS", "plan_conservative", "plan_fcfs", "plan_queue", "plan_with_policy", "plannable",
]  # fmt: skip


def plan_conservative(profile: Profile, shapes: Sequence[tuple[int, int]], now: int) -> list[int]:
    """Place ``(processors, duration)`` jobs in queue order, each at its earliest start
    ``>= now`` given the ones before it; their blocks are inserted into ``profile`` (the
    conservative policy's own plan, :func:`~scheduler.cluster.conservative.plan_in_order`)."""
    return plan_in_order(profile, shapes, now)


def plan_fcfs(profile: Profile, shapes: Sequence[tuple[int, int]], now: int) -> list[int]:
    """Place the queue in order, each job at its earliest start no earlier than the job ahead
    of it (no backfilling); their blocks are inserted into ``profile``."""
    return plan_in_order(profile, shapes, now, overtaking=False)


#: the planners that accelerate playing a policy forward (:func:`plan_with_policy`, the
#: reference), by the registry's quote family: the conservative policy's own plan, with and
#: without overtaking; proven equal by tests/scheduler/test_pricing_depth.py.  EASY and depth K
#: are played forward by the simulator (as fast as a planner of their own was)
PLANNERS = {"conservative": plan_conservative, "fcfs": plan_fcfs}


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
            f"pricing plans the queue with {', '.join(PLANNERS)}, easy or backfill-k=K; "
            f"not {policy!r}"
        )
    return plan_with_policy(policy, profile, shapes, now)
