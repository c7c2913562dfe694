"""The public policy API (scheduler/policies.py, docs/policies.md): user policies run like the
built-in ones, the engine checks their decisions, and errors name the policy, job or line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scheduler.cluster import PolicyError, Simulator, prepare_jobs, resolve
from scheduler.cluster.jobs import SimJob
from scheduler.policies import DecisionPolicy, Job, PriorityPolicy, View, compare, simulate
from scheduler.traces.lublin import generate_lublin99
from scheduler.traces.swf import read_swf
from tests.conftest import SHARED_DATA, require

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
CTC = SHARED_DATA / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"


class FIFOStrict(PriorityPolicy):
    backfill = False

    def priority(self, job: Job, now: int) -> float:
        return 0.0  # ties go to queue order


class FIFOEasy(PriorityPolicy):
    reservations = 1

    def priority(self, job: Job, now: int) -> float:
        return -job.submit


class FCFSStep(DecisionPolicy):
    """FCFS written as a decision step."""

    def decide(self, view: View):  # type: ignore[no-untyped-def]
        free = view.free
        out = []
        for job in view.queue:
            if job.procs > free or view.free_over(view.now, view.now + job.estimate) < job.procs:
                break
            free -= job.procs
            out.append(job)
        return out


def starts(jobs, procs, policy):  # type: ignore[no-untyped-def]
    sim = Simulator(jobs, procs, policy)
    sim._run(None, None)  # the event loop itself (no whole-run acceleration)
    return sim.start


@pytest.fixture
def ctc():
    require(CTC.exists(), f"the CTC-SP2 trace is missing: {CTC}")
    return CTC


@pytest.fixture(scope="module")
def ctc_jobs():
    require(CTC.exists(), f"the CTC-SP2 trace is missing: {CTC}")
    trace = read_swf(CTC, limit=3000)
    return prepare_jobs(trace.jobs, 338, "requested")[0]


@pytest.mark.parametrize("seed", [1, 2])
def test_the_api_rebuilds_fcfs_and_easy_job_by_job(seed: int) -> None:
    """A FIFO priority without backfilling is FCFS; with one reservation it is EASY; FCFS as a
    decision step too — on generated traces, every start equal to the built-in reference."""
    jobs, _ = prepare_jobs(generate_lublin99(jobs=1500, procs=64, seed=seed).jobs, 64, "requested")
    fcfs = starts(jobs, 64, "fcfs")
    assert starts(jobs, 64, FIFOStrict) == fcfs
    assert starts(jobs, 64, FCFSStep) == fcfs
    assert starts(jobs, 64, FIFOEasy) == starts(jobs, 64, "easy")


def test_the_api_rebuilds_easy_on_a_real_trace(ctc_jobs) -> None:
    assert starts(ctc_jobs, 338, FIFOEasy) == starts(ctc_jobs, 338, "easy")


def test_examples_run_from_a_notebook_and_compare(ctc_jobs) -> None:
    """What docs/policies.md shows in a notebook: a class defined in the session, simulated
    and compared with the built-in policies on the same trace."""
    namespace: dict = {}
    exec((EXAMPLES / "sjf_easy.py").read_text(), namespace)  # as a notebook cell would
    sjf = namespace["SJF"]
    result = simulate(CTC, sjf, procs=338, estimates="requested", limit=3000)
    easy = simulate(CTC, "easy", procs=338, estimates="requested", limit=3000)
    assert result.summary()["jobs"] == easy.summary()["jobs"] == 3000
    # shortest first lowers the mean bounded slowdown against EASY's queue order on CTC
    assert result.summary()["mean_bounded_slowdown"] < easy.summary()["mean_bounded_slowdown"]
    table = compare(
        CTC, ["easy", "conservative", f"{EXAMPLES}/wfp3.py:WFP3"], procs=338, limit=3000
    )
    assert list(table) == ["easy", "conservative", f"{EXAMPLES}/wfp3.py:WFP3"]
    assert table["easy"] == easy.summary()


def test_cli_runs_the_tutorial_examples_against_the_builtins(tmp_path, ctc) -> None:
    res = subprocess.run(
        [
            sys.executable, "-m", "scheduler", "simulate", str(CTC), "--estimates", "requested",
            "--limit", "2000", "--policy", "easy", "--policy", "conservative",
            "--policy", "docs/examples/sjf_easy.py:SJF", "--policy", "docs/examples/wfp3.py:WFP3",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "338 processors (the trace header's MaxProcs)" in res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["policy"] for r in rows] == [
        "easy", "conservative", "docs/examples/sjf_easy.py:SJF", "docs/examples/wfp3.py:WFP3",
    ]  # fmt: skip
    assert {r["jobs"] for r in rows} == {2000} and {r["procs"] for r in rows} == {338}


# ---------------------------------------------------------------------- the contract's checks


def _jobs() -> list[SimJob]:
    return [SimJob(0, 1, 0, 10, 10, 4), SimJob(1, 2, 0, 10, 10, 4), SimJob(2, 3, 50, 10, 10, 1)]


class Greedy(DecisionPolicy):
    def decide(self, view: View):  # type: ignore[no-untyped-def]
        return [job.index for job in view.queue]  # ignores the machine's size


class Early(DecisionPolicy):
    def decide(self, view: View):  # type: ignore[no-untyped-def]
        return [2]  # job 3 is submitted at 50


def test_an_over_commit_is_refused_naming_policy_and_job() -> None:
    with pytest.raises(PolicyError, match=r"Greedy over-commits the machine: job 2 needs 4"):
        Simulator(_jobs(), 6, Greedy).run()


class NotANumber(PriorityPolicy):
    def priority(self, job: Job, now: int) -> float:
        return float("nan") if job.id == 2 else 1.0


def test_a_priority_that_is_not_a_finite_number_is_refused() -> None:
    with pytest.raises(PolicyError, match=r"NotANumber gave job 2 the priority nan"):
        Simulator(_jobs(), 6, NotANumber).run()


def test_a_start_before_submit_is_refused() -> None:
    with pytest.raises(PolicyError, match=r"Early started job 3 at 0, before its submit time 50"):
        Simulator(_jobs(), 6, Early).run()


def test_an_exception_in_user_code_names_file_and_line(tmp_path) -> None:
    path = tmp_path / "broken.py"
    path.write_text(
        "from scheduler.policies import PriorityPolicy\n\n\n"
        "class Broken(PriorityPolicy):\n"
        "    def priority(self, job, now):\n"
        "        return job.estimate / 0\n"
    )
    with pytest.raises(PolicyError, match=rf"{re.escape(str(path))}, line 6: division by zero"):
        Simulator(_jobs(), 6, resolve(f"{path}:Broken", files=True)).run()


@pytest.mark.parametrize(
    ("source", "cls", "message"),
    [
        ("def f(:\n", "X", r"line 1: invalid syntax"),
        ("x = 1\nraise RuntimeError('no')\n", "X", r"failed at .*, line 2: RuntimeError"),
        ("from scheduler.policies import PriorityPolicy\nclass A(PriorityPolicy):\n"
         "    def priority(self, job, now): return 0\n", "B",
         r"defines no 'B' \(policies in it: A\)"),
        ("class A:\n    pass\n", "A", r"subclass of scheduler.policies.PriorityPolicy"),
        ("from scheduler.policies import PriorityPolicy\nclass A(PriorityPolicy):\n    pass\n",
         "A", r"needs a priority\(\) method"),
    ],
)  # fmt: skip
def test_a_broken_policy_file_is_refused_naming_the_problem(tmp_path, source, cls, message):
    path = tmp_path / "mine.py"
    path.write_text(source)
    with pytest.raises(PolicyError, match=message):
        resolve(f"{path}:{cls}", files=True)


def test_a_policy_file_runs_only_when_the_caller_allows_it(tmp_path) -> None:
    """Text from a form or the simulator's own argument never makes the engine run a file."""
    marker = tmp_path / "ran"
    path = tmp_path / "evil.py"
    path.write_text(f"open({str(marker)!r}, 'w').close()\n")
    for attempt in (
        lambda: resolve(f"{path}:X"),
        lambda: Simulator(_jobs(), 6, f"{path}:X"),
    ):
        with pytest.raises(PolicyError, match="runs only from the command line"):
            attempt()
    assert not marker.exists()


