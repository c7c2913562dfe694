"""The Content-Security-Policy's one exception (settings ``CONTENT_SECURITY_POLICY``).

The browsable API (DRF's templates) and the API docs (Swagger UI of drf-spectacular) put
``<style>`` blocks and ``style=`` attributes in their own HTML; under ``style-src 'self'`` they
lose their layout (tests/browser/test_csp.py saw it). Those HTML pages, and only those, allow
inline style; their scripts stay ``'self'``. The portal's own pages have no inline style.
"""

from __future__ import annotations

API_PREFIX = "/api/"


class ApiPagesInlineStyleMiddleware:
    """Inside ``csp.middleware.CSPMiddleware``: marks the API's HTML answers for django-csp."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path.startswith(API_PREFIX) and response.get("Content-Type", "").startswith(
            "text/html"
        ):
            response._csp_update = {"style-src": ["'unsafe-inline'"]}
        return response
