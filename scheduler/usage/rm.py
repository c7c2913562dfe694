"""The baselines: the local resource manager's fair share, and no policy at all
(Dumitrescu, Wilde & Foster 2005).

Both send each job on arrival to the least loaded site of its VO (:func:`.vpep.
least_loaded_dispatch`); neither ever suspends a job.  The site starts jobs in its queue order
while the first one fits the free processors (no backfilling, so the two differ only in the
order):

* ``none`` — FCFS: the order of arrival;
* ``rm-fairshare`` — the local resource manager's fair share, as Maui's or Condor's priority
  configured with the policy's epoch shares as fair-share targets (Dumitrescu, Wilde & Foster 2005,
  slide 28: "usage policies based on Condor's extensible fair share"; Singh, Kesselman & Deelman
  2005, §2: "Fair share on user based historical usage").  At each poll, for a job of VO *v*
  (group *g*) at a site::

      f_v    = U_v / Σ_u U_u          (VO's part of the CPU-time the site delivered)
      f_g|v  = U_g / U_v              (group's part of its VO's CPU-time)
      prio   = (EP_v − f_v) + EP_v · (EP_g|v − f_g|v)

  where ``U_x`` is the CPU-seconds of *x* at the site over its epoch window (the sliding
  fair-share window, no decay), ``EP_v`` the VO's epoch share of the site and ``EP_g|v`` the
  group's epoch share of its VO (fractions; a fraction with a zero denominator is 0, and the
  group term is 0 for a group without a policy).  The queue runs in decreasing priority, then
  submission time, then job id.  The group term is scaled by ``EP_v`` so that both terms are
  shares of the site.  A consumer under its target climbs the queue, one over it sinks, but a
  running job is never stopped and an idle site gives any VO everything it asks for: bursts are
  not limited at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from .simulator import GridState, Strategy
from .state import SiteState
from .vpep import least_loaded_dispatch

__all__ = ["FCFS", "FairShare", "fairshare_priorities", "start_in_order"]


def start_in_order(site: SiteState, order: list, t: int) -> None:
    """Start jobs in ``order`` while the first one fits (no backfilling)."""
    for job in order:
        if job.procs > site.free:
            return
        site.start(job, t)


def fairshare_priorities(site: SiteState, k: int, vo_of: Sequence[int]) -> dict[int, float]:
    """Fair-share priority per node at the start of step ``k`` (``vo_of[node]`` = its VO)."""
    ep = site.shares.epoch
    used = {n: site.window_sum(n, k, w) for n, w in enumerate(site.ew) if w is not None}
    vos = [v for v, member in enumerate(site.shares.member) if member]
    total = sum(used[v] for v in vos)
    prio: dict[int, float] = {v: ep[v] - (used[v] / total if total > 0 else 0.0) for v in vos}
    for node, e in enumerate(ep):
        if node in prio or e is None:
            continue
        v = vo_of[node]  # a group with a policy at this site
        target = e / ep[v] if ep[v] else 0.0
        f_g = used[node] / used[v] if used[v] > 0 else 0.0
        prio[node] = prio[v] + ep[v] * (target - f_g)
    return prio


class FCFS(Strategy):
    """No policy: first come, first served at every site."""

    name = "none"
    title = "No policy (FCFS)"

    def dispatch(self, grid: GridState, t: int, k: int) -> None:
        least_loaded_dispatch(grid)

    def site_pass(self, grid: GridState, site: SiteState, t: int, k: int) -> None:
        if site.waiting:
            start_in_order(site, list(site.waiting.values()), t)


class FairShare(Strategy):
    """The local resource manager's fair share, without suspension."""

    name = "rm-fairshare"
    title = "Local RM fair share"

    def dispatch(self, grid: GridState, t: int, k: int) -> None:
        least_loaded_dispatch(grid)

    def site_pass(self, grid: GridState, site: SiteState, t: int, k: int) -> None:
        if not site.waiting:
            return
        prio = fairshare_priorities(site, k, [n.vo for n in grid.model.nodes])

        def key(job):
            p = prio.get(job.path[-1], prio.get(job.vo, 0.0))
            return (-p, job.job.submit, job.job.id)

        start_in_order(site, sorted(site.waiting.values(), key=key), t)
