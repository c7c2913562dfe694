"""A private stack for fault tests: PostgreSQL, Redis, a gunicorn web process and Celery
workers, all started by the tests on free ports under a temporary directory.

Other people run the suite on this machine against the shared PostgreSQL (5432) and Redis
(6379); fault tests stop and restart services, so they never touch those. The pytest process
itself uses no database here: it talks to the private web process over HTTP, exactly as a
user's script would, and reads what the workers did from their logs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench._ports import free_port
from tests.conftest import ROOT, require, wait_for

from .figures import record_figure  # noqa: F401 (re-exported for the tests)

PG_BIN = Path("/usr/lib/postgresql/15/bin")
PY = sys.executable


def answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def _as_postgres(cmd: list[str]) -> list[str]:
    """initdb refuses to run as root: run the PostgreSQL tools as the ``postgres`` user."""
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


@dataclass
class PrivateRedis:
    dir: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None
    #: Another address to listen on besides 127.0.0.1 (a second "host" reaches it there).
    also_listen: str = ""

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def url_at(self, host: str) -> str:
        return f"redis://{host}:{self.port}/0"

    def start(self) -> None:
        if self.proc and self.proc.poll() is None:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        if self.also_listen:  # no password here: other hosts are trusted, as on a private LAN
            cmd[4:5] = ["127.0.0.1", self.also_listen, "--protected-mode", "no"]
        cmd += ["--appendonly", "no", "--dir", str(self.dir)]
        log = open(self.dir / "redis.log", "ab")  # noqa: SIM115 (kept open by the child)
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        wait_for(lambda: answers(self.port), 20, 0.05, f"private Redis on {self.port}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        wait_for(lambda: not answers(self.port), 10, 0.05, "private Redis to stop")


@dataclass
class PrivatePostgres:
    dir: Path
    port: int = field(default_factory=free_port)
    #: Another address to listen on besides 127.0.0.1, and the network (CIDR) whose clients
    #: are trusted there (pg_hba.conf), for workers on a second "host".
    also_listen: str = ""
    trust_net: str = ""

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/reliability"

    def url_at(self, host: str) -> str:
        return f"postgres://postgres@{host}:{self.port}/reliability"

    def _ctl(self, *args: str) -> None:
        data = str(self.dir / "data")
        listen = ",".join(filter(None, ["127.0.0.1", self.also_listen]))
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses={listen} -c fsync=off"
        cmd = [str(PG_BIN / "pg_ctl"), "-D", data, "-o", opts, "-l", str(self.dir / "pg.log")]
        subprocess.run(_as_postgres([*cmd, "-w", "-t", "60", *args]), check=True, timeout=90)

    def init(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        subprocess.run(
            _as_postgres([str(PG_BIN / "initdb"), "-D", str(self.dir / "data"), "-A", "trust"])
            + ["-U", "postgres", "--no-sync"],
            check=True,
            capture_output=True,
            timeout=120,
        )
        if self.trust_net:
            with open(self.dir / "data" / "pg_hba.conf", "a") as hba:
                hba.write(f"host all all {self.trust_net} trust\n")
        self.start()
        subprocess.run(
            [str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"]
            + ["reliability"],
            check=True,
            timeout=30,
        )

    def start(self) -> None:
        if not answers(self.port):
            self._ctl("start")

    def stop(self) -> None:
        self._ctl("-m", "fast", "stop")

    def restart(self) -> None:
        """A fast restart: every open connection is terminated, as when a server restarts."""
        self._ctl("-m", "fast", "restart")


class Api:
    """The portal's REST API over HTTP, with a token (stdlib only)."""

    def __init__(self, base: str, token: str):
        self.base, self.token = base, token

    def request(self, method: str, path: str, body=None, *, timeout: float = 60):
        headers = {"Authorization": f"Token {self.token}"}
        data = None
        if isinstance(body, dict):
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        elif isinstance(body, tuple):  # (content type, bytes): a multipart form
            headers["Content-Type"], data = body
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                return exc.code, json.loads(raw)
            except ValueError:
                return exc.code, raw.decode(errors="replace")

    def get(self, path: str):
        return self.request("GET", path)

    def post(self, path: str, body):
        return self.request("POST", path, body)

    def upload_trace(self, filename: str, content: bytes) -> int:
        boundary = uuid.uuid4().hex
        parts = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
            ).encode()
            + content
            + f"\r\n--{boundary}--\r\n".encode()
        )
        status, body = self.post(
            "/api/traces/", (f"multipart/form-data; boundary={boundary}", parts)
        )
        assert status == 201, body
        return body["id"]

    def experiment(self, exp_id: int) -> dict:
        status, body = self.get(f"/api/experiments/{exp_id}/")
        assert status == 200, body
        return body

    def wait_status(self, exp_id: int, statuses, timeout: float, what: str = "") -> dict:
        return wait_for(
            lambda: (b := self.experiment(exp_id))["status"] in statuses and b,
            timeout=timeout,
            interval=0.2,
            what=what or f"run {exp_id} to reach {statuses}",
        )


