"""Every object is owned: another user gets 404 in pages and API; staff see all."""

import pytest
from rest_framework.test import APIClient

from .factories import finished_experiment, stored_trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def alices(alice, media_root):
    trace = stored_trace(alice)
    exp = finished_experiment(alice, trace)
    return trace, exp


def page_urls(trace, exp):
    return [f"/traces/{trace.pk}/", f"/traces/{trace.pk}/download/", f"/experiments/{exp.pk}/"]


def api_urls(trace, exp):
    return [
        f"/api/traces/{trace.pk}/",
        f"/api/experiments/{exp.pk}/",
        f"/api/experiments/{exp.pk}/result/",
        f"/api/experiments/{exp.pk}/result/csv/",
    ]


def test_owner_sees_own_objects(client, alice, alices):
    trace, exp = alices
    client.force_login(alice)
    for url in page_urls(trace, exp) + api_urls(trace, exp):
        assert client.get(url).status_code == 200, url


def test_other_user_gets_404_in_pages(client, bob, alices):
    trace, exp = alices
    client.force_login(bob)
    for url in page_urls(trace, exp):
        assert client.get(url).status_code == 404, url
    assert client.post(f"/experiments/{exp.pk}/cancel/").status_code == 404
    assert trace.name.encode() not in client.get("/traces/").content
    assert f"/experiments/{exp.pk}/".encode() not in client.get("/experiments/").content


def test_other_user_gets_404_in_api(bob, alices):
    trace, exp = alices
    api = APIClient()
    api.force_authenticate(bob)
    for url in api_urls(trace, exp):
        assert api.get(url).status_code == 404, url
    assert api.post(f"/api/experiments/{exp.pk}/cancel/").status_code == 404
    assert api.post(f"/api/experiments/{exp.pk}/clone/").status_code == 404
    assert api.delete(f"/api/experiments/{exp.pk}/").status_code == 404
    assert api.delete(f"/api/traces/{trace.pk}/").status_code == 404
    assert api.get("/api/traces/").json()["count"] == 0
    assert api.get("/api/experiments/").json()["count"] == 0


def test_other_user_cannot_use_someone_elses_trace(bob, alices):
    trace, _ = alices
    api = APIClient()
    api.force_authenticate(bob)
    resp = api.post(
        "/api/experiments/", {"kind": "trace-stats", "traces": [trace.pk]}, format="json"
    )
    assert resp.status_code == 400
    assert "traces" in resp.json()


def test_staff_see_everything(make_user, alices):
    trace, exp = alices
    staff = make_user("root", staff=True)
    api = APIClient()
    api.force_authenticate(staff)
    assert api.get("/api/traces/").json()["count"] == 1
    assert api.get("/api/experiments/").json()["count"] == 1
    for url in api_urls(trace, exp):
        assert api.get(url).status_code == 200, url


def test_absurd_ids_are_404_or_400_not_500(client, alice):
    api = APIClient()
    api.force_authenticate(alice)
    huge = "9" * 30
    assert api.get(f"/api/traces/{huge}/").status_code == 404
    assert api.get(f"/api/experiments/{huge}/result/").status_code == 404
    assert api.get(f"/api/experiments/?trace={huge}").status_code == 400
    assert api.get(f"/api/sweeps/?trace={huge}").status_code == 400
    assert api.get(f"/api/traces/?machine_procs={huge}").status_code == 400
    client.force_login(alice)
    assert client.get(f"/traces/{huge}/").status_code == 404
    assert client.get(f"/experiments/{huge}/").status_code == 404
    assert client.get(f"/experiments/?trace={huge}").status_code == 200
    assert client.get(f"/experiments/new/?clone={huge}").status_code == 200
    assert client.get(f"/experiments/compare/?ids={huge}&ids=1").status_code == 404


def test_dates_the_database_cannot_store_are_400(alice):
    api = APIClient()
    api.force_authenticate(alice)
    odd = "0690-03-05T21:55:12.0-16:48"  # a valid ISO offset beyond PostgreSQL's ±15:59
    assert api.get(f"/api/experiments/?created_before={odd}").status_code == 200
    assert api.get("/api/experiments/?created_after=0001-01-01T00:00:00%2B10:00").status_code == 400
    assert api.get("/api/experiments/?created_after=2020-01-01T00:00:00Z").status_code == 200
