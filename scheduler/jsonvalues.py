"""Describing JSON values in error messages ("got the string 'abc'", "got an array")."""

from __future__ import annotations

from typing import Any

__all__ = ["describe"]


def describe(value: Any) -> str:
    """A short phrase naming what ``value`` is, for messages about bad JSON documents."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" if value else "an empty string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
