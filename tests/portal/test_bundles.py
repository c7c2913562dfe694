# ruff: noqa: E501  (parametrised damage cases read best one per line)
"""Run bundles: a run as a Process Run Crate zip, imported elsewhere,
re-run and compared; hostile bundles refused with nothing saved."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.bundles import PROFILE, engine_id
from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_execute
from gridportal.inputs.models import Trace

from .factories import finished_experiment, stored_trace

pytestmark = pytest.mark.django_db


def _client(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def _zip(files: dict[str, bytes]) -> io.BytesIO:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in files.items():
            zf.writestr(name, body)
    buf.seek(0)
    buf.name = "bundle.zip"
    return buf


@pytest.fixture
def bundle(alice, media_root):
    trace = stored_trace(alice, jobs=80)
    exp = finished_experiment(alice, trace, procs=64)
    resp = _client(alice).get(f"/api/experiments/{exp.pk}/bundle/")
    assert resp.status_code == 200 and resp["Content-Type"] == "application/zip"
    return exp, resp.content


def test_bundle_is_a_process_run_crate_whose_files_match(bundle):
    exp, data = bundle
    zf = zipfile.ZipFile(io.BytesIO(data))
    meta = json.loads(zf.read("ro-crate-metadata.json"))
    graph = {e["@id"]: e for e in meta["@graph"]}
    assert graph["ro-crate-metadata.json"]["about"] == {"@id": "./"}
    root = graph["./"]
    assert root["conformsTo"] == {"@id": PROFILE}
    action = graph[root["mentions"]["@id"]]  # one value, not a list of one (RO-Crate 1.1)
    assert action["@type"] == "CreateAction" and action["instrument"] == {"@id": engine_id()}
    assert graph[engine_id()]["version"] and engine_id().startswith("https://")
    params = {graph[o["@id"]]["name"]: graph[o["@id"]]["value"] for o in action["object"]
              if graph[o["@id"]]["@type"] == "PropertyValue"}  # fmt: skip
    assert params["procs"] == "64" and params["seed"] == str(exp.seed)
    for part in root["hasPart"]:  # every listed file is in the zip with its checksum
        body = zf.read(part["@id"])
        assert hashlib.sha256(body).hexdigest() == graph[part["@id"]]["sha256"]
    assert json.loads(zf.read("result/result.json")) == exp.result
    assert any(n.endswith(".svg") for n in zf.namelist())
    assert zf.read("inputs/trace-1.swf") == exp.traces.get().file.open("rb").read()


def test_import_elsewhere_rerun_and_compare(bundle, bob, client):
    _, data = bundle
    up = io.BytesIO(data)
    up.name = "run.zip"
    resp = _client(bob).post("/api/experiments/import-bundle/", {"file": up}, format="multipart")
    assert resp.status_code == 201, resp.content
    body = resp.json()
    original = Experiment.objects.get(pk=body["original"]["id"])
    rerun = Experiment.objects.get(pk=body["rerun"]["id"])
    assert original.owner == rerun.owner == bob and rerun.status == "queued"
    assert Trace.objects.filter(owner=bob).count() == 1
    experiment_execute(experiment_id=rerun.pk)  # what bob's worker does
    rerun.refresh_from_db()
    assert rerun.status == "succeeded" and rerun.result == original.result
    client.force_login(bob)
    page = client.get(body["compare"])
    assert page.status_code == 200


def test_sweep_bundle(alice, media_root):
    from gridportal.experiments.sweeps import sweep_create

    trace = stored_trace(alice, jobs=60)
    sweep = sweep_create(owner=alice, kind="trace-stats", params={}, traces=[trace],
                         vary=[{"param": "procs", "values": [64, 128]}], executor="slurm")  # fmt: skip
    for exp in sweep.runs.all():
        experiment_execute(experiment_id=exp.pk)
    resp = _client(alice).get(f"/api/sweeps/{sweep.pk}/bundle/")
    zf = zipfile.ZipFile(io.BytesIO(resp.content))
    names = zf.namelist()
    assert "sweep.json" in names and "result/result.json" in names
    assert sum(n.endswith("/result.json") and n.startswith("runs/") for n in names) == 2


def _good_files(data: bytes) -> dict[str, bytes]:
    zf = zipfile.ZipFile(io.BytesIO(data))
    return {n: zf.read(n) for n in zf.namelist()}


def _files(root) -> int:
    return sum(p.is_file() for p in root.rglob("*")) if root.exists() else 0


def _rehashed(files: dict[str, bytes]) -> dict[str, bytes]:
    """The crate's sha256 made to match the (damaged) files again, so that a damaged member
    reaches the check behind the checksum's."""
    meta = json.loads(files["ro-crate-metadata.json"])
    for entity in meta["@graph"]:
        if "sha256" in entity and entity["@id"] in files:
            entity["sha256"] = hashlib.sha256(files[entity["@id"]]).hexdigest()
    return {**files, "ro-crate-metadata.json": json.dumps(meta).encode()}


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda f: {**f, "../evil.txt": b"x"}, "unsafe file name"),
        (lambda f: {k: v for k, v in f.items() if k != "run.json"}, "no run.json"),
        (lambda f: {**f, "run.json": b"{not json"}, "not valid JSON"),
        (lambda f: {k: v for k, v in f.items() if not k.startswith("inputs/")}, "not in the zip"),
        (lambda f: {**f, "inputs/trace-1.swf": b"1 2 3\n"}, "line 1"),
        (lambda f: {**f, "result/result.json": json.dumps({"kind": "pricing"}).encode()},
         "does not belong"),
        (lambda f: {**f, "result/result.json": f["result/result.json"].replace(b'"seed": ', b'"seed": 1')},
         "kind/seed"),
    ],
)  # fmt: skip
def test_hostile_bundles_are_refused_and_nothing_is_saved(bundle, bob, damage, message):
    _, data = bundle
    before = (Experiment.objects.count(), Trace.objects.count())
    resp = _client(bob).post(
        "/api/experiments/import-bundle/", {"file": _zip(_rehashed(damage(_good_files(data))))},
        format="multipart",
    )  # fmt: skip
    assert resp.status_code == 400 and message in str(resp.json()), resp.content
    assert (Experiment.objects.count(), Trace.objects.count()) == before


