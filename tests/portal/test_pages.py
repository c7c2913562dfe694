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
    with pytest.raises(Exception, match="Must be at most 9"):
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
    assert "Must be at least 0" in errors["p_procs"][0]
    assert "Must be at least 10" in errors["p_cdf_points"][0]
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


def test_bound_errors_are_numbers_for_people():
    """Bounds in words: "greater than or equal to 0.0002777777777777778" became "at least 1 s"."""
    from gridportal.web.forms import QuoteForm

    form = QuoteForm({"n": 1, "hours": 0.00001, "at": 1})
    assert not form.is_valid()
    assert form.errors["hours"] == ["Must be at least 1 s."]
    big = field_for(Param("jobs", "int", 3, min=1, max=54_040))
    with pytest.raises(Exception, match="Must be at most 54,040"):
        big.clean("60000")


def test_every_parameter_field_has_help_and_plain_words():
    from scheduler.experiments import kinds

    for kind in kinds():
        for param in kind.params:
            f = field_for(param)
            assert f.help_text, f"{kind.name}.{param.name} has no help"
            assert f.label and "_" not in f.label.split("(")[0], f"{kind.name}.{param.name}"


def test_signup_page_creates_and_logs_in(client, settings):
    from django.contrib.auth import get_user_model

    settings.GRIDPORTAL_SIGNUP = "on"
    resp = client.get("/signup/")
    assert resp.status_code == 200
    resp = client.post(
        "/signup/",
        {"username": "newbie", "password1": "pw-Long-Secret-77", "password2": "pw-Long-Secret-77"},
    )
    assert resp.status_code == 302 and resp["Location"] == "/"
    assert get_user_model().objects.filter(username="newbie").exists()
    assert client.get("/").status_code == 200
    # a bad form names the field and saves nothing
    client.logout()
    resp = client.post("/signup/", {"username": "x2", "password1": "a", "password2": "b"})
    assert resp.status_code == 200 and "password" in resp.content.decode().lower()
    assert not get_user_model().objects.filter(username="x2").exists()


def test_signup_off_for_closed_deployments(client, settings):
    settings.GRIDPORTAL_SIGNUP = "off"
    assert client.get("/signup/").status_code == 404
    assert "/signup/" not in client.get("/login/").content.decode()


def test_login_page_shows_demo_accounts_in_development_only(client, settings, media_root):
    from django.core.management import call_command

    call_command("seed_demo", stdout=open("/dev/null", "w"))
    settings.DEBUG = True
    html = client.get("/login/").content.decode()
    assert "demo-grid" in html and "demo-staff" in html
    settings.DEBUG = False
    assert "demo-grid" not in client.get("/login/").content.decode()


def test_seed_demo_creates_a_staff_account_and_prints_the_address(media_root, capsys):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("seed_demo", "--url", "http://127.0.0.1:8000/")
    out = capsys.readouterr().out
    staff = get_user_model().objects.get(username="demo-staff")
    assert staff.is_staff and staff.is_superuser and staff.check_password("demo-staff-grid")
    assert "GridPortal: http://127.0.0.1:8000/" in out
    assert "'demo-staff' password 'demo-staff-grid'" in out and "api/auth/token/" in out


def test_api_root_lists_only_api_urls(client):
    data = client.get("/api/", HTTP_ACCEPT="application/json").json()
    assert len(data) >= 11
    assert all("/api/" in url for url in data.values()), data
    assert data["traces"].endswith("/api/traces/")


def test_experiment_list_hides_sweep_runs_and_sweep_list_has_status(client, alice, media_root):
    from gridportal.experiments.sweeps import sweep_create

    trace = stored_trace(alice)
    sweep = sweep_create(
        owner=alice, kind="trace-stats", params={}, traces=[trace],
        vary=[{"param": "procs", "values": [32, 64]}],
    )  # fmt: skip
    client.force_login(alice)
    assert "No experiments" in client.get("/experiments/").content.decode() or not any(
        f"/experiments/{r.pk}/" in client.get("/experiments/").content.decode()
        for r in sweep.runs.all()
    )
    shown = client.get("/experiments/?sweeps=1").content.decode()
    assert all(f"/experiments/{r.pk}/" in shown for r in sweep.runs.all())
    html = client.get("/sweeps/").content.decode()
    assert f'data-sweep="{sweep.pk}"' in html and 'class="status status-' in html


def test_site_forms_keep_each_other(client, alice, media_root):
    from gridportal.sites.models import Site
    from gridportal.sites.services import configuration_import
    from scheduler.usage.scenarios import seed004_document

    configuration_import(seed004_document(sites=2))
    Site.objects.update(trace=stored_trace(alice, jobs=300))
    site = Site.objects.first()
    client.force_login(alice)
    html = client.get(f"/sites/{site.pk}/?n=4&hours=1&at=2&p-n=4&p-hours=1&p-at=2").content.decode()
    assert 'id="quote-result"' in html and 'id="predict-result"' in html
    assert 'id="quote-vs-prediction"' in html
    # each form carries the other's values along
    assert '<input type="hidden" name="p-n" value="4">' in html
    assert '<input type="hidden" name="n" value="4">' in html


def test_topology_page_draws_the_chosen_plan(client, alice):
    import json

    from django.core.management import call_command

    from gridportal.sites.models import Topology

    call_command("load_topology", "seed001")
    topology = Topology.objects.get(name="seed001")
    client.force_login(alice)
    request = {
        "sites": [{"name": "A", "cpus": 4}, {"name": "B", "cpus": 4}],
        "paths": [{"between": ["A", "B"], "bandwidth": 1}],
        "frame": {"earliest_start": 0, "latest_start": 3600, "duration": 1800},
    }
    assert b" chosen" not in client.get(f"/sites/topologies/{topology.pk}/").content
    page = client.post(f"/sites/topologies/{topology.pk}/", {
        "request": json.dumps(request), "option": "earliest", "admin": "none",
        "priority": "normal", "frames": 10,
    })  # fmt: skip
    best = page.context["plans"][0]
    html = page.content.decode()
    assert 'id="chosen-legend"' in html
    assert html.count('class="link chosen"') >= 1  # the links of the plan's paths
    assert html.count("node-site chosen") == len(set(best["sites"].values()))


def test_run_errors_name_the_parameter_in_words():
    from gridportal.web.templatetags.portal import readable_error

    text = readable_error("start_day: 400 is past the trace's end (30 days)")
    assert text.startswith("window start (days into the trace) (start_day): 400")
