"""The Reproductions page and REST endpoint: every preset with published values,
the user's latest run of it beside them, the engine's verdict, and running them."""

import json
from html import escape

import pytest
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_create, experiment_execute
from scheduler.experiments import reproduce as engine

from .factories import stored_trace

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def rows_by_key(resp) -> dict:
    return {f"{r['kind']}/{r['preset']}": r for r in resp.json()}


def test_every_reproduction_is_listed_not_run_with_what_it_needs(alice):
    resp = api(alice).get("/api/reproductions/")
    assert resp.status_code == 200
    rows = rows_by_key(resp)
    assert set(rows) == {r.key for r in engine.reproductions()}
    ctc = rows["trace-stats/ctc-thesis"]
    assert ctc["verdict"] == "not run" and ctc["experiment"] is None
    # a web user is told to upload it on the Traces page, with the archive's address
    (need,) = ctc["needs"]
    assert "upload it on the Traces page" in need and "CTC-SP2-1996-3.1-cln.swf.gz" in need
    assert {e["value"] for e in ctc["published"]} == {79285}  # the 63 %: cluster-sim, 70 days
    assert rows["malleability/seed002-fig8-pwa"]["needs"] == []  # no trace needed
    # every claim carries its quote, place, tolerance reason and cause or guarantee
    claim = rows["malleability/seed002-fig7-pra"]["published"][0]
    assert claim["fitted"] and claim["seed"] == "002" and claim["figure"] == "Fig. 6"
    only = api(alice).get("/api/reproductions/?kind=malleability").json()
    assert {r["kind"] for r in only} == {"malleability"}


def test_missing_trace_is_a_400_naming_fetch_trace(alice):
    resp = api(alice).post(
        "/api/reproductions/run/", {"kind": "trace-stats", "preset": "ctc-thesis"}, format="json"
    )
    assert resp.status_code == 400
    assert "manage.py fetch_trace CTC-SP2" in str(resp.json()["traces"])
    assert not Experiment.objects.exists()
    bad = api(alice).post("/api/reproductions/run/", {"kind": "x", "preset": "y"}, format="json")
    assert bad.status_code == 400 and "preset" in bad.json()


def test_run_one_then_its_values_and_verdict_are_listed(alice, media_root):
    # a small generated trace stored under the archive's name stands in for CTC-SP2
    stored_trace(alice, jobs=300, procs=430, name="CTC-SP2")
    resp = api(alice).post(
        "/api/reproductions/run/", {"kind": "trace-stats", "preset": "ctc-thesis"}, format="json"
    )
    assert resp.status_code == 201
    exp = Experiment.objects.get(pk=resp.json()["experiment"])
    assert exp.kind == "trace-stats" and exp.params["procs"] == 430
    assert [t.name for t in exp.traces.all()] == ["CTC-SP2"]

    queued = rows_by_key(api(alice).get("/api/reproductions/"))["trace-stats/ctc-thesis"]
    assert queued["verdict"] == "not run" and queued["active_experiment"] == exp.pk

    experiment_execute(experiment_id=exp.pk)
    exp.refresh_from_db()
    row = rows_by_key(api(alice).get("/api/reproductions/"))["trace-stats/ctc-thesis"]
    assert row["experiment"] == exp.pk and row["active_experiment"] is None
    jobs = next(c for c in row["checks"] if c["metric"] == "valid_jobs")
    # 300 generated jobs against the thesis's 79285 (± 1 %): the number is far off
    assert jobs["ours"] == exp.result["summary"]["valid_jobs"] and jobs["verdict"] == "differs"
    assert row["verdict"] == engine.verdict(engine.reproductions("trace-stats", "ctc-thesis")[0]
                                            .preset, exp.result)[0]  # fmt: skip


