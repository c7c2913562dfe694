"""The slot model and thesis Table 1 (sub-slot rules and costs), worked by hand."""

from __future__ import annotations

import pytest

from scheduler.slots import Slot, SubslotError

H = 3600


def slot(b: bool, e: bool, c: float = 2.0, f: float = 5.0) -> Slot:
    # 4 processors for 3 hours from t = 1 h, c = 2 SU per processor-hour, f = 5 SU
    return Slot(start=H, procs=4, duration=3 * H, unit_cost=c, fixed_cost=f, divisible=b,
                extensible=e)  # fmt: skip


def test_total_cost_is_n_d_c_plus_f():
    s = slot(False, False)
    assert s.end == 4 * H
    assert s.total_cost == pytest.approx(4 * 3 * 2.0 + 5.0)  # 29 SU


def test_table1_indivisible_inextensible_only_whole():
    s = slot(False, False)
    assert s.subslot_cost(H, 4, 3 * H) == pytest.approx(29.0)
    for bad in [(H, 3, 3 * H), (H, 4, 2 * H), (2 * H, 4, 2 * H), (H, 4, 4 * H)]:
        with pytest.raises(SubslotError):
            s.subslot_cost(*bad)
    assert not s.allows(H, 2, H)


def test_table1_indivisible_extensible_longer_costs_more():
    s = slot(False, True)
    assert s.subslot_cost(H, 4, 3 * H) == pytest.approx(29.0)
    # d_k = 5 h >= d_i: n_i * d_k * c + f = 4 * 5 * 2 + 5
    assert s.subslot_cost(H, 4, 5 * H) == pytest.approx(45.0)
    with pytest.raises(SubslotError, match="d_k >= "):
        s.subslot_cost(H, 4, 2 * H)
    with pytest.raises(SubslotError):
        s.subslot_cost(H, 2, 5 * H)


def test_table1_divisible_inextensible_parts_inside():
    s = slot(True, False)
    # 2 processors for 1 h from 2 h: n_k * d_k * c + f = 2 * 1 * 2 + 5
    assert s.subslot_cost(2 * H, 2, H) == pytest.approx(9.0)
    assert s.subslot_cost(H, 4, 3 * H) == pytest.approx(29.0)
    with pytest.raises(SubslotError, match="past the slot's end"):
        s.subslot_cost(3 * H, 2, 2 * H)
    with pytest.raises(SubslotError, match="before the slot's start"):
        s.subslot_cost(0, 2, H)
    with pytest.raises(SubslotError, match="exceeds"):
        s.subslot_cost(H, 5, H)


def test_table1_divisible_extensible_parts_past_the_end():
    s = slot(True, True)
    assert s.subslot_cost(3 * H, 2, 10 * H) == pytest.approx(2 * 10 * 2.0 + 5.0)
    with pytest.raises(SubslotError):
        s.subslot_cost(0, 1, H)


def test_json_has_the_cli_fields():
    s = Slot(0, 2, 60, divisible=True, extensible=True)
    assert s.as_json() == {
        "start": 0, "procs": 2, "duration": 60, "unit_cost": 1.0, "fixed_cost": 0.0,
        "divisible": True, "extensible": True,
    }  # fmt: skip


@pytest.mark.parametrize(
    "kwargs",
    [{"procs": 0}, {"duration": 0}, {"unit_cost": -1.0}, {"fixed_cost": float("inf")},
     {"procs": True}],
)  # fmt: skip
def test_invalid_slots_are_refused(kwargs):
    base = {"start": 0, "procs": 1, "duration": 1}
    with pytest.raises(ValueError):
        Slot(**{**base, **kwargs})
