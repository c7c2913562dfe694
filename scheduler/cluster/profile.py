"""The availability profile: free processors of one machine over time.

This is the shared core of the engine.  The batch policies (FCFS, EASY and conservative
backfilling, Mu'alem & Feitelson 2001) plan with it, and slot advertisement, pricing
(§5), virtual advance reservations (§6) and provisioning (§7) reuse it: a hole of a conservative
plan is a step of this function, a price is the difference between two profiles, a provisioned
slot is a block inserted into it.

Representation
--------------
A right-continuous step function: breakpoints ``times`` (strictly increasing integer seconds;
the first is the origin, the earliest instant the profile still knows, see
:meth:`Profile.advance`) and ``free[i]`` processors free on ``[times[i], times[i + 1])``; the
last step runs to infinity and always equals the capacity, because every block is finite.

The function is kept canonical: two neighbouring steps never hold the same value, so the steps
*are* the holes (maximal intervals of constant availability).  The steps live in the profile
library :mod:`scheduler.cluster._steps` (a :class:`~scheduler.cluster._steps.Steps`: two
int64 buffers with room to grow), which ``make setup`` compiles with Cython (the same source
runs as Python without a build: :func:`scheduler.cluster.native_status` says which).  It is
the one library every policy, planner, whole-run loop and quote kernel steps a profile with:
lookups are binary searches, and an update moves only the steps after the block it inserts or
removes.  :attr:`Profile.times` and :attr:`Profile.free` are copies, for reading.  Times and
counts are ints (numpy integers are converted; a float raises :class:`TypeError`), within 62
bits.

Complexity, with K steps: :meth:`~Profile.free_at` O(log K); :meth:`~Profile.free_over`
O(log K + steps in the range); :meth:`~Profile.reserve` / :meth:`~Profile.release` O(log K +
steps covered) plus one move of the steps after the block; :meth:`~Profile.earliest_start`
O(steps scanned from t to the answer).

Example
-------
>>> p = Profile(5)
>>> p.reserve(0, 3, 2)            # job A: 2 processors over [0, 3)
>>> p.earliest_start(4, 1, 0)     # job B: 4 processors for 1 s
3
>>> p.free_over(0, 3), p.free_at(3)
(3, 5)
>>> list(p.steps())
[(0, 3, 3), (3, None, 5)]

References
----------
A. W. Mu'alem and D. G. Feitelson, "Utilization, predictability, workloads, and user runtime
estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6):529-543, 2001 (the
"profile" of conservative backfilling).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from operator import index

from scheduler._native import load as _load_native

__all__ = ["Profile", "ProfileError"]

#: the profile library's steps (``_C.STEPS``) and conservative backfilling's compression pass,
#: compiled when a build of that very source exists (see scheduler/_native.py)
_C = _load_native("scheduler.cluster._compress")


def _ints(*values: object) -> tuple[int, ...]:
    """Plain ints (numpy integers are fine; a float raises :class:`TypeError`: the compiled
    kernel works on 64-bit integers, and so does the pure one, so that both agree)."""
    return tuple(int(index(v)) for v in values)


class ProfileError(ValueError):
    """A block that does not fit (over-commit), or a release of capacity that was not taken."""


class Profile:
    """Free processors of a machine of ``capacity`` processors, from ``origin`` on.

    Blocks are half-open intervals ``[start, end)`` of integer seconds.  Every method that takes
    a time before :attr:`origin` raises :class:`ValueError`: the past has been forgotten.
    """

    __slots__ = ("capacity", "_steps")

    def __init__(self, capacity: int, origin: int = 0) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 0:
            raise ValueError(f"capacity must be an int >= 0, got {capacity!r}")
        self.capacity = capacity
        self._steps = _C.STEPS([origin], [capacity], capacity)

    @classmethod
    def of_blocks_from(
        cls, capacity: int, origin: int, ends: list[int], procs: list[int]
    ) -> Profile:
        """The profile from ``origin`` on of blocks that all hold from ``origin`` to their
        ``ends`` (each after ``origin``), ``procs`` processors each (>= 1; in all no more
        than ``capacity``): what reserving each block over ``[origin, end)`` in turn gives,
        built in one pass over the ends sorted (the running jobs of a site at an instant)."""
        profile = cls(capacity, origin)
        if len(ends) != len(procs):
            raise ValueError("as many processor counts as ends")
        if not ends:
            return profile
        if min(procs) < 1 or min(ends) <= origin:
            raise ValueError("each block holds >= 1 processor and ends after the origin")
        taken = sum(procs)
        if taken > capacity:
            raise ProfileError(
                f"reserving {taken} processors at {origin}: only {capacity} on the machine"
            )
        times, free = [origin], [capacity - taken]
        level = free[0]
        for e, n in sorted(zip(ends, procs, strict=True)):
            level += n  # (a step at each distinct end: the free count rises there)
            if e == times[-1]:
                free[-1] = level
            else:
                times.append(e)
                free.append(level)
        profile._steps = _C.STEPS(times, free, capacity)
        return profile

    # ---------------------------------------------------------------- reading

    @property
    def origin(self) -> int:
        """The earliest instant the profile knows."""
        return self._steps.origin()

    @property
    def free_now(self) -> int:
        """Free processors at the origin: a simulator's now (it advances the origin as time
        moves on)."""
        return self._steps.origin_free()

    @property
    def times(self) -> list[int]:
        """The breakpoints (a copy)."""
        return self._steps.lists()[0]

    @property
    def free(self) -> list[int]:
        """Free processors per step, parallel to :attr:`times` (a copy)."""
        return self._steps.lists()[1]

    def lists(self) -> tuple[list[int], list[int]]:
        """``(times, free)``: both copies at once."""
        return self._steps.lists()

    def __len__(self) -> int:
        """Number of steps."""
        return self._steps.size

    def __repr__(self) -> str:
        steps = ", ".join(f"{t}:{f}" for t, f in zip(*self._steps.lists(), strict=True))
        return f"Profile({self.capacity}, [{steps}])"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Profile):
            return NotImplemented
        return (self.capacity, self._steps.lists()) == (other.capacity, other._steps.lists())

    def __reduce__(self) -> tuple:
        """Pickled (and copied by :mod:`copy`) as its capacity and its steps."""
        return (_of_steps, (self.capacity, *self._steps.lists()))

    def _check(self, t: int) -> int:
        """``t`` as an int, not before the origin (else :class:`ValueError`)."""
        if type(t) is not int:
            (t,) = _ints(t)
        if t < self._steps.origin():
            raise ValueError(f"time {t} is before the profile's origin {self._steps.origin()}")
        return t

    def free_at(self, t: int) -> int:
        """Free processors at instant ``t``."""
        return self._steps.free_at(self._check(t))

    def free_over(self, a: int, b: int) -> int:
        """Minimum free processors over ``[a, b)`` (``free_at(a)`` when ``b <= a``)."""
        return self._steps.free_over(self._check(a), b if type(b) is int else _ints(b)[0])

    def max_free_over(self, a: int, b: int) -> int:
        """Maximum free processors over ``[a, b)`` (``free_at(a)`` when ``b <= a``)."""
        return self._steps.max_free_over(self._check(a), b if type(b) is int else _ints(b)[0])

    def fits(self, n: int, a: int, b: int) -> bool:
        """Whether ``n`` processors are free over all of ``[a, b)``."""
        return self.free_over(a, b) >= n

    def earliest_start(self, n: int, d: int, t: int | None = None) -> int | None:
        """Earliest ``s >= t`` with ``n`` processors free over ``[s, s + d)``.

        ``t`` defaults to the origin.  ``d = 0`` asks for ``n`` free processors at the instant
        ``s``.  Returns None when ``n`` exceeds the capacity (it never fits).  The answer is
        always ``t`` or a breakpoint, i.e. an instant where availability changes.
        """
        if n > self.capacity:
            return None
        t = self._steps.origin() if t is None else self._check(t)
        if type(n) is not int or type(d) is not int:
            n, d = _ints(n, d)
        return self._steps.earliest_start(n, d, t)

    def steps(
        self, a: int | None = None, b: int | None = None
    ) -> Iterator[tuple[int, int | None, int]]:
        """The steps ``(start, end, free)`` meeting ``[a, b)``, clipped to it.

        ``end`` is None for the last step when ``b`` is None (it runs forever).  With the
        defaults this is the whole function from the origin on.  These are the holes of the
        plan: slot advertisement reads them.
        """
        times, free = self._steps.lists()
        i = 0 if a is None else bisect_right(times, self._check(a)) - 1
        k = len(times)
        while i < k:
            s = times[i]
            e = times[i + 1] if i + 1 < k else None
            if a is not None and s < a:
                s = a
            if b is not None:
                if s >= b:
                    return
                if e is None or e > b:
                    e = b
            yield (s, e, free[i])
            i += 1

    def breakpoints(self, a: int | None = None, b: int | None = None) -> list[int]:
        """Instants in ``[a, b)`` where availability changes (``a`` itself excluded unless it
        is a breakpoint).  These are the candidate starts of pricing query (18)
        (Singh 2008 thesis, §5.2)."""
        times = self._steps.lists()[0]
        i = 0 if a is None else bisect_left(times, a)
        j = len(times) if b is None else bisect_left(times, b)
        return times[i:j]

    def copy(self) -> Profile:
        """An independent copy."""
        other = Profile.__new__(Profile)
        other.capacity = self.capacity
        other._steps = self._steps.copy()
        return other

    # --------------------------------------------------------------- updating

    def _refuse(self, start: int, end: int, delta: int, what: str) -> None:
        if delta < 0:
            raise ProfileError(
                f"over-commit: {what} {-delta} processors over [{start}, {end}) but only "
                f"{self.free_over(start, end)} are free there"
            )
        raise ProfileError(
            f"{what} {delta} processors over [{start}, {end}) exceeds the capacity "
            f"{self.capacity} (giving back what was not taken)"
        )

    def _add(self, start: int, end: int, delta: int, what: str) -> None:
        """``delta`` free processors more over ``[start, end)`` (``start < end``), keeping
        0 <= free <= capacity (else raise :class:`ProfileError` and change nothing)."""
        if type(start) is not int or type(end) is not int or type(delta) is not int:
            start, end, delta = _ints(start, end, delta)
        if start < self._steps.origin():
            self._check(start)
        if not self._steps.add(start, end, delta):
            self._refuse(start, end, delta, what)

    def reserve(self, start: int, end: int, n: int) -> None:
        """Insert a block: take ``n`` processors over ``[start, end)``.

        Raises :class:`ProfileError` (and changes nothing) if fewer than ``n`` are free
        somewhere in the interval.  An empty interval or ``n = 0`` is a no-op.
        """
        if end <= start or n == 0:
            return
        if n < 0:
            raise ValueError(f"processors must be >= 0, got {n}")
        self._add(start, end, -n, "reserving")

    def release(self, start: int, end: int, n: int) -> None:
        """Remove a block: give back ``n`` processors over ``[start, end)``.

        Raises :class:`ProfileError` (and changes nothing) if that would exceed the capacity
        (giving back what was never taken).
        """
        if end <= start or n == 0:
            return
        if n < 0:
            raise ValueError(f"processors must be >= 0, got {n}")
        self._add(start, end, n, "releasing")

    def earliest_move(self, start: int, d: int, n: int, t: int) -> int:
        """Earliest start ``>= t`` (and ``<= start``) for a block of ``n`` processors and
        duration ``d`` that is *already in the profile* at ``start``.

        The same answer as releasing the block and asking :meth:`earliest_start`, without
        touching the profile: the block's own processors are free over ``[start, start + d)``,
        so a window opening at ``s' < start`` only needs ``n`` free over
        ``[s', min(s' + d, start))``.  Conservative backfilling's compression asks this for
        every queued job; pricing can ask it to re-plan a queue.
        """
        if type(start) is not int or type(d) is not int or type(n) is not int:
            start, d, n = _ints(start, d, n)
        return self._steps.earliest_move(start, d, n, self._check(t))

    def move(self, start: int, new_start: int, d: int, n: int) -> None:
        """Move a block of ``n`` processors and duration ``d`` from ``start`` to
        ``new_start`` (only the net change is applied; raises :class:`ProfileError` and
        changes nothing if it does not fit)."""
        if new_start == start or d <= 0 or n == 0:
            return
        start, new_start, d, n = _ints(start, new_start, d, n)
        self._check(min(start, new_start))
        if not self._steps.move(start, new_start, d, n):
            raise ProfileError(
                f"moving {n} processors over [{start}, {start + d}) to [{new_start}, "
                f"{new_start + d}): they are not free there"
            )

    def load_steps(self, times: list[int], free: list[int]) -> None:
        """Become the profile of the steps ``times``/``free`` (canonical, the last at the
        capacity): where a whole-run loop left its copy."""
        self._steps = _C.STEPS(times, free, self.capacity)

    def advance(self, t: int) -> None:
        """Forget everything before ``t`` (the origin becomes ``t``); a no-op if ``t`` is not
        after the origin.  Simulators call it as time moves on so the profile stays short."""
        if type(t) is not int:
            (t,) = _ints(t)
        self._steps.advance(t)


def _of_steps(capacity: int, times: list[int], free: list[int]) -> Profile:
    """The profile of a machine of ``capacity`` with the steps ``times``/``free`` (unpickling)."""
    profile = Profile(capacity, times[0])
    profile.load_steps(times, free)
    return profile