def test_a_run_started_elsewhere_with_the_preset_counts_and_others_do_not(alice, bob):
    rep = engine.reproductions("malleability", "seed002-fig7-pra")[0]
    other = experiment_create(owner=alice, kind="malleability", params={"jobs": 20})
    experiment_execute(experiment_id=other.pk)
    mine = experiment_create(owner=alice, kind="malleability", params=rep.preset.params)
    experiment_execute(experiment_id=mine.pk)
    theirs = experiment_create(owner=bob, kind="malleability", params=rep.preset.params)
    experiment_execute(experiment_id=theirs.pk)
    row = rows_by_key(api(alice).get("/api/reproductions/"))["malleability/seed002-fig7-pra"]
    assert row["experiment"] == mine.pk  # not the other parameters, not bob's newer run
    assert row["verdict"] == "fitted"  # the fitted speed-up points: shown, never counted
    assert [c["verdict"] for c in row["checks"]] == [
        c.verdict for c in engine.verdict(rep.preset, Experiment.objects.get(pk=mine.pk).result)[1]
    ]


def test_run_all_starts_what_it_can_and_lists_the_rest(alice):
    resp = api(alice).post("/api/reproductions/run-all/", {}, format="json")
    assert resp.status_code == 201
    body = resp.json()
    free = [r for r in engine.reproductions() if not r.preset.traces]
    assert len(body["experiments"]) == len(free)
    assert len(body["skipped"]) == len(engine.reproductions()) - len(free)
    assert any("fetch_trace CTC-SP2" in s for s in body["skipped"])
    names = set(Experiment.objects.values_list("name", flat=True))
    assert "Reproduction: malleability / seed002-fig8-pwa" in names


def test_scoreboard_page_counts_filters_and_runs_lead_to_the_run(client, alice):
    client.force_login(alice)
    page = client.get("/reproductions/")
    assert page.status_code == 200
    html = page.content.decode()
    # the scoreboard: one row per seed, figures as cells, counts
    assert 'id="board"' in html and 'data-seed="000"' in html and 'data-seed="002"' in html
    assert 'class="cell not-run"' in html
    # a preset without the archive trace says how to get it in the browser
    assert "needs trace CTC-SP2" in html and "Traces page" in html
    assert "l_ctc_sp2/CTC-SP2-1996-3.1-cln.swf.gz" in html
    # claims with their guarantee / quote
    # a fit is declared before any run
    assert "fitted (never counted): the speed-up curves" in html
    assert "nearly 10 minutes" in html
    # server-side filters
    only = client.get("/reproductions/?kind=malleability").content.decode()
    assert 'data-kind="pricing"' not in only and 'data-kind="malleability"' in only
    hidden = client.get("/reproductions/?verdict=differs").content.decode()
    assert 'data-key="malleability/seed002-fig7-pra" data-kind="malleability" ' in hidden
    assert 'data-verdict="not run" hidden' in hidden
    # Run leads to the run it started
    resp = client.post(
        "/reproductions/run/", {"kind": "malleability", "preset": "seed002-fig7-pra"}
    )
    exp = Experiment.objects.get()
    assert resp.status_code == 302 and resp["Location"] == f"/experiments/{exp.pk}/"
    assert exp.name == "Reproduction: malleability / seed002-fig7-pra"
    # the page polls the status endpoint while the run is active
    status = client.get("/reproductions/status/").json()
    assert status["active"] is True
    row = status["rows"]["malleability/seed002-fig7-pra"]
    assert row["verdict"] == "not run" and f"run #{exp.pk}" in row["html"]
    experiment_execute(experiment_id=exp.pk)
    done = client.get("/reproductions/status/").json()
    assert done["active"] is False
    row = done["rows"]["malleability/seed002-fig7-pra"]
    assert row["verdict"] == "fitted" and "fitted (never counted): the speed-up" in row["html"]
    assert 'class="cell fitted"' in done["scoreboard_html"]
    missing = client.post(
        "/reproductions/run/", {"kind": "pricing", "preset": "thesis-fig23-24-ctc"}, follow=True
    )
    assert "upload it on the Traces page" in missing.content.decode()


