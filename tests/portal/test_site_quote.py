"""Pricing a reservation on a configured site (thesis §5.2): the REST endpoint and the page."""

import re

import pytest
from rest_framework.test import APIClient

from gridportal.sites.models import Site

from .factories import stored_trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def site(make_user, media_root):
    staff = make_user("root", staff=True)
    trace = stored_trace(staff, jobs=400, procs=64, seed=3, name="site background")
    return Site.objects.create(name="alpha", processors=64, trace=trace)


def test_quote_lists_starts_with_prices(alice, site):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.get(f"/api/sites/{site.pk}/quote/", {"n": 32, "duration": 7200, "at": 12})
    assert resp.status_code == 200, resp.content
    body = resp.json()
    options = body["options"]
    assert options and body["summary"]["options"] == len(options)
    starts = [o["start_h"] for o in options]
    assert starts == sorted(starts) and starts[0] >= 0
    assert min(o["f"] for o in options) == 0  # query (18) always offers a free start
    # total = n·d·c + f with c = 1 SU per processor-hour: 32 p x 2 h = 64 SU + f
    assert all(o["total"] == pytest.approx(64 + o["f"], abs=1e-3) for o in options)
    assert body["choices"]["1"] == body["summary"]["earliest_free_start_h"]
    assert body["charts"][0]["id"] == "price-vs-start"
    # query (19): nothing before s_min
    later = api.get(f"/api/sites/{site.pk}/quote/", {"n": 32, "duration": 7200, "at": 12,
                                                    "s_min": 5}).json()  # fmt: skip
    assert later["options"][0]["start_h"] >= 5


def test_bad_requests_name_the_field(alice, site, make_user):
    api = APIClient()
    api.force_authenticate(alice)
    url = f"/api/sites/{site.pk}/quote/"
    resp = api.get(url, {"n": 65, "duration": 60})
    assert resp.status_code == 400 and "n" in resp.json()
    resp = api.get(url, {"n": 4, "duration": 0})
    assert resp.status_code == 400 and "duration" in resp.json()
    resp = api.get(url, {"n": 4, "duration": 60, "at": 1e6})
    assert resp.status_code == 400 and "at" in resp.json()
    resp = api.get(url, {"n": "x", "duration": 60})
    assert resp.status_code == 400 and "n" in resp.json()
    fair = Site.objects.create(name="fair", processors=64, trace=site.trace,
                               local_policy="fairshare")  # fmt: skip
    resp = api.get(f"/api/sites/{fair.pk}/quote/", {"n": 4, "duration": 60})
    assert resp.status_code == 400 and "fairshare" in resp.json()["site"][0]
    bare = Site.objects.create(name="bare", processors=8)
    resp = api.get(f"/api/sites/{bare.pk}/quote/", {"n": 4, "duration": 60})
    assert resp.status_code == 400 and "site" in resp.json()
    assert APIClient().get(url, {"n": 4, "duration": 60}).status_code in (401, 403)


def test_the_site_page_shows_the_price_list(client, alice, site):
    client.force_login(alice)
    assert b"alpha" in client.get("/sites/").content
    page = client.get(f"/sites/{site.pk}/")
    assert page.status_code == 200 and b"Price a reservation" in page.content
    page = client.get(f"/sites/{site.pk}/", {"n": 16, "hours": 1, "at": 12})
    assert page.status_code == 200
    quote = page.context["quote"]
    assert quote["options"]
    assert b'id="quote-data"' in page.content
    # the answer first: the earliest start and its price lead the key results
    first = quote["options"][0]
    assert quote["key"][:2] == ["earliest_start_h", "earliest_total_su"]
    assert quote["summary"]["earliest_total_su"] == first["total"]
    assert quote["summary_units"]["earliest_start_h"] == "h"
    # the α choices: a start for people and its price, not "start 0.4167 h from now"
    choices = page.content.decode().split('id="quote-choices"')[1].split("</section>")[0]
    assert "starts in " in choices and " SU" in choices and " h from now" not in choices
    assert not re.search(r"\d\.\d{4}\b", choices), choices
    page = client.get(f"/sites/{site.pk}/", {"n": 100, "hours": 1, "at": 12})
    assert page.context["quote"] is None and page.context["form"].errors["n"]


def test_start_prediction_over_rest(alice, site):
    api = APIClient()
    api.force_authenticate(alice)
    url = f"/api/sites/{site.pk}/predict/"
    resp = api.get(url, {"n": 8, "req_time": 3600, "at": 48})
    assert resp.status_code == 200, resp.content
    body = resp.json()
    quantiles = [q["quantile"] for q in body["quantiles"]]
    assert quantiles == [0.25, 0.5, 0.75, 0.95]
    bounds = [q["start_h"] for q in body["quantiles"] if q["defined"]]
    assert bounds == sorted(bounds) and all(b >= 0 for b in bounds)  # quantile bounds rise
    assert body["summary"]["history_total"] > 0
    probs = [p[1] for p in body["charts"][0]["series"][0]["points"]]
    assert probs == sorted(probs) and all(0 <= p <= 1 for p in probs)
    assert api.get(url, {"n": 65, "req_time": 60}).status_code == 400
    bad = api.get(url, {"n": 4, "req_time": 0})
    assert bad.status_code == 400 and "req_time" in bad.json()
    bad = api.get(url, {"n": 4, "req_time": 60, "at": 1e6})
    assert bad.status_code == 400 and "at" in bad.json()


def test_the_site_page_predicts_a_start(client, alice, site):
    client.force_login(alice)
    page = client.get(f"/sites/{site.pk}/", {"p-n": 8, "p-hours": 1, "p-at": 48})
    assert page.status_code == 200
    assert page.context["prediction"]["quantiles"] and page.context["quote"] is None
    assert b'id="predict-data"' in page.content
