"""Hostile query strings: refused at the door with a 400 naming the parameter, never a 500.

PostgreSQL refuses a text containing NUL (psycopg raises ``ValueError`` when one is sent as a
parameter), so ``?q=%00`` — or ``%00`` in any filter the views or the API pass to a query —
was a 500.  :class:`QueryStringMiddleware` answers 400 (JSON for the API, text otherwise) to a
request whose query string has NUL in a name or value, before any view runs; everything else
(invalid dates, huge numbers, unknown values) is each view's to refuse or ignore.
"""

from __future__ import annotations

import json

from django.http import HttpResponse


def hostile_parameter(query) -> str | None:
    """The first query parameter (name) holding NUL, or None."""
    for key, values in query.lists():
        if "\x00" in key:
            return key.replace("\x00", "\\0")[:100]
        for value in values:
            if "\x00" in value:
                return key[:100]
    return None


class QueryStringMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        name = hostile_parameter(request.GET)
        if name is None:
            return self.get_response(request)
        message = f"query parameter {name!r}: NUL characters are not allowed"
        if request.path.startswith("/api/"):
            return HttpResponse(json.dumps({name: [message]}), status=400,
                                content_type="application/json")  # fmt: skip
        return HttpResponse(message + "\n", status=400, content_type="text/plain; charset=utf-8")


class FiltersOnListsOnly:
    """A DRF viewset mixin: the filter, search and ordering backends narrow lists only.  DRF
    also runs them in ``get_object()``, so every request for one object (its result, CSV,
    bundle) built a filter form from its query string; an object's own URL names it, and
    filtering it by ``?status=…`` meant nothing but a 404."""

    def filter_queryset(self, queryset):
        if getattr(self, "detail", False):
            return queryset
        return super().filter_queryset(queryset)  # type: ignore[misc]