def test_a_difference_shows_its_cause_on_the_page(client, alice):
    rep = engine.reproductions("malleability", "seed002-fig8-pwa")[0]
    exp = experiment_create(owner=alice, kind="malleability", params=rep.preset.params)
    experiment_execute(experiment_id=exp.pk)
    client.force_login(alice)
    html = client.get("/reproductions/").content.decode()
    verdict, checks = engine.verdict(rep.preset, Experiment.objects.get(pk=exp.pk).result)
    for c in checks:
        if c.verdict in ("differs", "same shape"):
            shown = escape(f"cause: {c.expectation.cause}")
            assert c.expectation.cause and shown in html


def test_result_page_of_a_reproduction_shows_the_published_values(client, alice):
    rep = engine.reproductions("malleability", "seed002-fig7-pra")[0]
    exp = experiment_create(owner=alice, kind="malleability", params=rep.preset.params)
    experiment_execute(experiment_id=exp.pk)
    plain = experiment_create(owner=alice, kind="malleability", params={"jobs": 20})
    experiment_execute(experiment_id=plain.pk)
    client.force_login(alice)
    html = client.get(f"/experiments/{exp.pk}/").content.decode()
    assert 'id="published-values"' in html and 'id="published-reference"' in html
    assert "with 2 processors GADGET2 takes nearly 10 minutes" in html
    assert "published (Buisson et al. 2007, " in html  # the chart's reference series
    assert 'id="published-values"' not in client.get(f"/experiments/{plain.pk}/").content.decode()


def test_anonymous_users_see_nothing(client):
    assert APIClient().get("/api/reproductions/").status_code in (401, 403)
    assert client.get("/reproductions/").status_code == 302


def test_make_reproduce_command_writes_the_scoreboard_docs(tmp_path, capsys):
    from django.core.management import call_command

    out, docs = tmp_path / "report.json", tmp_path / "docs" / "reproductions"
    call_command("reproduce", "--kind", "malleability", "--in-process", "--out", str(out),
                 "--docs", str(docs))  # fmt: skip
    printed = capsys.readouterr().out
    assert "total time" in printed and "in process" in printed
    md = (tmp_path / "docs" / "reproductions.md").read_text()
    # per-seed totals, the figure grid, every claim with its verdict and cause
    assert "| 002 Buisson et al. 2007" in md and "Fig. 6: **fitted**" in md
    assert "fitted (never counted): the speed-up curves" in md
    assert "model choice: at the seed's load" in md  # the cause of Figure 8's difference
    slim = json.loads((tmp_path / "docs" / "reproductions.json").read_text())
    assert all("result" not in r for r in slim["rows"])
    assert slim["scoreboard"]["seeds"][0]["seed"] == "002"


def test_reproduce_in_process_runs_passes_in_worker_processes_when_asked(tmp_path, capsys):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from scheduler.experiments import passes

    out = tmp_path / "report.json"
    with pytest.raises(CommandError, match="--jobs must be a whole number from 1 to 64"):
        call_command("reproduce", "--kind", "malleability", "--in-process", "--jobs", "0",
                     "--out", str(out))  # fmt: skip
    call_command("reproduce", "--kind", "malleability", "--preset", "seed002-fig7-pra",
                 "--in-process", "--jobs", "2", "--out", str(out))  # fmt: skip
    assert "on in process, passes in 2 processes" in capsys.readouterr().out
    assert passes.workers() == 1  # set back for the rest of the process


def test_rest_scoreboard_matches_the_page(alice):
    board = api(alice).get("/api/reproductions/scoreboard/").json()
    assert [s["seed"] for s in board["seeds"]] == ["000", "001", "002", "003", "004"]
    assert board["tally"]["claims"] == sum(len(r.preset.published) for r in engine.reproductions())
    assert board["tally"]["counts"]["not run"] == board["tally"]["claims"]
    assert "malleability" in board["deviations"]
    assert (
        api(alice)
        .get("/api/reproductions/scoreboard/?kind=malleability")
        .json()["seeds"][0]["seed"]
        == "002"
    )


