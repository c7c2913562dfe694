"""JSON written by users: describing values in error messages ("got the string 'abc'", "got an
array"), and loading documents with their depth, integer size and numbers bounded."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

__all__ = ["describe", "loads", "loads_strict", "json_depth", "check_value", "JSONLimitError"]


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


# Loading JSON written by users: depth and integer size bounded before the parser recurses.

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class JSONLimitError(ValueError):
    """A JSON document that is not valid JSON or exceeds a bound (depth, integer digits,
    size, non-finite numbers).  The message says which."""


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings skipped); linear time and
    no recursion, so it is safe on any input."""
    if text.count("[") + text.count("{") <= 1:
        return min(1, text.count("[") + text.count("{"))
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = deepest = 0
    for step in map(_DEPTH_STEP.__getitem__, map(ord, brackets)):
        depth += step
        if depth > deepest:
            deepest = depth
    return deepest


def _parse_int(max_digits: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        digits = len(text) - (text[0] == "-")
        if digits > max_digits:
            raise JSONLimitError(
                f"an integer with {digits} digits (at most {max_digits} allowed): {text[:12]}..."
            )
        return int(text)

    return parse


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONLimitError(f"the number {text[:30]} is too large for a 64-bit float")
    return value


def _parse_constant(text: str) -> float:
    raise JSONLimitError(f"{text} is not a JSON number (give a finite number)")


def loads(
    data: str | bytes,
    *,
    max_depth: int | None = None,
    max_int_digits: int | None = None,
    max_bytes: int | None = None,
) -> Any:
    """``json.loads`` for documents written by users: refuses documents nested deeper than
    ``max_depth`` (checked before parsing, without recursion), integers with more than
    ``max_int_digits`` digits, ``NaN``/``Infinity`` and numbers that overflow a float, and
    text longer than ``max_bytes``.  Raises :class:`JSONLimitError` (a ``ValueError``)."""
    from .bounds import MAX_INT_DIGITS, MAX_JSON_DEPTH

    max_depth = MAX_JSON_DEPTH if max_depth is None else max_depth
    max_int_digits = MAX_INT_DIGITS if max_int_digits is None else max_int_digits
    if isinstance(data, bytes | bytearray):
        if max_bytes is not None and len(data) > max_bytes:
            raise JSONLimitError(f"the document is larger than {max_bytes} bytes")
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JSONLimitError(f"not UTF-8 text (byte {exc.start})") from None
    elif max_bytes is not None and len(data) > max_bytes:
        raise JSONLimitError(f"the document is larger than {max_bytes} characters")
    depth = json_depth(data)
    if depth > max_depth:
        raise JSONLimitError(f"the document is nested {depth} levels deep (at most {max_depth})")
    try:
        return json.loads(
            data,
            parse_int=_parse_int(max_int_digits),
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except JSONLimitError:
        raise
    except RecursionError:  # (unreachable after the depth check; kept as a last guard)
        raise JSONLimitError("the document is nested too deeply") from None
    except ValueError as exc:
        raise JSONLimitError(f"not valid JSON: {exc}") from None


def _check_string(text: str, where: str) -> None:
    if "\x00" in text:
        raise JSONLimitError(f"{where}: a string holds a NUL character (\\u0000)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise JSONLimitError(
            f"{where}: a string holds a lone surrogate (\\u{ord(text[exc.start]):04x}) that "
            "cannot be encoded as UTF-8"
        ) from None


def loads_strict(data: str | bytes, **bounds: Any) -> Any:
    """:func:`loads`, then every string (and key) checked to be storable: no lone surrogates
    such as ``"\\ud800"`` and no NUL characters, which no database column accepts.  The check
    only walks documents that contain a ``\\u`` escape (the only way to write either)."""
    value = loads(data, **bounds)
    text = data if isinstance(data, str) else None
    if text is None or "\\u" in text:
        check_value(value, max_depth=bounds.get("max_depth"))
    return value


def check_value(
    value: Any,
    *,
    max_depth: int | None = None,
    max_int_digits: int | None = None,
    path: str = "$",
) -> None:
    """Check an already parsed value (e.g. from a form or a Python caller) against the same
    bounds as :func:`loads`, iteratively; raises :class:`JSONLimitError` naming the path."""
    from .bounds import MAX_INT_DIGITS, MAX_JSON_DEPTH

    max_depth = MAX_JSON_DEPTH if max_depth is None else max_depth
    limit = 10 ** (MAX_INT_DIGITS if max_int_digits is None else max_int_digits)
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        v, where, depth = stack.pop()
        if isinstance(v, dict | list):
            if depth + 1 > max_depth:
                raise JSONLimitError(f"{where}: nested deeper than {max_depth} levels")
            items = v.items() if isinstance(v, dict) else enumerate(v)
            for k, item in items:
                if isinstance(k, str):
                    _check_string(k, f"{where} (a key)")
                sub = f"{where}.{k}" if isinstance(v, dict) else f"{where}[{k}]"
                stack.append((item, sub, depth + 1))
        elif isinstance(v, str):
            _check_string(v, where)
        elif isinstance(v, bool) or v is None:
            continue
        elif isinstance(v, int):
            if abs(v) >= limit:
                raise JSONLimitError(f"{where}: integer too large")
        elif isinstance(v, float) and not math.isfinite(v):
            raise JSONLimitError(f"{where}: must be a finite number")
