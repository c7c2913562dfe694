"""Slow clients (slowloris) against gunicorn alone and behind deploy/nginx.

    .venv/bin/python bench/slow_clients.py [--slow 10] [--normal 9] [--deadline 10]

Starts gunicorn with docker-compose.yml's settings (gthread, ``--workers 3 --threads 4``) on a
private SQLite database, then, for each of two set-ups — gunicorn published directly, and
gunicorn behind nginx with the compose file's own template (deploy/nginx/default.conf.template)
— opens ``--slow`` connections that send a request's headers one line every 2 s and never end
them, and fires ``--normal`` ordinary requests (GET /login/) at once: how many are answered
(200) within ``--deadline`` seconds. Also says how long nginx kept the slow connections open
(client_header_timeout). Needs nginx on PATH (``apt-get install nginx-light``). Prints figures;
asserts nothing (tests/deploy/test_nginx.py does, with this module).
"""

from __future__ import annotations

import argparse
import http.client
import os
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from bench._ports import free_port  # noqa: E402

TEMPLATE = ROOT / "deploy" / "nginx" / "default.conf.template"
#: docker-compose.yml's gunicorn (web service)
GUNICORN_ARGS = ["--workers", "3", "--threads", "4", "--timeout", "120"]


def wait_port(port: int, timeout: float = 60.0, proc: subprocess.Popen | None = None) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


# ---- nginx -----------------------------------------------------------------------------------


def render_template(text: str, values: dict[str, str]) -> str:
    """Fill ``${NAME}`` as the official image's envsubst does (only the names given; nginx's own
    ``$variables`` stay)."""
    missing = {m for m in string.Template.pattern.findall(text) if m[2] and m[2] not in values}
    if missing:
        raise KeyError(f"template variables without a value: {sorted(m[2] for m in missing)}")
    return string.Template(text).safe_substitute(values)


def nginx_config(workdir: Path, *, upstream: str, port: int, static_root: Path,
                 max_body: str = "102m") -> Path:  # fmt: skip
    """A main nginx.conf in ``workdir`` around the compose template (as the official image's
    own nginx.conf includes conf.d/*.conf), with pid, logs and temporary files in ``workdir``."""
    server = render_template(
        TEMPLATE.read_text(),
        {
            "GRIDPORTAL_UPSTREAM": upstream,
            "NGINX_PORT": f"127.0.0.1:{port}",
            "NGINX_STATIC_ROOT": str(static_root),
            "NGINX_CLIENT_MAX_BODY_SIZE": max_body,
        },
    )
    (workdir / "default.conf").write_text(server)
    mime = Path("/etc/nginx/mime.types")
    user = "user root;" if os.geteuid() == 0 else ""  # workers read the private temp dir
    temps = "\n".join(
        f"    {kind}_temp_path {workdir / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = workdir / "nginx.conf"
    conf.write_text(
        f"""{user}
worker_processes 1;
daemon off;
pid {workdir / "nginx.pid"};
error_log {workdir / "error.log"} warn;
events {{ worker_connections 1024; }}
http {{
    {"include " + str(mime) + ";" if mime.exists() else ""}
    default_type application/octet-stream;
    access_log {workdir / "access.log"};
{temps}
    include {workdir / "default.conf"};
}}
"""
    )
    return conf


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.path.exists(p)), None
    )


def nginx_check(conf: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [nginx_binary(), "-t", "-c", str(conf)], capture_output=True, text=True, timeout=30
    )


