"""The site policy enforcement point, S-PEP (Dumitrescu, Wilde & Foster 2005, slide 12, "S-PEP
Processing Logic").

The seed's loop, for every VO *i* with epoch policy ``EP_i``, burst policy ``BP_i``, burst
allocation ``BA_i`` and epoch allocation ``EA_i`` on a site of ``TOTAL`` CPUs::

    Case 1 (fill BP_i):  Σ BA_j = 0 and BA_i < BP_i and Q_i has jobs      → release a job of i
    Case 2 (available):  Σ BA_k < TOTAL and BA_i < BP_i and Q_i has jobs  → release a job of i
    Case 3 (contention): Σ BA_k = TOTAL and BA_i < EP_i and Q_i has jobs →
                         if some VO j has BA_j > EP_j: suspend an over-quota job of j,
                         release a job of i
    finally, for every VO i with EA_i > EP_i: suspend jobs of i

How this module reads it (each choice keeps the seed's intent and is tested):

* ``BA_i`` in a decision is the share VO *i* holds at this poll, and the tests ask whether the
  candidate job *fits*: ``held_i + n ≤ BP_i · TOTAL`` (cases 1–2) or ``≤ EP_i · TOTAL``
  (case 3).  The literal "``BA_i < BP_i`` before the release" overshoots by up to one job, and
  in case 3 two VOs each one job over their share would suspend each other's jobs forever.
  Case 1 is case 2 with an idle site.
* contention means the candidate does not fit the free CPUs.  Victims of case 3 are running jobs
  of VOs over their epoch share, most recently (re)started first, taken while their VO is still
  over its share, until the candidate fits; nothing is suspended when that is not enough.
* ``EA_i`` is the usage over the epoch window ending now (zero before time 0, see
  :mod:`.state`).  A release must keep ``EA_i`` within ``EP_i`` at the end of this step; the
  final rule fires when ``EA_i > EP_i`` and suspends the VO's jobs, most recent first, until
  that projection is back within ``EP_i`` (the least disruptive "suspend jobs for VO_i").
* each round releases at most one job per VO, VOs in order of need (held / ``EP``); rounds
  repeat until nothing more can be released.  A suspended job keeps its progress, waits in the
  site queue and is resumed before newer jobs of its group.
* **recursive shares** are enforced the same way one level down: a job must fit its group's
  shares as well as its VO's (absolute group shares, :mod:`.shares`); a group's epoch quota is
  checked like a VO's; in case 3 a job of a group under its epoch share may also take the place
  of a sibling group's job that is over its share, as long as the VO does not grow.
"""

from __future__ import annotations

from collections.abc import Iterable

from .simulator import GridState, Strategy
from .state import EPS, JobRun, SiteState
from .vpep import vpep_dispatch, vpep_feasible

__all__ = ["SPEP", "spep_pass"]


def _ratio(held: float, share: float | None) -> float:
    if share is None:
        return 0.0
    return held / share if share > 0 else float("inf")


def _within(site: SiteState, path: tuple[int, ...], n: int, caps: list[float | None]) -> bool:
    return all(caps[p] is None or site.held[p] + n <= caps[p] + EPS for p in path)


def _epoch_room(site: SiteState, path: tuple[int, ...], n: int, k: int) -> bool:
    """Running ``n`` more CPUs this step keeps every level within its epoch quota."""
    for p in path:
        ep = site.shares.epoch[p]
        if ep is not None and site.projected_epoch(p, k, n) > ep + EPS:
            return False
    return True


def _enforce_epoch_quota(site: SiteState, k: int) -> None:
    """The final rule: suspend jobs of every VO (or group) with ``EA > EP``."""
    for node, ep in enumerate(site.shares.epoch):
        if ep is None or site.held[node] == 0 or site.epoch_usage(node, k) <= ep + EPS:
            continue
        victims = [r for r in site.running.values() if node in r.path]
        victims.sort(key=lambda r: (-r.last_start, -r.job.id))
        for r in victims:
            if site.projected_epoch(node, k, 0) <= ep + EPS:
                break
            site.suspend(r)


