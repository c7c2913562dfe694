"""Every Result that comes in from outside (a job-array upload, a bundle's result.json) is
checked here before it is stored; refusals name the file and the JSON path::

    results/3.json: summary.makespan: not a finite number (Infinity)

:func:`load_json` parses bounded text (size ``GRIDPORTAL_MAX_RESULT_BYTES``, depth 64, checked
before the parser recurses); ``NaN``, ``Infinity``, numbers that overflow a float (``1e999``)
and integers with more than 20 digits become markers that :func:`check_json` reports with
their path, beside integers outside ±2**63, strings (and keys) holding NUL or a lone surrogate
(PostgreSQL's jsonb refuses both) and documents of more than ``MAX_NODES`` values.
:func:`check_result` adds the shape of a Result (``scheduler.results``): ``kind``, ``params``
(an object), ``seed``, ``summary`` (named numbers, strings or null), ``tables`` (objects with
``columns`` and ``rows`` lists) and ``charts`` (objects of a known type whose ``series`` are
objects with ``points`` lists).  Another module renders stored results; this one owns what
comes in.
"""

from __future__ import annotations

import json
import math
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError

from scheduler import engine

__all__ = ["check_json", "check_result", "load_json", "result_params_match"]

MAX_DEPTH = 64
MAX_INT = 2**63
MAX_INT_DIGITS = 20
MAX_NODES = 5_000_000


