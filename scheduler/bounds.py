"""Physical bounds on every number a user can give the engine.

One module holds the limits and the checkers, so the portal (REST, forms, uploads) and the
engine (parsers, kinds at run time) refuse the same values with the same message naming the
field.  A value outside these bounds is not a plausible grid workload: refusing it at the door
keeps ``1e308`` CPUs, a 10³⁰-second runtime or a 5,000-digit integer from reaching a simulator,
a solver or a database column.

=====================  ==========================  ==========================================
bound                  value                       applies to
=====================  ==========================  ==========================================
``MAX_PROCS``          10⁷                         processors, CPUs, cluster and request sizes,
                                                   tasks per level/cluster, job sizes
``MAX_SECONDS``        100 years (3.156·10⁹ s)     runtimes, durations, intervals, offsets
``MAX_BANDWIDTH_GBPS`` 10⁶ Gbps                    link bandwidths
``MAX_BYTES_DATA``     10¹⁵ bytes (1 PB)           file sizes in workflows
``MAX_MONEY``          10¹²                        prices, costs, unit values, budgets
``MAX_FACTOR``         10⁶                         weights, exponents, ratios, qualities
``MAX_TASKS``          100,000                     tasks of a workflow (parsed or generated)
``MAX_EDGES``          1,000,000                   dependencies of a workflow
``INT32_MAX``          2³¹ − 1                     integers stored in ``integer`` columns
``INT64_MAX``          2⁶³ − 1                     integers stored in ``bigint`` columns
``MAX_INT_DIGITS``     20                          digits of a JSON integer (int64 has 19)
``MAX_JSON_DEPTH``     64                          nesting of a JSON document
``MAX_TEXT``           10,000 characters           a string-typed run parameter
``MAX_ITEMS``          1,000                       items of a comma-separated list parameter
=====================  ==========================  ==========================================

Checkers raise :class:`BoundError` (a ``ValueError``) whose ``field`` names the offending
field and whose message says the bound.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "MAX_PROCS",
    "MAX_SECONDS",
    "MAX_HOURS",
    "MAX_BANDWIDTH_GBPS",
    "MAX_BYTES_DATA",
    "MAX_MONEY",
    "MAX_FACTOR",
    "MAX_TASKS",
    "MAX_EDGES",
    "INT32_MAX",
    "INT64_MAX",
    "MAX_INT_DIGITS",
    "MAX_JSON_DEPTH",
    "MAX_TEXT",
    "MAX_ITEMS",
    "BoundError",
    "check_number",
    "check_int",
    "check_text",
    "is_bounded_number",
]

MAX_PROCS = 10**7
MAX_SECONDS = 100 * 365.25 * 24 * 3600  # 100 years, 3,155,760,000 s
MAX_HOURS = MAX_SECONDS / 3600
MAX_BANDWIDTH_GBPS = 1e6
MAX_BYTES_DATA = 1e15
MAX_MONEY = 1e12
MAX_FACTOR = 1e6
MAX_TASKS = 100_000
MAX_EDGES = 1_000_000
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MAX_INT_DIGITS = 20
MAX_JSON_DEPTH = 64
MAX_TEXT = 10_000
MAX_ITEMS = 1_000


class BoundError(ValueError):
    """A value outside its bound; ``field`` names it (a parameter, a JSON path, a line)."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


def _fmt(x: float) -> str:
    if isinstance(x, int) or float(x).is_integer():
        n = int(x)
        return f"{n:,}".replace(",", " ") if abs(n) < 10**16 else f"{float(n):.3g}"
    return f"{x:.6g}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def is_bounded_number(value: Any, lo: float, hi: float) -> bool:
    """True for a real number (not a bool) that is finite and in ``[lo, hi]``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, int):
        return lo <= value <= hi
    return math.isfinite(value) and lo <= value <= hi


def check_number(
    value: Any, field: str, *, lo: float = 0, hi: float, integer: bool = False
) -> float | int:
    """``value`` as a finite number in ``[lo, hi]`` (an ``int`` if ``integer``); strings holding
    a number are read.  Raises :class:`BoundError` naming ``field``."""
    if isinstance(value, bool) or value is None:
        raise BoundError(field, f"must be a number, not {_short(value)}")
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 40:
            raise BoundError(field, f"must be a number, not a {len(text)}-character string")
        try:
            value = int(text) if integer and text.lstrip("+-").isdigit() else float(text)
        except ValueError:
            raise BoundError(field, f"must be a number, not {_short(text)}") from None
    if isinstance(value, int):
        if not lo <= value <= hi:
            shown = _fmt(value) if abs(value) < 10**30 else "a huge number"
            raise BoundError(field, f"must be between {_fmt(lo)} and {_fmt(hi)}; got {shown}")
        return value
    if not isinstance(value, float):
        raise BoundError(field, f"must be a number, not {type(value).__name__}")
    if not math.isfinite(value):
        raise BoundError(field, f"must be a finite number, not {value!r}")
    if not lo <= value <= hi:
        raise BoundError(field, f"must be between {_fmt(lo)} and {_fmt(hi)}; got {value:.6g}")
    if integer:
        if not value.is_integer():
            raise BoundError(field, f"must be an integer, not {value!r}")
        return int(value)
    return value


def check_int(value: Any, field: str, *, lo: int = 0, hi: int = INT32_MAX) -> int:
    """An integer in ``[lo, hi]`` (default: fits a 32-bit ``integer`` column)."""
    return int(check_number(value, field, lo=lo, hi=hi, integer=True))


def check_text(value: Any, field: str, *, max_length: int = MAX_TEXT) -> str:
    """A string of at most ``max_length`` characters that encodes as UTF-8 (no lone
    surrogates such as ``"\\ud800"``, which no database or file can store)."""
    if not isinstance(value, str):
        raise BoundError(field, f"must be a string, not {type(value).__name__}")
    if len(value) > max_length:
        raise BoundError(field, f"at most {max_length} characters; got {len(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BoundError(
            field, f"holds a character that cannot be encoded as UTF-8 at position {exc.start}"
        ) from None
    if "\x00" in value:
        raise BoundError(field, "must not contain NUL characters")
    return value
