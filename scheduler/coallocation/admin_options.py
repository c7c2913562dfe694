"""User and administrator options of co-allocation (Takefusa et al. 2010, "Reflecting co-allocation
options").

User options (how the N' plans are ranked, and for "quality" what the IP minimises):

* ``earliest`` (a) — sort plans by start time;
* ``cheapest`` (b) — sort by total price (site and link unit values);
* ``quality`` (c) — "set vc_i and vb_k to their quality": the IP minimises Σ rc/q_i + Σ rb/q_k
  (a resource of quality 2 costs half as much as one of quality 1) and plans are sorted by that
  total.

Administrator options:

* ``A`` load balancing — a site's value is scaled by ``1 + 100·u_i``, u_i the fraction of its
  CPUs already reserved over the frame, so the least loaded sites are chosen first (the seed does
  not give its formula; any increasing weight dominating the link values has this effect);
* ``B-domain`` preference by domain — vc_i = 1, 10, 100, … (capped at 1000) in domain order
  (seed: N* = 1, S* = 10, U* = 100);
* ``B-cpus`` preference by CPU count — vc_i = 1 for the largest size, 10 for the next, …, 1000
  (seed: 64 → 1, 32 → 10, 16 → 100, 8 → 1000);
* ``C`` user priority — a low-priority user sees half of the available CPUs and bandwidth
  (floor), applied to the availability read from the RMs, whatever the objective.

What the seed shows of (A) and (B) is "Comparison of Resource Utilizations": per-site and
per-domain utilisation, where under (B1) "Preferred resources are selected first" (N > S > U);
:func:`domain_utilization` measures the latter.
"""

from __future__ import annotations

from .topology import Topology

__all__ = [
    "USER_OPTIONS",
    "ADMIN_OPTIONS",
    "base_costs",
    "admin_site_weights",
    "halve",
    "domain_weights",
    "cpu_weights",
    "domain_utilization",
]

USER_OPTIONS = ("earliest", "cheapest", "quality")
ADMIN_OPTIONS = ("none", "A", "B-domain", "B-cpus")
LOAD_BALANCE_WEIGHT = 100.0


def base_costs(t: Topology, option: str) -> tuple[list[float], list[float]]:
    """Per-unit site and link costs of the objective for a user option."""
    if option == "quality":
        return [1.0 / s.quality for s in t.sites], [1.0 / ln.quality for ln in t.links]
    return [s.value for s in t.sites], [ln.value for ln in t.links]


def domain_weights(t: Topology, order: tuple[str, ...] = ()) -> list[float]:
    """10^rank of each site's domain in ``order`` (then the topology's order), capped at 1000."""
    ranked = [d for d in order if d in t.domains] + [d for d in t.domains if d not in order]
    rank = {d: k for k, d in enumerate(ranked)}
    return [float(10 ** min(rank[s.domain], 3)) for s in t.sites]


def cpu_weights(t: Topology) -> list[float]:
    """10^rank of each site's CPU count among the distinct counts, largest first, capped."""
    sizes = sorted({s.cpus for s in t.sites}, reverse=True)
    rank = {c: k for k, c in enumerate(sizes)}
    return [float(10 ** min(rank[s.cpus], 3)) for s in t.sites]


def admin_site_weights(
    t: Topology, admin: str, free: list[int], domain_order: tuple[str, ...] = ()
) -> list[float] | None:
    """Multipliers of the site costs for administrator option ``admin`` (None: all 1).

    ``free`` is each site's CPUs free over the frame (for load balancing)."""
    if admin == "none":
        return None
    if admin == "A":
        return [
            1.0 + LOAD_BALANCE_WEIGHT * (1.0 - f / s.cpus if s.cpus else 1.0)
            for s, f in zip(t.sites, free, strict=True)
        ]
    if admin == "B-domain":
        return domain_weights(t, domain_order)
    if admin == "B-cpus":
        return cpu_weights(t)
    raise ValueError(f"unknown administrator option {admin!r} (known: {', '.join(ADMIN_OPTIONS)})")


def halve(values: list[int]) -> list[int]:
    """Option (C): what a low-priority user sees."""
    return [v // 2 for v in values]


def domain_utilization(t: Topology, busy: list[float], span: float) -> dict[str, float]:
    """CPU utilisation of each domain (in the topology's domain order): the CPU-seconds
    reserved at its sites (``busy``, one per site) over its CPUs × ``span`` seconds.

    >>> from scheduler.coallocation.topology import SEED001, load_topology
    >>> t = load_topology(SEED001)
    >>> u = domain_utilization(t, [s.cpus * 1800.0 if s.domain == "N" else 0.0
    ...                            for s in t.sites], 3600)
    >>> u["N"], u["S"], u["U"]
    (0.5, 0.0, 0.0)
    """
    if len(busy) != len(t.sites):
        raise ValueError(f"{len(busy)} busy times for {len(t.sites)} sites")
    if span <= 0:
        raise ValueError(f"span must be > 0 s, got {span}")
    used: dict[str, float] = dict.fromkeys(t.domains, 0.0)
    cpus: dict[str, int] = dict.fromkeys(t.domains, 0)
    for s, b in zip(t.sites, busy, strict=True):
        used[s.domain] += b
        cpus[s.domain] += s.cpus
    return {d: used[d] / (cpus[d] * span) for d in t.domains if cpus[d] > 0}
