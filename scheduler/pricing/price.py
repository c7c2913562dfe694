"""Adaptive pricing of slots: the externality a reservation causes to queued best-effort jobs
(thesis ch. 5, Figure 22; SPEC §5).

A slot ``(s, n, d)`` — ``n`` processors over ``[s, s + d)`` — may be provisioned when it needs no
running job preempted and overlaps no granted reservation (queued jobs are ignored in deciding
that).  Its price is ``n·d·c + f``: ``c`` per processor-hour (the site's unit cost; the thesis
uses 1 SU) and the additive, adaptive part (Figure 22)::

    1. schedule the queue Q with the site's policy π;           v_q = start of q
    2. add the slot at s;  3. if it does not fit: f = ∞
    4. schedule Q again with π;                                v'_q = start of q
    5. f = Σ_q max(0, v'_q − v_q) · n_q

Both schedules start from the site's base profile (running jobs and reservations), see
:mod:`scheduler.pricing.plan`.  ``f`` is kept exactly, in processor-seconds
(:attr:`Option.delay`), and reported in SU (processor-hours, :attr:`Option.f`).

Queries (thesis eqs. 17–19):

* (17) :meth:`SiteQuote.price` — ``(s, n, d) → f`` (None for ∞);
* (18) :meth:`SiteQuote.options` — ``(n, d) → [(s, c, f)]`` at "now" and every instant where
  the availability of the current plan changes; infeasible starts are dropped; the list always
  holds a start with ``f = 0`` (the end of the plan, when the whole machine is free);
* (19) :meth:`SiteQuote.options_from` — ``(s_min, n, d)``: (18) restricted to ``s ≥ s_min``,
  plus ``s_min`` itself when feasible.

:func:`choose` is the user's choice, eq. 20.

Fast path (exact).  Under conservative backfilling and FCFS a job's start depends only on the
jobs ahead of it.  Adding the slot only removes availability, so a job whose predecessors kept
their starts and whose own block does not meet ``[s, s + d)`` keeps its start too.  Hence
jobs are re-planned only from the first one whose block meets the slot, on a copy of the
no-slot plan's *prefix* profile (base + the blocks of the jobs ahead of it, built once per
state); while no re-planned job has moved, the jobs in between whose blocks miss the slot are
skipped; and a slot that fits into a hole of the no-slot plan costs 0 without re-planning
(thesis ch. 3: advertised slots delay nobody).  Under conservative backfilling a re-planned
job's earliest start is searched only where it can be: before its no-slot start only in
windows meeting the old blocks of the jobs that moved (the only places with more room than
the no-slot plan), else from its no-slot start on; and never before the start of the nearest
job ahead of it that asks no more processors for no longer (the re-plan only takes room away
as it goes, and a window that fits the job fits that one).  The re-plan is one loop over the
profile's lists (:func:`_replan`).  EASY backfilling has no such prefix property (a job's
start depends on later jobs' backfilling) and is re-planned in full.
:meth:`SiteQuote.price_naive` is the literal Figure 22; tests check that both agree.

Cost (issue 21, ``bench/bench_site_pages.py``): a quote re-plans, for every candidate start
whose slot meets the plan, the queue from the first job the slot meets; at 200+ queued jobs
that is ~150 candidates × ~200 jobs, about half of which really move.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..cluster.profile import Profile
from .plan import PLANNERS, plan_queue, plannable

__all__ = ["Option", "SiteQuote", "choose", "SECONDS_PER_SU"]

SECONDS_PER_SU = 3600  # 1 SU = 1 processor-hour


@dataclass(frozen=True, slots=True)
class Option:
    """One answer of query (18)/(19): the slot ``(start, n, d)`` costs ``n·d·c + f``."""

    start: int
    procs: int
    duration: int
    unit_cost: float  # c, SU per processor-hour
    delay: int  # Σ max(0, v' − v)·n over the queued jobs, processor-seconds

    @property
    def f(self) -> float:
        """The additive (adaptive) price, in SU."""
        return self.delay / SECONDS_PER_SU

    @property
    def total(self) -> float:
        """``n·d·c + f`` in SU."""
        return self.procs * self.duration * self.unit_cost / SECONDS_PER_SU + self.f

    def as_json(self) -> dict:
        return {
            "start": self.start,
            "procs": self.procs,
            "duration": self.duration,
            "c": self.unit_cost,
            "f": round(self.f, 6),
            "total": round(self.total, 6),
        }


class SiteQuote:
    """A site at instant ``now``, ready to price slots.

    ``base`` holds the running jobs (to their planned ends) and granted reservations — not the
    queued jobs, whose ``(processors, planned duration)`` are ``shapes`` in queue order.  The
    base is copied; the caller's profile is never changed.
    """

    def __init__(
        self,
        base: Profile,
        shapes: Sequence[tuple[int, int]],
        now: int,
        policy: str = "conservative",
        *,
        unit_cost: float = 1.0,
    ) -> None:
        if not plannable(policy):
            raise ValueError(
                f"policy must be one of {', '.join(PLANNERS)} or backfill-k=K; got {policy!r}"
            )
        if now < base.origin:
            raise ValueError(f"now ({now}) is before the profile's origin ({base.origin})")
        self.base = base.copy()
        self.base.advance(now)
        self.shapes = [(int(n), int(d)) for n, d in shapes]
        self.now = now
        self.policy = policy
        self.unit_cost = unit_cost
        self.capacity = base.capacity
        plan = self.base.copy()
        self.starts = plan_queue(policy, plan, self.shapes, now)  # v_q
        self.plan = plan  # the current plan: base + every queued job's block
        self._prefix: list[Profile] | None = None
        self._instants: list[int] | None = None
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None
        self._below: list[int] | None = None

    @classmethod
    def of(cls, sim, now: int | None = None, *, unit_cost: float = 1.0) -> SiteQuote:  # type: ignore[no-untyped-def]
        """The quote of a live :class:`~scheduler.cluster.simulator.Simulator` at ``now``
        (default its clock; run it with ``run(until=now)`` first), under its own policy."""
        policy = sim.policy
        if hasattr(policy, "base_profile"):  # conservative (and depth K): reserved blocks out
            base = policy.base_profile()
            shapes = (
                policy.queued_shapes()
                if policy.name == "conservative"  # every queued job holds a block
                else [(sim.procs[k], sim.estimate[k]) for k in sim.queued()]  # depth K: all
            )
        else:
            base = sim.profile
            shapes = [(sim.procs[k], sim.estimate[k]) for k in sim.queued()]
        at = sim.now if now is None else now
        if at < sim.now:
            raise ValueError(f"the simulation is already at {sim.now}, after {at}")
        name = policy.name
        if hasattr(policy, "depth") and name != "conservative":  # depth K: name it with its K
            name = f"{name}={'inf' if policy.depth is None else policy.depth}"
        return cls(base, shapes, at, name, unit_cost=unit_cost)

    # ------------------------------------------------------------------ checks

    def _check(self, s: int, n: int, d: int) -> None:
        for name, value in (("start", s), ("procs", n), ("duration", d)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be an integer, got {value!r}")
        if n < 1 or n > self.capacity:
            raise ValueError(f"procs must be in 1..{self.capacity} (the site's size); got {n}")
        if d < 1:
            raise ValueError(f"duration must be >= 1 s; got {d}")
        if s < self.now:
            raise ValueError(f"start {s} is in the past (now is {self.now})")

    def feasible(self, s: int, n: int, d: int) -> bool:
        """Whether the slot fits beside the running jobs and reservations (step 3)."""
        return self.base.free_over(s, s + d) >= n

    # ------------------------------------------------------------------ Figure 22

    def price(self, s: int, n: int, d: int) -> int | None:
        """Query (17): the externality of the slot in processor-seconds (None: it does not fit)."""
        self._check(s, n, d)
        if not self.feasible(s, n, d):
            return None
        if self.plan.free_over(s, s + d) >= n:
            return 0  # a hole of the current plan: nobody moves
        if self.policy not in ("conservative", "fcfs"):  # no prefix property: EASY, depth K
            return self._replan_all(s, n, d)
        return self._replan_from_prefix(s, n, d)

    def price_naive(self, s: int, n: int, d: int) -> int | None:
        """Figure 22 literally: re-plan the whole queue with the slot in place."""
        self._check(s, n, d)
        if not self.feasible(s, n, d):
            return None
        return self._replan_all(s, n, d)

    def _replan_all(self, s: int, n: int, d: int) -> int:
        p = self.base.copy()
        p.reserve(s, s + d, n)
        after = plan_queue(self.policy, p, self.shapes, self.now)
        pairs = zip(self.shapes, self.starts, after, strict=True)
        return sum((b - a) * q for (q, _), a, b in pairs if b > a)

    def _prefixes(self) -> list[Profile]:
        """``prefix[k]`` = base + the blocks of the first ``k`` queued jobs (no-slot plan)."""
        if self._prefix is None:
            out = [self.base.copy()]
            for (q, dq), v in zip(self.shapes, self.starts, strict=True):
                nxt = out[-1].copy()
                nxt.reserve(v, v + dq, q)
                out.append(nxt)
            self._prefix = out
        return self._prefix

    def _blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """The no-slot plan's blocks as arrays: starts ``v_q`` and ends ``v_q + d_q``."""
        if self._arrays is None:
            v = np.asarray(self.starts, dtype=np.int64)
            d = np.asarray([dq for _, dq in self.shapes], dtype=np.int64)
            self._arrays = (v, v + d)
        return self._arrays

    def _dominated(self) -> list[int]:
        """``below[k]``: the nearest job ahead of ``k`` asking no more processors and no
        longer (-1: none).  Any window that fits ``k`` fits it too, and a re-plan only takes
        room away as it goes, so ``k`` cannot start before it (see :func:`_replan`)."""
        if self._below is None:
            shapes = self.shapes
            below = [-1] * len(shapes)
            for k, (q, dq) in enumerate(shapes):
                for j in range(k - 1, max(-1, k - 65), -1):  # a short look back is enough
                    qj, dj = shapes[j]
                    if qj <= q and dj <= dq:
                        below[k] = j
                        break
            self._below = below
        return self._below

    def _replan_from_prefix(self, s: int, n: int, d: int) -> int:
        e = s + d
        v, end = self._blocks()
        meets = np.flatnonzero((v < e) & (end > s)).tolist()  # blocks meeting [s, e)
        if not meets:
            return 0  # cannot happen when the slot misses the plan's holes; kept for safety
        return _replan(
            self._prefixes(), self.shapes, self.starts, self._dominated(), meets, s, e, n,
            self.now, self.policy == "fcfs",
        )  # fmt: skip

    # ------------------------------------------------------------------ queries

    def candidates(self, s_min: int | None = None) -> list[int]:
        """ "Now" (or ``s_min``) and every later instant where the current plan changes —
        running jobs' ends, reservations' starts and ends, queued jobs' planned starts and
        ends (thesis §5.2): the candidate starts of query (18) (of (19) with ``s_min``)."""
        lo = self.now if s_min is None else max(s_min, self.now)
        if self._instants is None:
            marks = set(self.base.breakpoints(self.now + 1))
            for (_, d), v in zip(self.shapes, self.starts, strict=True):
                marks.add(v)
                marks.add(v + d)
            self._instants = sorted(marks)
        instants = self._instants
        return [lo] + instants[bisect_right(instants, lo) :]

    def options(self, n: int, d: int) -> list[Option]:
        """Query (18): every feasible candidate start with its price (earliest first)."""
        return self.options_from(self.now, n, d)

    def options_from(self, s_min: int, n: int, d: int) -> list[Option]:
        """Query (19): candidate starts ``>= s_min`` (``s_min`` itself when feasible)."""
        self._check(max(s_min, self.now), n, d)
        out = []
        for s in self.candidates(s_min):
            f = self.price(s, n, d)
            if f is not None:
                out.append(Option(s, n, d, self.unit_cost, f))
        return out


