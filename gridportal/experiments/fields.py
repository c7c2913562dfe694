"""The Result column: a JSONField whose reading never raises on what PostgreSQL stored.

jsonb keeps numbers of any length (``1e5000`` is stored as a 5,001-digit integer) and nesting
deeper than Python's JSON reader recurses; Django's ``JSONField`` then raises ``ValueError``
("Exceeds the limit (4300 digits)") or ``RecursionError`` on every query that loads the row
(a 500 on every page that reads the run).  This field reads such a value instead:

- an integer of more than 4,300 digits becomes the text ``"<digits>"`` (the tolerant reader,
  :mod:`scheduler.result_view`, then shows it truncated); saved again it stays that text;
- a value nested too deeply becomes ``{"unreadable": "<why>"}``, which the reader shows as a
  part that cannot be shown.

It migrates as a plain ``JSONField`` (no schema change, no migration).
"""

from __future__ import annotations

import json
import sys

from django.db import models

MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300


def _int_or_digits(text: str) -> int | str:
    return int(text) if len(text.lstrip("-")) <= MAX_INT_DIGITS else text


def loads_tolerant(text: str):
    """``json.loads`` that keeps over-long integers as their digits and never recurses out."""
    try:
        return json.loads(text)
    except ValueError:  # an integer over the digit limit (JSONDecodeError is not raised here)
        try:
            return json.loads(text, parse_int=_int_or_digits)
        except ValueError as exc:
            return {"unreadable": f"not readable as JSON ({str(exc)[:200]})"}
        except RecursionError:
            return {"unreadable": "nested deeper than the JSON reader allows"}
    except RecursionError:
        return {"unreadable": "nested deeper than the JSON reader allows"}


class ResultField(models.JSONField):
    def from_db_value(self, value, expression, connection):
        if value is None or not isinstance(value, str):
            return value  # (SQLite's key transforms give numbers as numbers)
        return loads_tolerant(value)

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs
