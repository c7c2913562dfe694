"""Forms for people: values a run can only reject given its trace — a machine
no job of the trace fits, "requested" estimates on a trace without requested times, sizes wider
than the site — are refused when the form is sent (the field named in words, nothing saved)
and by the REST API (400 naming the field), by the same ``check_facts`` the engine runs before
a run."""

import pytest
from django.core.files.base import ContentFile
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment, Sweep
from gridportal.inputs.services import trace_create
from scheduler.experiments import ParamError, run_experiment
from scheduler.io import load_trace

pytestmark = pytest.mark.django_db


def _swf(jobs: int = 24, width: int = 8) -> bytes:
    """Every job needs ``width`` processors of a 64-processor machine; no requested times."""
    lines = ["; MaxProcs: 64"]
    for i in range(jobs):
        lines.append(
            f"{i + 1} {i * 900} 0 {600 + 10 * i} {width} -1 -1 {width} -1 -1 1 1 1 1 1 1 -1 -1"
        )
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def trace(alice, media_root):
    return trace_create(owner=alice, name="eight-wide", upload=ContentFile(_swf(), name="w.swf"))


# kind, parameters, the field refused, the field's label in the form
CASES = [
    ("cluster-sim", {"procs": 4}, "procs", "machine processors"),
    ("pricing", {"procs": 4, "estimates": "accurate"}, "procs", "machine processors"),
    ("pricing", {"estimates": "requested"}, "estimates", "runtime estimates"),
    ("virtual-reservations", {"sizes": "100", "estimates": "accurate"}, "sizes", None),
    ("virtual-reservations", {"estimates": "requested"}, "estimates", None),
    ("greedy-provisioning", {"procs": "4"}, "procs", None),
    ("slot-advertisement", {"procs": "4"}, "procs", None),
    # a window past the trace's end (24 jobs over 0.25 days): it would quietly be the whole trace
    ("cluster-sim", {"procs": 8, "limit": 25}, "limit", "first jobs only"),
    ("pricing", {"procs": 8, "estimates": "accurate", "days": 1.0}, "days", "first days only"),
    # no estimate mode: refused at submit, not first in the worker
    ("cluster-sim", {"procs": 8, "accurate": False, "requested": False}, "accurate", None),
]


def _form_data(client, kind: str, trace, params: dict) -> dict:
    """What a person sends: the form as the page fills it in, the trace chosen and ``params``
    typed over it (unchecked boxes are not sent)."""
    resp = client.get(f"/experiments/new/?kind={kind}")
    form = resp.context["form"]
    data: dict = {"kind": kind, "seed": 0}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if name.startswith("p_") and value is not None:
            if value is True:
                data[name] = "on"
            elif value is not False:
                data[name] = value
    for spec_name in ("traces",):
        if spec_name in form.fields:
            data[spec_name] = [trace.pk]
    for key, value in params.items():
        if value is False:
            data.pop(f"p_{key}", None)
        else:
            data[f"p_{key}"] = value
    return data


@pytest.mark.parametrize("kind, params, field, label", CASES)
def test_the_form_refuses_it_naming_the_field_in_words(
    client, alice, trace, kind, params, field, label
):
    client.force_login(alice)
    resp = client.post("/experiments/new/", _form_data(client, kind, trace, params))
    assert resp.status_code == 400, resp.content[:300]
    form = resp.context["form"]
    shown = form.fields[f"p_{field}"].label
    if label:
        assert shown == label
    assert form.errors.get(f"p_{field}"), form.errors  # beside the field …
    top = [str(e) for e in form.non_field_errors()]
    assert any(e.startswith(f"{shown}: ") for e in top), top  # … and at the top, in words
    assert not any(e.startswith(f"{field}: ") for e in top) or shown == field
    assert shown in resp.content.decode()
    assert Experiment.objects.count() == 0 and Sweep.objects.count() == 0


@pytest.mark.parametrize("kind, params, field, label", CASES)
def test_the_api_refuses_it_with_400_naming_the_field(alice, trace, kind, params, field, label):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/experiments/", {"kind": kind, "traces": [trace.pk], "params": params}, format="json"
    )
    assert resp.status_code == 400, resp.content
    assert any(m.startswith(f"{field}: ") for m in resp.json()["params"]), resp.json()
    assert Experiment.objects.count() == 0


@pytest.mark.parametrize("kind, params, field, label", CASES)
def test_the_engine_refuses_the_same_before_running(trace, kind, params, field, label):
    with pytest.raises(ParamError) as err:
        run_experiment(kind, params, {"traces": [load_trace(trace.file.path)]})
    assert field in err.value.errors


def test_what_fits_the_trace_is_accepted(client, alice, trace):
    """The refusals are no stricter than the run: 8 processors fit, accurate estimates run."""
    client.force_login(alice)
    data = _form_data(client, "cluster-sim", trace, {"procs": 8})
    resp = client.post("/experiments/new/", data)
    assert resp.status_code == 302, resp.context["form"].errors if resp.context else resp
    # every job of the trace, and the first 0.2 of its 0.25 days, are windows inside it
    data = _form_data(client, "cluster-sim", trace, {"procs": 8, "limit": 24})
    resp = client.post("/experiments/new/", data)
    assert resp.status_code == 302, resp.context["form"].errors if resp.context else resp
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post("/api/experiments/", {"kind": "pricing", "traces": [trace.pk],
                                          "params": {"procs": 8, "estimates": "accurate",
                                                     "days": 0.2}},
                    format="json")  # fmt: skip
    assert resp.status_code == 201, resp.content


@pytest.mark.parametrize(
    ("policies", "says"),
    [
        ("", "choose at least one policy"),
        ("easy, sjf", "unknown policy 'sjf'"),
        ("backfill-k=0", "reservation depth K must be an integer"),
        ("easy, easy", "easy is named twice"),
        ("/etc/passwd:X", "give registry names"),  # a policy file is code: never from a form
    ],
)
def test_the_policy_list_is_read_by_the_registry_at_submit(client, alice, trace, policies, says):
    """The form and REST refuse what the run would refuse, with the registry's own words, and
    save nothing; the engine refuses the same."""
    client.force_login(alice)
    resp = client.post(
        "/experiments/new/", _form_data(client, "cluster-sim", trace, {"policies": policies})
    )
    assert resp.status_code == 400
    assert says in " ".join(resp.context["form"].errors.get("p_policies", [])), resp.context[
        "form"
    ].errors
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/experiments/",
        {"kind": "cluster-sim", "traces": [trace.pk], "params": {"policies": policies}},
        format="json",
    )
    assert resp.status_code == 400 and "policies" in str(resp.json()["params"])
    assert says in str(resp.json()["params"])
    assert Experiment.objects.count() == 0
    with pytest.raises(ParamError, match=says.replace("(", r"\(")):
        run_experiment(
            "cluster-sim", {"policies": policies}, {"traces": [load_trace(trace.file.path)]}
        )


def test_a_run_with_the_old_policy_ticks_is_still_accepted(alice, trace):
    """REST clients and clones of runs stored before the ``policies`` parameter send the old
    ticks: they are read as the list (ExperimentKind.upgrade), at submit as at run time."""
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/experiments/",
        {"kind": "cluster-sim", "traces": [trace.pk],
         "params": {"procs": 8, "fcfs": False, "easy": True, "conservative": True}},
        format="json",
    )  # fmt: skip
    assert resp.status_code == 201, resp.content
    assert Experiment.objects.get().params["policies"] == "easy, conservative"
