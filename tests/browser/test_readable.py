"""The compare and sweep pages built for reading, in a real browser at 1366 px and 390 px:
no legend entry clipped, no colour twice within a chart, no axis stretched below 0 by an error
bar, no table wider than its card (a wide one scrolls inside it), the sweep's key results name
its best and worst points, and the sweep links to the comparison of its points.

The figures come from tests/browser/readability.py, which the screenshot script prints too."""

import pytest

from tests.browser.readability import measure, open_everything, with_renderer
from tests.browser.test_layout import WIDTHS
from tests.browser.ui_fixtures import login

pytestmark = pytest.mark.browser


@pytest.fixture
def sweep_world(alice, media_root):
    """A cluster-sim sweep over the machine size (3 points; 6 series per run, 18 on the compare
    page of its runs) and a greedy-provisioning run (its cost axis once ran to -6,000 SU)."""
    from tests.browser.ui_fixtures import fixture_inputs, policy_sweep, run_kind

    trace, workflow = fixture_inputs(alice)
    sweep = policy_sweep(alice, trace)
    greedy = run_kind(alice, "greedy-provisioning", trace, workflow)
    runs = list(sweep.points.order_by("index").values_list("experiment_id", flat=True))
    return {"sweep": sweep.pk, "runs": runs, "greedy": greedy.pk}


def readable(figures: dict, width: int, where: str) -> list[str]:
    """What a reader cannot read on the page, in words (empty: all readable)."""
    bad = []
    for c in figures["charts"]:
        if c["total"] > 1 and c["visible"] < c["total"]:
            bad.append(f"{where} {c['id']}: {c['visible']}/{c['total']} legend entries visible")
        if c["colours"] < c["total"]:
            bad.append(f"{where} {c['id']}: {c['colours']} colours for {c['total']} series")
        if c["below"]:
            bad.append(f"{where} {c['id']}: axis down to {c['ymin']} with no value below 0")
    for t in figures["tables"]:
        fits = t["table"] <= t["card"] + 1
        scrolls_inside = t["wrap"] is not None and t["wrap"] <= t["card"] + 1
        if width >= 1366 and not fits:
            bad.append(f"{where} {t['id']}: table {t['table']} px in a {t['card']} px card")
        elif not (fits or scrolls_inside or t["cardScrolls"]):
            bad.append(f"{where} {t['id']}: table {t['table']} px overflows its {t['card']} card")
    return bad


def test_sweep_and_compare_pages_read_at_laptop_and_phone_width(live_server, sweep_world, browser):
    sweep, runs = sweep_world["sweep"], sweep_world["runs"]
    bad, seen = [], {}
    for width in WIDTHS:
        ctx = browser.new_context(viewport={"width": width, "height": 900})
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        login(page, live_server.url)
        # the sweep: its answer first, then charts one per quantity, and the way to compare
        page.goto(f"{live_server.url}/sweeps/{sweep}/")
        page.wait_for_selector("body[data-result-drawn=true]", timeout=30_000)
        tiles = page.locator("#key-results .key-extreme")
        assert tiles.count() >= 2
        first = tiles.first.inner_text()
        assert "best:" in first and "worst:" in first and "processors = " in first, first
        assert "sweep points" not in page.inner_text("#key-results")  # not "3 sweep points"
        link = page.locator("a#sweep-compare")
        assert link.count() == 1
        href = link.get_attribute("href")
        assert all(f"ids={i}" in href for i in runs), (href, runs)
        open_everything(page)
        figures = measure(page)
        titles = [c["title"] for c in figures["charts"]]
        assert any(t.startswith("Mean wait by processors") for t in titles), titles
        assert len(figures["charts"]) <= 12  # one chart per quantity, not one per metric
        bad += readable(figures, width, f"sweep @{width}")
        seen[f"sweep@{width}"] = figures
        # the comparison of its points, reached by the link: 18 series, every one readable
        link.click()
        page.wait_for_selector("body[data-result-drawn=true]", timeout=30_000)
        assert page.url.endswith(href)
        open_everything(page)
        figures = measure(page)
        assert max(c["total"] for c in figures["charts"]) == 18
        assert page.locator(".chart-chooser").count() >= 1  # one run at a time, if wished
        bad += readable(figures, width, f"compare @{width}")
        seen[f"compare@{width}"] = figures
        # greedy provisioning: the cost's ± std. dev. no longer drags the axis below 0
        page.goto(f"{live_server.url}/experiments/{sweep_world['greedy']}/")
        page.wait_for_selector("body[data-result-drawn=true]", timeout=30_000)
        open_everything(page)
        figures = measure(page)
        bad += readable(figures, width, f"greedy @{width}")
        notes = " ".join(page.locator(".chart-note").all_inner_texts())
        assert "cut at 0" in notes, notes
        assert not errors, errors
        ctx.close()
    assert not bad, "\n".join(bad)


