"""The ``usage-policy`` experiment kind, its workloads and its command line."""

import io
import json
from pathlib import Path

import pytest

from scheduler import experiments
from scheduler.experiments import ParamError, run_experiment
from scheduler.traces.swf import read_swf
from scheduler.usage import load_policy_document
from scheduler.usage.scenarios import scenario_document, seed004_document, seed004_testbed_document
from scheduler.usage.workload import parse_weights, poisson_jobs, swf_jobs
from tests.conftest import scheduler_cli as cli

from .usage_helpers import document

ROOT = Path(__file__).resolve().parents[2]
STRATEGIES = ("spep", "rm-fairshare", "none")
FIVE = ("BUPV", "EUPV", "ARU", "ART", "AJC")
SMALL = {"jobs": 60, "duration": 600, "site_cpus": 20}


def test_kind_is_registered_with_presets():
    kind = experiments.get_kind("usage-policy")
    assert {p.name for p in kind.presets} == {"seed004-2sites", "seed004-5sites", "seed004-testbed"}
    two = kind.preset("seed004-2sites").params
    assert two["jobs"] == 440 and two["duration"] == 3600 and two["scenario"] == "seed004-2sites"
    assert kind.validate(two)  # presets are valid parameters
    assert kind.validate(kind.preset("seed004-5sites").params)["scenario"] == "seed004-5sites"
    assert [i.name for i in kind.inputs] == ["policies", "traces"]


def test_seed_scenario_policies():
    ps = load_policy_document(seed004_document(2, 100))
    assert [s.name for s in ps.sites] == ["site0", "site1"]
    p = ps.policy("site1", "VO0")
    assert (p.epoch.interval, p.epoch.percent, p.burst.interval, p.burst.percent) == (
        3600,
        20,
        5,
        60,
    )
    p = ps.policy("site0", "VO1")
    assert (p.epoch.percent, p.burst.percent) == (80, 90)
    assert ps.vo("VO0").groups == ("G0", "G1")
    assert len(load_policy_document(seed004_document(5, 40)).sites) == 5


def test_summary_holds_the_five_metrics_per_strategy():
    result = run_experiment("usage-policy", SMALL, {}, seed=1)
    s = result["summary"]
    for strategy in STRATEGIES:
        for metric in FIVE:
            value = s[f"{strategy}.{metric}"]
            assert isinstance(value, int | float) and not isinstance(value, bool), metric
    assert s["spep.BUPV"] == 0  # the simulated S-PEP never lets a VO past its burst share
    assert 0 < s["none.ARU"] <= 1 and 0 < s["spep.AJC"] <= 1
    assert s["jobs"] == 60 and s["sites"] == 2 and s["policy_source"] == "seed004-2sites"
    assert all(key in result["summary_labels"] for key in s)


def test_charts_tables_and_sizes():
    result = run_experiment("usage-policy", {**SMALL, "series_points": 50}, {}, seed=1)
    charts = {c["id"]: c for c in result["charts"]}
    bars = charts["violations"]
    assert [s["name"] for s in bars["series"]] == ["BUPV", "EUPV", "ARU"]
    assert [p[0] for p in bars["series"][0]["points"]] == list(STRATEGIES)
    for strategy in STRATEGIES:
        for cid in ("site-site0", "site-site1", "vo-VO0", "vo-VO1", "group-VO0.G0"):
            assert f"{strategy}-{cid}" in charts
    site = charts["spep-site-site0"]
    names = [s["name"] for s in site["series"]]
    assert names[:4] == ["VO0 share", "VO0 epoch usage", "VO0 epoch policy", "VO0 burst policy"]
    assert site["series"][2]["points"] == [[0, 0.2], [600, 0.2]]
    assert site["series"][3]["points"] == [[0, 0.6], [600, 0.6]]
    group = charts["spep-group-VO0.G0"]  # absolute: 50 % of VO0's 20 % = 10 % of the grid
    assert group["series"][2]["points"][0] == [0, 0.1]
    for chart in result["charts"]:
        for series in chart["series"]:
            assert len(series["points"]) <= 50
    tables = {t["id"]: t for t in result["tables"]}
    rows = tables["metrics"]["rows"]
    assert {(r[0], r[1]) for r in rows} >= {(s, "grid") for s in STRATEGIES}
    assert any(r[1] == "group" and r[2] == "VO0.G1" for r in rows)
    assert len(tables["policies"]["rows"]) == 6
    # the stored Result stays small
    assert len(json.dumps(run_experiment("usage-policy", {}, {}, seed=0))) < 400_000


