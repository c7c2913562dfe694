"""Experiment kind ``provisioning-impact`` (seed 003): a small end-to-end run, its
determinism and Result shape, and bad input answered with ParamError naming the field."""

from __future__ import annotations

import io
import json

import pytest

import scheduler.experiments.provisioning_impact  # noqa: F401  (registers the kind)
from scheduler.experiments import ParamError, run_experiment
from scheduler.traces.swf import read_swf
from scheduler.workflows import Task, Workflow, load_workflow
from tests.conftest import SHARED_DATA, make_swf_bytes, require

KIND = "provisioning-impact"

SMALL = {
    "procs": 64,
    "scale_jobs": False,
    "days": 11,
    "submit_hour": 100,
    "montage_images": 12,
    "runtime_scale": 20.0,
    "clusters_per_level": "1,4",
    "tasks_per_cluster": "2,8",
    "n_max": 16,
    "xs": "0,2",
}


@pytest.fixture(scope="module")
def trace():
    return read_swf(io.BytesIO(make_swf_bytes(jobs=400, procs=64)))


@pytest.fixture(scope="module")
def result(trace):
    return run_experiment(KIND, SMALL, {"traces": [trace]}, seed=3)


def test_result_shape_and_consistency(result):
    json.dumps(result, allow_nan=False)  # plain, finite JSON
    comp = next(t for t in result["tables"] if t["id"] == "completion")
    # 5 graphs (original + 2 + 2) x 3 policies
    assert len(comp["rows"]) == 15
    cols = comp["columns"]
    for row in comp["rows"]:
        r = dict(zip(cols, row, strict=True))
        # a provisioned run never finishes before its own execution on the request
        assert r["advance reservation (min)"] >= r["execution (min)"]
        assert r["dynamic provisioning (min)"] >= r["execution (min)"]
        assert 1 <= r["processors"] <= 16
    ids = {c["id"] for c in result["charts"]}
    assert {"figure7-fcfs", "figure8-fairshare", "figure9-fairshare-cb", "reduction"} <= ids
    sel = next(t for t in result["tables"] if t["id"] == "selection")
    assert {row[3] for row in sel["rows"]} == {0, 2}
    for spec in result["charts"]:
        if spec["type"] == "bar":
            assert all(isinstance(p[0], str) for s in spec["series"] for p in s["points"])


def test_summary_has_the_requests_per_x_and_the_best_pilot(result):
    # seed 003 §6 names the request chosen for each x; §5.1 the best dynamic provisioning
    # over all requests (690 min on 88 processors) beside that of the chosen one (699 on 84)
    s = result["summary"]
    sel = next(t for t in result["tables"] if t["id"] == "selection")
    for policy in ("fcfs", "fairshare", "fairshare-cb"):
        key = policy.replace("-", "_")
        label = {"fcfs": "FIFO", "fairshare": "fair share"}.get(policy, "fair share + backfilling")
        chosen = {row[3]: row[4] for row in sel["rows"] if row[0] == label and row[1] == "original"}
        assert {x: s[f"{key}_ar_procs_x{x}"] for x in (0, 2)} == chosen
        assert s[f"{key}_ar_procs_x0"] == s[f"{key}_ar_procs"]
        chart = next(c for c in result["charts"] if c["id"] == f"figure7-{policy}")
        dp = next(x for x in chart["series"] if x["name"] == "dynamic provisioning")["points"]
        best = min(dp, key=lambda p: (p[1], p[0]))
        assert (s[f"{key}_dp_best_procs"], s[f"{key}_dp_best_min"]) == (best[0], best[1])
        assert s[f"{key}_dp_best_min"] <= s[f"{key}_dp_min"]


def test_higher_x_never_lowers_utilization(result):
    sel = next(t for t in result["tables"] if t["id"] == "selection")
    by_graph: dict = {}
    for policy, fam, k, x, _n, util, *_ in sel["rows"]:
        by_graph.setdefault((policy, fam, k), {})[x] = util
    for utils in by_graph.values():
        assert utils[2] >= utils[0] - 1e-9


