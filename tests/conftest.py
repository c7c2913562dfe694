"""Shared fixtures: users, generated traces, and a real Celery worker process.

Services: a test that needs PostgreSQL, Redis or Chromium calls :func:`require`; it skips with
the reason when the service is absent, except under CI (``CI`` set), where it fails.

Parallel runs (pytest-xdist, ``scripts/test.sh -n``): each xdist worker has its own test
database (pytest-django's ``_gwN`` suffix), its own Redis database (:func:`_isolate_xdist_worker`:
Celery's broadcasts, the ``unacked`` hash and the queues are per Redis database, so a run id
of one worker's database is never seen as alive by another's sweeper) and its own MEDIA_ROOT;
Celery workers started by tests consume a queue of their own (:func:`start_worker`).

Budgets: the engine's equivalence and property tests run :func:`examples` hypothesis examples
(a fraction of their full number) and a deterministic sample of the real-trace cases;
``GRIDPORTAL_FULL_TESTS=1`` runs them all.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

ROOT = Path(__file__).resolve().parent.parent
CI = bool(os.environ.get("CI"))
#: The real archive traces and workflows, never copied into the repository: ``../shared/data``
#: beside the checkout, or ``GRIDPORTAL_SHARED_DATA`` (a scratch clone elsewhere points there).
#: Every test reads them through this setting and ``shared_data_file`` (a clear skip locally, a
#: named failure under CI), never through a path of its own.
SHARED_DATA = Path(os.environ.get("GRIDPORTAL_SHARED_DATA") or ROOT.parent / "shared" / "data")
#: ``GRIDPORTAL_FULL_TESTS=1``: every real-trace case and the full number of examples
FULL = os.environ.get("GRIDPORTAL_FULL_TESTS", "") not in ("", "0")

# Tests without an explicit max_examples: hypothesis' default budget, no deadline (a shared
# 2-core CI machine makes timings meaningless). ``HYPOTHESIS_PROFILE=full`` (or
# GRIDPORTAL_FULL_TESTS=1) runs 4x as many examples.
hypothesis_settings.register_profile("ci", deadline=None)
hypothesis_settings.register_profile("full", deadline=None, max_examples=400)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("full" if FULL else "ci"))


def examples(full: int, fraction: float = 0.25, least: int = 10) -> int:
    """The number of hypothesis examples for a test whose full budget is ``full``: a
    ``fraction`` of it (at least ``least``) in ordinary runs, all of it under
    ``GRIDPORTAL_FULL_TESTS=1``. The cases are derandomized or seeded where the test says so,
    so a smaller budget runs the first cases of the same sequence, not other ones."""
    return full if FULL else max(least, min(full, round(full * fraction)))


def sample(cases: list, keep: int) -> list:
    """``keep`` of ``cases`` spread evenly (first and last included), or all of them under
    ``GRIDPORTAL_FULL_TESTS=1``: deterministic, so every run checks the same ones."""
    if FULL or keep >= len(cases):
        return list(cases)
    if keep <= 1:
        return list(cases[:1])
    step = (len(cases) - 1) / (keep - 1)
    return [cases[round(i * step)] for i in range(keep)]


def rotating(cases: list, at: int, every: int) -> list:
    """Every ``every``-th of ``cases``, starting at ``at`` (mod ``every``), or all of them under
    ``GRIDPORTAL_FULL_TESTS=1``: a fuzz loop over many targets gives target ``at`` this share,
    so that each case still meets an ``every``-th of the targets in an ordinary run."""
    return list(cases) if FULL else list(cases[at % every :: every])


def _isolate_xdist_worker() -> None:
    """Under pytest-xdist (``PYTEST_XDIST_WORKER=gwN``), give this worker Redis database
    1 + N (mod 16) of the configured broker and a MEDIA_ROOT of its own. Django's settings are
    already loaded (pytest-django loads them before this conftest): they are changed in place,
    and in the environment for the processes the tests start."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return
    import atexit
    import shutil
    import tempfile
    from urllib.parse import urlsplit, urlunsplit

    from django.conf import settings

    n = int(worker[2:] or 0)
    url = settings.CELERY_BROKER_URL
    if url.startswith(("redis://", "rediss://")):
        parts = urlsplit(url)
        base = int(parts.path.strip("/") or 0)
        url = urlunsplit(parts._replace(path=f"/{(base + 1 + n) % 16}"))
        settings.CELERY_BROKER_URL = os.environ["CELERY_BROKER_URL"] = url
        from gridportal.celery import app

        app.conf.broker_url = url
    media = tempfile.mkdtemp(prefix=f"gridportal-media-{worker}-")
    atexit.register(shutil.rmtree, media, True)
    settings.MEDIA_ROOT = Path(media)
    os.environ["MEDIA_ROOT"] = media