def _stretched_trace(owner, *, procs: int, seed: int, name: str):
    """300 generated jobs with their submit times ×4 (about 45 days instead of 11)."""
    from django.core.files.base import ContentFile

    from gridportal.inputs.services import trace_create
    from tests.conftest import make_swf_bytes

    lines = []
    for line in make_swf_bytes(300, procs, seed).decode().splitlines():
        fields = line.split()
        if fields and not line.startswith(";"):
            fields[1] = str(int(fields[1]) * 4)
            line = " ".join(fields)
        lines.append(line)
    trace = trace_create(
        owner=owner, name=name, upload=ContentFile(("\n".join(lines) + "\n").encode(), "t.swf")
    )
    assert trace.summary["span_days"] > 30
    return trace


def test_cross_run_claims_are_checked_against_the_users_other_run(alice, media_root):
    # small generated traces stored under the archive's names stand in for the real logs,
    # stretched to more than the presets' "first 30 days" (a shorter one is refused at submit)
    _stretched_trace(alice, procs=430, seed=3, name="CTC-SP2")
    _stretched_trace(alice, procs=128, seed=4, name="SDSC-SP2")
    from gridportal.experiments.reproductions import reproduction_rows, reproduction_run

    sdsc = reproduction_run(user=alice, kind="pricing", preset="first-30-days-sdsc")
    experiment_execute(experiment_id=sdsc.pk)

    def cross():
        row = rows_by_key(api(alice).get("/api/reproductions/?kind=pricing"))[
            "pricing/first-30-days-sdsc"
        ]
        return next(c for c in row["checks"] if c["than_run"])

    assert cross()["verdict"] == "not measured"  # no CTC run yet
    assert "needs a run of pricing/first-30-days-ctc" in cross()["detail"]
    ctc = reproduction_run(user=alice, kind="pricing", preset="first-30-days-ctc")
    experiment_execute(experiment_id=ctc.pk)
    c = cross()
    assert c["verdict"] in ("reproduced", "differs")
    ours = Experiment.objects.get(pk=sdsc.pk).result["summary"]["price_su_a0"]
    theirs = Experiment.objects.get(pk=ctc.pk).result["summary"]["price_su_a0"]
    assert c["verdict"] == ("reproduced" if ours > theirs else "differs")
    assert [r.rep.key for r in reproduction_rows(user=alice, kind="pricing")][0].startswith(
        "pricing/"
    )


