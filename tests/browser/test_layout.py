"""Layout and charts in a real browser: no page overflows horizontally at 390 px or 1366 px
(every URL pattern, with a finished run of every experiment kind) and none violates the
Content-Security-Policy (tests/browser/test_csp.py), the menu collapses on phones, error bars
stay inside the plot area, no legend entry lacks data, and a constant chart becomes a
sentence."""

import re

import pytest

from tests.browser.readability import with_renderer
from tests.browser.test_csp import no_page_violates_the_policy_and_charts_still_draw
from tests.browser.ui_fixtures import login, overflow, wait_drawn

pytestmark = pytest.mark.browser

WIDTHS = (390, 1366)


def test_pages_of_every_kind_and_a_sweep(live_server, world, browser):
    """The checks below on one world (a finished run of every kind, a sweep, sites with a
    topology: ~1 min of runs, made once for the four instead of once each). The CSP walk
    (tests/browser/test_csp.py) is at laptop width and measures overflow there; the phone
    width has its own walk. Every check runs; the failures of all are reported together."""
    failures = []
    for check in (no_page_violates_the_policy_and_charts_still_draw,
                  no_page_overflows_at_phone_width,
                  error_bars_inside_plot_and_no_empty_legend_items,
                  no_raw_key_on_result_and_sweep_pages):  # fmt: skip
        try:
            check(live_server, world, browser)
        except AssertionError as exc:
            failures.append(f"{check.__name__}: {exc}")
    assert not failures, "\n\n".join(failures)


def no_page_overflows_at_phone_width(live_server, world, browser):
    urls = world["urls"]
    assert len(urls) > 30
    bad = []
    for width in WIDTHS[:1]:  # (1366 px: the CSP walk)
        ctx = browser.new_context(viewport={"width": width, "height": 900})
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        login(page, live_server.url)
        for path in urls:
            head = page.request.get(live_server.url + path, max_redirects=0)
            if head.status == 405 or "text/html" not in head.headers.get("content-type", ""):
                continue  # a POST-only action or a download, not a page
            resp = page.goto(live_server.url + path)
            assert resp.status < 400, f"{path}: HTTP {resp.status}"
            wait_drawn(page)
            extra = overflow(page)
            if extra > 0:
                bad.append(f"{path} @{width}px: {extra} px too wide")
        assert not errors, errors
        ctx.close()
    assert not bad, "\n".join(bad)


def test_menu_collapses_on_phones_and_favicon_is_linked(live_server, alice, browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 800})
    page = ctx.new_page()
    login(page, live_server.url)
    assert not page.is_visible("header nav a[href='/traces/']")
    page.click("#menu-toggle")
    assert page.is_visible("header nav a[href='/traces/']")
    box = page.locator("header nav a[href='/sites/']").bounding_box()
    assert box["x"] + box["width"] <= 390
    icon = page.get_attribute("link[rel=icon]", "href")
    assert page.request.get(live_server.url + icon).status == 200
    assert page.request.get(live_server.url + "/favicon.ico").status == 200
    ctx.close()


CHART_CHECK = """() => window.GridCharts.charts.map((chart) => {
  const out = {id: chart.canvas.closest('.chart-card').id, outside: [], empty: []};
  const area = chart.chartArea;
  chart.data.datasets.forEach((ds, i) => {
    const meta = chart.getDatasetMeta(i);
    const scale = chart.scales[meta.yAxisID];
    (ds.errors || []).forEach((e, j) => {
      const d = ds.data[j];
      const y = d !== null && typeof d === 'object' ? d.y : d;
      if (typeof e !== 'number' || typeof y !== 'number') return;
      // (a bar cut at a physical bound is drawn down to it: errorsLow)
      const low = ds.errorsLow && typeof ds.errorsLow[j] === 'number' ? ds.errorsLow[j] : e;
      const top = scale.getPixelForValue(y + e), bottom = scale.getPixelForValue(y - low);
      if (top < area.top - 0.5 || bottom > area.bottom + 0.5)
        out.outside.push([ds.label, j, y, e, scale.min, scale.max]);
    });
  });
  // the legend is the list under the chart: one entry per dataset it names
  const card = chart.canvas.closest('.chart-card');
  const entries = card ? Array.from(card.querySelectorAll('.chart-legend .legend-item')) : [];
  entries.forEach((li) => {
    const ds = chart.data.datasets[Number(li.dataset.dataset)];
    const item = {text: li.textContent};
    const real = ds.data.filter((d) => d !== null && d !== undefined &&
      (typeof d !== 'object' || typeof d.y === 'number' || Array.isArray(d.x)));
    if (!real.length) out.empty.push(item.text);
  });
  return out;
})"""


