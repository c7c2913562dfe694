"""The engine seam: registry, parameter schema, trace-stats on hand-made traces, CLI."""

import io
import json
from pathlib import Path

import pytest

from scheduler import experiments
from scheduler.experiments import Param, ParamError, run_experiment, validate_params
from scheduler.traces.swf import read_swf
from tests.conftest import scheduler_cli as cli

ROOT = Path(__file__).resolve().parents[2]

# Two jobs on an 8-processor machine, hand-computable:
# job 1: submit 0, wait 10, run 100, 4 procs, requested 200 → ends 110, accuracy 0.5
# job 2: submit 3600, wait 0, run 50, 1 proc, requested 40 (ran past its request) → ends 3650
TINY = """; MaxProcs: 8
; UnixStartTime: 0
; TimeZoneString: UTC
1 0 10 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1
2 3600 0 50 1 -1 -1 1 40 -1 1 2 1 1 1 1 -1 -1
"""


def tiny_trace():
    return read_swf(io.BytesIO(TINY.encode()))


def test_registry_lists_trace_stats():
    assert "trace-stats" in [k.name for k in experiments.kinds()]
    with pytest.raises(KeyError, match="unknown experiment kind 'nope'"):
        experiments.get_kind("nope")


def test_schema_defaults_and_errors_per_field():
    schema = (
        Param("n", "int", 5, min=1, max=10),
        Param("x", "float", 0.5, min=0, max=1),
        Param("mode", "choice", "a", choices=("a", "b")),
        Param("flag", "bool", False),
    )
    assert validate_params(schema, {}) == {"n": 5, "x": 0.5, "mode": "a", "flag": False}
    assert validate_params(schema, {"n": "7", "flag": "true"})["n"] == 7
    with pytest.raises(ParamError) as err:
        validate_params(schema, {"n": 0, "x": "abc", "mode": "c", "flag": "maybe", "zz": 1})
    assert set(err.value.errors) == {"n", "x", "mode", "flag", "zz"}
    assert "must be >= 1" in err.value.errors["n"]
    assert "unknown parameter" in err.value.errors["zz"]
    with pytest.raises(ParamError, match="integer"):
        validate_params(schema, {"n": 2.5})
    with pytest.raises(ParamError, match="finite"):
        validate_params(schema, {"x": float("nan")})


def test_trace_stats_by_hand():
    result = run_experiment("trace-stats", {}, {"traces": [tiny_trace()]})
    s = result["summary"]
    assert s["jobs"] == 2 and s["machine_procs"] == 8
    assert s["first_submit"] == 0 and s["last_end"] == 3650
    assert s["offered_load"] == pytest.approx((100 * 4 + 50 * 1) / (8 * 3650), abs=1e-4)
    assert s["serial_fraction"] == 0.5 and s["largest_job_procs"] == 4
    assert s["mean_estimate_accuracy"] == pytest.approx((0.5 + 1.25) / 2)
    charts = {c["id"]: c for c in result["charts"]}
    sizes = dict(charts["job-sizes"]["series"][0]["points"])
    assert sizes == {"1": 1, "2": 0, "3–4": 1}
    hours = dict(charts["arrivals-by-hour"]["series"][0]["points"])
    assert hours["00"] == 1 and hours["01"] == 1 and sum(hours.values()) == 2
    acc = dict(charts["estimate-accuracy"]["series"][0]["points"])
    assert acc["50–60 %"] == 1 and acc["> 100 % (ran past request)"] == 1
    assert sum(acc.values()) == 2
    cdf = charts["runtime-cdf"]["series"][0]["points"]
    assert cdf[0] == [50.0, 0.0] and cdf[-1] == [100.0, 1.0]


