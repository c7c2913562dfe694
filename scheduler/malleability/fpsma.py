"""FPSMA — Favour Previously Started Malleable Applications (Buisson et al. 2007, §5.3.1, Fig. 4).

Grow: the running malleable jobs of the cluster, in increasing order of start time, are offered
in turn everything still to hand out; each accepts what it can use (up to its maximum; FT down to
a power of 2) and the rest goes to the next.  Shrink: in decreasing order of start time (latest
started first), each job is asked for everything still to reclaim and releases what it can
(down to its minimum), until enough has been reclaimed.  Ties in start time are broken by job id
so that runs are deterministic.

Example
-------
>>> from .apps import GADGET2
>>> a = Member(1, 0, 2, 2, 10, GADGET2); b = Member(2, 5, 2, 2, 10, GADGET2)
>>> FPSMA().grow([b, a], 12)          # a (earliest) takes 8 to reach 10, b gets the last 4
{1: 10, 2: 6}
>>> FPSMA().shrink([Member(1, 0, 10, 2, 10, GADGET2), Member(2, 5, 6, 2, 10, GADGET2)], 6)
{2: 2, 1: 8}
"""

from __future__ import annotations

from .policies import Member

__all__ = ["FPSMA"]


class FPSMA:
    name = "FPSMA"

    def grow(self, members: list[Member], value: int) -> dict[int, int]:
        out: dict[int, int] = {}
        for m in sorted(members, key=lambda m: (m.start, m.key)):
            if value <= 0:
                break
            got = m.accept_grow(m.size, value)
            if got:
                out[m.key] = m.size + got
                value -= got
        return out

    def shrink(self, members: list[Member], value: int) -> dict[int, int]:
        out: dict[int, int] = {}
        for m in sorted(members, key=lambda m: (-m.start, -m.key)):
            if value <= 0:
                break
            gave = m.accept_shrink(m.size, value)
            if gave:
                out[m.key] = m.size - gave
                value -= gave
        return out