def _replan(
    prefix: list[Profile],
    shapes: list[tuple[int, int]],
    starts: list[int],
    below: list[int],
    meets: list[int],
    s: int,
    e: int,
    n: int,
    now: int,
    fcfs: bool,
) -> int:
    """The fast path of :meth:`SiteQuote.price` (conservative or FCFS): the delay the slot
    ``n`` over ``[s, e)`` causes, re-planning from the first job whose block meets it
    (``meets``: the jobs whose no-slot blocks meet the slot, in queue order).

    One loop over plain lists (the profile's ``times``/``free``), with the earliest-start
    search (:meth:`Profile.earliest_start`'s scan, from where the answer can be: see the
    module's docstring; FCFS from the job ahead's start) and the block's insertion inlined:
    the search ends on the steps the block covers, so inserting it needs no second lookup
    (tests check every option against :meth:`price_naive`).
    """
    m = len(shapes)
    cur = starts.copy()  # this re-plan's starts (the no-slot ones until re-planned)
    delay = 0
    last_t = now
    moved = False
    u_lo = u_hi = e  # the surplus span: old blocks of the jobs that moved (none yet)
    times: list[int] = []
    free: list[int] = []
    i = meets[0]
    mi = 0  # index into meets of the next job meeting the slot
    nm = len(meets)
    while i < m:
        if not moved:
            while mi < nm and meets[mi] < i:
                mi += 1
            if mi == nm:
                break  # no later job meets the slot and nothing moved: all keep their starts
            j = meets[mi]
            if not times or j != i:
                # jobs i..j-1 keep their starts: the plan so far is prefix[j] + the slot
                p = prefix[j].copy()
                p.reserve(s, e, n)
                times, free = p.times, p.free
            i = j
        q, dq = shapes[i]
        v = starts[i]
        last = len(times) - 1
        # ---- the earliest start t of q processors over dq, and the step a holding it
        if fcfs:
            t = now
            if i > 0:  # FCFS: not before the job ahead (whose start is `last_t` once
                t = max(now, last_t if moved else starts[i - 1])  # anything has moved)
            a = bisect_right(times, t) - 1
        else:
            # a lower bound: the start of the nearest job ahead that is no bigger (the
            # profile only loses room as the re-plan goes on, and whatever window fits this
            # job fits that one)
            b = below[i]
            lb = now if b < 0 else cur[b]
            found = False
            if u_lo < u_hi:  # phase 1: windows meeting the surplus span, starting before v
                t = max(now, min(v, u_lo - dq + 1), lb)
                jump = min(u_hi, v)
                a = k = bisect_right(times, t) - 1
                stop = t + dq
                while t < jump:
                    if free[k] < q:
                        k += 1
                        a = k
                        t = times[k]
                        stop = t + dq
                    elif k == last or times[k + 1] >= stop:
                        found = True
                        break
                    else:
                        k += 1
            if not found:  # phase 2: from v on (no window in [jump, v) can fit)
                t = v if v >= lb else lb
                a = bisect_right(times, t) - 1
        if fcfs or not found:
            # the search from t (step a holds t); on return, steps a..k hold the block
            k = a
            stop = t + dq
            while True:
                if free[k] < q:
                    k += 1
                    a = k
                    t = times[k]
                    stop = t + dq
                elif k == last or times[k + 1] >= stop:
                    break
                else:
                    k += 1
        # ---- take q processors over [t, stop): split at t and at stop, then subtract
        if times[a] != t:
            a += 1
            k += 1
            times.insert(a, t)
            free.insert(a, free[a - 1])
        if k == len(times) - 1 or times[k + 1] != stop:
            times.insert(k + 1, stop)
            free.insert(k + 1, free[k])
        if a == k:
            free[a] -= q
        else:
            free[a : k + 1] = [f - q for f in free[a : k + 1]]
        if free[k] == free[k + 1]:  # canonical steps: merge equal neighbours
            del free[k + 1]
            del times[k + 1]
        if a > 0 and free[a - 1] == free[a]:
            del free[a]
            del times[a]
        last_t = cur[i] = t
        if t != v:
            moved = True
            if t > v:
                delay += (t - v) * q
            if v < u_lo:
                u_lo = v
            if v + dq > u_hi:
                u_hi = v + dq
        i += 1
    return delay


def choose(options: Sequence[Option], alpha: float) -> Option:
    """Eq. 20: minimise ``α·f_norm + (1 − α)·s_norm`` (min–max normalised over the list);
    the earliest start on ties.  ``α = 1``: the earliest free slot; ``α = 0``: the earliest."""
    if not options:
        raise ValueError("no option to choose from")
    if not 0 <= alpha <= 1 or not math.isfinite(alpha):
        raise ValueError(f"alpha must be in [0, 1]; got {alpha!r}")
    fs = [o.delay for o in options]
    ss = [o.start for o in options]
    f_lo, f_hi = min(fs), max(fs)
    s_lo, s_hi = min(ss), max(ss)
    f_span = f_hi - f_lo or 1
    s_span = s_hi - s_lo or 1

    def score(o: Option) -> tuple[float, int]:
        value = alpha * (o.delay - f_lo) / f_span + (1 - alpha) * (o.start - s_lo) / s_span
        return (round(value, 12), o.start)

    return min(options, key=score)
