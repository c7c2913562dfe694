"""The sandbox of users' policies (gridportal/sandbox.py): each escape fails, and the failure
names the wall that stopped it.

Every case is an uploaded policy file whose module body (run at load) or ``priority()`` (run
during the dry run of the upload check) tries one escape; the check is the real one the
portal runs (``scheduler.cli.sandboxed`` in bubblewrap).  The walls:

- network: its own network namespace (no interface but a down loopback);
- files: only the run folder is writable, the root is read-only and holds only system and
  Python files (no /etc, no portal source, no media folder);
- environment: ``--clearenv`` (the worker's secrets are not inherited);
- memory (RLIMIT_AS), CPU time (RLIMIT_CPU), processes (a pids cgroup or RLIMIT_NPROC), wall
  time (the supervisor kills the sandbox).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gridportal.sandbox import Limits, SandboxError, available, run_job
from tests.conftest import require

ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits(cpu_s=4, wall_s=60, memory_mb=1024, processes=16)

HEAD = "from scheduler.policies import PriorityPolicy\n"


def policy(body: str = "", priority: str = "return -job.estimate", title: str = "") -> bytes:
    """A policy whose module body runs ``body`` and whose priority() runs ``priority``."""
    lines = "\n".join("        " + line for line in priority.splitlines())
    cls = f"class P(PriorityPolicy):\n    title = {title or repr('P')}\n"
    return (HEAD + body + "\n" + cls + "    def priority(self, job, now):\n" + lines).encode()


def check(source: bytes, limits: Limits = LIMITS) -> dict:
    return run_job(
        {"mode": "check", "policy": "policy.py", "class": "P"}, {"policy.py": source}, limits
    )


def refused(source: bytes, limits: Limits = LIMITS) -> SandboxError:
    with pytest.raises(SandboxError) as info:
        check(source, limits)
    return info.value


@pytest.fixture(autouse=True)
def _sandbox_here():
    require(available() == "", f"the sandbox cannot run here: {available()}")


def test_a_plain_policy_passes_the_check():
    out = check(policy(title="'shortest first'"))
    assert out["ok"] and out["title"] == "shortest first"
    assert out["dry_run"]["jobs"] == 200 and out["dry_run"]["mean_wait"] >= 0


@pytest.mark.parametrize(
    "body",
    [
        "import socket\nsocket.create_connection(('127.0.0.1', 5432), timeout=3)",  # PostgreSQL
        "import socket\nsocket.create_connection(('127.0.0.1', 6379), timeout=3)",  # Redis
        "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=3)",
        "import urllib.request\nurllib.request.urlopen('http://example.org', timeout=3)",
    ],
    ids=["postgres", "redis", "internet", "dns"],
)
def test_no_network(body):
    err = refused(policy(body))
    assert err.limit == "network", err.message
    assert "network" in err.message


def test_no_network_at_run_time_either():
    err = refused(policy(priority="import socket\nsocket.socket().connect(('127.0.0.1', 5432))"))
    assert err.limit == "network", err.message
    assert "line" in err.message  # the user's line is named


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "/etc/shadow",
        str(ROOT / "gridportal" / "settings.py"),
        "/proc/1/root/etc/passwd",
    ],
    ids=["passwd", "shadow", "settings-file", "proc-root"],
)
def test_no_file_outside_the_run(path):
    err = refused(policy(f"open({path!r}).read()"))
    assert err.limit == "files", err.message


def test_the_settings_module_is_not_importable():
    err = refused(policy("import gridportal.settings"))
    assert err.limit == "files", err.message
    assert "gridportal" in err.message


def test_no_secret_in_the_environment(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://secret@db/x")
    monkeypatch.setenv("SECRET_KEY", "the-secret-key")
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://:pw@broker/0")
    out = check(policy("import os", title="repr(sorted(os.environ.items()))"))
    seen = out["title"]
    for secret in ("DATABASE_URL", "SECRET_KEY", "CELERY_BROKER_URL", "secret", "pw@broker"):
        assert secret not in seen
    assert "PYTHONPATH" in seen  # the title did carry the sandbox's environment out


@pytest.mark.parametrize(
    "target",
    ["/work/escape.txt", "/usr/escape.txt", "/escape.txt", str(ROOT / "escape.txt")],
    ids=["work", "usr", "root", "worktree"],
)
def test_no_write_outside_the_run_folder(target):
    err = refused(policy(f"open({target!r}, 'w').write('x')"))
    assert err.limit == "files", err.message
    assert not Path(target).exists()


def test_the_run_folder_and_tmp_are_writable():
    out = check(policy("open('scratch', 'w').write('x')\nopen('/tmp/x', 'w').write('x')"))
    assert out["ok"]


def test_a_fork_bomb_stops_at_the_process_limit():
    err = refused(policy("import os\nwhile True:\n    os.fork()"))
    assert err.limit == "processes", err.message
    assert "process-count limit of 16" in err.message


def test_threads_count_as_processes():
    body = (
        "import threading, time\nfor _ in range(100):\n"
        "    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()"
    )
    err = refused(policy(body))
    assert err.limit == "processes", err.message


def test_a_10_gb_allocation_stops_at_the_memory_limit():
    err = refused(policy("x = bytearray(10 * 2**30)"))
    assert err.limit == "memory", err.message
    assert "memory limit of 1024 MiB" in err.message


def test_an_infinite_loop_stops_at_the_cpu_limit():
    err = refused(policy(priority="while True:\n    pass"))
    assert err.limit in ("cpu", "wall"), err.message  # CPU time first unless the host is starved
    assert "limit of" in err.message


def test_a_sleeper_stops_at_the_wall_limit():
    err = refused(policy("import time\ntime.sleep(600)"), Limits(cpu_s=60, wall_s=8))
    assert err.limit == "wall", err.message
    assert "wall-time limit of 8 s" in err.message


def test_ctypes_tricks_meet_the_same_walls():
    body = (
        "import ctypes, ctypes.util, os\n"
        "libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)\n"
        "if libc.mount(b'/', b'/tmp', b'none', 4096, None) != 0:\n"  # MS_BIND onto /tmp
        "    raise OSError(ctypes.get_errno(), 'mount')\n"
    )
    err = refused(policy(body))
    assert err.limit == "files", err.message
    body = (
        "import ctypes, ctypes.util\n"
        "libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)\n"
        "if libc.open(b'/etc/passwd', 0) < 0:\n"
        "    raise OSError(ctypes.get_errno(), '/etc/passwd')\n"
    )
    assert refused(policy(body)).limit == "files"


def test_os_tricks_meet_the_same_walls():
    for body in (
        "import os\nos.setuid(0)\nos.chroot('/')\nopen('/etc/passwd')",
        "import os\nos.execv('/bin/sh', ['sh', '-c', 'cat /etc/passwd > /run/job/leak'])",
        "import subprocess\nsubprocess.run(['cat', '/etc/passwd'], check=True)",
    ):
        err = refused(policy(body))
        assert err.limit in ("files", ""), err.message  # refused by a wall or the job's end
        assert "root:x:0:0" not in err.message  # and nothing of the host's file came out


def test_another_users_inputs_are_not_there(tmp_path):
    other = tmp_path / "media" / "traces" / "2" / "theirs.swf"
    other.parent.mkdir(parents=True)
    other.write_text("; their trace\n")
    err = refused(policy(f"open({str(other)!r}).read()"))
    assert err.limit == "files", err.message
    err = refused(policy(f"import os\nos.listdir({str(tmp_path)!r})"))
    assert err.limit == "files", err.message


def test_the_calling_process_lives_on_and_nothing_is_left():
    before = sorted(os.listdir("/sys/fs/cgroup/pids")) if os.geteuid() == 0 else []
    refused(policy("import os\nwhile True:\n    os.fork()"))
    assert check(policy())["ok"]  # the same process runs the next one
    if os.geteuid() == 0:  # its cgroups removed (only this process's: another xdist
        # worker's sandbox may be running at the same time)
        mine = f"gridportal-sandbox-{os.getpid()}-"
        now = set(os.listdir("/sys/fs/cgroup/pids"))
        left = [d for d in now - set(before) if d.startswith(mine)]
        assert not left, left


def test_a_syntax_error_names_the_line():
    err = refused(HEAD.encode() + b"class P(PriorityPolicy):\n    def priority(self, job, now)\n")
    assert err.limit == ""
    assert "line 3" in err.message
