"""Users' scheduling policies as inputs: uploaded and checked in the sandbox, versioned by
sha256, named ``user:<sha prefix>`` in cluster-sim runs by their owner only, run whole in the
sandbox by a real worker; results name the policy and its hash; staff can turn them off."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from gridportal.experiments.bundles import experiment_bundle_zip
from gridportal.experiments.services import experiment_create, experiment_execute
from gridportal.inputs.models import PolicyFile
from gridportal.inputs.policyfiles import policy_file_create
from gridportal.sandbox import available
from scheduler.experiments import run_experiment
from scheduler.io import load_trace
from tests.conftest import broker_is_redis, database_is_postgres, require, wait_for
from tests.portal.factories import stored_trace

SJF = b'''from scheduler.policies import PriorityPolicy


class SJF(PriorityPolicy):
    """Shortest requested time first, EASY backfilling."""

    title = "SJF-EASY"

    def priority(self, job, now):
        return -job.estimate
'''

#: passes the upload check (200 generated jobs) and forks without end on a bigger trace
LATE_BOMB = b"""import os
from scheduler.policies import PriorityPolicy


class Late(PriorityPolicy):
    def priority(self, job, now):
        if job.index > 250:
            while True:
                os.fork()
        return 0
"""


@pytest.fixture(autouse=True)
def _sandbox_here():
    require(available() == "", f"the sandbox cannot run here: {available()}")


def upload(owner, data=SJF, class_name="SJF", name="sjf"):
    return policy_file_create(
        owner=owner, name=name, filename="sjf.py", data=data, class_name=class_name
    )


@pytest.mark.django_db
def test_upload_checks_in_the_sandbox_and_versions_by_hash(alice, bob):
    row = upload(alice)
    assert row.sha256 == hashlib.sha256(SJF).hexdigest()
    assert row.ref == f"user:{row.sha256[:12]}" and row.title == "SJF-EASY"
    assert row.dry_run["jobs"] == 200 and row.dry_run["mean_wait"] >= 0
    assert upload(alice).pk == row.pk  # same content: same version
    assert upload(bob).pk != row.pk  # each owner their own
    assert PolicyFile.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "class_name", "field", "words"),
    [
        (SJF.replace(b"def priority(self, job, now):", b"def priority(self, job, now)"),
         "SJF", "file", "sjf.py, line 9: expected ':'"),
        (SJF, "Missing", "file", "defines no 'Missing' (policies in it: SJF)"),
        (b"class SJF:\n    pass\n", "SJF", "file", "a subclass of scheduler.policies"),
        (SJF + b"\nraise RuntimeError('boom')\n", "SJF", "file", "sjf.py, line 12"),
        (SJF, "not a name", "class_name", "Python identifier"),
        (b"\xff\xfe", "SJF", "file", "line 1: not UTF-8"),
    ],
    ids=["syntax", "no-class", "not-a-policy", "raises", "bad-class-name", "not-utf8"],
)  # fmt: skip
def test_bad_uploads_name_the_line_and_save_nothing(alice, data, class_name, field, words):
    with pytest.raises(ValidationError) as info:
        upload(alice, data, class_name)
    message = " ".join(info.value.message_dict[field])
    assert words in message, message
    assert "/run/job" not in message  # the sandbox's paths are not shown
    assert not PolicyFile.objects.exists()


@pytest.mark.django_db
def test_the_page_uploads_and_shows_the_setting(client, alice, settings):
    client.force_login(alice)
    page = client.get("/policies/")
    assert page.status_code == 200 and b"User policies are <strong>on</strong>" in page.content
    resp = client.post(
        "/policies/",
        {"class_name": "SJF", "file": SimpleUploadedFile("sjf.py", SJF)},
    )
    assert resp.status_code == 302, resp.content.decode()[:2000]
    row = PolicyFile.objects.get()
    detail = client.get(resp["Location"]).content.decode()
    assert row.ref in detail and row.sha256 in detail
    assert "return -job.estimate" in detail
    bad = client.post(
        "/policies/",
        {"class_name": "SJF", "file": SimpleUploadedFile("x.py", b"def (:\n")},
    )
    assert bad.status_code == 400 and "x.py, line 1" in bad.content.decode()
    settings.GRIDPORTAL_USER_POLICIES = False
    page = client.get("/policies/")
    assert b"User policies are <strong>off</strong>" in page.content
    off = client.post(
        "/policies/",
        {"class_name": "SJF", "file": SimpleUploadedFile("sjf2.py", SJF + b"\n")},
    )
    assert off.status_code == 400 and "GRIDPORTAL_USER_POLICIES=0" in off.content.decode()
    assert PolicyFile.objects.count() == 1


@pytest.mark.django_db
def test_rest_uploads_and_hides_other_users_policies(alice, bob):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post(
        "/api/policy-files/",
        {"class_name": "SJF", "file": SimpleUploadedFile("sjf.py", SJF)},
        format="multipart",
    )
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert body["ref"].startswith("user:") and body["sha256"] == hashlib.sha256(SJF).hexdigest()
    bad = api.post(
        "/api/policy-files/",
        {"class_name": "SJF", "file": SimpleUploadedFile("x.py", b"x = (\n")},
        format="multipart",
    )
    assert bad.status_code == 400 and "line 1" in bad.content.decode()
    api.force_authenticate(bob)
    assert api.get("/api/policy-files/").json()["results"] == []
    assert api.get(f"/api/policy-files/{body['id']}/").status_code == 404


@pytest.mark.django_db
def test_only_the_owner_may_name_a_policy_in_a_run(alice, bob, media_root, settings):
    ref = upload(alice).ref
    theirs = stored_trace(bob)
    with pytest.raises(ValidationError) as info:
        experiment_create(
            owner=bob, kind="cluster-sim", params={"policies": f"{ref}, easy"}, traces=[theirs]
        )
    assert f"{ref} is not one of your uploaded policies" in str(info.value)
    mine = stored_trace(alice)
    settings.GRIDPORTAL_USER_POLICIES = False
    with pytest.raises(ValidationError) as info:
        experiment_create(
            owner=alice, kind="cluster-sim", params={"policies": f"{ref}, easy"}, traces=[mine]
        )
    assert "GRIDPORTAL_USER_POLICIES=0" in str(info.value)


def test_the_engine_outside_the_sandbox_refuses_a_user_name(tmp_path):
    from scheduler.cluster import PolicyError, resolve

    with pytest.raises(PolicyError, match="runs only in the portal's sandbox"):
        resolve("user:0123456789ab")


@pytest.mark.django_db
def test_a_run_in_the_sandbox_names_the_policy_and_matches_the_engine(alice, media_root, tmp_path):
    row = upload(alice)
    trace = stored_trace(alice, jobs=300)
    params = {"policies": f"{row.ref}, easy, conservative", "accurate": False}
    exp = experiment_create(owner=alice, kind="cluster-sim", params=params, traces=[trace])
    assert experiment_execute(experiment_id=exp.pk) == "succeeded", exp.error
    exp.refresh_from_db()
    result = exp.result
    assert result["user_policies"] == [
        {
            "policy": row.ref,
            "label": f"SJF-EASY ({row.ref})",
            "name": "sjf",
            "class": "SJF",
            "sha256": row.sha256,
        }
    ]
    labels = [r[0] for r in result["tables"][0]["rows"]] if result.get("tables") else []
    assert any(f"SJF-EASY ({row.ref})" in str(label) for label in labels), labels
    # the built-in rows are those of the same run without the user policy, in this process
    plain = run_experiment(
        "cluster-sim",
        {**exp.params, "policies": "easy, conservative"},
        {"traces": [load_trace(trace.file.path)]},
        seed=exp.seed,
    )
    assert result["tables"][0]["rows"][1:] == plain["tables"][0]["rows"]
    # its bundle carries the policy's source, named by its hash
    with zipfile.ZipFile(io.BytesIO(experiment_bundle_zip(experiment=exp))) as bundle:
        run = json.loads(bundle.read("run.json"))
        assert run["user_policies"][0]["sha256"] == row.sha256
        assert bundle.read(run["user_policies"][0]["file"]) == SJF


@pytest.fixture
def services_present():
    require(broker_is_redis(), "needs CELERY_BROKER_URL=redis://… (Redis)")
    require(database_is_postgres(), "needs DATABASE_URL=postgres://… (PostgreSQL)")


@pytest.mark.integration
def test_a_worker_survives_a_breach_and_runs_the_next(services_present, celery_worker, alice):
    bomb = upload(alice, LATE_BOMB, "Late", name="late")
    good = upload(alice)
    trace = stored_trace(alice, jobs=400)
    api = APIClient()
    api.force_authenticate(alice)

    def run(ref: str) -> dict:
        resp = api.post(
            "/api/experiments/",
            {"kind": "cluster-sim", "traces": [trace.pk],
             "params": {"policies": f"{ref}, easy", "accurate": False}},
            format="json",
        )  # fmt: skip
        assert resp.status_code == 201, resp.content
        pk = resp.json()["id"]

        def finished():
            body = api.get(f"/api/experiments/{pk}/").json()
            return body if body["status"] in ("succeeded", "failed", "cancelled") else None

        return wait_for(finished, timeout=240, what="the worker to finish the run")

    failed = run(bomb.ref)
    assert failed["status"] == "failed"
    assert "process-count limit" in failed["error"], failed["error"]
    done = run(good.ref)
    assert done["status"] == "succeeded", done


@pytest.mark.django_db
def test_a_sweep_compares_a_user_policy_with_easy_and_conservative(alice, bob, media_root):
    from gridportal.experiments.sweeps import sweep_create

    row = upload(alice)
    trace = stored_trace(alice, jobs=200)
    params = {"policies": f"{row.ref}, easy, conservative", "accurate": False}
    vary = [{"param": "procs", "values": [64, 96]}]
    with pytest.raises(ValidationError, match="not one of your uploaded policies"):
        sweep_create(
            owner=bob, kind="cluster-sim", params=params, traces=[stored_trace(bob)], vary=vary
        )
    with pytest.raises(ValidationError, match="not on Slurm"):
        sweep_create(
            owner=alice, kind="cluster-sim", params=params, traces=[trace], vary=vary,
            executor="slurm",
        )  # fmt: skip
    sweep = sweep_create(owner=alice, kind="cluster-sim", params=params, traces=[trace], vary=vary)
    runs = [r.experiment for r in sweep.points.select_related("experiment").order_by("index")]
    assert len(runs) == 2
    for exp in runs:
        assert experiment_execute(experiment_id=exp.pk) == "succeeded"
        exp.refresh_from_db()
        assert exp.result["user_policies"][0]["sha256"] == row.sha256
        labels = [str(r[0]) for r in exp.result["tables"][0]["rows"]]
        assert labels[0].startswith(f"SJF-EASY ({row.ref})"), labels


#: passes the upload check (200 generated jobs) and allocates 10 GB on a bigger trace
LATE_HOG = b"""from scheduler.policies import PriorityPolicy