@pytest.mark.parametrize(
    "member", ["inputs/trace-1.swf", "result/result.json", "run.json", "result/summary.csv"]
)
def test_a_file_whose_sha256_differs_from_the_crate_is_refused_naming_it(
    bundle, bob, media_root, member
):
    _, data = bundle
    files = _good_files(data)
    files[member] = files[member] + b"\n"  # still valid, but not the file the crate describes
    before = (Experiment.objects.count(), Trace.objects.count(), _files(media_root))
    resp = _client(bob).post(
        "/api/experiments/import-bundle/", {"file": _zip(files)}, format="multipart"
    )
    assert resp.status_code == 400, resp.content
    assert resp.json()["file"] == [
        f"{member}: its sha256 is not the one ro-crate-metadata.json gives (the file was "
        "changed or damaged)"
    ]
    assert (Experiment.objects.count(), Trace.objects.count(), _files(media_root)) == before
    # the same bundle, checksums intact, imports
    resp = _client(bob).post(
        "/api/experiments/import-bundle/", {"file": _zip(_good_files(data))}, format="multipart"
    )
    assert resp.status_code == 201, resp.content


def _without_checksum(files: dict[str, bytes], member: str) -> dict[str, bytes]:
    meta = json.loads(files["ro-crate-metadata.json"])
    for entity in meta["@graph"]:
        if entity.get("@id") == member:
            del entity["sha256"]
    return {**files, "ro-crate-metadata.json": json.dumps(meta).encode()}


@pytest.mark.parametrize(
    "damage, message",
    [
        (
            lambda f: {k: v for k, v in f.items() if k != "ro-crate-metadata.json"},
            "the bundle has no ro-crate-metadata.json, the manifest whose sha256 checks each file: "
            "it cannot be verified (export the run again from its portal)",
        ),
        *(
            (
                lambda f, m=member: _without_checksum(f, m),
                f"{member}: ro-crate-metadata.json gives no sha256 for it, so it cannot be verified",
            )
            for member in ("run.json", "result/result.json", "inputs/trace-1.swf")
        ),
    ],
)
def test_a_bundle_that_cannot_be_verified_is_refused_naming_what_is_missing(
    bundle, bob, media_root, damage, message
):
    """Without the crate (or a checksum in it) a changed file would go unnoticed: the bundle
    is refused, even when its files are the good ones, and nothing is saved."""
    _, data = bundle
    before = (Experiment.objects.count(), Trace.objects.count(), _files(media_root))
    resp = _client(bob).post(
        "/api/experiments/import-bundle/", {"file": _zip(damage(_good_files(data)))},
        format="multipart",
    )  # fmt: skip
    assert resp.status_code == 400, resp.content
    assert resp.json()["file"] == [message]
    assert (Experiment.objects.count(), Trace.objects.count(), _files(media_root)) == before


def test_zip_bomb_is_refused_cheaply(bob, media_root):
    bomb = _zip({"run.json": b"0" * (300 * 1024 * 1024)})
    resp = _client(bob).post("/api/experiments/import-bundle/", {"file": bomb}, format="multipart")
    assert resp.status_code == 400 and "too much data" in str(resp.json())


def test_import_form_in_the_browser(bundle, bob, client):
    _, data = bundle
    client.force_login(bob)
    assert b'id="bundle-import"' in client.get("/experiments/").content
    up = io.BytesIO(data)
    up.name = "run.zip"
    resp = client.post("/experiments/import-bundle/", {"file": up})
    assert resp.status_code == 302 and resp["Location"].startswith("/experiments/compare/?ids=")
    bad = io.BytesIO(b"not a zip")
    bad.name = "x.zip"
    resp = client.post("/experiments/import-bundle/", {"file": bad}, follow=True)
    assert b"The bundle was refused: x.zip: not a readable zip file" in resp.content
    assert Experiment.objects.filter(owner=bob).count() == 2
