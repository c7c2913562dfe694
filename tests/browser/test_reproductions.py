"""A real browser (Debian's Chromium via Playwright) on the Reproductions page (issue 15): open
it, run one reproduction (a real Celery worker runs it), see its verdict beside the published
values, and the published values as a reference on the run's result page."""

import pytest

pytestmark = pytest.mark.browser
VERDICTS = ("matches", "same shape", "differs")


def test_run_one_reproduction_and_see_its_verdict(live_server, celery_worker, alice, page):
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-Secret-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")

    page.click("nav >> text=Reproductions")
    page.wait_for_url("**/reproductions/")
    card = "#repro-malleability-seed002-fig7-pra"
    assert page.get_attribute(card, "data-verdict") == "not run"
    assert "GADGET2 takes nearly 10 minutes" in page.inner_text(card)
    # a preset on an archive trace the user has not fetched says how to get it
    assert "manage.py fetch_trace CTC-SP2" in page.inner_text("#repro-trace-stats-ctc-thesis")

    page.click(f"{card} [data-role=run]")
    page.wait_for_url("**/reproductions/")
    # the page refreshes itself while the run is queued or running; wait for the worker
    page.wait_for_function(
        """(sel) => { const c = document.querySelector(sel);
                      return c && c.dataset.verdict !== 'not run'; }""",
        arg=card,
        timeout=90_000,
    )
    verdict = page.get_attribute(card, "data-verdict")
    assert verdict in VERDICTS
    assert page.inner_text(f"{card} [data-role=verdict]") == verdict
    ours = page.inner_text(f"{card} table")
    assert "599.99" in ours or "600" in ours  # GADGET2 on 2 processors, beside 600 ± 10 %

    page.click(f"{card} a[href^='/experiments/']")  # the latest run
    page.wait_for_url("**/experiments/*/")
    page.wait_for_selector("body[data-result-drawn=true]", timeout=60_000)
    assert page.inner_text("#published-values [data-role=verdict]") == verdict
    assert page.get_attribute("#result", "data-reference") == "true"
    assert page.locator("#chart-speedup canvas").count() == 1
