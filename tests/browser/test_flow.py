"""A real browser (Debian's Chromium via Playwright) through the whole user path:
log in → upload a trace → start trace-stats → a worker runs it → charts drawn → CSV download."""

import pytest

from tests.browser.readability import with_renderer
from tests.conftest import make_swf_bytes

pytestmark = pytest.mark.browser


def non_blank_pixels(page, selector: str) -> int:
    return page.eval_on_selector(
        selector,
        """(canvas) => {
        const ctx = canvas.getContext('2d');
        const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
        return n;
    }""",
    )


def test_upload_run_and_download(live_server, celery_worker, alice, page, tmp_path):
    swf = tmp_path / "browser-trace.swf"
    swf.write_bytes(make_swf_bytes(jobs=400, procs=64, seed=21))

    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-Secret-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")

    page.goto(f"{live_server.url}/traces/")
    page.fill("#id_name", "browser trace")
    page.set_input_files("#id_file", str(swf))
    page.click("#upload-form button[type=submit]")
    page.wait_for_url("**/traces/*/")
    assert page.locator("#trace-stats").inner_text().count("400") >= 1

    page.click("text=Trace statistics")
    page.wait_for_url("**/experiments/new/**")
    page.click("#start")
    page.wait_for_url("**/experiments/*/")
    page.wait_for_selector("body[data-result-drawn=true]", timeout=90_000)
    assert page.inner_text("#status") == "succeeded"
    assert page.locator("canvas").count() == 4
    assert non_blank_pixels(page, "#chart-job-sizes canvas") > 500
    assert "400" in page.text_content("#summary tr[data-metric=jobs]")  # (folded: All metrics)
    assert page.locator("#key-results .key").count() >= 3  # Key results first

    with page.expect_download() as info:
        page.click("#download-csv")
    path = info.value.path()
    text = open(path).read()
    assert text.splitlines()[0] == "metric,value,label"
    assert "jobs,400,job lines" in text


