"""Recursive shares resolved per site: what each VO and group may hold (Dumitrescu, Wilde & Foster
2005, slide 8).

A site gives a VO an epoch and a burst share of its CPUs; the VO passes its share on to its
groups (``VO → VO.group`` policies).  The absolute share of a group at a site is the product
along the chain: with ``site0 → VO0`` epoch 20 % and ``VO0 → VO0.G0`` epoch 30 %, group G0 may
hold 0.20 × 0.30 = 6 % of site0's CPUs over the epoch (and likewise for the burst share, with
the group's own burst percentage).  Each share keeps the interval of its own policy.

Membership: a VO runs only at the sites that give it a CPU policy (the policy *is* the
agreement).  A group without a ``VO → group`` policy is limited only by its VO's share.  NET
and STORAGE policies are kept in the model but not simulated (:attr:`GridModel.not_simulated`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import Policy, PolicySet

__all__ = ["GridModel", "Node", "SiteShares"]


@dataclass(frozen=True)
class Node:
    """A consumer in the share tree: a VO (``group is None``) or one of its groups."""

    index: int
    name: str
    vo: int  # index of the VO's node (itself for a VO)
    group: str | None = None

    @property
    def is_group(self) -> bool:
        return self.group is not None


@dataclass(frozen=True)
class SiteShares:
    """One site's CPUs and, per node, its absolute shares as fractions of the site.

    ``epoch[n]`` / ``burst[n]`` are ``None`` when node ``n`` has no policy here (not a member
    VO, or a group without a group policy); intervals are in seconds.
    """

    index: int
    name: str
    cpus: int
    member: tuple[bool, ...]
    epoch: tuple[float | None, ...]
    burst: tuple[float | None, ...]
    epoch_interval: tuple[int | None, ...]
    burst_interval: tuple[int | None, ...]


@dataclass(frozen=True)
class GridModel:
    """Sites, the consumer tree and the resolved CPU shares of a :class:`PolicySet`."""

    sites: tuple[SiteShares, ...]
    nodes: tuple[Node, ...]
    vo_nodes: tuple[int, ...]
    groups_of: dict[int, tuple[int, ...]]
    index: dict[str, int]
    not_simulated: tuple[Policy, ...]

    @property
    def total_cpus(self) -> int:
        return sum(s.cpus for s in self.sites)

    def path(self, vo: str, group: str | None) -> tuple[int, ...]:
        """Node indices from the VO down to the group (the levels a job is accounted at)."""
        v = self.index[vo]
        return (v,) if group is None else (v, self.index[f"{vo}.{group}"])

    def grid_share(self, node: int, kind: str) -> float | None:
        """The node's share of all grid CPUs: ``Σ_s share_s · cpus_s / Σ_s cpus_s``."""
        shares = [getattr(s, kind)[node] for s in self.sites]
        if all(x is None for x in shares):
            return None
        total = self.total_cpus
        return sum((x or 0.0) * s.cpus for x, s in zip(shares, self.sites, strict=True)) / total

    @classmethod
    def from_policyset(cls, ps: PolicySet) -> GridModel:
        nodes: list[Node] = []
        groups_of: dict[int, tuple[int, ...]] = {}
        for vo in ps.vos:
            v = len(nodes)
            nodes.append(Node(v, vo.name, v))
            kids = []
            for g in vo.groups:
                kids.append(len(nodes))
                nodes.append(Node(len(nodes), f"{vo.name}.{g}", v, g))
            groups_of[v] = tuple(kids)
        index = {n.name: n.index for n in nodes}
        cpu = ps.of_resource("CPU")
        site_policy = {(p.provider, p.consumer): p for p in cpu if ps.is_site(p.provider)}
        group_policy = {p.consumer: p for p in cpu if not ps.is_site(p.provider)}
        sites = []
        for k, site in enumerate(ps.sites):
            member, epoch, burst, ei, bi = [], [], [], [], []
            for n in nodes:
                vo_p = site_policy.get((site.name, nodes[n.vo].name))
                member.append(vo_p is not None and not n.is_group)
                if vo_p is None:
                    epoch.append(None), burst.append(None), ei.append(None), bi.append(None)
                    continue
                if not n.is_group:
                    epoch.append(vo_p.epoch.fraction), burst.append(vo_p.burst.fraction)
                    ei.append(vo_p.epoch.interval), bi.append(vo_p.burst.interval)
                    continue
                g_p = group_policy.get(n.name)
                if g_p is None:
                    epoch.append(None), burst.append(None), ei.append(None), bi.append(None)
                    continue
                epoch.append(vo_p.epoch.fraction * g_p.epoch.fraction)
                burst.append(vo_p.burst.fraction * g_p.burst.fraction)
                ei.append(g_p.epoch.interval), bi.append(g_p.burst.interval)
            sites.append(
                SiteShares(
                    k,
                    site.name,
                    site.cpus,
                    tuple(member),
                    tuple(epoch),
                    tuple(burst),
                    tuple(ei),
                    tuple(bi),
                )
            )
        return cls(
            sites=tuple(sites),
            nodes=tuple(nodes),
            vo_nodes=tuple(n.index for n in nodes if not n.is_group),
            groups_of=groups_of,
            index=index,
            not_simulated=tuple(p for p in ps.policies if p.resource != "CPU"),
        )
