"""Slurm sites in the portal: the dump and configuration files read at upload (the page and
REST), what was understood shown on the site's page, bad and hostile files refused naming the
file and line with nothing saved, and the ``slurm-whatif`` kind run on a site through the
service a worker calls."""

from __future__ import annotations

import gzip

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_create, experiment_execute
from gridportal.inputs.models import SlurmSite
from gridportal.inputs.slurm_sites import MAX_CONFIG_BYTES, slurm_site_create
from tests.slurm.sites import ASSOC, QOS, SLURM_CONF, SSHARE, recorded_dump

pytestmark = pytest.mark.django_db

DUMP = recorded_dump(60, seed=5)


def files(dump=DUMP, conf=SLURM_CONF, assoc=ASSOC, qos=QOS, sshare=None) -> dict:
    def up(name, body):
        return SimpleUploadedFile(name, body if isinstance(body, bytes) else body.encode())

    out = {"dump": up("sacct.txt", dump), "slurm_conf": up("slurm.conf", conf)}
    if assoc is not None:
        out["assoc"] = up("assoc.txt", assoc)
    if qos is not None:
        out["qos"] = up("qos.txt", qos)
    if sshare is not None:
        out["sshare"] = up("sshare.txt", sshare)
    return out


def stored_site(owner, **kw) -> SlurmSite:
    return slurm_site_create(owner=owner, name="whatif site", **files(**kw))


def media_files(root):
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def test_the_page_reads_a_site_and_shows_what_was_understood(client, alice, media_root):
    client.force_login(alice)
    assert client.get("/slurm-sites/").status_code == 200
    resp = client.post("/slurm-sites/", {"name": "cluster A", **files(sshare=SSHARE)})
    assert resp.status_code == 302, resp.content.decode()[:2000]
    site = SlurmSite.objects.get(owner=alice)
    assert resp["Location"] == f"/slurm-sites/{site.pk}/"
    assert site.job_count == 60 and site.summary["cpus"] == 16
    page = client.get(resp["Location"]).content.decode()
    for shown in ("short", "long", "PriorityWeightFairshare", "4,000", "6 h",
                  "ClusterName, SlurmctldHost", "physics", "biology", "0.700", "urgent",
                  "?kind=slurm-whatif&amp;slurm-site=", "sshare.txt", "1,000,000"):  # fmt: skip
        assert shown in page, shown
    assert "cluster A" in client.get("/slurm-sites/").content.decode()


#: (field, file body, what the refusal says) — every one names the file and the line
BAD = {
    "conf value": ("slurm_conf", SLURM_CONF.replace("PriorityWeightAge=1000",
                                                    "PriorityWeightAge=lots"),
                   "slurm.conf: line 7: PriorityWeightAge: an integer >= 0"),
    "conf node": ("slurm_conf", SLURM_CONF.replace("n[1-2] MaxTime=1-", "n9 MaxTime=1-"),
                  "slurm.conf: PartitionName=long: Nodes: 'n9' has no NodeName line"),
    "conf NUL": ("slurm_conf", b"ClusterName=x\n\x00\n", "slurm.conf: line 2: a NUL byte"),
    "conf not UTF-8": ("slurm_conf", b"ClusterName=x\nA=\xff\xfe\n",
                       "slurm.conf: line 2: not UTF-8"),
    "conf too large": ("slurm_conf", b"#" * (MAX_CONFIG_BYTES + 1), "slurm.conf: larger than"),
    "assoc fields": ("assoc", ASSOC + "whatif|chem\n", "assoc.txt: line 8: 2 fields where"),
    "assoc share": ("assoc", ASSOC.replace("|70|", "|lots|"), "assoc.txt: line 3: Share: 'lots'"),
    "qos priority": ("qos", QOS.replace("urgent|100", "urgent|-5"),
                     "qos.txt: line 3: Priority: '-5' is not a valid value"),
    "sshare usage": ("sshare", SSHARE.replace("|100000|0.05", "|-1|0.05", 1),
                     "sshare.txt: line 6: RawUsage: '-1' is not an integer >= 0"),
    "dump row": ("dump", DUMP.replace("|COMPLETED|", "|COMPLETED|x|", 1),
                 "sacct.txt: line 2:"),
    "dump gzip": ("dump", gzip.compress(DUMP.encode())[:200], "corrupt or truncated gzip"),
    "dump binary": ("dump", bytes(range(256)) * 40, "sacct.txt"),
    "dump too wide": ("dump", DUMP.replace("|4|4|4|1000", "|64|64|64|1000", 1),
                      "CPUs; slurm.conf has 16"),
    "dump empty": ("dump", b"", "sacct.txt"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD))
