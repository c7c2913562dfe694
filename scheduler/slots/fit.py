"""Scheduling a task on a list of slots: the algorithm of thesis Figure 2 (with Figure 3's
left-overs).

Input: a task needing ``n`` processors for ``d`` seconds, not before ``earliest``, and a list of
free slots sorted by start.  Output: the task's start and the updated slot list.

Figure 2, for each slot ``S_i`` in scan order, with ``c = max(start_i, earliest)``:

(a) if ``S_i`` has ``≥ n`` processors and covers ``[c, c + d)`` (or is extensible), place the
    task on it at ``c``;
(b) else if ``S_i`` covers ``[c, c + d)`` (or is extensible) but has too few processors, walk
    back over the slots scanned before it, adding each one that is extensible or active over
    ``[c, c + d)``, until the processors suffice; then place the task across them at ``c``.

Processors are stacked across slots, never time (a task cannot hop between processors).  An
extensible slot that is too short is extended to 5 minutes (``margin``) past the task, so that
the processors the task releases stay represented by a left-over slot.

The earliest time.  Figure 2 has none; plan evaluation adds one (thesis §4.5: "the tasks now
have an earliest feasible start time").  Every slot that opened by ``earliest`` then offers the
same start ``c = earliest``, so their order among themselves is ours to fix: the scan takes
them *latest opened first* (the tightest fit in time: a slot that opened exactly at
``earliest`` leaves nothing before the task), then the later slots by start.  The walk back
visits the slots scanned before ``S_i`` by decreasing ``c``, ties latest opened first — in list
terms, always downwards from the latest start.  With no earliest time (or one before every
slot) this is Figure 2 word for word.  The answer's start does not depend on these orders; the
combination does.

Left-overs (Figure 3, at most three per slot).  The slots of the combination are used in the
order Figure 2 collects them (``S_i`` first, then walking back), so every slot but the last is
used whole and the last one possibly in part.  A slot ``<s, e, m>`` from which ``k`` processors
are taken over ``[c, c + d)`` leaves:

* *beside*: ``m − k`` processors over all of ``[s, e)`` — untouched processors keep their whole
  span (and the slot's extensibility);
* *before*: ``k`` processors over ``[s, c)`` — its end is now fixed by the task: inextensible;
* *after*: ``k`` processors over ``[c + d, e)`` — extensible if the slot was.

Pieces of the same advertised slot with the same span are merged (one rectangle of that slot).

On a list cut in level bands (:mod:`.advertise`), stacking the slots that span ``[c, c + d)``
yields the profile's minimum over it, so Figure 2's first success is the profile's earliest
start.  Left-overs keep processors fixed, which can fragment the list; a site that re-cuts its
list after each task (:mod:`.schedule`) schedules exactly as conservative backfilling.

Complexity.  Figure 2 is ``O(S²)`` (a walk back per slot).  :func:`find_start` returns exactly
the answer and combination of that scan (the tests compare it with a literal transcription) in
``O(S log S)``: the slots opened by ``earliest`` share ``c``, so their first success is where
the running total of the covering ones reaches ``n`` (one pass, stopping there); after them
``c`` never decreases, so a slot that stops covering ``[c, c + d)`` never covers again, and a
heap of the covering slots' ends keeps their processor total.  The walk back is done once.

A task of duration 0 occupies nothing: it needs ``n`` processors free at the instant ``c``
(like :meth:`~scheduler.cluster.Profile.earliest_start` with ``d = 0``) and leaves the list as
it is.

Slots are tuples :class:`FreeSlot` ``(start, end, procs, extensible, origin)``; ``origin`` is
the index of the advertised :class:`~.model.Slot` a piece comes from (cost accounting).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right, insort
from collections.abc import Sequence
from typing import NamedTuple

from .model import Slot

__all__ = [
    "EXTENSION_MARGIN",
    "FreeSlot",
    "Fit",
    "Use",
    "find_start",
    "fit_task",
    "free_slots",
    "take",
    "take_inplace",
]

#: seconds an extensible slot is extended past a task that outruns it (thesis: 5 minutes).
EXTENSION_MARGIN = 300

_FAR = 1 << 62


class FreeSlot(NamedTuple):
    """A free slot in a list scheduled by Figure 2: ``procs`` over ``[start, end)``.

    Lists are kept in the tuples' natural order: by start, then by end (ties among slots of
    the same start are not specified by the thesis).
    """

    start: int
    end: int
    procs: int
    extensible: bool
    origin: int = -1


class Use(NamedTuple):
    """``procs`` processors of advertised slot ``origin`` taken over ``[start, end)``."""

    origin: int
    procs: int
    start: int
    end: int


class Fit(NamedTuple):
    """Where the task starts, the updated slot list, and what it took from which slot."""

    start: int
    slots: list[FreeSlot]
    used: tuple[Use, ...]


def free_slots(slots: Sequence[Slot]) -> list[FreeSlot]:
    """Advertised slots as a Figure 2 list (``origin`` = index in ``slots``), sorted."""
    return sorted(FreeSlot(s.start, s.end, s.procs, s.extensible, i) for i, s in enumerate(slots))


def _walk_back(
    slots: Sequence[tuple], i: int, n: int, lim: int, below: int | None = None
) -> list[int]:
    """Figure 2's combination Z: ``S_i``, then earlier slots, latest first, that cover up to
    ``lim`` (or are extensible) until ``n`` processors are stacked.  The walk starts just below
    ``below`` (default ``i``): for a success in phase 1 it is the end of the slots scanned
    before ``S_i`` (all offering ``c = earliest``)."""
    need = n - slots[i][2]
    z = [i]
    j = (i if below is None else below) - 1
    while need > 0:
        _, ej, kj, xj, _ = slots[j]
        if xj or ej >= lim:
            z.append(j)
            need -= kj
        j -= 1
    return z


def find_start(
    slots: Sequence[tuple], n: int, d: int, earliest: int | None = None
) -> tuple[int, list[int]] | None:
    """Figure 2's search: ``(start, Z)`` with ``Z`` the indices of the slots combined (``S_i``
    first, then in walk-back order), or None when no slot or combination fits.

    ``slots`` must be sorted (natural order of :class:`FreeSlot`)."""
    if n <= 0:
        raise ValueError(f"a task needs at least one processor, got {n}")
    if d < 0:
        raise ValueError(f"a task's duration must be >= 0, got {d}")
    if not slots:
        return None
    t = slots[0][0] if earliest is None else earliest
    span = d if d > 0 else 1  # d = 0: active at the instant c, i.e. end > c
    lim = t + span
    j = bisect_right(slots, (t, _FAR))  # slots[:j] opened by t: all offer c = t
    # Phase 1, over those slots in scan order (the one that opened last first): the first
    # success is where the running total of the covering ones reaches n.  The covering ends
    # are kept for phase 2.
    total = 0
    covering = 0
    ends = []
    for q in range(j - 1, -1, -1):
        _, e, k, x, _ = slots[q]
        if x:
            total += k
        elif e >= lim:
            total += k
            covering += k
            ends.append((e, k))
        else:
            continue
        if total >= n:
            return t, _walk_back(slots, q, n, lim, below=j)
    endless = total - covering
    heapq.heapify(ends)
    # Phase 2: later slots, c = their start (non-decreasing); a slot that stops covering
    # [c, c + d) never covers again, so a heap of covering ends keeps the running total.
    heappop, heappush = heapq.heappop, heapq.heappush
    for i in range(j, len(slots)):
        c, e, k, x, _ = slots[i]
        lim = c + span
        while ends and ends[0][0] < lim:
            covering -= heappop(ends)[1]
        if x or e >= lim:
            if k + covering + endless >= n:
                return c, _walk_back(slots, i, n, lim)
            if x:
                endless += k
            else:
                heappush(ends, (e, k))
                covering += k
    return None


def take_inplace(
    out: list, n: int, d: int, start: int, z: Sequence[int], margin: int, keep_min: int
) -> list[tuple[int, int, int, int]]:
    """:func:`take` on ``out`` itself, all arguments positional (the plan evaluator's hot
    path); returns the uses."""
    if d == 0:
        return []
    end = start + d
    remaining = n
    used = []
    pieces = []
    gone = []
    last = len(out) - 1
    for j in z:
        s, e0, m, x, o = out[j]
        k = m if m < remaining else remaining
        remaining -= k
        e = end + margin if x and e0 <= end else e0
        used.append((o, k, start, end))
        if m > k:
            beside = (s, e, m - k, x, o)
            # the untouched processors keep the slot's place when the order allows it
            if e == e0 and (j == 0 or out[j - 1] <= beside) and (j == last or beside <= out[j + 1]):
                out[j] = beside
            else:
                pieces.append(beside)
                gone.append(j)
        else:
            gone.append(j)
        if start - s >= keep_min:
            pieces.append((s, start, k, False, o))
        if x or e - end >= keep_min:
            pieces.append((end, e, k, x, o))
    if remaining > 0:
        raise ValueError(f"the slots {list(z)} hold {n - remaining} of the {n} processors needed")
    if len(gone) == 1:
        del out[gone[0]]
    elif gone:
        for j in sorted(gone, reverse=True):
            del out[j]
    size = len(out)
    for p in pieces:
        s, e, m, x, o = p
        q = bisect_left(out, (s, e))
        while q < size:
            r = out[q]
            if r[0] != s or r[1] != e:
                break
            if r[3] == x and r[4] == o:  # same slot, same span: one rectangle
                p = (s, e, r[2] + m, x, o)
                del out[q]
                size -= 1
                break
            q += 1
        insort(out, p)
        size += 1
    return used


def take(
    slots: Sequence[tuple],
    n: int,
    d: int,
    start: int,
    z: Sequence[int],
    *,
    margin: int = EXTENSION_MARGIN,
    keep_min: int = 1,
) -> tuple[list[tuple], list[tuple[int, int, int, int]]]:
    """Take ``n`` processors over ``[start, start + d)`` from the slots ``z`` (in that order)
    and put their left-overs back (Figure 3).  Returns the new list and the uses
    ``(origin, procs, start, end)``; ``slots`` is not modified.

    For speed the new pieces are plain tuples with :class:`FreeSlot`'s fields (and the uses
    plain tuples with :class:`Use`'s); :func:`fit_task` returns the named forms.  Pieces of the
    same slot (``origin``) with the same span are merged into one rectangle.  ``keep_min``
    drops inextensible left-overs shorter than that many seconds (callers that know no later
    task is shorter may prune them; the default keeps every non-empty one).
    """
    out = list(slots)
    return out, take_inplace(out, n, d, start, z, margin, keep_min)


def fit_task(
    slots: Sequence[FreeSlot],
    n: int,
    d: int,
    earliest: int | None = None,
    *,
    margin: int = EXTENSION_MARGIN,
    keep_min: int = 1,
) -> Fit | None:
    """Thesis Figure 2: schedule a task of ``n`` processors for ``d`` seconds, not before
    ``earliest``, on ``slots`` (sorted).

    Returns the start, the new slot list and the processors taken from each slot, or None when
    the slots cannot hold the task (no extensible slots with enough processors).  The input
    list is not modified.

    >>> fit = fit_task([FreeSlot(0, 100, 4, True)], 2, 30)
    >>> fit.start, fit.slots
    (0, [FreeSlot(start=0, end=100, procs=2, extensible=True, origin=-1), \
FreeSlot(start=30, end=100, procs=2, extensible=True, origin=-1)])
    """
    found = find_start(slots, n, d, earliest)
    if found is None:
        return None
    start, z = found
    new, used = take(slots, n, d, start, z, margin=margin, keep_min=keep_min)
    return Fit(start, [FreeSlot(*p) for p in new], tuple(Use(*u) for u in used))
