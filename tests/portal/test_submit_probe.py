"""The probe's cases ("checks only at run time, against the README's promise"): values the
submit accepted and only the worker refused (or blew up on).  Each is now a 400 at submit
naming the field, with nothing saved; a sweep with one such point is refused naming it."""

import tracemalloc

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment, Sweep

from .factories import stored_trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


@pytest.fixture
def trace(alice, media_root):
    return stored_trace(alice, jobs=300, procs=64, seed=3)


def refused(resp, field: str) -> None:
    assert resp.status_code == 400, resp.content
    messages = resp.json().get("params") or resp.json().get("vary") or []
    assert any(field in m for m in messages), messages
    assert Experiment.objects.count() == 0 and Sweep.objects.count() == 0


def submit(api, kind: str, params: dict, traces=()):  # type: ignore[no-untyped-def]
    body = {"kind": kind, "params": params, "traces": [t.pk for t in traces]}
    return api.post("/api/experiments/", body, format="json")


def test_coallocation_domain_order_naming_an_unknown_domain(api):
    resp = submit(api, "coallocation", {"pref_domain": True, "domain_order": "N,Atlantis"})
    refused(resp, "domain_order")
    assert "Atlantis" in str(resp.json())


@pytest.mark.parametrize("field", ["durations_h", "offsets_h"])
def test_virtual_reservations_of_1e_320_hours(api, trace, field):
    refused(submit(api, "virtual-reservations", {field: "1e-320"}, [trace]), field)


def test_usage_policy_weights_of_only_commas(api):
    refused(submit(api, "usage-policy", {"weights": ",,,"}), "weights")


def test_usage_policy_of_1e8_steps(api):
    refused(submit(api, "usage-policy", {"duration": 100_000_000, "step": 1}), "step")


def test_slot_advertisement_site_names_of_only_commas(api, trace):
    refused(submit(api, "slot-advertisement", {"site_names": ",,,"}, [trace]), "site_names")


def test_a_coallocation_of_a_million_requests_is_refused_before_any_is_drawn(api):
    tracemalloc.start()
    try:
        resp = submit(api, "coallocation", {"max_load": 300, "day": 7 * 86400, "workloads": 100})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    refused(resp, "max_load")
    assert "20,000" in str(resp.json())
    assert peak < 64 * 2**20  # refused from the expected count: no request was drawn


def test_a_sweep_with_one_invalid_point_is_refused_naming_the_point(api):
    resp = api.post("/api/sweeps/", {
        "kind": "coallocation", "params": {"pref_domain": True, "max_load": 20},
        "vary": [{"param": "domain_order", "values": ["N,S,U", "N,Atlantis"]}],
    }, format="json")  # fmt: skip
    refused(resp, "domain_order")
    assert "N,Atlantis" in str(resp.json())
