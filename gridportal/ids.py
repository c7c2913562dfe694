"""Object ids and dates in URLs and filters: bounded so that absurd values are a 404 or a 400,
never an overflow inside the database driver (found by schemathesis)."""

import datetime as dt

from django import forms
from django_filters import IsoDateTimeFilter, NumberFilter
from rest_framework import serializers

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


class UTCDateTimeFilter(IsoDateTimeFilter):
    """An ISO 8601 date-time filter that compares in UTC: offsets the database cannot store
    (Python allows up to ±23:59, PostgreSQL ±15:59) or dates that overflow are a 400, not a
    500 (found by schemathesis)."""

    def filter(self, qs, value):
        if value is not None:
            try:
                value = value.astimezone(dt.UTC)
            except (OverflowError, ValueError):
                raise serializers.ValidationError(
                    {self.field_name: ["date-time out of range"]}
                ) from None
        return super().filter(qs, value)
