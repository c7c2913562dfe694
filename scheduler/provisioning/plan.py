"""Evaluating a resource plan: allocation cost AC and scheduling cost SC (thesis §4.2, §4.5,
eqs. 4, 5 and 7).

A plan ``â`` is a subset of the advertised slots ``Â`` of all sites (a bit per slot).  The
workflow is scheduled on it the way thesis §4.5 ("Fitness Evaluation") describes:

1. tasks are taken in HEFT order — non-increasing upward rank (eq. 7, with the mean runtime over
   the sites and the mean transfer time; :func:`scheduler.workflows.heft_rank`);
2. the plan's slots are kept in one bin per site, each a Figure 2 slot list;
3. a task's earliest time on site ``r`` is the latest of its parents' finishes, plus the
   transfer time of the edge's data when the parent ran on another site (latency +
   bytes / bandwidth of that pair, rounded up to whole seconds); a task without parents may
   start at the submission time;
4. the Figure 2 algorithm (:func:`scheduler.slots.fit.find_start`) is run in every bin, and the
   task goes to the bin where it finishes earliest (the earliest start when runtimes are the
   same everywhere; ties: the earlier start, then the first site); that bin's slots are
   replaced by their left-overs.

``SC(â)`` = the last finish − the submission time (eq. 5: the finish of the exit task; a virtual
exit would finish exactly then).  A plan that cannot hold some task has ``SC = ∞``.

``AC(â)`` = the cost of the slots the schedule touched (eq. 4, Table 1): an indivisible slot
costs in full (``n·d·c + f``; an indivisible extensible one up to the latest end used), a
divisible slot only its used parts (``c`` × processor-hours of the tasks placed on it, plus
``f`` once).  Slots of the plan that no task touches are not charged: the thesis derives AC
"by considering the difference between the initial and final set of slots", so a plan and the
same plan plus unused slots have the same AC (and SC).

Runtimes are rounded up to whole seconds (the simulator's time unit).  Tasks of zero runtime
(e.g. virtual entry/exit tasks) take no slot: they finish when their last parent does, on that
parent's site.

Speed (evaluation dominates MOGA; see ``bench/bench_provisioning.py``): the bins are plain
sorted lists of tuples updated in place; Figure 2's search is ``O(S log S)``
(:func:`~scheduler.slots.fit.find_start`); left-overs no later task could use are dropped —
those shorter than the shortest later runtime, and inextensible pieces that end before the
earliest parent-finish among the ready tasks plus that runtime (every later task starts after
some ready task's parents finish).  Dropping them changes no result.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..slots.fit import EXTENSION_MARGIN, FreeSlot, find_start, take_inplace
from ..slots.model import SECONDS_PER_SU, Slot
from ..workflows.dag import Workflow
from ..workflows.heft import heft_rank
from .network import Network

__all__ = ["INFEASIBLE", "PlanEvaluator", "PlanSchedule", "TaskPlacement"]

INFEASIBLE = math.inf


@dataclass(frozen=True, slots=True)
class TaskPlacement:
    """Where a task runs in a plan: site index, ``[start, end)``, and the slots it used."""

    task: str
    site: int
    start: int
    end: int
    procs: int
    slots: tuple[int, ...]


@dataclass(frozen=True)
class PlanSchedule:
    """The full evaluation of one plan."""

    allocation_cost: float
    scheduling_cost: float
    placements: tuple[TaskPlacement, ...]
    slot_costs: dict[int, float]

    @property
    def feasible(self) -> bool:
        return math.isfinite(self.scheduling_cost)


class PlanEvaluator:
    """Evaluates plans (bit masks over ``slots``) for one workflow submitted at ``submit``.

    ``slots`` are the advertised slots of all sites; ``slot.site`` names the site (one of
    ``sites``).  ``network`` gives transfer times between sites (None: none, one site).
    Evaluations are cached by mask.
    """

    def __init__(
        self,
        workflow: Workflow,
        slots: Sequence[Slot],
        *,
        sites: Sequence[str],
        submit: int,
        network: Network | None = None,
        margin: int = EXTENSION_MARGIN,
    ) -> None:
        self.workflow = workflow
        self.slots = tuple(slots)
        self.sites = tuple(sites)
        self.submit = int(submit)
        self.margin = margin
        R = len(self.sites)
        if R < 1:
            raise ValueError("at least one site is needed")
        if network is not None and network.sites != R:
            raise ValueError(f"the network has {network.sites} sites, the plan {R}")
        if network is None and R > 1:
            raise ValueError("several sites need a network (bandwidth and latency)")
        index = {name: r for r, name in enumerate(self.sites)}
        self.slot_site: list[int] = []
        per_site: list[list[FreeSlot]] = [[] for _ in range(R)]
        for o, s in enumerate(self.slots):
            r = index.get(s.site)
            if r is None:
                if R == 1 and not s.site:
                    r = 0
                else:
                    raise ValueError(f"slot {o} names an unknown site {s.site!r}")
            if s.start < self.submit:
                raise ValueError(f"slot {o} starts at {s.start}, before the submission")
            self.slot_site.append(r)
            per_site[r].append(FreeSlot(s.start, s.end, s.procs, s.extensible, o))
        for lst in per_site:
            lst.sort()
        self._site_slots = per_site
        ranking = heft_rank(
            workflow, sites=list(self.sites), network=network.mean_model() if network else None
        )
        pos = {tid: i for i, tid in enumerate(ranking.order)}
        self.order = ranking.order
        tasks = [workflow.task(tid) for tid in ranking.order]
        self._procs = [t.processors for t in tasks]
        self._dur = [[math.ceil(t.runtime_on(s)) for s in self.sites] for t in tasks]
        self._zero = [t.virtual or max(d) == 0 for t, d in zip(tasks, self._dur, strict=True)]
        parents: list[list[tuple[int, tuple[int, ...]]]] = []
        for tid, t in zip(ranking.order, tasks, strict=True):
            row = []
            for p in workflow.parents(tid):
                data = workflow.edge(p, tid).data
                if network is None or t.virtual or workflow.task(p).virtual:
                    tt = (0,) * (R * R)
                else:
                    tt = tuple(
                        math.ceil(network.transfer_time(a, b, data))
                        for a in range(R)
                        for b in range(R)
                    )
                row.append((pos[p], tt))
            parents.append(row)
        self._parents = parents
        self._n_parents = [len(row) for row in parents]
        self._children: list[list[int]] = [[] for _ in tasks]
        for k, row in enumerate(parents):
            for p, _ in row:
                self._children[p].append(k)
        # shortest runtime of any later task that needs slots: shorter left-overs are useless
        keep = [1] * (len(tasks) + 1)
        low = 1 << 62
        for k in range(len(tasks) - 1, -1, -1):
            keep[k + 1] = low
            if not self._zero[k]:
                low = min(low, min(d for d in self._dur[k] if d > 0))
        self._keep = [max(1, min(v, 1 << 40)) for v in keep]
        self._cache: dict[bytes, tuple[float, float]] = {}
        self.evaluations = 0

    @property
    def n_slots(self) -> int:
        return len(self.slots)

    def _mask(self, mask: Any) -> np.ndarray:
        m = np.asarray(mask, dtype=bool)
        if m.shape != (len(self.slots),):
            raise ValueError(f"a plan is a mask of {len(self.slots)} bits, got shape {m.shape}")
        return m

    def evaluate(self, mask: Any) -> tuple[float, float]:
        """``(AC in SU, SC in seconds)`` of the plan (SC = ∞ if it cannot hold the workflow).

        AC is rounded to 1e-9 SU so that plans of equal cost compare equal."""
        m = self._mask(mask)
        key = m.tobytes()
        hit = self._cache.get(key)
        if hit is None:
            hit = self._run(m, None)
            self._cache[key] = hit
        return hit

    def schedule(self, mask: Any) -> PlanSchedule:
        """The plan's schedule: where every task runs and what each touched slot costs."""
        m = self._mask(mask)
        detail: dict[str, Any] = {}
        ac, sc = self._run(m, detail)
        return PlanSchedule(ac, sc, tuple(detail["placements"]), detail["slot_costs"])

    def _run(self, mask: np.ndarray, detail: dict[str, Any] | None) -> tuple[float, float]:
        self.evaluations += 1
        R = len(self.sites)
        on = mask.tolist()
        bins = [[fs for fs in lst if on[fs.origin]] for lst in self._site_slots]
        procs, dur, zero, parents, keep, children = (
            self._procs, self._dur, self._zero, self._parents, self._keep, self._children,
        )  # fmt: skip
        submit, margin = self.submit, self.margin
        n_tasks = len(procs)
        fin = [0] * n_tasks
        site = [-1] * n_tasks
        area = [0] * len(self.slots)  # processor-seconds used per advertised slot
        last = [0] * len(self.slots)  # latest end of a task on it
        touched: list[int] = []
        placements = [] if detail is not None else None
        # Every later task starts after some task whose parents are all placed ("ready"), so
        # the earliest parent-finish among ready tasks bounds every later start: inextensible
        # pieces ending before that plus the shortest later runtime are dead (dropped).
        waiting = list(self._n_parents)
        ready_at = [submit] * n_tasks
        ready = [(submit, k) for k in range(n_tasks) if not waiting[k]]
        heappush, heappop = heapq.heappush, heapq.heappop
        bound = submit
        for k in range(n_tasks):
            n = procs[k]
            par = parents[k]
            if zero[k]:
                t, s_site = submit, -1
                for p, _ in par:
                    if fin[p] > t or s_site < 0:
                        t, s_site = max(t, fin[p]), site[p]
                fin[k], site[k] = t, s_site
                if placements is not None:
                    placements.append(TaskPlacement(self.order[k], s_site, t, t, 0, ()))
            else:
                best = None
                if R == 1:  # one site: no transfers, no choice of bin
                    t = submit
                    for p, _ in par:
                        if fin[p] > t:
                            t = fin[p]
                    d = dur[k][0]
                    found = find_start(bins[0], n, d, t) if bins[0] else None
                    if found is not None:
                        best = ((found[0] + d, found[0], 0), found, d)
                for r in range(R if R > 1 else 0):
                    t = submit
                    for p, tt in par:
                        f = fin[p]
                        sp = site[p]
                        if sp != r and sp >= 0:
                            f += tt[sp * R + r]
                        if f > t:
                            t = f
                    d = dur[k][r]
                    b = bins[r]
                    if not b:
                        continue
                    found = find_start(b, n, d, t)
                    if found is None:
                        continue
                    key = (found[0] + d, found[0], r)
                    if best is None or key < best[0]:
                        best = (key, found, d)
                if best is None:
                    if detail is not None:
                        detail["placements"] = placements
                    return self._cost(touched, area, last, detail), INFEASIBLE
                (end, start, r), (_, z), d = best
                used = take_inplace(bins[r], n, d, start, z, margin, keep[k + 1])
                for o, kp, _, _ in used:
                    if not area[o]:
                        touched.append(o)
                    area[o] += kp * d
                    if end > last[o]:
                        last[o] = end
                fin[k], site[k] = end, r
                if placements is not None:
                    placements.append(
                        TaskPlacement(self.order[k], r, start, end, n, tuple(u[0] for u in used))
                    )
            f = fin[k]
            for c in children[k]:
                if f > ready_at[c]:
                    ready_at[c] = f
                waiting[c] -= 1
                if not waiting[c]:
                    heappush(ready, (ready_at[c], c))
            while ready and ready[0][1] <= k:
                heappop(ready)
            if ready and ready[0][0] > bound:
                bound = ready[0][0]
                dead = bound + keep[k + 1]
                for r in range(R):
                    bins[r] = [p for p in bins[r] if p[3] or p[1] >= dead]
        ac = self._cost(touched, area, last, detail)
        if detail is not None:
            detail["placements"] = placements
        return ac, float(max(fin) - submit) if fin else 0.0

    def _cost(
        self, touched: list[int], area: list[int], last: list[int], detail: dict | None
    ) -> float:
        total = 0.0
        costs: dict[int, float] = {}
        for o in sorted(touched):
            s = self.slots[o]
            if s.divisible:
                cost = area[o] / SECONDS_PER_SU * s.unit_cost + s.fixed_cost
            else:
                d = s.duration
                if s.extensible:
                    d = max(d, last[o] - s.start)
                cost = s.procs * d / SECONDS_PER_SU * s.unit_cost + s.fixed_cost
            costs[o] = cost
            total += cost
        if detail is not None:
            detail["slot_costs"] = costs
        # rounded so that plans of equal cost compare equal (the sum's order varies)
        return round(total, 9)