def test_trace_stats_machine_override_and_time_zone():
    text = TINY.replace("UTC", "America/New_York")
    trace = read_swf(io.BytesIO(text.encode()))
    result = run_experiment("trace-stats", {"procs": 4}, {"traces": [trace]})
    assert result["summary"]["machine_procs"] == 4
    chart = next(c for c in result["charts"] if c["id"] == "arrivals-by-hour")
    assert "America/New_York" in chart["title"]
    hours = dict(chart["series"][0]["points"])
    assert hours["19"] == 1 and hours["20"] == 1  # 1970-01-01 00:00 UTC is 19:00 EST


def test_inputs_are_checked():
    with pytest.raises(experiments.InputError, match="needs 1 traces; got 0"):
        run_experiment("trace-stats", {}, {"traces": []})
    with pytest.raises(experiments.InputError, match="takes no 'workflows'"):
        run_experiment("trace-stats", {}, {"traces": [tiny_trace()], "workflows": ["w"]})


def test_result_is_deterministic_json():
    a = run_experiment("trace-stats", {}, {"traces": [tiny_trace()]}, seed=3)
    b = run_experiment("trace-stats", {}, {"traces": [tiny_trace()]}, seed=3)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_progress_is_reported_and_can_cancel():
    seen = []
    run_experiment(
        "trace-stats", {}, {"traces": [tiny_trace()]}, progress=lambda f, m: seen.append(f)
    )
    assert seen == sorted(seen) and seen[-1] == 1.0

    def cancel(fraction, message):
        if fraction > 0.5:
            raise experiments.Cancelled()

    with pytest.raises(experiments.Cancelled):
        run_experiment("trace-stats", {}, {"traces": [tiny_trace()]}, progress=cancel)


def test_cli_kinds():
    out = cli("kinds")
    assert out.returncode == 0 and "trace-stats" in out.stdout.splitlines()


def test_cli_generate_and_run(tmp_path):
    swf = tmp_path / "gen.swf"
    out = cli(
        "generate-trace",
        "--model",
        "lublin99",
        "--jobs",
        "500",
        "--procs",
        "64",
        "--seed",
        "2",
        "--out",
        str(swf),
    )
    assert out.returncode == 0, out.stderr
    assert len(read_swf(swf).jobs) == 500
    params = tmp_path / "p.json"
    params.write_text(json.dumps({"procs": 80}))
    res = tmp_path / "r.json"
    out = cli(
        "run",
        "trace-stats",
        "--trace",
        str(swf),
        "--params",
        str(params),
        "--seed",
        "1",
        "--out",
        str(res),
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(res.read_text())
    assert result["summary"]["jobs"] == 500 and result["summary"]["machine_procs"] == 80
    assert json.loads(out.stdout) == result["summary"]
    again = tmp_path / "r2.json"
    cli(
        "run",
        "trace-stats",
        "--trace",
        str(swf),
        "--params",
        str(params),
        "--seed",
        "1",
        "--out",
        str(again),
    )
    assert again.read_bytes() == res.read_bytes()


def test_cli_errors_name_the_problem(tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("1 0 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1\n")
    out = cli("run", "trace-stats", "--trace", str(bad), "--out", str(tmp_path / "r.json"))
    assert out.returncode == 2 and "line 1" in out.stderr and "17" in out.stderr
    params = tmp_path / "p.json"
    params.write_text(json.dumps({"procs": -2}))
    good = tmp_path / "good.swf"
    good.write_text(TINY)
    out = cli(
        "run",
        "trace-stats",
        "--trace",
        str(good),
        "--params",
        str(params),
        "--out",
        str(tmp_path / "r.json"),
    )
    assert out.returncode == 2 and "procs: must be >= 0" in out.stderr
    out = cli("run", "nope", "--out", str(tmp_path / "r.json"))
    assert out.returncode == 2 and "unknown experiment kind" in out.stderr
    out = cli(
        "run",
        "trace-stats",
        "--preset",
        "zzz",
        "--trace",
        str(good),
        "--out",
        str(tmp_path / "r.json"),
    )
    assert out.returncode == 2 and "unknown preset" in out.stderr
    assert not (tmp_path / "r.json").exists()
