"""HEFT upward rank and the HEFT task order (thesis §4.5 eq. 7; Topcuoglu et al. 2002).

    rank(v_i) = w_i + max over successors v_j of (c_ij + rank(v_j)),   rank(exit) = w_exit

- ``w_i`` is the mean runtime of task i over the sites (``sites`` given: the mean of
  ``runtime_on(site)`` over them; else the mean of the task's own per-site runtimes, or its
  ``runtime`` when it has none).
- ``c_ij`` is the mean transfer time of the edge's data under a :class:`NetworkModel`
  (``latency + bytes / bandwidth``, with the mean latency and bandwidth between the sites, as in
  thesis eq. 7); with no network model ``c = 0`` (the single-site setup of thesis §4.7, where
  "the data transfer time between the tasks is zero").

The HEFT order lists tasks by non-increasing rank, ties broken by task id.  It is produced by a
topological sort that always takes the ready task of highest rank (ties: smallest id), so that a
child never precedes its parent even when zero runtimes make their ranks equal; whenever ranks
strictly decrease along edges (any positive runtimes) this is exactly the sorted order.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from .dag import Workflow

__all__ = ["HeftRanking", "NetworkModel", "heft_order", "heft_rank", "upward_ranks"]


@dataclass(frozen=True, slots=True)
class NetworkModel:
    """Mean network between sites: ``bandwidth`` in bytes/s, ``latency`` in seconds.

    The multi-site setup of thesis §4.9 (10 Gbps, 150 s latency) is ``NetworkModel(1.25e9, 150)``.
    """

    bandwidth: float
    latency: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.bandwidth) and self.bandwidth > 0):
            raise ValueError(f"bandwidth must be > 0 bytes/s, got {self.bandwidth!r}")
        if not (math.isfinite(self.latency) and self.latency >= 0):
            raise ValueError(f"latency must be >= 0 s, got {self.latency!r}")

    def transfer_time(self, data: float) -> float:
        """Seconds to move ``data`` bytes between two different sites."""
        return self.latency + data / self.bandwidth


@dataclass(frozen=True, slots=True)
class HeftRanking:
    """Upward ranks by task id, and the HEFT order (task ids)."""

    ranks: dict[str, float]
    order: tuple[str, ...]


def _mean_costs(workflow: Workflow, sites: Sequence[str] | None) -> list[float]:
    if sites is not None:
        if not sites:
            raise ValueError("sites must not be empty")
        return [sum(t.runtime_on(s) for s in sites) / len(sites) for t in workflow.tasks]
    return [t.mean_runtime for t in workflow.tasks]


def _ranks(
    workflow: Workflow, sites: Sequence[str] | None, network: NetworkModel | None
) -> list[float]:
    w = _mean_costs(workflow, sites)
    children = workflow.child_indices
    rank = [0.0] * len(w)
    for i in reversed(workflow.topological_indices):
        best = 0.0
        for j in children[i]:
            c = network.transfer_time(workflow.edge_data(i, j)) if network else 0.0
            best = max(best, c + rank[j])
        rank[i] = w[i] + best
    return rank


def upward_ranks(
    workflow: Workflow,
    *,
    sites: Sequence[str] | None = None,
    network: NetworkModel | None = None,
) -> dict[str, float]:
    """HEFT upward rank of every task (seconds)."""
    rank = _ranks(workflow, sites, network)
    return {t.id: r for t, r in zip(workflow.tasks, rank, strict=True)}


def heft_rank(
    workflow: Workflow,
    *,
    sites: Sequence[str] | None = None,
    network: NetworkModel | None = None,
) -> HeftRanking:
    """Upward ranks and the HEFT order (non-increasing rank, ties by id, parents first)."""
    rank = _ranks(workflow, sites, network)
    tasks = workflow.tasks
    children = workflow.child_indices
    waiting = [len(ps) for ps in workflow.parent_indices]
    ready = [(-rank[i], tasks[i].id, i) for i, n in enumerate(waiting) if n == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, tid, i = heapq.heappop(ready)
        order.append(tid)
        for c in children[i]:
            waiting[c] -= 1
            if waiting[c] == 0:
                heapq.heappush(ready, (-rank[c], tasks[c].id, c))
    ranks = {t.id: r for t, r in zip(tasks, rank, strict=True)}
    return HeftRanking(ranks=ranks, order=tuple(order))


def heft_order(
    workflow: Workflow,
    *,
    sites: Sequence[str] | None = None,
    network: NetworkModel | None = None,
) -> tuple[str, ...]:
    """The HEFT order alone (see :func:`heft_rank`)."""
    return heft_rank(workflow, sites=sites, network=network).order
