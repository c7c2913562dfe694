"""``python -m scheduler simulate`` (a stable contract) and the ``cluster-sim``
experiment kind (item 7)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from scheduler import experiments
from scheduler.experiments import run_experiment
from scheduler.traces.swf import read_swf
from tests.conftest import make_swf_bytes
from tests.conftest import scheduler_cli as cli

ROOT = Path(__file__).resolve().parents[2]

FIVE = """; MaxProcs: 5
1 0 -1 10800 2 -1 -1 2 10800 -1 1 1 1 1 1 1 -1 -1
2 0 -1 3600 4 -1 -1 4 3600 -1 1 1 1 1 1 1 -1 -1
3 0 -1 7200 1 -1 -1 1 7200 -1 1 1 1 1 1 1 -1 -1
4 0 -1 7200 3 -1 -1 3 7200 -1 1 1 1 1 1 1 -1 -1
5 0 -1 -1 3 -1 -1 3 7200 -1 1 1 1 1 1 1 -1 -1
"""


def test_simulate_writes_the_schedule_and_a_one_line_summary(tmp_path):
    trace = tmp_path / "five.swf"
    trace.write_text(FIVE)
    out = tmp_path / "schedule.csv"
    args = ["simulate", str(trace), "--procs", "5", "--policy", "easy", "--estimates", "requested"]
    res = cli(*args, "--out", str(out))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 1
    summary = json.loads(lines[0])
    assert summary["jobs"] == 4 and summary["dropped"] == 1
    assert summary["dropped_missing_runtime"] == 1
    assert summary["policy"] == "easy" and summary["procs"] == 5
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["job_id", "submit", "start", "end", "procs"]
    assert rows[1:] == [
        ["1", "0", "0", "10800", "2"],
        ["2", "0", "10800", "14400", "4"],
        ["3", "0", "0", "7200", "1"],
        ["4", "0", "14400", "21600", "3"],
    ]
    # same input, same bytes
    again = tmp_path / "again.csv"
    res2 = cli(*args, "--out", str(again))
    assert res2.stdout == res.stdout and again.read_bytes() == out.read_bytes()
    # without --out only the summary is printed
    res3 = cli(*args)
    assert res3.returncode == 0 and res3.stdout == res.stdout


def test_simulate_limit_and_gzip(tmp_path):
    import gzip

    trace = tmp_path / "gen.swf.gz"
    trace.write_bytes(gzip.compress(make_swf_bytes(jobs=400, procs=32, seed=3)))
    out = tmp_path / "s.csv"
    res = cli(
        "simulate", str(trace), "--procs", "32", "--policy", "conservative",
        "--estimates", "accurate", "--limit", "150", "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["jobs"] == 150
    rows = list(csv.DictReader(out.open()))
    first = [j.job_id for j in read_swf(trace).jobs[:150]]
    assert sorted(int(r["job_id"]) for r in rows) == sorted(first)
    assert all(int(r["start"]) >= int(r["submit"]) for r in rows)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--procs", "0"], "--procs must be >= 1"),
        (["--procs", "5", "--limit", "0"], "--limit must be >= 1"),
        (["--procs", "5", "--policy", "sjf"], "unknown policy 'sjf'"),
        (["--procs", "5", "--estimates", "guess"], "invalid choice"),
    ],
)
def test_simulate_bad_arguments_exit_2(tmp_path, extra, message):
    trace = tmp_path / "five.swf"
    trace.write_text(FIVE)
    base = {"--policy": "fcfs", "--estimates": "accurate"}
    for i in range(0, len(extra), 2):
        base.pop(extra[i], None)
    args = [a for kv in base.items() for a in kv]
    out = tmp_path / "s.csv"
    res = cli("simulate", str(trace), *args, *extra, "--out", str(out))
    assert res.returncode == 2 and message in res.stderr
    assert not out.exists()


def test_simulate_bad_trace_exit_2_naming_the_line(tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text(FIVE + "6 0 -1 10\n")
    out = tmp_path / "s.csv"
    args = ["--procs", "5", "--policy", "fcfs", "--estimates", "accurate", "--out", str(out)]
    res = cli("simulate", str(bad), *args)
    assert res.returncode == 2 and "line 7" in res.stderr
    assert not out.exists()
    res = cli("simulate", str(tmp_path / "missing.swf"), *args)
    assert res.returncode == 2 and "missing.swf" in res.stderr


# ------------------------------------------------------------------ experiment kind


def small_trace(jobs=300):
    return read_swf(io.BytesIO(make_swf_bytes(jobs=jobs, procs=32, seed=11)))


def test_cluster_sim_kind_compares_policies_and_estimates():
    kind = experiments.get_kind("cluster-sim")
    assert {p.name for p in kind.presets} >= {"ctc-thesis", "sdsc-thesis"}
    assert kind.preset("ctc-thesis").params["procs"] == 430
    seen = []
    result = run_experiment(
        "cluster-sim", {"cdf_points": 50, "time_bins": 40}, {"traces": [small_trace()]},
        progress=lambda f, m: seen.append(f),
    )  # fmt: skip
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) > 6
    rows = result["tables"][0]["rows"]
    assert [(r[0], r[1]) for r in rows] == [
        ("FCFS", "accurate"), ("EASY", "accurate"), ("Conservative", "accurate"),
        ("FCFS", "requested"), ("EASY", "requested"), ("Conservative", "requested"),
    ]  # fmt: skip
    charts = {c["id"]: c for c in result["charts"]}
    assert set(charts) == {"wait-cdf", "bsld-cdf", "utilization", "queue-length", "mean-wait"}
    for cid in ("wait-cdf", "bsld-cdf"):
        assert len(charts[cid]["series"]) == 6
        for s in charts[cid]["series"]:
            assert len(s["points"]) <= 50 and s["points"][-1][1] == 1.0
    assert all(len(s["points"]) == 40 for s in charts["utilization"]["series"])
    s = result["summary"]
    assert s["simulated_jobs"] == 300 and s["machine_procs"] == 32
    # backfilling never makes the mean wait worse than FCFS on this workload
    assert s["easy_accurate_mean_wait"] <= s["fcfs_accurate_mean_wait"]
    assert s["conservative_accurate_mean_wait"] <= s["fcfs_accurate_mean_wait"]
    again = run_experiment(
        "cluster-sim", {"cdf_points": 50, "time_bins": 40}, {"traces": [small_trace()]}
    )
    assert json.dumps(again, sort_keys=True) == json.dumps(result, sort_keys=True)


def test_cluster_sim_options_load_scaling_and_cancel():
    params = {"fcfs": False, "conservative": False, "accurate": False, "limit": 200}
    one = run_experiment("cluster-sim", params, {"traces": [small_trace()]})
    assert len(one["tables"][0]["rows"]) == 1 and one["summary"]["jobs"] == 200
    scaled = run_experiment(
        "cluster-sim",
        {**params, "load_method": "duplicate", "load_extra": 0.5},
        {"traces": [small_trace()]},
        seed=4,
    )
    assert scaled["summary"]["jobs"] > 200
    assert scaled["summary"]["offered_load"] > one["summary"]["offered_load"]
    with pytest.raises(experiments.ParamError):
        run_experiment("cluster-sim", {**params, "easy": False}, {"traces": [small_trace()]})

    def cancel(fraction, message):
        if fraction > 0.3:
            raise experiments.Cancelled()

    with pytest.raises(experiments.Cancelled):
        run_experiment("cluster-sim", {}, {"traces": [small_trace()]}, progress=cancel)


def test_cli_run_cluster_sim_with_preset(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_bytes(make_swf_bytes(jobs=200, procs=64, seed=5))
    out = tmp_path / "r.json"
    res = cli(
        "run", "cluster-sim", "--preset", "sdsc-thesis", "--trace", str(trace), "--out", str(out)
    )
    assert res.returncode == 0, res.stderr
    result = json.loads(out.read_text())
    assert result["summary"]["machine_procs"] == 128


def test_simulate_takes_a_reservation_depth(tmp_path):
    trace = tmp_path / "five.swf"
    trace.write_text(FIVE)
    base = ["simulate", str(trace), "--procs", "5", "--estimates", "requested"]
    outs = {}
    for policy in ("easy", "backfill-k=1", "conservative", "backfill-k=inf", "backfill-k"):
        out = tmp_path / f"{policy}.csv"
        res = cli(*base, "--policy", policy, "--out", str(out))
        assert res.returncode == 0, res.stderr
        outs[policy] = out.read_text()
    assert outs["backfill-k=1"] == outs["easy"]
    assert outs["backfill-k=inf"] == outs["conservative"]
    res = cli(*base, "--policy", "backfill-k=0")
    assert res.returncode == 2 and "reservation depth K" in res.stderr


def test_simulate_limit_stops_reading_early(tmp_path):
    # the line after the first two jobs is not SWF: --limit 2 never reads it
    trace = tmp_path / "t.swf"
    lines = FIVE.splitlines()
    trace.write_text("\n".join([*lines[:3], "garbage here", *lines[3:]]) + "\n")
    base = ["simulate", str(trace), "--procs", "5", "--policy", "fcfs", "--estimates", "accurate"]
    res = cli(*base, "--limit", "2")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["jobs"] == 2
    res = cli(*base)
    assert res.returncode == 2 and "line 4" in res.stderr


def test_the_command_line_loads_the_catalogue_only_for_the_kinds():
    """Start-up: ``simulate`` never imports the catalogue, scipy or highspy."""
    import subprocess
    import sys

    code = (
        "import sys; import scheduler.cli as c; c.build_parser(); "
        "heavy = [m for m in ('scheduler.experiments', 'scipy', 'highspy') if m in sys.modules]; "
        "print(heavy)"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"
    res = cli("simulate", "--help")
    assert res.returncode == 0 and "backfill-k" in res.stdout


# ------------------------------------------------------- the whole command's fast paths


def _workload(seed: int, jobs: int = 1500) -> bytes:
    """An SWF text with what the fast paths must get right: ties in submit time, jobs of
    runtime 0, jobs killed at their request, submits out of order, duplicate ids and jobs that
    are dropped (no runtime, no processors, wider than the machine)."""
    import random

    rng = random.Random(seed)
    lines = ["; MaxProcs: 64"]
    t = 0
    for i in range(1, jobs + 1):
        t += rng.choice([0, 0, rng.randrange(1, 600)])
        run = rng.choice([0, rng.randrange(1, 20_000), -1 if rng.random() < 0.01 else 5])
        r = max(run, 1)
        req = rng.choice([-1, 0, r, r * 2, max(1, r // 2), rng.randrange(1, 30_000)])
        procs = rng.choice([1, 2, rng.randrange(1, 65), 80 if rng.random() < 0.02 else 4])
        if rng.random() < 0.01:
            procs = -1
        submit = max(0, t - rng.randrange(50)) if rng.random() < 0.05 else t
        job_id = i - 1 if rng.random() < 0.01 else i
        lines.append(
            f"{job_id} {submit} -1 {run} {procs} -1 -1 {procs} {req} -1 1 "
            f"{rng.randrange(9)} 1 -1 {rng.randrange(3)} -1 -1 -1"
        )
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("estimates", ["requested", "accurate"])
def test_prepare_table_equals_prepare_jobs(seed, estimates):
    from scheduler.cluster.jobs import prepare_jobs, prepare_table
    from scheduler.traces.swf import read_swf_table

    data = _workload(seed)
    want = prepare_jobs(read_swf(io.BytesIO(data)).jobs, 64, estimates)
    got = prepare_table(read_swf_table(io.BytesIO(data))[1], 64, estimates)
    assert got == want
    assert [tuple(map(type, j)) for j in got[0]] == [tuple(map(type, j)) for j in want[0]]
    assert all(want[1].values()) and any(j.killed for j in want[0]) == (estimates == "requested")


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("procs", [64, 100])
def test_fcfs_replay_equals_the_event_loop(monkeypatch, seed, procs):
    """The whole-run FCFS replay (what ``Simulator.run`` does for plain FCFS; here the loop's
    Python source, as it compiles) and the general event loop give the same starts, the same
    samples and the same final state, on workloads with jobs of runtime 0."""
    from scheduler.cluster import whole_run as loops_module
    from scheduler.cluster.jobs import prepare_jobs
    from scheduler.cluster.simulator import Simulator
    from tests.scheduler.native_helpers import pure

    jobs, _ = prepare_jobs(read_swf(io.BytesIO(_workload(seed))).jobs, 64, "requested")
    assert any(j.runtime == 0 for j in jobs)
    loop = pure("scheduler.cluster._loop")
    taken: list[int] = []
    fake = SimpleNamespace(
        COMPILED=True, fits=loop.fits,
        replay_fcfs=lambda *a: taken.append(1) or loop.replay_fcfs(*a),
    )  # fmt: skip
    monkeypatch.setattr(loops_module, "_L", fake)
    fast = Simulator(jobs, procs, "fcfs").run()
    assert taken == [1]
    slow = Simulator(jobs, procs, "fcfs")
    slow._run(None, None)
    assert fast.start == slow.start and fast._series == slow._series
    assert (fast.now, fast.busy, fast.profile, fast.queued()) == (
        slow.now, slow.busy, slow.profile, slow.queued(),
    )  # fmt: skip
    assert fast.result(policy="fcfs").summary() == slow.result(policy="fcfs").summary()
    # with a fixed reservation, a scheduling interval or a step-by-step run: the event loop
    from scheduler.cluster.jobs import Reservation

    Simulator(jobs, procs, "fcfs", reservations=[Reservation(100, 50, 1)]).run()
    Simulator(jobs, procs, "fcfs", interval=60).run()
    Simulator(jobs, procs, "fcfs").run(until=jobs[10].submit).run()
    assert taken == [1]


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
def test_simulate_command_equals_the_library(tmp_path, policy):
    """The command (array reader, vectorised preparation, FCFS replay) prints what the library
    computes from the records; a trace with a kept field written with decimals takes the
    records' path and agrees too."""
    from scheduler.cluster import simulate

    plain = _workload(4)
    lines = plain.decode().split("\n")
    fields = lines[700].split()
    fields[3] += ".0"  # a runtime with decimals
    lines[700] = " ".join(fields)
    for name, data in (("plain.swf", plain), ("decimal.swf", "\n".join(lines).encode())):
        trace = tmp_path / name
        trace.write_bytes(data)
        out = tmp_path / f"{name}.csv"
        res = cli(
            "simulate", str(trace), "--procs", "64", "--policy", policy,
            "--estimates", "requested", "--out", str(out),
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        want = simulate(read_swf(trace), 64, policy, "requested")
        assert json.loads(res.stdout) == json.loads(json.dumps(want.summary()))
        buf = io.StringIO()
        want.write_csv(buf)
        assert out.read_text() == buf.getvalue()


def test_fcfs_replay_cancelled_then_run_again():
    """A cancellation raised by ``progress`` leaves the simulator as it was: run again, it
    gives the whole replay."""
    from scheduler.cluster.jobs import prepare_jobs
    from scheduler.cluster.simulator import Simulator

    jobs, _ = prepare_jobs(read_swf(io.BytesIO(_workload(5, jobs=12_000))).jobs, 64, "requested")
    whole = Simulator(jobs, 64, "fcfs").run()

    def cancel(fraction: float, message: str) -> None:
        raise KeyboardInterrupt(message)

    sim = Simulator(jobs, 64, "fcfs")
    with pytest.raises(KeyboardInterrupt):
        sim.run(progress=cancel)
    sim.run()
    assert sim.start == whole.start and sim._series == whole._series
