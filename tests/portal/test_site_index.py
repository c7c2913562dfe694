"""Site pages keep the site's replay between requests: the first quote builds the
index and writes it under VAR_DIR; later requests — in any process — read it, not the trace."""

from pathlib import Path

import pytest
from rest_framework.test import APIClient

from gridportal.sites import services
from gridportal.sites.models import Site

from .factories import stored_trace

pytestmark = pytest.mark.django_db


def test_index_is_built_once_and_answers_without_the_trace(alice, make_user, media_root,
                                                           settings, tmp_path):  # fmt: skip
    settings.VAR_DIR = tmp_path / "var"
    services._INDEXES.clear()
    staff = make_user("root", staff=True)
    trace = stored_trace(staff, jobs=400, procs=64, seed=3, name="bg")
    site = Site.objects.create(name="alpha", processors=64, trace=trace)
    trace = site.trace  # the site's own copy of the upload (what it replays)
    api = APIClient()
    api.force_authenticate(alice)
    first = api.get(f"/api/sites/{site.pk}/quote/", {"n": 16, "duration": 3600, "at": 20})
    assert first.status_code == 200, first.content
    files = sorted((tmp_path / "var" / "site-index").glob("*.npz"))
    index_files = [f for f in files if f.name.count(".npz") == 1]
    assert len(index_files) == 1 and trace.sha256 in index_files[0].name
    # the request that built the index built the prediction's checkpoints too
    sidecars = [f for f in files if f not in index_files]
    assert len(sidecars) == 1 and sidecars[0].name.startswith(index_files[0].name + ".")
    # a fresh process: nothing in memory, and the trace's file gone — the index answers alone
    services._INDEXES.clear()
    Path(trace.file.path).unlink()
    again = api.get(f"/api/sites/{site.pk}/quote/", {"n": 16, "duration": 3600, "at": 20})
    assert again.status_code == 200 and again.json() == first.json()
    predicted = api.get(f"/api/sites/{site.pk}/predict/", {"n": 8, "req_time": 3600, "at": 20})
    assert predicted.status_code == 200, predicted.content
    # the site's configuration is part of the key: a resized site gets its own replay
    site.processors = 48
    site.save()
    services._INDEXES.clear()
    with pytest.raises(OSError):  # the trace is needed again (and gone)
        services._site_index(site, "auto")


def test_fair_share_sites_predict_and_depth_k_sites_also_quote(alice, make_user, media_root,
                                                                settings, tmp_path):  # fmt: skip
    """Predictions need only the replay's starts (any policy); quotes re-plan the queue, which
    the pricing planner does for depth K but not for fair share (refused naming the policy)."""
    settings.VAR_DIR = tmp_path / "var"
    staff = make_user("root", staff=True)
    trace = stored_trace(staff, jobs=300, procs=32, seed=5, name="bg")
    api = APIClient()
    api.force_authenticate(alice)
    for policy, quotes in (("fairshare", False), ("backfill-k=4", True)):
        site = Site.objects.create(name=f"s-{policy[:9]}", processors=32, trace=trace,
                                   local_policy=policy)  # fmt: skip
        resp = api.get(f"/api/sites/{site.pk}/predict/", {"n": 4, "req_time": 600, "at": 10})
        assert resp.status_code == 200, resp.content
        resp = api.get(f"/api/sites/{site.pk}/quote/", {"n": 4, "duration": 600, "at": 10})
        if quotes:
            assert resp.status_code == 200 and resp.json()["options"], resp.content
        else:
            assert resp.status_code == 400 and policy in resp.json()["site"][0]
