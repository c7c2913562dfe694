"""The deployment of docker-compose.yml: nginx in front of gunicorn.

* the compose file: nginx (official image, pinned) is the only published service, gunicorn is
  not published, a sweeper runs the ``sweep_runs`` loop, every long-running service has a
  health check, and nginx's body limit sits above the portal's upload cap;
* deploy/nginx/default.conf.template, filled in as the official image does, passes ``nginx -t``;
* the slowloris reproduction (bench/slow_clients.py): 10 slow-header connections and 9 normal
  requests — behind nginx all 9 are answered within 10 s (gunicorn alone: a few of them).

Docker cannot run here (no daemon), so the compose file is read with PyYAML; nginx is the
Debian package (``apt-get install nginx-light``): without it the nginx tests skip with the
reason, and fail under CI.
"""

import importlib.util
import re
import subprocess

import pytest
import yaml

from tests.conftest import CI, ROOT

SPEC = importlib.util.spec_from_file_location("slow_clients", ROOT / "bench" / "slow_clients.py")
slow_clients = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(slow_clients)

COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


def need_nginx() -> None:
    if slow_clients.nginx_binary():
        return
    if CI:
        pytest.fail("required under CI: nginx (apt-get install nginx-light)")
    pytest.skip(
        "nginx is not installed (apt-get install nginx-light): config and slowloris untested"
    )


def test_only_nginx_is_published_and_gunicorn_is_behind_it():
    published = {name for name, s in SERVICES.items() if s.get("ports")}
    assert published == {"nginx"}, published
    nginx = SERVICES["nginx"]
    assert re.fullmatch(r"nginx:\d+\.\d+\.\d+(-alpine)?", nginx["image"]), nginx["image"]
    assert nginx["ports"] == ["8000:8080"]
    assert nginx["environment"]["GRIDPORTAL_UPSTREAM"] == "web:8000"
    assert "gunicorn" in SERVICES["web"]["command"] and "--bind 0.0.0.0:8000" in " ".join(
        SERVICES["web"]["command"].split()
    )
    assert SERVICES["web"].get("expose") == ["8000"]
    mounts = nginx["volumes"]
    assert (
        "./deploy/nginx/default.conf.template:/etc/nginx/templates/default.conf.template:ro"
        in mounts
    )
    assert (ROOT / "deploy" / "nginx" / "default.conf.template").is_file()
    # the static files nginx serves are the ones the web service collects
    static_root = SERVICES["web"]["environment"]["STATIC_ROOT"]
    assert f"static:{static_root}" in SERVICES["web"]["volumes"]
    assert f"static:{nginx['environment']['NGINX_STATIC_ROOT']}:ro" in mounts
    assert "collectstatic" in SERVICES["web"]["command"]


def test_a_sweeper_runs_the_loop_and_every_service_has_a_health_check():
    sweeper = SERVICES["sweeper"]
    assert sweeper["command"].startswith("python manage.py sweep_runs --every ")
    assert "--heartbeat /tmp/sweeper.alive" in sweeper["command"]
    assert "sweeper.alive" in " ".join(sweeper["healthcheck"]["test"])
    # the sweeper reaches the same database and broker as the workers
    assert (
        sweeper["environment"]["DATABASE_URL"] == SERVICES["worker"]["environment"]["DATABASE_URL"]
    )
    assert (
        sweeper["environment"]["CELERY_BROKER_URL"]
        == SERVICES["worker"]["environment"]["CELERY_BROKER_URL"]
    )
    for name, service in SERVICES.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no health check"
        assert service.get("restart") == "unless-stopped", name
    assert SERVICES["nginx"]["depends_on"]["web"]["condition"] == "service_healthy"


def test_the_sweeper_heartbeat_is_touched_after_a_pass(tmp_path, db):
    from django.core.management import call_command

    beat = tmp_path / "alive"
    call_command("sweep_runs", "--heartbeat", str(beat), "--inspect-timeout", "0.1")
    assert beat.exists()


def to_bytes(size: str) -> int:
    m = re.fullmatch(r"(\d+)([kmg]?)", size.lower())
    return int(m.group(1)) * {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}[m.group(2)]


