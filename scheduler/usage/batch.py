"""The testbed's two batch systems, Condor and OpenPBS/Maui, as enforcement strategies (Dumitrescu,
Wilde & Foster 2005).

Dumitrescu, Wilde & Foster's (2005) 'Comparison Results' table (slide 26) has one row per
enforcement *and* batch system: the stand-alone S-PEP (slide 11, "Sol 1") driving Condor or
OpenPBS/Maui, and the batch system's own fair share enforcing the policy (slide 13, "Sol 2"; Figures
18 and 20 "Condor as S-PEP", "OpenPBS/Maui as S-PEP").  This module models the documented mechanisms
of the two batch systems with their documented defaults, so that each row is checked against its own
simulation:

* :class:`Condor` — the negotiator starts jobs once per negotiation cycle (``NEGOTIATOR_INTERVAL``,
  default 60 s: HTCondor manual, "Negotiator Daemon Configuration Options").  Its fair share is
  the *user priority*: the accountant updates each submitter's real user priority at every
  cycle, ``RUP ← β · RUP + (1 − β) · ρ`` with ρ the CPUs it uses and ``β = 0.5^(Δt / h)``,
  ``h = PRIORITY_HALFLIFE`` (default 86400 s, one day; HTCondor manual, "User Priorities and
  Negotiation"); the lowest RUP is 0.5.  The effective priority ``EUP = RUP · priority factor``;
  the negotiator gives each submitter with idle jobs a part of the pool inversely proportional
  to its EUP (its "pie slice", less what it already runs), then spins the pie again over what is
  left.  The policy's epoch shares become the targets through the priority factors, ``factor_v
  ∝ 1 / EP_v`` (slide 28: "usage policies (based on Condor's extensible fair share) 35 for
  USATLAS and 0.1 for GRIDEX"), so that two VOs with equal usage get resources in the ratio of
  their epoch shares.  No preemption (``PREEMPTION_REQUIREMENTS`` defaults to False).
* :class:`Maui` — Maui schedules once per iteration, every ``RMPOLLINTERVAL`` (default 60 s);
  fair share (``FSPOLICY DEDICATEDPS``) counts each credential's dedicated processor-seconds in
  windows of ``FSINTERVAL`` (default 43200 s), ``FSDEPTH`` windows (default 8) weighted by
  ``FSDECAY^i`` (default 1.0), as a percentage of all delivered; a job's priority rises with its
  VO's ``FSTARGET − usage``.  The defaults are those of the Maui 3.2.6p14 source (``moab.h``:
  ``DEFAULT_RMPOLLINTERVAL 60``, ``DEFAULT_FSINTERVAL 43200``, ``DEFAULT_FSDEPTH 8``,
  ``DEFAULT_FSDECAY 1.0``, ``DEFAULT_BACKFILLPOLICY bfFIRSTFIT``).  The ``FSTARGET`` of each VO
  is its epoch share.  The priority weights are the site's choice (the fair-share
  sub-weights default to 0, which would switch fair share off): fair share orders the queue,
  then queue time.  Every job that fits the free processors starts in priority order
  (FIRSTFIT backfill; the reservation of the top job, ``RESERVATIONDEPTH 1``, needs walltime
  requests, which the seed does not give, and is not modelled).

Strategies (result names):

* ``rm-condor`` / ``rm-pbs`` — the batch system's fair share with the epoch shares as targets; no
  suspension; jobs go to the site on arrival.
* ``spep-condor`` / ``spep-pbs`` — the S-PEP of :mod:`.spep` acting *through* the batch system.
  It polls every step (slide 11: "checks continuously the status of jobs in all queues") and
  runs the seed's loop of slide 12 once per poll — at most one release per VO, as the loop
  reads — on the usage the batch system reports: the running jobs.  A released job is idle in
  the batch queue until the batch system's next cycle, which starts the released jobs in the
  order released, each that fits the free processors; until then the S-PEP does not see it as
  usage.  Suspensions (``condor_suspend``, ``qsig -s suspend``) act at once; when the final rule
  fires for a VO (``EA > EP``) its released, not yet started jobs are held back as well.  Jobs
  reach the site's queue on arrival (slide 23: "Jobs were submitted via the Globus Toolkit
  2.0"; the testbed compares site enforcement, no V-PEP).

The batch systems' fair shares work on VOs (the testbed has no groups); with a policy document
that has groups, the S-PEP variants enforce the group shares as :mod:`.spep` does, the two fair
shares only the VOs'.
"""