def error_bars_inside_plot_and_no_empty_legend_items(live_server, world, browser):
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    page = ctx.new_page()
    login(page, live_server.url)
    checked = 0
    for path in [f"/sweeps/{world['sweep'].pk}/"] + [
        f"/experiments/{e.pk}/" for e in world["runs"].values()
    ]:
        page.goto(live_server.url + path)
        wait_drawn(page)
        page.evaluate(
            "() => document.querySelectorAll('details.more-charts').forEach("
            "(d) => { d.open = true; d.dispatchEvent(new Event('toggle')); })"
        )
        for chart in page.evaluate(CHART_CHECK):
            checked += 1
            assert not chart["outside"], f"{path} {chart['id']}: error bars off the plot"
            assert not chart["empty"], f"{path} {chart['id']}: legend items without data"
    assert checked > 20
    ctx.close()


def test_chart_rules_on_specs_that_broke_them(live_server, alice, page):
    """Specs shaped like the ones in the issue: error bars far above the points, a legend
    series with no points, a constant series, a violation rate beside a utilisation."""
    login(page, live_server.url)
    with_renderer(page, live_server.url, "/traces/")
    page.evaluate(
        """() => {
      const host = document.createElement('div'); host.id = 'result';
      document.querySelector('main').appendChild(host);
      const result = {summary: {jobs: 60000, completed_jobs: 54040, mean_wait: 6660},
        summary_units: {mean_wait: 's'}, charts: [
        {id: 'bars', type: 'line', title: 'error bars', x: {label: 'x'}, y: {label: 'y'},
         series: [{name: 'a', points: [[1, 1], [2, 2]], errors: [5, 8]},
                  {name: 'chosen plan', points: []}]},
        {id: 'flat', type: 'line', title: 'clusters vs jobs', x: {label: 'jobs'},
         y: {label: 'clusters'}, series: [{name: 's', points: [[1, 5], [2, 5], [3, 5]]}]},
        {id: 'vertical', type: 'line', title: 'Job wait times', x: {label: 'wait (s)'},
         y: {label: 'fraction'}, series: [{name: 's', points: [[0, 0], [0, 0.5], [0, 1]]}]},
        {id: 'axes', type: 'bar', title: 'violations and utilisation', x: {label: 'strategy'},
         y: {label: 'fraction'}, series: [{name: 'utilisation', points: [['a', 0.91], ['b', 0.9]]},
                                          {name: 'violation', points: [['a', 0.03], ['b', 0.0]]}]},
      ]};
      window.GridCharts.render(host, result, null);
    }"""
    )
    charts = page.evaluate(CHART_CHECK)
    assert [c["id"] for c in charts] == ["chart-bars", "chart-axes"]
    assert all(not c["outside"] and not c["empty"] for c in charts), charts
    notes = page.inner_text("#chart-notes")
    assert "clusters vs jobs: clusters is 5 at every point" in notes
    assert "Job wait times: every point has wait (s) = 0" in notes
    axes = page.evaluate(
        "() => { const c = window.GridCharts.charts[1];"
        " return c.data.datasets.map((d) => d.yAxisID); }"
    )
    assert axes == ["y", "y2"]
    # Key results: outcomes (not the input's job count), numbers for people
    assert page.locator("#key-results [data-metric=jobs]").count() == 0
    assert page.inner_text("#key-results [data-metric=completed_jobs] .key-value") == "54,040"
    assert page.inner_text("#key-results [data-metric=mean_wait] .key-value") == "111 min"
    # PNG export: white, titled, twice the size
    size = page.evaluate(
        """async () => { const url = window.GridCharts.pngOf({id: 'p', type: 'line', title: 'T',
          x: {label: 'x'}, y: {label: 'y'}, series: [{name: 'a', points: [[1, 1], [2, 3]]}]});
          const img = new Image(); img.src = url; await img.decode();
          const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
          const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0);
          return [img.width, img.height, Array.from(ctx.getImageData(2, 2, 1, 1).data)]; }"""
    )
    assert size[0] == 1800 and size[1] == 960
    assert size[2] == [255, 255, 255, 255]


#: A snake_case key ("first_submit", "jobs_with_requested_time") in the words on a page.
RAW_KEY = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")


