"""Security headers on every response, and templates the Content-Security-Policy can serve
(the pages themselves are checked in Chromium by tests/browser/test_csp.py)."""

import re

import pytest

from tests.conftest import ROOT


def directives(header: str) -> dict[str, set[str]]:
    return {d.split()[0]: set(d.split()[1:]) for d in header.split(";") if d.strip()}


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/login/", "/signup/", "/api/kinds/", "/no-such-page/"])
def test_every_response_carries_the_policy_and_headers(client, path):
    resp = client.get(path)
    assert resp.status_code < 500
    policy = directives(resp["Content-Security-Policy"])
    assert policy["script-src"] == {"'self'"}
    assert policy["style-src"] == {"'self'"}
    assert policy["object-src"] == {"'none'"} and policy["frame-ancestors"] == {"'none'"}
    assert policy["img-src"] == {"'self'", "data:", "blob:"}
    assert resp["X-Content-Type-Options"] == "nosniff"
    assert resp["Referrer-Policy"] == "same-origin"
    assert resp["X-Frame-Options"] == "DENY"


@pytest.mark.django_db
def test_only_the_api_html_pages_allow_inline_style(admin_client):
    html = admin_client.get("/api/", HTTP_ACCEPT="text/html")
    assert directives(html["Content-Security-Policy"])["style-src"] == {"'self'", "'unsafe-inline'"}
    assert directives(html["Content-Security-Policy"])["script-src"] == {"'self'"}
    json = admin_client.get("/api/", HTTP_ACCEPT="application/json")
    assert directives(json["Content-Security-Policy"])["style-src"] == {"'self'"}


TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_templates_have_no_inline_script_or_style(template):
    text = template.read_text()
    # a <script> without src (json_script's data blocks are rendered, not written here)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), "inline <script>"
    assert "<style" not in text, "<style> block"
    assert not re.search(r"\sstyle=", text), "style= attribute"
    assert not re.search(r"\son[a-z]+=", text), "on…= event handler attribute"
    assert "javascript:" not in text