class _Bad:
    """A value the parser met that no stored result may hold; reported with its path."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


def _parse_float(text: str) -> float | _Bad:
    value = float(text)
    return value if math.isfinite(value) else _Bad(f"not a finite number ({text[:30]})")


def _parse_int(text: str) -> int | _Bad:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        return _Bad(f"an integer with {len(text.lstrip('-')):,} digits (|x| < 2**63)")
    return int(text)


def _parse_constant(text: str) -> _Bad:
    return _Bad(f"not a finite number ({text})")


def _refuse(name: str, path: str, why: str) -> ValidationError:
    return ValidationError({"file": [f"{name}: {path}: {why}" if path else f"{name}: {why}"]})


def load_json(data: bytes, *, name: str, max_bytes: int | None = None) -> Any:
    """Parse a JSON document from outside, bounded; then :func:`check_json` it."""
    cap = settings.GRIDPORTAL_MAX_RESULT_BYTES if max_bytes is None else max_bytes
    if len(data) > cap:
        raise _refuse(name, "", f"{len(data):,} bytes; the limit is {cap:,} "
                                "(GRIDPORTAL_MAX_RESULT_BYTES)")  # fmt: skip
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _refuse(name, "", f"not UTF-8 text (byte {exc.start})") from None
    depth = engine.json_depth(text)
    if depth > MAX_DEPTH:
        raise _refuse(name, "", f"nested {depth} levels deep (at most {MAX_DEPTH})")
    try:
        doc = json.loads(
            text, parse_float=_parse_float, parse_int=_parse_int, parse_constant=_parse_constant
        )
    except (ValueError, RecursionError) as exc:
        raise _refuse(name, "", f"not valid JSON ({str(exc)[:200]})") from None
    check_json(doc, name=name)
    return doc


def _string_problem(text: str) -> str | None:
    if "\x00" in text:
        return "holds a NUL character (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"holds a lone surrogate (\\u{ord(text[exc.start]):04x})"
    return None


def _key_path(path: str, key: str) -> str:
    shown = key if key.isidentifier() else json.dumps(key[:40])
    return f"{path}.{shown}" if path else shown


def check_json(doc: Any, *, name: str, max_nodes: int = MAX_NODES) -> None:
    """Walk a parsed document (iteratively) and refuse what cannot be stored, naming the path."""
    stack: list[tuple[Any, str, int]] = [(doc, "", 0)]
    nodes = 0
    while stack:
        value, path, depth = stack.pop()
        nodes += 1
        if nodes > max_nodes:
            raise _refuse(name, "", f"more than {max_nodes:,} values")
        if isinstance(value, _Bad):
            raise _refuse(name, path, value.why)
        if isinstance(value, dict):
            if depth >= MAX_DEPTH:
                raise _refuse(name, path, f"nested deeper than {MAX_DEPTH} levels")
            for key, item in value.items():
                problem = _string_problem(key)
                if problem:
                    raise _refuse(name, path, f"a key {problem}")
                stack.append((item, _key_path(path, key), depth + 1))
        elif isinstance(value, list):
            if depth >= MAX_DEPTH:
                raise _refuse(name, path, f"nested deeper than {MAX_DEPTH} levels")
            stack.extend((item, f"{path}[{k}]", depth + 1) for k, item in enumerate(value))
        elif isinstance(value, str):
            problem = _string_problem(value)
            if problem:
                raise _refuse(name, path, problem)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if not -MAX_INT < value < MAX_INT:
                raise _refuse(name, path, "an integer outside ±2**63")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise _refuse(name, path, "not a finite number")
        else:
            raise _refuse(name, path, f"not a JSON value ({type(value).__name__})")


def _need(name: str, path: str, value: Any, kind: type | tuple, what: str) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _refuse(name, path, f"must be {what}")


def check_result(doc: Any, *, name: str) -> dict[str, Any]:
    """:func:`check_json`, then the shape of a Result (see the module docstring)."""
    check_json(doc, name=name)
    _need(name, "", doc, dict, "a JSON object (a Result)")
    for key in ("kind", "params", "seed", "summary", "tables", "charts"):
        if key not in doc:
            raise _refuse(name, "", f"missing key {key!r}")
    _need(name, "kind", doc["kind"], str, "a string")
    _need(name, "params", doc["params"], dict, "an object")
    _need(name, "seed", doc["seed"], int, "an integer")
    _need(name, "summary", doc["summary"], dict, "an object of named numbers")
    for key, value in doc["summary"].items():
        if value is not None and not isinstance(value, int | float | str):
            raise _refuse(name, _key_path("summary", key), "not a number")
    if "summary_labels" in doc:
        _need(name, "summary_labels", doc["summary_labels"], dict, "an object")
    _need(name, "tables", doc["tables"], list, "a list of tables")
    for k, tab in enumerate(doc["tables"]):
        _need(name, f"tables[{k}]", tab, dict, "an object (a table)")
        for key in ("columns", "rows"):
            _need(name, f"tables[{k}].{key}", tab.get(key), list, "a list")
        for r, row in enumerate(tab["rows"]):
            _need(name, f"tables[{k}].rows[{r}]", row, list, "a list (a table row)")
    _need(name, "charts", doc["charts"], list, "a list of charts")
    for k, spec in enumerate(doc["charts"]):
        _need(name, f"charts[{k}]", spec, dict, "an object (a chart)")
        if spec.get("type") not in engine.CHART_TYPES:
            raise _refuse(name, f"charts[{k}].type", f"a chart has no known type "
                          f"({', '.join(engine.CHART_TYPES)})")  # fmt: skip
        _need(name, f"charts[{k}].series", spec.get("series"), list, "a list of series")
        for s, line in enumerate(spec["series"]):
            where = f"charts[{k}].series[{s}]"
            _need(name, where, line, dict, "an object (a series)")
            _need(name, f"{where}.points", line.get("points"), list, "a list of points")
    return doc


def result_params_match(doc: dict[str, Any], *, kind: str, seed: int, params: dict) -> str | None:
    """Why a checked Result is not the run's (kind, seed, parameters), or None."""
    if doc["kind"] != kind or doc["seed"] != seed:
        return (f"kind/seed {doc['kind']!r}/{doc['seed']!r} are not the run's "
                f"({kind!r}/{seed})")  # fmt: skip
    if json.dumps(doc["params"], sort_keys=True) != json.dumps(params, sort_keys=True):
        return "parameters differ from the run's"
    return None