from __future__ import annotations

from dataclasses import dataclass

from .simulator import GridState, Strategy
from .spep import _enforce_epoch_quota, _epoch_room, _preempt, _ratio, _within, waiting_lists
from .state import EPS, JobRun, SiteState
from .vpep import least_loaded_dispatch

__all__ = [
    "Condor",
    "CondorFairShare",
    "Maui",
    "MauiFairShare",
    "SPEPOverBatch",
    "SPEPOverCondor",
    "SPEPOverPBS",
    "condor_negotiate",
    "maui_fs_usage",
    "start_first_fit",
]

#: Condor's lowest real user priority (HTCondor manual, "User Priorities and Negotiation").
CONDOR_MIN_RUP = 0.5


@dataclass(frozen=True)
class Condor:
    """Condor's documented defaults (HTCondor manual)."""

    negotiator_interval: int = 60  # NEGOTIATOR_INTERVAL (s)
    priority_halflife: int = 86400  # PRIORITY_HALFLIFE (s)

    @property
    def cycle(self) -> int:
        return self.negotiator_interval


@dataclass(frozen=True)
class Maui:
    """Maui 3.2.6's documented defaults (its source, ``moab.h``)."""

    rmpollinterval: int = 60  # RMPOLLINTERVAL (s)
    fsinterval: int = 43200  # FSINTERVAL (s)
    fsdepth: int = 8  # FSDEPTH
    fsdecay: float = 1.0  # FSDECAY

    @property
    def cycle(self) -> int:
        return self.rmpollinterval


def _cycle_now(t: int, step: int, cycle: int) -> bool:
    """Whether a batch cycle falls in the step starting at ``t`` (cycles at 0, c, 2c, ...)."""
    return (t + step - 1) // cycle > (t - 1) // cycle if t > 0 else True


def start_first_fit(site: SiteState, order: list[JobRun], t: int) -> list[JobRun]:
    """Start every job of ``order`` that fits the free processors, in that order."""
    started = []
    for job in order:
        if job.procs <= site.free:
            site.start(job, t)
            started.append(job)
    return started


# --------------------------------------------------------------------------------------------
# Condor: user priorities and the negotiator's pie
# --------------------------------------------------------------------------------------------


class CondorAccountant:
    """Real user priority per VO at one site, updated at each negotiation cycle."""

    def __init__(self, site: SiteState, halflife: int):
        self.halflife = halflife
        self.rup = {v: CONDOR_MIN_RUP for v, m in enumerate(site.shares.member) if m}
        self.last: int | None = None

    def update(self, site: SiteState, t: int) -> None:
        if self.last is not None and t > self.last:
            beta = 0.5 ** ((t - self.last) / self.halflife)
            for v in self.rup:
                rho = site.held[v]
                self.rup[v] = max(CONDOR_MIN_RUP, beta * self.rup[v] + (1 - beta) * rho)
        self.last = t


def condor_negotiate(
    site: SiteState, idle: dict[int, list[JobRun]], eup: dict[int, float], t: int
) -> list[JobRun]:
    """One negotiation cycle: the pie over the submitters with idle jobs (see the module text).

    ``idle[v]`` is VO *v*'s idle jobs in its own order; ``eup[v]`` its effective priority.  The
    first spin gives each submitter ``pool · (1/EUP_v) / Σ (1/EUP)`` less what it runs; later
    spins share what is left of the free processors the same way; when a spin matches nothing,
    a last pass in priority order lets any job that fits start (the pie's leftovers).
    """
    started: list[JobRun] = []
    queues = {v: list(q) for v, q in idle.items() if q}
    first = True
    while queues and site.free > 0:
        weights = {v: 1.0 / eup[v] for v in queues}  # 0 for a VO without a share
        total = sum(weights.values())
        if total <= 0:  # only VOs without a share wait: split evenly
            weights = dict.fromkeys(queues, 1.0)
            total = float(len(queues))
        pie = site.cpus if first else site.free
        matched = False
        for v in sorted(queues, key=lambda v: (eup[v], v)):
            limit = pie * weights[v] / total - (site.held[v] if first else 0)
            q = queues[v]
            for job in list(q):
                if job.procs <= site.free and job.procs <= limit + EPS:
                    site.start(job, t)
                    started.append(job)
                    q.remove(job)
                    limit -= job.procs
                    matched = True
        queues = {v: q for v, q in queues.items() if q}
        if not matched and not first:
            for v in sorted(queues, key=lambda v: (eup[v], v)):
                started += start_first_fit(site, queues[v], t)
            break
        first = False
    return started


