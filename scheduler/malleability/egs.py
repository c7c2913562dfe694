"""EGS — Equi-Grow & Shrink (SPEC §10, seed 002 §5.3.2, Figure 5).

The processors to hand out (or to reclaim) are split equally over the running malleable jobs of
the cluster: each gets ``value // n``; the remainder ``value % n`` goes one processor each as a
*bonus* to the least recently started jobs (grow), or is taken one each as a *malus* from the
most recently started jobs (shrink).  Unlike equipartition, EGS splits only the processors that
are being handed out or reclaimed, and it either grows or shrinks all jobs, never both.

Rounds.  Figure 5 sends one round of offers.  When a job cannot take its share (it reaches its
maximum, or FT rounds down to a power of 2) or cannot give it (it reaches its minimum), the rest
is split again, equally with the same remainder rule, over the jobs that can still move, until
nothing is left or no job moves.  This keeps the seed's equal split whenever no bound binds, and
makes a PWA shrink reclaim what the minimum sizes allow (seed 002 §5.2).  Only jobs that can
still grow (shrink) are counted in ``n``: an offer to a job at its maximum would be wasted.

Example
-------
>>> from .apps import GADGET2
>>> ms = [Member(k, k, 2, 2, 46, GADGET2) for k in (1, 2, 3)]
>>> EGS().grow(ms, 11)     # 11 = 3·3 + 2: bonus for the two least recently started
{1: 6, 2: 6, 3: 5}
>>> ms = [Member(k, k, 10, 2, 46, GADGET2) for k in (1, 2, 3)]
>>> EGS().shrink(ms, 7)    # 7 = 3·2 + 1: malus for the most recently started
{3: 7, 2: 8, 1: 8}
"""

from __future__ import annotations

from .policies import Member

__all__ = ["EGS"]


class EGS:
    name = "EGS"

    def grow(self, members: list[Member], value: int) -> dict[int, int]:
        order = sorted(members, key=lambda m: (m.start, m.key))  # least recently started first
        return _rounds(order, value, grow=True)

    def shrink(self, members: list[Member], value: int) -> dict[int, int]:
        order = sorted(members, key=lambda m: (-m.start, -m.key))  # most recently started first
        return _rounds(order, value, grow=False)


def _rounds(order: list[Member], value: int, *, grow: bool) -> dict[int, int]:
    sizes = {m.key: m.size for m in order}
    while value > 0:
        movable = [m for m in order if (m.can_grow if grow else m.can_shrink)(sizes[m.key])]
        if not movable:
            break
        share, remainder = divmod(value, len(movable))
        moved = 0
        for i, m in enumerate(movable):
            ask = share + (1 if i < remainder else 0)
            if ask <= 0:
                continue
            size = sizes[m.key]
            if grow:
                got = m.accept_grow(size, ask)
                sizes[m.key] = size + got
            else:
                got = m.accept_shrink(size, ask)
                sizes[m.key] = size - got
            moved += got
        value -= moved
        if moved == 0:
            break
    return {m.key: sizes[m.key] for m in order if sizes[m.key] != m.size}
