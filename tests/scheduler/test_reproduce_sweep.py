"""Figure sweeps: a trend claim is checked along the whole curve the figure plots
(scheduler/experiments/base.Sweep), and set-ups as the seed states them (one run per set-up,
one claim per published number)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scheduler.experiments.base import Expectation, Preset, Sweep, get_kind
from scheduler.experiments.claims import CALIBRATIONS, CLAIMS
from scheduler.experiments.reproduce import (
    BY_CONSTRUCTION,
    CONSTANT,
    DIFFERS,
    FITTED,
    NEEDS_SWEEP,
    NOT_MEASURED,
    REPRODUCED,
    SAME_SHAPE,
    Reproduction,
    check,
    claim_identity,
    read_metric,
    reproductions,
    run_reproduction,
    sweep_of,
    sweep_points,
    tally,
)
from scheduler.experiments.reproduce_report import claim_curve_svg

WHERE = "thesis §4.7, Figure 15"


def sweep_result(param: str, points: dict, base: dict | None = None) -> dict:
    runs = [{"value": x, "metrics": m} for x, m in points.items()]
    return {"summary": base or {}, "charts": [],
            "sweep": {"param": param, "values": list(points), "runs": runs}}  # fmt: skip


def test_a_claim_holds_only_when_it_holds_at_every_point_of_the_curve():
    e = Expectation(WHERE, "makespan_ratio", "lower", shape="<", than=1.0)
    ok = sweep_result("mean_procs", {3: {"makespan_ratio": 0.9}, 30: {"makespan_ratio": 0.6}})
    assert check(e, ok).verdict == REPRODUCED
    # the preset's own point passes, the curve does not: the claim differs, naming the point
    bad = sweep_result("mean_procs", {3: {"makespan_ratio": 1.2}, 30: {"makespan_ratio": 0.6}},
                       base={"makespan_ratio": 0.6})  # fmt: skip
    c = check(e, bad)
    assert c.verdict == DIFFERS and "mean_procs = 3" in c.detail and "1 of 2 points" in c.detail


def test_a_trend_and_printed_points_read_the_sweep_as_a_series():
    r = sweep_result("tasks", {100: {"r": 0.9}, 200: {"r": 0.8}, 400: {"r": 0.85}})
    assert read_metric(r, "sweep/r") == [(100, 0.9), (200, 0.8), (400, 0.85)]
    falls = Expectation(WHERE, "sweep/r", "improves as the size increases", shape="decreasing")
    c = check(falls, r)
    assert c.verdict == DIFFERS and "not decreasing" in c.detail
    at = Expectation(WHERE, "sweep/r", "0.87 at 100", points=((100, 0.87),), tolerance=0.05)
    assert check(at, r).verdict == REPRODUCED
    far = Expectation(WHERE, "sweep/r", "0.5 at 200", points=((200, 0.5),), tolerance=0.05)
    assert check(far, r).verdict == DIFFERS
    # a number off at one point but the shape holding there is "same shape", as for one run
    both = Expectation(WHERE, "m", "below 1, about 0.5", value=0.5, tolerance=0.05, shape="<",
                       than=1.0)  # fmt: skip
    r2 = sweep_result("tasks", {100: {"m": 0.5}, 200: {"m": 0.8}})
    assert check(both, r2).verdict == SAME_SHAPE


def test_reproduce_runs_the_sweep_of_a_real_preset():
    """The usage-policy testbed (1.4 s a run) swept over its site size: each point is a run of
    its own, the preset's own point reuses the main run, and a trend reads every point."""
    kind = get_kind("usage-policy")
    base = kind.preset("seed004-testbed")
    falls = Expectation("Dumitrescu, Wilde & Foster 2005, slide 26, Comparison Results",
                        "sweep/rm-condor.ARU", "RM/Condor 0.16 0.16 73.2", shape="decreasing",
                        cause="a test")  # fmt: skip
    preset = Preset(
        "swept",
        "t",
        dict(base.params),
        published=(falls,),
        sweep=Sweep("site_cpus", (200, base.params["site_cpus"]), "two sizes"),
    )
    result = run_reproduction(Reproduction(kind, preset), [], seed=0)
    runs = result["sweep"]["runs"]
    assert [r["value"] for r in runs] == [200, base.params["site_cpus"]]
    assert runs[1]["metrics"]["rm-condor.ARU"] == result["summary"]["rm-condor.ARU"]
    assert runs[0]["metrics"]["rm-condor.ARU"] > runs[1]["metrics"]["rm-condor.ARU"]
    assert check(falls, result).verdict == REPRODUCED


def test_a_preset_takes_a_spread_or_a_sweep_not_both():
    from scheduler.experiments.base import Spread

    with pytest.raises(ValueError, match="not both"):
        Preset("p", "t", spread=Spread("seed", (0, 1, 2), "w"), sweep=Sweep("x", (1, 2), "w"))
    with pytest.raises(ValueError, match="two points"):
        Sweep("x", (1,), "w")


