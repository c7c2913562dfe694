"""Celery workers on two hosts: the second "host" is a Linux network namespace.

README, "Scaling out": a worker on another machine needs only the same ``DATABASE_URL``,
``CELERY_BROKER_URL`` and a shared ``MEDIA_ROOT``. This test builds a second host the kernel
keeps apart from this one: a network namespace joined to it by a veth pair on a random
10.x.y.0/24. Inside it, 127.0.0.1 is the namespace's own loopback, so its worker reaches
PostgreSQL and Redis only over the veth (10.x.y.1, where the private services also listen and
where pg_hba.conf trusts the subnet). The media directory is shared as NFS would share it.

One worker runs on this host, one inside the namespace (``--hostname w2@host2``); a sweep of
ten runs goes in through the private web process's REST API. Asserted: every run succeeded and
its engine started exactly once, both workers ran some of them (the per-worker execution
records of ``worker_app`` and the workers' own "Task … succeeded" log lines agree), and every
result equals the in-process engine's on the same trace, parameters and seed.

Needs root and ``ip netns`` (iproute2): skipped with the reason otherwise, failed under CI.
"""

from __future__ import annotations

import ipaddress
import os
import random
import re
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from scheduler.experiments import run_experiment
from scheduler.io import load_trace
from tests.conftest import ROOT, make_swf_bytes, require, wait_for

from .conftest import PY, Stack, _tools_present, monotonic, record_figure

pytestmark = pytest.mark.integration

RUNS = 10
SUCCEEDED = re.compile(rb"Task gridportal\.experiments\.run\[[0-9a-f-]+\] succeeded")


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check, timeout=30)


def _netns_usable() -> tuple[bool, str]:
    if not shutil.which("ip"):
        return False, "the `ip` command (iproute2) is not installed"
    if os.geteuid() != 0:
        return False, "creating a network namespace needs root"
    probe = f"gp-probe-{uuid.uuid4().hex[:6]}"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return False, f"`ip netns add` fails here: {made.stderr.strip()}"
    _ip("netns", "del", probe, check=False)
    return True, ""


def _free_subnet() -> ipaddress.IPv4Network:
    """A random 10.x.y.0/24 that no interface or route of this machine uses."""
    words = (_ip("-4", "addr").stdout + _ip("-4", "route").stdout).split()
    used = [
        ipaddress.ip_network(w, strict=False)
        for w in words
        if re.fullmatch(r"\d+\.\d+\.\d+\.\d+(/\d+)?", w)
    ]
    rng = random.Random()
    for _ in range(100):
        net = ipaddress.ip_network(f"10.{rng.randrange(100, 255)}.{rng.randrange(256)}.0/24")
        if not any(net.overlaps(u) for u in used):
            return net
    raise RuntimeError("no free 10.x.y.0/24 found")


class Host2:
    """A network namespace linked to this host by a veth pair (removed by :meth:`remove`)."""

    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:6]
        self.ns, self.veth_host, self.veth_ns = f"gp-host2-{tag}", f"gpv{tag}a", f"gpv{tag}b"
        self.net = _free_subnet()
        hosts = list(self.net.hosts())
        self.host_ip, self.ns_ip = str(hosts[0]), str(hosts[1])

    def create(self) -> None:
        plen = self.net.prefixlen
        _ip("netns", "add", self.ns)
        _ip("link", "add", self.veth_host, "type", "veth", "peer", "name", self.veth_ns)
        _ip("link", "set", self.veth_ns, "netns", self.ns)
        _ip("addr", "add", f"{self.host_ip}/{plen}", "dev", self.veth_host)
        _ip("link", "set", self.veth_host, "up")
        self.exec_ip("addr", "add", f"{self.ns_ip}/{plen}", "dev", self.veth_ns)
        self.exec_ip("link", "set", self.veth_ns, "up")
        self.exec_ip("link", "set", "lo", "up")

    def exec_ip(self, *args: str) -> None:
        _ip("netns", "exec", self.ns, "ip", *args)

    def command(self, *cmd: str) -> list[str]:
        return ["ip", "netns", "exec", self.ns, *cmd]

    def remove(self) -> None:
        # Deleting the namespace destroys its end of the pair, and with it the pair.
        _ip("netns", "del", self.ns, check=False)
        _ip("link", "del", self.veth_host, check=False)

    def can_connect(self, host: str, port: int) -> bool:
        probe = (
            "import socket, sys\n"
            "try:\n"
            f"    socket.create_connection(({host!r}, {port}), timeout=2).close()\n"
            "except OSError:\n"
            "    sys.exit(1)\n"
        )
        return subprocess.run(self.command(PY, "-c", probe), timeout=30).returncode == 0


def start_worker(stack: Stack, name: str, env: dict, prefix: list[str]) -> subprocess.Popen:
    """A ``celery worker`` (concurrency 1) with its own log; returns when it is ready."""
    log_path = stack.root / f"{name}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [*prefix, PY, "-m", "celery", "-A", "tests.reliability.worker_app", "worker"]
            + ["--loglevel", "INFO", "--concurrency", "1", "-Q", stack.queue]
            + ["--without-mingle", "--without-gossip", "--hostname", name],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    stack.workers.append(proc)
    wait_for(
        lambda: b" ready." in log_path.read_bytes() or proc.poll() is not None,
        90,
        0.2,
        f"worker {name} ready",
    )
    assert proc.poll() is None, log_path.read_text(errors="replace")[-3000:]
    return proc