def test_reproduce_merge_rescores_separate_runs_together(tmp_path, capsys):
    """Long presets run one at a time (`--preset`) are merged with the quick run: a
    cross-run claim (SDSC dearer than CTC) is checked only once both Results are in one
    report; a row that ran nowhere keeps its reason."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from scheduler.experiments.reproduce import reproductions
    from scheduler.experiments.reproduce_report import RAN, SKIPPED

    def row(preset, summary, status=RAN):
        (rep,) = reproductions("pricing", preset)
        res = {"summary": summary, "charts": []} if summary is not None else None
        return {**rep.as_json(), "status": status, "message": "" if res else "long: skipped",
                "seconds": 1.0, "verdict": "not run", "checks": [], "result": res}  # fmt: skip

    def report(rows, elapsed):
        return {"command": "manage.py reproduce", "seed": 0, "executor": "in process",
                "max_preset_minutes": 2.5, "elapsed_s": elapsed, "rows": rows}  # fmt: skip

    ctc = {"price_su_a0": 30.0, "price_su_a100": 0.0, "baseline_utilization": 0.6}
    sdsc = {"price_su_a0": 25.0, "price_su_a100": 0.0, "baseline_utilization": 0.64}
    a, b = tmp_path / "quick.json", tmp_path / "long.json"
    a.write_text(
        json.dumps(
            report([row("first-30-days-ctc", ctc), row("first-30-days-sdsc", None, SKIPPED)], 100.0)
        )
    )
    b.write_text(json.dumps(report([row("first-30-days-sdsc", sdsc)], 50.0)))
    out, docs = tmp_path / "merged.json", tmp_path / "docs" / "reproductions"
    call_command("reproduce", "--merge", str(a), str(b), "--out", str(out), "--docs", str(docs))
    assert "merged 2 reports (150 s of runs)" in capsys.readouterr().out
    merged = json.loads(out.read_text())
    rows = {r["preset"]: r for r in merged["rows"]}
    cross = [c for c in rows["first-30-days-sdsc"]["checks"] if c.get("than_run")]
    assert [c["verdict"] for c in cross] == ["differs"]  # 25 is not > 30
    assert merged["max_preset_minutes"] is None  # every row ran in one of the runs
    assert "merged from 2 runs" in (tmp_path / "docs" / "reproductions.md").read_text()
    # only the first report: the SDSC row keeps its reason, nothing is checked
    call_command("reproduce", "--merge", str(a), "--out", str(out))
    rows = {r["preset"]: r for r in json.loads(out.read_text())["rows"]}
    assert rows["first-30-days-sdsc"]["verdict"] == "not run"
    assert rows["first-30-days-sdsc"]["message"] == "long: skipped"
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(CommandError, match="bad.json: not a reproduce report"):
        call_command("reproduce", "--merge", str(bad), "--out", str(out))


def test_reproduce_merges_the_committed_scoreboard_with_a_new_run(tmp_path, capsys):
    """The committed scoreboard (docs/reproductions.json) is slim — its rows carry verdicts
    and checks but no Results: a preset re-run after a claim changed is merged into it (its row
    rescored), every other row keeps its verdict, and the runs it was merged from add up."""
    from django.core.management import call_command

    from scheduler.experiments.reproduce import reproductions
    from scheduler.experiments.reproduce_report import RAN, slim

    def row(preset, summary):
        (rep,) = reproductions("pricing", preset)
        return {**rep.as_json(), "status": RAN, "message": "", "seconds": 1.0,
                "verdict": "not run", "checks": [],
                "result": {"summary": summary, "charts": []}}  # fmt: skip

    def report(rows, elapsed):
        return {"command": "manage.py reproduce", "seed": 0, "executor": "in process",
                "elapsed_s": elapsed, "rows": rows}  # fmt: skip

    ctc = {"price_su_a0": 30.0, "price_su_a100": 0.0, "baseline_utilization": 0.6}
    first = tmp_path / "first.json"
    first.write_text(json.dumps(report([row("first-30-days-ctc", ctc)], 10.0)))
    out = tmp_path / "board.json"
    call_command("reproduce", "--merge", str(first), str(first), "--out", str(out))
    board = slim(json.loads(out.read_text()))
    kept = {r["preset"]: r["verdict"] for r in board["rows"]}["first-30-days-ctc"]
    assert kept != "not run" and all("result" not in r for r in board["rows"])
    committed = tmp_path / "committed.json"
    committed.write_text(json.dumps(board))
    sdsc = {"price_su_a0": 25.0, "price_su_a100": 0.0, "baseline_utilization": 0.64}
    new = tmp_path / "new.json"
    new.write_text(json.dumps(report([row("first-30-days-sdsc", sdsc)], 5.0)))
    docs = tmp_path / "docs" / "reproductions"
    call_command("reproduce", "--merge", str(committed), str(new), "--out", str(out),
                 "--docs", str(docs))  # fmt: skip
    merged = json.loads(out.read_text())
    rows = {r["preset"]: r for r in merged["rows"]}
    assert rows["first-30-days-ctc"]["verdict"] == kept  # kept from the committed board
    assert rows["first-30-days-sdsc"]["verdict"] != "not run"  # rescored from its Result
    assert merged["merged_runs"] == 3 and merged["elapsed_s"] == 25.0
    assert merged["rows_s"] == 2.0  # the two rows kept, 1 s each: what this board takes to run
    assert "merged from 3 runs (the rows kept ran in 2 s)" in docs.with_suffix(".md").read_text()
    assert (tmp_path / "board.html").exists()  # the HTML page copes with rows without Results


def test_claims_name_the_metrics_they_compare_with_in_words(client, alice):
    """The page writes "< service_levels_UserA_at_100" as the metric's label."""
    from scheduler.labels import label_of

    client.force_login(alice)
    html = client.get("/reproductions/?kind=coallocation").content.decode()
    key = "service_levels_UserA_at_100"
    assert f"&lt; {escape(label_of(key))}" in html
    assert f"&lt; {key}" not in html and f">{key}<" not in html


