"""The compiled profile: the profile library (scheduler/cluster/_steps.py) and the
compression pass that cimports it (scheduler/cluster/_compress.py), compiled by Cython in
pure-Python mode, must behave exactly as the same files run as Python, an extension built from
another version of the source must never run, and the engine must run without Cython.

The compiled build exists after ``make setup``; without one the comparisons skip, except under
``CI=1`` (``make test`` builds it), where a missing build fails.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys

import pytest

import scheduler.cluster.profile as profile_mod
from scheduler import _native
from scheduler.cluster import Profile, native_status
from tests.conftest import ROOT
from tests.scheduler.native_helpers import compiled, deep_queue_trace, kernel, pure, run_policy

NAME = "scheduler.cluster._compress"


def _pure():
    return pure(NAME)


def _compiled():
    return compiled(NAME, "kernel")


@pytest.mark.parametrize("policy", ["conservative", "backfill-k=4", "easy", "fcfs"])
def test_compiled_and_pure_kernels_schedule_every_job_alike(policy):
    compiled, pure = _compiled(), _pure()
    assert compiled.__file__ != pure.__file__
    differ = 0
    for seed in range(12):
        procs = (16, 32, 64)[seed % 3]
        trace = deep_queue_trace(seed, procs=procs)
        estimates = "accurate" if seed % 4 == 3 else "requested"
        with kernel(compiled):
            a = run_policy(trace, procs, policy, estimates)
        with kernel(pure):
            b = run_policy(trace, procs, policy, estimates)
        assert len(a) == len(trace)
        differ += sum(x != y for x, y in zip(a, b, strict=True))
    assert differ == 0


def test_compiled_and_pure_kernels_agree_call_by_call():
    """Random operations on random profiles, the profile library compiled and pure side by
    side: the same answers, the same steps after every operation, refusals (False) that
    change nothing."""
    compiled, pure = _compiled(), _pure()
    rng = random.Random(21)
    refused = moved = 0
    for _ in range(300):
        cap = rng.randint(1, 12)
        both = [k.STEPS([0], [cap], cap) for k in (compiled, pure)]
        for _ in range(40):
            op = rng.random()
            a = rng.randint(0, 80)
            d = rng.randint(0, 30)
            n = rng.randint(0, cap + 1)
            origin = both[0].origin()
            if op < 0.45:
                delta = rng.choice([-n, n])
                r = [s.add(a, a + d + 1, delta) for s in both]
                refused += not r[0]
            elif op < 0.6:
                t0 = max(origin, rng.randint(0, 60))
                r = [s.earliest_start(min(n, cap), d, t0) for s in both]
            elif op < 0.7:
                t0 = max(origin, rng.randint(0, a))
                r = [s.earliest_move(max(a, t0), d, n, t0) for s in both]
            elif op < 0.85:
                b = rng.randint(0, 80)
                r = [s.move(a, b, d, n) for s in both]
                moved += r[0]
            elif op < 0.95:
                t0 = max(origin, a)
                r = [(s.free_at(t0), s.free_over(t0, t0 + d), s.max_free_over(t0, t0 + d))
                     for s in both]  # fmt: skip
            else:
                t0 = origin + rng.randint(0, 20)
                r = [s.advance(t0) for s in both]
            assert r[0] == r[1]
            assert both[0].lists() == both[1].lists()
            assert both[0].size == both[1].size == len(both[0].lists()[0])
            times, free = both[0].lists()
            assert all(x < y for x, y in zip(times[:-1], times[1:], strict=True))
            assert all(0 <= f <= cap for f in free) and free[-1] == cap
            assert all(x != y for x, y in zip(free[:-1], free[1:], strict=True))  # canonical
    assert refused > 100 and moved > 20  # both paths were exercised


def test_compiled_and_pure_compression_agree():
    """Compression passes over deep random plans after early ends, both kernels: the same
    plan, profile and heap entries."""
    compiled, pure = _compiled(), _pure()
    total = 0
    for seed in range(8):
        rng = random.Random(seed)
        cap = 40
        prof = Profile(cap)
        running = []
        for _ in range(30):
            end, n = rng.randint(1, 3000), rng.randint(1, 10)
            if prof.free_over(0, end) >= n:
                prof.reserve(0, end, n)
                running.append((end, n))
        shapes = [(k, rng.randint(1, cap), rng.choice([10, 60, 300, 999])) for k in range(400)]
        plan = {}
        for k, n, d in shapes:
            s = prof.earliest_start(n, d, 0)
            prof.reserve(s, s + d, n)
            plan[k] = s
        now = 50
        prof.advance(now)
        for end, n in rng.sample(running, min(8, len(running))):  # they end early, now
            if end > now:
                prof.release(now, end, n)
        live = [x for x in shapes if plan[x[0]] > now]
        out = []
        for k in (compiled, pure):
            steps, p, starts = k.STEPS(prof.times, prof.free, cap), dict(plan), []
            moved = k.compress(steps, k.Pass(), live, p, starts, now)
            out.append((moved, steps.lists(), p, sorted(starts)))
        assert out[0] == out[1]
        total += out[0][0]
    assert total > 50  # jobs did move


def test_profile_refuses_non_integer_times_in_either_kernel():
    """The compiled kernel works on 64-bit ints, so a float is refused (TypeError) rather than
    truncated — by the pure kernel too, so that both agree; numpy integers are fine."""
    np = pytest.importorskip("numpy")
    for k in (profile_mod._C, _pure()):
        with kernel(k):
            p = Profile(4)
            for method, args in (
                (p.reserve, (0, 2.5, 1)),
                (p.advance, (0.5,)),
                (p.free_at, (1.5,)),
                (p.earliest_start, (1, 2.5, 0)),
            ):
                with pytest.raises(TypeError):
                    method(*args)
            p.reserve(np.int64(0), np.int64(3), np.int64(2))
            assert p.times == [0, 3] and p.free == [2, 4]
            assert p.earliest_start(3, 1, np.int64(0)) == 3


def _copy_scheduler(tmp_path):
    dest = tmp_path / "scheduler"
    shutil.copytree(ROOT / "scheduler", dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _status_in(path, env_extra=None, code="", end="print(native_status())"):
    env = {k: v for k, v in os.environ.items() if k != _native.PURE_ENV}
    env.update(env_extra or {})
    env["PYTHONPATH"] = str(path)
    return subprocess.run(
        [sys.executable, "-c", f"{code}\nfrom scheduler.cluster import native_status\n{end}"],
        cwd=path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_build_of_another_source_is_not_loaded(tmp_path):
    _compiled()  # needs a build to copy
    pkg = _copy_scheduler(tmp_path)
    module, why = _native.load_compiled(NAME, directory=str(pkg / "cluster"))
    assert module is not None and why == "compiled"  # an exact copy is fine
    src = pkg / "cluster" / "_compress.py"
    src.write_text(src.read_text() + "\n# edited after the build\n")
    module, why = _native.load_compiled(NAME, directory=str(pkg / "cluster"))
    assert module is None and why.startswith("stale compiled build")
    # and the engine, imported from that copy, runs the edited source, saying so
    out = _status_in(tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("pure: stale compiled build"), out.stdout
    assert "RuntimeWarning" in out.stderr and "make setup" in out.stderr


def test_a_build_hashes_the_pxd_it_cimports_from_another_folder(tmp_path):
    """The pricing kernels (scheduler/pricing/_easy.py, _replan.py) inline the bodies of the
    cluster's step library, scheduler/cluster/_steps.pxd: a change there makes their builds
    stale too, and a ``.pxd`` neither beside the source nor cimported by it does not count."""
    kernel = tmp_path / "scheduler" / "pricing" / "_easy.py"
    steps = tmp_path / "scheduler" / "cluster" / "_steps.pxd"
    other = tmp_path / "scheduler" / "cluster" / "_other.pxd"
    for path, text in (
        (kernel, "from cython.cimports.scheduler.cluster._steps import index\n"),
        (steps, "cdef inline int index(): return 0\n"),
        (other, "# other\n"),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    before = _native.source_sha256(kernel)
    other.write_text("# changed\n")
    assert _native.source_sha256(kernel) == before
    steps.write_text("cdef inline int index(): return 1\n")
    assert _native.source_sha256(kernel) != before
    # the library's .py too: the kernel calls its compiled functions, so when the library's
    # build is stale (pure Python loaded in its place), the kernel's must be stale as well
    before = _native.source_sha256(kernel)
    steps.with_suffix(".py").write_text("def index(): return 1\n")
    assert _native.source_sha256(kernel) != before
    # the real kernels name the real library (the cluster loop has it beside it)
    for name in ("_easy.py", "_replan.py"):
        real = ROOT / "scheduler" / "pricing" / name
        assert _native._cimported_pxd(real, real.read_text()) == [
            ROOT / "scheduler" / "cluster" / "_steps.pxd"
        ]


def test_an_edited_step_library_leaves_every_kernel_that_cimports_it_pure(tmp_path):
    """Edit scheduler/cluster/_steps.py after a build: its build is stale, and so are the
    kernels that call it, so the engine runs the pure sources together, whichever is loaded
    first (before, a fresh pricing kernel imported over the pure library failed with
    AttributeError: no ``__pyx_capi__``)."""
    for name in ("scheduler.cluster._steps", "scheduler.pricing._easy"):
        compiled(name)  # skips without a build, except under CI (make test builds it)
    pkg = _copy_scheduler(tmp_path)
    steps = pkg / "cluster" / "_steps.py"
    steps.write_text(steps.read_text() + "\n# edited after the build\n")
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from scheduler import _native\n"
        "_native.load('scheduler.cluster._steps')\n"
        "for name in ('scheduler.pricing._easy', 'scheduler.pricing._replan',"
        " 'scheduler.cluster._loop', 'scheduler.cluster._compress'):\n"
        "    _native.load(name)\n"
    )
    end = "print(sorted(set(v.split(':')[0] for v in _native.status().values())))"
    out = _status_in(tmp_path, None, code, end)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['pure']", out.stdout


def test_status_and_the_pure_python_switch(tmp_path):
    module, why = _native.load_compiled(NAME)
    if os.environ.get(_native.PURE_ENV, "") not in ("", "0"):
        assert native_status() == f"pure: {_native.PURE_ENV} is set"
    else:
        assert native_status() == ("compiled" if module is not None else f"pure: {why}")
    out = _status_in(ROOT, {_native.PURE_ENV: "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"pure: {_native.PURE_ENV} is set"
    pkg = _copy_scheduler(tmp_path)
    for so in pkg.rglob("*.so"):
        so.unlink()
    out = _status_in(tmp_path)
    assert out.stdout.strip() == "pure: no compiled build" and not out.stderr


def test_the_engine_runs_without_cython(tmp_path):
    """Cython hidden (import fails): the kernel's source runs on the stand-in and schedules
    as before (compared with this process's kernel, compiled or not)."""
    trace = deep_queue_trace(7, jobs=150, procs=16)
    expected = run_policy(trace, 16, "conservative")
    code = (
        "import sys\n"
        "sys.modules['cython'] = None; sys.modules['Cython'] = None\n"
        "from scheduler import _native\n"
        "import scheduler.cluster._compress as k\n"
        "assert k.cython is _native.cython_shim, k.cython\n"
        "from tests.scheduler.native_helpers import deep_queue_trace, run_policy\n"
    )
    end = (
        "print(native_status())\n"
        "print(run_policy(deep_queue_trace(7, 150, 16), 16, 'conservative'))"
    )
    out = _status_in(ROOT, {_native.PURE_ENV: "1"}, code, end)
    assert out.returncode == 0, out.stderr
    status, starts = out.stdout.splitlines()
    assert status.startswith("pure:")
    assert starts == str(expected)


def test_make_rebuilds_when_any_listed_module_changes():
    """The Makefile's build depends on exactly setup.py's NATIVE_MODULES (read from it)."""
    import ast

    make = shutil.which("make")
    if make is None:
        pytest.skip("no make")
    tree = ast.parse((ROOT / "setup.py").read_text())
    listed = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "NATIVE_MODULES"
    )
    assert "scheduler/cluster/_compress.py" in listed
    out = subprocess.run(
        [make, "-s", "--no-print-directory", "--eval", "print-native: ; @echo $(NATIVE_SRC)"]
        + ["print-native"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == listed
    assert all((ROOT / p).is_file() for p in listed)