def test_deterministic_for_a_seed():
    a = run_experiment("usage-policy", SMALL, {}, seed=3)
    b = run_experiment("usage-policy", SMALL, {}, seed=3)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    c = run_experiment("usage-policy", SMALL, {}, seed=4)
    assert c["summary"] != a["summary"]


def test_policy_input_overrides_the_scenario_and_reports_non_cpu_policies():
    doc = document(
        {"a": 8, "b": 8, "c": 8},
        {"X": [], "Y": ["y1"]},
        [
            ("a", "X", 60, 80),
            ("a", "Y", 60, 80),  # 120 %: over-provisioned
            ("b", "Y", 50, 100),
            ("c", "X", 50, 100, 3600, 5, "STORAGE"),
            ("Y", "Y.y1", 100, 100),
        ],
    )
    result = run_experiment(
        "usage-policy", {"jobs": 40, "duration": 300, "spep": True, "none": False,
                         "rm_fairshare": False}, {"policies": [doc]}, seed=0,
    )  # fmt: skip
    s = result["summary"]
    assert s["policy_source"] == "input" and s["sites"] == 3 and s["vos"] == 2
    assert s["policies_not_simulated"] == 1 and s["warnings"] == 1
    assert "spep.BUPV" in s and "none.BUPV" not in s
    tables = {t["id"]: t for t in result["tables"]}
    assert "over-provisioned" in tables["warnings"]["rows"][0][0]
    assert ["STORAGE", "c", "X", 3600, 50.0, 5, 100.0, "no"] in tables["policies"]["rows"]
    # site c gives X only STORAGE: no CPU is ever used there
    assert all(j == 0 for _, j in _chart_values(result, "spep-site-c"))


def _chart_values(result, cid):
    chart = next(c for c in result["charts"] if c["id"] == cid)
    return [p for s in chart["series"] if s["name"].endswith("share") for p in s["points"]]


def test_parameter_errors():
    with pytest.raises(ParamError) as err:
        run_experiment("usage-policy", {"scenario": "custom"}, {})
    assert "policy document" in err.value.errors["scenario"]
    with pytest.raises(ParamError) as err:
        run_experiment("usage-policy", {"weights": "VO7=1"}, {})
    assert "VO7" in err.value.errors["weights"]
    with pytest.raises(ParamError) as err:
        run_experiment("usage-policy", {"spep": False, "rm_fairshare": False, "none": False}, {})
    assert "spep" in err.value.errors
    with pytest.raises(experiments.InputError):
        run_experiment("usage-policy", {}, {"policies": [{}, {}]})


def test_progress_reaches_the_end_and_cancel_propagates():
    seen = []
    run_experiment("usage-policy", SMALL, {}, progress=lambda f, m: seen.append(f))
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) > 10

    def cancel(fraction, message):
        if "rm-fairshare" in message:
            raise experiments.Cancelled()

    with pytest.raises(experiments.Cancelled):
        run_experiment("usage-policy", SMALL, {}, progress=cancel)


def test_poisson_streams_follow_the_weights():
    ps = load_policy_document(seed004_document(2, 100))
    weights = parse_weights("VO0.G0=2, VO0.G1=1, VO1=6", ps)
    assert weights == {"VO0.G0": 2, "VO0.G1": 1, "VO1": 6}
    assert parse_weights("", ps) == {"VO0.G0": 0.5, "VO0.G1": 0.5, "VO1": 1}
    assert parse_weights("VO0=1", ps) == {"VO0.G0": 0.5, "VO0.G1": 0.5, "VO1": 0}
    with pytest.raises(ValueError, match="NAME=WEIGHT"):
        parse_weights("VO1=-1", ps)
    jobs = poisson_jobs(
        weights, jobs=9000, duration=3600, runtime_dist="exponential", runtime_mean=100,
        procs_dist="powers-of-two", procs_max=8, seed=2,
    )  # fmt: skip
    assert len(jobs) == 9000 and all(0 <= j.submit < 3600 for j in jobs)
    assert [j.submit for j in jobs] == sorted(j.submit for j in jobs)
    share = sum(j.consumer == "VO1" for j in jobs) / len(jobs)
    assert share == pytest.approx(6 / 9, abs=0.02)
    assert {j.procs for j in jobs} == {1, 2, 4, 8}
    assert sum(j.runtime for j in jobs) / len(jobs) == pytest.approx(100.5, rel=0.05)