class CondorFairShare(Strategy):
    """Condor enforcing the policy itself ("Condor as S-PEP", Figure 18)."""

    name = "rm-condor"
    title = "Condor fair share (RM/Condor)"

    def __init__(self, condor: Condor | None = None):
        self.condor = condor or Condor()
        self.accountants: dict[int, CondorAccountant] = {}

    def dispatch(self, grid: GridState, t: int, k: int) -> None:
        least_loaded_dispatch(grid)

    def site_pass(self, grid: GridState, site: SiteState, t: int, k: int) -> None:
        if not _cycle_now(t, grid.step, self.condor.cycle):
            return
        acc = self.accountants.setdefault(
            site.index, CondorAccountant(site, self.condor.priority_halflife)
        )
        acc.update(site, t)
        if not site.waiting:
            return
        ep = site.shares.epoch
        # priority factor ∝ 1 / EP_v: EUP_v = RUP_v / EP_v (a VO with no share: last)
        eup = {v: (r / ep[v] if ep[v] else float("inf")) for v, r in acc.rup.items()}
        idle: dict[int, list[JobRun]] = {}
        for job in sorted(site.waiting.values(), key=lambda j: (j.job.submit, j.job.id)):
            idle.setdefault(job.vo, []).append(job)
        condor_negotiate(site, idle, {v: eup.get(v, float("inf")) for v in idle}, t)


# --------------------------------------------------------------------------------------------
# Maui: fair-share windows and priority order
# --------------------------------------------------------------------------------------------


def maui_fs_usage(site: SiteState, k: int, maui: Maui) -> dict[int, float]:
    """Each member VO's fair-share usage at the start of step ``k``: its decayed share of the
    processor-seconds delivered in the last ``FSDEPTH`` windows of ``FSINTERVAL`` (windows
    aligned on time 0, the current one partial), as a fraction."""
    step = site.step
    w = max(1, round(maui.fsinterval / step))
    current = k // w
    vos = [v for v, m in enumerate(site.shares.member) if m]
    num = dict.fromkeys(vos, 0.0)
    den = 0.0
    for i in range(min(maui.fsdepth, current + 1)):
        lo, hi = (current - i) * w, min(k, (current - i + 1) * w)
        weight = maui.fsdecay**i
        for v in vos:
            used = site.cum[v][hi] - site.cum[v][lo]
            num[v] += weight * used
            den += weight * used
    return {v: (num[v] / den if den > 0 else 0.0) for v in vos}


class MauiFairShare(Strategy):
    """OpenPBS/Maui enforcing the policy itself ("OpenPBS/Maui as S-PEP", Figure 20)."""

    name = "rm-pbs"
    title = "OpenPBS/Maui fair share (RM/PBS)"

    def __init__(self, maui: Maui | None = None):
        self.maui = maui or Maui()

    def dispatch(self, grid: GridState, t: int, k: int) -> None:
        least_loaded_dispatch(grid)

    def site_pass(self, grid: GridState, site: SiteState, t: int, k: int) -> None:
        if not site.waiting or not _cycle_now(t, grid.step, self.maui.cycle):
            return
        usage = maui_fs_usage(site, k, self.maui)
        ep = site.shares.epoch
        prio = {v: (ep[v] or 0.0) - u for v, u in usage.items()}

        def key(job: JobRun) -> tuple:
            return (-prio.get(job.vo, 0.0), job.job.submit, job.job.id)

        start_first_fit(site, sorted(site.waiting.values(), key=key), t)


# --------------------------------------------------------------------------------------------
# The stand-alone S-PEP acting through a batch system
# --------------------------------------------------------------------------------------------


