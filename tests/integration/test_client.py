"""The Python client (clients/python) and its example against a live portal and a real worker
(issue 22 item 3): token login, uploads, a run and a sweep, results as data and DataFrames."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from gridportal.experiments.models import Experiment, Sweep
from tests.conftest import ROOT, broker_is_redis, database_is_postgres, make_swf_bytes, require

pytestmark = pytest.mark.integration
CLIENT = ROOT / "clients" / "python"


def test_client_example_against_a_live_portal(live_server, celery_worker, make_user, tmp_path):
    require(broker_is_redis(), "needs CELERY_BROKER_URL=redis://… (Redis)")
    require(database_is_postgres(), "needs DATABASE_URL=postgres://… (PostgreSQL)")
    make_user("carol", password="pw-Secret-123")
    trace = tmp_path / "example.swf"
    trace.write_bytes(make_swf_bytes(jobs=300, procs=64, seed=4))
    env = {
        **os.environ,
        "PYTHONPATH": str(CLIENT),  # the client alone: no Django, no engine on this path
        "GRIDPORTAL_URL": live_server.url,
        "GRIDPORTAL_USER": "carol",
        "GRIDPORTAL_PASSWORD": "pw-Secret-123",
    }
    done = subprocess.run(
        [sys.executable, "-I", "-c",
         "import sys; sys.path.insert(0, sys.argv[1]); sys.argv = sys.argv[2:]; "
         "import runpy; runpy.run_path(sys.argv[0], run_name='__main__')",
         str(CLIENT), str(ROOT / "docs" / "client-example.py"), str(trace)],
        env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "uploaded trace" in out and ": 300 jobs" in out
    run = Experiment.objects.order_by("id").first()  # the sweep re-uses it (procs 128, seed 1)
    assert f"run {run.pk} succeeded" in out
    assert f"offered load on 128 processors: {run.result['summary']['offered_load']}" in out
    sweep = Sweep.objects.get()
    assert f"sweep {sweep.pk} succeeded: 6 runs" in out
    # the DataFrame printed per point: three points, n = 2 each
    lines = [ln.split() for ln in out.splitlines() if ln.strip().startswith(("64", "128", "256"))]
    assert [ln[0] for ln in lines] == ["64", "128", "256"] and {ln[-1] for ln in lines} == {"2"}


def test_client_installs_on_its_own(tmp_path):
    source = tmp_path / "src"  # a copy: building writes build/ and *.egg-info beside the code
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "-w", str(tmp_path), str(source)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    wheel = next(tmp_path.glob("gridportal_client-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "gridportal_client/__init__.py" in names
    source = (CLIENT / "gridportal_client" / "__init__.py").read_text()
    assert not any(
        line.lstrip().startswith(
            ("import django", "from django", "import scheduler", "from scheduler")
        )
        for line in source.splitlines()
    )
