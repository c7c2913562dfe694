"""A real browser (Debian's Chromium via Playwright): upload a scheduling policy, compare it
with EASY and conservative backfilling in a cluster-sim run that a worker runs in the
sandbox, and open the run's results page."""

import os
from pathlib import Path

import pytest

from gridportal.sandbox import available
from tests.browser.ui_fixtures import login
from tests.conftest import make_swf_bytes, require

pytestmark = pytest.mark.browser

POLICY = '''from scheduler.policies import PriorityPolicy


class SJF(PriorityPolicy):
    """Shortest requested time first, EASY backfilling."""

    title = "SJF-EASY"

    def priority(self, job, now):
        return -job.estimate
'''


def upload_policy(page, url: str, source: Path) -> str:
    """Upload ``source`` (class SJF) on the policies page; its reference once the sandbox
    checked it."""
    page.goto(f"{url}/policies/")
    assert "User policies are on" in page.inner_text("#user-policies-state")
    page.fill("#id_class_name", "SJF")
    page.set_input_files("#id_file", str(source))
    page.click("#policy-upload button[type=submit]")
    page.wait_for_url("**/policies/*/", timeout=90_000)  # checked in the sandbox meanwhile
    return page.inner_text("#policy-ref")


def test_upload_a_policy_and_compare_it(live_server, celery_worker, alice, page, tmp_path):
    require(available() == "", f"the sandbox cannot run here: {available()}")
    swf = tmp_path / "policy-trace.swf"
    swf.write_bytes(make_swf_bytes(jobs=300, procs=64, seed=23))
    source = tmp_path / "sjf.py"
    source.write_text(POLICY)

    login(page, live_server.url)

    page.goto(f"{live_server.url}/traces/")
    page.fill("#id_name", "policy trace")
    page.set_input_files("#id_file", str(swf))
    page.click("#upload-form button[type=submit]")
    page.wait_for_url("**/traces/*/")

    ref = upload_policy(page, live_server.url, source)
    assert ref.startswith("user:") and len(ref) == 17
    assert "return -job.estimate" in page.inner_text("#policy-source")

    page.click("text=Compare it with EASY and conservative")
    page.wait_for_url("**/experiments/new/**")
    assert page.input_value("#id_p_policies") == f"{ref}, easy, conservative"
    page.select_option("#id_traces", label="policy trace")
    page.click("#start")
    page.wait_for_url("**/experiments/*/")
    page.wait_for_selector("body[data-result-drawn=true]", timeout=180_000)
    assert page.inner_text("#status") == "succeeded"
    text = page.inner_text("main")
    assert f"SJF-EASY ({ref})" in text
    assert "EASY" in text and "Conservative" in text
    shots = os.environ.get("GRIDPORTAL_SHOTS_DIR")  # to look at the page: a folder for a PNG
    if shots:
        page.screenshot(path=str(Path(shots) / "user-policy-results.png"), full_page=True)


@pytest.fixture
def site_trace(alice, media_root):
    from tests.portal.factories import stored_trace

    return stored_trace(alice, jobs=200, name="site trace")


def test_a_sweep_compares_an_uploaded_site_policy_with_easy_and_conservative(
    live_server, celery_worker, site_trace, page, tmp_path
):
    """The issue's closing note: an uploaded policy against EASY and conservative in a sweep
    built on the form (pricing's site policy varied), run by the real worker, with its
    results page naming the upload beside the built-ins."""
    require(available() == "", f"the sandbox cannot run here: {available()}")
    source = tmp_path / "sjf.py"
    source.write_text(POLICY)
    login(page, live_server.url)

    ref = upload_policy(page, live_server.url, source)

    page.click("text=pricing")
    page.wait_for_url("**/experiments/new/**")
    assert page.input_value("#id_p_policy") == ref  # offered among "Your policies"
    assert "no compiled quote kernel" in page.inner_text("#experiment-form")
    page.select_option("#id_traces", label="site trace")
    page.fill("#id_p_procs", "64")
    page.fill("#id_p_alphas", "0.5")
    page.select_option("#id_vary1_param", "policy")
    page.fill("#id_vary1_values", f"{ref}, easy, conservative")
    page.click("#start")
    page.wait_for_url("**/sweeps/*/")
    page.wait_for_selector("body[data-result-drawn=true]", timeout=120_000)
    assert page.inner_text("#status") == "succeeded"
    assert "3 done" in page.inner_text("#counts")
    table = page.inner_text("#result")
    for column in (f"scheduling policy = SJF-EASY ({ref})", "= EASY", "= Conservative"):
        assert column in table, column
    assert "scheduling scheduling" not in table  # the page relabels no label again
    shots = os.environ.get("GRIDPORTAL_SHOTS_DIR")
    if shots:
        page.screenshot(path=str(Path(shots) / "user-policy-sweep.png"), full_page=True)
