"""The README's first command on a machine with no servers: SQLite, the embedded filesystem
broker, `seed_demo` queueing the example experiment, and a real worker process running it."""

import json
import os
import subprocess
import sys

from tests.conftest import ROOT, wait_for


def manage(env, *args, timeout=120):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


STATUS = (
    "import json; from gridportal.experiments.models import Experiment as E; "
    "print(json.dumps([[e.status, e.error, (e.result or {}).get('summary', {}).get('jobs')]"
    " for e in E.objects.all()]))"
)


def test_demo_experiment_runs_on_sqlite_and_embedded_broker(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT", "GRIDPORTAL_QUEUE")
    }
    env.update(
        GRIDPORTAL_VAR_DIR=str(tmp_path / "var"), DJANGO_SETTINGS_MODULE="gridportal.settings"
    )
    assert manage(env, "migrate", "--noinput").returncode == 0
    seeded = manage(env, "seed_demo")
    assert seeded.returncode == 0, seeded.stderr
    assert "password 'demo-grid'" in seeded.stdout
    queued = list((tmp_path / "var" / "broker" / "queue").iterdir())
    assert len(queued) == 1  # the example run waits in the embedded broker, across processes

    log = open(tmp_path / "worker.log", "wb")
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "gridportal",
            "worker",
            "--concurrency",
            "1",
            "--loglevel",
            "INFO",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:

        def done():
            out = manage(env, "shell", "-c", STATUS)
            rows = json.loads(out.stdout.strip().splitlines()[-1])
            return rows if rows and rows[0][0] in ("succeeded", "failed") else None

        rows = wait_for(done, timeout=120, interval=1.0, what="the demo experiment")
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        log.close()
    assert rows == [["succeeded", "", 5000]], (tmp_path / "worker.log").read_text()[-3000:]
