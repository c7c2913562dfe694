"""A user's policy everywhere a policy is taken: the site policy of pricing (and virtual
reservations) on the form and over REST, run whole in the sandbox by the worker's code; its
label and hash in the result (page table, CSV, REST) and in a sweep's aggregate; bundles that
carry its source and import with it; a version deleted only when no run names it."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.bundles import experiment_bundle_zip, sweep_bundle_zip
from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_create, experiment_execute
from gridportal.experiments.sweeps import sweep_aggregate, sweep_create
from gridportal.inputs.models import PolicyFile
from gridportal.inputs.policyfiles import policy_file_create
from gridportal.sandbox import available
from scheduler.cluster import registry
from scheduler.experiments import run_experiment
from scheduler.io import load_trace
from tests.conftest import require
from tests.portal.factories import stored_trace
from tests.portal.test_bundles import _good_files, _rehashed, _zip
from tests.scheduler.test_user_policy_site_kinds import FIRST_COME, STRICT

PRICING = {"procs": 64, "alphas": "0.5", "baseline": False}


@pytest.fixture(autouse=True)
def _sandbox_here():
    require(available() == "", f"the sandbox cannot run here: {available()}")


def upload(owner, source: str = FIRST_COME) -> PolicyFile:
    return policy_file_create(
        owner=owner, name="first come", filename="first_come.py", data=source.encode(),
        class_name="FirstCome",
    )  # fmt: skip


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def priced(alice, media_root):
    """A pricing run with alice's policy as its site policy, run by the worker's code."""
    row = upload(alice)
    trace = stored_trace(alice, jobs=200)
    exp = experiment_create(
        owner=alice, kind="pricing", params={**PRICING, "policy": row.ref}, traces=[trace]
    )
    assert experiment_execute(experiment_id=exp.pk) == "succeeded", exp.error
    exp.refresh_from_db()
    return row, trace, exp


@pytest.mark.django_db
def test_a_pricing_run_names_the_policy_and_matches_the_engine(priced, tmp_path, monkeypatch):
    row, trace, exp = priced
    label = f"FirstCome ({row.ref})"
    assert exp.result["user_policies"] == [
        {"policy": row.ref, "label": label, "name": "first come", "class": "FirstCome",
         "sha256": row.sha256}
    ]  # fmt: skip
    table = next(t for t in exp.result["tables"] if t["id"] == "user-policies")
    assert table["rows"] == [[label, row.ref, "FirstCome", row.sha256]]
    # the engine in this process, given the same file, computes the same numbers
    path = tmp_path / "first_come.py"
    path.write_text(FIRST_COME)
    monkeypatch.setitem(registry._USER_POLICIES, row.ref, f"{path}:FirstCome")
    here = run_experiment("pricing", exp.params, {"traces": [load_trace(trace.file.path)]})
    assert exp.result["summary"] == here["summary"]
    # REST and CSV name it too
    client = api(exp.owner)
    body = client.get(f"/api/experiments/{exp.pk}/result/").json()
    assert next(t for t in body["tables"] if t["id"] == "user-policies")["rows"] == table["rows"]
    resp = client.get(f"/api/experiments/{exp.pk}/result/csv/?part=table:user-policies")
    assert resp.status_code == 200
    rows = list(csv.reader(io.StringIO(resp.content.decode())))
    assert [label, row.ref, "FirstCome", row.sha256] in rows


@pytest.mark.django_db
def test_the_form_offers_your_policies_where_a_kind_takes_them(client, alice, bob, media_root):
    row = upload(alice)
    client.force_login(alice)
    page = client.get("/experiments/new/?kind=pricing").content.decode()
    assert f'<option value="{row.ref}">FirstCome ({row.ref})</option>' in page
    assert "no compiled quote kernel" in page
    assert row.ref in client.get("/experiments/new/?kind=virtual-reservations").content.decode()
    page = client.get("/experiments/new/?kind=provisioning-impact").content.decode()
    assert "or your uploaded policies (user:&lt;sha256 prefix&gt;, run in the" in page
    client.force_login(bob)
    assert row.ref not in client.get("/experiments/new/?kind=pricing").content.decode()
    # the submit refuses bob's use of alice's policy, naming the field
    trace = stored_trace(bob)
    for kind, params, name, words in (
        ("pricing", {**PRICING, "policy": row.ref}, "policy: ", "not one of your uploaded"),
        ("provisioning-impact", {"policies": f"fcfs, {row.ref}"}, "policies: ", "not one of"),
    ):
        resp = api(bob).post(
            "/api/experiments/", {"kind": kind, "traces": [trace.pk], "params": params},
            format="json",
        )  # fmt: skip
        assert resp.status_code == 400, resp.content
        assert words in resp.content.decode() and name in str(resp.json()["params"])
    assert not Experiment.objects.filter(owner=bob).exists()


@pytest.mark.django_db
def test_a_version_that_runs_name_is_kept(priced, client):
    row, _, exp = priced
    alice = exp.owner
    spare = upload(alice, FIRST_COME + "\n# another version\n")
    resp = api(alice).delete(f"/api/policy-files/{row.pk}/")
    assert resp.status_code == 400
    assert "1 of your run names it" in resp.content.decode()
    client.force_login(alice)
    page = client.post(f"/policies/{row.pk}/delete/", follow=True).content.decode()
    assert "1 of your run names it" in page
    assert PolicyFile.objects.filter(pk=row.pk).exists()
    listed = experiment_create(  # named in a list of policies (cluster-sim), not yet run
        owner=alice, kind="cluster-sim", params={"policies": f"easy, {spare.ref}"},
        traces=list(exp.traces.all()),
    )  # fmt: skip
    resp = api(alice).delete(f"/api/policy-files/{spare.pk}/")
    assert resp.status_code == 400 and "1 of your run names it" in resp.content.decode()
    listed.delete()
    assert api(alice).delete(f"/api/policy-files/{spare.pk}/").status_code == 204
    exp.delete()
    client.post(f"/policies/{row.pk}/delete/")
    assert not PolicyFile.objects.filter(owner=alice).exists()


@pytest.mark.django_db
def test_a_bundle_carries_the_source_and_imports_with_it(priced, bob):
    row, _, exp = priced
    data = experiment_bundle_zip(experiment=exp)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        listed = json.loads(zf.read("run.json"))["user_policies"][0]
        assert hashlib.sha256(zf.read(listed["file"])).hexdigest() == row.sha256
    # the source changed behind run.json's back (the crate rehashed): refused, nothing saved
    files = _good_files(data)
    files[listed["file"]] += b"\n# changed\n"
    resp = api(bob).post(
        "/api/experiments/import-bundle/", {"file": _zip(_rehashed(files))}, format="multipart"
    )
    assert resp.status_code == 400
    assert "its sha256 is not the one run.json names" in resp.content.decode()
    assert not PolicyFile.objects.filter(owner=bob).exists()
    resp = api(bob).post(
        "/api/experiments/import-bundle/", {"file": _zip(_good_files(data))}, format="multipart"
    )
    assert resp.status_code == 201, resp.content
    mine = PolicyFile.objects.get(owner=bob)  # checked in the sandbox, as any upload
    assert mine.sha256 == row.sha256 and mine.ref == row.ref
    rerun = Experiment.objects.get(pk=resp.json()["rerun"]["id"])
    assert rerun.params["policy"] == row.ref
    assert experiment_execute(experiment_id=rerun.pk) == "succeeded"
    rerun.refresh_from_db()
    assert rerun.result["summary"] == exp.result["summary"]


@pytest.mark.django_db
def test_a_sweep_over_the_site_policy_names_it_beside_the_builtins(alice, bob, media_root):
    from django.core.exceptions import ValidationError

    row = upload(alice)
    trace = stored_trace(alice, jobs=200)
    vary = [{"param": "policy", "values": [row.ref, "easy", "conservative"]}]
    with pytest.raises(ValidationError, match="not on Slurm"):  # named by a point only
        sweep_create(owner=alice, kind="pricing", params=PRICING, traces=[trace], vary=vary,
                     executor="slurm")  # fmt: skip
    with pytest.raises(ValidationError, match="not one of your uploaded policies"):
        sweep_create(
            owner=bob, kind="pricing", params=PRICING, traces=[stored_trace(bob)], vary=vary
        )
    sweep = sweep_create(owner=alice, kind="pricing", params=PRICING, traces=[trace], vary=vary)
    for point in sweep.points.all():
        assert experiment_execute(experiment_id=point.experiment_id) == "succeeded"
    aggregate = sweep_aggregate(sweep)
    label = f"FirstCome ({row.ref})"
    assert aggregate["user_policies"][0]["label"] == label
    columns = next(t for t in aggregate["tables"] if t["id"] == "by-metric")["columns"]
    assert columns[1:] == [f"scheduling policy = {w}" for w in (label, "EASY", "Conservative")]
    # EASY written as a priority prices as EASY does: the same numbers in both columns
    rows = next(t for t in aggregate["tables"] if t["id"] == "by-metric")["rows"]
    assert any(r[1] == r[2] != r[3] for r in rows)
    with zipfile.ZipFile(io.BytesIO(sweep_bundle_zip(sweep=sweep))) as zf:
        listed = json.loads(zf.read("sweep.json"))["user_policies"]
        assert [p["sha256"] for p in listed] == [row.sha256]
        assert zf.read(listed[0]["file"]) == FIRST_COME.encode()


@pytest.mark.django_db
def test_provisioning_impact_takes_it_with_its_workflow(alice, media_root, tmp_path, monkeypatch):
    """The workflow input goes into the sandbox too: the run there equals the engine's here."""
    from gridportal.inputs.services import workflow_generate, workflow_open

    row = upload(alice, STRICT)
    trace = stored_trace(alice, jobs=200)
    workflow = workflow_generate(owner=alice, model="montage", params={"images": 8}, name="m8")
    params = {
        "procs": 64, "scale_jobs": False, "days": 4, "submit_hour": 48, "runtime_scale": 20.0,
        "families": "original", "n_max": 4, "xs": "0", "policies": f"fcfs, {row.ref}",
    }  # fmt: skip
    exp = experiment_create(
        owner=alice, kind="provisioning-impact", params=params, traces=[trace],
        workflows=[workflow],
    )  # fmt: skip
    assert experiment_execute(experiment_id=exp.pk) == "succeeded", exp.error
    exp.refresh_from_db()
    path = tmp_path / "strict.py"
    path.write_text(STRICT)
    monkeypatch.setitem(registry._USER_POLICIES, row.ref, f"{path}:FirstCome")
    inputs = {"traces": [load_trace(trace.file.path)], "workflows": [workflow_open(workflow)]}
    here = run_experiment("provisioning-impact", exp.params, inputs, seed=exp.seed)
    assert exp.result["summary"] == here["summary"]
    rows = next(t for t in exp.result["tables"] if t["id"] == "completion")["rows"]
    assert [r[0] for r in rows] == ["FIFO", f"FirstCome ({row.ref})"]
    assert rows[0][1:] == rows[1][1:]  # FIFO written as a priority is FIFO
