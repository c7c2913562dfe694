"""Key results on every kind: a run of every kind of the catalogue, on the small
inputs the catalogue test uses, names 3–6 summary numbers that answer its question, and each of
them reaches the reader with a label and unit from the one label registry."""

import re

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.services import experiment_create, experiment_execute
from scheduler import experiments as catalogue
from scheduler.labels import known, label_of

from .factories import inputs_for_kind
from .test_every_kind import SMALL

pytestmark = pytest.mark.django_db

KINDS = [k.name for k in catalogue.kinds()]
RAW = re.compile(r"[\w-]+(?:[_.][\w-]+)+")  # a raw key ("easy_accurate_mean_wait")


@pytest.mark.parametrize("kind_name", KINDS)
def test_every_kind_declares_key_results_with_labels(kind_name, alice, media_root):
    kind = catalogue.get_kind(kind_name)
    exp = experiment_create(
        owner=alice, kind=kind_name, params=SMALL.get(kind_name, {}),
        **inputs_for_kind(alice, kind),
    )  # fmt: skip
    assert experiment_execute(experiment_id=exp.pk) == "succeeded"
    api = APIClient()
    api.force_authenticate(alice)
    result = api.get(f"/api/experiments/{exp.pk}/result/").json()
    key = result.get("key") or []
    assert 3 <= len(key) <= 6, (kind_name, key)
    assert len(set(key)) == len(key), key
    for k in key:
        assert k in result["summary"] and result["summary"][k] is not None, k
        assert isinstance(result["summary"][k], (int, float)), k
        assert known(k), f"{kind_name}: {k!r} has no entry in scheduler/labels.py"
        label = result["summary_labels"][k]
        assert label and label != k and not RAW.fullmatch(label), (k, label)


def test_registry_units_of_key_results():
    """The registry gives the unit the value is in (a reader sees "6.09 h", not "6.09")."""
    from scheduler.labels import format_value, unit_of

    assert unit_of("prov_makespan_h_a50") == "h" and unit_of("price_su_a0") == "SU"
    assert label_of("prov_cost_su_a50") == "provisioned: mean allocation cost, α = 0.5"
    assert unit_of("fcfs_none_min") == "min" and unit_of("var_success_pct") == "%"
    assert unit_of("spep.ART") == "s" and format_value(7200, key="spep.ART") == "2 h"
    assert label_of("s2_mean_slots") == "site 2: mean number of slots advertised"
    assert unit_of("prov_delay_su_a0") == "SU"  # a price, not seconds ("delay")
    assert not known("no_such_metric_here")
