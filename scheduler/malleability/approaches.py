"""Job-management approaches PRA and PWA (Buisson et al. 2007, §5.2).

Both run at every scheduling pass of :class:`~scheduler.malleability.simulator.Simulation`
(after the events of an instant, and on KOALA's periodic poll of its information service).

* **PRA** — Precedence to Running Applications: processors that are available first go to the
  running malleable jobs (grow, by the policy); "any waiting malleable jobs are not considered as
  long as at least one running malleable job can still be grown" (§5.2): a waiting malleable job
  is placed only on a cluster whose running malleable jobs are all at their maximum (or that has
  none) — never into the threshold growth leaves idle there.  Waiting rigid jobs are placed with
  whatever is idle.  PRA never shrinks.  We grow, scan the placement queue, then grow again so
  that jobs placed in this pass at their minimum take what is left.  (Per cluster: a job can only
  be grown with its own cluster's processors, §5.3.)
* **PWA** — Precedence to Waiting Applications: the placement queue is scanned first; when a
  job cannot be placed, running malleable jobs of one cluster are shrunk (by the policy, never
  below their minimum) to make room — the cluster chosen by Worst-Fit over idle plus
  reclaimable processors; if even that cannot make room, the job stays queued.  The processors a
  shrink frees arrive once the shrunk jobs have adapted; a job they are meant for waits for them
  (its cluster is not grown meanwhile).  Processors left over once the queue has been served go
  to the running malleable jobs (grow).

Growth never takes the last ``threshold`` idle processors of a cluster (§5.2); placement may,
unless the simulation's ``threshold_scope`` is ``"all"``.
"""

from __future__ import annotations

from typing import Protocol

from .model import ModelError

__all__ = ["APPROACHES", "check_approach"]

APPROACHES = ("PRA", "PWA")


class _Sim(Protocol):
    def grow_all(self, t: int) -> None: ...

    def place_queue(self, t: int, *, shrink: bool) -> None: ...


def pra(sim: _Sim, t: int) -> None:
    sim.grow_all(t)
    sim.place_queue(t, shrink=False)
    sim.grow_all(t)


def pwa(sim: _Sim, t: int) -> None:
    sim.place_queue(t, shrink=True)
    sim.grow_all(t)


_RUN = {"PRA": pra, "PWA": pwa}


def check_approach(name: str):
    """The pass function of approach ``name`` (PRA or PWA)."""
    try:
        return _RUN[name.upper()]
    except KeyError:
        raise ModelError(
            "approach", f"unknown approach {name!r} (known: {', '.join(APPROACHES)})"
        ) from None
