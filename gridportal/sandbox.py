"""Run users' code (uploaded scheduling policies) in a bubblewrap sandbox.

The engine's sandboxed entry (``python -m scheduler.cli.sandboxed RUN_DIR``) runs in a child
started through bubblewrap (``bwrap``, https://github.com/containers/bubblewrap, Debian
package ``bubblewrap``) with:

- every namespace unshared (``--unshare-all``: network, PID, IPC, UTS, cgroup, user): no
  network interface but an unconfigured loopback, no other process visible;
- a file system made of read-only binds of ``/usr``, ``/lib*``, the Python installation and
  its virtual environment, the engine package alone (not the portal: no settings module, no
  media folder), a fresh ``/proc``, a minimal ``/dev``, a tmpfs ``/tmp`` and the run folder
  (the only writable place, holding the job's own inputs);
- ``--clearenv``: no DATABASE_URL, broker URL, SECRET_KEY or any other variable of the worker;
- ``--die-with-parent``, ``--new-session`` and all capabilities dropped;
- hard limits: RLIMIT_CPU (CPU time), RLIMIT_AS (memory), a process count (a ``pids`` cgroup
  when the worker runs as root, which RLIMIT_NPROC does not bind; RLIMIT_NPROC otherwise),
  RLIMIT_FSIZE (file size) and the wall time, after which the whole sandbox is killed.

A breach fails the job with :class:`SandboxError` naming the limit; the worker lives on.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import scheduler.engine

ENGINE_DIR = Path(scheduler.engine.__file__).resolve().parent
#: where the engine package is seen inside the sandbox
ENGINE_MOUNT = "/engine"
#: where the run folder is seen inside the sandbox
RUN_MOUNT = "/run/job"
PIDS_CGROUP_ROOT = Path("/sys/fs/cgroup/pids")
MIB = 2**20


class SandboxError(Exception):
    """The sandboxed job failed; ``limit`` names the wall that stopped it ("" for the job's own
    error)."""

    def __init__(self, message: str, limit: str = ""):
        super().__init__(message)
        self.message, self.limit = message, limit


@dataclass(frozen=True)
class Limits:
    cpu_s: int = 600
    wall_s: float = 900.0
    memory_mb: int = 2048
    processes: int = 16
    file_mb: int = 512

    def describe(self, limit: str) -> str:
        return {
            "cpu": f"the CPU-time limit of {self.cpu_s} s",
            "wall": f"the wall-time limit of {self.wall_s:g} s",
            "memory": f"the memory limit of {self.memory_mb} MiB",
            "processes": f"the process-count limit of {self.processes}",
            "file": f"the file-size limit of {self.file_mb} MiB",
        }[limit]


def available() -> str:
    """ "" when sandboxed jobs can run here, else why not."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    if os.geteuid() == 0 and not os.access(PIDS_CGROUP_ROOT, os.W_OK):
        return f"the worker runs as root and {PIDS_CGROUP_ROOT} is not writable (process limit)"
    return ""


def _ro_paths() -> list[str]:
    """The host paths bound read-only: system libraries, the interpreter and its venv."""
    paths = {"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"}
    for p in (sys.base_prefix, sys.prefix, sys.exec_prefix):
        paths.add(str(Path(p).resolve()))
    return sorted(p for p in paths if Path(p).exists() and not Path(p).is_symlink()) + sorted(
        p for p in paths if Path(p).is_symlink()
    )


def bwrap_command(run_dir: Path) -> list[str]:
    cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    for p in _ro_paths():
        if Path(p).is_symlink():
            cmd += ["--symlink", os.readlink(p), p]
        else:
            cmd += ["--ro-bind", p, p]
    cmd += ["--ro-bind", str(ENGINE_DIR), f"{ENGINE_MOUNT}/scheduler"]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/run"]
    cmd += ["--bind", str(run_dir), RUN_MOUNT, "--remount-ro", "/"]
    cmd += ["--chdir", RUN_MOUNT, "--clearenv"]
    env = {
        "PYTHONPATH": ENGINE_MOUNT,
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    for k, v in env.items():
        cmd += ["--setenv", k, v]
    python = str(Path(sys.prefix).resolve() / "bin" / "python")
    return [*cmd, python, "-B", "-m", "scheduler.cli.sandboxed", RUN_MOUNT]


def _count_processes(uid: int) -> int:
    n = 0
    for d in os.listdir("/proc"):
        if d.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{d}").st_uid == uid:
                    n += 1
    return n


class _PidsCgroup:
    """A cgroup (v1 ``pids`` controller) capping the sandbox's processes and threads."""

    def __init__(self, limit: int):
        # named after the process that made it, so a leftover can be traced to its owner
        self.path = PIDS_CGROUP_ROOT / f"gridportal-sandbox-{os.getpid()}-{uuid.uuid4().hex}"
        self.path.mkdir()
        (self.path / "pids.max").write_text(str(limit))

    def join(self) -> None:  # in the child, before exec
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def breached(self) -> bool:
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.path / "pids.events").read_text().split()[1]) > 0
        return False

    def remove(self) -> None:
        """Kill what is left (again on every try: a fork bomb forks between a read and a
        kill) and remove the cgroup; give up after 10 s."""
        deadline = time.monotonic() + 10.0
        while True:
            with contextlib.suppress(OSError):
                for pid in (self.path / "cgroup.procs").read_text().split():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(pid), signal.SIGKILL)
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.05)


