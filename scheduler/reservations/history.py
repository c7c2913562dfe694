"""Feed a site's simulated history into a :class:`~.predictor.WaitPredictor` (thesis ch. 6).

The predictor may only know what an observer of the site knows at "now": the waits of the jobs
that have started by then.  :class:`SiteHistory` follows a live
:class:`~scheduler.cluster.simulator.Simulator` (advance it with ``run(until=t)``, then call
:meth:`SiteHistory.sync`) and adds each newly started job once, in start order, classed by its
processors and the time the scheduler plans it with (its request, or its runtime under
accurate estimates).  Only the trace's jobs are read: jobs submitted on the fly into forks
(VAR probes) never reach the history.
"""

from __future__ import annotations

from bisect import bisect_right

from ..cluster.simulator import Simulator
from .predictor import WaitPredictor

__all__ = ["SiteHistory"]


class SiteHistory:
    """The started jobs of ``sim`` so far, fed to ``predictor`` incrementally."""

    def __init__(self, sim: Simulator, predictor: WaitPredictor) -> None:
        self.sim = sim
        self.predictor = predictor
        self._n = len(sim.jobs)  # trace jobs only
        self._seen = bytearray(self._n)
        self._lo = 0  # every job before it is recorded

    def sync(self) -> int:
        """Add the jobs that started since the last call; return how many."""
        sim = self.sim
        start, submit = sim.start, sim.submit_time
        hi = bisect_right(submit, sim.now, 0, self._n)
        seen = self._seen
        new = [(start[k], k) for k in range(self._lo, hi) if not seen[k] and start[k] >= 0]
        new.sort()
        add = self.predictor.add
        for s, k in new:
            seen[k] = 1
            add(sim.procs[k], sim.estimate[k], s - submit[k])
        lo = self._lo
        while lo < hi and seen[lo]:
            lo += 1
        self._lo = lo
        return len(new)
