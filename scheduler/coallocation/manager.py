"""Resource managers and all-or-nothing co-reservation (Takefusa et al. 2010, steps 2ii and 3).

Takefusa et al.'s (2010) Global Resource Coordinator (GRC) reads the resources' availability over a
time frame from the resource managers (RMs) and, once a plan is chosen, reserves every piece of it
"in coordination with the RMs": all of it or none.  Here each compute site and each link is one
RM holding the shared availability profile (:class:`scheduler.cluster.profile.Profile`) — CPUs
for a site, Mbps for a link, both directions of a link sharing it.

:meth:`Managers.reserve` books the pieces one by one and, if any RM refuses (the profile raises
:class:`~scheduler.cluster.profile.ProfileError`, e.g. because another GRC took the capacity
after planning), releases the pieces already booked and re-raises as
:class:`CoallocationFailed`: no partial reservation is left behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cluster.profile import Profile, ProfileError
from .topology import Topology

__all__ = ["Managers", "Reservation", "CoallocationFailed"]


class CoallocationFailed(RuntimeError):
    """A co-reservation was refused by one RM; nothing of it was kept."""


@dataclass(frozen=True)
class Reservation:
    """Blocks booked together over [start, end): ``(site index, cpus)``, ``(link index, mbps)``."""

    id: int
    start: int
    end: int
    sites: tuple[tuple[int, int], ...]
    links: tuple[tuple[int, int], ...]
    user: str = ""


class Managers:
    """One availability profile per site (CPUs) and per link (Mbps) of ``topology``."""

    def __init__(self, topology: Topology, origin: int = 0) -> None:
        self.topology = topology
        self.site_profiles = [Profile(s.cpus, origin) for s in topology.sites]
        self.link_profiles = [Profile(ln.mbps, origin) for ln in topology.links]
        self.reservations: dict[int, Reservation] = {}
        self._next_id = 1

    def availability(self, start: int, end: int) -> tuple[list[int], list[int]]:
        """``(wc, wb)``: CPUs free at every site and Mbps free on every link over all of
        [start, end) — the minimum of each profile over the frame (seed step 2ii)."""
        return (
            [p.free_over(start, end) for p in self.site_profiles],
            [p.free_over(start, end) for p in self.link_profiles],
        )

    def reserve(
        self,
        start: int,
        end: int,
        sites: tuple[tuple[int, int], ...],
        links: tuple[tuple[int, int], ...],
        user: str = "",
    ) -> Reservation:
        """Book every block or none; raise :class:`CoallocationFailed` naming the RM that
        refused."""
        done: list[tuple[Profile, int]] = []
        try:
            for what, blocks, profiles in (
                ("site", sites, self.site_profiles),
                ("link", links, self.link_profiles),
            ):
                for idx, amount in blocks:
                    try:
                        profiles[idx].reserve(start, end, amount)
                    except ProfileError as exc:
                        name = self._name(what, idx)
                        raise CoallocationFailed(f"{what} {name} refused: {exc}") from exc
                    done.append((profiles[idx], amount))
        except CoallocationFailed:
            for profile, amount in reversed(done):  # roll back: nothing half-booked
                profile.release(start, end, amount)
            raise
        r = Reservation(self._next_id, start, end, tuple(sites), tuple(links), user)
        self.reservations[r.id] = r
        self._next_id += 1
        return r

    def cancel(self, reservation_id: int) -> None:
        """Release a whole co-reservation."""
        r = self.reservations.pop(reservation_id)
        for idx, amount in r.sites:
            self.site_profiles[idx].release(r.start, r.end, amount)
        for idx, amount in r.links:
            self.link_profiles[idx].release(r.start, r.end, amount)

    def _name(self, what: str, idx: int) -> str:
        if what == "site":
            return self.topology.sites[idx].name
        ln = self.topology.links[idx]
        return f"{ln.a}-{ln.b}"

    def site_busy_seconds(self, a: int, b: int) -> list[int]:
        """CPU-seconds reserved at each site over [a, b)."""
        return [_busy(p, a, b) for p in self.site_profiles]

    def link_busy_seconds(self, a: int, b: int) -> list[int]:
        """Mbps-seconds reserved on each link over [a, b)."""
        return [_busy(p, a, b) for p in self.link_profiles]


def _busy(p: Profile, a: int, b: int) -> int:
    total = 0
    for s, e, free in p.steps(a, b):
        total += (p.capacity - free) * (e - s)
    return total
