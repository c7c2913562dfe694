"""Live pages in a real browser: a page opened while its run is still queued
follows the run to its end without a reload — the experiment page's Published values card and
the sweep list's status column.  The worker is started only after the page is open, so the
page has certainly seen the unfinished state first."""

import pytest

pytestmark = pytest.mark.browser


def login(page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-Secret-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


def test_published_values_fill_in_when_the_run_finishes(live_server, start_worker, alice, page):
    login(page, live_server)
    page.goto(f"{live_server.url}/reproductions/?kind=malleability")
    row = "#repro-malleability-seed002-fig7-pra"
    page.click(f"{row} [data-role=run]")  # no worker yet: the run stays queued
    page.wait_for_url("**/experiments/*/")
    card = "#published-values"
    assert page.inner_text("#status") in ("queued", "running")
    assert page.get_attribute(card, "data-verdict") == "not run"
    assert page.locator(f"{card} tbody tr").count() == 0
    page.evaluate("window.__same_page = true")

    start_worker()
    page.wait_for_selector("body[data-result-drawn=true]", timeout=120_000)
    page.wait_for_function(
        "() => document.querySelector('#published-values').dataset.verdict !== 'not run'",
        timeout=30_000,
    )
    assert page.evaluate("window.__same_page") is True  # no reload happened
    assert page.inner_text("#status") == "succeeded"
    assert page.locator(f"{card} tbody tr").count() >= 1  # the published values, with ours
    verdict = page.text_content(f"{card} [data-role=verdict]").strip()
    assert verdict in ("by construction", "fitted", "reproduced", "differs", "partly reproduced")
    assert page.get_attribute(card, "data-verdict") == verdict


def test_sweep_list_status_follows_the_runs(live_server, start_worker, alice, trace, page):
    login(page, live_server)
    page.goto(f"{live_server.url}/experiments/new/?kind=trace-stats&trace={trace.pk}")
    page.select_option("#id_vary1_param", "procs")
    page.fill("#id_vary1_values", "32, 64")
    page.click("#start")
    page.wait_for_url("**/sweeps/*/")
    page.goto(f"{live_server.url}/sweeps/")
    cell = "td.sweep-state"
    assert page.get_attribute(cell, "data-status") == "queued"
    assert page.inner_text(f"{cell} .status") == "queued"
    page.evaluate("window.__same_page = true")

    start_worker()
    page.wait_for_function(
        "() => document.querySelector('td.sweep-state').dataset.status === 'succeeded'",
        timeout=120_000,
    )
    assert page.evaluate("window.__same_page") is True
    assert page.inner_text(f"{cell} .status") == "succeeded"
    assert page.inner_text(f"{cell} .muted") == "100 %"
    assert "<script" not in page.title()  # the title is words only


@pytest.fixture
def trace(alice, media_root):
    from tests.portal.factories import stored_trace

    return stored_trace(alice, jobs=300)


@pytest.fixture
def running_run(alice):
    from gridportal.experiments.models import Experiment

    return Experiment.objects.create(
        owner=alice, kind="provisioning-impact", params={"start_day": 40.0}, status="running"
    )


def test_a_failure_seen_live_names_the_field_in_words(live_server, running_run, page):
    """The run fails while the page is open: the message the page fetches names the field by
    its label (the server-rendered page and the live one say the same)."""
    import threading

    from gridportal.experiments.models import Experiment

    login(page, live_server)
    page.goto(f"{live_server.url}/experiments/{running_run.pk}/")
    assert page.inner_text("#status") == "running" and not page.is_visible("#error")
    page.evaluate("window.__same_page = true")

    def fail() -> None:  # the ORM outside Playwright's event-loop thread
        Experiment.objects.filter(pk=running_run.pk).update(
            status="failed", error="start_day: 40 is past the trace's 11.2 days\nseed: too big"
        )

    worker = threading.Thread(target=fail)
    worker.start()
    worker.join()
    page.wait_for_function("() => document.getElementById('status').textContent === 'failed'")
    assert page.evaluate("window.__same_page") is True
    text = page.inner_text("#error")
    assert text.startswith("window start (days into the trace) (start_day): 40 is past"), text
    assert "\nrandom seed (seed): too big" in text
    page.reload()
    assert page.inner_text("#error") == text  # the server writes it the same way


@pytest.fixture
def running_usage_run(alice):
    from gridportal.experiments.models import Experiment

    return Experiment.objects.create(
        owner=alice, kind="usage-policy", params={}, status="running", message="simulating spep"
    )


def test_live_message_and_every_field_of_an_error_in_words(live_server, running_usage_run, page):
    """The progress line and a failure naming two fields ("a: …; b: …", as the engine
    joins them) show labels, live and after a reload alike."""
    import threading

    from gridportal.experiments.models import Experiment
    from scheduler.labels import label_of

    pk = running_usage_run.pk
    login(page, live_server)
    page.goto(f"{live_server.url}/experiments/{pk}/")
    assert page.inner_text("#message") == "simulating S-PEP"

    def step(**fields) -> None:  # the ORM outside Playwright's event-loop thread
        worker = threading.Thread(target=lambda: Experiment.objects.filter(pk=pk).update(**fields))
        worker.start()
        worker.join()

    step(message="simulating rm-fairshare")
    page.wait_for_function("() => document.getElementById('message').textContent !== "
                           "'simulating S-PEP'")  # fmt: skip
    assert page.inner_text("#message") == "simulating RM fair-share"
    step(message="simulating none", progress=0.9)
    page.wait_for_function("() => document.getElementById('progress-bar').style.width === '90%'")
    assert page.inner_text("#message") == "simulating no policy"

    step(status="failed", message="failed",
         error="procs_max: must be at least 1; runtime_mean: must be positive")  # fmt: skip
    page.wait_for_function("() => document.getElementById('status').textContent === 'failed'")
    text = page.inner_text("#error")
    assert text == (
        f"{label_of('procs_max')} (procs_max): must be at least 1; "
        f"{label_of('runtime_mean')} (runtime_mean): must be positive"
    )
    page.reload()
    assert page.inner_text("#error") == text
