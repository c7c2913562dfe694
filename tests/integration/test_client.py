"""The Python client (clients/python) and its example against a live portal and a real
worker: token login, uploads, a run and a sweep, results as data and DataFrames."""

from __future__ import annotations

import ast
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gridportal.experiments.models import Experiment, Sweep
from tests.conftest import ROOT, broker_is_redis, database_is_postgres, make_swf_bytes, require

pytestmark = pytest.mark.integration
CLIENT = ROOT / "clients" / "python"


def _documented_command() -> str:
    """The shell command of docs/client-example.py's docstring, as written (with its
    backslash-newline continuation)."""
    doc = ast.get_docstring(ast.parse((ROOT / "docs" / "client-example.py").read_text()))
    lines = doc.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.strip().startswith("GRIDPORTAL_URL="))
    last = first
    while lines[last].rstrip().endswith("\\"):
        last += 1
    return "\n".join(lines[first : last + 1])


def _readme_python() -> str:
    """The Python block of the client's README, as written."""
    text = (CLIENT / "README.md").read_text()
    return text.split("```python\n", 1)[1].split("```", 1)[0]


def _verbatim(text: str, **swap: str) -> str:
    """``text`` with each documented placeholder (the portal's address, a file name) replaced
    by this test's; each must occur exactly once, so the rest is run as documented."""
    for old, new in swap.items():
        assert text.count(old) == 1, (old, text)
        text = text.replace(old, new)
    return text


def test_documented_client_commands_against_a_live_portal(
    live_server, celery_worker, make_user, tmp_path
):
    """docs/client-example.py's command and the client README's example, run as written
    (only the portal's address and the trace file differ) with the demo account that
    ``manage.py seed_demo`` creates."""
    require(broker_is_redis(), "needs CELERY_BROKER_URL=redis://… (Redis)")
    require(database_is_postgres(), "needs DATABASE_URL=postgres://… (PostgreSQL)")
    from gridportal.experiments.management.commands.seed_demo import demo_credentials

    demo = demo_credentials()[0]
    assert (demo["username"], demo["password"]) == ("demo", "demo-grid")  # what the docs say
    make_user(demo["username"], password=demo["password"])
    trace = tmp_path / "example.swf"
    trace.write_bytes(make_swf_bytes(jobs=300, procs=64, seed=4))
    env = {
        **os.environ,
        # ``pip install ./clients/python[pandas]``: the client from the checkout, and ``python``
        # is this interpreter (pandas is installed beside it)
        "PYTHONPATH": str(CLIENT),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    for key in ("GRIDPORTAL_URL", "GRIDPORTAL_USER", "GRIDPORTAL_PASSWORD"):
        env.pop(key, None)  # the command sets them
    command = _verbatim(
        _documented_command(),
        **{"http://127.0.0.1:8000": live_server.url, "TRACE.swf[.gz]": shlex.quote(str(trace))},
    )
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=240)  # fmt: skip
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "uploaded trace" in out and ": 300 jobs" in out
    run = Experiment.objects.order_by("id").first()  # the sweep re-uses it (procs 128, seed 1)
    assert run.owner.username == "demo"
    assert f"run {run.pk} succeeded" in out
    assert f"offered load on 128 processors: {run.result['summary']['offered_load']}" in out
    sweep = Sweep.objects.get()
    assert f"sweep {sweep.pk} succeeded: 6 runs" in out
    # the DataFrame printed per point: three points, n = 2 each
    lines = [ln.split() for ln in out.splitlines() if ln.strip().startswith(("64", "128", "256"))]
    assert [ln[0] for ln in lines] == ["64", "128", "256"] and {ln[-1] for ln in lines} == {"2"}

    # the README's example: a Slurm sacct file, a run waited for, one cancelled, one deleted
    sacct = ROOT / "tests" / "scheduler" / "data" / "slurm-sacct-parsable2.txt"
    script = _verbatim(
        _readme_python(),
        **{"http://127.0.0.1:8000": live_server.url, "jobs.sacct": str(sacct)},
    )
    before = set(Experiment.objects.values_list("id", flat=True))
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=240)  # fmt: skip
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    assert "100%" in done.stdout and "runs_queued" in done.stdout
    new = Experiment.objects.exclude(id__in=before)
    # the waited-for run was deleted; the other is cancelled (or had already finished)
    assert new.count() == 1 and new.get().status in ("cancelled", "succeeded")


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


def test_client_cancels_and_deletes_running_runs_within_seconds(
    live_server, celery_worker, make_user, tmp_path, monkeypatch
):
    """``Client.cancel`` and ``Client.delete`` on a run computing on a real worker: its
    engine child is gone within seconds; ``Client.quota`` shows the user's share."""
    require(broker_is_redis(), "needs CELERY_BROKER_URL=redis://… (Redis)")
    require(database_is_postgres(), "needs DATABASE_URL=postgres://… (PostgreSQL)")
    import time

    from tests.conftest import wait_for

    from .run_control import LONG_PARAMS, alive, engine_children

    monkeypatch.syspath_prepend(str(CLIENT))
    from gridportal_client import Client, PortalError

    make_user("carol", password="pw-Secret-123")
    gp = Client(live_server.url)
    gp.login("carol", "pw-Secret-123")
    trace = tmp_path / "t.swf"
    trace.write_bytes(make_swf_bytes(jobs=2000, procs=128, seed=5))
    trace_id = gp.upload_trace(trace)["id"]
    for seed, stop in enumerate((gp.cancel, gp.delete)):
        run = gp.submit("provisioning", traces=[trace_id], params=LONG_PARAMS, seed=seed)

        def child(run_id=run["id"]):
            running = gp.run(run_id)["status"] == "running"
            return running and engine_children(celery_worker.pid)

        pid = wait_for(child, timeout=120, interval=0.2, what="the run's engine child")[0]
        assert gp.quota()["runs_running"] == 1
        t0 = time.monotonic()
        stop(run["id"])
        wait_for(lambda: not alive(pid), timeout=30, interval=0.05, what="the child to go")  # noqa: B023
        assert time.monotonic() - t0 < 10
        if stop == gp.cancel:
            assert gp.run(run["id"])["status"] == "cancelled"
            try:
                gp.cancel(run["id"])
            except PortalError as exc:
                assert exc.status == 409
            else:
                raise AssertionError("cancelling a cancelled run must be refused")
        else:
            assert not Experiment.objects.filter(pk=run["id"]).exists()
    quota = gp.quota()
    assert quota["runs_in_flight"] == 0 and quota["storage_by_kind"]["traces"] > 0