def test_trend_figures_run_the_points_they_plot():
    sweeps = {r.key: r.preset.sweep for r in reproductions() if r.preset.sweep}
    for fig in ("provisioning/thesis-fig14-ctc", "greedy-provisioning/thesis-fig53-sdsc"):
        assert sweeps[fig].param == "tasks" and sweeps[fig].values == (100, 200, 300, 400)
    for fig in ("provisioning/thesis-fig15-ctc", "greedy-provisioning/thesis-fig54-ctc"):
        assert sweeps[fig].param == "mean_procs" and {3.0, 30.0} <= set(sweeps[fig].values)
    for fig in ("provisioning/thesis-fig16-ctc", "greedy-provisioning/thesis-fig55-ctc"):
        assert sweeps[fig].param == "load_p" and len(sweeps[fig].values) == 3
    # every trend claim reads a sweep its preset runs
    for rep in reproductions():
        for e in rep.preset.published:
            if e.metric.startswith("sweep/"):
                assert rep.preset.sweep is not None, (rep.key, e.metric)


def test_figure_15_and_54_ratios_are_declared_one_claim_per_number():
    def printed(key: str) -> set:
        return {(e.metric, p) for e in CLAIMS[key] for p in e.points}

    assert printed("provisioning/thesis-fig15-ctc") >= {
        ("sweep/makespan_ratio_a0", (3, 0.87)), ("sweep/makespan_ratio_a100", (3, 0.92)),
        ("sweep/makespan_ratio_a0", (30, 0.577)), ("sweep/makespan_ratio_a100", (30, 0.585)),
        ("sweep/cost_ratio_a0", (3, 1.5)), ("sweep/cost_ratio_a0", (30, 1.003)),
    }  # fmt: skip
    assert printed("greedy-provisioning/thesis-fig54-ctc") == {
        ("sweep/makespan_ratio_a0", (3, 0.85)), ("sweep/cost_ratio_a0", (3, 2.2)),
        ("sweep/makespan_ratio_a100", (3, 0.89)),
    }  # fmt: skip
    assert printed("greedy-provisioning/thesis-fig54-sdsc") == {("sweep/cost_ratio_a0", (3, 6.0))}
    # each printed number is its own claim (no two share an identity)
    for key in ("provisioning/thesis-fig15-ctc", "greedy-provisioning/thesis-fig54-ctc"):
        ids = [claim_identity(e.as_json()) for e in CLAIMS[key] if e.points]
        assert len(ids) == len(set(ids)), key


def test_one_run_per_set_up_and_one_claim_per_published_number():
    keys = {r.key for r in reproductions()}
    # Figure 30's accurate curve is Figures 23-24's run
    assert not {k for k in keys if k.startswith("pricing/thesis-fig30-31") and "accurate" in k}
    # §4.7's utilizations: each checked by one preset, on the first 70 days, over 60-80 days
    util = [(k, e) for k, es in CLAIMS.items() for e in es if e.source == "thesis §4.7"]
    assert sorted(k for k, _ in util) == ["cluster-sim/ctc-thesis-70-days",
                                          "cluster-sim/sdsc-thesis-70-days"]  # fmt: skip
    for key, _ in util:
        (rep,) = reproductions(*key.split("/"))
        assert rep.preset.params["days"] == 70.0 and rep.preset.spread.values == (60.0, 70.0, 80.0)
    # SDSC's 70 % chose the span: fitted; CTC's 63 % at that span is held out
    (span,) = [c for c in CALIBRATIONS if c.name == "thesis-utilization-span"]
    assert span.presets == ("cluster-sim/sdsc-thesis-70-days",)
    (ctc,) = [e for k, e in util if k.startswith("cluster-sim/ctc")]
    assert not ctc.fitted
    # the job counts once each (trace-stats)
    counts = [k for k, es in CLAIMS.items() for e in es if e.value in (79285, 54036)]
    assert sorted(counts) == ["trace-stats/ctc-thesis", "trace-stats/sdsc-thesis"]


def test_cluster_sim_keeps_the_first_days_only():
    """§4.7's utilizations are measured on the first 70 days: cluster-sim's "first days only"
    keeps the jobs submitted in the window (after load scaling), and refuses a window that
    holds no second."""
    from scheduler.experiments.base import run_experiment
    from scheduler.experiments.schema import ParamError
    from scheduler.traces.lublin import generate_lublin99

    trace = generate_lublin99(jobs=600, procs=64, seed=5)
    start = min(j.submit for j in trace.jobs)
    in_3_days = sum(1 for j in trace.jobs if j.submit < start + 3 * 86400)
    assert 0 < in_3_days < len(trace.jobs)
    params = {"procs": 64, "policies": "conservative", "requested": False}
    whole = run_experiment("cluster-sim", params, {"traces": [trace]}, seed=0)["summary"]
    window = run_experiment("cluster-sim", {**params, "days": 3.0}, {"traces": [trace]},
                            seed=0)["summary"]  # fmt: skip
    assert whole["jobs"] == len(trace.jobs) and window["jobs"] == in_3_days
    with pytest.raises(ParamError, match="days"):
        get_kind("cluster-sim").validate({**params, "days": 1e-9})