def test_bad_files_are_refused_naming_file_and_line(case, client, alice, media_root):
    field, body, said = BAD[case]
    client.force_login(alice)
    given = files(sshare=SSHARE)
    given[field] = SimpleUploadedFile(given[field].name, body if isinstance(body, bytes)
                                      else body.encode())  # fmt: skip
    resp = client.post("/slurm-sites/", {"name": "bad", **given})
    assert resp.status_code == 400
    text = resp.content.decode()
    assert escape(said) in text, text[text.find("errorlist") :][:600]
    assert not SlurmSite.objects.exists() and not media_files(media_root)


def test_the_api_uploads_lists_and_hides_sites_of_others(alice, bob, media_root):
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.post("/api/slurm-sites/", {"name": "A", **files(assoc=None)}, format="multipart")
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert body["job_count"] == 60 and body["summary"]["associations"] == []
    assert body["assoc_filename"] == "" and "dump" not in body
    bad = api.post("/api/slurm-sites/", files(qos="Name|Priority\nx|y\n"), format="multipart")
    assert bad.status_code == 400 and "qos.txt: line 2: Priority" in bad.json()["qos"][0]
    other = APIClient()
    other.force_authenticate(bob)
    assert other.get(f"/api/slurm-sites/{body['id']}/").status_code == 404
    assert other.get("/api/slurm-sites/").json()["count"] == 0
    resp = other.post("/api/experiments/", {"kind": "slurm-whatif", "slurm_sites": [body["id"]]},
                      format="json")  # fmt: skip
    assert resp.status_code == 400 and "slurm_sites" in resp.json()


def test_the_api_refuses_changes_the_run_would_refuse(alice, media_root):
    site = stored_site(alice)
    api = APIClient()
    api.force_authenticate(alice)
    for overrides, said in (("PriorityWeightAge", "write Key=Value"),
                            ("Fairshare:chemistry=4", "the site has no account 'chemistry'"),
                            ("bf_window=x", "bf_window")):  # fmt: skip
        resp = api.post(
            "/api/experiments/",
            {"kind": "slurm-whatif", "slurm_sites": [site.pk], "params": {"overrides": overrides}},
            format="json",
        )
        assert resp.status_code == 400 and said in str(resp.json()), resp.json()
    assert not Experiment.objects.exists()
    resp = api.post("/api/experiments/", {"kind": "slurm-whatif"}, format="json")
    assert resp.status_code == 400 and "slurm_sites" in resp.json()


def test_the_kind_runs_on_a_site_and_its_page_shows_the_result(client, alice, media_root):
    site = stored_site(alice)
    exp = experiment_create(
        owner=alice, kind="slurm-whatif", slurm_sites=[site],
        params={"overrides": "PriorityWeightFairshare=0 Fairshare:biology=70"},
    )  # fmt: skip
    assert experiment_execute(experiment_id=exp.pk) == "succeeded", Experiment.objects.get(
        pk=exp.pk
    ).error
    exp.refresh_from_db()
    s = exp.result["summary"]
    assert s["jobs"] == 60 and s["start_error_median"] == 0 and s["rank_correlation"] == 1.0
    assert s["wait_mean_unchanged"] == s["wait_mean_recorded"]
    ids = {c["id"] for c in exp.result["charts"]}
    assert {"wait-by-account", "share-1", "share-2"} <= ids
    client.force_login(alice)
    page = client.get(f"/experiments/{exp.pk}/").content.decode()
    assert f"/slurm-sites/{site.pk}/" in page
    form = client.get(f"/experiments/new/?kind=slurm-whatif&clone={exp.pk}").content.decode()
    assert f'<option value="{site.pk}" selected>' in form
    # a site used by a run cannot be deleted; the run keeps it
    api = APIClient()
    api.force_authenticate(alice)
    assert api.delete(f"/api/slurm-sites/{site.pk}/").status_code == 400
    assert SlurmSite.objects.filter(pk=site.pk).exists()


