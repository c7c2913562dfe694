"""A real browser (Debian's Chromium via Playwright) on the Reproductions scoreboard (issues 15,
18): the seed × figure grid, filters by kind and verdict, a run started from the page leads to
that run, and the scoreboard updates without a reload when the run finishes."""

import pytest

pytestmark = pytest.mark.browser


def test_scoreboard_filters_run_link_and_live_update(live_server, celery_worker, alice, page):
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-Secret-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")

    page.click("nav >> text=Reproductions")
    page.wait_for_url("**/reproductions/")
    assert page.locator("#board tr[data-seed]").count() == 5  # seeds 000-004 declare claims
    row = "#repro-malleability-seed002-fig7-pra"
    assert page.get_attribute(row, "data-verdict") == "not run"
    # a preset on an archive trace the user has not uploaded says how to get it in the browser
    needs = page.inner_text("#repro-trace-stats-ctc-thesis [data-role=needs]")
    assert "Traces page" in needs and "CTC-SP2-1996-3.1-cln.swf.gz" in needs

    # filters: by kind, then by verdict (client side; the address keeps them)
    page.select_option("#filter-kind", "malleability")
    assert page.is_visible(row) and not page.is_visible("#repro-trace-stats-ctc-thesis")
    assert "kind=malleability" in page.url
    page.select_option("#filter-verdict", "differs")
    assert not page.is_visible(row)
    page.select_option("#filter-verdict", "")

    # Run leads to the run it started
    page.click(f"{row} [data-role=run]")
    page.wait_for_url("**/experiments/*/")
    run_url = page.url
    page.wait_for_selector("body[data-result-drawn=true]", timeout=90_000)
    page.wait_for_function(
        """() => { const v = document.querySelector('#published-values [data-role=verdict]');
                   return v && v.textContent.trim() === 'by construction'; }""",
        timeout=30_000,
    )

    # back on the scoreboard: start the other malleability preset and watch it finish live
    page.goto(f"{live_server.url}/reproductions/?kind=malleability")
    assert page.get_attribute(row, "data-verdict") == "by construction"
    assert page.get_attribute(f"{row} a[data-role=latest]", "href") in run_url
    other = "#repro-malleability-seed002-fig8-pwa"
    page.click(f"{other} [data-role=run]")
    page.wait_for_url("**/experiments/*/")
    page.goto(f"{live_server.url}/reproductions/?kind=malleability")
    page.evaluate("window.__same_page = true")
    page.wait_for_function(
        """(sel) => document.querySelector(sel).dataset.verdict !== 'not run'""",
        arg=other,
        timeout=90_000,
    )
    assert page.evaluate("window.__same_page") is True  # updated without a reload
    assert "cause:" in page.text_content(other)
    cell = page.locator("#board tr[data-seed='002'] a.cell").first
    assert cell.get_attribute("data-verdict") in ("by construction", "differs", "reproduced")