def start_nginx(conf: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([nginx_binary(), "-c", str(conf)], stderr=subprocess.PIPE)
    wait_port(port, 20, proc)
    return proc


# ---- gunicorn ----------------------------------------------------------------------------------


def portal_env(var_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(
        GRIDPORTAL_VAR_DIR=str(var_dir),
        DATABASE_URL=f"sqlite:///{var_dir / 'slow-clients.sqlite3'}",
        STATIC_ROOT=str(var_dir / "static"),
        DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SETTINGS_MODULE="gridportal.settings",
    )
    return env


def prepare_portal(var_dir: Path) -> None:
    """Migrate the private database and collect the static files (as the web service does)."""
    env = portal_env(var_dir)
    for cmd in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
        subprocess.run(
            [sys.executable, "manage.py", *cmd], cwd=ROOT, env=env, check=True,
            stdout=subprocess.DEVNULL,
        )  # fmt: skip


def start_gunicorn(var_dir: Path, port: int) -> subprocess.Popen:
    gunicorn = Path(sys.executable).with_name("gunicorn")
    proc = subprocess.Popen(
        [str(gunicorn), "gridportal.wsgi", "--bind", f"127.0.0.1:{port}", *GUNICORN_ARGS],
        cwd=ROOT,
        env=portal_env(var_dir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    wait_port(port, 60, proc)
    warm_up(port)
    return proc


def warm_up(port: int, limit: float = 180.0) -> None:
    """Until every worker has loaded the portal: each gunicorn worker imports Django on its
    first request (seconds on a busy machine), which is not what is measured here. Rounds of
    12 concurrent requests until a round is answered within 1.5 s."""

    def one(_: int) -> float:
        t = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            conn.request("GET", "/login/", headers={"Host": "localhost"})
            conn.getresponse().read()
        except OSError:
            return float("inf")
        finally:
            conn.close()
        return time.monotonic() - t

    end = time.monotonic() + limit
    while time.monotonic() < end:
        with ThreadPoolExecutor(12) as pool:
            if max(pool.map(one, range(12))) < 1.5:
                return
    raise TimeoutError(f"gunicorn on port {port} still slow after {limit} s of warm-up")


def stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


# ---- the clients ---------------------------------------------------------------------------------


class SlowClients:
    """``n`` connections sending one header line every ``pace`` seconds, never ending them."""

    def __init__(self, port: int, n: int, pace: float = 2.0):
        self.port, self.n, self.pace = port, n, pace
        self.socks: list[socket.socket] = []
        self.closed_after: list[float] = []  # seconds lived, of those the server closed
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> SlowClients:
        self.started = time.monotonic()
        for _ in range(self.n):
            s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            s.sendall(b"GET /login/ HTTP/1.1\r\nHost: localhost\r\n")
            self.socks.append(s)
        self._thread = threading.Thread(target=self._drip, daemon=True)
        self._thread.start()
        time.sleep(0.5)  # let the server hand them to its workers
        return self

    def _drip(self) -> None:
        i = 0
        while not self._stop.wait(self.pace):
            i += 1
            for s in list(self.socks):
                try:
                    s.sendall(f"X-Slow-{i}: {i}\r\n".encode())
                except OSError:  # closed by the server
                    self.closed_after.append(time.monotonic() - self.started)
                    self.socks.remove(s)
                    s.close()

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(5)
        for s in self.socks:
            s.close()


def normal_requests(port: int, n: int, deadline: float) -> int:
    """How many of ``n`` concurrent GET /login/ are answered 200 within ``deadline`` s."""
    start = time.monotonic()

    def one(_: int) -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=deadline)
        try:
            conn.request("GET", "/login/", headers={"Host": "localhost"})
            resp = conn.getresponse()
            resp.read()
            return resp.status == 200 and time.monotonic() - start <= deadline
        except OSError:
            return False
        finally:
            conn.close()

    with ThreadPoolExecutor(n) as pool:
        return sum(pool.map(one, range(n)))


def measure(port: int, slow: int, normal: int, deadline: float) -> dict:
    with SlowClients(port, slow) as clients:
        answered = normal_requests(port, normal, deadline)
        held = len(clients.socks)
    return {"answered": answered, "normal": normal, "slow_still_open": held}


def slow_header_lifetime(port: int, n: int = 3, limit: float = 30.0) -> list[float]:
    """Seconds a slow-header connection lives before the server closes it (``limit`` if not)."""
    with SlowClients(port, n) as clients:
        end = time.monotonic() + limit
        while clients.socks and time.monotonic() < end:
            time.sleep(0.5)
        return sorted(clients.closed_after) + [limit] * len(clients.socks)


def run(slow: int = 10, normal: int = 9, deadline: float = 10.0, lifetime: bool = True) -> dict:
    if not nginx_binary():
        raise RuntimeError("nginx is not installed (apt-get install nginx-light)")
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="gp-slow-") as tmp:
        tmp = Path(tmp)
        os.chmod(tmp, 0o755)
        prepare_portal(tmp)
        g_port, n_port = free_port(), free_port()
        gunicorn = nginx = None
        try:
            gunicorn = start_gunicorn(tmp, g_port)
            figures["direct"] = measure(g_port, slow, normal, deadline)
            stop(gunicorn)  # a fresh server: no thread still held by the first round
            gunicorn = start_gunicorn(tmp, g_port)
            (tmp / "nginx").mkdir()
            conf = nginx_config(
                tmp / "nginx", upstream=f"127.0.0.1:{g_port}", port=n_port,
                static_root=tmp / "static",
            )  # fmt: skip
            nginx = start_nginx(conf, n_port)
            figures["behind_nginx"] = measure(n_port, slow, normal, deadline)
            if lifetime:
                figures["nginx_closes_slow_headers_after_s"] = slow_header_lifetime(n_port)
        finally:
            stop(nginx)
            stop(gunicorn)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slow", type=int, default=10)
    ap.add_argument("--normal", type=int, default=9)
    ap.add_argument("--deadline", type=float, default=10.0)
    a = ap.parse_args()
    f = run(a.slow, a.normal, a.deadline)
    print(f"gunicorn {' '.join(GUNICORN_ARGS)}; {a.slow} slow-header connections open")
    for name in ("direct", "behind_nginx"):
        r = f[name]
        print(
            f"{name:>13}: {r['answered']}/{r['normal']} normal requests answered within "
            f"{a.deadline:g} s ({r['slow_still_open']} slow connections still open)"
        )
    lives = ", ".join(f"{s:.1f}" for s in f["nginx_closes_slow_headers_after_s"])
    print(f"nginx closed slow-header connections after: {lives} s (client_header_timeout 10s)")


if __name__ == "__main__":
    main()
