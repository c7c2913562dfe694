"""REST API: auth, experiment creation and validation, state machine, exports, schema."""

import csv
import io

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_cancel, experiment_execute
from scheduler.experiments import run_experiment
from scheduler.io import load_trace

from .factories import finished_experiment, stored_trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


@pytest.mark.parametrize(
    "method,url",
    [
        ("get", "/api/traces/"),
        ("post", "/api/traces/"),
        ("get", "/api/experiments/"),
        ("post", "/api/experiments/"),
        ("get", "/api/kinds/"),
        ("get", "/api/experiments/1/"),
    ],
)
def test_unauthenticated_calls_are_refused(method, url):
    resp = getattr(APIClient(), method)(url)
    assert resp.status_code in (401, 403)
    assert resp.status_code == 401  # token auth first: the client is told how to authenticate
    assert "Token" in resp["WWW-Authenticate"]


def test_token_auth(alice, client):
    resp = client.post("/api/auth/token/", {"username": "alice", "password": "pw-Secret-123"})
    token = resp.json()["token"]
    assert token == Token.objects.get(user=alice).key
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/traces/").status_code == 200
    api.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert api.get("/api/traces/").status_code == 401


def test_pages_require_login(client):
    for url in ["/", "/traces/", "/experiments/", "/experiments/new/"]:
        resp = client.get(url)
        assert resp.status_code == 302 and resp["Location"].startswith("/login/"), url


def test_schema_and_docs(api):
    resp = api.get("/api/schema/")
    assert resp.status_code == 200
    text = resp.content.decode()
    for path in [
        "/api/traces/",
        "/api/experiments/{id}/cancel/",
        "/api/experiments/{id}/result/csv/",
        "/api/kinds/",
    ]:
        assert path in text, path
    docs = api.get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    assert b"cdn" not in docs.content.lower()


def test_kinds_endpoint_lists_schema(api):
    kinds = api.get("/api/kinds/").json()
    ts = next(k for k in kinds if k["name"] == "trace-stats")
    assert {p["name"] for p in ts["params"]} == {"procs", "cdf_points"}
    assert ts["inputs"][0]["kind"] == "trace"
    assert api.get("/api/kinds/trace-stats/").json()["name"] == "trace-stats"
    assert api.get("/api/kinds/nope/").status_code == 404


def test_create_experiment_queues_it_and_enqueues_after_commit(
    api, alice, media_root, django_capture_on_commit_callbacks, monkeypatch
):
    trace = stored_trace(alice)
    sent = []
    monkeypatch.setattr(
        "gridportal.experiments.services.experiment_enqueue",
        lambda *, experiment_id: sent.append(experiment_id),
    )
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        resp = api.post(
            "/api/experiments/",
            {"kind": "trace-stats", "traces": [trace.pk], "params": {"procs": 128}, "seed": 4},
            format="json",
        )
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert body["status"] == "queued" and body["result_url"] is None
    assert body["params"] == {"procs": 128, "cdf_points": 200}
    assert len(callbacks) == 1 and sent == [body["id"]]


@pytest.mark.parametrize(
    "payload,field,needle",
    [
        ({"kind": "nope"}, "kind", "unknown experiment kind"),
        (
            {"kind": "trace-stats", "params": {"procs": -1}},
            "params.procs",
            "greater than or equal to 0",
        ),
        ({"kind": "trace-stats", "params": {"cdf_points": "many"}}, "params.cdf_points", "integer"),
        ({"kind": "trace-stats", "params": {"typo": 1}}, "params.typo", "unknown parameter"),
        ({"kind": "trace-stats", "params": [1, 2]}, "params", "JSON object"),
        ({"kind": "trace-stats", "seed": -3}, "seed", ""),
        ({"kind": "trace-stats"}, "traces", "needs 1 traces; got 0"),
    ],
)
def test_create_experiment_validation_names_the_field(
    api, alice, media_root, payload, field, needle
):
    trace = stored_trace(alice)
    if payload.get("kind") == "trace-stats" and field != "traces":
        payload = {**payload, "traces": [trace.pk]}
    resp = api.post("/api/experiments/", payload, format="json")
    assert resp.status_code == 400
    errors = resp.json()
    for key in field.split("."):  # field by field, nested under "params" for parameters
        assert key in errors, errors
        errors = errors[key]
    assert needle in " ".join(map(str, errors))
    assert Experiment.objects.count() == 0