def _release_one_lagged(
    site: SiteState, lists: list[list[JobRun]], k: int, released: dict[int, JobRun]
) -> bool:
    """The seed's cases 1–3 for one VO, on the usage the batch system reports; a released job
    waits for the batch system's next cycle (see the module text)."""
    ep = site.ep_cpus
    order = sorted(
        range(len(lists)),
        key=lambda i: (_ratio(site.held[lists[i][0].path[-1]], ep[lists[i][0].path[-1]]), i),
    )
    for i in order:
        for job in lists[i]:
            n = job.procs
            if not _epoch_room(site, job.path, n, k):
                continue
            if n <= site.free:
                if _within(site, job.path, n, site.bp_cpus):  # cases 1 and 2
                    released[job.job.id] = job
                    return True
                continue
            if not any(ep[p] is not None and site.held[p] > ep[p] + EPS for p in range(len(ep))):
                continue
            victims = _preempt(site, job)  # case 3
            if victims is not None:
                for r in victims:
                    site.suspend(r)
                released[job.job.id] = job
                return True
    return False


def lagged_spep_pass(site: SiteState, t: int, k: int, released: dict[int, JobRun]) -> None:
    """One S-PEP poll through a batch system: the final rule, then the seed's loop once."""
    _enforce_epoch_quota(site, k)
    for node, e in enumerate(site.shares.epoch):
        if e is not None and site.epoch_usage(node, k) > e + EPS:
            for jid in [jid for jid, j in released.items() if node in j.path]:
                del released[jid]  # "suspend jobs for VO_i from all Q_i": hold them back
    unreleased = [j for j in site.waiting.values() if j.job.id not in released]
    if not unreleased:
        return
    per_vo = waiting_lists(unreleased)
    ep = site.ep_cpus
    for v in sorted(per_vo, key=lambda v: (_ratio(site.held[v], ep[v]), v)):
        lists = [q for q in per_vo[v] if q]
        if lists:
            _release_one_lagged(site, lists, k, released)


class SPEPOverBatch(Strategy):
    """The stand-alone S-PEP driving a batch system that starts jobs once per ``cycle``."""

    name = "spep-batch"
    title = "S-PEP over a batch system"

    def __init__(self, cycle: int = 60):
        if cycle < 1:
            raise ValueError("the batch system's cycle must be at least 1 s")
        self.cycle = cycle
        self.released: dict[int, dict[int, JobRun]] = {}

    def batch_start(self, site: SiteState, jobs: list[JobRun], t: int) -> list[JobRun]:
        """The batch system's cycle: start released ``jobs`` (in release order) that fit."""
        return start_first_fit(site, jobs, t)

    def dispatch(self, grid: GridState, t: int, k: int) -> None:
        least_loaded_dispatch(grid)

    def site_pass(self, grid: GridState, site: SiteState, t: int, k: int) -> None:
        released = self.released.setdefault(site.index, {})
        for jid in [jid for jid in released if jid not in site.waiting]:
            del released[jid]  # started, or finished meanwhile
        lagged_spep_pass(site, t, k, released)
        if released and _cycle_now(t, grid.step, self.cycle):
            for job in self.batch_start(site, list(released.values()), t):
                del released[job.job.id]


class SPEPOverCondor(SPEPOverBatch):
    name = "spep-condor"
    title = "S-PEP over Condor (S-PEP/Condor)"

    def __init__(self, condor: Condor | None = None):
        self.condor = condor or Condor()
        self.accountants: dict[int, CondorAccountant] = {}
        super().__init__(self.condor.cycle)

    def batch_start(self, site: SiteState, jobs: list[JobRun], t: int) -> list[JobRun]:
        """Condor's negotiator over the released jobs: user priorities with the default
        priority factor (the policy is the S-PEP's, not Condor's)."""
        acc = self.accountants.setdefault(
            site.index, CondorAccountant(site, self.condor.priority_halflife)
        )
        acc.update(site, t)
        idle: dict[int, list[JobRun]] = {}
        for job in sorted(jobs, key=lambda j: (j.job.submit, j.job.id)):
            idle.setdefault(job.vo, []).append(job)
        return condor_negotiate(site, idle, {v: acc.rup.get(v, CONDOR_MIN_RUP) for v in idle}, t)


class SPEPOverPBS(SPEPOverBatch):
    name = "spep-pbs"
    title = "S-PEP over OpenPBS/Maui (S-PEP/PBS)"

    def __init__(self, maui: Maui | None = None):
        self.maui = maui or Maui()
        super().__init__(self.maui.cycle)

    def batch_start(self, site: SiteState, jobs: list[JobRun], t: int) -> list[JobRun]:
        """Maui's default priority over the released jobs: queue time (``QUEUETIMEWEIGHT 1``,
        ``FSPOLICY NONE``), FIRSTFIT."""
        return start_first_fit(site, sorted(jobs, key=lambda j: (j.job.submit, j.job.id)), t)