def test_nginx_body_limit_is_above_the_portal_upload_cap():
    """The portal answers an upload just over its cap itself (413, JSON naming the setting):
    nginx's limit is the cap plus the form slack, and a little more — not far more."""
    from django.conf import settings

    from gridportal.uploads import FORM_SLACK_BYTES

    default = re.fullmatch(
        r"\$\{NGINX_CLIENT_MAX_BODY_SIZE:-(\w+)\}",
        SERVICES["nginx"]["environment"]["NGINX_CLIENT_MAX_BODY_SIZE"],
    ).group(1)
    cap = re.fullmatch(
        r"\$\{GRIDPORTAL_MAX_UPLOAD_BYTES:-(\d+)\}",
        SERVICES["web"]["environment"]["GRIDPORTAL_MAX_UPLOAD_BYTES"],
    ).group(1)
    assert int(cap) == settings.GRIDPORTAL_MAX_UPLOAD_BYTES == 100 * 2**20
    assert int(cap) + FORM_SLACK_BYTES < to_bytes(default) <= int(cap) + 8 * 2**20


@pytest.fixture
def nginx_conf(tmp_path):
    need_nginx()
    tmp_path.chmod(0o755)
    (tmp_path / "static").mkdir()
    port = slow_clients.free_port()
    return slow_clients.nginx_config(
        tmp_path, upstream="127.0.0.1:9", port=port, static_root=tmp_path / "static"
    ), port


def test_nginx_accepts_the_config(nginx_conf):
    conf, _ = nginx_conf
    done = subprocess.run(
        [slow_clients.nginx_binary(), "-t", "-c", str(conf)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr
    text = (conf.parent / "default.conf").read_text()
    assert "${" not in text  # every template name filled in
    for directive in ("client_header_timeout 10s;", "client_body_timeout 20s;",
                      "proxy_request_buffering on;", "client_max_body_size 102m;"):  # fmt: skip
        assert directive in text


def test_nginx_refuses_a_broken_config(nginx_conf):
    """The check above can fail: the same file with an unknown directive is refused."""
    conf, _ = nginx_conf
    server = conf.parent / "default.conf"
    server.write_text(
        server.read_text().replace("proxy_request_buffering on;", "proxy_buffering_x on;")
    )
    done = subprocess.run(
        [slow_clients.nginx_binary(), "-t", "-c", str(conf)], capture_output=True, text=True
    )
    assert done.returncode != 0 and "proxy_buffering_x" in done.stderr


def test_nginx_serves_static_files_and_answers_a_huge_upload_itself(nginx_conf):
    conf, port = nginx_conf
    (conf.parent / "static" / "probe.css").write_text("body {}")
    proc = slow_clients.start_nginx(conf, port)
    try:
        import http.client

        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/static/probe.css")
        r = c.getresponse()
        assert (r.status, r.read()) == (200, b"body {}")
        assert r.getheader("X-Content-Type-Options") == "nosniff"
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.putrequest("POST", "/api/traces/")
        c.putheader("Content-Length", str(200 * 2**20))
        c.endheaders()
        r = c.getresponse()
        assert r.status == 413 and b"GRIDPORTAL_MAX_UPLOAD_BYTES" in r.read()
    finally:
        slow_clients.stop(proc)


def test_slow_clients_do_not_starve_normal_requests_behind_nginx():
    """10 slowloris connections, 9 normal requests: all 9 answered within 10 s behind nginx.
    gunicorn alone is measured too and reported (how many it answers depends on which worker
    the slow connections landed on; the probe saw 6 of 9, bench/slow_clients.py 4 of 9)."""
    need_nginx()
    figures = slow_clients.run(slow=10, normal=9, deadline=10.0, lifetime=True)
    print(f"slowloris figures: {figures}")
    assert figures["behind_nginx"]["answered"] == 9, figures
    # the slow connections were held open while the normal requests ran, then closed by nginx
    assert figures["behind_nginx"]["slow_still_open"] == 10, figures
    assert all(8 <= s <= 15 for s in figures["nginx_closes_slow_headers_after_s"]), figures