def test_missing_file_and_bad_names(tmp_path) -> None:
    with pytest.raises(PolicyError, match="No such file"):
        resolve(f"{tmp_path}/none.py:X", files=True)
    with pytest.raises(PolicyError, match="unknown policy 'sjf'"):
        resolve("sjf")


def test_user_policies_take_a_scheduling_interval_and_name_their_source(tmp_path) -> None:
    ref = resolve(f"{EXAMPLES}/sjf_easy.py:SJF", files=True)
    assert ref.entry.decides_afresh and ref.entry.source["class"] == "SJF"
    assert len(ref.entry.source["sha256"]) == 64 and ref.title == "SJF + EASY"
    jobs, _ = prepare_jobs(generate_lublin99(jobs=200, procs=16, seed=3).jobs, 16, "requested")
    sim = Simulator(jobs, 16, ref, interval=60, origin=0).run()
    assert all(s % 60 == 0 for s in sim.start)


def test_the_notebook_runs_cell_by_cell(monkeypatch, capsys, ctc) -> None:
    """docs/examples/user-policy.ipynb: its code cells, run in order in one namespace as a
    kernel would, define the two tutorial policies and compare them with EASY and
    conservative backfilling."""
    notebook = json.loads((EXAMPLES / "user-policy.ipynb").read_text())
    monkeypatch.setenv("GRIDPORTAL_TRACE", str(CTC))
    monkeypatch.setenv("GRIDPORTAL_JOBS", "2000")
    namespace: dict = {"__name__": "__main__"}
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    for cell in code:
        exec("".join(cell["source"]), namespace)
    table = namespace["table"]
    assert [k for k in table][:2] == ["easy", "conservative"] and len(table) == 4
    assert {s["jobs"] for s in table.values()} == {2000}
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 4 and printed[0].startswith("easy")
