"""The hostile-user probe as one run against a live stack: gunicorn and a Celery worker on
PostgreSQL and Redis, every class of hostile request sent over HTTP, and per class the figures
the probe looked at.

Classes: oversized and malformed sacct uploads; zip bombs in job-array result uploads;
oversized and unverifiable run bundles; hostile query strings on the pages and the API; a
wrong-login storm; the cancel of a running run.  Per class: requests, server errors (5xx),
requests over 30 s, the 503s of the bound on password hashes at once (``Retry-After``: load
shed by design, counted apart), the web workers' peak RSS (``VmHWM``, reset before each
class through ``/proc/PID/clear_refs``; over 1 GiB is flagged), and trace/run rows added by
refused requests.  At the end: orphan files (``manage.py orphans --min-age 0``), processes left
under gunicorn, and temporary files left by the limited children (the stack's own ``TMPDIR``,
looked at once the stack has stopped).

Its own database (``bench_hostile_live``, dropped and re-created), Redis db 3 unless
``BENCH_REDIS`` says otherwise, a private Celery queue.  Prints figures; asserts nothing.

    .venv/bin/python bench/hostile_live.py [--workers 2] [--threads 2]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
from bench._ports import free_port  # noqa: E402

sys.path[:0] = [str(HERE), str(HERE / "bench")]
from bench_sacct import write_dump  # noqa: E402
from hostile_uploads import big_result  # noqa: E402

PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/3")
DB = "bench_hostile_live"
PASSWORD = "probe-Secret-123"
SLOW_S = 30
GIB_MIB = 1024
HEAD = "JobID|User|Group|Partition|QOS|State|Submit|Start|End|Timelimit|AllocCPUS|ReqMem|JobName"
ROW = "|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:10|2025-01-06T09:00:00|10|1|1G|x"
LONG_PARAMS = {"procs": "128", "submissions": 1, "tasks": 5000, "generations": 10000,
               "population": 1000, "alphas": "0.5"}  # fmt: skip


def _sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(statement)


class Stack:
    """gunicorn and one Celery worker serving this checkout on a fresh database."""

    def __init__(self, workers: int, threads: int) -> None:
        _sql(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        _sql(f'CREATE DATABASE "{DB}"')
        self.var = Path(tempfile.mkdtemp(prefix="hostile-live-"))
        (self.var / "tmp").mkdir()
        self.url = f"http://127.0.0.1:{free_port()}"
        self.env = {
            **os.environ, "DATABASE_URL": f"{PG}/{DB}", "CELERY_BROKER_URL": REDIS,
            "GRIDPORTAL_QUEUE": f"hostile-live-{uuid.uuid4().hex[:6]}",
            "GRIDPORTAL_CACHE_PREFIX": f"hostile-live-{uuid.uuid4().hex[:6]}",
            "GRIDPORTAL_VAR_DIR": str(self.var), "MEDIA_ROOT": str(self.var / "media"),
            "STATIC_ROOT": str(self.var / "static"), "TMPDIR": str(self.var / "tmp"),
            "DEBUG": "0", "ALLOWED_HOSTS": "127.0.0.1,localhost", "LOG_LEVEL": "ERROR",
            "PYTHONPATH": str(HERE),
        }  # fmt: skip
        self.manage("migrate", "--noinput", "-v0")
        self.manage("shell", "-c", "from django.contrib.auth import get_user_model as g; "
                    f"g().objects.create_user('probe', password='{PASSWORD}')")  # fmt: skip
        self.log = open(self.var / "stack.log", "w")  # noqa: SIM115 (closed in close())
        py = sys.executable
        self.worker = subprocess.Popen(
            [py, "-m", "celery", "-A", "gridportal", "worker", "--concurrency", "1",
             "--without-mingle", "--without-gossip", "-Q", self.env["GRIDPORTAL_QUEUE"],
             "--loglevel", "WARNING"],
            cwd=HERE, env=self.env, stdout=self.log, stderr=self.log,
        )  # fmt: skip
        self.web = subprocess.Popen(
            [py, "-m", "gunicorn", "gridportal.wsgi", "--bind", self.url[7:],
             "--workers", str(workers), "--threads", str(threads), "--timeout", "300",
             "--log-level", "error"],
            cwd=HERE, env=self.env, stdout=self.log, stderr=self.log,
        )  # fmt: skip
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.url}/login/", timeout=5).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"gunicorn did not answer (see {self.var}/stack.log)")

    def manage(self, *args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=HERE, env=self.env, check=True,
            capture_output=True, text=True,
        ).stdout  # fmt: skip

    def descendants(self, root: int) -> list[int]:
        """The processes under ``root`` (by /proc's parent ids)."""
        parent = _parents()
        found, frontier = [], [root]
        while frontier:
            kids = [p for p, pp in parent.items() if pp in frontier]
            found += kids
            frontier = kids
        return found

    def web_workers(self) -> list[int]:
        return [p for p, pp in _parents().items() if pp == self.web.pid]

    def reset_peaks(self) -> None:
        for pid in self.web_workers():
            try:
                Path(f"/proc/{pid}/clear_refs").write_text("5")
            except OSError:
                pass

    def peak_mib(self) -> int:
        peak = 0
        for pid in self.web_workers():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) // 1024)
            except OSError:
                pass
        return peak

    def rows(self) -> tuple[int, int]:
        import psycopg

        with psycopg.connect(f"{PG}/{DB}") as conn:
            traces = conn.execute("SELECT count(*) FROM inputs_trace").fetchone()[0]
            runs = conn.execute("SELECT count(*) FROM experiments_experiment").fetchone()[0]
        return traces, runs

    def close(self) -> None:
        for proc in (self.web, self.worker):
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.log.close()
        _sql(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')


def _parents() -> dict[int, int]:
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            out[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


class Probe:
    """Sends one class's requests and keeps its figures."""

    def __init__(self, stack: Stack) -> None:
        self.stack, self.rows = stack, []
        login = {"username": "probe", "password": PASSWORD}
        token = requests.post(f"{stack.url}/api/auth/token/", data=login, timeout=60)
        self.auth = {"Authorization": f"Token {token.json()['token']}"}
        self.current: dict = {}

    def call(self, method: str, path: str, *, auth: bool = True, **kw) -> requests.Response | None:
        kw.setdefault("timeout", 300)
        headers = {**(self.auth if auth else {}), **kw.pop("headers", {})}
        t0 = time.perf_counter()
        try:
            resp = requests.request(method, self.stack.url + path, headers=headers, **kw)
        except requests.RequestException as exc:
            self.current["no_answer"] += 1
            self.current["notes"].append(f"{path[:40]}: {type(exc).__name__}")
            return None
        took = time.perf_counter() - t0
        c = self.current
        c["requests"] += 1
        c["slowest_s"] = max(c["slowest_s"], took)
        c["over_30s"] += took > SLOW_S
        if resp.status_code == 503 and "Retry-After" in resp.headers:
            c["503_busy"] += 1  # the bound on password hashes at once: shed, "try again"
        elif resp.status_code >= 500:
            c["5xx"] += 1
            c["notes"].append(f"{method} {path[:50]}: {resp.status_code}")
        c["codes"][resp.status_code] = c["codes"].get(resp.status_code, 0) + 1
        return resp

    def run(self, name: str, send: Callable[[Probe], None], refused_only: bool = True) -> None:
        self.stack.reset_peaks()
        before = self.stack.rows()
        self.current = {"class": name, "requests": 0, "5xx": 0, "over_30s": 0, "no_answer": 0,
                        "503_busy": 0, "slowest_s": 0.0, "codes": {}, "notes": []}  # fmt: skip
        t0 = time.perf_counter()
        send(self)
        c = self.current
        c["wall_s"] = round(time.perf_counter() - t0, 1)
        c["slowest_s"] = round(c["slowest_s"], 1)
        c["peak_rss_mib"] = self.stack.peak_mib()
        after = self.stack.rows()
        c["rows_added"] = (after[0] - before[0], after[1] - before[1]) if refused_only else "-"
        self.rows.append(c)
        print(json.dumps(c), flush=True)


# --- the classes ----------------------------------------------------------------------------


def sacct_oversized(p: Probe) -> None:
    """A 10⁶-row dump (gzipped; a large sacct file goes to a worker: 202, then a trace or a
    refusal under a run's limits) and an upload over the 100 MiB limit."""
    work = p.stack.var
    write_dump(work / "dump.sacct", 1_000_000)
    with open(work / "dump.sacct", "rb") as src, gzip.open(work / "dump.sacct.gz", "wb", 6) as gz:
        gz.writelines(src)
    (work / "dump.sacct").unlink()
    with open(work / "dump.sacct.gz", "rb") as fh:
        r = p.call("POST", "/api/traces/", files={"file": ("jobs.sacct.gz", fh)},
                   data={"name": "million"})  # fmt: skip
    if r is not None:
        p.current["notes"].append(f"10^6 rows gz: {r.status_code} {r.text[:140]}")
    if r is not None and r.status_code == 202:  # converted by the worker: wait for the trace
        asked = time.monotonic()
        while time.monotonic() - asked < 900:
            pending = p.call("GET", "/api/traces/imports/").json()
            if not pending or pending[0]["status"] != "converting":
                break
            time.sleep(2)
        traces = p.call("GET", "/api/traces/?search=million").json()
        traces = traces["results"] if isinstance(traces, dict) else traces
        outcome = (f"a trace of {traces[0]['job_count']:,} jobs" if traces
                   else f"refused: {pending[0]['error'][:140] if pending else '?'}")  # fmt: skip
        p.current["notes"].append(f"worker: {outcome} {time.monotonic() - asked:.0f} s after")
    over = (HEAD + "\n" + (f"1{ROW}\n" * (101 * 2**20 // (len(ROW) + 2)))).encode()
    r = p.call("POST", "/api/traces/", files={"file": ("big.sacct", over)})
    if r is not None:
        p.current["notes"].append(f"101 MiB: {r.status_code}")


def sacct_malformed(p: Probe) -> None:
    bodies = {
        "rule-spans": "JobID State Submit Start End\n" + "--- " * 200_000 + "\n" + "x\n" * 1000,
        "cut-off": f"{HEAD}\n1{ROW}\n2|u|g|p\n3{ROW}\n",
        "nul-user": f"{HEAD}\n1|u\x00|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:10|"
                    "2025-01-06T09:00:00|10|1|1G|x\n",
        "long-line": f"{HEAD}\n1{ROW}{'y' * 300_000}\n",
        "wide-header": "|".join(f"F{k}" for k in range(20_000)) + "\n1|2\n",
        "garbage": HEAD + "\n" + "".join(chr(random.Random(k).randrange(1, 0xD7FF))
                                         for k in range(50_000)) + "\n",
    }  # fmt: skip
    for name, body in bodies.items():
        r = p.call("POST", "/api/traces/", files={"file": (f"{name}.sacct", body.encode())})
        if r is not None and r.status_code != 400:
            p.current["notes"].append(f"{name}: {r.status_code}")


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, body in files.items():
            zf.writestr(name, body)
    return buf.getvalue()


def _small_trace(p: Probe) -> int:
    from scheduler.traces.lublin import generate_lublin99
    from scheduler.traces.swf import write_swf

    text = io.StringIO()
    write_swf(generate_lublin99(jobs=60, procs=64, seed=3), text)
    r = p.call("POST", "/api/traces/", files={"file": ("t.swf", text.getvalue().encode())},
               data={"name": "small"})  # fmt: skip
    return r.json()["id"]


def jobarray_zips(p: Probe) -> None:
    trace = _small_trace(p)
    r = p.call("POST", "/api/sweeps/", json={
        "kind": "trace-stats", "params": {}, "traces": [trace], "executor": "slurm",
        "vary": [{"param": "cdf_points", "values": [10, 20]}]})  # fmt: skip
    sweep = r.json()["id"]
    listed = p.call("GET", f"/api/experiments/?sweep={sweep}").json()
    runs = sorted(e["id"] for e in (listed["results"] if isinstance(listed, dict) else listed))
    runs = runs[:2] or [1, 2]
    zips = {
        "2x20MB results": _zip({f"results/{k}.json": big_result("trace-stats", {}, 0, 20)
                                for k in runs}),
        "1 GiB member": _zip({f"results/{runs[0]}.json": b"0" * 2**30}),
        "nested zip": _zip({"inner.zip": _zip({f"results/{runs[0]}.json": b" " * 2**28})}),
        "10k members": _zip({f"results/x{k}.json": b"{}" for k in range(10_000)}),
    }  # fmt: skip
    for name, body in zips.items():
        r = p.call("POST", f"/api/sweeps/{sweep}/upload-results/",
                   files={"file": (f"{name}.zip", body)})  # fmt: skip
        if r is not None:
            p.current["notes"].append(f"{name} ({len(body):,} B): {r.status_code}")


def bundles(p: Probe) -> None:
    trace = _small_trace(p)
    exp = p.call("POST", "/api/experiments/", json={"kind": "trace-stats", "params": {},
                                                     "traces": [trace]}).json()["id"]  # fmt: skip
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if p.call("GET", f"/api/experiments/{exp}/").json()["status"] == "succeeded":
            break
        time.sleep(1)
    real = p.call("GET", f"/api/experiments/{exp}/bundle/").content
    files = {n: zipfile.ZipFile(io.BytesIO(real)).read(n)
             for n in zipfile.ZipFile(io.BytesIO(real)).namelist()}  # fmt: skip
    run = json.loads(files["run.json"])
    big = {**files, "result/result.json": big_result(run["kind"], run["params"], run["seed"], 60,
                                                     ones=0.04)}  # fmt: skip
    cases = {
        "60 MB result": _zip(big),
        "300 MB run.json": _zip({"run.json": b"0" * (300 * 2**20)}),
        "no crate": _zip({k: v for k, v in files.items() if k != "ro-crate-metadata.json"}),
        "over 100 MiB": os.urandom(101 * 2**20),
    }
    for name, body in cases.items():
        r = p.call("POST", "/api/experiments/import-bundle/",
                   files={"file": (f"{name}.zip", body)})  # fmt: skip
        if r is not None:
            p.current["notes"].append(f"{name}: {r.status_code}")


def query_strings(p: Probe) -> None:
    long = "x" * 8000
    paths = [
        "/api/traces/?page=1000000000000000000000", "/api/traces/?page=-1",
        "/api/experiments/?ordering=%00", "/api/experiments/?status=%ff%fe",
        f"/api/experiments/?kind={long}", "/api/experiments/?sweep=1e309",
        "/api/traces/99999999999999999999999/", "/api/experiments/-1/result/csv/",
        "/traces/?page=99999999999999", f"/experiments/?q={long}",
        "/compare/?" + "&".join(f"run={k}" for k in range(500)), "/compare/?run=%00",
        "/api/kinds/%2e%2e%2f%2e%2e%2fetc%2fpasswd/", "/api/experiments/?limit=999999999",
        "/api/sweeps/?page=0", "/reproductions/?preset=" + "%C0%AF" * 200,
        "/api/experiments/?" + "&".join(f"p{k}=v" for k in range(2000)),
    ]  # fmt: skip
    for path in paths:
        p.call("GET", path)
        p.call("GET", path, auth=False)


def login_storm(p: Probe) -> None:
    def storm(k: int) -> None:
        for n in range(25):
            name = "probe" if n % 2 else f"probe{k}"
            p.call("POST", "/api/auth/token/", auth=False,
                   data={"username": name, "password": f"wrong{n}"})  # fmt: skip

    threads = [threading.Thread(target=storm, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def cancel_running(p: Probe) -> None:
    trace = _small_trace(p)
    exp = p.call("POST", "/api/experiments/", json={"kind": "provisioning",
                 "params": LONG_PARAMS, "traces": [trace]}).json()["id"]  # fmt: skip
    t0 = time.monotonic()
    while time.monotonic() - t0 < 120:
        if p.call("GET", f"/api/experiments/{exp}/").json()["status"] == "running":
            break
        time.sleep(0.5)
    time.sleep(3)  # computing
    asked = time.monotonic()
    p.call("POST", f"/api/experiments/{exp}/cancel/")
    status = "?"
    while time.monotonic() - asked < 120:
        status = p.call("GET", f"/api/experiments/{exp}/").json()["status"]
        if status not in ("running", "queued"):
            break
        time.sleep(0.5)
    p.current["notes"].append(f"cancel: {status} {time.monotonic() - asked:.1f} s after asking")


CLASSES = [
    ("sacct oversized", sacct_oversized, True),
    ("sacct malformed", sacct_malformed, True),
    ("job-array zips", jobarray_zips, False),
    ("bundles", bundles, False),
    ("query strings", query_strings, True),
    ("login storm", login_storm, True),
    ("cancel running", cancel_running, False),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    started = time.perf_counter()
    stack = Stack(args.workers, args.threads)
    try:
        probe = Probe(stack)
        for name, send, refused_only in CLASSES:
            probe.run(name, send, refused_only)
        time.sleep(5)  # limited children of the last requests exit
        orphans = stack.manage("orphans", "--min-age", "0").strip()
        procs_left = [pid for pid in stack.descendants(stack.web.pid)
                      if pid not in stack.web_workers()]  # fmt: skip
    finally:
        stack.close()
    # after the stack stopped: what a process that exits cleanly leaves (its pymp-* folder
    # goes with it) and what a killed limited child left
    temp_left = sorted(str(p.relative_to(stack.var)) for p in (stack.var / "tmp").rglob("*"))
    shutil.rmtree(stack.var, ignore_errors=True)
    print()
    print(f"{'class':<16} {'requests':>8} {'5xx':>4} {'503 busy':>8} {'>30 s':>5} "
          f"{'slowest s':>9} {'web peak MiB':>12} {'>1 GiB':>6} {'rows added':>10}  "
          "notes")  # fmt: skip
    for c in probe.rows:
        print(f"{c['class']:<16} {c['requests']:>8} {c['5xx']:>4} {c['503_busy']:>8} "
              f"{c['over_30s']:>5} "
              f"{c['slowest_s']:>9} {c['peak_rss_mib']:>12} "
              f"{'yes' if c['peak_rss_mib'] > GIB_MIB else 'no':>6} {str(c['rows_added']):>10}  "
              f"{'; '.join(c['notes'])[:300]}")  # fmt: skip
    print()
    print(f"orphan files (manage.py orphans --min-age 0): {orphans}")
    print(f"temporary files left by the limited children: {len(temp_left)} {temp_left[:5]}")
    print(f"processes left under gunicorn besides its workers: {len(procs_left)}")
    print(f"run time: {time.perf_counter() - started:.0f} s; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