def test_the_form_submits_a_run_and_names_a_bad_change(client, alice, media_root):
    site = stored_site(alice)
    client.force_login(alice)
    form = {"name": "", "seed": 0, "site": site.pk, "p_share_bins": 24}
    resp = client.post("/experiments/new/?kind=slurm-whatif",
                       {**form, "p_overrides": "Fairshare:nobody=3"})  # fmt: skip
    assert resp.status_code == 400 and "the site has no account" in resp.content.decode()
    resp = client.post("/experiments/new/?kind=slurm-whatif",
                       {**form, "p_overrides": "bf_window=60"})  # fmt: skip
    assert resp.status_code == 302
    exp = Experiment.objects.get(kind="slurm-whatif")
    assert list(exp.slurm_sites.all()) == [site] and exp.params["overrides"] == "bf_window=60"


def test_a_what_if_bundle_carries_the_site_and_imports_elsewhere(alice, bob, media_root, tmp_path):
    """The bundle holds the site's files as ``run --slurm-site`` reads them: the command line
    re-runs it from the bundle to the same result, and another user's import stores the site
    and re-runs it to the same result."""
    import io
    import json
    import zipfile

    from tests.conftest import scheduler_cli

    site = slurm_site_create(owner=alice, name="with usage", **files(sshare=SSHARE))
    exp = experiment_create(owner=alice, kind="slurm-whatif", slurm_sites=[site],
                            params={"overrides": "Fairshare:biology=70"})  # fmt: skip
    assert experiment_execute(experiment_id=exp.pk) == "succeeded"
    exp.refresh_from_db()
    api = APIClient()
    api.force_authenticate(alice)
    data = api.get(f"/api/experiments/{exp.pk}/bundle/").content
    zf = zipfile.ZipFile(io.BytesIO(data))
    folder = "inputs/slurm-site-1"
    assert {
        f"{folder}/{n}" for n in ("dump.sacct", "slurm.conf", "assoc.txt", "qos.txt", "sshare.txt")
    } <= set(zf.namelist())
    zf.extractall(tmp_path)
    run = json.loads(zf.read("run.json"))
    (tmp_path / "p.json").write_text(json.dumps(run["params"]))
    done = scheduler_cli(
        "run", "slurm-whatif", "--slurm-site", str(tmp_path / folder),
        "--params", str(tmp_path / "p.json"), "--out", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "r.json").read_text()) == exp.result
    up = io.BytesIO(data)
    up.name = "run.zip"
    other = APIClient()
    other.force_authenticate(bob)
    resp = other.post("/api/experiments/import-bundle/", {"file": up}, format="multipart")
    assert resp.status_code == 201, resp.content
    rerun = Experiment.objects.get(pk=resp.json()["rerun"]["id"])
    copied = SlurmSite.objects.get(owner=bob)
    assert copied.sha256 == site.sha256 and list(rerun.slurm_sites.all()) == [copied]
    assert experiment_execute(experiment_id=rerun.pk) == "succeeded"
    rerun.refresh_from_db()
    assert rerun.result == exp.result


def test_a_what_if_sweep_keeps_its_site_and_stays_off_job_arrays(alice, media_root):
    from django.core.exceptions import ValidationError

    from gridportal.experiments.sweeps import sweep_create

    site = stored_site(alice)
    common = {"owner": alice, "kind": "slurm-whatif", "params": {}, "slurm_sites": [site],
              "vary": [{"param": "share_bins", "values": [12, 24]}]}  # fmt: skip
    sweep = sweep_create(**common)
    assert list(sweep.slurm_sites.all()) == [site]
    runs = list(sweep.runs.all())
    assert len(runs) == 2 and all(list(r.slurm_sites.all()) == [site] for r in runs)
    with pytest.raises(ValidationError, match="runs on the portal's workers only"):
        sweep_create(**common, executor="slurm")
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.get(f"/api/sweeps/{sweep.pk}/jobarray/")
    assert resp.status_code == 400 and "not exported as a job array" in str(resp.json())
