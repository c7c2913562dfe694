"""The availability profile (scheduler.cluster.profile) against hand-worked cases and a
brute-force model (free processors per second)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.cluster.profile import Profile, ProfileError


def test_reserve_release_and_queries_by_hand():
    p = Profile(10)
    p.reserve(0, 10, 4)
    p.reserve(5, 20, 3)
    assert list(p.steps()) == [(0, 5, 6), (5, 10, 3), (10, 20, 7), (20, None, 10)]
    assert p.free_at(0) == 6 and p.free_at(5) == 3 and p.free_at(19) == 7 and p.free_at(99) == 10
    assert p.free_over(0, 5) == 6 and p.free_over(0, 6) == 3 and p.free_over(10, 30) == 7
    assert p.free_over(7, 7) == 3  # empty interval: the value at the instant
    assert p.max_free_over(0, 20) == 7
    assert p.fits(6, 0, 5) and not p.fits(7, 0, 5)
    assert p.breakpoints() == [0, 5, 10, 20] and p.breakpoints(5, 20) == [5, 10]
    p.release(5, 20, 3)
    assert list(p.steps()) == [(0, 10, 6), (10, None, 10)]  # merged back: canonical
    p.release(0, 10, 4)
    assert list(p.steps()) == [(0, None, 10)] and len(p) == 1


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 64),
    st.integers(0, 50),
    st.lists(st.tuples(st.integers(1, 40), st.integers(1, 16)), max_size=12),
)
def test_blocks_from_the_origin_in_one_pass_are_the_blocks_reserved_in_turn(cap, t, blocks):
    """``Profile.of_blocks_from`` (a site's running jobs at an instant) is what
    reserving each block over ``[origin, end)`` in turn gives, steps canonical; too many
    processors in all raise, as the reserve that overflows does."""
    ends = [t + length for length, _ in blocks]
    procs = [n for _, n in blocks]
    want = Profile(cap, t)
    try:
        for e, n in zip(ends, procs, strict=True):
            want.reserve(t, e, n)
    except ProfileError:
        with pytest.raises(ProfileError, match="only"):
            Profile.of_blocks_from(cap, t, ends, procs)
        return
    got = Profile.of_blocks_from(cap, t, ends, procs)
    assert got == want
    assert all(a < b for a, b in zip(got.times, got.times[1:], strict=False))
    assert all(a != b for a, b in zip(got.free, got.free[1:], strict=False))


def test_blocks_from_the_origin_refuse_what_reserving_would_not_build():
    with pytest.raises(ValueError, match="as many"):
        Profile.of_blocks_from(8, 0, [5, 6], [1])
    with pytest.raises(ValueError, match=">= 1 processor and ends after the origin"):
        Profile.of_blocks_from(8, 10, [10], [1])
    with pytest.raises(ValueError, match=">= 1 processor"):
        Profile.of_blocks_from(8, 0, [5], [0])


def test_over_commit_and_over_release_raise_and_change_nothing():
    p = Profile(4)
    p.reserve(0, 10, 3)
    before = p.copy()
    with pytest.raises(ProfileError, match="over-commit"):
        p.reserve(5, 15, 2)
    assert p == before
    with pytest.raises(ProfileError, match="exceeds the capacity"):
        p.release(8, 12, 1)
    assert p == before
    with pytest.raises(ValueError, match="before the profile's origin"):
        p.free_at(-1)
    p.reserve(3, 3, 99)  # empty block: no-op
    assert p == before


def test_earliest_start_by_hand():
    # a 5-processor example: A (2 procs, 3 h) runs, B (4 procs, 1 h) waits
    p = Profile(5)
    p.reserve(0, 3, 2)
    assert p.earliest_start(4, 1, 0) == 3
    assert p.earliest_start(3, 5, 0) == 0
    assert p.earliest_start(1, 0, 0) == 0
    p.reserve(3, 4, 4)  # B planned at 3
    assert p.earliest_start(1, 2, 0) == 0  # C
    p.reserve(0, 2, 1)
    assert p.earliest_start(3, 2, 0) == 4  # D
    assert p.earliest_start(5, 1, 1) == 4
    assert p.earliest_start(6, 1, 0) is None  # larger than the machine: never
    assert p.earliest_start(2, 10, 2) == 4  # [3, 4) has only 1 free (B)
    assert p.earliest_start(2, 1, 2) == 2
    assert p.earliest_start(4, 0, 0) == 4  # zero length: needs 4 free at the instant


def test_advance_forgets_the_past():
    p = Profile(8, origin=100)
    p.reserve(100, 200, 5)
    p.reserve(150, 300, 2)
    p.advance(160)
    assert p.origin == 160 and list(p.steps()) == [(160, 200, 1), (200, 300, 6), (300, None, 8)]
    p.advance(50)  # not after the origin: no-op
    assert p.origin == 160
    with pytest.raises(ValueError):
        p.reserve(100, 170, 1)


def test_earliest_move_and_move_by_hand():
    p = Profile(4)
    p.reserve(0, 10, 3)  # a running job
    p.reserve(10, 15, 4)  # job X planned at 10
    p.release(4, 10, 3)  # the running job ends early at 4
    assert p.earliest_move(10, 5, 4, 4) == 4
    p.move(10, 4, 5, 4)
    assert list(p.steps()) == [(0, 4, 1), (4, 9, 0), (9, None, 4)]
    assert p.earliest_move(4, 5, 4, 0) == 4  # cannot go before 4


# ------------------------------------------------------------------ brute-force model

H = 40  # horizon of the model (seconds)
CAP = 6


class Model:
    """Free processors per second over [0, H), and CAP after."""

    def __init__(self) -> None:
        self.free = [CAP] * (H + 60)

    def apply(self, a: int, b: int, delta: int) -> bool:
        if all(0 <= self.free[t] + delta <= CAP for t in range(a, b)):
            for t in range(a, b):
                self.free[t] += delta
            return True
        return False

    def free_over(self, a: int, b: int) -> int:
        return min(self.free[a:b]) if b > a else self.free[a]

    def earliest(self, n: int, d: int, t: int) -> int | None:
        if n > CAP:
            return None
        for s in range(t, len(self.free)):
            if self.free_over(s, s + d) >= n if d else self.free[s] >= n:
                return s
        raise AssertionError("unreachable")


ops = st.lists(
    st.tuples(
        st.sampled_from(["reserve", "release"]),
        st.integers(0, H - 1),
        st.integers(0, 20),
        st.integers(1, CAP),
    ),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(ops, st.integers(0, H - 1), st.integers(0, 15), st.integers(1, CAP + 1))
def test_profile_matches_brute_force(operations, t, d, n):
    p, m = Profile(CAP), Model()
    for op, a, length, k in operations:
        b = a + length
        delta = -k if op == "reserve" else k
        ok = m.apply(a, b, delta)
        try:
            (p.reserve if op == "reserve" else p.release)(a, b, k)
            assert ok or length == 0
        except ProfileError:
            assert not ok
        # canonical: no two equal neighbours, last step is the whole capacity
        assert all(x != y for x, y in zip(p.free, p.free[1:], strict=False))
        assert p.free[-1] == CAP
    for s, e, f in p.steps(0, H):
        assert all(m.free[x] == f for x in range(s, e))
    assert p.free_over(t, t + d) == m.free_over(t, t + d)
    assert p.earliest_start(n, d, t) == m.earliest(n, d, t)


@settings(max_examples=200, deadline=None)
@given(ops, st.integers(0, H - 1), st.integers(0, 10), st.integers(1, 15), st.integers(1, CAP))
def test_earliest_move_equals_release_then_search(operations, now, gap, d, n):
    p = Profile(CAP)
    for op, a, length, k in operations:
        try:
            (p.reserve if op == "reserve" else p.release)(a, a + length, k)
        except ProfileError:
            pass
    s = p.earliest_start(n, d, now + gap)
    p.reserve(s, s + d, n)  # the block to move
    q = p.copy()
    q.release(s, s + d, n)
    expected = q.earliest_start(n, d, now)
    assert p.earliest_move(s, d, n, now) == expected <= s
    p.move(s, expected, d, n)
    q.reserve(expected, expected + d, n)
    assert p == q


def test_module_example_runs():
    import doctest

    import scheduler.cluster.profile as module

    assert doctest.testmod(module).failed == 0


def test_a_profile_pickles_and_copies_as_its_steps():
    """A profile travels (pickle: between processes) and copies (copy, deepcopy) as its
    capacity and steps, each copy independent of the original."""
    import copy
    import pickle

    p = Profile(8, origin=5)
    p.reserve(5, 20, 3)
    p.reserve(10, 30, 4)
    for other in (pickle.loads(pickle.dumps(p)), copy.copy(p), copy.deepcopy(p), p.copy()):
        assert other == p and other.lists() == p.lists() and other.capacity == 8
        other.reserve(40, 50, 8)
        assert other != p and p.free_at(45) == 8
