"""Values a run can only reject given its inputs are refused at submit: the
kind's ``check_facts`` reads the trace's stored summary — the same check the engine makes before
running — so an accepted run does not fail later on something the user could have been told."""

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment, Sweep
from scheduler.experiments import ParamError, run_experiment
from scheduler.io import load_trace

from .factories import stored_trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


@pytest.fixture
def trace(alice, media_root):
    return stored_trace(alice, jobs=300, procs=64, seed=3)  # a few days of jobs


CASES = [
    (
        "provisioning-impact",
        lambda span: {"start_day": span + 5, "days": 1.0, "submit_hour": 1.0},
        "start_day",
    ),
    ("provisioning-impact", lambda span: {"days": 1.0, "submit_hour": 30.0}, "submit_hour"),
    ("virtual-reservations", lambda span: {"warmup_days": span + 1}, "warmup_days"),
    ("slot-advertisement", lambda span: {"site_traces": "1,2"}, "site_traces"),
]


@pytest.mark.parametrize("kind, params, field", CASES)
def test_refused_at_submit_naming_the_parameter(api, trace, kind, params, field):
    span = trace.summary["span_days"]
    resp = api.post("/api/experiments/", {"kind": kind, "traces": [trace.pk],
                                          "params": params(span)}, format="json")  # fmt: skip
    assert resp.status_code == 400, resp.content
    assert any(m.startswith(f"{field}:") for m in resp.json()["params"])
    assert Experiment.objects.count() == 0


@pytest.mark.parametrize("kind, params, field", CASES)
def test_the_engine_refuses_the_same_before_running(trace, kind, params, field):
    loaded = load_trace(trace.file.path)
    span = trace.summary["span_days"]
    with pytest.raises(ParamError) as err:
        run_experiment(kind, params(span), {"traces": [loaded]})
    assert field in err.value.errors


def test_a_sweep_point_past_the_trace_is_refused(api, trace):
    span = trace.summary["span_days"]
    resp = api.post("/api/sweeps/", {
        "kind": "provisioning-impact", "traces": [trace.pk],
        "params": {"days": 1.0, "submit_hour": 1.0},
        "vary": [{"param": "start_day", "values": [0, span + 5]}],
    }, format="json")  # fmt: skip
    assert resp.status_code == 400 and "start_day" in str(resp.json())
    assert Sweep.objects.count() == 0 and Experiment.objects.count() == 0


def test_values_inside_the_trace_are_accepted(api, trace):
    resp = api.post("/api/experiments/", {"kind": "provisioning-impact", "traces": [trace.pk],
                                          "params": {"start_day": 0, "days": 1.0,
                                                     "submit_hour": 2.0}},
                    format="json")  # fmt: skip
    assert resp.status_code == 201, resp.content