def test_the_page_shows_the_projects_own_scoreboard_beside_your_runs(client, alice, tmp_path):
    """A reviewer without the archive traces reads what the project measured — the
    committed docs/reproductions.json, per seed — folded above their own board; a missing or
    broken file shows nothing rather than failing the page."""
    from gridportal.experiments.reproductions import REFERENCE, reference_board

    committed = json.loads(REFERENCE.read_text())
    tally = committed["scoreboard"]["tally"]
    client.force_login(alice)
    html = client.get("/reproductions/").content.decode()
    assert 'id="reference"' in html
    numeric = f"{tally['numeric_reproduced']}/{tally['numeric_counted']}"
    assert f'data-role="reference-numeric">{numeric}</b>' in html
    for seed in committed["scoreboard"]["seeds"]:
        assert f"<b>{seed['seed']}</b>" in html
    if committed.get("rows_s"):  # the time its rows take, not every run ever merged
        assert f"its rows ran in {committed['rows_s']:,.0f} s" in html
    assert reference_board(tmp_path / "absent.json") is None
    broken = tmp_path / "broken.json"
    broken.write_text('{"scoreboard": 1}')
    assert reference_board(broken) is None


def test_the_api_serves_the_projects_own_scoreboard(client, alice, tmp_path, settings):
    """GET /api/reproductions/reference/ returns the committed report (rows with checks, no
    Results); without one in the deployment it says so with a 404, not a 500."""
    from gridportal.experiments import reproductions as repro

    client.force_login(alice)
    resp = client.get("/api/reproductions/reference/")
    assert resp.status_code == 200
    data = resp.json()
    committed = json.loads(repro.REFERENCE.read_text())
    assert data["scoreboard"]["tally"] == committed["scoreboard"]["tally"]
    assert len(data["rows"]) == len(committed["rows"])
    assert all("result" not in r and r["checks"] is not None for r in data["rows"])
    missing = tmp_path / "none.json"
    old = repro.REFERENCE
    repro.REFERENCE = missing
    try:
        resp = client.get("/api/reproductions/reference/")
    finally:
        repro.REFERENCE = old
    assert resp.status_code == 404 and "no committed scoreboard" in resp.json()["detail"]


def test_preset_durations_say_when_the_engine_runs_pure_python(client, alice, monkeypatch):
    """The declared minutes were measured with the compiled kernels; a server whose
    setup found no C compiler runs the same source up to 80x slower, and says so."""
    from gridportal.web import views
    from scheduler.engine import get_kind

    minutes = next(p.minutes for p in get_kind("pricing").presets if (p.minutes or 0) >= 1)
    client.force_login(alice)
    monkeypatch.setattr(views, "_engine_is_compiled", lambda: True)
    html = client.get("/experiments/new/?kind=pricing").content.decode()
    assert f"about {minutes:g} min" in html and "pure-Python source" not in html
    monkeypatch.setattr(views, "_engine_is_compiled", lambda: False)
    html = client.get("/experiments/new/?kind=pricing").content.decode()
    assert (
        f"about {minutes:g} min with the compiled engine; this server runs its pure-Python" in html
    )


def test_the_page_lists_every_verdict_of_the_engine():
    from gridportal.web.reproductions import SHOWN

    assert tuple(SHOWN) == tuple(engine.VERDICTS)


