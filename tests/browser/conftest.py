"""Browser fixtures: Debian's Chromium driven by Playwright (``playwright install`` cannot
download browsers here).

Fixture order matters: database fixtures (users) must come before ``page``, because
Playwright's sync API runs an asyncio loop in this thread and Django refuses ORM calls in it.
"""

import os
import shutil

import pytest
from playwright.sync_api import sync_playwright

from tests.conftest import require

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


@pytest.fixture
def browser():
    require(
        os.path.exists(CHROMIUM) or bool(shutil.which("chromium")),
        f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)",
    )
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1366, "height": 900})
    page = context.new_page()
    yield page
    context.close()