def test_deterministic(trace, result):
    again = run_experiment(KIND, SMALL, {"traces": [trace]}, seed=3)
    assert json.dumps(again, sort_keys=True) == json.dumps(result, sort_keys=True)


def test_uploaded_dax_is_used(trace):
    path = SHARED_DATA / "workflows" / "Montage_25.xml"
    require(path.exists(), f"{path} is missing")
    wf = load_workflow(path)
    params = dict(SMALL, families="original", policies="fcfs", figure7=False)
    res = run_experiment(KIND, params, {"traces": [trace], "workflows": [wf]}, seed=0)
    graphs = next(t for t in res["tables"] if t["id"] == "graphs")
    assert graphs["rows"][0][2] == 25  # the DAX's 25 tasks


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"policies": "fcfs,lottery"}, "policies"),
        ({"policies": " , "}, "policies"),
        ({"families": "random"}, "families"),
        ({"n_min": 20, "n_max": 10}, "n_min"),
        ({"n_max": 100}, "n_max"),  # more than the 64-processor cluster
        ({"submit_hour": 10_000}, "submit_hour"),
        ({"start_day": 5000}, "start_day"),
        ({"clusters_per_level": "1,x"}, "clusters_per_level"),
        ({"xs": "0,99"}, "xs"),
        ({"fs_decay": 2}, "fs_decay"),
    ],
)
def test_bad_params_name_the_field(trace, change, field):
    with pytest.raises(ParamError) as err:
        run_experiment(KIND, dict(SMALL, **change), {"traces": [trace]})
    assert field in err.value.errors


def test_workflow_wider_than_the_cluster(trace):
    wf = Workflow((Task("big", 10, 128),), (), "big")
    with pytest.raises(ParamError) as err:
        run_experiment(KIND, SMALL, {"traces": [trace], "workflows": [wf]})
    assert "workflows" in err.value.errors
    wf = Workflow((Task("wide", 10, 32),), (), "wide")
    with pytest.raises(ParamError) as err:
        run_experiment(KIND, SMALL, {"traces": [trace], "workflows": [wf]})
    assert "n_max" in err.value.errors  # no request of at most 16 processors can run it


def test_interval_changes_the_outcome(trace):
    # SMALL runs with the default 60-s interval; deciding at every event is faster for the
    # workflow without provisioning (its tasks need not wait for a tick).
    params = dict(SMALL, families="original", policies="fcfs", figure7=False)
    ticked = run_experiment(KIND, params, {"traces": [trace]}, seed=0)["summary"]
    eager = run_experiment(KIND, dict(params, interval=0), {"traces": [trace]}, seed=0)["summary"]
    assert ticked["fcfs_none_min"] > eager["fcfs_none_min"]
    with pytest.raises(ParamError) as err:
        run_experiment(KIND, dict(params, interval=-1), {"traces": [trace]})
    assert "interval" in err.value.errors


def test_seed003_presets_use_the_seed_set_up_and_deviations_name_the_seed():
    from scheduler.experiments import get_kind
    from scheduler.experiments.provisioning_impact import DEVIATIONS

    kind = get_kind(KIND)
    for preset in kind.presets:
        if preset.name.startswith("seed003"):
            assert preset.params["montage"] == "seed003", preset.name
            assert preset.params["interval"] == 60, preset.name
            assert preset.params["task_walltime_hours"] == 24.0, preset.name
    assert {
        "trace", "interval", "montage", "priority-weights", "request-selection",
        "task-walltime", "reservation-probe",
    } <= set(DEVIATIONS)  # fmt: skip
    for key, cause in DEVIATIONS.items():
        assert "§" in cause or "Table" in cause, f"{key}: name the place in seed 003"
