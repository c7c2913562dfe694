"""The ``malleability`` experiment kind (seed 002 Figures 6-8)."""

import io
import json

import pytest

import scheduler.experiments.malleability  # noqa: F401  (registers the kind)
from scheduler.experiments import ParamError, get_kind, run_experiment
from scheduler.traces.swf import read_swf
from tests.conftest import make_swf_bytes

SMALL = {"jobs": 40, "cdf_points": 20, "time_bins": 20}


def test_kind_is_registered_with_presets_named_after_the_seed_figures():
    kind = get_kind("malleability")
    names = {p.name for p in kind.presets}
    assert {"seed002-fig7-pra", "seed002-fig8-pwa"} <= names
    for p in kind.presets:
        assert kind.validate(p.params)
    fig7 = kind.preset("seed002-fig7-pra").params
    assert fig7["interarrival"] == 120 and fig7["jobs"] == 300
    assert kind.preset("seed002-fig8-pwa").params["interarrival"] == 30
    assert [i.name for i in kind.inputs] == ["traces"]
    defaults = kind.validate({})
    assert defaults["clusters"] == "85,41,68,46,32" and defaults["cluster_names"] == ""
    assert (defaults["min_procs"], defaults["max_gadget2"], defaults["max_ft"]) == (2, 46, 32)


def test_run_overlays_combos_and_is_deterministic():
    params = {**SMALL, "combos": "PRA/FPSMA/Wm,PWA/EGS/Wmr"}
    a = run_experiment("malleability", params, {}, seed=5)
    b = run_experiment("malleability", params, {}, seed=5)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    charts = {c["id"]: c for c in a["charts"]}
    for cid in ("avg-procs-cdf", "max-procs-cdf", "execution-cdf", "response-cdf",
                "utilization", "malleability-ops", "speedup"):  # fmt: skip
        assert cid in charts
    assert [s["name"] for s in charts["response-cdf"]["series"]] == [
        "PRA/FPSMA/Wm",
        "PWA/EGS/Wmr",
    ]
    rows = a["tables"][0]["rows"]
    assert [(r[0], r[1], r[2]) for r in rows] == [("PRA", "FPSMA", "Wm"), ("PWA", "EGS", "Wmr")]
    assert a["summary"]["pra_fpsma_wm.done"] == 40
    assert a["summary"]["pra_fpsma_wm.shrinks"] == 0  # PRA never shrinks
    for c in a["charts"]:
        for s in c["series"]:
            assert len(s["points"]) <= 2000
    # a different seed draws a different mix of applications
    c = run_experiment("malleability", params, {}, seed=6)
    assert c["summary"] != a["summary"]


def test_all_malleable_beats_half_rigid_on_execution_time():
    # seed 002's finding: malleability shortens execution times (W_m vs W_mr), both approaches
    r = run_experiment(
        "malleability", {**SMALL, "jobs": 100, "combos": "PRA/EGS/Wm,PRA/EGS/Wmr"}, {}, seed=1
    )
    s = r["summary"]
    assert s["pra_egs_wm.mean_execution"] < s["pra_egs_wmr.mean_execution"]
    assert s["pra_egs_wm.mean_max_procs"] > s["pra_egs_wmr.mean_max_procs"]


@pytest.mark.parametrize(
    "params, field",
    [
        ({"min_procs": 50, "max_gadget2": 46}, "max_gadget2"),
        ({"clusters": "85,0,68"}, "clusters"),
        ({"clusters": "85,x"}, "clusters"),
        ({"clusters": ""}, "clusters"),
        ({"app": "lammps"}, "app"),
        ({"combos": "PRA/ROUNDROBIN"}, "combos"),
        ({"combos": "FCFS/EGS"}, "combos"),
        ({"combos": "PRA/EGS,PRA/EGS"}, "combos"),
        ({"combos": "PRA/EGS/Wx"}, "combos"),
        ({"cluster_names": "a,a"}, "cluster_names"),
        ({"threshold": 32}, "threshold"),
        ({"min_procs": 100}, "min_procs"),
        ({"min_procs": 3, "max_ft": 3, "app": "ft"}, "max_ft"),
        ({"jobs": 0}, "jobs"),
    ],
)
def test_bad_input_is_a_param_error_naming_the_field(params, field):
    with pytest.raises(ParamError) as err:
        run_experiment("malleability", {**SMALL, **params}, {}, seed=0)
    assert field in err.value.errors


def test_runs_from_an_swf_trace_with_a_malleable_fraction():
    trace = read_swf(io.BytesIO(make_swf_bytes(jobs=60, procs=64, seed=2)))
    params = {"combos": "PWA/FPSMA", "malleable_fraction": 0.5, "trace_limit": 50,
              "cdf_points": 20, "time_bins": 20}  # fmt: skip
    r = run_experiment("malleability", params, {"traces": [trace]}, seed=4)
    s = r["summary"]
    assert s["pwa_fpsma_wmr.done"] + s["pwa_fpsma_wmr.failed"] == 50  # 0.5 is W_mr
    again = run_experiment("malleability", params, {"traces": [trace]}, seed=4)
    assert again == r


def test_figure_8_statement_holds_on_the_contended_setup_and_not_at_the_seed_load():
    # seed 002 §7: on W'_m "the response time is far worse for the combination of the EGS
    # policy … due to higher wait time", "the execution time is almost the same".
    kind = get_kind("malleability")
    s = run_experiment(
        "malleability", kind.preset("seed002-fig8-pwa-contended").params, {}, seed=0
    )["summary"]
    assert s["pwa_egs_wm.mean_response"] >= 1.5 * s["pwa_fpsma_wm.mean_response"]
    assert s["pwa_egs_wm.mean_wait"] > 5 * s["pwa_fpsma_wm.mean_wait"] > 0
    assert s["pwa_egs_wm.mean_execution"] == pytest.approx(
        s["pwa_fpsma_wm.mean_execution"], rel=0.1
    )
    # "This results from the high utilization … for this policy": the highest of the four
    utils = {k: v for k, v in s.items() if k.endswith(".utilization")}
    assert max(utils, key=utils.get) == "pwa_egs_wm.utilization"
    # at the seed's own load nothing waits: said in words, and no one-line wait chart
    r = run_experiment("malleability", kind.preset("seed002-fig8-pwa").params, {}, seed=0)
    assert all(r["summary"][f"pwa_{p}_{w}.mean_wait"] == 0
               for p in ("egs", "fpsma") for w in ("wm", "wmr"))  # fmt: skip
    assert "no wait-time chart" in r["summary"]["wait_note"]
    assert "wait-cdf" not in {c["id"] for c in r["charts"]}


def test_deviations_name_the_place_in_the_seed_and_sizes_count_nodes():
    from scheduler.experiments.malleability import DEVIATIONS

    assert DEVIATIONS
    assert all(k.startswith("Buisson et al. 2007, §") and v for k, v in DEVIATIONS.items())
    r = run_experiment("malleability", {**SMALL, "combos": "PRA/EGS"}, {}, seed=0)
    assert r["summary"]["processors"] == 272
    assert "nodes" in r["summary_labels"]["processors"]
    defaults = get_kind("malleability").validate({})
    assert (defaults["threshold_scope"], defaults["egs_shrink_rounds"]) == ("growth", "one")
