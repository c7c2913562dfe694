"""Every experiment kind of the catalogue works through the portal: its form is generated, a
run with small inputs succeeds through the service a worker calls, and its result exports."""

import csv
import io

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.export import result_csv, result_parts
from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_create, experiment_execute
from scheduler import experiments as catalogue
from scheduler.experiments.base import CHART_TYPES

from .factories import inputs_for_kind

pytestmark = pytest.mark.django_db

# Small but real settings per kind, so the whole catalogue runs in seconds.
SMALL = {
    "coallocation": {"max_load": 20, "day": 21600, "service_levels": False, "workloads": 2},
    "provisioning": {
        "submissions": 2,
        "population": 12,
        "generations": 2,
        "tasks": 12,
        "levels": 3,
        "mean_procs": 4,
        "alphas": "0,1",
    },
    "greedy-provisioning": {
        "submissions": 2,
        "tasks": 12,
        "levels": 3,
        "mean_procs": 4,
        "alphas": "0,1",
    },
    "malleability": {"jobs": 60, "combos": "PRA/FPSMA,PWA/EGS"},
    "pricing": {"alphas": "0,1", "estimates": "accurate"},
    "provisioning-impact": {
        "montage_images": 40,
        "runtime_scale": 1.0,
        "families": "original,clusters-per-level",
        "clusters_per_level": "1,4",
        "n_max": 16,
        "submit_hour": 24.0,
        "figure7": False,
    },
    "slot-advertisement": {"days": 2.0, "interval_hours": 6.0},
    "virtual-reservations": {"days": 2, "warmup_days": 1},
    "usage-policy": {"jobs": 60, "duration": 600},
}
KINDS = [k.name for k in catalogue.kinds()]


@pytest.mark.parametrize("kind_name", KINDS)
def test_kind_runs_through_the_portal(kind_name, client, alice, media_root):
    kind = catalogue.get_kind(kind_name)
    client.force_login(alice)
    assert client.get(f"/experiments/new/?kind={kind_name}").status_code == 200
    exp = experiment_create(
        owner=alice, kind=kind_name, params=SMALL.get(kind_name, {}),
        **inputs_for_kind(alice, kind),
    )  # fmt: skip
    assert experiment_execute(experiment_id=exp.pk) == "succeeded", Experiment.objects.get(
        pk=exp.pk
    ).error
    exp.refresh_from_db()
    result = exp.result
    assert result["kind"] == kind_name and result["charts"]
    for spec in result["charts"]:
        assert spec["type"] in CHART_TYPES and spec["series"], spec["id"]
    for part in result_parts(result):
        rows = list(csv.reader(io.StringIO(result_csv(result, part))))
        assert rows and rows[0], part
    api = APIClient()
    api.force_authenticate(alice)
    resp = api.get(f"/api/experiments/{exp.pk}/result/")
    assert resp.status_code == 200
    assert resp.json()["unshown"] == []  # the tolerant reader shows every engine Result whole
    page = client.get(f"/experiments/{exp.pk}/")
    assert page.status_code == 200
