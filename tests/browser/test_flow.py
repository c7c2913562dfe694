"""A real browser (Debian's Chromium via Playwright) through the whole user path:
log in → upload a trace → start trace-stats → a worker runs it → charts drawn → CSV download."""

import os
import shutil

import pytest

from tests.conftest import make_swf_bytes, require

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


# Fixture order matters: database fixtures (users) must come before ``page``, because Playwright's
# sync API runs an asyncio loop in this thread and Django refuses ORM calls inside it.


@pytest.fixture
def browser():
    require(
        os.path.exists(CHROMIUM) or bool(shutil.which("chromium")),
        f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)",
    )
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1366, "height": 900})
    page = context.new_page()
    yield page
    context.close()


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
    assert "400" in page.inner_text("#summary tr[data-metric=jobs]")

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