class Hog(PriorityPolicy):
    def priority(self, job, now):
        if job.index > 250:
            self.hoard = bytearray(10 * 2**30)
        return 0
"""


@pytest.mark.django_db
def test_a_run_fails_naming_the_limit_or_the_switch(alice, media_root, settings):
    from gridportal.experiments.models import Experiment

    hog = upload(alice, LATE_HOG, "Hog", name="hog")
    trace = stored_trace(alice, jobs=300)
    settings.GRIDPORTAL_SANDBOX_MEMORY_MB = 1024
    exp = experiment_create(
        owner=alice, kind="cluster-sim", params={"policies": f"{hog.ref}, easy"}, traces=[trace]
    )
    assert experiment_execute(experiment_id=exp.pk) == "failed"
    exp.refresh_from_db()
    assert "memory limit of 1024 MiB" in exp.error, exp.error
    assert "line 7" in exp.error  # the user's line
    later = experiment_create(
        owner=alice, kind="cluster-sim", params={"policies": f"{upload(alice).ref}, easy"},
        traces=[trace],
    )  # fmt: skip
    settings.GRIDPORTAL_USER_POLICIES = False  # turned off while the run waited
    assert experiment_execute(experiment_id=later.pk) == "failed"
    later.refresh_from_db()
    assert later.status == Experiment.Status.FAILED
    assert "GRIDPORTAL_USER_POLICIES=0" in later.error