def _preempt(site: SiteState, job: JobRun) -> list[JobRun] | None:
    """Case 3: the over-quota jobs to suspend so that ``job`` runs, or None."""
    need = job.procs - site.free
    ep = site.ep_cpus
    held = site.held
    candidates: list[tuple[JobRun, int]] = []
    for r in site.running.values():
        if r.vo != job.vo:
            if ep[r.vo] is not None and held[r.vo] > ep[r.vo] + EPS:
                candidates.append((r, r.vo))
        elif (
            job.grp is not None
            and r.grp is not None
            and r.grp != job.grp
            and ep[r.grp] is not None
            and held[r.grp] > ep[r.grp] + EPS
        ):
            candidates.append((r, r.grp))
    if not candidates:
        return None
    candidates.sort(key=lambda rc: (-rc[0].last_start, -rc[0].job.id))
    after = list(held)
    picked: list[JobRun] = []
    freed = 0
    for r, over in candidates:
        if after[over] <= ep[over] + EPS:
            continue  # no longer over quota
        picked.append(r)
        freed += r.procs
        for p in r.path:
            after[p] -= r.procs
        if freed >= need:
            break
    if freed < need:
        return None
    n = job.procs
    for p in job.path:
        cap = ep[p]
        if cap is not None and p == job.vo:
            cap = max(cap, held[p])  # a swap between sibling groups must not grow the VO
        bp = site.bp_cpus[p]
        if (cap is not None and after[p] + n > cap + EPS) or (
            bp is not None and after[p] + n > bp + EPS
        ):
            return None
    return picked


def _waiting_by_vo(site: SiteState) -> dict[int, list[list[JobRun]]]:
    """Waiting jobs per VO, as per-group lists: suspended first, then by submission."""
    return waiting_lists(site.waiting.values())


def waiting_lists(jobs: Iterable[JobRun]) -> dict[int, list[list[JobRun]]]:
    """``jobs`` per VO, as per-group lists: suspended first, then by submission."""
    per: dict[int, dict[int, list[JobRun]]] = {}
    for job in jobs:
        key = job.vo if job.grp is None else job.grp
        per.setdefault(job.vo, {}).setdefault(key, []).append(job)
    out: dict[int, list[list[JobRun]]] = {}
    for v, groups in per.items():
        for q in groups.values():
            q.sort(key=lambda j: (j.start is None, j.job.submit, j.job.id))
        out[v] = [groups[key] for key in sorted(groups)]
    return out


def _release_one(site: SiteState, lists: list[list[JobRun]], t: int, k: int) -> bool:
    """Release (start or resume) one job of a VO; True if one was released."""
    ep = site.ep_cpus
    order = sorted(
        range(len(lists)),
        key=lambda i: (_ratio(site.held[lists[i][0].path[-1]], ep[lists[i][0].path[-1]]), i),
    )
    contention_checked = False
    has_over = False
    for i in order:
        for job in lists[i]:
            n = job.procs
            if not _epoch_room(site, job.path, n, k):
                continue  # would take its VO (or group) past the epoch quota
            if n <= site.free:
                if _within(site, job.path, n, site.bp_cpus):  # cases 1 and 2
                    site.start(job, t)
                    lists[i].remove(job)
                    return True
                continue
            if not contention_checked:
                contention_checked = True
                has_over = any(
                    ep[p] is not None and site.held[p] > ep[p] + EPS for p in range(len(ep))
                )
            if not has_over:
                continue
            victims = _preempt(site, job)  # case 3
            if victims is not None:
                for r in victims:
                    site.suspend(r)
                site.start(job, t)
                lists[i].remove(job)
                return True
    return False


def spep_pass(site: SiteState, t: int, k: int) -> None:
    """One S-PEP poll at ``site`` (see the module docstring)."""
    _enforce_epoch_quota(site, k)
    if not site.waiting:
        return
    waiting = _waiting_by_vo(site)
    ep = site.ep_cpus
    while True:
        released = False
        for v in sorted(waiting, key=lambda v: (_ratio(site.held[v], ep[v]), v)):
            lists = [q for q in waiting[v] if q]
            if lists and _release_one(site, lists, t, k):
                released = True
        if not released:
            return


class SPEP(Strategy):
    """S-PEP at every site, fed by each VO's V-PEP."""

    name = "spep"
    title = "S-PEP + V-PEP"

    def feasible(self, grid: GridState, job: JobRun) -> bool:
        return vpep_feasible(grid, job)

    def dispatch(self, grid: GridState, t: int, k: int) -> None:
        vpep_dispatch(grid, k)

    def site_pass(self, grid: GridState, site: SiteState, t: int, k: int) -> None:
        spep_pass(site, t, k)
