"""The access matrix, generated: anonymous / other user / owner / staff × every API operation of
the OpenAPI schema and every page of the URL conf × read and write → 0 leaks.

Alice owns a trace, a workflow, a Slurm site, a finished run and a sweep, each named with a
secret marker.
A leak is: another user or an anonymous client getting a 2xx for one of her objects, her
marker in any response they get, a change they made sticking (her objects must survive every
write), or a non-staff user changing the grid configuration. The grid configuration (sites,
VOs, groups, policies, a site's quote and predict) is readable by every logged-in user by
design and writable by staff only. CSRF is enforced on session POSTs, and uploaded files are
never served from MEDIA_URL (only by the owner's download view).
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment, Sweep
from gridportal.experiments.sweeps import sweep_create
from gridportal.inputs.models import SlurmSite, Trace, Workflow
from gridportal.inputs.services import workflow_generate
from gridportal.sites.models import Group, Site, UsagePolicy, VirtualOrganization
from tests.reliability.figures import record_figure

from .factories import finished_experiment, stored_slurm_site, stored_trace

pytestmark = pytest.mark.django_db

SECRET = "alice-secret"
OWNED = {"traces", "workflows", "slurm-sites", "experiments", "sweeps"}
CONFIG = {"sites", "vos", "groups", "policies"}
READ = {"get", "head", "options"}


@pytest.fixture
def world(alice, bob, make_user, media_root):
    staff = make_user("root", staff=True)
    trace = stored_trace(alice, name=f"{SECRET}-trace")
    wf = workflow_generate(
        owner=alice, model="layered", params={"tasks": 5, "levels": 2}, name=f"{SECRET}-wf"
    )
    slurm_site = stored_slurm_site(alice, name=f"{SECRET}-slurm-site")
    exp = finished_experiment(alice, trace)
    exp.name = f"{SECRET}-run"
    exp.save()
    other = finished_experiment(alice, trace, procs=32)  # compare needs two runs
    sweep = sweep_create(
        owner=alice,
        kind="trace-stats",
        params={},
        traces=[trace],
        vary=[{"param": "procs", "values": [32, 64]}],
        name=f"{SECRET}-sweep",
    )
    # staff's own background trace: a site's trace is configuration, readable by everyone
    site = Site.objects.create(name="siteA", processors=64, trace=stored_trace(staff))
    vo = VirtualOrganization.objects.create(name="VO1")
    group = Group.objects.create(vo=vo, name="g1")
    policy = UsagePolicy.objects.create(
        resource="cpu", provider_site=site, consumer_vo=vo, epoch_interval=86400,
        epoch_percent=50, burst_interval=3600, burst_percent=80,
    )  # fmt: skip
    ids = {
        "traces": trace.pk,
        "workflows": wf.pk,
        "slurm-sites": slurm_site.pk,
        "experiments": exp.pk,
        "sweeps": sweep.pk,
        "sites": site.pk,
        "vos": vo.pk,
        "groups": group.pk,
        "policies": policy.pk,
        "kinds": "trace-stats",
        "other_run": other.pk,
    }
    return {"alice": alice, "bob": bob, "staff": staff, "ids": ids, "trace": trace}


def alices_objects_intact(world) -> bool:
    ids = world["ids"]
    return (
        Trace.objects.filter(pk=ids["traces"], name=f"{SECRET}-trace").exists()
        and Workflow.objects.filter(pk=ids["workflows"]).exists()
        and SlurmSite.objects.filter(pk=ids["slurm-sites"]).exists()
        and Experiment.objects.filter(pk=ids["experiments"], status="succeeded").exists()
        and Sweep.objects.filter(pk=ids["sweeps"]).exists()
    )


def api_operations(schema: dict) -> list[tuple[str, str, str]]:
    """(method, path template, resource) of every operation in the OpenAPI schema."""
    out = []
    for path, ops in schema["paths"].items():
        resource = path.split("/")[2]
        for method in ops:
            if method in ("get", "post", "put", "patch", "delete"):
                out.append((method, path, resource))
    return out


def concrete(path: str, ids: dict, resource: str) -> str:
    return re.sub(r"\{[^}]+\}", str(ids.get(resource, 1)), path)


def client_for(actor: str, world) -> APIClient:
    client = APIClient()
    if actor != "anonymous":
        client.force_authenticate(world[actor])
    return client


def check_api_cell(actor, method, path, resource, world, leaks: list) -> None:
    client = client_for(actor, world)
    url = concrete(path, world["ids"], resource)
    if resource == "sites" and url.endswith(("/quote/", "/predict/")):
        url += "?n=4&duration=3600&req_time=3600"
    resp = getattr(client, method)(url, {}, format="json")
    code = resp.status_code
    body = resp.content.decode(errors="replace")
    cell = f"{actor} {method.upper()} {url} -> {code}"
    detail = "{" in path
    if code >= 500:
        leaks.append(f"server error: {cell}")
    if actor == "anonymous":
        if resource not in ("schema", "auth") and code not in (401, 403):
            leaks.append(f"anonymous got through: {cell}")
    elif actor == "bob":
        if SECRET in body:
            leaks.append(f"bob saw alice's marker: {cell}")
        if resource in OWNED and detail and code != 404:
            leaks.append(f"bob reached alice's object: {cell}")
        if resource in CONFIG and method not in READ and code != 403:
            leaks.append(f"non-staff changed the configuration: {cell}")
        if resource in CONFIG and method in READ and code not in (200, 400):
            leaks.append(f"a user cannot read the configuration: {cell}")
    elif actor in ("alice", "staff"):
        if resource in OWNED and detail and method in READ and code not in (200, 400):
            leaks.append(f"{actor} cannot read alice's object: {cell}")
        if actor == "alice" and resource in CONFIG and method not in READ and code != 403:
            leaks.append(f"non-staff changed the configuration: {cell}")


def test_api_matrix_from_the_openapi_schema(world):
    staff = APIClient()
    staff.force_authenticate(world["staff"])
    schema = staff.get("/api/schema/?format=json").json()
    operations = api_operations(schema)
    assert {r for _, _, r in operations} >= OWNED | CONFIG | {"kinds"}
    leaks: list[str] = []
    cells = 0
    # writes last, and the owner's and staff's deletes at the very end: they destroy objects
    order = ["anonymous", "bob", "alice", "staff"]
    for actor in order:
        for method, path, resource in sorted(operations, key=lambda o: (o[0] == "delete", o)):
            if actor in ("alice", "staff") and method in ("delete", "put", "patch", "post"):
                continue  # the owner's own writes are the other tests' business
            check_api_cell(actor, method, path, resource, world, leaks)
            cells += 1
            if actor in ("anonymous", "bob"):
                assert alices_objects_intact(world), f"{actor} {method} {path} changed them"
    # the owner and staff read everything of hers
    record_figure("ownership_api_cells", cells)
    assert leaks == [], "\n".join(leaks)


def page_patterns() -> list[tuple[str, str]]:
    """(route, name) of every page of the web URL conf (``<id:pk>`` routes included)."""
    from gridportal.web import urls

    out = []
    for p in urls.urlpatterns:
        assert isinstance(p, URLPattern) and not isinstance(p, URLResolver)
        out.append((str(p.pattern), p.name))
    return out


PAGE_RESOURCE = {"traces": "traces", "workflows": "workflows", "experiments": "experiments",
                 "sweeps": "sweeps", "sites": "sites", "slurm-sites": "slurm-sites"}  # fmt: skip


def test_page_matrix_from_the_url_conf(world):
    leaks: list[str] = []
    cells = 0
    extra = {  # pages whose query string picks an object
        "experiment-compare": "?ids={experiments}&ids={other_run}",
        "experiment-new": "?kind=trace-stats&clone={experiments}&trace={traces}",
    }
    for route, name in page_patterns():
        if name in ("logout",):
            continue
        resource = PAGE_RESOURCE.get(route.split("/")[0], "")
        url = "/" + route.replace("<id:pk>", str(world["ids"].get(resource, 0)))
        url += extra.get(name, "").format(**world["ids"])
        owned = resource in OWNED and ("<id:pk>" in route or name in extra)
        for actor in ("anonymous", "bob", "alice", "staff"):
            client = Client()
            if actor != "anonymous":
                client.force_login(world[actor])
            for method in ("get", "post"):
                if name.endswith(("-delete",)) and actor in ("alice", "staff"):
                    continue
                resp = getattr(client, method)(url)
                cells += 1
                code = resp.status_code
                raw = b"".join(resp.streaming_content) if resp.streaming else resp.content
                body = raw.decode(errors="replace") if code != 302 else ""
                cell = f"{actor} {method.upper()} {url} -> {code}"
                if code >= 500:
                    leaks.append(f"server error: {cell}")
                if actor == "anonymous" and name not in ("login", "signup"):  # public pages
                    if not (code == 302 and "/login/" in resp["Location"]):
                        leaks.append(f"anonymous got through: {cell}")
                if actor == "bob":
                    if SECRET in body:
                        leaks.append(f"bob saw alice's marker: {cell}")
                    if owned and code not in (404, 405):
                        leaks.append(f"bob reached alice's page: {cell}")
                if actor in ("alice", "staff") and owned and method == "get":
                    # the page's job-array link hands a sweep with runs to export to the API's
                    # download of the same sweep (which checks ownership itself)
                    handed = code == 302 and resp["Location"].startswith(
                        url.replace("/sweeps/", "/api/sweeps/", 1)
                    )
                    if code not in (200, 405) and not (name == "sweep-jobarray" and handed):
                        leaks.append(f"{actor} cannot open {cell}")
                if actor in ("anonymous", "bob"):
                    assert alices_objects_intact(world), cell
    record_figure("ownership_page_cells", cells)
    assert leaks == [], "\n".join(leaks)


def test_csrf_is_enforced_on_session_posts(world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world["alice"])
    exp, sweep = world["ids"]["experiments"], world["ids"]["sweeps"]
    for url in (
        f"/experiments/{exp}/delete/",
        f"/sweeps/{sweep}/cancel/",
        f"/sweeps/{sweep}/delete/",
        "/traces/",
        f"/api/experiments/{exp}/clone/",
        f"/api/sweeps/{sweep}/cancel/",
    ):
        assert client.post(url).status_code == 403, url
    assert client.delete(f"/api/experiments/{exp}/").status_code == 403
    assert alices_objects_intact(world)
    # with the token from the page, the same session POST goes through
    page = client.get(f"/experiments/{exp}/")
    token = page.cookies["csrftoken"].value if "csrftoken" in page.cookies else None
    token = token or client.cookies["csrftoken"].value
    resp = client.post(f"/experiments/{exp}/cancel/", HTTP_X_CSRFTOKEN=token)
    assert resp.status_code == 302


def test_uploaded_files_are_not_served_from_media_url(world, client):
    trace = world["trace"]
    url = trace.file.url
    for actor in (None, "bob", "alice", "staff"):
        c = Client()
        if actor:
            c.force_login(world[actor])
        assert c.get(url).status_code == 404, (actor, url)
    bob = Client()
    bob.force_login(world["bob"])
    assert bob.get(f"/traces/{trace.pk}/download/").status_code == 404
    alice = Client()
    alice.force_login(world["alice"])
    assert alice.get(f"/traces/{trace.pk}/download/").status_code == 200
