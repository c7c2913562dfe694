"""A real single-node Slurm for tests: slurmctld, slurmd and slurmdbd (accounting in MariaDB),
started as root in a private state directory with a munge key made for it.

Debian's ``slurm-wlm`` and ``slurmdbd`` (Slurm 22.05) and ``munge``; MariaDB on
127.0.0.1:3306 (root, empty password: ``SLURM_TEST_DB_*`` override).  Nothing of the machine's
own Slurm or munge is used or touched: the daemons read a ``slurm.conf`` of their own
(``SLURM_CONF``), talk over ports picked free on 127.0.0.1, authenticate through a munged on a
socket of their own (``AuthInfo=socket=…``, Slurm's slurm.conf(5)) and keep accounting in a
MariaDB database of their own, dropped on :meth:`SlurmCluster.stop`.

The node is ``localhost`` with ``cpus`` CPUs whatever the machine has
(``SlurmdParameters=config_overrides``, slurm.conf(5)); jobs run as root and only ``sleep``.

    cluster = SlurmCluster(tmp_dir, cpus=8)
    cluster.start()
    job = cluster.sbatch("--cpus-per-task=4", wrap="sleep 2")
    cluster.wait_idle()
    text = cluster.sacct_dump("JobID,State,Submit,Start,End,AllocCPUS")
    cluster.stop()
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from bench._ports import free_port

__all__ = ["SlurmCluster", "SlurmError", "missing"]

SBIN = ("slurmctld", "slurmd", "slurmdbd", "munged")
BIN = ("sbatch", "sacct", "squeue", "scancel", "sacctmgr", "sinfo", "sdiag")


class SlurmError(RuntimeError):
    """A daemon did not start or a Slurm command failed (the message holds its log's tail)."""


def missing() -> str | None:
    """Why a test cluster cannot be started here (a program not installed), else None."""
    paths = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    absent = [p for p in SBIN + BIN if shutil.which(p, path=paths) is None]
    if absent:
        return (
            f"Slurm is not installed ({', '.join(absent)} missing): "
            "apt-get install slurm-wlm slurmdbd munge"
        )
    return None


def _which(name: str) -> str:
    found = shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    if found is None:
        raise SlurmError(f"{name} is not installed")
    return found


class SlurmCluster:
    """One controller, one node (``localhost``) and one accounting daemon, under ``root``."""

    def __init__(
        self, root: str | Path, *, cpus: int = 8, memory_mb: int = 8000, name: str = "",
        settings: dict[str, str] | None = None, partitions: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        """``settings``: slurm.conf keys to set or override (``{"PriorityType":
        "priority/multifactor"}``); ``partitions``: the ``PartitionName`` lines' values
        (``"short Nodes=localhost MaxTime=10 PriorityJobFactor=10"``) instead of one
        ``debug`` partition.  Accounts, users and QOS are made after :meth:`start` with
        :meth:`sacctmgr`."""
        self.root = Path(root)
        self.cpus, self.memory_mb = cpus, memory_mb
        self.settings = dict(settings or {})
        self.partitions = tuple(partitions) or (
            "debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP",
        )
        token = secrets.token_hex(3)
        #: the cluster's name in Slurm, and (prefixed) its MariaDB database
        self.name = name or f"gp{token}"
        self.database = f"slurm_test_{self.name}_{os.getpid()}"
        self.db_host = os.environ.get("SLURM_TEST_DB_HOST", "127.0.0.1")
        self.db_port = int(os.environ.get("SLURM_TEST_DB_PORT", "3306"))
        self.db_user = os.environ.get("SLURM_TEST_DB_USER", "root")
        self.db_password = os.environ.get("SLURM_TEST_DB_PASSWORD", "")
        self.conf_dir = self.root / "etc"
        self.log_dir = self.root / "log"
        self._procs: dict[str, subprocess.Popen] = {}
        self.started_seconds: float | None = None

    # --- configuration -------------------------------------------------------------------

    @property
    def slurm_conf(self) -> Path:
        return self.conf_dir / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        """The environment for Slurm's commands: this cluster's slurm.conf, times in UTC."""
        path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
        return {**os.environ, "SLURM_CONF": str(self.slurm_conf), "TZ": "UTC", "PATH": path}

    def _write_config(self) -> None:
        for sub in ("etc", "log", "state", "spool", "munge", "run"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
            os.chmod(self.root / sub, 0o700)
        os.chmod(self.root, 0o700)
        self.ctld_port, self.slurmd_port, self.dbd_port = (free_port() for _ in range(3))
        key = self.root / "munge" / "munge.key"
        key.write_bytes(secrets.token_bytes(1024))
        os.chmod(key, 0o600)
        self.munge_socket = self.root / "munge" / "munge.socket"
        auth = f"AuthType=auth/munge\nAuthInfo=socket={self.munge_socket}\n"
        run, log = self.root / "run", self.log_dir
        self.slurm_conf.write_text(
            self._with_settings(
                f"""ClusterName={self.name}
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={self.ctld_port}
SlurmdPort={self.slurmd_port}
SlurmUser=root
SlurmdUser=root
{auth}CryptoType=crypto/munge
StateSaveLocation={self.root / "state"}
SlurmdSpoolDir={self.root / "spool"}
SlurmctldPidFile={run / "slurmctld.pid"}
SlurmdPidFile={run / "slurmd.pid"}
SlurmctldLogFile={log / "slurmctld.log"}
SlurmdLogFile={log / "slurmd.log"}
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
MinJobAge=5
MaxArraySize=1001
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={self.dbd_port}
AccountingStoragePass={self.munge_socket}
MailProg=/bin/true
InactiveLimit=0
KillWait=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={self.memory_mb} State=UNKNOWN
"""
            )
            + "".join(f"PartitionName={p}\n" for p in self.partitions)
        )
        dbd = self.conf_dir / "slurmdbd.conf"
        pass_line = f"StoragePass={self.db_password}\n" if self.db_password else ""
        dbd.write_text(
            f"""{auth}DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort={self.dbd_port}
SlurmUser=root
PidFile={run / "slurmdbd.pid"}
LogFile={log / "slurmdbd.log"}
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost={self.db_host}
StoragePort={self.db_port}
StorageUser={self.db_user}
{pass_line}StorageLoc={self.database}
"""
        )
        os.chmod(dbd, 0o600)  # slurmdbd refuses a config others can read

    def _with_settings(self, text: str) -> str:
        """``text`` with the keys of :attr:`settings` replaced in place or added before the
        node line."""
        left = dict(self.settings)
        lines = []
        for line in text.splitlines():
            key = line.split("=", 1)[0]
            if key.startswith("NodeName"):
                lines.extend(f"{k}={v}" for k, v in left.items())
                left = {}
            lines.append(f"{key}={left.pop(key)}" if key in left else line)
        lines.extend(f"{k}={v}" for k, v in left.items())
        return "\n".join(lines) + "\n"

    # --- daemons -------------------------------------------------------------------------

    def _spawn(self, name: str, *argv: str) -> None:
        out = open(self.log_dir / f"{name}.out", "ab")  # noqa: SIM115 (kept for the process)
        self._procs[name] = subprocess.Popen(
            argv, env=self.env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        out.close()

    def _tail(self, name: str, lines: int = 25) -> str:
        text = ""
        for path in (self.log_dir / f"{name}.log", self.log_dir / f"{name}.out"):
            if path.exists():
                text += "".join(path.read_text(errors="replace").splitlines(True)[-lines:])
        return text

    def _wait(self, what: str, ready, timeout: float, daemon: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            proc = self._procs.get(daemon)
            if proc is not None and proc.poll() is not None:
                raise SlurmError(f"{daemon} exited ({proc.returncode}):\n{self._tail(daemon)}")
            if ready():
                return
            time.sleep(0.1)
        raise SlurmError(f"{what}: not ready in {timeout:.0f} s\n{self._tail(daemon)}")

    def _answers(self, port: int) -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return True
        return False

    def start(self, timeout: float = 45.0) -> float:
        """Write the configuration, start munged, slurmdbd, slurmctld and slurmd and wait until
        the node is idle and accounting answers; returns the seconds it took."""
        t0 = time.monotonic()
        self._write_config()
        try:
            self._spawn(
                "munged", _which("munged"), "--foreground", "--force",
                f"--key-file={self.root / 'munge' / 'munge.key'}",
                f"--socket={self.munge_socket}", f"--pid-file={self.root / 'run' / 'munged.pid'}",
                f"--log-file={self.log_dir / 'munged.log'}",
                f"--seed-file={self.root / 'munge' / 'munged.seed'}",
            )  # fmt: skip
            self._wait("munged", self.munge_socket.exists, timeout, "munged")
            self._spawn("slurmdbd", _which("slurmdbd"), "-D")  # beside SLURM_CONF
            self._wait("slurmdbd", lambda: self._answers(self.dbd_port), timeout, "slurmdbd")
            self._spawn("slurmctld", _which("slurmctld"), "-D", "-i", "-f", str(self.slurm_conf))
            self._wait("slurmctld", lambda: self._answers(self.ctld_port), timeout, "slurmctld")
            self._spawn(
                "slurmd", _which("slurmd"), "-D", "-N", "localhost", "-f", str(self.slurm_conf)
            )
            self._wait("slurmd", self._node_idle, timeout, "slurmd")
            self._wait("accounting", self._accounting_ready, timeout, "slurmdbd")
        except BaseException:
            self.stop()
            raise
        self.started_seconds = time.monotonic() - t0
        return self.started_seconds

    def _node_idle(self) -> bool:
        done = self.run("sinfo", "-h", "-N", "-o", "%t", check=False)
        states = {line.strip().rstrip("*") for line in done.stdout.splitlines()}  # per partition
        return done.returncode == 0 and states == {"idle"}

    def _accounting_ready(self) -> bool:
        done = self.run("sacctmgr", "-n", "-P", "list", "cluster", "format=cluster", check=False)
        return done.returncode == 0 and self.name in done.stdout.split()

    def stop(self) -> None:
        """Stop the daemons (node, controller, accounting, munge), drop the database."""
        for name in ("slurmd", "slurmctld", "slurmdbd", "munged"):
            proc = self._procs.pop(name, None)
            if proc is None or proc.poll() is not None:
                continue
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        self._drop_database()

    def _drop_database(self) -> None:
        mysql = shutil.which("mariadb") or shutil.which("mysql")
        if mysql is None:
            return
        argv = [mysql, "-h", self.db_host, "-P", str(self.db_port), "-u", self.db_user]
        env = {**os.environ}
        if self.db_password:
            env["MYSQL_PWD"] = self.db_password
        subprocess.run(
            [*argv, "-e", f"DROP DATABASE IF EXISTS `{self.database}`"], env=env,
            capture_output=True, timeout=30, check=False,
        )  # fmt: skip

    def __enter__(self) -> SlurmCluster:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- commands ------------------------------------------------------------------------

    def run(
        self, *argv: str, check: bool = True, timeout: float = 30
    ) -> subprocess.CompletedProcess:
        """Run a Slurm command against this cluster; raises :class:`SlurmError` on failure
        when ``check``."""
        done = subprocess.run(
            [_which(argv[0]), *argv[1:]], env=self.env, capture_output=True, text=True,
            timeout=timeout, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if check and done.returncode != 0:
            raise SlurmError(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()}")
        return done

    def sbatch(self, *options: str, wrap: str | None = None, script: str | None = None) -> int:
        """Submit a batch job (``--wrap`` or a script text); returns its job id."""
        argv = ["sbatch", "--parsable", f"--chdir={self.root}", "--output=/dev/null", *options]
        if wrap is not None:
            argv.append(f"--wrap={wrap}")
        if script is not None:
            path = self.root / f"job-{secrets.token_hex(4)}.sh"
            path.write_text(script)
            argv.append(str(path))
        out = self.run(*argv).stdout.strip()
        return int(out.split(";")[0].split("_")[0])

    def sacctmgr(self, *argv: str) -> str:
        """``sacctmgr -i ARGV`` (no confirmation prompt); its output."""
        return self.run("sacctmgr", "-i", *argv).stdout

    def scancel(self, *job_ids: int | str) -> None:
        self.run("scancel", *(str(j) for j in job_ids))

    def wait_running(self, job_id: int | str, timeout: float = 30.0) -> None:
        """Wait until the job runs."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.run("squeue", "-h", "-j", str(job_id), "-o", "%T", check=False)
            if state.stdout.strip() == "RUNNING":
                return
            time.sleep(0.2)
        raise SlurmError(f"job {job_id} did not start in {timeout:.0f} s")

    def wait_idle(self, jobs: int = 0, timeout: float = 60.0) -> None:
        """Wait until no job is queued or running, the controller has sent accounting every
        record (``sdiag``'s "DBD Agent queue size" is 0) and accounting lists at least ``jobs``
        allocations (an array counts its tasks), each with its end, the same twice in a row
        half a second apart (slurmdbd stores what it is sent a moment later)."""
        deadline = time.monotonic() + timeout
        seen = None
        while time.monotonic() < deadline:
            queue = self.run("squeue", "-h", "-o", "%i", check=False)
            diag = self.run("sdiag", check=False).stdout
            agent = diag.split("DBD Agent queue size:", 1)[-1].split("\n", 1)[0].strip()
            if queue.returncode == 0 and not queue.stdout.strip() and agent == "0":
                acct = self.run(
                    "sacct", "-a", "-X", "-n", "-P", "--starttime=1970-01-01",
                    "--endtime=now+1days", "-o", "JobIDRaw,State,End", check=False,
                )  # fmt: skip
                rows = [r.split("|") for r in acct.stdout.splitlines() if r.strip()]
                done = (
                    acct.returncode == 0
                    and len(rows) >= jobs
                    and all(
                        r[2] not in ("Unknown", "") and not r[1].startswith(("PENDING", "RUNNING"))
                        for r in rows
                    )
                )
                if done and acct.stdout == seen:
                    return
                seen = acct.stdout if done else None
            time.sleep(0.5)
        raise SlurmError(f"the cluster did not become idle in {timeout:.0f} s")

    def sacct_dump(
        self, format: str = "ALL", *, header: bool = True, parsable: str = "--parsable2",
        options: tuple[str, ...] = (),
    ) -> str:  # fmt: skip
        """What ``sacct --allusers --duplicates -P --format=FORMAT`` prints for every job since
        the epoch (``--noheader`` when not ``header``); the window ends a day from now, so that
        a job cancelled while waiting for a later ``--begin`` is listed too."""
        argv = ["sacct", "--allusers", "--duplicates", parsable, "--starttime=1970-01-01",
                "--endtime=now+1days", f"--format={format}", *options]  # fmt: skip
        if not header:
            argv.append("--noheader")
        return self.run(*argv).stdout