class Stack:
    """PostgreSQL + Redis + web process + workers; ``env`` is what every process gets."""

    def __init__(self, root: Path):
        self.root = root
        self.pg = PrivatePostgres(root / "pg")
        self.redis = PrivateRedis(root / "redis")
        self.queue = f"reliability-{uuid.uuid4().hex[:8]}"
        self.executions = root / "executions.log"
        self.web: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.web_port = free_port()
        self.env = dict(
            os.environ,
            DATABASE_URL=self.pg.url,
            CELERY_BROKER_URL=self.redis.url,
            GRIDPORTAL_QUEUE=self.queue,
            GRIDPORTAL_VAR_DIR=str(root / "var"),
            MEDIA_ROOT=str(root / "media"),
            DJANGO_SETTINGS_MODULE="gridportal.settings",
            RELIABILITY_EXECUTIONS=str(self.executions),
            PYTHONUNBUFFERED="1",
            # Limits small enough for hostile work to hit them in seconds, large enough for
            # the ordinary runs of these tests (the long CTC run needs ~0.3 GiB).
            GRIDPORTAL_RUN_MEMORY_MB="1024",
            GRIDPORTAL_RUN_TIME_LIMIT="90",
            GRIDPORTAL_WEB_MEMORY_MB="512",
            GRIDPORTAL_WEB_TIME_LIMIT="10",
            GRIDPORTAL_UPLOAD_MEMORY_MB="1024",
            GRIDPORTAL_UPLOAD_TIME_LIMIT="30",
            # Room for every run these tests publish at once (the broker-restart test counts
            # 11 lost messages); fair dispatch past the limit has its own tests
            # (tests/integration/test_fair_dispatch.py).
            GRIDPORTAL_USER_MAX_RUNNING="16",
        )
        self.api: Api | None = None

    def manage(self, *args: str, timeout: float = 180) -> str:
        out = subprocess.run(
            [PY, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    def up(self) -> None:
        self.pg.init()
        self.redis.start()
        self.manage("migrate", "--noinput")
        token = self.manage(
            "shell",
            "-c",
            "from django.contrib.auth import get_user_model\n"
            "from rest_framework.authtoken.models import Token\n"
            "u = get_user_model().objects.create_user('reliable', password='pw-Secret-123')\n"
            "print(Token.objects.create(user=u).key)",
        ).split()[-1]  # Django 5.2's shell may print a note before it
        log = open(self.root / "web.log", "ab")  # noqa: SIM115
        self.web = subprocess.Popen(
            [PY, "-m", "gunicorn", "gridportal.wsgi", "--bind", f"127.0.0.1:{self.web_port}"]
            + ["--workers", "2", "--threads", "4", "--timeout", "120"],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        wait_for(lambda: answers(self.web_port), 60, 0.1, "the private web process")
        self.api = Api(f"http://127.0.0.1:{self.web_port}", token)

    def add_user(self, username: str, *, staff: bool = False) -> Api:
        """Another user of the portal, with a token; returns their API client."""
        token = self.manage(
            "shell",
            "-c",
            "from django.contrib.auth import get_user_model\n"
            "from rest_framework.authtoken.models import Token\n"
            f"u = get_user_model().objects.create_user({username!r}, password='pw-Secret-123',"
            f" is_staff={staff!r})\n"
            "print(Token.objects.create(user=u).key)",
        ).split()[-1]
        return Api(f"http://127.0.0.1:{self.web_port}", token)

    def start_worker(self, concurrency: int = 1) -> subprocess.Popen:
        """A ``celery worker`` in a session of its own (so that the whole worker, pool
        children included, can be killed at once). Returns when it is ready."""
        n = len(self.workers)
        log_path = self.root / f"worker-{n}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [PY, "-m", "celery", "-A", "tests.reliability.worker_app", "worker"]
                + ["--loglevel", "INFO", "--concurrency", str(concurrency), "-Q", self.queue]
                + ["--without-mingle", "--without-gossip"]
                + ["--hostname", f"{self.queue}-{n}@%h"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.workers.append(proc)
        wait_for(lambda: b" ready." in log_path.read_bytes(), 90, 0.2, f"worker {n} ready")
        return proc

    def kill_worker(self, proc: subprocess.Popen) -> None:
        """SIGKILL the whole worker: main process and pool children (a machine that dies)."""
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def stop_workers(self) -> None:
        for proc in self.workers:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.workers:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.workers.clear()

    def sweep(self) -> dict[str, int]:
        """One pass of ``manage.py sweep_runs`` as the README says to run it; no grace period
        here, the test knows the worker is gone."""
        out = self.manage("sweep_runs", "--grace", "0", "--inspect-timeout", "2", timeout=60)
        return {k: int(v) for k, v in (kv.split("=") for kv in out.split())}

    def executions_of(self, exp_id: int) -> dict[str, int]:
        """How many times a worker received the run's task, and started its engine run."""
        counts = {"delivered": 0, "started": 0}
        if self.executions.exists():
            for line in self.executions.read_text().splitlines():
                _, event, ident = line.split()
                if int(ident) == exp_id:
                    counts[event] += 1
        return counts

    def started_pid(self, exp_id: int) -> int:
        """The pool process that last started the run's engine."""
        pids = [
            int(pid)
            for pid, event, ident in (x.split() for x in self.executions.read_text().splitlines())
            if event == "started" and int(ident) == exp_id
        ]
        return pids[-1]

    def down(self) -> None:
        self.stop_workers()
        if self.web and self.web.poll() is None:
            self.web.terminate()
            self.web.wait(20)
        self.redis.stop()
        try:
            self.pg.stop()
        except subprocess.CalledProcessError:
            pass


def _tools_present() -> bool:
    return bool(shutil.which("redis-server")) and (PG_BIN / "initdb").exists()


@pytest.fixture(scope="session")
def stack():
    require(_tools_present(), f"reliability tests need redis-server and {PG_BIN}/initdb")
    # Not under pytest's tmp directory: that one is private to root, and PostgreSQL runs as
    # the postgres user (initdb refuses root).
    root = Path(tempfile.mkdtemp(prefix="gridportal-reliability-"))
    root.chmod(0o755)
    s = Stack(root)
    try:
        s.up()
        yield s
    finally:
        s.down()
        for name in ("web.log", *(f"worker-{i}.log" for i in range(8))):
            if (root / name).exists():
                print(f"---- {name} ----\n" + (root / name).read_text(errors="replace")[-3000:])
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def services(stack):
    """The stack with PostgreSQL and Redis answering and no worker left from a previous test."""
    stack.pg.start()
    stack.redis.start()
    yield stack
    stack.stop_workers()


def monotonic() -> float:
    return time.monotonic()
