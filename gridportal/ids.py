"""Object ids in URLs and filters: bounded so that absurd numbers are a 404 or a 400, never an
overflow inside the database driver (found by schemathesis)."""

from django import forms
from django_filters import NumberFilter

ID_REGEX = r"[0-9]{1,18}"  # fits a 64-bit signed integer (BigAutoField)
MAX_ID = 2**63 - 1


class IdConverter:
    regex = ID_REGEX

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class IdFilter(NumberFilter):
    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


def parse_id(value: str | None) -> int | None:
    """An id from a query string, or None when it is not one (never an overflow)."""
    if value and value.isdigit() and len(value) <= 18:
        return int(value)
    return None