def test_malformed_upload_shows_the_line(live_server, alice, page, tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_bytes(b"; MaxProcs: 8\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1\n")
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-Secret-123")
    page.click("button[type=submit]")
    page.goto(f"{live_server.url}/traces/")
    page.set_input_files("#id_file", str(bad))
    page.click("#upload-form button[type=submit]")
    errors = page.inner_text("#upload-errors")
    assert "line 2" in errors and "17" in errors
    assert "No traces yet." in page.inner_text("#trace-table")


def login(page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-Secret-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


@pytest.fixture
def trace(alice, media_root):
    from tests.portal.factories import stored_trace

    return stored_trace(alice, jobs=300)


@pytest.fixture
def two_runs(alice, trace):
    from tests.portal.factories import finished_experiment

    return finished_experiment(alice, trace, procs=64), finished_experiment(alice, trace, procs=128)


def test_sweep_from_form_to_chart_with_error_bars(live_server, start_worker, trace, page):
    start_worker()
    login(page, live_server)
    page.goto(f"{live_server.url}/experiments/new/?kind=trace-stats&trace={trace.pk}")
    page.select_option("#id_vary1_param", "procs")
    page.fill("#id_vary1_values", "32, 64, 128")
    page.fill("#id_repetitions", "2")
    page.click("#start")
    page.wait_for_url("**/sweeps/*/")
    page.wait_for_selector("body[data-result-drawn=true]", timeout=120_000)
    assert page.inner_text("#status") == "succeeded"
    assert "6 done" in page.inner_text("#counts")
    assert non_blank_pixels(page, "#chart-sweep-offered_load canvas") > 500
    # one row per metric: its name, then its mean (± std. dev.) at each of the 3 points
    metrics = page.locator("table:not(#runs) tbody tr")
    assert metrics.count() >= 3 and metrics.first.locator("th, td").count() == 4
    compare = page.get_attribute("#sweep-compare", "href")
    assert compare.startswith("/experiments/compare/?") and compare.count("ids=") == 3
    with page.expect_download() as info:
        page.click("#download-csv")
    text = open(info.value.path()).read()
    assert text.startswith("procs,runs,")


def test_compare_page_overlays_runs(live_server, two_runs, page):
    a, b = two_runs
    login(page, live_server)
    page.goto(f"{live_server.url}/experiments/")
    page.check(f"input[name=ids][value='{a.pk}']")
    page.check(f"input[name=ids][value='{b.pk}']")
    page.click("#compare")
    page.wait_for_selector("body[data-result-drawn=true]")
    differ = page.inner_text("#table-differences")  # the setting in words
    assert "\nprocessors\t" in differ and "param procs" not in differ
    charts = page.evaluate(
        "[...new Set([...document.querySelectorAll('canvas')].map(c => c.closest('[id]').id))]"
    )
    assert charts == ["chart-job-sizes", "chart-runtime-cdf", "chart-arrivals-by-hour",
                      "chart-estimate-accuracy"]  # fmt: skip
    assert non_blank_pixels(page, "#chart-job-sizes canvas") > 500
    legend = page.evaluate(
        "Chart.getChart(document.querySelector('#chart-job-sizes canvas'))"
        ".data.datasets.map(d => d.label)"
    )
    assert sorted(label.split()[0] for label in legend) == sorted([f"#{a.pk}", f"#{b.pk}"])
    with page.expect_download() as info:
        page.click("#chart-job-sizes a.csv")
    lines = open(info.value.path()).read().splitlines()
    assert lines[0] == "series,processors,jobs,error" and len(lines) > 2


GALLERY = {
    "summary": {"n": 1},
    "tables": [],
    "charts": [
        {
            "id": "line",
            "type": "line",
            "title": "line with error bars",
            "x": {"label": "x", "scale": "linear"},
            "y": {"label": "y", "scale": "linear"},
            "series": [
                {"name": "a", "points": [[0, 1], [1, 3], [2, 2]], "errors": [0.5, 0.2, 0.4]}
            ],
        },
        {
            "id": "scatter",
            "type": "scatter",
            "title": "scatter",
            "x": {"label": "x", "scale": "log"},
            "y": {"label": "y", "scale": "linear"},
            "series": [{"name": "a", "points": [[1, 1], [10, 3], [100, 2]]}],
        },
        {
            "id": "bar",
            "type": "bar",
            "title": "bar",
            "x": {"label": "c", "scale": "category"},
            "y": {"label": "y", "scale": "linear"},
            "series": [
                {"name": "a", "points": [["u", 1], ["v", 2]]},
                {"name": "b", "points": [["v", 3], ["w", 1]]},
            ],
        },
        {
            "id": "histogram",
            "type": "histogram",
            "title": "histogram / CDF",
            "x": {"label": "bin", "scale": "category"},
            "y": {"label": "n", "scale": "linear"},
            "series": [{"name": "a", "points": [["0-1", 4], ["1-2", 7], ["2-3", 2]]}],
        },
        {
            "id": "gantt",
            "type": "gantt",
            "title": "gantt",
            "x": {"label": "time (s)", "scale": "linear"},
            "y": {"label": "site", "scale": "linear"},
            "series": [
                {"name": "tasks", "points": [[0, 50, "site A"], [20, 90, "site B"]]},
                {"name": "slots", "points": [[60, 120, "site A"]]},
            ],
        },
    ],
}


def test_generic_renderer_draws_every_chart_type(live_server, alice, page):
    """One renderer for every declarative chart type (the seam every experiment kind uses)."""
    import json

    login(page, live_server)
    with_renderer(page, live_server.url, "/experiments/")
    page.evaluate(
        """(result) => {
        const box = document.createElement('div'); box.id = 'gallery';
        document.querySelector('main').appendChild(box);
        window.GridCharts.render(box, result, null);
        box.querySelectorAll('details.more-charts').forEach((d) => { d.open = true; });
    }""",
        json.loads(json.dumps(GALLERY)),
    )
    page.wait_for_selector("#chart-gantt canvas")
    for chart_id in ("line", "scatter", "bar", "histogram", "gantt"):
        assert non_blank_pixels(page, f"#chart-{chart_id} canvas") > 300, chart_id
    labels = page.evaluate(
        "Chart.getChart(document.querySelector('#chart-bar canvas')).data.labels"
    )
    assert labels == ["u", "v", "w"]  # categories of all series, aligned
    gantt = page.evaluate(
        "Chart.getChart(document.querySelector('#chart-gantt canvas')).data.datasets[1].data[0].x"
    )
    assert gantt == [60, 120]
    with page.expect_download() as info:
        page.click("#chart-gantt a.csv")
    assert open(info.value.path()).read().splitlines()[:2] == [
        "series,start,end,row",
        "tasks,0,50,site A",
    ]
    with page.expect_download() as info:
        page.click("#chart-line a.png")
    assert open(info.value.path(), "rb").read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def priced_site(trace):
    from gridportal.sites.models import Site

    return Site.objects.create(name="alpha", processors=64, trace=trace)


def test_a_site_quotes_a_reservation(live_server, priced_site, page):
    """Sites → a site's page → ask for 32 processors for 2 h → the price list (query 18) as a
    table and a drawn chart, with a free start in it."""
    login(page, live_server)
    page.click("text=Sites")
    page.click("text=alpha")
    page.fill("#id_n", "32")
    page.fill("#id_hours", "2")
    page.fill("#id_at", "12")
    page.click("#quote-form button[type=submit]")
    page.wait_for_selector("#table-options")
    rows = page.locator("#table-options tbody tr")
    assert rows.count() >= 1
    prices = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(rows.count())]
    assert "0" in prices  # the list always holds a start at price 0
    if rows.count() > 1:
        assert non_blank_pixels(page, "#chart-price-vs-start canvas") > 200
    else:  # one start only: a sentence, not a chart of one dot on a -1…1 axis
        assert "only one point" in page.inner_text("#chart-notes li[data-chart=price-vs-start]")
    assert "α = 1" in page.inner_text("#quote-choices")
    # and the other way in: submit best effort — when would it start?
    page.fill("#id_p-n", "8")
    page.fill("#id_p-hours", "1")
    page.fill("#id_p-at", "48")
    page.click("#predict-form button[type=submit]")
    page.wait_for_selector("#chart-start-probability canvas")
    assert page.locator("#table-start-quantiles tbody tr").count() == 4
    assert non_blank_pixels(page, "#chart-start-probability canvas") > 200