def _swept_testbed(values=(200, None)) -> Reproduction:
    """The usage-policy testbed with a figure sweep over its site size (None: its own)."""
    kind = get_kind("usage-policy")
    base = kind.preset("seed004-testbed")
    own = base.params["site_cpus"]
    falls = Expectation("Dumitrescu, Wilde & Foster 2005, slide 26, Comparison Results",
                        "sweep/rm-condor.ARU", "RM/Condor 0.16 0.16 73.2", shape="decreasing",
                        cause="a test")  # fmt: skip
    sweep = Sweep("site_cpus", tuple(own if v is None else v for v in values), "two sizes")
    return Reproduction(kind, Preset("swept", "t", dict(base.params), published=(falls,),
                                     sweep=sweep))  # fmt: skip


def test_sweep_points_are_the_presets_parameters_at_each_value_and_need_every_result():
    rep = _swept_testbed()
    points = sweep_points(rep)
    assert [v for v, _ in points] == list(rep.preset.sweep.values)
    assert points[0][1] == rep.kind.validate({**rep.preset.params, "site_cpus": 200})
    assert points[1][1] == rep.params()  # the preset's own point: a run of the preset
    one = {"summary": {"rm-condor.ARU": 0.5, "other": 1.0}, "charts": []}
    assert sweep_of(rep, [one, None]) is None  # a point without its Result: no curve
    sweep = sweep_of(rep, [one, one])
    assert sweep["param"] == "site_cpus" and [r["value"] for r in sweep["runs"]] == [
        200, rep.preset.params["site_cpus"]]  # fmt: skip
    assert sweep["runs"][0]["metrics"]["rm-condor.ARU"] == 0.5
    assert sweep_points(Reproduction(rep.kind, rep.kind.preset("seed004-testbed"))) == []


def test_a_claim_along_the_curve_without_the_sweep_is_not_measured_and_still_counted():
    """One run of a swept preset (the portal's main run) does not measure a claim read along
    the curve: it says it needs the sweep, and a printed number stays in the honest rate's
    denominator (not reproduced); measured along the curve it counts."""
    (falls,) = _swept_testbed().preset.published
    at_200 = replace(falls, shape="", points=((200, 0.9),), tolerance=0.05)
    one_run = {"summary": {"rm-condor.ARU": 0.5}, "charts": []}
    for claim_ in (falls, at_200):
        c = check(claim_, one_run)
        assert c.verdict == NOT_MEASURED and c.detail == NEEDS_SWEEP
    t = tally([check(at_200, one_run).as_json()])
    assert (t["numeric_reproduced"], t["numeric_counted"]) == (0, 1)
    holds = sweep_result("site_cpus", {200: {"rm-condor.ARU": 0.9}, 400: {"rm-condor.ARU": 0.5}})
    assert check(falls, holds).verdict == REPRODUCED
    t = tally([check(at_200, holds).as_json()])
    assert (t["numeric_reproduced"], t["numeric_counted"]) == (1, 1)
    # fitted, constant or by construction along a curve: shown, never counted, even holding
    for field, verdict_ in (("fitted", FITTED), ("constant", CONSTANT),
                            ("by_construction", BY_CONSTRUCTION)):  # fmt: skip
        c = check(replace(at_200, **{field: "a reason"}), holds)
        assert c.verdict == verdict_, field
        t = tally([c.as_json()])
        assert (t["numeric_excluded"], t["numeric_counted"], t["honest_rate"]) == (1, 0, None)


def test_a_claim_along_a_curve_is_drawn_with_the_published_points():
    ours = [[3, 0.71], [10, 0.6], [20, 0.5], [30, 0.47]]
    row = {"metric": "sweep/makespan_ratio_a0", "ours": ours, "points": [[3, 0.87]]}
    svg = claim_curve_svg(row, "mean_procs")
    assert svg.startswith("<svg") and svg.count("<polyline") == 2  # ours, published dashed
    assert "mean_procs" in svg and "stroke-dasharray" in svg
    assert claim_curve_svg({**row, "ours": 0.71}) == ""  # one number: no curve
    assert claim_curve_svg({**row, "metric": "makespan-vs-alpha/Provisioned"}) == ""
    assert claim_curve_svg({**row, "ours": None}) == ""
