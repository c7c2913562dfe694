"""Sweeps, comparison, cloning and run filters (the runs themselves executed in-process here;
tests/integration runs sweeps on real worker processes)."""

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment, Sweep
from gridportal.experiments.services import experiment_execute
from gridportal.experiments.sweeps import sweep_aggregate, sweep_create, sweep_status

from .factories import finished_experiment, stored_trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def run_all(sweep):
    for exp in sweep.runs.filter(status="queued"):
        experiment_execute(experiment_id=exp.pk)


def test_sweep_grid_runs_and_aggregate(
    api, alice, media_root, django_capture_on_commit_callbacks, monkeypatch
):
    trace = stored_trace(alice, jobs=150)
    sent = []
    monkeypatch.setattr("gridportal.experiments.sweeps._enqueue_group", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        resp = api.post(
            "/api/sweeps/",
            {
                "kind": "trace-stats",
                "traces": [trace.pk],
                "seed": 10,
                "repetitions": 2,
                "vary": [
                    {"param": "procs", "values": [64, 128]},
                    {"param": "cdf_points", "range": {"start": 10, "stop": 30, "step": 10}},
                ],
            },
            format="json",
        )
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert body["state"]["status"] == "queued" and len(body["state"]["runs"]) == 12
    sweep = Sweep.objects.get()
    assert len(sent) == 1 and sorted(sent[0]) == sorted(sweep.runs.values_list("id", flat=True))
    assert sorted({r.experiment.seed for r in sweep.points.all()}) == [10, 11]
    assert sweep.vary[1]["values"] == [10, 20, 30]

    run_all(sweep)
    state = sweep_status(sweep)
    assert state["status"] == "succeeded" and state["progress"] == 1.0
    agg = api.get(f"/api/sweeps/{sweep.pk}/result/").json()
    table = agg["tables"][0]
    assert len(table["rows"]) == 6
    col = table["columns"].index("offered_load mean")
    by_point = {(r[0], r[1]): r for r in table["rows"]}
    # offered load halves when the machine doubles; two repetitions agree (std 0, n 2)
    assert by_point[(64, 10)][col] == pytest.approx(2 * by_point[(128, 10)][col], rel=1e-2)
    assert by_point[(64, 10)][col + 1] == 0 and by_point[(64, 10)][col + 2] == 2
    chart = next(c for c in agg["charts"] if c["id"] == "sweep-offered_load")
    assert chart["type"] == "line" and len(chart["series"]) == 3
    assert chart["series"][0]["errors"] == [0.0, 0.0]
    csv = api.get(f"/api/sweeps/{sweep.pk}/result/csv/?part=table:points").content.decode()
    assert csv.startswith("procs,cdf_points,runs,")


def test_identical_finished_runs_are_reused(alice, media_root):
    trace = stored_trace(alice)
    first = sweep_create(
        owner=alice,
        kind="trace-stats",
        params={},
        traces=[trace],
        vary=[{"param": "procs", "values": [64, 128]}],
    )
    run_all(first)
    second = sweep_create(
        owner=alice,
        kind="trace-stats",
        params={},
        traces=[trace],
        vary=[{"param": "procs", "values": [128, 256]}],
    )
    reused = {r.point["procs"]: r.reused for r in second.points.all()}
    assert reused == {128: True, 256: False}
    assert Experiment.objects.count() == 3
    assert sweep_status(second)["counts"]["succeeded"] == 1


def test_failed_point_does_not_lose_the_others(alice, media_root):
    from django.core.files.base import ContentFile

    trace = stored_trace(alice)
    sweep = sweep_create(
        owner=alice,
        kind="trace-stats",
        params={},
        traces=[trace],
        vary=[{"param": "procs", "values": [64, 128]}],
    )
    storage, name = trace.file.storage, trace.file.name
    content = storage.open(name).read()
    storage.delete(name)  # the input vanishes while the first point runs
    experiment_execute(experiment_id=sweep.points.get(index=0).experiment.pk)
    assert storage.save(name, ContentFile(content)) == name
    experiment_execute(experiment_id=sweep.points.get(index=1).experiment.pk)
    state = sweep_status(sweep)
    assert state["status"] == "partial" and state["counts"] == {
        "queued": 0,
        "running": 0,
        "succeeded": 1,
        "failed": 1,
        "cancelled": 0,
    }
    agg = sweep_aggregate(sweep)
    assert agg["summary"]["failed_runs"] == 1 and agg["summary"]["succeeded_runs"] == 1
    assert [row[1] for row in agg["tables"][0]["rows"]] == [0, 1]  # runs per point


@pytest.mark.parametrize(
    "vary,needle",
    [
        ([], "one or two"),
        ([{"param": "nope", "values": [1]}], "no parameter 'nope'"),
        ([{"param": "procs", "values": [1, -5]}], "vary[0].values[1]: procs must be >= 0"),
        ([{"param": "procs"}], "non-empty 'values'"),
        ([{"param": "procs", "range": {"start": 0, "stop": 10, "step": 0}}], "step > 0"),
        ([{"param": "procs", "values": [1]}, {"param": "procs", "values": [2]}], "varied twice"),
        ([{"param": "procs", "range": {"start": 0, "stop": 1e6, "step": 1}}], "max 200"),
    ],
)
def test_sweep_validation(api, alice, media_root, vary, needle):
    trace = stored_trace(alice)
    resp = api.post(
        "/api/sweeps/", {"kind": "trace-stats", "traces": [trace.pk], "vary": vary}, format="json"
    )
    assert resp.status_code == 400
    assert needle in str(resp.json()), resp.json()
    assert Sweep.objects.count() == 0 and Experiment.objects.count() == 0


def test_sweep_cancel_and_delete(api, alice, media_root):
    trace = stored_trace(alice)
    sweep = sweep_create(
        owner=alice,
        kind="trace-stats",
        params={},
        traces=[trace],
        vary=[{"param": "procs", "values": [64, 128, 256]}],
    )
    experiment_execute(experiment_id=sweep.points.first().experiment.pk)
    state = api.post(f"/api/sweeps/{sweep.pk}/cancel/").json()["state"]
    assert state["counts"] == {
        "queued": 0,
        "running": 0,
        "succeeded": 1,
        "failed": 0,
        "cancelled": 2,
    }
    assert state["status"] == "partial"
    assert api.delete(f"/api/sweeps/{sweep.pk}/").status_code == 204
    assert Experiment.objects.count() == 0


def test_sweep_ownership(alice, bob, media_root):
    sweep = sweep_create(
        owner=alice,
        kind="trace-stats",
        params={},
        traces=[stored_trace(alice)],
        vary=[{"param": "procs", "values": [8]}],
    )
    api = APIClient()
    api.force_authenticate(bob)
    for url in [
        f"/api/sweeps/{sweep.pk}/",
        f"/api/sweeps/{sweep.pk}/result/",
        f"/api/sweeps/{sweep.pk}/result/csv/",
    ]:
        assert api.get(url).status_code == 404
    assert api.post(f"/api/sweeps/{sweep.pk}/cancel/").status_code == 404
    assert api.get("/api/sweeps/").json()["count"] == 0


def test_sweep_from_the_form(client, alice, media_root):
    trace = stored_trace(alice)
    client.force_login(alice)
    resp = client.post(
        "/experiments/new/",
        {
            "kind": "trace-stats",
            "traces": trace.pk,
            "seed": 0,
            "p_procs": 0,
            "p_cdf_points": 200,
            "vary1_param": "procs",
            "vary1_values": "32, 64",
            "vary2_param": "cdf_points",
            "vary2_values": "10:30:10",
            "repetitions": 2,
        },
    )
    sweep = Sweep.objects.get()
    assert resp.status_code == 302 and resp["Location"] == f"/sweeps/{sweep.pk}/"
    assert sweep.runs.count() == 12
    page = client.get(f"/sweeps/{sweep.pk}/")
    # the varied parameter in words, the key in its tooltip
    assert page.status_code == 200 and b"processors</strong> \xe2\x88\x88 32, 64" in page.content


def test_sweep_form_errors_per_field(client, alice, media_root):
    trace = stored_trace(alice)
    client.force_login(alice)
    resp = client.post(
        "/experiments/new/",
        {
            "kind": "trace-stats",
            "traces": trace.pk,
            "seed": 0,
            "p_procs": 0,
            "p_cdf_points": 200,
            "vary1_param": "procs",
            "vary1_values": "",
            "vary2_values": "1,2",
        },
    )
    assert resp.status_code == 400
    errors = resp.context["form"].errors
    assert "give the values" in errors["vary1_values"][0]
    assert "choose the parameter" in errors["vary2_param"][0]
    resp = client.post(
        "/experiments/new/",
        {
            "kind": "trace-stats",
            "traces": trace.pk,
            "seed": 0,
            "p_procs": 0,
            "p_cdf_points": 200,
            "vary1_param": "procs",
            "vary1_values": "8, x",
        },
    )
    assert "procs must be an integer" in resp.context["form"].errors["vary1_values"][0]
    assert Sweep.objects.count() == 0


def test_compare_runs_page_and_differences(client, alice, media_root):
    trace = stored_trace(alice)
    a = finished_experiment(alice, trace, procs=64)
    b = finished_experiment(alice, trace, procs=128)
    client.force_login(alice)
    resp = client.get(f"/experiments/compare/?ids={a.pk}&ids={b.pk}")
    assert resp.status_code == 200
    result = resp.context["result"]
    diff = result["tables"][0]["rows"]
    assert diff == [["processors", 64, 128]]  # settings and metrics in words
    load = next(r for r in result["tables"][1]["rows"] if r[0] == "offered load")
    assert load[1] == pytest.approx(2 * load[2], rel=1e-2)
    sizes = next(c for c in result["charts"] if c["id"] == "job-sizes")
    # unnamed runs by their kind in words (not "trace-stats #34"); each series knows its run
    names = [f"#{a.pk} Trace statistics", f"#{b.pk} Trace statistics"]
    assert [s["name"] for s in sizes["series"]] == names
    assert [s["group"] for s in sizes["series"]] == names and sizes["y"]["shared"] is True
    assert b'id="compare-data"' in resp.content
    assert result["match"]["same_settings"] is False and b'id="compare-match"' not in resp.content


def test_compare_waits_for_a_rerun_then_says_it_matched(client, alice, media_root):
    """A bundle's import lands on the compare page of the original and its queued re-run: a
    page that waits (and refreshes by itself) instead of a 400 "runs without a result"; once the
    re-run has finished, the page says whether it reproduced the original."""
    from gridportal.experiments.services import experiment_execute

    trace = stored_trace(alice)
    a = finished_experiment(alice, trace, procs=64)
    b = finished_experiment(alice, trace, procs=64)
    Experiment.objects.filter(pk=b.pk).update(status="queued", result=None, progress=0.0)
    client.force_login(alice)
    url = f"/experiments/compare/?ids={a.pk}&ids={b.pk}"
    resp = client.get(url)
    assert resp.status_code == 200 and b'id="compare-waiting"' in resp.content
    assert f'data-ids="{b.pk}"'.encode() in resp.content and b"refreshes" in resp.content
    experiment_execute(experiment_id=b.pk)
    resp = client.get(url)
    assert resp.status_code == 200 and resp.context["result"]["match"]["identical"] is True
    assert b'id="compare-match"' in resp.content and b"reproduced the run" in resp.content
    # a run that failed is named with its status, in words
    Experiment.objects.filter(pk=b.pk).update(status="failed", result=None)
    resp = client.get(url)
    assert resp.status_code == 400
    assert f"run #{b.pk} (failed)".encode() in resp.content


def test_compare_refuses_bad_selections(client, alice, bob, media_root):
    a = finished_experiment(alice, stored_trace(alice))
    client.force_login(alice)
    resp = client.get(f"/experiments/compare/?ids={a.pk}")
    assert resp.status_code == 400 and b"between 2" in resp.content
    b = finished_experiment(bob, stored_trace(bob))
    assert client.get(f"/experiments/compare/?ids={a.pk}&ids={b.pk}").status_code == 404


def test_clone_api_and_page(api, client, alice, media_root):
    exp = finished_experiment(alice, stored_trace(alice), procs=77)
    resp = api.post(
        f"/api/experiments/{exp.pk}/clone/", {"params": {"cdf_points": 20}}, format="json"
    )
    assert resp.status_code == 201
    copy = Experiment.objects.get(pk=resp.json()["id"])
    assert copy.params == {"procs": 77, "cdf_points": 20} and copy.status == "queued"
    assert list(copy.traces.all()) == list(exp.traces.all())
    bad = api.post(f"/api/experiments/{exp.pk}/clone/", {"params": {"procs": -1}}, format="json")
    assert bad.status_code == 400 and "procs" in str(bad.json())
    client.force_login(alice)
    page = client.get(f"/experiments/new/?kind=trace-stats&clone={exp.pk}")
    assert page.context["form"].initial["p_procs"] == 77


def test_run_list_filters_and_search(client, api, alice, make_user, media_root):
    t1, t2 = stored_trace(alice, name="one"), stored_trace(alice, name="two")
    a = finished_experiment(alice, t1)
    a.name = "alpha run"
    a.save()
    finished_experiment(alice, t2)
    client.force_login(alice)

    def listed(query):
        return [e.pk for e in client.get(f"/experiments/?{query}").context["experiments"]]

    assert len(listed("")) == 2
    assert listed("q=alpha") == [a.pk]
    assert listed(f"trace={t1.pk}") == [a.pk]
    assert listed("status=failed") == []
    assert len(listed("kind=trace-stats")) == 2
    assert listed("after=2999-01-01") == []
    assert api.get(f"/api/experiments/?trace={t2.pk}").json()["count"] == 1
    assert api.get("/api/experiments/?search=alpha").json()["count"] == 1
    assert api.get("/api/experiments/?created_after=2999-01-01T00:00:00Z").json()["count"] == 0


def test_staff_see_all_runs_only_when_asked(client, alice, make_user, media_root):
    finished_experiment(alice, stored_trace(alice))
    staff = make_user("root", staff=True)
    client.force_login(staff)
    assert list(client.get("/experiments/").context["experiments"]) == []
    assert len(client.get("/experiments/?all=1").context["experiments"]) == 1


def test_sweep_list_state_without_runs_matches_the_detail(api, alice, media_root):
    trace = stored_trace(alice)
    sweep = sweep_create(
        owner=alice,
        kind="trace-stats",
        params={},
        traces=[trace],
        vary=[{"param": "procs", "values": [8, 16, 32]}],
    )
    experiment_execute(experiment_id=sweep.points.get(index=0).experiment.pk)
    Experiment.objects.filter(pk=sweep.points.get(index=1).experiment.pk).update(
        status="running", progress=0.5
    )
    listed = api.get("/api/sweeps/").json()["results"][0]["state"]
    detail = api.get(f"/api/sweeps/{sweep.pk}/").json()["state"]
    assert "runs" not in listed and len(detail["runs"]) == 3
    assert listed == {k: v for k, v in detail.items() if k not in ("runs", "uploads")}
    assert listed["status"] == "running" and listed["progress"] == pytest.approx(1.5 / 3)


def test_sweep_params_must_be_an_object(api, alice, media_root):
    trace = stored_trace(alice)
    resp = api.post(
        "/api/sweeps/",
        {
            "kind": "trace-stats",
            "traces": [trace.pk],
            "params": [1],
            "vary": [{"param": "procs", "values": [8]}],
        },
        format="json",
    )
    assert resp.status_code == 400 and "JSON object" in str(resp.json()["params"])