_isolate_xdist_worker()


def _own_cache_keys() -> None:
    """The cache (throttle counters) on the broker's Redis is shared by every process: this
    test run (and the servers it starts) counts under a key prefix of its own, so no other
    run's counts reach it (they expire with their throttle's period)."""
    from django.conf import settings

    prefix = f"gridportal-test-{os.getpid()}"
    os.environ["GRIDPORTAL_CACHE_PREFIX"] = prefix
    cache = settings.CACHES["default"]
    if "KEY_PREFIX" in cache:
        cache["KEY_PREFIX"] = prefix


_own_cache_keys()


def _cheap_test_passwords() -> None:
    """The tests' users are made with a cheaper PBKDF2 (tests/passwords.py): first in this
    process's PASSWORD_HASHERS, the product's hashers behind it."""
    from django.conf import settings
    from django.contrib.auth import hashers

    settings.PASSWORD_HASHERS = ["tests.passwords.TestPasswordHasher", *settings.PASSWORD_HASHERS]
    hashers.get_hashers.cache_clear()
    hashers.get_hashers_by_algorithm.cache_clear()


_cheap_test_passwords()


def require(available: bool, reason: str) -> None:
    """Skip (locally) or fail (under CI) when a needed service is missing."""
    if available:
        return
    if CI:
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


def shared_data_file(*parts: str) -> Path:
    """A file of ``SHARED_DATA`` (e.g. ``"traces", "CTC-SP2-1996-3.1-cln.swf.gz"``), required."""
    path = SHARED_DATA.joinpath(*parts)
    require(
        path.is_file(),
        f"shared data file missing: {path} (set GRIDPORTAL_SHARED_DATA to the shared data folder)",
    )
    return path


def make_swf_bytes(jobs: int = 300, procs: int = 64, seed: int = 7) -> bytes:
    from scheduler.traces.lublin import generate_lublin99
    from scheduler.traces.swf import write_swf

    out = io.StringIO()
    write_swf(generate_lublin99(jobs=jobs, procs=procs, seed=seed), out)
    return out.getvalue().encode()


@pytest.fixture
def swf_bytes() -> bytes:
    return make_swf_bytes()


@pytest.fixture
def make_user(django_user_model):
    def make(username: str, *, staff: bool = False, password: str = "pw-Secret-123"):
        return django_user_model.objects.create_user(
            username=username, password=password, is_staff=staff
        )

    return make


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def broker_is_redis() -> bool:
    from django.conf import settings

    return settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://"))


def database_is_postgres() -> bool:
    from django.conf import settings

    return "postgresql" in settings.DATABASES["default"]["ENGINE"]


def _test_database_url() -> str:
    from django.db import connection

    db = connection.settings_dict
    if "sqlite" in db["ENGINE"]:
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or ""
    if db.get("PASSWORD"):
        user = f"{user}:{db['PASSWORD']}"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{db['NAME']}"


@pytest.fixture
def start_worker(transactional_db, settings, media_root, tmp_path):
    """Start real ``celery worker`` processes on the configured broker, reading the test
    database. They consume a queue of their own, so no other worker (a developer's running
    portal, say) can take the test's tasks. All are stopped at teardown."""
    queue = f"gridportal-test-{uuid.uuid4().hex[:8]}"
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    env = dict(
        os.environ,
        DATABASE_URL=_test_database_url(),
        MEDIA_ROOT=str(media_root),
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        GRIDPORTAL_QUEUE=queue,
        DJANGO_SETTINGS_MODULE="gridportal.settings",
    )
    started: list[tuple[subprocess.Popen, Path]] = []
    names: list[str] = []

    def start(concurrency: int = 1) -> subprocess.Popen:
        n = len(started)
        names.append(f"{queue}-{n}@{socket.gethostname()}")
        log_path = tmp_path / f"worker-{n}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "gridportal",
                    "worker",
                    "--loglevel",
                    "INFO",
                    "--concurrency",
                    str(concurrency),
                    "--without-mingle",
                    "--without-gossip",
                    "-Q",
                    queue,
                    "--hostname",
                    names[-1],
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        started.append((proc, log_path))
        return proc

    def wait_ready(timeout: float = 90) -> None:
        """Block until every started worker answers a ping (needs a broker with broadcast,
        e.g. Redis), so that work submitted next is shared by all of them."""
        from gridportal.celery import app

        wait_for(
            lambda: len(app.control.ping(destination=names, timeout=1.0) or []) == len(names),
            timeout=timeout,
            interval=0.2,
            what=f"workers {names} to answer",
        )

    start.wait_ready = wait_ready
    yield start
    for proc, _ in started:
        proc.terminate()
    for proc, log_path in started:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        print(f"---- {log_path.name} ----\n" + log_path.read_text(errors="replace")[-4000:])