def started_runs(path: Path) -> list[int]:
    """Run ids whose engine a worker started, from a ``worker_app`` execution record."""
    if not path.exists():
        return []
    return [
        int(ident)
        for _, event, ident in (x.split() for x in path.read_text().splitlines())
        if event == "started"
    ]


@pytest.fixture(scope="module")
def two_hosts():
    require(_tools_present(), "the multi-host test needs redis-server and PostgreSQL's initdb")
    usable, why = _netns_usable()
    require(usable, f"the multi-host test needs a network namespace: {why}")
    host2 = Host2()
    root = Path(tempfile.mkdtemp(prefix="gridportal-multihost-"))
    root.chmod(0o755)
    stack = Stack(root)
    stack.redis.also_listen = stack.pg.also_listen = host2.host_ip
    stack.pg.trust_net = str(host2.net)
    try:
        host2.create()
        stack.up()
        yield stack, host2
    finally:
        try:
            stack.down()
        finally:
            host2.remove()
            for log in sorted(root.glob("w*@host*.log")) + [root / "web.log"]:
                if log.exists():
                    print(f"---- {log.name} ----\n" + log.read_text(errors="replace")[-3000:])
            shutil.rmtree(root, ignore_errors=True)


def test_a_sweep_is_shared_by_workers_on_two_hosts(two_hosts):
    stack, host2 = two_hosts
    # The second host is really apart: the services' loopback ports are not reachable from
    # it, their veth addresses are.
    assert not host2.can_connect("127.0.0.1", stack.redis.port)
    assert not host2.can_connect("127.0.0.1", stack.pg.port)
    assert host2.can_connect(host2.host_ip, stack.redis.port)
    assert host2.can_connect(host2.host_ip, stack.pg.port)

    host1_record, host2_record = stack.root / "host1.executions", stack.root / "host2.executions"
    env1 = dict(stack.env, RELIABILITY_EXECUTIONS=str(host1_record))
    env2 = dict(
        stack.env,
        DATABASE_URL=stack.pg.url_at(host2.host_ip),
        CELERY_BROKER_URL=stack.redis.url_at(host2.host_ip),
        GRIDPORTAL_VAR_DIR=str(stack.root / "var-host2"),  # its own; MEDIA_ROOT is shared
        RELIABILITY_EXECUTIONS=str(host2_record),
    )
    start_worker(stack, "w1@host1", env1, [])
    start_worker(stack, "w2@host2", env2, host2.command())

    content = make_swf_bytes(jobs=4000, procs=128, seed=11)
    trace_id = stack.api.upload_trace("multihost.swf", content)
    procs_values = [16 * (i + 1) for i in range(RUNS)]
    t0 = monotonic()
    status, sweep = stack.api.post(
        "/api/sweeps/",
        {
            "kind": "trace-stats",
            "traces": [trace_id],
            "seed": 5,
            "vary": [{"param": "procs", "values": procs_values}],
        },
    )
    assert status == 201, sweep
    sweep_id = sweep["id"]

    def finished():
        _, body = stack.api.get(f"/api/sweeps/{sweep_id}/")
        state = body["state"]
        return state if state["status"] not in ("queued", "running") else None

    state = wait_for(finished, timeout=90, interval=0.2, what="the sweep to finish")
    wall = monotonic() - t0
    assert state["status"] == "succeeded", state
    assert state["counts"]["succeeded"] == RUNS, state["counts"]
    run_ids = sorted(r["id"] for r in state["runs"])
    assert len(run_ids) == RUNS

    # Exactly once, and both hosts took part.
    on1, on2 = started_runs(host1_record), started_runs(host2_record)
    assert sorted(on1 + on2) == run_ids, (on1, on2)
    assert on1 and on2, f"one host ran everything: host1 {on1}, host2 {on2}"
    logged1 = len(SUCCEEDED.findall((stack.root / "w1@host1.log").read_bytes()))
    logged2 = len(SUCCEEDED.findall((stack.root / "w2@host2.log").read_bytes()))
    assert (logged1, logged2) == (len(on1), len(on2))

    # Determinism: each result is the in-process engine's on the same inputs and seed.
    path = stack.root / "multihost.swf"
    path.write_bytes(content)
    trace = load_trace(path)
    for run_id in run_ids:
        body = stack.api.experiment(run_id)
        status, result = stack.api.get(f"/api/experiments/{run_id}/result/")
        assert status == 200, result
        expected = run_experiment(
            body["kind"], body["params"], {"traces": [trace]}, seed=body["seed"]
        )
        assert result["summary"] == expected["summary"], run_id
        assert result["tables"] == expected["tables"], run_id

    record_figure("multihost_runs_per_worker", {"w1@host1": len(on1), "w2@host2": len(on2)})
    record_figure("multihost_sweep_wall_seconds", round(wall, 1))
