"""An honest scoreboard — fitted, constant and blocked claims are shown and never
counted, calibrations declare their targets, unstated choices are judged over a spread."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from scheduler.experiments import claims as claims_module
from scheduler.experiments.base import Expectation, Preset, Spread
from scheduler.experiments.claims import CALIBRATIONS, CLAIMS
from scheduler.experiments.claims.calibrations import SEED001_HELD_OUT, SEED001_TARGETS
from scheduler.experiments.coallocation import CALIBRATION, calibration_splits
from scheduler.experiments.reproduce import (
    BLOCKED,
    CONSTANT,
    DEPENDS,
    DIFFERS,
    FITTED,
    REPRODUCED,
    check,
    spread_metrics,
    tally,
    verdict,
)
from scheduler.experiments.reproduce_report import _md, reclassify, report_markdown
from tests.conftest import ROOT

WHERE = "thesis §5.3, Figure 23"


def claim(**kw) -> Expectation:
    base = dict(source=WHERE, metric="m", claim="a sentence", value=10.0, tolerance=1.0)
    return Expectation(**{**base, **kw})


def result(**summary) -> dict:
    return {"summary": summary, "charts": []}


# ---------------------------------------------------------------------- uncounted classes


@pytest.mark.parametrize("ours", [10.2, 50.0])
def test_a_fitted_claim_is_fitted_whatever_it_shows(ours):
    c = check(claim(fitted="tuned on it"), result(m=ours))
    assert c.verdict == FITTED
    assert "never counted" in c.detail and "tuned on it" in c.detail
    assert ("holds" in c.detail) == (ours == 10.2)


def test_constant_and_blocked_claims_are_never_counted():
    assert check(claim(constant="0 in every row"), result(m=10.0)).verdict == CONSTANT
    assert check(claim(blocked="private trace"), result()).verdict == BLOCKED


def test_one_reason_not_to_count_a_claim():
    with pytest.raises(ValueError, match="one reason"):
        claim(fitted="x", by_construction="y")


def test_every_calibration_target_is_a_fitted_claim_in_every_preset_it_names():
    for cal in CALIBRATIONS:
        marked = [(key, e.metric) for key in cal.presets for e in CLAIMS[key]
                  if e.metric in cal.targets]  # fmt: skip
        assert marked, cal.name
        for key in cal.presets:
            for e in CLAIMS[key]:
                assert bool(e.fitted) == (e.metric in cal.targets) or any(
                    key in other.presets and e.metric in other.targets for other in CALIBRATIONS
                ), (cal.name, key, e.metric)
                if e.metric in cal.targets:
                    assert cal.name in e.fitted and not e.by_construction


def test_a_stale_calibration_target_is_refused():
    stale = replace(CALIBRATIONS[0], targets=("no_such_metric",))
    fresh = {k: tuple(replace(e, fitted="") for e in v) for k, v in CLAIMS.items()}
    old = claims_module.CALIBRATIONS
    claims_module.CALIBRATIONS = (stale,)
    try:
        with pytest.raises(ValueError, match="no_such_metric"):
            claims_module._mark_fitted(fresh)
    finally:
        claims_module.CALIBRATIONS = old


def test_seed001_is_calibrated_on_the_service_levels_and_counts_the_success_ratios():
    key = "coallocation/seed001-success-ratios"
    by_metric = {e.metric: e for e in CLAIMS[key]}
    assert all(by_metric[m].fitted for m in SEED001_TARGETS)
    assert not any(by_metric[m].fitted for m in SEED001_HELD_OUT)
    assert tuple(CALIBRATION["targets"]) == SEED001_TARGETS
    splits = calibration_splits()
    # the set-up the presets run is the one the declared targets choose
    assert splits[0]["targets"] == list(SEED001_TARGETS)
    assert splits[0]["chosen"] == CALIBRATION["chosen"]
    # whichever half is fitted, the other half is reproduced (shown in the closing note)
    assert all(c["within"] for s in splits for c in s["held_out"].values())


# ---------------------------------------------------------------------- the honest rate


def row(verdict_, claim_text, numeric=True, **kw) -> dict:
    return {"seed": "000", "claim": claim_text, "value": 1.0, "numeric": numeric,
            "verdict": verdict_, **kw}  # fmt: skip


def test_honest_rate_leaves_out_fitted_by_construction_constant_and_blocked():
    rows = [row(REPRODUCED, "a"), row(REPRODUCED, "b"), row(DIFFERS, "c"),
            row("not run", "d"),
            row(FITTED, "e", fitted="tuned"), row(REPRODUCED, "f", by_construction=True),
            row(CONSTANT, "g", constant="0"), row(BLOCKED, "h", blocked="private"),
            row(REPRODUCED, "i", numeric=False)]  # fmt: skip
    t = tally(rows)
    assert t["numeric"] == 8 and t["numeric_excluded"] == 4
    assert (t["numeric_reproduced"], t["numeric_counted"]) == (2, 4)  # not run stays in
    assert t["honest_rate"] == 0.5
    assert t["distinct"][FITTED] == 1 and t["distinct"]["by construction"] == 1


def test_a_claim_checked_in_a_fitted_and_in_the_seeds_set_up_counts_as_the_seeds():
    both = [row(FITTED, "far worse", fitted="contended set-up"), row(DIFFERS, "far worse")]
    t = tally(both)
    assert t["distinct"][DIFFERS] == 1 and t["distinct"][FITTED] == 0
    assert t["numeric_counted"] == 1 and t["honest_rate"] == 0.0


def test_the_markdown_opens_with_the_honest_rate():
    report = {"command": "c", "executor": "e", "seed": 0, "elapsed_s": 1, "rows": [],
              "scoreboard": {"seeds": [], "tally": tally([row(REPRODUCED, "a"),
                                                          row(DIFFERS, "b")])}}  # fmt: skip
    text = report_markdown(report)
    assert "**The honest rate**" in text and "**1/2 (50 %)**" in text


def test_the_markdown_shows_every_spread_beside_its_published_value():
    """A check measured over the spread of an unstated choice (median, 10–90 %, or in how many
    runs a shape holds) shows it on its line of the board, whatever its verdict: before, a
    "depends" line of seed 003 Figure 7 read "1,901 | depends |" with its spread left out."""
    board = json.loads((ROOT / "docs" / "reproductions.json").read_text())
    lines = report_markdown(board).splitlines()
    spread = [(r, c) for r in board["rows"] for c in r["checks"] if " runs, " in c["detail"]]
    assert sum(c["verdict"] == "depends" for _, c in spread) >= 5
    for r, c in spread:
        assert any(
            line.startswith(f"| {r['kind']}/{r['preset']} |") and _md(c["detail"]) in line
            for line in lines
        ), (r["preset"], c["claim"], c["detail"])


def test_reclassify_moves_a_stored_check_of_a_fitted_claim_to_fitted():
    key = "usage-policy/seed004-testbed"
    e = next(e for e in CLAIMS[key] if e.metric == "rm-condor.ARU")  # the calibration's row
    stored = {**e.as_json(), "fitted": "", "verdict": REPRODUCED, "ours": 0.7, "detail": ""}
    report = {"rows": [{"kind": "usage-policy", "preset": "seed004-testbed",
                        "checks": [stored]}]}  # fmt: skip
    again = reclassify(report)
    checks = again["rows"][0]["checks"]
    (c,) = [c for c in checks if c["metric"] == "rm-condor.ARU"]
    assert c["verdict"] == FITTED and "seed004-site-size" in c["detail"]
    # the claims declared since the row ran are on the board as not run, not left out
    rest = [c for c in checks if c["metric"] != "rm-condor.ARU"]
    assert len(rest) == len(CLAIMS[key]) - 1
    assert all(c["verdict"] == "not run" and "not run yet" in c["detail"] for c in rest)


# ---------------------------------------------------------------------- spreads


def spread_result(choice: str, values: list[float], metric: str = "m") -> dict:
    runs = [{"value": i, "metrics": {metric: v}} for i, v in enumerate(values)]
    return {
        "summary": {metric: values[0]},
        "charts": [],
        "spread": {"choice": choice, "values": list(range(len(values))), "runs": runs},
    }


def test_a_claim_over_a_spread_is_reproduced_when_the_published_value_is_inside_it():
    e = claim(value=10.0, tolerance=1.0)
    c = check(e, spread_result("seed", [9.0, 9.5, 10.0, 10.2, 10.4, 11.0, 9.8, 10.1, 9.9, 10.3]))
    assert c.verdict == REPRODUCED and "median" in c.detail and "10 runs" in c.detail


def test_a_claim_that_holds_at_one_instant_only_depends_on_it():
    # seed 003 Figure 7's FIFO time: near the published value at one submit instant only
    values = [3930.0, 6302.0, 607.0, 5000.0, 200.0, 7000.0, 6500.0, 100.0, 5400.0]
    c = check(claim(value=3930.0, tolerance=0.25, relative=True),
              spread_result("submit_hour", values))  # fmt: skip
    assert c.verdict == DEPENDS and "depends on submit_hour" in c.detail


def test_a_claim_that_holds_in_no_run_differs():
    c = check(claim(value=10.0, tolerance=1.0), spread_result("seed", [20.0, 21.0, 22.0]))
    assert c.verdict == DIFFERS


def test_a_cross_run_order_over_a_spread_pairs_runs_of_the_same_seed():
    e = claim(value=None, tolerance=None, metric="price", shape=">", than="price",
              than_run="pricing/first-30-days-ctc")  # fmt: skip
    sdsc = spread_result("seed", [34.3, 25.0, 36.0, 30.0], metric="price")
    ctc = spread_result("seed", [29.2, 30.0, 28.0, 31.0], metric="price")
    c = check(e, sdsc, {"pricing/first-30-days-ctc": ctc})
    assert c.verdict == DEPENDS and "holds in 2 of 4" in c.detail
    always = spread_result("seed", [40.0, 41.0, 42.0, 43.0], metric="price")
    assert check(e, always, {"pricing/first-30-days-ctc": ctc}).verdict == REPRODUCED


def test_a_spread_keeps_every_summary_number_and_the_claims_series():
    p = Preset("p", "t", published=(claim(metric="chart/curve", value=None, tolerance=0.1,
                                          points=((1, 2.0),)),))  # fmt: skip
    r = {
        "summary": {"a": 1.5, "b": "text", "c": float("nan")},
        "charts": [{"id": "chart", "series": [{"name": "curve", "points": [[1, 2.0]]}]}],
    }
    assert spread_metrics(p, r) == {"a": 1.5, "chart/curve": [[1, 2.0]]}
    json.dumps(spread_metrics(p, r))


def test_spreads_are_declared_with_at_least_three_values():
    with pytest.raises(ValueError, match="three"):
        Spread("seed", (0, 1), "too few")


def test_declared_spreads_run_over_the_choices_the_issue_names():
    from scheduler.experiments.reproduce import reproductions

    spreads = {r.key: r.preset.spread for r in reproductions() if r.preset.spread}
    assert spreads["provisioning-impact/seed003-fig7"].choice == "submit_hour"
    assert spreads["pricing/first-30-days-sdsc"].values == tuple(range(10))
    assert spreads["pricing/first-30-days-ctc"].values == tuple(range(10))


def test_verdict_of_a_preset_ignores_uncounted_checks():
    p = Preset("p", "t", published=(claim(fitted="tuned"), claim(metric="n")))
    v, checks = verdict(p, result(m=10.0, n=10.0))
    assert v == REPRODUCED and checks[0].verdict == FITTED
