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


@pytest.fixture
def world(alice, media_root, django_user_model):
    """Every kind's result, a sweep, sites with a topology, and a staff user ``root``: the
    fixtures of the walks over every page (tests/browser/test_layout.py)."""
    from gridportal.sites.models import Site, Topology
    from gridportal.sites.services import configuration_import, topology_load
    from scheduler.coallocation import builtin_topologies
    from scheduler.usage.scenarios import seed004_document
    from tests.browser.ui_fixtures import all_fixtures, page_urls

    made = all_fixtures(alice)
    made["root"] = django_user_model.objects.create_superuser(
        "root", "root@example.org", "pw-Secret-123"
    )
    configuration_import(seed004_document(sites=2))
    Site.objects.update(trace=made["trace"])
    made["topology"] = topology_load(name="seed001", document=builtin_topologies()["seed001"])
    made["site"] = Site.objects.first()
    made["policy"] = _policy_file(alice)
    assert Topology.objects.count() == 1
    made["urls"] = page_urls(made)  # (database queries before the browser's event loop)
    return made


def _policy_file(owner):
    """A user's policy as an upload stores it (the sandbox's check is tested on its own in
    tests/portal/test_user_policies.py): its page is one of the pages walked."""
    import hashlib

    from gridportal.inputs.models import PolicyFile

    source = (
        "from scheduler.policies import PriorityPolicy\n\n\n"
        "class SJF(PriorityPolicy):\n"
        "    def priority(self, job, now):\n"
        "        return -job.estimate\n"
    )
    return PolicyFile.objects.create(
        owner=owner, name="shortest job first", class_name="SJF", source=source,
        original_filename="sjf.py", size_bytes=len(source),
        sha256=hashlib.sha256(source.encode()).hexdigest(), title="SJF",
        dry_run={"jobs": 200, "procs": 64, "mean_wait": 1234.5, "mean_bsld": 3.2},
    )  # fmt: skip
