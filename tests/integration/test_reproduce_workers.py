"""``make reproduce`` over real Celery workers: the presets become runs on the
workers, the command waits for them and writes the same scoreboard as in process."""

import json

import pytest
from django.core.management import call_command

from gridportal.experiments.models import Experiment
from tests.conftest import broker_is_redis, database_is_postgres, require

pytestmark = pytest.mark.integration


def test_reproduce_runs_the_presets_on_the_workers(start_worker, tmp_path, capsys):
    require(broker_is_redis(), "needs CELERY_BROKER_URL=redis://… (Redis)")
    require(database_is_postgres(), "needs DATABASE_URL=postgres://… (PostgreSQL)")
    start_worker()
    start_worker.wait_ready()  # the command finds it by a ping
    out, docs = tmp_path / "report.json", tmp_path / "docs" / "reproductions"
    call_command("reproduce", "--kind", "malleability", "--out", str(out), "--docs", str(docs),
                 "--poll", "0.5")  # fmt: skip
    printed = capsys.readouterr().out
    assert "Celery worker" in printed and "total time" in printed
    runs = Experiment.objects.filter(owner__username="reproduce")
    assert runs.count() == 3 and {r.status for r in runs} == {"succeeded"}
    report = json.loads(out.read_text())
    assert report["executor"].endswith("Celery worker(s)")
    by_key = {f"{r['kind']}/{r['preset']}": r for r in report["rows"]}
    assert (
        by_key["malleability/seed002-fig7-pra"]["verdict"] == "fitted"
    )  # the speed-up points the model was fitted to
    # the same verdicts as in process (deterministic runs)
    call_command("reproduce", "--kind", "malleability", "--in-process",
                 "--out", str(tmp_path / "here.json"))  # fmt: skip
    here = json.loads((tmp_path / "here.json").read_text())
    assert [r["verdict"] for r in here["rows"]] == [r["verdict"] for r in report["rows"]]
    assert "| 002 Buisson et al. 2007" in (tmp_path / "docs" / "reproductions.md").read_text()
