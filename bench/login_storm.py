"""Benchmark: what wrong-login storms and sign-up floods do to a real portal, before
and after the abuse defences.

    .venv/bin/python bench/login_storm.py [--before ../other-checkout] [--after .] [--storm 16]
        [--seconds 20] [--signup-seconds 60] [--workers 3] [--threads 4]

For each code tree (``--before``: a checkout without the defences; ``--after``: this one) a fresh
PostgreSQL database is migrated and a real gunicorn (``--workers`` × ``--threads``, as in
docker-compose.yml) serves the tree, with ``GRIDPORTAL_NUM_PROXIES=1`` so that requests can
carry the client address a proxy would add (``X-Forwarded-For``; the tree before ignores it).
Then, printed as figures (nothing is asserted; the machine may be shared — its load is shown):

* **cheap request** — the latency of ``GET /login/`` when idle, then while ``--storm``
  threads post wrong passwords to ``/login/`` for ``--seconds``: (a) all from one client, at
  one account; (b) each from a different client address and name (no lockout can engage:
  only the hashing bound and the throttles stand);
* **attempts until lockout** — wrong passwords one after the other on the web form, the admin
  form and ``/api/auth/token/`` (each path from its own address, at its own account), counted
  until the answer is 429 (at most 60); then whether the right password is accepted;
* **sign-ups per minute from one client** — sign-up posts one after the other for
  ``--signup-seconds``, counting accounts created.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from bench._ports import free_port  # noqa: E402

PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
#: Throttle counters shared by the gunicorn workers, as docker-compose.yml sets CACHE_URL
#: (without it each worker counts on its own: 3 workers let 3 x the rate through).
CACHE = os.environ.get("BENCH_CACHE_URL", "redis://127.0.0.1:6379/7")
#: This run's client addresses (10.N.x.y): counters left in the cache by an earlier run
#: (throttles last up to an hour) are not met again.
NET = random.Random().randrange(1, 200)
RIGHT = "Bench-Right-Pass-2931"


def create_db(name: str) -> str:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{PG}/{name}"


def drop_db(name: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Portal:
    """A migrated database, users, and gunicorn serving ``tree``."""

    def __init__(self, tree: Path, tag: str, workers: int, threads: int):
        self.tree, self.tag = tree, tag
        self.db_name = f"bench_login_{tag}_{uuid.uuid4().hex[:6]}"
        self.var = tempfile.mkdtemp(prefix=f"bench-login-{tag}-")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DATABASE_URL": create_db(self.db_name),
            "GRIDPORTAL_VAR_DIR": self.var,
            "MEDIA_ROOT": f"{self.var}/media",
            "STATIC_ROOT": f"{self.var}/static",
            "CELERY_BROKER_URL": "filesystem://",
            "GRIDPORTAL_NUM_PROXIES": "1",
            "CACHE_URL": CACHE,
            "GRIDPORTAL_SIGNUP": "on",
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "ERROR",
            "PYTHONPATH": str(tree),
        }
        py = sys.executable
        subprocess.run(
            [py, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=tree,
            env=self.env,
            check=True,
        )
        make_users = (
            "from django.contrib.auth import get_user_model as g; U = g();"
            f"[U.objects.create_user(n, password='{RIGHT}') for n in "
            "('victim', 'web-user', 'token-user')];"
            f"U.objects.create_user('admin-user', password='{RIGHT}', is_staff=True)"
        )
        subprocess.run(
            [py, "manage.py", "shell", "-c", make_users], cwd=tree, env=self.env, check=True
        )
        self.log = open(f"{self.var}/gunicorn.log", "w")  # noqa: SIM115 (closed in close())
        self.proc = subprocess.Popen(
            [
                py, "-m", "gunicorn", "gridportal.wsgi",
                "--bind", f"127.0.0.1:{self.port}",
                "--workers", str(workers), "--threads", str(threads),
                "--timeout", "120", "--log-level", "error",
            ],
            cwd=tree,
            env=self.env,
            stdout=self.log,
            stderr=self.log,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.url}/login/", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"{tag}: gunicorn did not answer (see {self.var}/gunicorn.log)")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        drop_db(self.db_name)


def form_session(url: str, path: str, ip: str) -> tuple[requests.Session, str]:
    s = requests.Session()
    s.headers["X-Forwarded-For"] = ip
    s.get(f"{url}{path}", timeout=60)
    return s, s.cookies.get("csrftoken", "")


def post_form(url, path, data, ip, session=None):
    s, csrf = session or form_session(url, path, ip)
    s.headers["X-Forwarded-For"] = ip
    return s.post(
        f"{url}{path}",
        data={**data, "csrfmiddlewaretoken": csrf},
        headers={"Referer": f"{url}{path}"},
        allow_redirects=False,
        timeout=120,
    )


def cheap_latency(url: str, stop: threading.Event, out: list[float]) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            xff = {"X-Forwarded-For": f"10.{NET}.250.1"}
            requests.get(f"{url}/login/", timeout=120, headers=xff)
        except requests.RequestException:
            pass
        out.append(time.perf_counter() - t0)
        stop.wait(0.25)


def storm(url: str, n: int, seconds: float, distributed: bool) -> dict:
    stop = threading.Event()
    codes: dict[int, int] = {}
    lock = threading.Lock()

    def attacker(k: int) -> None:
        i = 0
        one = f"10.{NET}.200.1"
        session = form_session(url, "/login/", one)  # this thread's cookie and token
        while not stop.is_set():
            i += 1
            ip = f"10.{NET}.{k * 12 + i // 250 % 12}.{i % 250 + 1}" if distributed else one
            name = f"nobody-{k}-{i}" if distributed else "victim"
            try:
                r = post_form(
                    url, "/login/", {"username": name, "password": f"wrong-{i}"}, ip, session
                )
                code = r.status_code
            except requests.RequestException:
                code = -1
            with lock:
                codes[code] = codes.get(code, 0) + 1

    lat: list[float] = []
    idle: list[float] = []
    for _ in range(12):
        t0 = time.perf_counter()
        requests.get(f"{url}/login/", timeout=60)
        idle.append(time.perf_counter() - t0)
    threads = [threading.Thread(target=attacker, args=(k,), daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # let the storm build
    probe = threading.Thread(target=cheap_latency, args=(url, stop, lat), daemon=True)
    probe.start()
    time.sleep(seconds)
    stop.set()
    probe.join(150)
    for t in threads:
        t.join(150)
    return {"idle": idle, "lat": lat, "codes": codes}


def until_lockout(url: str, path: str, user: str, ip: str) -> tuple[int | None, int]:
    """Wrong attempts until a 429 (None: none within 60), then the right password's status."""
    n = None
    for i in range(1, 61):
        if path == "/api/auth/token/":
            r = requests.post(
                f"{url}{path}",
                data={"username": user, "password": f"wrong-{i}"},
                headers={"X-Forwarded-For": ip},
                timeout=120,
            )
        else:
            r = post_form(url, path, {"username": user, "password": f"wrong-{i}"}, ip)
        if r.status_code == 429:
            n = i
            break
    if path == "/api/auth/token/":
        right = requests.post(
            f"{url}{path}",
            data={"username": user, "password": RIGHT},
            headers={"X-Forwarded-For": ip},
            timeout=120,
        ).status_code
    else:
        right = post_form(url, path, {"username": user, "password": RIGHT}, ip).status_code
    return n, right


