"""Throttle counters are shared by every web process (gunicorn runs several): two processes
posting wrong logins from one address count together, on the broker's Redis by default, else
on the database cache; ``CACHE_URL=locmem://`` (each process alone) shows the difference."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest
import redis
from django.conf import settings

from tests.conftest import ROOT, _test_database_url, broker_is_redis

POSTS = """
import json, django
django.setup()
from django.test import Client
client = Client(HTTP_HOST="localhost")
codes = [client.post("/login/", {"username": "nobody", "password": "wrong"},
                     REMOTE_ADDR="10.9.9.9").status_code for _ in range(2)]
from django.core.cache import caches
print("RESULT " + json.dumps({"codes": codes, "cache": type(caches["default"]).__name__}))
"""


def _posts(env: dict[str, str]) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", POSTS], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.split("RESULT ", 1)[1])


@pytest.mark.parametrize(
    "where, cache, second",
    [
        ("broker", "SharedRedisCache", [200, 429]),
        ("database", "DatabaseCache", [200, 429]),
        ("locmem://", "LocMemCache", [200, 200]),
    ],
)
def test_two_processes_share_the_login_throttle(transactional_db, where, cache, second):
    if where == "broker" and not broker_is_redis():
        pytest.skip("CELERY_BROKER_URL is not Redis: the broker's Redis cannot be the cache")
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "DJANGO_SETTINGS_MODULE": "gridportal.settings",
        "GRIDPORTAL_LOGIN_RATE": "3/min",
        "GRIDPORTAL_CACHE_PREFIX": f"gridportal-test-{uuid.uuid4().hex[:8]}",
        "CACHE_URL": where if where.endswith("://") else "",
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL if where == "broker" else "filesystem://",
    }
    first = _posts(env)
    assert first == {"codes": [200, 200], "cache": cache}
    # the second process's second post is the fourth from this address: past 3/min if shared
    assert _posts(env) == {"codes": second, "cache": cache}
    if where == "broker":
        _cache_of(env["GRIDPORTAL_CACHE_PREFIX"]).clear()


def _cache_of(prefix: str):
    from gridportal.cache import SharedRedisCache

    return SharedRedisCache(settings.CELERY_BROKER_URL, {"KEY_PREFIX": prefix})


@pytest.mark.skipif(not broker_is_redis(), reason="CELERY_BROKER_URL is not Redis")
def test_clearing_the_cache_leaves_the_brokers_keys():
    """The cache shares the broker's Redis database: clear() removes the cache's keys only
    (Django's RedisCache would FLUSHDB, dropping the queued runs)."""
    ours, other = _cache_of(f"t-{uuid.uuid4().hex[:8]}"), _cache_of(f"t-{uuid.uuid4().hex[:8]}")
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    sentinel = f"_kombu.binding.test-{uuid.uuid4().hex[:8]}"
    client.set(sentinel, b"queued")
    try:
        ours.set("a", 1)
        ours.set("b", 2, version=3)
        other.set("a", 9)
        ours.clear()
        assert (ours.get("a"), ours.get("b", version=3), other.get("a")) == (None, None, 9)
        assert client.get(sentinel) == b"queued"
    finally:
        client.delete(sentinel)
        other.clear()