def test_execute_gives_the_engine_result(alice, media_root):
    trace = stored_trace(alice, jobs=250, procs=32, seed=9)
    exp = finished_experiment(alice, trace, procs=40)
    assert exp.status == "succeeded" and exp.progress == 1.0 and exp.finished_at
    expected = run_experiment(
        "trace-stats", {"procs": 40}, {"traces": [load_trace(trace.file.path)]}, seed=0
    )
    assert exp.result == expected
    assert exp.result["summary"]["jobs"] == 250
    assert exp.result["summary"]["machine_procs"] == 40


def test_result_json_and_csv_exports(api, alice, media_root):
    exp = finished_experiment(alice, stored_trace(alice))
    result = api.get(f"/api/experiments/{exp.pk}/result/").json()
    assert {c["id"] for c in result["charts"]} == {
        "job-sizes",
        "runtime-cdf",
        "arrivals-by-hour",
        "estimate-accuracy",
    }
    download = api.get(f"/api/experiments/{exp.pk}/result/?download=1")
    assert "attachment" in download["Content-Disposition"]

    resp = api.get(f"/api/experiments/{exp.pk}/result/csv/")
    assert resp["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(resp.content.decode())))
    assert rows[0] == ["metric", "value", "label"]
    assert ["jobs", "200", "job lines"] in rows

    resp = api.get(f"/api/experiments/{exp.pk}/result/csv/?part=chart:arrivals-by-hour")
    rows = list(csv.reader(io.StringIO(resp.content.decode())))
    assert rows[0] == ["series", "hour", "jobs submitted", "error"]
    assert len(rows) == 25 and sum(int(r[2]) for r in rows[1:]) == 200

    resp = api.get(f"/api/experiments/{exp.pk}/result/csv/?part=table:header")
    assert resp.status_code == 200 and b"MaxProcs" in resp.content
    assert api.get(f"/api/experiments/{exp.pk}/result/csv/?part=chart:nope").status_code == 404


def test_result_of_unfinished_run_is_400(api, alice, media_root):
    from gridportal.experiments.services import experiment_create

    exp = experiment_create(
        owner=alice, kind="trace-stats", params={}, traces=[stored_trace(alice)]
    )
    resp = api.get(f"/api/experiments/{exp.pk}/result/")
    assert resp.status_code == 400 and "queued" in resp.json()["detail"]


def test_cancel_queued_run_is_never_executed(api, alice, media_root):
    from gridportal.experiments.services import experiment_create

    exp = experiment_create(
        owner=alice, kind="trace-stats", params={}, traces=[stored_trace(alice)]
    )
    resp = api.post(f"/api/experiments/{exp.pk}/cancel/")
    assert resp.status_code == 200 and resp.json()["status"] == "cancelled"
    assert experiment_execute(experiment_id=exp.pk) == "cancelled"
    exp.refresh_from_db()
    assert exp.status == "cancelled" and exp.result is None
    assert api.post(f"/api/experiments/{exp.pk}/cancel/").status_code == 409


def test_cancel_during_run_stops_it(alice, media_root, monkeypatch):
    """The worker's progress report notices the cancellation and stops the engine."""
    from gridportal.experiments import services

    exp = services.experiment_create(
        owner=alice, kind="trace-stats", params={}, traces=[stored_trace(alice)]
    )
    monkeypatch.setattr(services, "PROGRESS_INTERVAL_S", 0.0)
    real = services._progress_reporter

    def reporter(exp_id):
        report = real(exp_id)

        def progress(fraction, message):
            if fraction >= 0.3:
                experiment_cancel(experiment=Experiment.objects.get(pk=exp_id))
            report(fraction, message)

        return progress

    monkeypatch.setattr(services, "_progress_reporter", reporter)
    assert services.experiment_execute(experiment_id=exp.pk) == "cancelled"
    exp.refresh_from_db()
    assert exp.status == "cancelled" and exp.result is None and 0.0 < exp.progress < 1.0


def test_failed_run_records_the_error(alice, media_root):
    from gridportal.experiments.services import experiment_create

    trace = stored_trace(alice)
    exp = experiment_create(owner=alice, kind="trace-stats", params={}, traces=[trace])
    trace.file.storage.delete(trace.file.name)  # the stored file vanished
    assert experiment_execute(experiment_id=exp.pk) == "failed"
    exp.refresh_from_db()
    assert exp.status == "failed" and "No such file" in exp.error


def test_delete_trace_in_use_is_refused(api, alice, media_root):
    exp = finished_experiment(alice, stored_trace(alice))
    trace = exp.traces.get()
    assert api.delete(f"/api/traces/{trace.pk}/").status_code == 400
    assert api.delete(f"/api/experiments/{exp.pk}/").status_code == 204
    assert api.delete(f"/api/traces/{trace.pk}/").status_code == 204


def test_url_names_resolve():
    assert reverse("experiment-result-csv", args=[1]) == "/api/experiments/1/result/csv/"
