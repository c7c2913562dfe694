"""Settings come from the environment; production mode is locked down."""

import json
import subprocess
import sys

from tests.conftest import ROOT

PROBE = (
    "import json, django; from django.conf import settings; "
    "print(json.dumps({'debug': settings.DEBUG, 'secure': settings.SESSION_COOKIE_SECURE, "
    "'csrf_secure': settings.CSRF_COOKIE_SECURE, 'hosts': settings.ALLOWED_HOSTS, "
    "'db': settings.DATABASES['default']['ENGINE'], 'broker': settings.CELERY_BROKER_URL, "
    "'queue_dir': settings.CELERY_BROKER_TRANSPORT_OPTIONS.get('data_folder_in')}))"
)


def settings_under(env: dict, tmp_path) -> subprocess.CompletedProcess:
    base = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "gridportal.settings",
        "GRIDPORTAL_VAR_DIR": str(tmp_path / "var"),
    }
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_defaults_need_no_server(tmp_path):
    out = settings_under({}, tmp_path)
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    assert s["debug"] is True and s["secure"] is False
    assert s["db"] == "django.db.backends.sqlite3"
    assert s["broker"] == "filesystem://"
    assert s["queue_dir"] == str(tmp_path / "var" / "broker" / "queue")


def test_environment_selects_postgres_and_redis(tmp_path):
    out = settings_under(
        {
            "DATABASE_URL": "postgres://u@db.example:5432/gp",
            "CELERY_BROKER_URL": "redis://cache.example:6379/1",
        },
        tmp_path,
    )
    s = json.loads(out.stdout)
    assert s["db"] == "django.db.backends.postgresql"
    assert s["broker"] == "redis://cache.example:6379/1" and s["queue_dir"] is None


def test_production_requires_a_secret_key(tmp_path):
    out = settings_under({"GRIDPORTAL_ENV": "production"}, tmp_path)
    assert out.returncode != 0 and "SECRET_KEY must be set" in out.stderr


def test_production_mode_is_locked_down(tmp_path):
    out = settings_under(
        {
            "GRIDPORTAL_ENV": "production",
            "SECRET_KEY": "x" * 50,
            "ALLOWED_HOSTS": "grid.example.org",
        },
        tmp_path,
    )
    s = json.loads(out.stdout)
    assert s["debug"] is False and s["secure"] is True and s["csrf_secure"] is True
    assert s["hosts"] == ["grid.example.org"]