def signups(url: str, seconds: float) -> tuple[int, int, dict]:
    ip = f"10.{NET}.230.1"
    created = attempts = 0
    codes: dict[int, int] = {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        attempts += 1
        name = f"flood{uuid.uuid4().hex[:10]}"
        pw = f"Flood-{uuid.uuid4().hex[:12]}"
        r = post_form(url, "/signup/", {"username": name, "password1": pw, "password2": pw}, ip)
        codes[r.status_code] = codes.get(r.status_code, 0) + 1
        if r.status_code == 302:
            created += 1
    return created, attempts, codes


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def show_latency(label: str, res: dict) -> None:
    lat, idle = res["lat"], res["idle"]
    print(
        f"  {label}: cheap GET /login/ idle median {statistics.median(idle):.3f} s; "
        f"during storm median {statistics.median(lat):.3f} s, p95 {pct(lat, 0.95):.3f} s, "
        f"max {max(lat):.3f} s (n={len(lat)}); storm answers {dict(sorted(res['codes'].items()))}"
    )


def run(tree: Path, tag: str, args) -> None:
    rev = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(f"\n== {tag}: {tree} ({rev})")
    print(f"   load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    portal = Portal(tree, tag, args.workers, args.threads)
    try:
        show_latency(
            f"(a) {args.storm} wrong logins at once, one client",
            storm(portal.url, args.storm, args.seconds, distributed=False),
        )
        show_latency(
            f"(b) {args.storm} wrong logins at once, every one another client and name",
            storm(portal.url, args.storm, args.seconds, distributed=True),
        )
        for path, user, ip in (
            ("/login/", "web-user", f"10.{NET}.240.1"),
            ("/admin/login/", "admin-user", f"10.{NET}.240.2"),
            ("/api/auth/token/", "token-user", f"10.{NET}.240.3"),
        ):
            n, right = until_lockout(portal.url, path, user, ip)
            locked = f"locked after {n} wrong attempts" if n else "no lockout in 60 attempts"
            print(f"  {path}: {locked}; then the right password -> {right}")
        created, attempts, codes = signups(portal.url, args.signup_seconds)
        per_min = created * 60 / args.signup_seconds
        print(
            f"  sign-ups from one client in {args.signup_seconds:.0f} s: {created} accounts "
            f"({per_min:.0f}/min) of {attempts} attempts; answers {dict(sorted(codes.items()))}"
        )
    finally:
        portal.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, default=ROOT.parent / "main")
    ap.add_argument("--after", type=Path, default=ROOT)
    ap.add_argument("--storm", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--signup-seconds", type=float, default=60)
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--only", choices=("before", "after"))
    args = ap.parse_args()
    for tag, tree in (("before", args.before), ("after", args.after)):
        if args.only and tag != args.only:
            continue
        if not (tree / "manage.py").exists():
            print(f"== {tag}: {tree} has no manage.py; skipped")
            continue
        run(tree.resolve(), tag, args)


if __name__ == "__main__":
    main()
