"""Malleability policies FPSMA and EGS, the application models and Worst-Fit (seed 002 §5-6)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.malleability.apps import FT, GADGET2, get_app, pow2_floor
from scheduler.malleability.egs import EGS
from scheduler.malleability.fpsma import FPSMA
from scheduler.malleability.model import JobSpec, ModelError, clusters_from_sizes
from scheduler.malleability.placement import PlacementQueue, worst_fit
from scheduler.malleability.policies import Member
from scheduler.malleability.policy_table import get_policy


def g(key, start, size, lo=2, hi=46):
    return Member(key, start, size, lo, hi, GADGET2)


def test_app_curves_match_the_seed_anchor_points():
    # seed §6.1: GADGET2 ~10 min on 2 processors, best ~4 min; FT ~2 min on 2, best ~1 min
    assert GADGET2.time(2) == pytest.approx(600, abs=1)
    assert min(GADGET2.time(p) for p in range(1, 47)) == pytest.approx(240, abs=1)
    assert FT.time(2) == pytest.approx(120, abs=1)
    assert min(FT.time(2**k) for k in range(6)) == pytest.approx(60, abs=1)


def test_ft_settles_on_powers_of_two_and_gives_back_the_rest():
    # offered 13 more at 2 → 15 → highest power of 2 not above it: 8
    assert FT.settle(2, 15, 2, 32) == 8
    assert FT.settle(8, 100, 2, 32) == 32  # capped by its max
    assert FT.settle(16, 5, 2, 32) == 4  # shrink request to 5 → 4
    assert GADGET2.settle(2, 15, 2, 46) == 15
    with pytest.raises(ModelError) as err:
        get_app("lammps")
    assert err.value.field == "app"


def test_fpsma_grows_earliest_started_first():
    # 12 to hand out; earliest (key 1, start 0) takes 8 to reach its max 10, then key 2 gets 4
    out = FPSMA().grow([g(2, 50, 2, hi=10), g(1, 0, 2, hi=10), g(3, 90, 2, hi=10)], 12)
    assert out == {1: 10, 2: 6}


def test_fpsma_shrinks_latest_started_first():
    # reclaim 10: latest (key 3, start 90, size 6) gives 4 (to its min 2), then key 2 gives 6
    out = FPSMA().shrink([g(1, 0, 10), g(2, 50, 10), g(3, 90, 6)], 10)
    assert out == {3: 2, 2: 4}


def test_egs_grow_bonus_to_least_recently_started():
    # 11 over 3 jobs = 3 each + remainder 2 → +1 for the two earliest started
    out = EGS().grow([g(3, 30, 2), g(1, 10, 2), g(2, 20, 2)], 11)
    assert out == {1: 6, 2: 6, 3: 5}


def test_egs_shrink_malus_from_most_recently_started():
    # 7 over 3 jobs = 2 each + remainder 1 → the most recently started gives one more
    out = EGS().shrink([g(1, 10, 10), g(2, 20, 10), g(3, 30, 10)], 7)
    assert out == {3: 7, 2: 8, 1: 8}


def test_egs_redistributes_what_a_capped_job_cannot_take():
    # 9 over 3: 3 each, but key 1 can take only 1 (max 3); the 2 left go to keys 2 and 3
    out = EGS().grow([g(1, 0, 2, hi=3), g(2, 1, 2), g(3, 2, 2)], 9)
    assert out == {1: 3, 2: 6, 3: 6}


def test_egs_ft_jobs_take_powers_of_two():
    fts = [Member(k, k, 2, 2, 32, FT) for k in (1, 2)]
    out = EGS().grow(fts, 12)  # 6 each → 8 → 8 (accepts 6): sizes 8 and 8
    assert out == {1: 8, 2: 8}


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    n=st.integers(1, 8),
    value=st.integers(0, 200),
    grow=st.booleans(),
)
def test_egs_equal_split_when_no_bound_binds(n, value, grow):
    # sizes and bounds wide enough that nothing binds: every job moves by value // n, the
    # first value % n of the policy's order by one more
    members = [Member(k, 100 - 7 * k, 300, 1, 1000, GADGET2) for k in range(n)]
    out = (EGS().grow if grow else EGS().shrink)(members, value)
    order = sorted(members, key=lambda m: (m.start, m.key) if grow else (-m.start, -m.key))
    share, rem = divmod(value, n)
    for i, m in enumerate(order):
        moved = abs(out.get(m.key, m.size) - m.size)
        assert moved == share + (1 if i < rem else 0)


members_st = st.lists(
    st.tuples(st.integers(0, 100), st.integers(1, 8), st.integers(0, 40), st.booleans()),
    min_size=1,
    max_size=7,
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    members=members_st,
    value=st.integers(0, 120),
    grow=st.booleans(),
    name=st.sampled_from(["FPSMA", "EGS", "EGS-repeat"]),
)
def test_policies_keep_bounds_and_budget(members, value, grow, name):
    ms = []
    for k, (start, lo, extra, ft) in enumerate(members):
        app = FT if ft else GADGET2
        lo = pow2_floor(lo) if ft else lo
        hi = pow2_floor(lo + extra) if ft else lo + extra
        size = lo if grow else hi
        ms.append(Member(k, start, size, lo, hi, app))
    pol = EGS("repeat") if name == "EGS-repeat" else get_policy(name)
    out = pol.grow(ms, value) if grow else pol.shrink(ms, value)
    by_key = {m.key: m for m in ms}
    total = 0
    for key, new in out.items():
        m = by_key[key]
        assert m.lo <= new <= m.hi
        assert m.app.valid(new)
        total += new - m.size
        assert (new > m.size) == grow
    if grow:
        assert 0 <= total <= value  # never hands out more than offered
    else:
        reclaimable = sum(m.size - m.lo for m in ms)
        if name == "EGS":  # one round (Figure 5): what a job cannot give is not asked again
            assert 0 <= -total <= reclaimable
        else:
            assert -total >= min(value, reclaimable)  # reclaims what was asked when possible


def test_egs_shrink_is_one_round_as_figure_5():
    # seed 002 Figure 5: shrink 2 over 2 jobs = 1 each; job 2 (most recent) is at its minimum
    # and gives nothing, and nobody asks job 1 for the difference: only 1 is reclaimed.
    ms = [g(1, 1, 10), g(2, 2, 2)]
    assert EGS().shrink(ms, 2) == {1: 9}
    assert EGS("repeat").shrink(ms, 2) == {1: 8}  # the model's earlier choice, an option now
    # grow still hands out again what a capped job declines (§6.1: "voluntarily released")
    assert EGS().grow([g(1, 0, 2, hi=3), g(2, 1, 2), g(3, 2, 2)], 9) == {1: 3, 2: 6, 3: 6}
    with pytest.raises(ModelError) as err:
        EGS("twice")
    assert err.value.field == "egs_shrink_rounds"


def test_worst_fit_and_queue_tries():
    assert worst_fit([3, 9, 9, 4], 5) == 1  # most idle, first on ties
    assert worst_fit([3, 4], 5) is None
    q = PlacementQueue(max_tries=2)
    q.push(JobSpec(1, 0, "gadget2", "rigid", 2, 2))
    # §4.1: the submission fails when the number of tries *exceeds* the threshold
    assert not q.failed_try(q.jobs[0]) and not q.failed_try(q.jobs[0])
    assert q.failed_try(q.jobs[0]) and q.jobs[0].tries == 3


def test_bad_model_input_names_the_field():
    with pytest.raises(ModelError) as err:
        JobSpec(1, 0, "gadget2", "malleable", 8, 4)
    assert err.value.field == "min_procs"
    with pytest.raises(ModelError) as err:
        clusters_from_sizes([10, 0])
    assert err.value.field == "clusters"
    with pytest.raises(ModelError) as err:
        get_policy("round-robin")
    assert err.value.field == "policy"