def test_a_figure_sweep_runs_from_the_page_and_its_claims_read_the_curve(
    client, alice, monkeypatch
):
    """A preset that reproduces a curve: Run starts its run and a portal sweep over the
    figure's points (the preset's own point is that run, not a second one); until every point
    has a result the claim along the curve is 'not measured', saying it needs the sweep; then
    it is judged on the curve, drawn on the page.  (The usage-policy testbed, 1.4 s a run,
    stands in for the MOGA figures, about a minute a point.)"""
    from gridportal.experiments.models import Sweep as SweepModel
    from gridportal.experiments.reproductions import reproduction_run
    from scheduler.experiments.base import Expectation, Preset, Sweep, get_kind

    kind = get_kind("usage-policy")
    base = kind.preset("seed004-testbed")
    own = base.params["site_cpus"]
    falls = Expectation("Dumitrescu, Wilde & Foster 2005, slide 26, Comparison Results",
                        "sweep/rm-condor.ARU", "RM/Condor 0.16 0.16 73.2", shape="decreasing",
                        cause="a test")  # fmt: skip
    swept = Preset(
        "swept-testbed",
        "testbed over its site size",
        dict(base.params),
        published=(falls,),
        sweep=Sweep("site_cpus", (200, own), "two sizes"),
    )
    monkeypatch.setattr(kind, "presets", (*kind.presets, swept))
    key = "usage-policy/swept-testbed"

    def row():
        return rows_by_key(api(alice).get("/api/reproductions/?kind=usage-policy"))[key]

    main = reproduction_run(user=alice, kind="usage-policy", preset="swept-testbed")
    (sweep,) = SweepModel.objects.filter(owner=alice)
    points = {p.point["site_cpus"]: p.experiment_id for p in sweep.points.all()}
    assert set(points) == {200, own} and points[own] == main.pk  # reused, not run twice
    assert Experiment.objects.filter(owner=alice).count() == 2

    experiment_execute(experiment_id=main.pk)
    (c,) = row()["checks"]
    assert c["verdict"] == "not measured" and c["detail"] == engine.NEEDS_SWEEP
    assert [p["experiment"] for p in row()["sweep_points"]] == [None, main.pk]
    assert row()["active_experiment"] == points[200]  # the page keeps polling

    experiment_execute(experiment_id=points[200])
    (c,) = row()["checks"]
    results = {v: Experiment.objects.get(pk=pk).result["summary"]["rm-condor.ARU"]
               for v, pk in points.items()}  # fmt: skip
    assert c["ours"] == [[200, results[200]], [own, results[own]]]
    assert c["verdict"] == ("reproduced" if results[200] > results[own] else "differs")
    client.force_login(alice)
    html = client.get("/reproductions/?kind=usage-policy").content.decode()
    assert 'data-role="curve"' in html and "<polyline" in html
    assert "figure sweep over site_cpus: 2 of 2 points run" in html


def test_a_sweep_claim_not_run_shows_the_projects_last_recorded_curve(client, alice):
    """Without the user's runs, a claim read along a figure sweep shows what the committed
    scoreboard recorded for it: its verdict, its values and its curve."""
    from gridportal.experiments.reproductions import REFERENCE, check_key, recorded_checks

    committed = json.loads(REFERENCE.read_text())
    recorded = recorded_checks()
    (row,) = [r for r in committed["rows"] if r["preset"] == "thesis-fig15-ctc"]
    (trend,) = [c for c in row["checks"] if c["metric"] == "sweep/makespan_ratio_a0"
                and not c.get("points")]  # fmt: skip
    assert recorded[check_key("provisioning/thesis-fig15-ctc", trend)]["ours"] == trend["ours"]
    client.force_login(alice)
    html = client.get("/reproductions/?kind=provisioning").content.decode()
    start = html.index('id="repro-provisioning-thesis-fig15-ctc"')
    end = html.find('<tr class="preset"', start + 1)
    part = html[start : end if end > 0 else None]  # this preset's row only
    assert 'data-role="recorded"' in part and 'data-role="recorded-curve"' in part
    assert f'<span class="verdict {trend["verdict"].replace(" ", "-")}">' in part
