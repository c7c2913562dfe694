"""Shared fixtures: users, generated traces, and a real Celery worker process.

Services: a test that needs PostgreSQL, Redis or Chromium calls :func:`require`; it skips with
the reason when the service is absent, except under CI (``CI`` set), where it fails.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CI = bool(os.environ.get("CI"))
SHARED_DATA = ROOT.parent / "shared" / "data"


def require(available: bool, reason: str) -> None:
    """Skip (locally) or fail (under CI) when a needed service is missing."""
    if available:
        return
    if CI:
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


def make_swf_bytes(jobs: int = 300, procs: int = 64, seed: int = 7) -> bytes:
    from scheduler.traces.lublin import generate_lublin99
    from scheduler.traces.swf import write_swf

    out = io.StringIO()
    write_swf(generate_lublin99(jobs=jobs, procs=procs, seed=seed), out)
    return out.getvalue().encode()


@pytest.fixture
def swf_bytes() -> bytes:
    return make_swf_bytes()


@pytest.fixture
def make_user(django_user_model):
    def make(username: str, *, staff: bool = False, password: str = "pw-Secret-123"):
        return django_user_model.objects.create_user(
            username=username, password=password, is_staff=staff
        )

    return make


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def broker_is_redis() -> bool:
    from django.conf import settings

    return settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://"))


def database_is_postgres() -> bool:
    from django.conf import settings

    return "postgresql" in settings.DATABASES["default"]["ENGINE"]


@pytest.fixture
def celery_worker(transactional_db, settings, media_root, tmp_path):
    """A real ``celery worker`` process on the configured broker, reading the test database.

    It consumes a queue of its own so that no other worker (a developer's running portal, say)
    can take the test's tasks.
    """
    from django.db import connection

    queue = f"gridportal-test-{uuid.uuid4().hex[:8]}"
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    db = connection.settings_dict
    if "sqlite" in db["ENGINE"]:
        db_url = f"sqlite:///{db['NAME']}"
    else:
        user = db.get("USER") or ""
        host = db.get("HOST") or "127.0.0.1"
        port = db.get("PORT") or 5432
        db_url = f"postgres://{user}@{host}:{port}/{db['NAME']}"
        if db.get("PASSWORD"):
            db_url = f"postgres://{user}:{db['PASSWORD']}@{host}:{port}/{db['NAME']}"
    env = dict(
        os.environ,
        DATABASE_URL=db_url,
        MEDIA_ROOT=str(media_root),
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        GRIDPORTAL_QUEUE=queue,
        DJANGO_SETTINGS_MODULE="gridportal.settings",
    )
    log_path = tmp_path / "worker.log"
    log = open(log_path, "wb")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "gridportal",
            "worker",
            "--loglevel",
            "INFO",
            "--concurrency",
            "1",
            "--without-mingle",
            "--without-gossip",
            "-Q",
            queue,
            "--hostname",
            f"{queue}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        text = log_path.read_text(errors="replace")
        print("---- celery worker log ----\n" + text[-6000:])


def wait_for(predicate, timeout: float, interval: float = 0.3, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
