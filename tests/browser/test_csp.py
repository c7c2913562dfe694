"""The Content-Security-Policy in a real browser: every page — each web URL pattern
with a finished run of every experiment kind, a sweep, compare, sites with a quote and a
prediction, reproductions, the account pages, the admin and the API pages — is opened in
Chromium, and any CSP violation (the ``securitypolicyviolation`` event or Chromium's console
report) fails the test. Charts still draw (no blank canvas) and still download as PNG.

The walk over every page runs in tests/browser/test_layout.py (one world of finished runs for
all the page walks; it also measures each page's width at 1366 px); the control is here.

The policy itself is gridportal/settings.py ``CONTENT_SECURITY_POLICY``."""

import pytest

from tests.browser.ui_fixtures import login, overflow, wait_drawn

pytestmark = pytest.mark.browser

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
)


def directives(header: str | None) -> dict[str, list[str]]:
    """A policy as {directive: sources} (django-csp does not keep the directives' order)."""
    parts = [d.split() for d in (header or "").split(";") if d.strip()]
    return {d[0]: sorted(d[1:]) for d in parts}


#: reports every violation to the test (defined before any script of the page runs)
LISTEN = """
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.reportCsp(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${where}`);
});
"""

BLANK_CANVASES = """() => [...document.querySelectorAll("canvas")].filter((c) => {
  if (!c.width || !c.height || !c.offsetParent) return false;  // not shown (e.g. a closed panel)
  const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return false;
  return true;
}).map((c) => c.closest("[id]") ? c.closest("[id]").id : "?")"""


def watched_context(browser, violations: list):
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
    ctx.expose_function("reportCsp", lambda text: violations.append(text))
    ctx.add_init_script(LISTEN)
    return ctx


def watch_console(page, violations: list, where: list):
    def on_console(msg):
        if "Content Security Policy" in msg.text:
            violations.append(f"{where[0]}: console: {msg.text[:300]}")

    page.on("console", on_console)


def visit(page, url: str, path: str, where: list) -> dict:
    where[0] = path
    resp = page.goto(url + path)
    assert resp.status < 400, f"{path}: HTTP {resp.status}"
    try:
        wait_drawn(page)
    except Exception as exc:  # a page whose scripts were refused never says it drew
        seen = f"violations: {page.violations}; errors: {page.errors}"
        raise AssertionError(f"{path}: not drawn ({exc}); {seen}") from None
    page.wait_for_load_state("networkidle")
    return resp.headers


def no_page_violates_the_policy_and_charts_still_draw(live_server, world, browser):
    """Every page, logged out, as a user and as staff: no violation, charts drawn, a chart's
    PNG download; and (as the same walk is at laptop width) no page wider than 1366 px."""
    url = live_server.url
    site = world["site"]
    pages = [
        *world["urls"],
        f"/sites/{site.pk}/?n=32&hours=2&at=12",
        f"/sites/{site.pk}/?p-n=8&p-hours=1&p-at=48",
    ]
    violations: list[str] = []
    where = [""]
    ctx = watched_context(browser, violations)
    page = ctx.new_page()
    page.violations = violations
    watch_console(page, violations, where)
    errors: list[str] = []
    page.errors = errors
    page.on("requestfailed", lambda r: errors.append(f"{where[0]}: failed {r.url} {r.failure}"))
    page.on("pageerror", lambda e: errors.append(f"{where[0]}: {e}"))

    # logged out: the account pages and the admin's login
    checked = []
    for path in ("/login/", "/signup/", "/admin/login/"):
        headers = visit(page, url, path, where)
        assert directives(headers.get("content-security-policy")) == directives(POLICY), path
        assert headers.get("x-content-type-options") == "nosniff", path
        assert headers.get("referrer-policy") == "same-origin", path
        checked.append(path)

    login(page, url)
    blank, too_wide, canvases, charted = [], [], 0, 0
    for path in pages:
        head = page.request.get(url + path, max_redirects=0)
        if head.status == 405 or "text/html" not in head.headers.get("content-type", ""):
            continue  # a POST-only action or a download, not a page
        headers = visit(page, url, path, where)
        assert directives(headers.get("content-security-policy")) == directives(POLICY), path
        n = page.locator("canvas").count()
        canvases += n
        charted += n > 0
        blank += [f"{path}#{box}" for box in page.evaluate(BLANK_CANVASES)]
        if (extra := overflow(page)) > 0:
            too_wide.append(f"{path} @1366px: {extra} px too wide")
        checked.append(path)

    # a chart's PNG download (canvas toDataURL under img-src data:) on a finished run's page
    run = world["runs"]["cluster-sim"]
    visit(page, url, f"/experiments/{run.pk}/", where)
    with page.expect_download() as info:
        page.locator("a.png").first.click()
    assert open(info.value.path(), "rb").read(8) == b"\x89PNG\r\n\x1a\n"

    # staff: the admin and the API pages
    ctx.clear_cookies()
    login(page, url, username="root")
    for path in ("/admin/", "/admin/sites/site/", "/admin/sites/site/add/",
                 f"/admin/sites/site/{site.pk}/change/", "/api/", "/api/experiments/",
                 "/api/docs/"):  # fmt: skip
        headers = visit(page, url, path, where)
        expected = directives(POLICY)
        if path.startswith("/api/"):  # DRF's and Swagger UI's own templates: inline style only
            expected["style-src"] = sorted(["'self'", "'unsafe-inline'"])
        assert directives(headers.get("content-security-policy")) == expected, path
        checked.append(path)
    try:  # Swagger UI drew itself (its start-up script is a file of its own: the split view)
        page.wait_for_selector(".swagger-ui .info", timeout=30_000)
    except Exception as exc:
        errors.append(f"/api/docs/: Swagger UI not drawn ({exc})")
    ctx.close()

    print(f"CSP: {len(checked)} pages checked, {charted} with charts ({canvases} canvases)")
    assert len(checked) > 40, checked
    assert charted >= 10 and canvases >= 30, (charted, canvases)
    assert not violations, "\n".join(violations)
    assert not errors, "\n".join(errors)
    assert not blank, f"blank charts: {blank}"
    assert not too_wide, "\n".join(too_wide)


def test_the_watch_sees_a_violation(live_server, alice, browser):
    """The control: an inline script and an inline style injected into a page are refused and
    reported, so an empty list above means no violation, not a deaf listener."""
    violations: list[str] = []
    ctx = watched_context(browser, violations)
    page = ctx.new_page()
    where = ["/login/"]
    watch_console(page, violations, where)
    page.goto(live_server.url + "/login/")
    ran = page.evaluate(
        """() => {
        const s = document.createElement("script");
        s.textContent = "window.injected = true";
        document.body.appendChild(s);
        const d = document.createElement("div");
        d.setAttribute("style", "width: 123px");
        document.body.appendChild(d);
        return [window.injected === true, d.offsetWidth];
    }"""
    )
    page.wait_for_timeout(300)
    ctx.close()
    assert ran[0] is False and ran[1] != 123, ran
    assert any(v.startswith("script-src") for v in violations), violations
    assert any(v.startswith("style-src") for v in violations), violations
