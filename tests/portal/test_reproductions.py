"""The Reproductions page and REST endpoint (issue 15): every preset with published values,
the user's latest run of it beside them, the engine's verdict, and running them."""

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_create, experiment_execute
from scheduler.experiments import reproduce as engine

from .factories import stored_trace

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def rows_by_key(resp) -> dict:
    return {f"{r['kind']}/{r['preset']}": r for r in resp.json()}


def test_every_reproduction_is_listed_not_run_with_what_it_needs(alice):
    resp = api(alice).get("/api/reproductions/")
    assert resp.status_code == 200
    rows = rows_by_key(resp)
    assert set(rows) == {r.key for r in engine.reproductions()}
    ctc = rows["trace-stats/ctc-thesis"]
    assert ctc["verdict"] == "not run" and ctc["experiment"] is None
    assert ctc["needs"] == ["needs trace CTC-SP2: run `manage.py fetch_trace CTC-SP2`"]
    assert {e["value"] for e in ctc["published"]} == {79285, 0.63}
    assert rows["usage-policy/seed004-2sites"]["needs"] == []  # no trace needed
    only = api(alice).get("/api/reproductions/?kind=malleability").json()
    assert {r["kind"] for r in only} == {"malleability"}


def test_missing_trace_is_a_400_naming_fetch_trace(alice):
    resp = api(alice).post(
        "/api/reproductions/run/", {"kind": "trace-stats", "preset": "ctc-thesis"}, format="json"
    )
    assert resp.status_code == 400
    assert "manage.py fetch_trace CTC-SP2" in str(resp.json()["traces"])
    assert not Experiment.objects.exists()
    bad = api(alice).post("/api/reproductions/run/", {"kind": "x", "preset": "y"}, format="json")
    assert bad.status_code == 400 and "preset" in bad.json()


def test_run_one_then_its_values_and_verdict_are_listed(alice, media_root):
    # a small generated trace stored under the archive's name stands in for CTC-SP2
    stored_trace(alice, jobs=300, procs=430, name="CTC-SP2")
    resp = api(alice).post(
        "/api/reproductions/run/", {"kind": "trace-stats", "preset": "ctc-thesis"}, format="json"
    )
    assert resp.status_code == 201
    exp = Experiment.objects.get(pk=resp.json()["experiment"])
    assert exp.kind == "trace-stats" and exp.params["procs"] == 430
    assert [t.name for t in exp.traces.all()] == ["CTC-SP2"]

    queued = rows_by_key(api(alice).get("/api/reproductions/"))["trace-stats/ctc-thesis"]
    assert queued["verdict"] == "not run" and queued["active_experiment"] == exp.pk

    experiment_execute(experiment_id=exp.pk)
    exp.refresh_from_db()
    row = rows_by_key(api(alice).get("/api/reproductions/"))["trace-stats/ctc-thesis"]
    assert row["experiment"] == exp.pk and row["active_experiment"] is None
    jobs = next(c for c in row["checks"] if c["metric"] == "valid_jobs")
    # 300 generated jobs against the thesis's 79285 (± 1 %): the number is far off
    assert jobs["ours"] == exp.result["summary"]["valid_jobs"] and jobs["verdict"] == "differs"
    assert row["verdict"] == engine.verdict(engine.reproductions("trace-stats", "ctc-thesis")[0]
                                            .preset, exp.result)[0]  # fmt: skip


def test_a_run_started_elsewhere_with_the_preset_counts_and_others_do_not(alice, bob):
    rep = engine.reproductions("malleability", "seed002-fig7-pra")[0]
    other = experiment_create(owner=alice, kind="malleability", params={"jobs": 20})
    experiment_execute(experiment_id=other.pk)
    mine = experiment_create(owner=alice, kind="malleability", params=rep.preset.params)
    experiment_execute(experiment_id=mine.pk)
    theirs = experiment_create(owner=bob, kind="malleability", params=rep.preset.params)
    experiment_execute(experiment_id=theirs.pk)
    row = rows_by_key(api(alice).get("/api/reproductions/"))["malleability/seed002-fig7-pra"]
    assert row["experiment"] == mine.pk  # not the other parameters, not bob's newer run
    assert row["verdict"] in ("matches", "same shape", "differs")
    assert [c["verdict"] for c in row["checks"]] == [
        c.verdict for c in engine.verdict(rep.preset, Experiment.objects.get(pk=mine.pk).result)[1]
    ]


def test_run_all_starts_what_it_can_and_lists_the_rest(alice):
    resp = api(alice).post("/api/reproductions/run-all/", {}, format="json")
    assert resp.status_code == 201
    body = resp.json()
    free = [r for r in engine.reproductions() if not r.preset.traces]
    assert len(body["experiments"]) == len(free)
    assert len(body["skipped"]) == len(engine.reproductions()) - len(free)
    assert any("fetch_trace CTC-SP2" in s for s in body["skipped"])
    names = set(Experiment.objects.values_list("name", flat=True))
    assert "Reproduction: usage-policy / seed004-2sites" in names


def test_page_lists_runs_and_needs(client, alice):
    client.force_login(alice)
    page = client.get("/reproductions/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Reproductions" in html and "needs trace CTC-SP2" in html
    assert 'id="repro-usage-policy-seed004-2sites"' in html
    assert "S-PEP achieves better enforcement" in html
    resp = client.post(
        "/reproductions/run/", {"kind": "malleability", "preset": "seed002-fig7-pra"}, follow=True
    )
    assert resp.status_code == 200 and "started Reproduction: malleability" in resp.content.decode()
    exp = Experiment.objects.get()
    assert exp.name == "Reproduction: malleability / seed002-fig7-pra"
    # an active run refreshes the page until it is done
    assert 'http-equiv="refresh"' in client.get("/reproductions/").content.decode()
    missing = client.post(
        "/reproductions/run/", {"kind": "pricing", "preset": "thesis-fig23-24-ctc"}, follow=True
    )
    assert "fetch_trace CTC-SP2" in missing.content.decode()


def test_result_page_of_a_reproduction_shows_the_published_values(client, alice):
    rep = engine.reproductions("malleability", "seed002-fig7-pra")[0]
    exp = experiment_create(owner=alice, kind="malleability", params=rep.preset.params)
    experiment_execute(experiment_id=exp.pk)
    plain = experiment_create(owner=alice, kind="malleability", params={"jobs": 20})
    experiment_execute(experiment_id=plain.pk)
    client.force_login(alice)
    html = client.get(f"/experiments/{exp.pk}/").content.decode()
    assert 'id="published-values"' in html and 'id="published-reference"' in html
    assert "with 2 processors GADGET2 takes nearly 10 minutes" in html
    assert "published (seed 002 " in html  # the chart's reference series (JSON-escaped §)
    assert 'id="published-values"' not in client.get(f"/experiments/{plain.pk}/").content.decode()


def test_anonymous_users_see_nothing(client):
    assert APIClient().get("/api/reproductions/").status_code in (401, 403)
    assert client.get("/reproductions/").status_code == 302
