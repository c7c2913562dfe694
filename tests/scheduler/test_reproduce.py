"""Reproductions: verdicts of published values against Results, the catalogue of
presets with published values, trace lookup, the report and the command line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.cli import main
from scheduler.experiments import get_kind
from scheduler.experiments.base import Expectation, Preset
from scheduler.experiments.reproduce import (
    check,
    fetch_hint,
    find_trace_file,
    read_metric,
    reproductions,
    trace_matches,
    verdict,
    worst,
)
from scheduler.experiments.reproduce_report import build_report, report_html, svg_chart
from tests.conftest import ROOT, SHARED_DATA, require


def result(summary=None, charts=None) -> dict:
    return {"summary": summary or {}, "charts": charts or []}


def line(id: str, **series) -> dict:
    return {
        "id": id, "type": "line", "title": id, "x": {"label": "α", "scale": "linear"},
        "y": {"label": "y", "scale": "linear"},
        "series": [{"name": n, "points": [list(p) for p in pts]} for n, pts in series.items()],
    }  # fmt: skip


# ---------------------------------------------------------------------- one expectation


def test_number_within_tolerance_matches_outside_differs():
    # thesis: CTC utilization 63 % ± 5 points; 0.661 is 3.1 points off, 0.70 is 7 points off
    e = Expectation("thesis §4.7", "util", "63 %", value=0.63, tolerance=0.05)
    assert check(e, result({"util": 0.661})).verdict == "reproduced"
    c = check(e, result({"util": 0.70}))
    assert c.verdict == "differs" and c.ours == 0.70 and "0.63" in c.detail


def test_number_and_shape_give_same_shape_when_only_the_number_is_off():
    # Figure 18: makespan ratio 0.77 ± 0.1 and below 1
    e = Expectation("Fig 18", "ratio", "−23 %", value=0.77, tolerance=0.1, shape="<", than=1.0)
    assert check(e, result({"ratio": 0.80})).verdict == "reproduced"  # |0.80 − 0.77| = 0.03
    assert check(e, result({"ratio": 0.55})).verdict == "same shape"  # below 1, 0.22 off
    assert check(e, result({"ratio": 1.05})).verdict == "differs"  # not below 1


def test_relative_tolerance_scales_with_the_published_value():
    e = Expectation("§3.1", "jobs", "79285 jobs", value=79285, tolerance=0.01, relative=True)
    assert check(e, result({"jobs": 78500})).verdict == "reproduced"  # 785 ≤ 792.85
    assert check(e, result({"jobs": 77222})).verdict == "differs"  # 2063 > 792.85


def test_relation_to_another_metric_and_approximately_equal():
    lower = Expectation("ch. 6", "var_cost", "VAR cheaper", shape="<", than="adaptive_cost")
    assert check(lower, result({"var_cost": 1.2, "adaptive_cost": 3.0})).verdict == "reproduced"
    assert check(lower, result({"var_cost": 3.0, "adaptive_cost": 3.0})).verdict == "differs"
    same = Expectation(
        "Fig 52", "cost1", "= best effort", shape="~=", than="be", tolerance=0.01, relative=True
    )
    assert check(same, result({"cost1": 100.9, "be": 100.0})).verdict == "reproduced"  # 0.9 ≤ 1
    assert check(same, result({"cost1": 101.5, "be": 100.0})).verdict == "differs"  # 1.5 > 1


def test_series_below_another_series_at_every_common_x():
    e = Expectation("Fig 13", "m/Provisioned", "lower for every α", shape="<", than="m/Best effort")
    ok = line(
        "m",
        **{"Provisioned": [[0, 5], [0.5, 6], [1, 7]], "Best effort": [[0, 8], [0.5, 8], [1, 8]]},
    )
    assert check(e, result(charts=[ok])).verdict == "reproduced"
    tie = line("m", **{"Provisioned": [[0, 5], [1, 8]], "Best effort": [[0, 8], [1, 8]]})
    c = check(e, result(charts=[tie]))
    assert c.verdict == "differs" and "x = 1" in c.detail


def test_series_shapes():
    price = Expectation("Fig 23", "p/Mean price", "falls", shape="non-increasing")
    falls = result(charts=[line("p", **{"Mean price": [[1, 0], [0, 9], [0.5, 3], [0.25, 3]]})])
    assert read_metric(falls, "p/Mean price") == [(0, 9), (0.25, 3), (0.5, 3), (1, 0)]
    assert check(price, falls).verdict == "reproduced"  # sorted by α: 9, 3, 3, 0
    strict = Expectation("Fig 23", "p/Mean price", "falls", shape="decreasing")
    assert check(strict, falls).verdict == "differs"  # 3, 3 is not strictly decreasing


def test_published_points_compare_at_the_same_x():
    e = Expectation(
        "Table 1", "par/c", "Table 1", points=((1, 1.0), (8, 7.42)), tolerance=0.25,
        relative=True,
    )  # fmt: skip
    near = result(charts=[line("par", c=[[1, 1.1], [8, 6.0], [16, 12]])])  # 6.0 ≥ 7.42·0.75
    assert check(e, near).verdict == "reproduced"
    far = result(charts=[line("par", c=[[1, 1.1], [8, 5.0]])])  # 5.0 < 5.565
    assert check(e, far).verdict == "differs"
    gap = result(charts=[line("par", c=[[1, 1.0]])])
    assert "no point at x = 8" in check(e, gap).detail


def test_missing_metric_is_not_measured_and_none_is_missing():
    e = Expectation("s", "x", "c", value=1.0, tolerance=0.1)
    assert check(e, result({})).verdict == "not measured"
    assert check(e, result({"x": None})).verdict == "not measured"
    rel = Expectation("s", "x", "c", shape="<", than="y")
    assert check(rel, result({"x": 1.0})).verdict == "not measured"


def test_preset_verdict_is_the_worst_measured_check():
    p = Preset(
        "p", "t", {},
        published=(
            Expectation("s", "a", "c", value=1.0, tolerance=0.1),
            Expectation("s", "b", "c", value=1.0, tolerance=0.1, shape=">", than=0.0),
            Expectation("s", "gone", "c", value=1.0, tolerance=0.1),
        ),
    )  # fmt: skip
    assert verdict(p, None) == ("not run", [])
    v, checks = verdict(p, result({"a": 1.0, "b": 3.0}))
    assert v == "same shape" and [c.verdict for c in checks] == [
        "reproduced", "same shape", "not measured"
    ]  # fmt: skip
    assert verdict(p, result({"a": 5.0, "b": 1.0}))[0] == "differs"
    assert worst(["not measured"]) == "not measured"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"shape": "sideways"}, "unknown shape"),
        ({"shape": "<"}, "needs 'than'"),
        ({"shape": "increasing", "than": 1.0}, "takes no 'than'"),
        ({"value": 1.0}, "needs a tolerance"),
        ({"shape": "~=", "than": "y"}, "needs a tolerance"),
        ({}, "declare a value"),
    ],
)
def test_badly_declared_expectations_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Expectation("s", "m", "c", **kwargs)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=12, unique=True))
def test_reversing_a_series_swaps_increasing_and_decreasing(ys):
    up = sorted(ys)
    fwd = result(charts=[line("c", s=list(enumerate(up)))])
    back = result(charts=[line("c", s=list(enumerate(reversed(up))))])
    inc = Expectation("s", "c/s", "c", shape="increasing")
    dec = Expectation("s", "c/s", "c", shape="decreasing")
    assert check(inc, fwd).verdict == check(dec, back).verdict == "reproduced"
    assert check(dec, fwd).verdict == check(inc, back).verdict == "differs"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(-100, 100), st.floats(-100, 100), st.floats(0, 50))
def test_a_number_matches_exactly_when_within_the_tolerance(ours, published, tol):
    e = Expectation("s", "m", "c", value=published, tolerance=tol)
    assert (check(e, result({"m": ours})).verdict == "reproduced") == (abs(ours - published) <= tol)


# ---------------------------------------------------------------------- the catalogue


def test_every_reproduction_declares_runnable_params_and_the_traces_its_kind_takes():
    reps = reproductions()
    assert len({r.kind.name for r in reps}) >= 10  # every kind with a seed figure
    for rep in reps:
        rep.params()  # the preset validates against its kind's schema
        spec = {i.name: i for i in rep.kind.inputs}.get("traces")
        n = len(rep.preset.traces)
        if spec is None:
            assert n == 0, rep.key
        else:
            assert (n == 0 and spec.min == 0) or spec.min <= n <= spec.max, rep.key
        for e in rep.preset.published:
            assert e.source and e.claim, rep.key
        json.dumps(rep.as_json())  # JSON-serialisable


def test_kind_json_exposes_published_values():
    kind = get_kind("cluster-sim").as_json()
    ctc = next(p for p in kind["presets"] if p["name"] == "ctc-thesis-70-days")
    assert ctc["traces"] == ["CTC-SP2"]
    # one claim per published number: the utilization here, the job count in trace-stats
    assert {e["value"] for e in ctc["published"]} == {0.63}
    assert ctc["spread"]["choice"] == "days" and ctc["spread"]["values"] == [60.0, 70.0, 80.0]
    quick = next(p for p in kind["presets"] if p["name"] == "ctc-quick")
    assert "published" not in quick  # presets without published values are unchanged


def test_reproductions_filter_by_kind_and_preset():
    assert {r.kind.name for r in reproductions("malleability")} == {"malleability"}
    assert [r.key for r in reproductions("malleability", "seed002-fig8-pwa")] == [
        "malleability/seed002-fig8-pwa"
    ]
    # seed 004's numbers come from its testbed, not the two-site simulation
    assert reproductions("usage-policy", "seed004-2sites") == []
    assert reproductions("no-such-kind") == []


# ---------------------------------------------------------------------- traces


def test_archive_traces_are_found_by_name_prefix(tmp_path):
    (tmp_path / "CTC-SP2-1996-3.1-cln.swf.gz").write_bytes(b"")
    (tmp_path / "SDSC-BLUE-2000-4.2-cln.swf.gz").write_bytes(b"")
    assert find_trace_file("CTC-SP2", {}, [str(tmp_path)]).endswith("CTC-SP2-1996-3.1-cln.swf.gz")
    assert find_trace_file("SDSC-SP2", {}, [str(tmp_path)]) is None  # SDSC-BLUE is another log
    assert find_trace_file("SDSC-SP2", {"SDSC-SP2": "x.swf"}, []) == "x.swf"
    assert trace_matches("CTC-SP2", "renamed.swf", "CTC-SP2")  # a trace called by its name
    # a web user is told to upload it on the Traces page, with the archive's address
    hint = fetch_hint("KTH-SP2")
    assert "Traces page" in hint and "l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz" in hint
    assert "manage.py fetch_trace KTH-SP2" in hint


# ---------------------------------------------------------------------- the report


class Clock:
    def __init__(self, step: float):
        self.t, self.step = 0.0, step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def test_report_runs_what_it_can_and_says_what_is_missing(tmp_path):
    reps = reproductions("malleability", "seed002-fig7-pra") + reproductions(
        "trace-stats", "ctc-thesis"
    )
    report = build_report(reps, trace_dirs=(str(tmp_path),), clock=Clock(1.0))
    ran, missing = report["rows"]
    # GADGET2's and FT's times hold because the speed-up curves were fitted to them
    assert ran["status"] == "run" and ran["verdict"] == "fitted"
    assert ran["result"]["kind"] == "malleability" and len(ran["checks"]) == 2
    assert missing["status"] == "needs trace" and missing["verdict"] == "not run"
    assert "manage.py fetch_trace CTC-SP2" in missing["message"]
    assert sum(report["totals"].values()) == 2 and report["totals"]["not run"] == 1
    page = report_html(report)
    assert "<svg" in page and "fetch_trace CTC-SP2" in page and "Figure 6" in page
    assert "<script" not in page  # static: no script, no CDN


def test_report_is_deterministic_apart_from_wall_times():
    reps = reproductions("malleability", "seed002-fig7-pra")
    a, b = (build_report(reps, seed=3, clock=Clock(1.0)) for _ in range(2))
    assert a == b


def test_long_presets_and_a_spent_budget_are_skipped_not_run():
    # declared 0.1 and 0.5 min
    reps = reproductions("malleability", "seed002-fig7-pra") + reproductions(
        "coallocation", "seed001-success-ratios"
    )
    long = build_report(reps, max_preset_minutes=0.2, clock=Clock(1.0))
    assert [r["status"] for r in long["rows"]] == ["run", "skipped"]
    assert "more than the 0.2 min" in long["rows"][1]["message"]
    # a clock that jumps 100 s per call: the 1-minute budget is spent before the second preset
    spent = build_report(reps, budget_minutes=1.0, clock=Clock(100.0))
    assert spent["rows"][1]["status"] == "skipped"
    assert "budget is spent" in spent["rows"][1]["message"]


def test_svg_chart_draws_the_reference_series_dashed():
    spec = line("m", Provisioned=[[0, 1.0], [1, 2.0]])
    svg = svg_chart(spec, [{"name": "published", "points": [[0, 1.5]]}])
    assert svg.startswith("<svg") and "stroke-dasharray" in svg and "published" in svg
    assert svg_chart({**spec, "type": "gantt"}) == ""


# ---------------------------------------------------------------------- command line


def test_cli_writes_json_and_html(tmp_path, capsys):
    out = tmp_path / "report.json"
    code = main(["reproduce", "--kind", "malleability", "--preset", "seed002-fig7-pra",
                 "--out", str(out)])  # fmt: skip
    assert code == 0
    report = json.loads(out.read_text())
    assert [r["preset"] for r in report["rows"]] == ["seed002-fig7-pra"]
    assert (tmp_path / "report.html").read_text().startswith("<!doctype html>")
    printed = capsys.readouterr()
    assert json.loads(printed.out) == report["totals"]
    # the scoreboard's opening figures: seed 002's two Figure 6 points are fitted, so no
    # numeric claim counts and its honest rate is "—"
    assert "seed 002: honest rate —; fitted 2" in printed.err
    assert "seed all: honest rate —" in printed.err


def test_cli_bad_trace_argument_names_the_field(tmp_path, capsys):
    code = main(["reproduce", "--trace", "CTC-SP2", "--out", str(tmp_path / "r.json")])
    assert code == 2
    assert "trace: give NAME=FILE" in capsys.readouterr().err
    code = main(["reproduce", "--kind", "nope", "--out", str(tmp_path / "r.json")])
    assert code == 2
    assert "preset: no preset with published values" in capsys.readouterr().err


# ---------------------------------------------------------------------- claims

import re  # noqa: E402

import pytest  # noqa: E402

from scheduler.experiments.claims import CLAIMS, SEED_FILES  # noqa: E402
from scheduler.experiments.reproduce import scoreboard, tally  # noqa: E402

SEEDS = SHARED_DATA.parent / "seeds"  # beside the shared data (../shared/seeds)


def test_a_by_construction_claim_holds_but_never_counts_as_reproduced():
    e = Expectation("thesis §5.3, Figure 23", "price", "price zero", value=0.0, tolerance=1e-9,
                    by_construction="eq. 20 at α = 1")  # fmt: skip
    c = check(e, result({"price": 0.0}))
    assert c.verdict == "by construction"
    t = tally([c.as_json()])
    assert t["numeric_counted"] == 0 and t["numeric_reproduced"] == 0
    assert t["numeric_excluded"] == 1 and t["honest_rate"] is None
    # a broken guarantee is a bug, reported as differs
    assert check(e, result({"price": 3.0})).verdict == "differs"
    # a preset whose only claims hold by construction is "by construction", not reproduced
    preset = Preset("p", "P", published=(e,))
    assert verdict(preset, result({"price": 0.0}))[0] == "by construction"


def test_a_difference_carries_its_cause_and_one_without_is_reported():
    with_cause = Expectation("seed 001", "m", "about 0.90", value=0.9, tolerance=0.05,
                             cause="testbed wiring not given")  # fmt: skip
    bare = Expectation("seed 001", "m", "about 0.90", value=0.9, tolerance=0.05)
    a, b = check(with_cause, result({"m": 0.5})), check(bare, result({"m": 0.5}))
    assert a.verdict == b.verdict == "differs"
    assert a.as_json()["shown_cause"] == "testbed wiring not given" and not a.missing_cause
    assert b.missing_cause and tally([a.as_json(), b.as_json()])["missing_cause"] == 1
    # a reproduced claim shows no cause
    assert check(with_cause, result({"m": 0.9})).as_json()["shown_cause"] == ""


def test_cross_run_claims_read_the_other_presets_result():
    e = Expectation("thesis §5.3, Figure 25", "price_su_a0", "price increases", shape=">",
                    than="price_su_a0", than_run="pricing/plus20")  # fmt: skip
    ours = result({"price_su_a0": 30.0})
    assert check(e, ours).verdict == "not measured"  # the other run is missing
    assert check(e, ours, {"pricing/plus20": result({"price_su_a0": 20.0})}).verdict == (
        "reproduced"
    )
    bad = check(e, ours, {"pricing/plus20": result({"price_su_a0": 40.0})})
    assert bad.verdict == "differs" and "pricing/plus20" in bad.detail
    with pytest.raises(ValueError, match="than_run"):
        Expectation("s", "m", "q", shape=">", than=1.0, than_run="pricing/x")


def test_factor_and_point_selection():
    far = Expectation("seed 002 §7", "a", "far worse", shape=">", than="b", factor=1.5)
    assert check(far, result({"a": 140.0, "b": 100.0})).verdict == "differs"
    assert check(far, result({"a": 160.0, "b": 100.0})).verdict == "reproduced"
    chart_ = {
        "id": "cheaper",
        "series": [
            {"name": "VAR cheaper", "points": [["32n 4h +1h", 60], ["32n 1h +1h", 10]]},
            {"name": "Adaptive cheaper", "points": [["32n 4h +1h", 30], ["32n 1h +1h", 80]]},
        ],
    }
    e = Expectation("thesis §6.3.1, Figure 40", "cheaper/VAR cheaper[32n 4h]", "majority",
                    shape=">", than="cheaper/Adaptive cheaper[32n 4h]")  # fmt: skip
    assert check(e, result(charts=[chart_])).verdict == "reproduced"


def test_scoreboard_counts_per_seed_and_colours_figures():
    rows = [{"kind": "k", "preset": "p", "checks": [
        {"seed": "000", "figure": "Fig. 23", "verdict": "reproduced", "numeric": True},
        {"seed": "000", "figure": "Fig. 23", "verdict": "by construction", "numeric": True,
         "by_construction": True},
        {"seed": "001", "figure": "Success", "verdict": "differs", "numeric": True,
         "missing_cause": True}]}]  # fmt: skip
    board = scoreboard(rows)
    seeds = {s["seed"]: s for s in board["seeds"]}
    assert seeds["000"]["figures"][0]["verdict"] == "reproduced"
    assert seeds["000"]["tally"]["numeric_share"] == 1.0
    assert seeds["001"]["tally"]["missing_cause"] == 1
    assert board["tally"]["counts"]["by construction"] == 1


def test_numeric_share_counts_each_seed_claim_once_with_its_worst_verdict():
    jobs = {"seed": "000", "claim": "containing 79285 and 54036 jobs", "value": 79285,
            "numeric": True}  # fmt: skip
    other = {"seed": "000", "claim": "containing 79285 and 54036 jobs", "value": 54036,
             "numeric": True, "verdict": "reproduced"}  # fmt: skip
    # the CTC count checked by two presets (the same metric): one claim, and its worst verdict
    twice = [{**jobs, "metric": "valid_jobs", "verdict": "reproduced"},
             {**jobs, "metric": "valid_jobs", "verdict": "differs"}, other]  # fmt: skip
    t = tally(twice)
    assert t["numeric"] == 2 and t["numeric_reproduced"] == 1
    assert t["counts"]["differs"] == 1 and t["counts"]["reproduced"] == 2  # per check
    # two equal numbers of one table row are two claims: each quotes the row up to its own
    # column (RM/Condor's BUPV and EUPV are both 0.16)
    from scheduler.experiments.claims import CLAIMS
    from scheduler.experiments.reproduce import claim_identity

    seed004 = CLAIMS["usage-policy/seed004-testbed"]
    ids = [claim_identity(e.as_json()) for e in seed004]
    assert len(set(ids)) == len(ids) == 15
    # the same sentence stating another number is another claim
    assert tally([{**jobs, "verdict": "reproduced"}, other])["numeric"] == 2
    # a claim of another seed with the same words is another claim
    assert tally([{**jobs, "verdict": "differs"}, {**jobs, "seed": "003",
                   "verdict": "reproduced"}])["numeric_reproduced"] == 1  # fmt: skip


def _words(text: str) -> str:
    return re.sub(r"[^0-9a-z%.α]+", "", text.lower())


def test_every_quote_is_verbatim_in_its_seed_and_every_claim_is_documented():
    require(SEEDS.is_dir(), f"the seed texts are not on this machine ({SEEDS})")  # CI: fails
    texts = {k: _words((SEEDS / f).read_text(errors="replace")) for k, f in SEED_FILES.items()}
    for key, claims in CLAIMS.items():
        kind, _, name = key.partition("/")
        get_kind(kind).preset(name)  # the preset exists
        for e in claims:
            assert e.seed in texts, (key, e.source)
            for piece in re.split(r"…|\.\.\.", e.claim):
                assert _words(piece) in texts[e.seed], (key, piece)
            if e.numeric or e.shape == "~=" or e.factor != 1.0:
                assert e.tolerance_why, (key, e.metric, "why this tolerance?")
            assert e.by_construction or e.fitted or e.constant or e.cause, (key, e.metric)
            assert len(e.claim) <= 300, (key, "quote a short sentence")


def test_rescore_recomputes_verdicts_from_stored_results():
    from scheduler.experiments.reproduce_report import rescore

    report = build_report(reproductions("malleability"), clock=Clock(1.0))
    stale = {**report, "rows": [{**r, "verdict": "differs", "checks": []} for r in report["rows"]]}
    again = rescore(stale)
    assert [r["verdict"] for r in again["rows"]] == [r["verdict"] for r in report["rows"]]
    assert again["scoreboard"] == report["scoreboard"]


def test_declared_minutes_are_not_below_the_committed_scoreboards_measurements():
    """a preset's expected duration (shown on its form and used by
    ``--max-preset-minutes``) must not promise less than the committed scoreboard measured
    (wall time under ``make reproduce``; 20 % slack for machine load)."""
    board = json.loads((ROOT / "docs" / "reproductions.json").read_text())
    declared = {r.key: r.preset.minutes for r in reproductions()}
    low = []
    for row in board["rows"]:
        key, seconds = f"{row['kind']}/{row['preset']}", row.get("seconds")
        if key in declared and seconds and (declared[key] or 0) * 60 * 1.2 < seconds:
            low.append(f"{key}: declared {declared[key]} min, measured {seconds / 60:.1f} min")
    assert not low, low
