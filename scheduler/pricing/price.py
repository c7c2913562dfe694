"""Adaptive pricing of slots: the externality a reservation causes to queued best-effort jobs
(thesis ch. 5, Figure 22).

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
their starts and whose own block does not meet ``[s, s + d)`` keeps its start too.  Hence jobs
are re-planned only from the first one whose block meets the slot, under conservative
backfilling on a copy of the no-slot plan's *prefix* profile (base + the blocks of the jobs
ahead of it, built once per state); while no re-planned job has moved, the jobs in between whose
blocks miss the slot are skipped; and a slot that fits into a hole of the no-slot plan costs 0
without re-planning (thesis ch. 3: advertised slots delay nobody).  Under conservative
backfilling a re-planned job's earliest start is searched only where it can be: before its
no-slot start only in windows meeting the old blocks of the jobs that moved (the only places
with more room than the no-slot plan), else from its no-slot start on; and never before the
start of the nearest job ahead of it that asks no more processors for no longer (the re-plan
only takes room away as it goes, and a window that fits the job fits that one).  The re-plan is
one loop over a profile of its own (:func:`scheduler.pricing._replan.replan`; a quote prices all
its candidate starts in one call, :func:`~scheduler.pricing._replan.delays`), compiled with
Cython when a build exists (:mod:`scheduler._native`), else the same source as plain Python.
FCFS has a kernel of its own in the same module (:class:`~scheduler.pricing._replan.FcfsQueue`,
:func:`~scheduler.pricing._replan.fcfs_delays`, which also plays the no-slot plan): a job starts
at the earliest instant from the start of the job ahead (its *floor*) where the profile has
room, so the rest of the plan depends only on the floor and the profile from there on (none of
the blocks ahead starts later), and adding the slot only delays.  That state is kept at every
32nd job of the no-slot plan; a re-plan starts from the kept state before the first job whose
block meets the slot (the jobs ahead keep their starts; while nothing has moved, the ones whose
blocks miss the slot too) and stops where its state is the kept one moved ``δ`` later (every
later job then starts ``δ`` later: the rest of the price is ``δ`` times their processors) or the
state an earlier re-plan of the same quote had there (the rest as there, from this floor).  Once
every block has started by the floor (the slot, the base's reservations) the profile only rises:
it is kept as its releases and a job starts where they first give it room; when no reservation
of the base starts after the kept state's floor, the re-plan is kept so from the start, the
slot's start being the one fall (a job running into it must have room beside the slot there
too).  A slot in a hole of the no-slot plan costs 0 without a re-plan here too, and otherwise the
re-plan starts at the first job the slot moves, found without one (until it the re-plan is the
plan and the slot: a job keeps its start while the free processors at the later of its start
and the slot's hold the slot beside it; when no queued job is of no duration).  Backfilling with
a reservation depth K (``backfill-k=K``; K = 1 is EASY, K = ∞ conservative) has no such prefix
property (a job's start depends on later jobs' backfilling): it is re-planned by
:mod:`scheduler.pricing._easy` (compiled the same way), which plays the no-slot plan once per
state — its reservations, placements and backfills, as the simulator's policy
:mod:`scheduler.cluster.depth` decides them — keeping a snapshot of every instant it visits
and how far into the future that instant's tests read the profile, and re-plans a slot from
the first instant whose tests read past the slot's start (the earlier ones decide as without
it).  EASY quotes run the same loop at K = 1.  A queue holding a job of no duration is
re-planned in full under EASY or depth K by the simulator's policy itself (the kernel's
reservation of no duration would hold no processors; a live site's estimates are never 0).
:meth:`SiteQuote.price_naive` is the literal Figure 22; tests check that all agree.

Cost (``bench/bench_site_pages.py``): a quote re-plans, for every candidate start
whose slot meets the plan, the queue from the first job the slot meets; at 200+ queued jobs
(CTC-SP2 at 338 processors) that is ~120 candidates × ~200 jobs, about half of which really
move (68 later, 42 earlier on average): little to skip, so the loop is compiled.  Under FCFS
(no backfilling: the same trace and size queue up to 3,700 jobs, 1,827 at the median
instant) a re-plan stops after ~300 jobs at the deepest queues (~3,000 jobs, ~1,300
starts), most of them on the releases (``bench/results/site-pages-fcfs.txt``); a quarter of
the re-plans never stop early (two groups of jobs moved by different amounts stay apart to
the end of the queue) and walk half of all the jobs re-planned.  Under EASY
(same trace and size) the re-plans from the snapshots run ~100 job starts each; about a fifth
of the instants before a slot are skipped, so that loop is compiled too.  An EASY re-plan
starts at the first event whose passed tests the slot may make fail (a quarter of the events
from the reach on decide as without it: 151.8 -> 119.9 events per re-plan at 200+ queued);
a depth-K re-plan likewise (K = 4: 136.4 -> 99.4), and it too stops once its state is the
no-slot plan's or the last re-plan's (-> 89.0; most depth-K re-plans meet neither: a delayed
reservation moves the rest of the plan); and all candidate starts of an EASY or depth-K
quote are priced in one kernel call
(:func:`scheduler.pricing._easy.prices`: the fit beside the base, the hole test and the
re-plan), with no Python per start.  At 400+ queued jobs a quote makes ~370 re-plans of
~170 events, ~1.2 job starts per event, each found by a search of ~17 nodes of the trees over
the waiting jobs: the search is ~40 % of the time, the block insertions ~20 %.  Its trees
keep a node's values side by side, a job the search finds starts without a second test,
and the one-processor jobs (two thirds of CTC-SP2's queues) have trees of their own, which
the search skips whole when they are too long (same run, the kernel on 9 slow instants:
K = 4 ~9 % less CPU, EASY ~5 %; whole quotes at 200+ queued, p99 13.4 -> 12.9 and 12.5 ->
11.9 ms on a loaded machine: ``bench/results/site-pages-easy.txt``; the EASY figures of
this paragraph were measured on a loop of its own, since replaced by the depth-K loop at
K = 1: ``bench/results/kernels-history.txt``).  A site page builds its quote from the replay index
with the queue as two lists (:meth:`SiteQuote.from_queue`,
:func:`scheduler.pricing.site.quote_at`; :attr:`SiteQuote.shapes` made only when asked) and
the running jobs' profile in one pass (:meth:`Profile.of_blocks_from`): at 1,600+ queued jobs
under FCFS, a pair per job and its checks were ~10 % of a quote (same run:
``bench/results/site-pages-fcfs.txt``).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from operator import add, itemgetter

from .._native import load as _load_native
from ..cluster.policy import PolicyError
from ..cluster.profile import Profile
from ..cluster.registry import is_user_policy_name, resolve
from .plan import PLANNERS, plan_queue, plannable

#: the re-plan kernel (scheduler/pricing/_replan.py), compiled when a build of that very
#: source exists (see scheduler/_native.py)
_R = _load_native("scheduler.pricing._replan")
#: the EASY re-plan kernel (scheduler/pricing/_easy.py), loaded the same way
_E = _load_native("scheduler.pricing._easy")

__all__ = ["Option", "SiteQuote", "choose", "SECONDS_PER_SU"]

SECONDS_PER_SU = 3600  # 1 SU = 1 processor-hour


def _plan_kind(policy: str) -> tuple[str, int]:
    """How a quote plans ``policy``'s queue: the registry's quote kernel for it
    (:attr:`~scheduler.cluster.registry.PolicyRef.quote_kind`): ``("conservative" | "fcfs",
    0)`` — the prefix re-plan (:mod:`scheduler.pricing._replan`); ``("easy", 0)`` (depth 1)
    or ``("depth", K)`` — the snapshot re-plan (:mod:`scheduler.pricing._easy`);
    ``("simulate", 0)`` for a user's policy (no kernel: each price re-plays the queue under
    the policy itself, Figure 22 literally)."""
    try:
        ref = resolve(policy)
    except PolicyError:
        ref = None
    if ref is not None and ref.quote_kind is not None:
        return ref.quote_kind
    if ref is not None and is_user_policy_name(ref.entry.name):
        return ("simulate", 0)
    raise ValueError(f"not a plannable policy: {policy!r}")


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


_new = object.__new__
_SET_START = Option.start.__set__  # type: ignore[attr-defined]
_SET_PROCS = Option.procs.__set__  # type: ignore[attr-defined]
_SET_DURATION = Option.duration.__set__  # type: ignore[attr-defined]
_SET_UNIT_COST = Option.unit_cost.__set__  # type: ignore[attr-defined]
_SET_DELAY = Option.delay.__set__  # type: ignore[attr-defined]


def _options(cands: list, fs: list, n: int, d: int, c: float) -> list[Option]:
    """``[Option(s, n, d, c, f)]`` for each ``s`` of ``cands`` whose ``f`` is not None: the
    same Options, each filled through its slots (a frozen dataclass's ``__init__`` sets each
    field by name through ``object.__setattr__``: at ~1,500 starts of a deep FCFS queue
    0.64 -> 0.35 ms)."""
    if len(cands) != len(fs):
        raise ValueError("as many prices as starts")
    out = []
    for s, f in zip(cands, fs, strict=True):
        if f is not None:
            o = _new(Option)
            _SET_START(o, s)
            _SET_PROCS(o, n)
            _SET_DURATION(o, d)
            _SET_UNIT_COST(o, c)
            _SET_DELAY(o, f)
            out.append(o)
    return out


def _shapes(shapes: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """``[(int(n), int(d)) for n, d in shapes]``: a list of pairs of ints (as a replay index
    gives them) is taken as it is, without a new pair for each (at 2,750 queued jobs 0.42 ->
    0.31 ms, and as many fewer objects for the garbage collector to count)."""
    shapes = list(shapes)
    if (
        {*map(type, shapes)} <= {tuple}
        and {*map(len, shapes)} <= {2}
        and {*map(type, chain.from_iterable(shapes))} <= {int}
    ):
        return shapes
    return [(int(n), int(d)) for n, d in shapes]


def _int_list(values: Sequence[int]) -> list[int]:
    """``[int(v) for v in values]``, a list of ints taken as it is."""
    if type(values) is list and {*map(type, values)} <= {int}:
        return values
    return [int(v) for v in values]


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
        shapes = _shapes(shapes)
        procs = list(map(itemgetter(0), shapes))
        self._shape_list: list[tuple[int, int]] | None = shapes
        self._setup(base, procs, list(map(itemgetter(1), shapes)), now, policy, unit_cost)

    @classmethod
    def from_queue(
        cls,
        base: Profile,
        procs: Sequence[int],
        durs: Sequence[int],
        now: int,
        policy: str = "conservative",
        *,
        unit_cost: float = 1.0,
    ) -> SiteQuote:
        """The quote of the queue given as two lists, the jobs' processors and planned
        durations in queue order (as :meth:`~scheduler.cluster.replay.ReplayIndex.queued_lists`
        gives them): the same quote as ``SiteQuote(base, list(zip(procs, durs)), ...)``,
        without a pair per job (its :attr:`shapes` are made when asked).  Lists of ints are
        kept as given, not copied: do not change them afterwards."""
        procs, durs = _int_list(procs), _int_list(durs)
        if len(procs) != len(durs):
            raise ValueError(f"{len(procs)} processor counts for {len(durs)} durations")
        self = cls.__new__(cls)
        self._shape_list = None
        self._setup(base, procs, durs, now, policy, unit_cost)
        return self

    @property
    def shapes(self) -> list[tuple[int, int]]:
        """``(processors, planned duration)`` of the queued jobs, in queue order."""
        if self._shape_list is None:
            self._shape_list = list(zip(self._procs, self._durs, strict=True))
        return self._shape_list

    def _setup(
        self, base: Profile, procs: list, durs: list, now: int, policy: str, unit_cost: float
    ) -> None:
        if not plannable(policy):
            raise ValueError(
                f"policy must be one of {', '.join(PLANNERS)}, easy or backfill-k=K; got {policy!r}"
            )
        if now < base.origin:
            raise ValueError(f"now ({now}) is before the profile's origin ({base.origin})")
        self.base = base.copy()
        self.base.advance(now)
        self._base_steps = self.base.lists()  # (times, free): what the kernels read
        self._procs = procs
        self._durs = durs
        self.now = now
        self.policy = policy
        self.unit_cost = unit_cost
        self.capacity = base.capacity
        self._kind, depth = _plan_kind(policy)
        if self._kind == "easy":  # EASY is backfilling with reservation depth 1
            depth = 1
        if 0 in durs and (policy not in PLANNERS or self._kind == "easy"):
            # a job of no duration holds no block, so the kernel's reservation for it would
            # hold no processors (the simulator plans it for 1 s and ends it at once; the
            # reservations behind it move up): such a queue (never a live site's: the
            # simulator's estimates are >= 1 s) is re-planned in full by the policy itself
            self._kind = "simulate"
        elif self._kind == "depth" and depth >= len(procs):
            # every queued job holds a reservation: conservative backfilling's plan (the
            # prefix re-plan is the faster kernel for it)
            self._kind = "conservative"
        # EASY (depth 1) and depth K: the no-slot plan with its snapshots (_easy.EasyQueue),
        # played by the kernel (the simulator's EASY or backfill-k=K plan: tests compare)
        self._easy = None
        self._fcfs = None
        if self._kind in ("easy", "depth"):
            self._easy = _E.EasyQueue(*self._base_steps, self.capacity, procs, durs, now, depth)
            self.starts = self._easy.starts  # v_q
            self._plan: Profile | None = None  # (built when asked: a quote prices in the kernel)
        elif self._kind == "fcfs":  # the no-slot plan and its states (_replan.FcfsQueue)
            if procs and max(procs) > self.capacity:
                raise ValueError(f"a job of {max(procs)} processors never fits {self.capacity}")
            self._fcfs = _R.FcfsQueue(*self._base_steps, procs, durs, now)
            self.starts = self._fcfs.starts  # v_q (plan_fcfs's: tests compare)
            self._plan = None  # (built when asked)
        else:
            planner = self.policy if self._kind == "simulate" else self._kind
            self._plan = self.base.copy()
            self.starts = plan_queue(planner, self._plan, self.shapes, now)  # v_q
        self._instants: list[int] | None = None
        self._kernel_queue = None
        self._zeros: list[int] | None = None  # starts of the queued jobs of no duration

    @property
    def plan(self) -> Profile:
        """The current plan: the base and every queued job's block."""
        if self._plan is None:
            plan = self.base.copy()
            for (q, dq), v in zip(self.shapes, self.starts, strict=True):
                plan.reserve(v, v + dq, q)
            self._plan = plan
        return self._plan

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
        return cls(base, shapes, at, sim.policy_ref.text, unit_cost=unit_cost)

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
        return self._price(s, n, d)

    def _price(self, s: int, n: int, d: int) -> int | None:
        """:meth:`price` of a checked slot (:func:`scheduler.pricing._easy.prices` tests the
        same, for all candidate starts of an EASY or depth-K quote at once)."""
        if not self.feasible(s, n, d):
            return None
        if self._kind == "simulate":
            return self._replan_all(s, n, d)
        if self._fcfs is not None:
            return _R.fcfs_delays(self._fcfs, [s], n, d)[0]
        if self.plan.free_over(s, s + d) >= n and not self._zero_job_in(s, s + d):
            # a hole of the current plan: nobody moves (every test a plan passed had room
            # for its job beside every later block, so beside the slot too)
            return 0
        if self._easy is not None:  # from the first event whose tests read the slot's span
            return _E.delay(self._easy, _E.Work(self._easy), s, s + d, n)
        return self._replan_from_prefix(s, n, d)

    def _zero_job_in(self, s: int, e: int) -> bool:
        """Whether a queued job of no duration starts in ``[s, e)``: it holds no block of the
        plan, yet needs its processors free at its start, so a slot in a hole of the plan
        may still move it."""
        if self._zeros is None:
            pairs = zip(self.shapes, self.starts, strict=True)
            self._zeros = sorted(v for (_, dq), v in pairs if dq == 0)
        zeros = self._zeros
        return bool(zeros) and bisect_left(zeros, s) < bisect_left(zeros, e)

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

    def _queue(self):  # type: ignore[no-untyped-def]
        """The no-slot plan as the kernel reads it, built once per state: its prefixes
        (base + the blocks of the first ``k`` queued jobs, for every ``k``) and the queue
        (:class:`scheduler.pricing._replan.Queue`)."""
        if self._kernel_queue is None:
            self._kernel_queue = _R.Queue(
                *self._base_steps, self._procs, self._durs, self.starts,
            )  # fmt: skip
        return self._kernel_queue

    def _replan_from_prefix(self, s: int, n: int, d: int) -> int:
        q = self._queue()
        t, f, c = _R.buffer([], q.size), _R.buffer([], q.size), _R.buffer([], q.m)
        return _R.replan(q, t, f, c, s, s + d, n, self.now, self._kind == "fcfs")

    # ------------------------------------------------------------------ queries

    def candidates(self, s_min: int | None = None) -> list[int]:
        """ "Now" (or ``s_min``) and every later instant where the current plan changes —
        running jobs' ends, reservations' starts and ends, queued jobs' planned starts and
        ends (thesis §5.2): the candidate starts of query (18) (of (19) with ``s_min``)."""
        lo = self.now if s_min is None else max(s_min, self.now)
        if self._instants is None:
            marks = set(self.base.breakpoints(self.now + 1))
            marks.update(self.starts)
            marks.update(map(add, self.starts, self._durs))
            self._instants = sorted(marks)
        instants = self._instants
        return [lo] + instants[bisect_right(instants, lo) :]

    def options(self, n: int, d: int) -> list[Option]:
        """Query (18): every feasible candidate start with its price (earliest first)."""
        return self.options_from(self.now, n, d)

    def options_from(self, s_min: int, n: int, d: int) -> list[Option]:
        """Query (19): candidate starts ``>= s_min`` (``s_min`` itself when feasible)."""
        self._check(max(s_min, self.now), n, d)
        cands = self.candidates(s_min)
        if self._kind == "simulate":
            fs = [self._price(s, n, d) for s in cands]
        elif self._fcfs is not None:  # FCFS: all starts in one call
            fs = _R.fcfs_delays(self._fcfs, cands, n, d)
        elif self._easy is None:  # conservative: the fast path, all starts in one call
            fs = _R.delays(self._queue(), cands, n, d, self.now, self._kind == "fcfs")
        else:  # EASY or depth K: all starts in one call (the same tests as _price)
            fs = _E.prices(self._easy, cands, n, d)
        return _options(cands, fs, n, d, self.unit_cost)


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

    beta = 1 - alpha
    value = [
        alpha * (f - f_lo) / f_span + beta * (s - s_lo) / s_span
        for f, s in zip(fs, ss, strict=True)
    ]
    # the score (value rounded to 12 places, start) is least among the values within 1e-9
    # of the least (rounding is monotone): round those only; the first of the least wins
    cut = min(value) + 1e-9
    best = min(
        (round(v, 12), s, i) for i, (v, s) in enumerate(zip(value, ss, strict=True)) if v <= cut
    )
    return options[best[2]]