@pytest.fixture
def celery_worker(start_worker):
    """One real worker process (see :func:`start_worker`)."""
    return start_worker()


def worker_log(proc_index: int, tmp_path: Path) -> str:
    return (tmp_path / f"worker-{proc_index}.log").read_text(errors="replace")


def wait_for(predicate, timeout: float, interval: float = 0.3, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def scheduler_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m scheduler ARGS`` from the repository, as other tools call it."""
    return subprocess.run(
        [sys.executable, "-m", "scheduler", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


#: Tests pytest-xdist runs on one worker, one after another (by node id prefix). The
#: controller process, which schedules, sees node ids only; ``--dist loadgroup``'s own
#: ``xdist_group`` marks do not reach it with pytest 9 (xdist 3.8 sets ``item._nodeid``,
#: which pytest 9 no longer reads), hence :func:`pytest_xdist_make_scheduler`.
XDIST_GROUPS: dict[str, tuple[str, ...]] = {
    # The private reliability stack (tests/reliability/conftest.py: its own PostgreSQL,
    # Redis, web process and workers, services stopped and restarted, recovery times
    # measured): one stack, started once, and no two fault tests measuring each other.
    "reliability-stack": tuple(
        f"tests/reliability/test_{name}.py::"
        for name in (
            "broker_restart",
            "dead_worker_detection",
            "multihost",
            "noisy_neighbour",
            "services_down",
            "worker_kill",
        )
    ),
    # The real Slurm of tests/slurm/conftest.py (session-scoped): one cluster, on one worker.
    "slurm": ("tests/slurm/",),
    # The fuzz modules count their cases in a module-level dict (CASES) that their last test
    # records and checks (at least 10,000 and 20,000 cases): the whole module in one process.
    "fuzz-uploads": ("tests/portal/test_fuzz_uploads.py::",),
    "fuzz-bounds": ("tests/portal/test_fuzz_bounds.py::",),
    "fuzz-archives": ("tests/portal/test_fuzz_archives.py::",),
    # Every real-trace case of the whole-run loops: the event loop's run of each trace (the
    # slow part, cached by _real_event_loop) is then made once for both loops.
    "real-trace-event-loops": (
        "tests/scheduler/test_cluster_loop.py::test_backfilling_on_the_real_traces_",
        "tests/scheduler/test_cluster_loop.py::test_fcfs_on_the_real_traces_",
    ),
}


def xdist_group_of(nodeid: str) -> str | None:
    return next((g for g, pre in XDIST_GROUPS.items() if nodeid.startswith(pre)), None)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # (unknown with -p no:xdist)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` with the groups of :data:`XDIST_GROUPS` (the largest first, then
    every other test alone, in collection order)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group_of(nodeid) or nodeid

    return GroupScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Every test on the private reliability stack must be in its xdist group (a new module
    goes into XDIST_GROUPS); they are collected first, in their order: the longest chain of
    the suite starts at once instead of last."""
    stacked = [item for item in items if "stack" in getattr(item, "fixturenames", ())]
    for item in stacked:
        if xdist_group_of(item.nodeid) != "reliability-stack":
            raise pytest.UsageError(
                f"{item.nodeid} uses the reliability stack: add its module to "
                "XDIST_GROUPS['reliability-stack'] in tests/conftest.py"
            )
    chosen = set(stacked)
    items[:] = stacked + [item for item in items if item not in chosen]


def _cpu_s() -> float:
    """CPU seconds of this process and of its children that have ended (servers, workers and
    limited runs a test started and reaped)."""
    import resource

    own, reaped = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    item.stash[_CPU_AT_SETUP] = _cpu_s()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each test's CPU seconds (set-up to teardown) as the ``cpu_s`` property of its entry in
    var/pytest-last.xml: on a loaded machine a test's wall time says little about what it
    costs the suite (``bench/suite_cpu.py`` lists the most costly)."""
    if call.when == "teardown" and _CPU_AT_SETUP in item.stash:
        item.user_properties.append(("cpu_s", round(_cpu_s() - item.stash[_CPU_AT_SETUP], 2)))
    yield


_CPU_AT_SETUP = pytest.StashKey[float]()
