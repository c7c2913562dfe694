"""Maui-style priority ("fair share"), with and without backfilling.

Singh, Kesselman & Deelman 2005 (§2) simulate three local policies in the Maui simulator:
FIFO, a "fair share" variant that orders the queue by a weighted priority, and the same
priority with conservative backfilling in which the 50 highest-priority jobs are protected and
the rest are backfilled first fit.  The
priority of a queued job ``k`` of user ``u`` at time ``now`` is Maui's weighted sum::

    P = fs_weight  · (−usage%(u))                       fair share on historical usage
      + queue_time_weight · (now − submit) / 60         service: queue time (minutes)
      + xfactor_weight · (1 + queue / max(wallclock, xfactor_min_wallclock))
      + bypass_weight · bypass(k)                       times lower-priority jobs started first
      + size_weight · processors                        resources: favour large jobs

``usage%(u)`` is the user's share of the processor-seconds delivered in the fair-share window:
time is cut in bins of ``fs_interval`` seconds; the last ``fs_depth`` bins (the current one
included) count, bin ``i`` back weighted ``fs_decay**i`` (Maui's FSINTERVAL, FSDEPTH, FSDECAY).
Running jobs are charged as they run, not only at their end.  A uniform fair-share target
shifts every priority by the same amount, so targets are left out: users below the average
usage simply outrank heavier ones.  ``wallclock`` is the requested time (what Maui knows).

The paper names the components but not their weights; :class:`FairShareWeights` holds ours (see
its docstring) and every field is a keyword parameter.

Decisions at an event instant (the simulator calls :meth:`FairShare.schedule`):

* ``fairshare`` — strict priority order: jobs start from the top while the top job fits; the
  first that does not fit blocks everyone below it (no backfilling, so no bypass).
* ``fairshare-cb`` — conservative backfilling with ``reservation_depth`` (50) protected jobs: in
  priority order each of the top jobs starts now if its block fits, else gets a reservation at
  its earliest start in the profile (placed in priority order, so it never delays a protected
  job above it); then every other job, in priority order, starts now if it fits around all those
  reservations (FIRSTFIT).  Reservations are recomputed at every decision (priorities move with
  time), as Maui does at each iteration.

Parameters are set on the policy after the simulator built it (``Simulator`` takes no policy
options yet): ``sim.policy.configure(FairShareWeights(...))``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from .policy import ClusterState, Policy

__all__ = ["FairShare", "FairShareBackfill", "FairShareWeights"]


@dataclass(frozen=True)
class FairShareWeights:
    """Weights and fair-share window of the priority (defaults: ours, Maui-style).

    Maui's defaults weigh queue time only; Singh et al. 2005 enable fair share, service (queue time,
    expansion factor, bypass) and resources without giving numbers.  Ours, in "minutes of
    queue time" as the common unit: 1 per minute queued; 10 per unit of expansion factor, with
    jobs under 15 min counted as 15 min (Maui's XFMINWCLIMIT, so that 3-second workflow tasks do
    not dwarf everything); 1 per bypass; 0.1 per processor (a whole-machine job of 890
    processors is worth ~1.5 h of waiting); 10 per percentage point of the delivered usage (a
    user who took 30 % of the machine loses 5 h of queue time).  Window: 8 bins of 12 h with
    decay 0.8 per bin.  ``fs_refresh`` > 0 recomputes the usage shares at most that often
    (seconds of simulated time); 0 recomputes them at every decision.
    """

    fs_weight: float = 10.0
    queue_time_weight: float = 1.0
    xfactor_weight: float = 10.0
    xfactor_min_wallclock: int = 900
    bypass_weight: float = 1.0
    size_weight: float = 0.1
    fs_interval: int = 43_200
    fs_depth: int = 8
    fs_decay: float = 0.8
    fs_refresh: int = 0
    reservation_depth: int = 50

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
                raise ValueError(f"{f.name} must be a number, got {value!r}")
            if value < 0:
                raise ValueError(f"{f.name} must be >= 0, got {value!r}")
        if self.fs_interval < 1 or self.fs_depth < 1:
            raise ValueError("fs_interval and fs_depth must be >= 1")
        if self.fs_decay > 1:
            raise ValueError(f"fs_decay must be in [0, 1], got {self.fs_decay}")

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


class FairShare(Policy):
    """Maui-style weighted priority, strict priority order (the "fair share" of
    Singh, Kesselman & Deelman 2005)."""

    name = "fairshare"
    backfill = False

    def __init__(self, state: ClusterState, weights: FairShareWeights | None = None) -> None:
        super().__init__(state)
        self.weights = weights or FairShareWeights()
        # All state in flat containers of immutable values: Simulator.fork copies each
        # container once, so a nested mutable value would be shared between twins.
        self._running: dict[int, int] = {}  # job -> start
        self._usage: dict[tuple[int, int], float] = {}  # (user, bin) -> processor-seconds
        self._total: dict[int, float] = {}  # bin -> processor-seconds, all users
        self._bypass: dict[int, int] = {}  # queued job -> times bypassed
        self._shares: dict[int, float] = {}  # user -> usage % (cached)
        self._refreshed = [-1]  # instant the shares were computed (a list: forked with us)
        self._last: dict[int, bool] = {}  # jobs ranked below every other (reservation probes)

    def configure(self, weights: FairShareWeights) -> None:
        """Replace the weights (call before the simulation runs)."""
        self.weights = weights
        self._refreshed[0] = -1

    def rank_last(self, k: int) -> None:
        """Rank job ``k`` below every other job, whatever its priority: a probe for the start
        of an advance reservation, which must delay no queued job
        (Singh, Kesselman & Deelman 2005, §3.1)."""
        self._last[k] = True

    # ---------------------------------------------------------------- fair-share usage

    def complete(self, k: int, now: int, early: bool) -> None:
        start = self._running.pop(k, None)
        if start is not None and now > start:
            self._charge(self.jobs[k].user, start, now, self.procs[k])

    def _charge(self, user: int, a: int, b: int, n: int) -> None:
        """Add ``n`` processors over ``[a, b)`` to the usage bins."""
        width = self.weights.fs_interval
        usage, total = self._usage, self._total
        i = a // width
        while a < b:
            end = min(b, (i + 1) * width)
            ps = n * (end - a)
            usage[(user, i)] = usage.get((user, i), 0.0) + ps
            total[i] = total.get(i, 0.0) + ps
            a = end
            i += 1

    def usage_shares(self, now: int) -> dict[int, float]:
        """Decayed windowed usage of each user as a percentage of everyone's
        (Singh, Kesselman & Deelman 2005, §2)."""
        w = self.weights
        width, depth, decay = w.fs_interval, w.fs_depth, w.fs_decay
        current = now // width
        first = current - depth + 1
        factor = {b: decay ** (current - b) for b in range(first, current + 1)}
        per_user: dict[int, float] = {}
        total = sum(v * factor[b] for b, v in self._total.items() if b in factor)
        for (user, b), v in self._usage.items():
            f = factor.get(b)
            if f is not None:
                per_user[user] = per_user.get(user, 0.0) + v * f
        # running jobs, charged up to now
        jobs, procs = self.jobs, self.procs
        for k, start in self._running.items():
            a = max(start, first * width)
            n = procs[k]
            user = jobs[k].user
            b = a // width
            while a < now:
                end = min(now, (b + 1) * width)
                ps = n * (end - a) * factor[b]
                per_user[user] = per_user.get(user, 0.0) + ps
                total += ps
                a = end
                b += 1
        if total <= 0:
            return {}
        return {u: 100.0 * v / total for u, v in per_user.items()}

    # ---------------------------------------------------------------- priority

    def priorities(self, now: int) -> dict[int, float]:
        """Priority of every queued job at ``now`` (higher first)."""
        w = self.weights
        if self._refreshed[0] < 0 or now - self._refreshed[0] >= w.fs_refresh:
            self._shares = self.usage_shares(now)
            self._refreshed[0] = now
        shares = self._shares
        sub, est, procs, jobs, bypass = (
            self.submit_time, self.estimate, self.procs, self.jobs, self._bypass,
        )  # fmt: skip
        fs_w, qt_w, xf_w, bp_w, sz_w = (
            w.fs_weight, w.queue_time_weight / 60.0, w.xfactor_weight, w.bypass_weight,
            w.size_weight,
        )  # fmt: skip
        xmin = w.xfactor_min_wallclock
        last = self._last
        out = {}
        for k in self.queue:
            if k in last:
                out[k] = float("-inf")
                continue
            q = now - sub[k]
            wall = est[k] if est[k] > xmin else xmin
            out[k] = (
                -fs_w * shares.get(jobs[k].user, 0.0)
                + qt_w * q
                + xf_w * (1.0 + q / wall)
                + bp_w * bypass.get(k, 0)
                + sz_w * procs[k]
            )
        return out

    def ordered(self, now: int) -> list[int]:
        """The queue in priority order (ties: submit time, then job index)."""
        prio = self.priorities(now)
        sub = self.submit_time
        return sorted(self.queue, key=lambda k: (-prio[k], sub[k], k))

    # ---------------------------------------------------------------- decisions

    def schedule(self, now: int, changed: bool) -> list[int]:
        q = self.queue
        if not q:
            return []
        procs = self.procs
        if min(procs[k] for k in q) > self.profile.free_now:
            return []  # nothing fits now, whatever the order
        order = self.ordered(now)
        started = self._backfill(order, now) if self.backfill else self.start_in_order(order, now)
        if started:
            gone = set(started)
            q[:] = [k for k in q if k not in gone]
            for k in started:
                self._running[k] = now
                self._bypass.pop(k, None)
        return started

    def _backfill(self, order: list[int], now: int) -> list[int]:
        p = self.profile
        procs, est = self.procs, self.estimate
        depth = self.weights.reservation_depth
        started: list[int] = []
        planned: list[tuple[int, int, int]] = []  # temporary blocks (start, end, n)
        waiting_above: list[int] = []  # queued jobs above the current one, still waiting
        bypass = self._bypass
        try:
            for rank, k in enumerate(order):
                if p.free_now == 0:
                    break  # nothing else can start now
                n, d = procs[k], est[k]
                if rank < depth:
                    s = p.earliest_start(n, d, now)
                    if s is None:  # cannot happen: jobs fit the machine (Simulator checks)
                        raise ValueError(f"job {k} never fits")
                    p.reserve(s, s + d, n)
                    if s == now:
                        if waiting_above:
                            for j in waiting_above:
                                bypass[j] = bypass.get(j, 0) + 1
                        started.append(k)
                    else:
                        planned.append((s, s + d, n))
                        waiting_above.append(k)
                    continue
                if p.free_now < n:  # cheap test first: not enough free now
                    waiting_above.append(k)
                    continue
                if p.free_over(now, now + d) >= n:
                    p.reserve(now, now + d, n)
                    for j in waiting_above:
                        bypass[j] = bypass.get(j, 0) + 1
                    started.append(k)
                else:
                    waiting_above.append(k)
        finally:
            for s, e, n in planned:
                p.release(s, e, n)
        return started


class FairShareBackfill(FairShare):
    """The same priority with conservative backfilling, ``reservation_depth`` jobs protected."""

    name = "fairshare-cb"
    backfill = True
