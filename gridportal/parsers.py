"""The REST API's JSON parser: request bodies are loaded by :func:`scheduler.jsonvalues.loads`,
so a document nested 100,000 deep, an integer with 5,000 digits, ``NaN``, or a string with a lone
surrogate or NUL is a 400 naming the problem (and its JSON path) before Python's parser recurses
or overflows or a database refuses the string."""

from __future__ import annotations

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from scheduler.engine import JSONLimitError, json_loads_strict

__all__ = ["BoundedJSONParser"]


class BoundedJSONParser(JSONParser):
    """``application/json`` bodies with bounded depth and integer size."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        data = stream.read() if stream is not None else b""
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError(f"JSON parse error - the body is not {encoding} text: {exc}") from None
        try:
            return json_loads_strict(text)
        except JSONLimitError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
