"""The portal in this process, on a database of its own: what the benches that submit runs
through the services share (bench_cancel.py, bench_scaleout.py).

``portal_in_process(db, queue_prefix)`` drops and re-creates PostgreSQL database ``db``,
migrates it, points this process (and the workers a bench starts with ``os.environ``) at it,
at Redis and at a private Celery queue, and sets Django up. Environment: BENCH_PG (default
postgres://postgres@127.0.0.1:5432), BENCH_REDIS (default redis://127.0.0.1:6379/0).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/0")


def recreate_database(db: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {db}")


def portal_in_process(db: str, queue_prefix: str) -> dict[str, str]:
    """Set the portal up here on a fresh ``db``; the environment its workers need."""
    recreate_database(db)
    env = dict(
        os.environ,
        DATABASE_URL=f"{PG}/{db}",
        CELERY_BROKER_URL=REDIS,
        GRIDPORTAL_QUEUE=f"{queue_prefix}-{uuid.uuid4().hex[:8]}",
        MEDIA_ROOT=tempfile.mkdtemp(prefix="gridportal-bench-"),
        DJANGO_SETTINGS_MODULE="gridportal.settings",
        LOG_LEVEL="WARNING",
    )
    os.environ.update(env)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    import django

    django.setup()
    return env