def no_raw_key_on_result_and_sweep_pages(live_server, world, browser):
    """Every metric and parameter a result or a sweep page shows is in words —
    titles, axes, table headers and the notes on charts with nothing to draw included (the
    sweep's aggregate composes titles such as "jobs_with_requested_time vs procs")."""
    paths = [f"/experiments/{e.pk}/" for e in world["runs"].values()]
    paths.append(f"/sweeps/{world['sweep'].pk}/")
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    page = ctx.new_page()
    login(page, live_server.url)
    bad = {}
    for path in paths:
        page.goto(live_server.url + path)
        wait_drawn(page)
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => d.open = true)")
        text = re.sub(r"\S+://\S+", "", page.inner_text("main"))  # a trace header's URL is data
        keys = sorted(set(RAW_KEY.findall(text)))
        if path.startswith("/sweeps/") and re.search(r"\bprocs\b", text):
            keys.append("procs")  # the varied parameter, named in the header
        if keys:
            bad[path] = keys
    ctx.close()
    assert not bad, bad


def test_forms_write_bounds_for_people(live_server, alice, browser):
    """No "1.0e-06" in a form's help (provisioning's bandwidth bound) and no "SPEC §5"
    (the project's own specification) on any kind's form."""
    from scheduler.experiments.base import kinds

    names = [k.name for k in kinds()]
    ctx = browser.new_context(viewport={"width": 390, "height": 900})
    page = ctx.new_page()
    login(page, live_server.url)
    bad = {}
    for name in names:
        page.goto(f"{live_server.url}/experiments/new/?kind={name}")
        text = page.inner_text("main")
        found = re.findall(r"\b\d+(?:\.\d+)?e[+-]?\d+\b", text)
        found += re.findall(r"SPEC §[\d.]+", text)  # the project's spec, not the reader's
        if found:
            bad[name] = found
        assert overflow(page) == 0, f"{name}: the form is wider than a phone"
    ctx.close()
    assert not bad, bad


@pytest.fixture
def three_runs(alice, media_root):
    """Three cluster-sim runs (6 series each: 18 legend entries on the compare page) and two
    usage-policy runs with different settings."""
    from tests.browser.ui_fixtures import fixture_inputs, run_kind

    trace, workflow = fixture_inputs(alice)
    sims = [run_kind(alice, "cluster-sim", trace, workflow, {"procs": p}) for p in (48, 64, 96)]
    usage = [run_kind(alice, "usage-policy", trace, workflow, {"jobs": j}) for j in (200, 300)]
    return [e.pk for e in sims], [e.pk for e in usage]


def test_compare_keeps_plots_readable_and_settings_in_words(live_server, three_runs, browser):
    """On the compare page long legends do not squeeze the plots into strips (every
    plot area at least 150 px tall at 390 px and 1366 px), and the "Settings that differ" and
    side-by-side tables name settings and metrics in words."""
    sims, usage = three_runs
    for width in WIDTHS:
        ctx = browser.new_context(viewport={"width": width, "height": 900})
        page = ctx.new_page()
        login(page, live_server.url)
        for ids in (sims, usage):
            page.goto(
                f"{live_server.url}/experiments/compare/?" + "&".join(f"ids={i}" for i in ids)
            )
            page.wait_for_selector("body[data-result-drawn=true]")
            page.evaluate(
                "() => document.querySelectorAll('details').forEach((d) => d.open = true)"
            )
            try:  # the charts that were folded lay out once shown
                page.wait_for_function(
                    """() => window.GridCharts.charts.every(
                         (c) => c.chartArea.bottom - c.chartArea.top >= 150)""",
                    timeout=10_000,
                )
            except Exception:
                pass  # the assertion below says which
            plots = page.evaluate(
                """() => window.GridCharts.charts.map((c) => [c.canvas.getAttribute('aria-label'),
                     c.canvas.closest('.chart-card').querySelectorAll('.legend-item').length,
                     c.chartArea.bottom - c.chartArea.top])"""
            )
            assert plots and max(n for _, n, _ in plots) >= 8
            thin = [p for p in plots if p[2] < 150]
            assert not thin, f"@{width}px: plots squeezed into strips: {thin}"
            rows = page.locator(
                "#table-differences tbody tr th, #table-differences tbody td:first-child"
            )
            text = " ".join(rows.all_inner_texts())
            assert not RAW_KEY.findall(text) and "param " not in text, text
            assert overflow(page) == 0
        ctx.close()
