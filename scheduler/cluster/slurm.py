"""A Slurm-like batch scheduler: multifactor priority, partitions over node sets, QOS and
association limits, the main scheduler and the backfill scheduler, with Slurm's parameters.

The rules, and the Slurm documentation page each follows:

* **Multifactor priority** (https://slurm.schedmd.com/priority_multifactor.html): a job's
  priority is the sum of ``PriorityWeight*`` times factors in [0, 1] — age (time since the job
  became eligible, capped at ``PriorityMaxAge``), fair share, job size, partition
  (``PriorityJobFactor`` over the largest of any partition) and QOS (its priority over the
  largest of any QOS) — truncated to an integer; equal priorities go in job id order.
  Priorities are computed at submission and recomputed for every pending job every
  ``PriorityCalcPeriod``; ``PriorityType=priority/basic`` is FIFO.
* **Fair share**: usage is CPU-seconds, charged for the jobs that ran since the last
  recomputation only at each recomputation (Slurm's decay thread), and decayed with
  half-life ``PriorityDecayHalfLife``.  Classic fair share
  (``PriorityFlags=NO_FAIR_TREE``, priority_multifactor.html, "Fair-share Factor"):
  ``F = 2^(-UE/S)`` with the effective usage ``UE = U + (UE_parent − U)·s/s_siblings`` and the
  normalised shares ``S``.  Fair Tree, Slurm's default (https://slurm.schedmd.com/fair_tree.html):
  siblings are ranked by Level Fairshare ``S/U`` depth first; the users' order gives the
  factor ``rank / users``.
* **Partitions** (https://slurm.schedmd.com/slurm.conf.html, PartitionName): a job runs only
  on its partition's nodes; partitions may overlap.  A job whose time limit exceeds the
  partition's ``MaxTime`` never starts (reason PartitionTimeLimit).
* **QOS and association limits** (https://slurm.schedmd.com/qos.html,
  https://slurm.schedmd.com/resource_limits.html), enforced when ``AccountingStorageEnforce``
  holds ``limits`` or ``safe``: a pending job is passed over while its user runs
  ``MaxJobsPerUser`` jobs of its QOS, or while the QOS's ``GrpTRES=cpu`` would be exceeded, or
  its association's ``MaxJobs`` / account's ``GrpTRES=cpu``; a job over ``MaxSubmitJobsPerUser``
  at submission, or with a time limit over the QOS's ``MaxWall``, is rejected.
* **Main scheduler** (https://slurm.schedmd.com/sched_config.html): every ``sched_interval``
  after something changed (a real Slurm 22.05 starts the jobs submitted or freed between two
  passes at the next one: its accounting shows starts up to ``sched_interval`` late) it walks
  the pending jobs in priority order, at most ``default_queue_depth`` of them; a job that fits
  now on its partition's nodes starts; one that does not makes its partition's nodes
  unavailable to every lower-priority job of this pass (also in overlapping partitions).
* **Backfill scheduler** (sched_config.html, slurm.conf.html SchedulerParameters): every
  ``bf_interval`` it walks at most ``bf_max_job_test`` pending jobs in priority order over a
  plan of the running jobs' ends (start + time limit) rounded up to ``bf_resolution``; a job
  that can start now without delaying any job above it starts; otherwise it reserves its
  earliest start if that lies within ``bf_window``.  A reservation holds whole nodes in the
  plan (Slurm's plan is a node bitmap per time slot), so no job is backfilled onto the rest
  of a reserved node over the reservation.
* **Release of a job's CPUs**: sacct records the second a job ends and slurmctld frees its
  nodes once the completion is processed; a pass within that second does not see them
  (``release_lag``, on by default: measured on a real Slurm 22.05, a job waiting for those
  CPUs starts 1-2 s after the recorded end).
* **Time limits** (slurm.conf.html, OverTimeLimit): a job is killed at its time limit plus
  ``OverTimeLimit``; the scheduler plans with that sum.

Simplified (what a real slurmctld does and this model does not):

* resources are CPUs only (no memory, GRES, node sharing rules or topology); CPUs of a node
  set are interchangeable, a job is placed on one node set (nodes in the same partitions) when
  one is large enough, else across the node sets of its partition;
* scheduling passes take no simulated time (so ``bf_continue``, ``bf_yield_*`` and
  ``max_sched_time`` have no effect), and passes and priority recomputations run at multiples
  of their interval from the first submission (Slurm's timers start with slurmctld, which a
  dump does not record);
* eligible time is the submission time (no ``--begin``, no dependencies); the job size factor
  is CPUs over the cluster's CPUs (``PriorityFavorSmall``: one minus that); Fair Tree ranks
  two levels (accounts under root, users under accounts); shares ``parent`` count as 1;
* no preemption, reservations of Slurm's own, heterogeneous jobs, job arrays' limits, nice,
  ``PriorityWeightAssoc`` or ``PriorityWeightTRES``; usage is not charged to parent accounts
  beyond the two levels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .policy import ClusterState, Policy
from .profile import Profile

__all__ = ["SlurmAssoc", "SlurmParams", "SlurmPartition", "SlurmPolicy", "SlurmQOS"]

_UNLIMITED = -1


@dataclass(frozen=True)
class SlurmPartition:
    """A ``PartitionName`` line: its nodes, ``MaxTime`` (s, -1 unlimited), ``PriorityJobFactor``."""

    name: str
    nodes: tuple[str, ...]
    max_time: int = _UNLIMITED
    job_factor: int = 1
    default: bool = False


@dataclass(frozen=True)
class SlurmQOS:
    """A QOS of ``sacctmgr show qos``: priority and limits (-1: none)."""

    name: str
    priority: int = 0
    max_jobs_pu: int = _UNLIMITED
    max_submit_pu: int = _UNLIMITED
    grp_cpus: int = _UNLIMITED
    max_wall: int = _UNLIMITED


@dataclass(frozen=True)
class SlurmAssoc:
    """An association of ``sacctmgr show assoc``: an account (``user`` empty) or a user in an
    account; ``shares`` is its Fairshare (-1: ``parent``)."""

    account: str
    user: str = ""
    parent: str = "root"
    shares: int = 1
    max_jobs: int = _UNLIMITED
    grp_cpus: int = _UNLIMITED


@dataclass(frozen=True)
class SlurmParams:
    """Everything the model reads, with Slurm 22.05's defaults (slurm.conf.html).

    ``nodes``: (name, CPUs); empty means one node set of the whole machine.  ``names`` maps
    the trace's numbers to names: ``{"user": {1: "alice"}, "account": …, "qos": …,
    "partition": …}`` (the job's SWF group is its account)."""

    nodes: tuple[tuple[str, int], ...] = ()
    partitions: tuple[SlurmPartition, ...] = ()
    qos: tuple[SlurmQOS, ...] = ()
    assocs: tuple[SlurmAssoc, ...] = ()
    names: dict[str, dict[int, str]] = field(default_factory=dict)
    multifactor: bool = True
    weight_age: int = 0
    weight_fairshare: int = 0
    weight_jobsize: int = 0
    weight_partition: int = 0
    weight_qos: int = 0
    decay_half_life: int = 7 * 86400
    max_age: int = 7 * 86400
    favor_small: bool = False
    calc_period: int = 300
    fair_tree: bool = True
    overtime: int = 0
    enforce_limits: bool = False
    backfill: bool = True
    sched_interval: int = 60
    default_queue_depth: int = 100
    bf_interval: int = 30
    bf_window: int = 86400
    bf_resolution: int = 60
    bf_max_job_test: int = 500
    bf_continue: bool = False
    #: a pass in the same second as a job's end does not see its CPUs yet (see the module)
    release_lag: bool = True
    #: (account, user, decayed CPU-seconds) each association has used before the first
    #: submission (``sshare``'s RawUsage); none: every association starts unused
    initial_usage: tuple[tuple[str, str, float], ...] = ()


def _positive(v: int) -> int:
    return v if v > 0 else 1


@dataclass
class _Site:
    """What the policy derives once from :class:`SlurmParams` and the machine."""

    groups: list[int]  # CPUs per node set
    node_cpus: list[int]  # CPUs of a node of each node set (its largest)
    part_groups: dict[str, list[int]]  # partition -> its node sets
    parts: dict[str, SlurmPartition]
    default_part: str
    qos: dict[str, SlurmQOS]
    shares: dict[tuple[str, str], int]  # (account, user) or (account, "") -> shares
    max_jobs: dict[tuple[str, str], int]
    grp_cpus: dict[str, int]  # account -> GrpTRES cpu
    max_job_factor: int
    max_qos_priority: int


def _site(p: SlurmParams, capacity: int) -> _Site:
    """Node sets (nodes in the same partitions), partitions, QOS and associations by name."""
    parts = {x.name: x for x in p.partitions} or {"all": SlurmPartition("all", ("*",))}
    cpus = dict(p.nodes) or {"*": capacity}
    member: dict[str, frozenset[str]] = {}
    for n in cpus:
        member[n] = frozenset(x.name for x in parts.values() if n in x.nodes or "*" in x.nodes)
    keys = sorted({m for m in member.values() if m}, key=sorted)
    groups = [sum(cpus[n] for n in cpus if member[n] == m) for m in keys]
    node_cpus = [max(cpus[n] for n in cpus if member[n] == m) for m in keys]
    if not p.nodes:  # a machine without nodes: every CPU a node
        node_cpus = [1 for _ in keys]
    part_groups = {name: [i for i, m in enumerate(keys) if name in m] for name in parts}
    default = next((x.name for x in parts.values() if x.default), next(iter(parts)))
    shares = {(a.account, a.user): a.shares if a.shares >= 0 else 1 for a in p.assocs}
    max_jobs = {(a.account, a.user): a.max_jobs for a in p.assocs if a.max_jobs >= 0}
    grp = {a.account: a.grp_cpus for a in p.assocs if not a.user and a.grp_cpus >= 0}
    qos = {q.name: q for q in p.qos} or {"normal": SlurmQOS("normal")}
    return _Site(
        groups, node_cpus, part_groups, parts, default, qos, shares, max_jobs, grp,
        max(x.job_factor for x in parts.values()), max(q.priority for q in qos.values()),
    )  # fmt: skip


class SlurmPolicy(Policy):
    """Slurm's multifactor priority, main and backfill schedulers (see the module)."""

    name = "slurm"

    def __init__(self, state: ClusterState, params: SlurmParams | None = None) -> None:
        super().__init__(state)
        self.p = p = params or SlurmParams()
        self.site = s = _site(p, state.capacity)
        if sum(s.groups) != state.capacity:
            raise ValueError(
                f"the nodes in partitions have {sum(s.groups)} CPUs; the machine {state.capacity}"
            )
        # One profile per node set, each an attribute of its own: Simulator.fork copies a
        # policy's Profile attributes (a list of them would be shared with the twin).
        self._set_names = tuple(f"_nodeset{i}" for i in range(len(s.groups)))
        for attr, n in zip(self._set_names, s.groups, strict=True):
            setattr(self, attr, Profile(n, state.profile.origin))
        self.prio: dict[int, int] = {}
        self.alloc: dict[int, tuple[tuple[int, int], ...]] = {}  # running job -> (set, cpus)
        # decayed CPU-seconds per association, from what it had used before (sshare)
        self.usage: dict[tuple[str, str], float] = {(a, u): x for a, u, x in p.initial_usage}
        self.charged: dict[int, int] = {}  # job run since the last charge -> charged up to
        self.ended: dict[int, int] = {}  # job ended since the last charge -> its end
        self.fs: dict[tuple[str, str], float] = {}  # fair-share factors of the last calc
        self.count: dict[tuple, int] = {}  # limit counters
        self.rejected: dict[int, str] = {}  # job -> reason it never runs
        self.ticks = [-1, -1, -1, -1]  # origin, last main pass, backfill, priority calc
        self.meta: dict[int, tuple[str, str, str, str]] = {}  # job -> user, account, part, qos
        self._started: dict[int, int] = {}  # running job -> start
        self.dirty = [True, True]  # something changed since the last main / backfill pass
        self.freed: list[tuple[int, int, int]] = []  # (end, node set, CPUs) of ended jobs
        self._done: tuple[tuple[int, int], ...] = ()

    @property
    def sets(self) -> list[Profile]:
        """The node sets' profiles (see ``__init__``)."""
        return [getattr(self, attr) for attr in self._set_names]

    # ------------------------------------------------------------ jobs' names and limits

    def _names(self, k: int) -> tuple[str, str, str, str]:
        """(user, account, partition, QOS) of job ``k``; unknown ones get the defaults."""
        j, names, s = self.jobs[k], self.p.names, self.site
        user = names.get("user", {}).get(j.user, f"user{j.user}")
        account = names.get("account", {}).get(j.group, "")
        if not account:
            account = next((a for a, u in s.shares if u == user), f"group{j.group}")
        part = names.get("partition", {}).get(j.partition, s.default_part)
        qos = names.get("qos", {}).get(j.queue, "normal")
        return user, account, part if part in s.parts else s.default_part, qos

    def _rejection(self, k: int, meta: tuple[str, str, str, str]) -> str | None:
        """Why job ``k`` can never run here, at its submission (qos.html; slurm.conf.html)."""
        user, _, part, qos_name = meta
        limit = self.estimate[k] - self.p.overtime
        pmax = self.site.parts[part].max_time
        if pmax >= 0 and limit > pmax:
            return "PartitionTimeLimit"
        if self.procs[k] > sum(self.site.groups[g] for g in self.site.part_groups[part]):
            return "PartitionConfig (more CPUs than the partition)"
        q = self.site.qos.get(qos_name)
        if q is None or not self.p.enforce_limits:
            return None
        if q.max_wall >= 0 and limit > q.max_wall:
            return "QOSMaxWallDurationPerJobLimit"
        if q.max_submit_pu >= 0 and self.count.get(("sub", qos_name, user), 0) >= q.max_submit_pu:
            return "QOSMaxSubmitJobPerUserLimit"
        return None

    def _held(self, k: int) -> bool:
        """Job ``k`` waits for a QOS or association limit now (resource_limits.html)."""
        if not self.p.enforce_limits:
            return False
        user, account, _, qos_name = self.meta[k]
        c, n = self.count, self.procs[k]
        q = self.site.qos.get(qos_name)
        if q is not None:
            if q.max_jobs_pu >= 0 and c.get(("run", qos_name, user), 0) >= q.max_jobs_pu:
                return True
            if q.grp_cpus >= 0 and c.get(("cpu", qos_name), 0) + n > q.grp_cpus:
                return True
        mj = self.site.max_jobs.get((account, user), -1)
        if mj >= 0 and c.get(("arun", account, user), 0) >= mj:
            return True
        g = self.site.grp_cpus.get(account, -1)
        return g >= 0 and c.get(("acpu", account), 0) + n > g

    def _counted(self, k: int, sign: int) -> None:
        user, account, _, qos_name = self.meta[k]
        n = self.procs[k] * sign
        for key, d in (
            (("run", qos_name, user), sign), (("cpu", qos_name), n),
            (("arun", account, user), sign), (("acpu", account), n),
        ):  # fmt: skip
            self.count[key] = self.count.get(key, 0) + d

    # ------------------------------------------------------------ events

    def submit(self, k: int, now: int) -> None:
        if self.ticks[0] < 0:
            self.ticks[:] = [now, now, now, now]
        self.meta[k] = meta = self._names(k)
        why = self._rejection(k, meta)
        if why is not None:
            self.rejected[k] = why
            return
        key = ("sub", meta[3], meta[0])
        self.count[key] = self.count.get(key, 0) + 1
        self.queue.append(k)
        self.prio[k] = self._priority(k, now, self.fs)
        self.dirty[:] = [True, True]

    def complete(self, k: int, now: int, early: bool) -> None:
        if k in self.charged:
            self.ended[k] = now
        end = now if early else None
        self._done = self.alloc.pop(k, ())
        for g, n in self._done:
            planned = self._started[k] + self.estimate[k]
            if end is not None and end < planned:
                self.sets[g].release(end, planned, n)
        self._started.pop(k, None)
        if self.p.release_lag:
            self.freed.extend((now, g, n) for g, n in self.alloc_done(k))
        self._counted(k, -1)
        key = ("sub", self.meta[k][3], self.meta[k][0])
        self.count[key] -= 1
        self.dirty[:] = [True, True]

    def waiting_count(self) -> int:
        return len(self.queue)

    def untouched(self) -> bool:
        return not self.queue and not self.alloc and not self.usage

    def next_wakeup(self) -> int | None:
        """The next priority recomputation while jobs wait, and the next backfill pass when
        something changed since the last one.  (A pass over an unchanged queue and machine
        decides nothing new, so those are skipped: the same schedule, fewer instants.)"""
        if not self.queue:
            return None
        origin = self.ticks[0]
        now = self.sets[0].origin if self.sets else origin
        out = None
        for every in self._periods():
            t = now + every - (now - origin) % every
            out = t if out is None or t < out else out
        return out

    def _periods(self) -> tuple[int, ...]:
        p = self.p
        periods = []
        if p.multifactor and (p.weight_age or p.weight_fairshare):
            periods.append(_positive(p.calc_period))
        if self.dirty[0]:
            periods.append(_positive(p.sched_interval))
        if p.backfill and self.dirty[1]:
            periods.append(_positive(p.bf_interval))
        return tuple(periods)

    def _due(self, now: int, every: int) -> bool:
        return (now - self.ticks[0]) % _positive(every) == 0

    # ------------------------------------------------------------ decisions

    def schedule(self, now: int, changed: bool) -> list[int]:
        for prof in self.sets:
            prof.advance(now)
        if not self.queue:
            return []
        if self.p.multifactor and now > self.ticks[0] and self._due(now, self.p.calc_period):
            self._recalc(now)
        held = self._hold_freed(now)
        try:
            started = []
            if self.dirty[0] and self._due(now, self.p.sched_interval):
                started = self._main(now)
                self.dirty[0] = bool(held)
            if self.p.backfill and self.dirty[1] and self._due(now, self.p.bf_interval):
                started += self._backfill(now)
                self.dirty[1] = bool(held)
        finally:
            for g, n in held:
                self.sets[g].release(now, now + 1, n)
        if started:
            gone = set(started)
            self.queue[:] = [k for k in self.queue if k not in gone]
            for k in started:
                del self.prio[k]
        return started

    def alloc_done(self, k: int) -> tuple[tuple[int, int], ...]:
        """The node sets and CPUs job ``k`` held (as :meth:`complete` found them)."""
        return self._done

    def _hold_freed(self, now: int) -> list[tuple[int, int]]:
        """Hold the CPUs of the jobs that ended at ``now`` over ``[now, now + 1)``: sacct
        records the second a job ends, and slurmctld releases its nodes once the job's
        completion is processed, so a pass within that second does not see them (on a real
        Slurm 22.05 a job starts 1-2 s after the end that frees its CPUs: tests/slurm)."""
        freed, self.freed[:] = [(g, n) for t, g, n in self.freed if t == now], []
        for g, n in freed:
            self.sets[g].reserve(now, now + 1, n)
        return freed

    def _order(self) -> list[int]:
        prio, sub = self.prio, self.submit_time
        return sorted(self.queue, key=lambda k: (-prio[k], sub[k], k))

    def _start(self, k: int, now: int, alloc: tuple[tuple[int, int], ...]) -> None:
        end = now + self.estimate[k]
        for g, n in alloc:
            self.sets[g].reserve(now, end, n)
        self.profile.reserve(now, end, self.procs[k])
        self.alloc[k] = alloc
        self._started[k] = now
        if self.p.multifactor and self.p.weight_fairshare:  # usage only feeds fair share
            self.charged[k] = now
        self._counted(k, +1)

    def _main(self, now: int) -> list[int]:
        """The main scheduler's pass (sched_config.html: default_queue_depth)."""
        started: list[int] = []
        unavailable: set[int] = set()
        for i, k in enumerate(self._order()):
            if i >= self.p.default_queue_depth:
                break
            if self._held(k):
                continue
            sets = [g for g in self.site.part_groups[self.meta[k][2]] if g not in unavailable]
            alloc = self._place(k, now, now + self.estimate[k], sets) if sets else None
            if alloc is None:
                unavailable.update(self.site.part_groups[self.meta[k][2]])
                continue
            self._start(k, now, alloc)
            started.append(k)
        return started

    def _place(self, k: int, a: int, b: int, sets: list[int]) -> tuple[tuple[int, int], ...] | None:
        """CPUs for job ``k`` over ``[a, b)`` in ``sets``: in one node set if one has them
        (the first, in order), else spread over several; None if they are not free."""
        n = self.procs[k]
        profiles = self.sets
        free = [(g, profiles[g].free_over(a, b)) for g in sets]
        for g, f in free:
            if f >= n:
                return ((g, n),)
        if sum(f for _, f in free) < n:
            return None
        out, left = [], n
        for g, f in free:
            take = min(f, left)
            if take:
                out.append((g, take))
                left -= take
        return tuple(out)

    def _backfill(self, now: int) -> list[int]:
        """One backfill pass (sched_config.html; slurm.conf.html bf_* parameters)."""
        p = self.p
        res = _positive(p.bf_resolution)
        horizon = now + p.bf_window
        started: list[int] = []
        planned: list[tuple[int, int, int, int]] = []  # (set, start, end, cpus)
        try:
            for i, k in enumerate(self._order()):
                if i >= p.bf_max_job_test:
                    break
                if k in self._started or self._held(k):
                    continue
                d = -(-self.estimate[k] // res) * res
                sets = self.site.part_groups[self.meta[k][2]]
                s = self._earliest(k, now, d, sets)
                if s is None or s > horizon:
                    continue
                if s == now:
                    alloc = self._place(k, now, now + d, sets)
                    if alloc is not None:
                        self._start(k, now, alloc)
                        started.append(k)
                        continue
                for g, n in self._place(k, s, s + d, sets) or ():
                    n = self._whole_nodes(g, n, s, s + d)
                    self.sets[g].reserve(s, s + d, n)
                    planned.append((g, s, s + d, n))
        finally:
            for g, a, b, n in planned:
                self.sets[g].release(a, b, n)
        return started

    def _whole_nodes(self, g: int, n: int, a: int, b: int) -> int:
        """CPUs a reservation of ``n`` CPUs holds in node set ``g`` over ``[a, b)`` of the
        backfill plan: whole nodes (the plan's node bitmaps, sched_config.html), so the
        other CPUs of those nodes are not backfilled over that interval."""
        c = self.site.node_cpus[g]
        return min(self.sets[g].free_over(a, b), -(-n // c) * c)

    def _earliest(self, k: int, now: int, d: int, sets: list[int]) -> int | None:
        """Earliest start of job ``k`` (duration ``d``) on ``sets``, rounded up to the
        backfill resolution from ``now``."""
        n, res = self.procs[k], _positive(self.p.bf_resolution)
        best = None
        profiles = self.sets
        for g in sets:
            s = profiles[g].earliest_start(n, d, now)
            if s is not None and (best is None or s < best):
                best = s
        if best is None:  # spread over several node sets: try every breakpoint
            times = sorted({t for g in sets for t in profiles[g].times if t >= now} | {now})
            best = next(
                (t for t in times if sum(profiles[g].free_over(t, t + d) for g in sets) >= n),
                None,
            )
        if best is None or best == now:
            return best
        return now + -(-(best - now) // res) * res

    # ------------------------------------------------------------ priority

    def _charge(self, now: int) -> None:
        """Charge running jobs' CPU-seconds up to ``now`` (priority_multifactor.html)."""
        usage, ended = self.usage, self.ended
        for k, t in self.charged.items():
            end = min(now, ended.get(k, now))
            if end > t:
                key = (self.meta[k][1], self.meta[k][0])
                usage[key] = usage.get(key, 0.0) + self.procs[k] * (end - t)
                self.charged[k] = end
        for k in ended:
            del self.charged[k]
        ended.clear()

    def _recalc(self, now: int) -> None:
        """Decay the usage and recompute every pending job's priority (PriorityCalcPeriod)."""
        last = self.ticks[3]
        self._charge(now)
        if now > last >= 0 and self.p.decay_half_life > 0:
            f = 0.5 ** ((now - last) / self.p.decay_half_life)
            for key in self.usage:
                self.usage[key] *= f
        self.ticks[3] = now
        self.fs = fs = self._fairshare_factors()
        for k in self.queue:
            self.prio[k] = self._priority(k, now, fs)
        self.dirty[:] = [True, True]

    def _priority(self, k: int, now: int, fs: dict[tuple[str, str], float]) -> int:
        """The multifactor priority of job ``k`` (priority_multifactor.html), or FIFO."""
        p, s = self.p, self.site
        if not p.multifactor:
            return -k
        user, account, part, qos_name = self.meta[k]
        age = min(1.0, (now - self.submit_time[k]) / p.max_age) if p.max_age > 0 else 0.0
        size = self.procs[k] / self.capacity
        if p.favor_small:
            size = 1.0 - size
        pf = s.parts[part].job_factor / s.max_job_factor if s.max_job_factor > 0 else 0.0
        q = s.qos.get(qos_name)
        qf = q.priority / s.max_qos_priority if q is not None and s.max_qos_priority > 0 else 0.0
        total = (
            p.weight_age * age + p.weight_fairshare * fs.get((account, user), self._fs0)
            + p.weight_jobsize * size + p.weight_partition * pf + p.weight_qos * qf
        )  # fmt: skip
        return int(total)

    @property
    def _fs0(self) -> float:
        """The fair-share factor of an association not yet computed: Fair Tree computes it
        at the next recomputation (0 until then, as a real Slurm's first jobs show); classic
        fair share of no usage is 1."""
        return 0.0 if self.p.fair_tree else 1.0

    def _tree(self) -> dict[str, dict[str, tuple[float, float]]]:
        """Account -> user -> (shares, usage), every association with a pending job included."""
        tree: dict[str, dict[str, tuple[float, float]]] = {}
        for (account, user), n in self.site.shares.items():
            if user:
                tree.setdefault(account, {})[user] = (float(n), 0.0)
        for k in self.queue:
            user, account = self.meta[k][0], self.meta[k][1]
            tree.setdefault(account, {}).setdefault(user, (1.0, 0.0))
        for (account, user), u in self.usage.items():
            n = tree.setdefault(account, {}).get(user, (1.0, 0.0))[0]
            tree[account][user] = (n, u)
        return tree

    def _fairshare_factors(self) -> dict[tuple[str, str], float]:
        """Fair-share factor per (account, user): classic or Fair Tree."""
        if not self.p.weight_fairshare:
            return {}
        tree, shares = self._tree(), self.site.shares
        # users of the root account stand beside the accounts: their own shares count
        acct_shares = {
            a: float(sum(n for n, _ in tree[a].values()) if a == "root" else shares.get((a, ""), 1))
            for a in tree
        }
        total_s = sum(acct_shares.values()) or 1.0
        total_u = sum(u for users in tree.values() for _, u in users.values())
        if self.p.fair_tree:
            return _fair_tree(tree, acct_shares, total_s, total_u)
        return _classic(tree, acct_shares, total_s, total_u)


def _classic(tree: Any, acct_shares: dict, total_s: float, total_u: float) -> dict:
    """Classic fair share (priority_multifactor.html, "The Fair-share Factor")."""
    out = {}
    for account, users in tree.items():
        s_acct = acct_shares[account] / total_s
        u_acct = sum(u for _, u in users.values()) / total_u if total_u > 0 else 0.0
        sib = sum(n for n, _ in users.values()) or 1.0
        for user, (n, u) in users.items():
            u_norm = u / total_u if total_u > 0 else 0.0
            ue = u_norm + (u_acct - u_norm) * n / sib
            s = s_acct * n / sib
            out[(account, user)] = 2.0 ** (-ue / s) if s > 0 else 0.0
    return out


def _level(s: float, u: float) -> float:
    return float("inf") if u <= 0 else s / u


def _fair_tree(tree: Any, acct_shares: dict, total_s: float, total_u: float) -> dict:
    """Fair Tree (fair_tree.html): siblings ranked by Level Fairshare ``S/U``, depth first
    (accounts of equal Level Fairshare have their users sorted together); factor rank/users."""
    acct_u = {a: sum(u for _, u in users.values()) for a, users in tree.items()}
    levels = {
        a: _level(acct_shares[a] / total_s, acct_u[a] / total_u if total_u > 0 else 0.0)
        for a in tree
    }
    order: list[tuple[tuple[float, float], str, str]] = []
    for lf in sorted(set(levels.values()), reverse=True):
        merged = []
        for account in sorted(a for a in tree if levels[a] == lf):
            users, sib_u = tree[account], acct_u[account]
            sib_s = sum(n for n, _ in users.values()) or 1.0
            for user, (n, u) in users.items():
                merged.append((_level(n / sib_s, u / sib_u if sib_u > 0 else 0.0), account, user))
        for ulf, account, user in sorted(merged, key=lambda m: (-m[0], m[1], m[2])):
            order.append(((lf, ulf), account, user))
    n = len(order)
    out, rank, prev = {}, n, None
    for i, (tie, account, user) in enumerate(order):
        if tie != prev:
            rank = n - i
            prev = tie
        out[(account, user)] = rank / n if n else 1.0
    return out