def _preexec(limits: Limits, cgroup: _PidsCgroup | None, nproc: int | None) -> Callable[[], None]:
    def setup() -> None:
        if cgroup is not None:
            cgroup.join()
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        memory = limits.memory_mb * MIB
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb * MIB,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

    return setup


def run_job(
    job: dict[str, Any],
    files: dict[str, bytes | Path],
    limits: Limits,
    *,
    on_progress: Callable[[float, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Run ``job`` (scheduler/cli/sandboxed.py) in the sandbox with ``files`` (name -> bytes,
    or a host path copied in) as its only inputs; its ``out.json`` on success, else
    :class:`SandboxError` naming the limit or the job's error."""
    why_not = available()
    if why_not:
        raise SandboxError(f"the sandbox cannot run here: {why_not}")
    with tempfile.TemporaryDirectory(prefix="gridportal-sandbox-") as tmp:
        run_dir = Path(tmp) / "job"
        run_dir.mkdir(mode=0o700)
        for name, data in files.items():
            target = run_dir / Path(name).name
            if isinstance(data, Path):
                shutil.copyfile(data, target)
            else:
                target.write_bytes(data)
        (run_dir / "job.json").write_text(json.dumps(job))
        status, breached = _supervise(run_dir, limits, on_progress, should_stop)
        return _outcome(run_dir, status, breached, limits)


def _supervise(run_dir, limits, on_progress, should_stop) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    root = os.geteuid() == 0
    cgroup = _PidsCgroup(limits.processes + 2) if root else None  # + bwrap and its init
    nproc = None if root else _count_processes(os.geteuid()) + limits.processes
    breached = ""
    try:
        errors = open(run_dir.parent / "stderr", "wb")  # noqa: SIM115 (closed below)
        proc = subprocess.Popen(  # noqa: S603 (a fixed command; the user's code is data)
            bwrap_command(run_dir),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
            preexec_fn=_preexec(limits, cgroup, nproc),  # noqa: PLW1509
            start_new_session=True,
            close_fds=True,
        )
        os.set_blocking(proc.stdout.fileno(), False)
        deadline = time.monotonic() + limits.wall_s
        buf = b""
        while proc.poll() is None:
            if time.monotonic() > deadline:
                breached = "wall"
                break
            if should_stop is not None and should_stop():
                breached = "stopped"
                break
            buf = _read_progress(proc, buf, on_progress)
            time.sleep(0.1)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        errors.close()
        proc.stdout.close()
        if cgroup is not None and cgroup.breached():
            breached = "wall+processes" if breached == "wall" else breached or "processes"
        return proc.returncode, breached
    finally:
        if cgroup is not None:
            cgroup.remove()


def _read_progress(proc, buf: bytes, on_progress) -> bytes:  # type: ignore[no-untyped-def]
    with contextlib.suppress(BlockingIOError, TypeError):
        chunk = proc.stdout.read(65536)
        if chunk:
            buf = (buf + chunk)[-65536:]
    *lines, buf = buf.split(b"\n")
    for line in lines:
        if on_progress is not None and line.startswith(b"\x1eprogress "):
            parts = line.decode("utf-8", "replace").split(" ", 2)
            with contextlib.suppress(ValueError, IndexError):
                on_progress(float(parts[1]), parts[2] if len(parts) > 2 else "")
    return buf


def _outcome(run_dir: Path, status: int, breached: str, limits: Limits) -> dict[str, Any]:
    if breached == "stopped":
        raise SandboxError("the run was stopped", "stopped")
    out = _read_out(run_dir) if breached != "wall" else None
    if out is not None and out.get("ok"):
        return out
    if breached in ("wall", "wall+processes"):
        also = f" (after hitting {limits.describe('processes')})" if "processes" in breached else ""
        raise SandboxError(f"the sandboxed code exceeded {limits.describe('wall')}{also}", "wall")
    limit = (out or {}).get("limit") or ""
    if not limit and status in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
        limit = "cpu"
    elif not limit and status in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ):
        limit = "file"
    elif not limit and breached == "processes":
        limit = "processes"
    error = (out or {}).get("error") or ""
    if limit in WALLS:
        raise SandboxError(f"the sandboxed code hit {WALLS[limit]}: {error}", limit)
    if limit:
        raise SandboxError(
            f"the sandboxed code hit {limits.describe(limit)}" + (f": {error}" if error else ""),
            limit,
        )
    if out is None:
        tail = _stderr_tail(run_dir)
        raise SandboxError(
            f"the sandboxed code ended with status {status} and no result"
            + (f" ({tail})" if tail else "")
        )
    raise SandboxError(error or "the sandboxed code failed")


#: the sandbox's walls that are not limits: what the child reports when it ran into one
WALLS = {
    "network": "the network wall (the sandbox has no network: a network namespace of its own, "
    "with only its own loopback)",
    "files": "the file-system wall (the sandbox sees only its run folder and read-only system "
    "and Python files)",
}


def _stderr_tail(run_dir: Path) -> str:
    """The last line the sandbox wrote to stderr (bwrap's own refusal, say)."""
    try:
        with open(run_dir.parent / "stderr", "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 2000))
            lines = fh.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


#: the largest answer the worker reads back (the sandbox's JSON is parsed in the worker)
MAX_OUT_BYTES = 256 * MIB


def _read_out(run_dir: Path) -> dict[str, Any] | None:
    path = run_dir / "out.json"
    try:
        if path.stat().st_size > MAX_OUT_BYTES:
            raise SandboxError(f"the sandboxed code answered more than {MAX_OUT_BYTES // MIB} MiB")
        out = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return out if isinstance(out, dict) else None
