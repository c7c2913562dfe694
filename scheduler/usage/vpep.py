"""Grid-level dispatch: the V-PEP of each VO's submission host, and plain least-loaded dispatch.

**V-PEP** (Dumitrescu, Wilde & Foster 2005, slides 14–15).  It "operates at the submission host
queues" and answers *which job next*, *when* and *where*:

* *which job*: the group of the VO that is furthest below its epoch share of the grid goes first
  (its running + submitted CPUs divided by its grid epoch share, ``Σ_s EP_g,s · cpus_s``),
  FCFS inside a group; a job that cannot go anywhere now does not block the smaller ones behind
  it (the seed's "backfill jobs");
* *when*: a job is sent to a site only while the VO — and the job's group — stays within its
  **burst** share there, counting what it runs *and* what it already queued at that site
  (``committed + n ≤ BP · cpus``), or while the group stays within its own **epoch** share
  there (the S-PEP will make room for it), and only while their epoch quota at that site is
  not used up (``EA < EP``).  Otherwise the V-PEP "stops scheduling jobs" for it and keeps the
  job;
* *where*: among the sites that accept it, the least loaded one (busy + queued processors per
  CPU), ties to the first site.

The S-PEP at the site then decides when a submitted job runs (:mod:`.spep`).

**Least-loaded dispatch** (the baselines): every job is sent at once, on arrival, to the least
loaded site of its VO that has enough CPUs — the grid is policy-unaware and the site's local
resource manager does the rest (:mod:`.rm`).
"""

from __future__ import annotations

from .simulator import GridState
from .state import EPS, JobRun, SiteState

__all__ = ["send_room", "least_loaded_dispatch", "vpep_dispatch", "vpep_feasible"]


def send_room(site: SiteState, path: tuple[int, ...], k: int) -> float:
    """Processors the V-PEP may still send to ``site`` for a job on ``path`` (0 when none).

    Within the burst shares of every level (cases 1–2 of the V-PEP logic), or — for a group —
    within the group's own epoch share even when its VO's burst share is taken (case 3: a group
    under its epoch share keeps being scheduled; the S-PEP makes room for it by suspending an
    over-quota sibling's job).
    """
    if not site.shares.member[path[0]]:
        return 0.0
    room = float(site.cpus)
    for p in path:
        bp = site.bp_cpus[p]
        if bp is None:
            continue
        if site.epoch_usage(p, k) >= site.shares.epoch[p] - EPS:
            return 0.0  # epoch quota used up here
        room = min(room, bp - site.committed[p])
    g = path[-1]
    if len(path) > 1 and site.ep_cpus[g] is not None:
        room = max(room, site.ep_cpus[g] - site.committed[g])
    return max(0.0, room)


def vpep_feasible(grid: GridState, job: JobRun) -> bool:
    """Could the V-PEP ever send ``job``?  It must fit some member site's burst shares."""
    for site in grid.sites:
        if not site.shares.member[job.vo] or job.procs > site.cpus:
            continue
        caps = [site.bp_cpus[p] for p in job.path if site.bp_cpus[p] is not None]
        if all(job.procs <= cap + EPS for cap in caps):
            return True
    return False


def _grid_deprivation(grid: GridState, key: int) -> tuple[float, int]:
    committed = sum(s.committed[key] for s in grid.sites)
    share = sum(s.ep_cpus[key] or 0.0 for s in grid.sites)
    if share <= 0:
        vo = grid.model.nodes[key].vo
        share = sum(s.ep_cpus[vo] or 0.0 for s in grid.sites)
    return (committed / share if share > 0 else float("inf"), key)


def vpep_dispatch(grid: GridState, k: int) -> None:
    """One V-PEP pass at every VO's submission host (see the module docstring)."""
    for v in grid.model.vo_nodes:
        queues = grid.host[v]
        while True:
            keys = sorted(
                (key for key, q in queues.items() if q),
                key=lambda key: _grid_deprivation(grid, key),
            )
            sent = False
            for key in keys:
                queue = queues[key]
                path = queue[0].path
                rooms = [send_room(s, path, k) for s in grid.sites]
                most = max(rooms)
                if most < 1 - EPS:
                    continue
                for pos, job in enumerate(queue):
                    if job.procs > most + EPS:
                        continue
                    fits = [
                        s
                        for s, room in zip(grid.sites, rooms, strict=True)
                        if job.procs <= room + EPS and job.procs <= s.cpus
                    ]
                    if not fits:
                        continue
                    site = min(fits, key=lambda s: (s.load(), s.index))
                    del queue[pos]
                    site.enqueue(job)
                    sent = True
                    break
                if sent:
                    break
            if not sent:
                break


def least_loaded_dispatch(grid: GridState) -> None:
    """Send every job waiting at a host to its VO's least loaded site with enough CPUs."""
    waiting = [job for v in grid.model.vo_nodes for q in grid.host[v].values() for job in q]
    waiting.sort(key=lambda j: (j.job.submit, j.job.id))
    for job in waiting:
        fits = [s for s in grid.sites if s.shares.member[job.vo] and job.procs <= s.cpus]
        site = min(fits, key=lambda s: (s.load(), s.index))
        site.enqueue(job)
    for v in grid.model.vo_nodes:
        for q in grid.host[v].values():
            q.clear()
