"""The ``slurm-whatif`` kind and ``slurm-replay``'s figures: one computation
(:func:`scheduler.slurm.whatif.whatif_figures`) behind both; a site replayed unchanged follows
a recording made by the model itself to the second; changes (weights, shares) are read as the
run applies them and refused naming the item."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scheduler.engine import ParamError, run_experiment
from scheduler.slurm.whatif import (
    SlurmSiteError,
    load_site,
    parse_overrides,
    shares_over_time,
    site_facts,
    whatif_figures,
)
from tests.conftest import scheduler_cli
from tests.slurm.sites import ASSOC, QOS, SLURM_CONF, recorded_dump


@pytest.fixture(scope="module")
def dump() -> str:
    return recorded_dump(80, seed=3)


@pytest.fixture
def site(dump: str):  # type: ignore[no-untyped-def]
    return load_site(dump, SLURM_CONF, ASSOC, QOS)


def test_the_unchanged_site_follows_its_own_recording(site) -> None:
    fig = whatif_figures(site, [])
    c = fig["comparison"]["unchanged"]
    assert c["jobs"] == 80 and c["start_error_median"] == 0 and c["start_error_p90"] == 0
    assert c["rank_correlation"] == 1.0
    assert fig["groups"]["unchanged"] == fig["groups"]["recorded"]
    assert fig["targets"] == {"biology": 0.3, "physics": 0.7}


def test_a_share_change_moves_the_targets_and_the_waits(site) -> None:
    fig = whatif_figures(site, parse_overrides("Fairshare:biology=630"))
    assert fig["targets"] == {"biology": 0.9, "physics": 0.1}
    assert fig["targets_unchanged"] == {"biology": 0.3, "physics": 0.7}
    waits = {s: fig["groups"][s]["account"]["biology"]["wait_mean"] for s in fig["groups"]}
    assert waits["changed"] < waits["unchanged"] == waits["recorded"]


def test_shares_over_time_never_exceed_the_machine(site) -> None:
    starts = {"recorded": site.dump.real_start}
    shares = shares_over_time(site.dump, starts, 16, 24)
    total = np.sum([v for v in shares["recorded"].values()], axis=0)
    assert len(shares["hours"]) == 24 and total.max() <= 1.0 + 1e-9 and total.max() > 0.5


def test_the_kind_and_the_command_line_give_the_same_figures(site, dump, tmp_path) -> None:
    for name, text in (("sacct.txt", dump), ("slurm.conf", SLURM_CONF), ("assoc.txt", ASSOC),
                       ("qos.txt", QOS)):  # fmt: skip
        (tmp_path / name).write_text(text)
    done = scheduler_cli(
        "slurm-replay", str(tmp_path / "sacct.txt"), "--slurm-conf", str(tmp_path / "slurm.conf"),
        "--assoc", str(tmp_path / "assoc.txt"), "--qos", str(tmp_path / "qos.txt"),
        "--set", "PriorityWeightQOS=0", "--set", "Fairshare:biology=70",
        "--out", str(tmp_path / "s.csv"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)["figures"]
    result = run_experiment(
        "slurm-whatif", {"overrides": "PriorityWeightQOS=0\nFairshare:biology=70"},
        {"site": [site]},
    )  # fmt: skip
    rows = next(t for t in result["tables"] if t["id"] == "by-account")["rows"]
    for account, schedule, jobs, wait_mean, *_ in rows:
        key = {"recorded (real)": "recorded"}.get(schedule, schedule)
        g = printed["groups"][key]["account"][account]
        assert (g["jobs"], g["wait_mean"]) == (jobs, wait_mean)
    s = result["summary"]
    assert s["wait_mean_changed"] == printed["comparison"]["changed"]["wait_mean_sim"]
    assert s["start_error_median"] == printed["comparison"]["unchanged"]["start_error_median"]
    share = next(c for c in result["charts"] if c["title"].startswith("Account physics"))
    target = next(x for x in share["series"] if x["name"].startswith("target"))
    assert target["points"][0][1] == 0.5  # 70 against 70


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("PriorityWeightAge", "'PriorityWeightAge': write Key=Value"),
        ("Nonsense=1", "Nonsense: not a scheduling key this model reads"),
        ("PriorityWeightAge=-1", "PriorityWeightAge: an integer >= 0"),
        ("Fairshare:phys ics=1", "'Fairshare:phys': write Key=Value"),
        ("Fairshare:physics=x", "Fairshare:physics: shares must be an integer >= 0"),
        ("Fairshare:a:b:c=1", "write Fairshare:ACCOUNT=N"),
        (" ".join(["bf_window=1"] * 101), "at most 100 changes"),
    ],
)
def test_bad_changes_are_refused_naming_the_item(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why.replace("(", r"\(")):
        parse_overrides(text)


def test_a_share_for_an_unknown_account_is_refused(site) -> None:
    with pytest.raises(ParamError, match="the site has no account 'chemistry'"):
        run_experiment("slurm-whatif", {"overrides": "Fairshare:chemistry=5"}, {"site": [site]})


def test_a_site_the_replay_cannot_run_is_refused_naming_the_file(dump: str) -> None:
    small = SLURM_CONF.replace("NodeName=n[1-2] CPUs=8", "NodeName=n[1-2] CPUs=2")
    with pytest.raises(SlurmSiteError, match=r"sacct dump: job \d+: \d CPUs; slurm.conf has 4"):
        load_site(dump, small, ASSOC, QOS)
    with pytest.raises(SlurmSiteError, match="qos: line 4: 2 fields where the header has 6"):
        load_site(dump, SLURM_CONF, ASSOC, QOS + "x|1\n")
    with pytest.raises(SlurmSiteError, match="sacct dump: line 3"):
        load_site(dump.replace("COMPLETED", "COMPLETED|extra", 2), SLURM_CONF)


def test_the_facts_say_what_was_understood(site) -> None:
    facts = site_facts(site)
    assert facts["cpus"] == 16 and facts["nodes"] == 2 and facts["jobs"] == 80
    assert [p["name"] for p in facts["partitions"]] == ["short", "long"]
    assert facts["ignored_keys"] == ["ClusterName", "SlurmctldHost"]
    keys = {k["key"]: (k["value"], k["from"]) for k in facts["keys"]}
    assert keys["PriorityWeightFairshare"] == (4000, "slurm.conf")
    assert keys["PriorityWeightJobSize"] == (0, "default")
    assert keys["bf_window"] == (86400, "slurm.conf")
    assert facts["accounts"] == ["biology", "physics"]
    assert json.loads(json.dumps(facts)) == facts


def test_path_inputs_load_like_bytes(tmp_path: Path, dump: str) -> None:
    from scheduler.io import load_input

    (tmp_path / "d.txt").write_text(dump)
    loaded = load_input("slurm-site", {"dump": str(tmp_path / "d.txt"), "slurm_conf": SLURM_CONF})
    assert len(loaded.dump) == 80 and loaded.site.assocs == []


def test_usage_before_the_dump_counts_in_fair_share(dump: str) -> None:
    """sshare's RawUsage is the associations' usage at the first submission: physics having
    used the machine 19 times more than biology, biology's jobs go first sooner."""
    from tests.slurm.sites import SSHARE

    without = load_site(dump, SLURM_CONF, ASSOC, QOS)
    given = load_site(dump, SLURM_CONF, ASSOC, QOS, SSHARE)
    assert given.site.usage == [("physics", "ann", 1e6), ("physics", "carl", 9e5),
                                ("biology", "bob", 1e5)]  # fmt: skip
    assert site_facts(given)["initial_usage"][0] == {
        "account": "physics", "user": "ann", "raw_usage": 1e6,
    }  # fmt: skip
    waits = [
        whatif_figures(s, [])["groups"]["unchanged"]["account"]["biology"]["wait_mean"]
        for s in (without, given)
    ]
    assert waits[1] < waits[0]
    with pytest.raises(SlurmSiteError, match="sshare: line 3: RawUsage: 'x' is not an integer"):
        load_site(dump, SLURM_CONF, sshare=SSHARE.replace("|1900000|", "|x|"))
