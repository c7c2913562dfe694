"""Run and sweep bundles against the RO-Crate tools themselves: roc-validator 0.13 (profiles
ro-crate-1.1 and process-run-crate-0.5, REQUIRED and RECOMMENDED) finds nothing, ro-crate-py
reads them, and the bundle import reads both these bundles and the ones written before.

roc-validator fetches the RO-Crate 1.1 JSON-LD context to check the crate; there is no network
here, so the context (``data/ro-crate-1.1-context.jsonld.gz``, verbatim) is put in the
validator's own HTTP cache and the validator runs offline.  A crate as bundles were written
before is validated too, so that a validator that checks nothing would fail this file.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import urllib.parse
import zipfile
from pathlib import Path

import pytest
import requests
import urllib3
from requests_cache import CachedSession
from rest_framework.test import APIClient
from rocrate.rocrate import ROCrate
from rocrate_validator import services
from rocrate_validator.models import Severity

from gridportal.experiments.bundles import CONTEXT, CRATE_JSON
from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_execute
from tests.conftest import sample

from .factories import finished_experiment, stored_trace

pytestmark = pytest.mark.django_db

CONTEXT_FILE = Path(__file__).parent / "data" / "ro-crate-1.1-context.jsonld.gz"
PROFILES = ("ro-crate-1.1", "process-run-crate-0.5")


@pytest.fixture(scope="module")
def validator_cache(tmp_path_factory) -> str:
    """roc-validator's HTTP cache holding the RO-Crate 1.1 context, as a first online run
    would leave it."""
    path = str(tmp_path_factory.mktemp("roc-cache") / "http")
    body = gzip.decompress(CONTEXT_FILE.read_bytes())
    response = requests.Response()
    response.status_code, response._content, response.url = 200, body, CONTEXT
    response.headers["Content-Type"] = "application/ld+json"
    response.request = requests.Request("GET", CONTEXT).prepare()
    response.raw = urllib3.HTTPResponse(
        body=io.BytesIO(b""), headers=dict(response.headers), status=200,
        preload_content=False, request_url=CONTEXT,
    )  # fmt: skip
    session = CachedSession(path, backend="sqlite", allowable_methods=("GET",), expire_after=-1)
    session.cache.save_response(response)
    session.close()
    return path


def validate(path: Path, profile: str, cache: str) -> list[tuple[str, str, str]]:
    """The (severity, check, message) of every REQUIRED or RECOMMENDED issue."""
    settings = services.ValidationSettings(
        rocrate_uri=str(path),
        profile_identifier=profile,
        requirement_severity=Severity.RECOMMENDED,
        offline=True,
        cache_path=cache,
    )
    result = services.validate(settings)
    return [
        (issue.severity.name, issue.check.identifier, issue.message or "")
        for issue in result.get_issues(Severity.RECOMMENDED)
    ]


def _client(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


@pytest.fixture
def bundles(alice, media_root, tmp_path):
    """A run bundle and a sweep bundle (two runs), as a user downloads them."""
    from gridportal.experiments.sweeps import sweep_create

    alice.email = "alice@example.edu"
    alice.save()
    trace = stored_trace(alice, jobs=60)
    exp = finished_experiment(alice, trace, procs=64)
    vary = [{"param": "procs", "values": [64, 128]}]
    sweep = sweep_create(
        owner=alice, kind="trace-stats", params={}, traces=[trace], vary=vary, executor="slurm"
    )
    for run in sweep.runs.all():
        experiment_execute(experiment_id=run.pk)
    api = _client(alice)
    out = {"run": tmp_path / "run.zip", "sweep": tmp_path / "sweep.zip"}
    out["run"].write_bytes(api.get(f"/api/experiments/{exp.pk}/bundle/").content)
    out["sweep"].write_bytes(api.get(f"/api/sweeps/{sweep.pk}/bundle/").content)
    return exp, sweep, out


def _crate(path: Path) -> dict:
    return json.loads(zipfile.ZipFile(path).read(CRATE_JSON))


def test_bundles_pass_roc_validator_and_ro_crate_py_reads_them(bundles, validator_cache):
    """REQUIRED and RECOMMENDED issues of both profiles: none.  (Each validation takes a few
    seconds; process-run-crate-0.5 includes ro-crate-1.1's checks, so ordinary runs check the
    run bundle against ro-crate-1.1 and the sweep bundle against process-run-crate-0.5, and
    GRIDPORTAL_FULL_TESTS=1 every pair.)"""
    exp, sweep, paths = bundles
    for which, profile in sample([(w, p) for w in ("run", "sweep") for p in PROFILES], 2):
        assert validate(paths[which], profile, validator_cache) == [], (which, profile)

    crate = ROCrate(str(paths["run"]))
    root = crate.root_dataset
    assert root["license"].type == "CreativeWork" and root["license"]["name"]
    assert root["author"].type == root["publisher"].type == "Organization"
    action = crate.get(f"#run-{exp.pk}")
    assert action.type == "CreateAction" and action["description"]
    assert action["agent"].type == "Person" and action["agent"]["name"] == "alice"
    engine = action["instrument"]
    assert engine.type == "SoftwareApplication" and engine.id.startswith(("http://", "https://"))
    assert urllib.parse.urlsplit(engine["url"]).scheme in ("http", "https")
    # the run's own instants, in the form Process Run Crate 0.5 gives
    assert action["startTime"] == exp.started_at.isoformat(timespec="milliseconds")
    assert action["endTime"] == exp.finished_at.isoformat(timespec="milliseconds")
    zf = zipfile.ZipFile(paths["run"])
    files = [e for e in crate.data_entities if e.type == "File"]
    assert files and all(e["sha256"] == hashlib.sha256(zf.read(e.id)).hexdigest() for e in files)
    assert "alice@example.edu" not in zf.read(CRATE_JSON).decode()  # no e-mail leaves
    sweep_crate = ROCrate(str(paths["sweep"]))
    actions = [e for e in sweep_crate.contextual_entities if e.type == "CreateAction"]
    assert sorted(a.id for a in actions) == sorted(f"#run-{r.pk}" for r in sweep.runs.all())


def test_old_bundles_fail_the_validator_and_both_import(bundles, validator_cache, bob, tmp_path):
    """The crate as bundles carried it before (checksums under a key the 1.1 context does not
    define, no licence, no agent, a relative engine id): the validator reports exactly that
    (it checks for real), and the import still reads it, as it reads the new ones."""
    _, _, paths = bundles
    old = tmp_path / "old.zip"
    _rewrite(paths["run"], old, _as_written_before)
    assert isinstance(_crate(old)["@context"], str)  # really the old form
    issues = validate(old, "process-run-crate-0.5", validator_cache)
    required = {check for severity, check, _ in issues if severity == "REQUIRED"}
    assert required == {"ro-crate-1.1_3.1", "ro-crate-1.1_8.3"}  # sha256 key; root licence
    assert any('JSON-LD key "sha256"' in message for _, _, message in issues)
    recommended = {check for severity, check, _ in issues if severity == "RECOMMENDED"}
    assert {"process-run-crate-0.5_3.2", "process-run-crate-0.5_8.3",
            "process-run-crate-0.5_8.6", "ro-crate-1.1_22.2"} <= recommended  # fmt: skip
    for path in (paths["run"], old):
        up = io.BytesIO(path.read_bytes())
        up.name = path.name
        resp = _client(bob).post("/api/experiments/import-bundle/", {"file": up},
                                 format="multipart")  # fmt: skip
        assert resp.status_code == 201, resp.content
    assert Experiment.objects.filter(owner=bob, status="succeeded").count() == 2
    # and a damaged member of a new bundle is still caught by its sha256
    bad = tmp_path / "bad.zip"
    _rewrite(paths["run"], bad, lambda meta: meta, damage="run.json")
    up = io.BytesIO(bad.read_bytes())
    up.name = "bad.zip"
    resp = _client(bob).post("/api/experiments/import-bundle/", {"file": up}, format="multipart")
    assert resp.status_code == 400 and "sha256" in str(resp.json())


def _as_written_before(meta: dict) -> dict:
    """The crate as bundles wrote it before: the 1.1 context alone, a relative engine id, no
    licence, author, publisher, agent, description or url, lists even of one value."""
    dropped = {"license", "author", "publisher", "agent", "description", "url"}
    graph = []
    for entity in meta["@graph"]:
        if entity["@type"] in ("Organization", "Person") or entity["@id"].startswith(
            "https://creativecommons"
        ):
            continue  # fmt: skip
        entity = {k: v for k, v in entity.items() if k not in dropped or entity["@id"] == "./"
                  and k == "description"}  # fmt: skip
        if entity["@type"] == "SoftwareApplication":
            entity["@id"] = "#gridportal-sim"
        if entity["@type"] == "CreateAction":
            entity["instrument"] = {"@id": "#gridportal-sim"}
        if entity["@id"] == "./":
            entity["mentions"] = [entity["mentions"]]
        graph.append(entity)
    return {"@context": CONTEXT, "@graph": graph}


def _rewrite(src: Path, dest: Path, change, damage: str | None = None) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in zin.namelist():
            body = zin.read(name)
            if name == CRATE_JSON:
                body = json.dumps(change(json.loads(body)), indent=1).encode()
            elif name == damage:
                body = body.replace(b"{", b"{ ", 1)
            zout.writestr(name, body)
