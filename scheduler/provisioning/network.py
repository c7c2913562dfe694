"""Data transfer between sites: per-pair bandwidth and latency (thesis §4.1, §4.9).

Moving ``b`` bytes from site ``r`` to site ``q`` takes ``latency[r][q] + b / bandwidth[r][q]``
seconds, and nothing on the same site.  Network contention is not modelled (thesis §4.9: "We do
not consider contention for network resources").  The HEFT ranks use the mean bandwidth and
latency over the pairs of distinct sites (thesis eq. 7), see :meth:`Network.mean_model`.

>>> net = Network.uniform(2, bandwidth=1.25e9, latency=150)   # 10 Gbps, 150 s
>>> net.transfer_time(0, 1, 125e9)                             # 1000 Gb
250.0
>>> net.transfer_time(1, 1, 125e9)
0.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..workflows.heft import NetworkModel

__all__ = ["GBIT", "Network"]

#: bytes in one gigabit (the thesis quotes data in Gb and bandwidth in Gbps)
GBIT = 1e9 / 8


@dataclass(frozen=True)
class Network:
    """``bandwidth[r][q]`` bytes/s and ``latency[r][q]`` seconds from site ``r`` to ``q``."""

    bandwidth: tuple[tuple[float, ...], ...]
    latency: tuple[tuple[float, ...], ...]

    def __post_init__(self) -> None:
        k = len(self.bandwidth)
        if k < 1 or len(self.latency) != k:
            raise ValueError("bandwidth and latency must be square matrices of the same size")
        for r in range(k):
            if len(self.bandwidth[r]) != k or len(self.latency[r]) != k:
                raise ValueError("bandwidth and latency must be square matrices")
            for q in range(k):
                if r == q:
                    continue
                bw, lat = self.bandwidth[r][q], self.latency[r][q]
                if not (math.isfinite(bw) and bw > 0):
                    raise ValueError(f"bandwidth[{r}][{q}] must be > 0, got {bw!r}")
                if not (math.isfinite(lat) and lat >= 0):
                    raise ValueError(f"latency[{r}][{q}] must be >= 0, got {lat!r}")

    @classmethod
    def uniform(cls, sites: int, *, bandwidth: float, latency: float = 0.0) -> Network:
        """The same bandwidth (bytes/s) and latency (s) between every pair of sites."""
        bw = tuple(tuple(float(bandwidth) for _ in range(sites)) for _ in range(sites))
        lat = tuple(tuple(float(latency) for _ in range(sites)) for _ in range(sites))
        return cls(bw, lat)

    @classmethod
    def from_matrices(
        cls, bandwidth: Sequence[Sequence[float]], latency: Sequence[Sequence[float]]
    ) -> Network:
        return cls(
            tuple(tuple(float(v) for v in row) for row in bandwidth),
            tuple(tuple(float(v) for v in row) for row in latency),
        )

    @property
    def sites(self) -> int:
        return len(self.bandwidth)

    def transfer_time(self, src: int, dst: int, data: float) -> float:
        """Seconds to move ``data`` bytes from site ``src`` to site ``dst`` (0 on one site)."""
        if src == dst:
            return 0.0
        return self.latency[src][dst] + data / self.bandwidth[src][dst]

    def mean_model(self) -> NetworkModel | None:
        """Mean bandwidth and latency over pairs of distinct sites (None for one site), for
        the HEFT ranks of thesis eq. 7."""
        k = self.sites
        pairs = [(r, q) for r in range(k) for q in range(k) if r != q]
        if not pairs:
            return None
        bw = sum(self.bandwidth[r][q] for r, q in pairs) / len(pairs)
        lat = sum(self.latency[r][q] for r, q in pairs) / len(pairs)
        return NetworkModel(bw, lat)