SWF = """; MaxProcs: 64
1 100 0 50 4 -1 -1 4 60 -1 1 7 0 1 1 1 -1 -1
2 110 0 30 2 -1 -1 2 60 -1 1 8 1 1 1 1 -1 -1
3 120 0 -1 2 -1 -1 2 60 -1 1 9 2 1 1 1 -1 -1
4 130 0 20 1 -1 -1 1 60 -1 1 9 3 1 1 1 -1 -1
5 5000 0 20 1 -1 -1 1 60 -1 1 9 3 1 1 1 -1 -1
"""


def test_swf_users_and_groups_map_to_vos_and_groups():
    trace = read_swf(io.BytesIO(SWF.encode()))
    ps = load_policy_document(seed004_document(2, 100))
    jobs, dropped = swf_jobs(trace.jobs, ps, vo_key="group", group_key="user", duration=3600)
    assert dropped == 1  # job 3 has no runtime
    # group 0 → VO0 (user 7 → G1), group 1 → VO1, group 3 → VO1; job 5 is after an hour
    assert [(j.submit, j.consumer, j.procs, j.runtime) for j in jobs] == [
        (0, "VO0.G1", 4, 50),
        (10, "VO1", 2, 30),
        (30, "VO1", 1, 20),
    ]
    jobs, _ = swf_jobs(trace.jobs, ps, vo_key="user", group_key="user")
    # user 7 → VO1; user 8 → VO0 with group (8 // 2) mod 2 = 0; user 9 → VO1
    assert [j.consumer for j in jobs] == ["VO1", "VO0.G0", "VO1", "VO1"]
    result = run_experiment(
        "usage-policy", {"duration": 0, "site_cpus": 8}, {"traces": [trace]}, seed=0
    )
    assert result["summary"]["jobs"] == 4 and result["summary"]["horizon_s"] == 4901


def test_cli_runs_without_files(tmp_path):
    params = tmp_path / "p.json"
    params.write_text(json.dumps(SMALL))
    out_path = tmp_path / "r.json"
    out = cli("run", "usage-policy", "--params", str(params), "--out", str(out_path))
    assert out.returncode == 0, out.stderr
    result = json.loads(out_path.read_text())
    assert result["kind"] == "usage-policy"
    for strategy in STRATEGIES:
        for metric in FIVE:
            assert f"{strategy}.{metric}" in result["summary"]
    assert json.loads(out.stdout) == result["summary"]


