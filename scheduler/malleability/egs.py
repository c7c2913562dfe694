"""EGS — Equi-Grow & Shrink (Buisson et al. 2007, §5.3.2, Figure 5).

The processors to hand out (or to reclaim) are split equally over the running malleable jobs of
the cluster: each gets ``value // n``; the remainder ``value % n`` goes one processor each as a
*bonus* to the least recently started jobs (grow), or is taken one each as a *malus* from the
most recently started jobs (shrink).  Unlike equipartition, EGS splits only the processors that
are being handed out or reclaimed, and it either grows or shrinks all jobs, never both.

Rounds.  Figure 5 (the SHRINK procedure, the one the seed prints) sends one round of requests:
each job is asked for its share plus its malus, then the policy waits for all of them to
release.  A job at or near its minimum gives less than asked, and nothing asks another job for
the difference: the shrink reclaims less than needed, and under PWA the waiting job stays
queued until the next scan (``shrink_rounds="one"``, the default, as printed).  ``"repeat"``
splits what is left again, equally with the same remainder rule, over the jobs that can still
shrink, until enough is reclaimed or no job moves (this model's earlier choice).
Grow always repeats: processors a job declines (at its maximum, or FT rounding down to a power
of 2) are "voluntarily released to the scheduler" (§6.1) and so handed out again, split over the
jobs that can still grow.

Example
-------
>>> from .apps import GADGET2
>>> ms = [Member(k, k, 2, 2, 46, GADGET2) for k in (1, 2, 3)]
>>> EGS().grow(ms, 11)     # 11 = 3·3 + 2: bonus for the two least recently started
{1: 6, 2: 6, 3: 5}
>>> ms = [Member(k, k, 10, 2, 46, GADGET2) for k in (1, 2, 3)]
>>> EGS().shrink(ms, 7)    # 7 = 3·2 + 1: malus for the most recently started
{3: 7, 2: 8, 1: 8}
>>> ms = [Member(1, 1, 10, 2, 46, GADGET2), Member(2, 2, 2, 2, 46, GADGET2)]
>>> EGS().shrink(ms, 2), EGS("repeat").shrink(ms, 2)   # job 2 is at its minimum
({1: 9}, {1: 8})
"""

from __future__ import annotations

from .model import ModelError
from .policies import Member

__all__ = ["EGS", "EGS_SHRINK_ROUNDS"]

#: How EGS shrinks: "one" — Figure 5 as printed, one round of equal shares with the malus (a
#: share a job cannot give is not asked of another job); "repeat" — what is left is split again
#: over the jobs that can still shrink.
EGS_SHRINK_ROUNDS = ("one", "repeat")


class EGS:
    name = "EGS"

    def __init__(self, shrink_rounds: str = "one") -> None:
        if shrink_rounds not in EGS_SHRINK_ROUNDS:
            raise ModelError(
                "egs_shrink_rounds",
                f"unknown EGS shrink rounds {shrink_rounds!r} (known: one, repeat)",
            )
        self.single_shrink = shrink_rounds == "one"

    def grow(self, members: list[Member], value: int) -> dict[int, int]:
        order = sorted(members, key=lambda m: (m.start, m.key))  # least recently started first
        return _rounds(order, value, grow=True, single=False)

    def shrink(self, members: list[Member], value: int) -> dict[int, int]:
        order = sorted(members, key=lambda m: (-m.start, -m.key))  # most recently started first
        return _rounds(order, value, grow=False, single=self.single_shrink)


def _rounds(order: list[Member], value: int, *, grow: bool, single: bool) -> dict[int, int]:
    sizes = {m.key: m.size for m in order}
    while value > 0:
        if single:  # Figure 5: one round over all the running malleable jobs
            movable = order
        else:
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
        if moved == 0 or single:
            break
    return {m.key: sizes[m.key] for m in order if sizes[m.key] != m.size}