def test_reading_aids_on_specs_shaped_like_the_issue(live_server, alice, page):
    """Specs like the ones users could not read: 18 series of three runs, a cost whose ± std.
    dev. reaches below 0, mean waits from 30 s to 2 days on bars, two identical series, a chosen
    plan among 40 Pareto points."""
    login(page, live_server.url)
    page.set_viewport_size({"width": 390, "height": 900})
    with_renderer(page, live_server.url, "/traces/")
    page.evaluate(
        """() => {
      const host = document.createElement('div'); host.id = 'result';
      document.querySelector('main').appendChild(host);
      const runs = ['#2 a long run name', '#18 another long run name', '#19 a third run'];
      const parts = ['FCFS, accurate', 'EASY, accurate', 'Conservative, accurate',
                     'FCFS, requested', 'EASY, requested', 'Conservative, requested'];
      const many = [];
      runs.forEach((r, g) => parts.forEach((p, k) => many.push({name: r + ': ' + p, group: r,
        part: p, points: [[0, 0], [1, 0.2 + 0.1 * k + 0.01 * g], [2, 1]]})));
      const pareto = [];
      for (let i = 0; i < 40; i++) pareto.push([100 + 10 * i, 50 - i]);
      window.GridCharts.render(host, {summary: {runs: 3}, charts: [
        {id: 'many', type: 'line', title: 'wait CDF', x: {label: 'wait (s)'},
         y: {label: 'fraction of jobs'}, series: many},
        {id: 'cost', type: 'line', title: 'cost vs alpha', x: {label: 'α'},
         y: {label: 'allocation cost (SU)'},
         series: [{name: 'greedy', points: [[0, 500], [0.5, 800], [1, 1200]],
                   errors: [6500, 100, 50]}]},
        {id: 'waits', type: 'bar', title: 'Mean wait per configuration',
         x: {label: 'policy'}, y: {label: 'mean wait (s)'},
         series: [{name: 'mean wait', points: [['FCFS', 172800], ['EASY', 30],
                                                ['conservative', 31]]}]},
        {id: 'same', type: 'line', title: 'utilisation', x: {label: 'processors'},
         y: {label: 'utilisation'}, series: [
           {name: 'EASY', points: [[48, 0.9], [64, 0.8], [96, 0.6]]},
           {name: 'conservative', points: [[48, 0.9], [64, 0.8], [96, 0.6]]},
           {name: 'FCFS', points: [[48, 0.7], [64, 0.6], [96, 0.5]]}]},
        {id: 'front', type: 'scatter', title: 'Pareto front', x: {label: 'cost (SU)'},
         y: {label: 'makespan (h)'}, series: [{name: 'Pareto front', points: pareto},
           {name: 'chosen plan', points: [[200, 40]]}]},
      ]}, null);
    }"""
    )
    open_everything(page)  # (the fifth chart is folded)
    figures = measure(page)
    figures["tables"] = []  # (the traces list around the result is not what this test checks)
    assert not readable(figures, 390, "spec"), readable(figures, 390, "spec")
    many = next(c for c in figures["charts"] if c["id"] == "chart-many")
    assert many["total"] == many["visible"] == many["colours"] == 18
    notes = {
        cid: " ".join(page.locator(f"#chart-{cid} .chart-note").all_inner_texts())
        for cid in ("cost", "waits", "same")
    }
    assert "cut at 0" in notes["cost"] and "cannot be negative" in notes["cost"]
    assert "Logarithmic scale" in notes["waits"]
    assert "EASY and conservative coincide" in notes["same"]
    state = page.evaluate(
        """() => {
      const by = (id) => window.GridCharts.charts.find(
        (c) => c.canvas.closest('.chart-card').id === 'chart-' + id);
      const cost = by('cost'), waits = by('waits'), front = by('front');
      const metas = front.getSortedVisibleDatasetMetas();
      return {costMin: cost.scales.y.min, waitScale: waits.scales.y.type,
              waitAxis: waits.scales.y.options.title.text,
              // Chart.js draws the sorted metas last to first: the first is on top
              onTop: front.data.datasets[metas[0].index].label};
    }"""
    )
    assert state["costMin"] >= 0, state
    assert state["waitScale"] == "logarithmic" and "(h)" in state["waitAxis"], state
    assert state["onTop"] == "chosen plan", state
    # the legend is a list under the chart: a click hides its series
    entry = page.locator("#chart-same .legend-item").nth(2)
    entry.locator("button").click()
    hidden = page.evaluate(
        "() => window.GridCharts.charts.find((c) => c.canvas.closest('#chart-same'))"
        ".isDatasetVisible(2)"
    )
    assert hidden is False and "off" in entry.get_attribute("class")


@pytest.fixture
def finished_sweep(alice, media_root):
    from gridportal.experiments.sweeps import sweep_create
    from tests.browser.ui_fixtures import finish_sweep, fixture_inputs

    trace, _ = fixture_inputs(alice)
    vary = [{"param": "procs", "values": [32, 64]}]
    return finish_sweep(
        sweep_create(owner=alice, kind="trace-stats", params={}, traces=[trace], vary=vary)
    )


def test_finished_sweep_job_array_and_api_root_read_as_pages(live_server, finished_sweep, page):
    """A finished sweep's "Slurm job array" link opens a page that says there is nothing to
    export (not the API's 400), and /api/ shows no note meant for the developers."""
    sweep = finished_sweep
    login(page, live_server.url)
    page.goto(f"{live_server.url}/sweeps/{sweep.pk}/")
    page.click("#download-jobarray")
    page.wait_for_selector("#jobarray-nothing")
    assert "nothing to export" in page.inner_text("main")
    resp = page.goto(f"{live_server.url}/api/")
    assert resp.status == 200
    text = page.inner_text("body")
    assert "GridPortal API" in text and "DRF" not in text and "route names" not in text
