"""A real browser (Debian's Chromium via Playwright) on the Reproductions scoreboard:
the seed × figure grid, filters by kind and verdict, a run started from the page leads to
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
    # (the presets are folded by kind: open the kind)
    page.click("#kind-trace-stats > summary")
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
                   return v && v.textContent.trim() === 'fitted'; }""",
        timeout=30_000,
    )

    # back on the scoreboard: start the other malleability preset and watch it finish live
    page.goto(f"{live_server.url}/reproductions/?kind=malleability")
    assert page.get_attribute(row, "data-verdict") == "fitted"
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
    assert cell.get_attribute("data-verdict") in (
        "fitted",
        "by construction",
        "differs",
        "reproduced",
    )


SCREEN = 900  # the window's height: a "screen"


def test_page_opens_on_the_scoreboard_and_a_figure_reveals_its_claims(live_server, alice, browser):
    """The page before anything is expanded is about one screen at 1366 px (the
    presets folded by kind) and no wider than a phone at 390 px; a figure cell opens its
    kind and its preset's claims and scrolls to them."""
    from tests.browser.ui_fixtures import login, overflow

    for width in (1366, 390):
        ctx = browser.new_context(viewport={"width": width, "height": SCREEN})
        page = ctx.new_page()
        login(page, live_server.url)
        page.goto(f"{live_server.url}/reproductions/")
        height = page.evaluate("() => document.documentElement.scrollHeight")
        assert overflow(page) == 0, f"{overflow(page)} px of horizontal overflow at {width} px"
        if width == 1366:
            assert height <= 1.3 * SCREEN, f"{height} px tall at 1366 px before expanding"
        # every preset is on the page, folded in its kind
        presets = page.locator("tr.preset")
        assert presets.count() > 50 and not any(
            page.is_visible(f"#{presets.nth(i).get_attribute('id')}") for i in range(5)
        )
        assert page.locator("details.kind-group[open]").count() == 0

        row = "#repro-malleability-seed002-fig7-pra"
        cell = page.locator("#board tr[data-seed='002'] a.cell", has_text="Fig. 6")
        cell.click()
        assert page.evaluate("() => document.getElementById('kind-malleability').open")
        assert page.is_visible(row) and page.is_visible(f"{row} table.repro")
        assert "chosen" in page.get_attribute(row, "class")
        top = page.evaluate(f"() => document.querySelector('{row}').getBoundingClientRect().top")
        assert -2 <= top < SCREEN / 2, f"the preset's row is at {top} px, not scrolled to"
        assert overflow(page) == 0, f"horizontal overflow at {width} px with claims open"

        # the verdict filter dims the figures of other verdicts and hides the other presets
        page.select_option("#filter-verdict", "differs")
        assert not page.is_visible(row)
        assert "dim" in (cell.get_attribute("class") or "")
        # a figure of another verdict still reveals its preset (the filter steps aside)
        cell.click()
        assert page.is_visible(row) and page.input_value("#filter-verdict") == ""
        ctx.close()
