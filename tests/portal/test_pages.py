"""Pages: the experiment form is generated from the kind's schema and reports errors per field."""

import pytest

from gridportal.experiments.models import Experiment
from gridportal.web.forms import experiment_form_class, field_for
from scheduler.experiments import Param, get_kind

from .factories import finished_experiment, stored_trace

pytestmark = pytest.mark.django_db


def test_field_for_each_param_type():
    f = field_for(Param("n", "int", 3, min=1, max=9, help="how many"))
    assert f.initial == 3 and f.help_text == "how many"
    assert f.clean("5") == 5
    with pytest.raises(Exception, match="less than or equal to 9"):
        f.clean("10")
    assert field_for(Param("x", "float", 0.5, min=0, max=1)).clean("0.25") == 0.25
    assert field_for(Param("b", "bool", False)).clean("") is False
    choice = field_for(Param("p", "choice", "easy", choices=("fcfs", "easy")))
    with pytest.raises(Exception, match="valid choice"):
        choice.clean("nope")


def test_form_class_has_inputs_and_params(alice):
    from gridportal.inputs.models import Trace

    form = experiment_form_class(get_kind("trace-stats"), {"trace": Trace.objects.none()})()
    assert {"name", "seed", "traces", "p_procs", "p_cdf_points"} <= set(form.fields)


def test_new_experiment_page_shows_presets_and_starts_a_run(client, alice, media_root):
    trace = stored_trace(alice)
    client.force_login(alice)
    page = client.get(f"/experiments/new/?kind=trace-stats&trace={trace.pk}")
    assert page.status_code == 200
    assert b"CTC-SP2 as simulated in the thesis" in page.content
    resp = client.post(
        "/experiments/new/",
        {
            "kind": "trace-stats",
            "traces": trace.pk,
            "seed": 2,
            "name": "mine",
            "p_procs": 100,
            "p_cdf_points": 50,
        },
    )
    exp = Experiment.objects.get()
    assert resp.status_code == 302 and resp["Location"] == f"/experiments/{exp.pk}/"
    assert exp.params == {"procs": 100, "cdf_points": 50} and exp.seed == 2
    assert exp.status == "queued"


def test_new_experiment_errors_are_shown_per_field(client, alice, media_root):
    trace = stored_trace(alice)
    client.force_login(alice)
    resp = client.post(
        "/experiments/new/",
        {"kind": "trace-stats", "traces": trace.pk, "seed": 0, "p_procs": -4, "p_cdf_points": 3},
    )
    assert resp.status_code == 400
    errors = resp.context["form"].errors
    assert "greater than or equal to 0" in errors["p_procs"][0]
    assert "greater than or equal to 10" in errors["p_cdf_points"][0]
    assert Experiment.objects.count() == 0


def test_unknown_kind_is_404(client, alice):
    client.force_login(alice)
    assert client.get("/experiments/new/?kind=nope").status_code == 404


def test_experiment_page_wires_the_renderer(client, alice, media_root):
    exp = finished_experiment(alice, stored_trace(alice))
    client.force_login(alice)
    page = client.get(f"/experiments/{exp.pk}/").content.decode()
    assert "vendor/chart.umd.min.js" in page and "js/charts.js" in page
    assert f"/api/experiments/{exp.pk}/result/csv/" in page
    assert "cdn" not in page.lower()


def test_home_and_lists_render(client, alice, media_root):
    finished_experiment(alice, stored_trace(alice, name="my trace"))
    client.force_login(alice)
    for url in ["/", "/traces/", "/experiments/"]:
        resp = client.get(url)
        assert resp.status_code == 200 and b"my trace" in client.get("/traces/").content


def test_admin_registers_every_model(admin_client):
    from django.apps import apps
    from django.contrib import admin

    ours = [m for m in apps.get_models() if m.__module__.startswith("gridportal.")]
    assert ours
    for model in ours:
        assert admin.site.is_registered(model), model
        url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        assert admin_client.get(url).status_code == 200, url