def test_cli_with_a_policy_document(tmp_path):
    doc = document({"x": 16}, {"A": [], "B": []}, [("x", "A", 25, 50), ("x", "B", 75, 100)])
    policies = tmp_path / "policies.json"
    policies.write_text(json.dumps(doc))
    params = tmp_path / "p.json"
    params.write_text(json.dumps({"scenario": "custom", "jobs": 50, "duration": 600}))
    out_path = tmp_path / "r.json"
    out = cli(
        "run", "usage-policy", "--policies", str(policies), "--params", str(params),
        "--seed", "2", "--out", str(out_path),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    summary = json.loads(out_path.read_text())["summary"]
    assert summary["policy_source"] == "input" and summary["cpus"] == 16
    assert summary["spep.BUPV"] == 0

    doc["policies"][1]["epoch"]["percent"] = 175
    policies.write_text(json.dumps(doc))
    out = cli("run", "usage-policy", "--policies", str(policies), "--out", str(out_path))
    assert out.returncode == 2
    assert "$.policies[1].epoch.percent" in out.stderr and "175" in out.stderr
    out = cli("run", "trace-stats", "--policies", str(policies), "--out", str(out_path))
    assert out.returncode == 2 and "policies" in out.stderr


def test_testbed_scenario_is_slide_23():
    ps = load_policy_document(seed004_testbed_document(200))
    assert [(s.name, s.cpus) for s in ps.sites] == [("Site0", 200)]
    assert [v.groups for v in ps.vos] == [(), ()]
    shares = {
        p.consumer: (p.epoch.interval, p.epoch.percent, p.burst.interval, p.burst.percent)
        for p in ps.policies
    }
    assert shares == {"VO0": (3000, 20, 30, 60), "VO1": (3000, 80, 30, 90)}
    assert scenario_document("seed004-testbed", 50)["sites"] == [{"name": "Site0", "cpus": 50}]
    with pytest.raises(ValueError, match="unknown scenario"):
        scenario_document("seed004-3sites", 50)


def test_testbed_preset_measures_the_comparison_table():
    from scheduler.experiments.claims import of
    from scheduler.experiments.usage_policy import BATCH_ROWS, TESTBED_CPUS
    from scheduler.labels import label_of

    kind = experiments.get_kind("usage-policy")
    preset = kind.preset("seed004-testbed")
    result = run_experiment("usage-policy", preset.params, {}, seed=0)
    s = result["summary"]
    assert (s["policy_source"], s["sites"], s["cpus"], s["groups"]) == (
        "seed004-testbed",
        1,
        TESTBED_CPUS,
        0,
    )
    assert s["jobs"] == 440 and s["horizon_s"] == 3600
    # the simulations' rates per VO: VO1 submits about twice as many jobs as VO0
    workload = {r[0]: r[1] for t in result["tables"] if t["id"] == "workload" for r in t["rows"]}
    assert set(workload) == {"VO0", "VO1"} and 1.5 < workload["VO1"] / workload["VO0"] < 2.5
    claims = of("usage-policy", "seed004-testbed")
    assert len(claims) == 15
    for e in claims:  # every claim is measured: one simulation per row of the table
        assert e.metric in s and (not isinstance(e.than, str) or e.than in s), e.metric
    # each row of the table is checked against its own strategy, once per metric
    rows = [e.metric for e in claims if e.value is not None]
    assert sorted(rows) == sorted(f"{r}.{m}" for r in BATCH_ROWS for m in ("BUPV", "EUPV", "ARU"))
    # the one calibrated unknown, the testbed's size, was fitted on ONE row's ARU: that row is
    # fitted (shown, not counted), the other three ARUs are independent checks
    fitted = {e.metric for e in claims if e.fitted}
    assert fitted == {"rm-condor.ARU"}
    (calibrated,) = [e for e in claims if e.fitted]
    assert "site-size" in calibrated.fitted and calibrated.value == 0.732
    # BUPV is 0 in every row and seed, the S-PEP's EUPV by design: constant, never counted
    constant = {e.metric for e in claims if e.constant and e.value is not None}
    assert constant == {f"{r}.BUPV" for r in BATCH_ROWS} | {"spep-condor.EUPV", "spep-pbs.EUPV"}
    assert preset.spread is not None and preset.spread.values == tuple(range(10))
    for key in [f"{r}.{m}" for r in BATCH_ROWS for m in ("BUPV", "EUPV", "ARU")]:
        assert 0 <= s[key] <= 1
        assert "violation" in label_of(key) or "utilisation" in label_of(key)
    assert set(result["key"]) == {*(f"{r}.EUPV" for r in BATCH_ROWS), "spep-mean.ARU",
                                  "rm-mean.ARU"}  # fmt: skip


def test_testbed_size_is_calibrated_on_one_row():
    """The calibration the DEVIATIONS state: over seeds 0–9 RM/Condor's ARU on TESTBED_CPUS is
    its published 73.2 % (it moves by about 0.002 per CPU here, so 0.003 leaves no other
    even size as close)."""
    from scheduler.experiments.usage_policy import (
        TESTBED_ARU_TARGET,
        TESTBED_CALIBRATION_ROW,
        TESTBED_CPUS,
    )

    preset = experiments.get_kind("usage-policy").preset("seed004-testbed").params
    params = {**preset, "none": False}
    key = f"{TESTBED_CALIBRATION_ROW}.ARU"
    runs = [
        run_experiment("usage-policy", {**params, "site_cpus": TESTBED_CPUS}, {}, seed=seed)
        for seed in range(10)
    ]
    assert abs(sum(r["summary"][key] for r in runs) / 10 - TESTBED_ARU_TARGET) < 0.003


def test_batch_system_settings_reach_the_simulation():
    base = {**SMALL, "scenario": "seed004-testbed", "site_cpus": 12, "spep": False,
            "rm_fairshare": False, "none": False, "rm_condor": True, "spep_pbs": True}  # fmt: skip
    fast = run_experiment("usage-policy", base, {}, seed=3)["summary"]
    slow = run_experiment(
        "usage-policy",
        {**base, "condor_negotiator_interval": 300, "maui_rmpollinterval": 300},
        {},
        seed=3,
    )["summary"]
    assert set(fast) >= {"rm-condor.ARU", "spep-pbs.ARU"} and "rm-pbs.ARU" not in fast
    # a five-minute cycle leaves the site idle between cycles
    assert slow["rm-condor.ARU"] < fast["rm-condor.ARU"]
    assert slow["spep-pbs.ARU"] < fast["spep-pbs.ARU"]
    kind = experiments.get_kind("usage-policy")
    with pytest.raises(ParamError):
        kind.validate({**base, "maui_fsdecay": 1.5})
    with pytest.raises(ParamError):
        kind.validate({**base, "condor_negotiator_interval": 0})
