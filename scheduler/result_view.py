"""A tolerant reader of stored Results: any JSON in, a Result of the documented shape out.

Every reader of a stored Result (the result page, CSV, bundles, compare, sweep aggregates, the
REST result endpoints) goes through :func:`read_result`.  A stored Result may come from the
engine, a job-array upload, a bundle import or a door not yet written, so it may have any shape:
summary values that are lists, charts missing keys, points that are not pairs, ragged tables,
400-digit integers, megabyte strings.  The reader never raises on such a value; it keeps what
can be shown and lists the rest in ``unshown`` ("charts[2].series[0].points: 3 of 9 points
cannot be drawn: points[4]: not a pair [x, y]"), also shown as the table ``unshown``.

What comes out (see :mod:`scheduler.results` and :mod:`scheduler.experiments.base`):

- ``summary``: name -> int (at most :data:`MAX_DIGITS` digits), finite float, str (at most
  :data:`MAX_TEXT` characters), bool or None; a longer integer or text is shown truncated
  ("12345678901234567890… (400 digits)"), a list or object is not shown;
- ``tables``: each with a str ``id``, ``title``, ``columns`` (str) and ``rows`` of scalar
  cells, exactly as many as the columns (a ragged row is padded or cut, and said so);
- ``charts``: each with a str ``id`` (unique), a known ``type``, ``title``, ``x``/``y`` axes
  with a label and scale, ``series`` with a name and points that are pairs of finite numbers
  (a null y is a gap; ``[category, number]`` for bar and histogram, ``[start, end, row]``
  for gantt), and
  ``errors`` only when they are one finite number (or None) per point.

Every step is linear in the size of the stored value (dicts for lookups, lists appended, no
``in list`` and no ``str +=``) and the walk is iterative or depth-bounded, so a hostile Result
costs time in proportion to its size, never more.  Pure Python: no Django, no numpy.
"""

from __future__ import annotations

import math
from typing import Any

from .results import CHART_TYPES

__all__ = [
    "MAX_DIGITS",
    "MAX_TEXT",
    "RESULT_KEYS",
    "read_result",
    "shown_number",
    "shown_text",
    "summary_only",
]

MAX_DIGITS = 20  # integers with more digits are shown truncated (the door's bound: 20 digits)
MAX_TEXT = 2000  # characters of one text value shown
MAX_NAME = 200  # characters of an id, a title, a label, a column name or a summary key
MAX_DEPTH = 16  # nesting of values kept as they are (params, unknown chart keys)
MAX_UNSHOWN = 50  # problems listed one by one; the rest are counted
RESULT_KEYS = ("summary", "summary_labels", "summary_units", "key", "tables", "charts")
_AXIS_SCALES = ("linear", "log", "category")
_PASS_SPEC = ("priority", "section", "stacked", "note")  # optional chart keys shown as read
_AXIS_UNITS = ("s", "bytes")
UNSHOWN_TITLE = "Parts of this result that cannot be shown"


def _int_text(n: int) -> str:
    """An integer as text, truncated past MAX_DIGITS digits, without str() of a huge int
    (Python refuses str() past 4,300 digits, and it is quadratic before that)."""
    size = abs(n)
    if size < 10**MAX_DIGITS:
        return str(n)
    digits = int(size.bit_length() * 0.30102999566398120) + 1  # within one of the truth
    if size < 10 ** (digits - 1):
        digits -= 1
    head = size // 10 ** max(0, digits - MAX_DIGITS) if digits <= 4000 else None
    sign = "-" if n < 0 else ""
    if head is None:  # far too long even to cut (10**digits is itself huge): its size only
        return f"{sign}(an integer of about {digits:,} digits)"
    return f"{sign}{head}… ({digits:,} digits)"


def shown_text(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def shown_number(value: Any) -> tuple[Any, str | None]:
    """(a JSON scalar that can be shown, or None; why not, or None when shown as it is)."""
    if value is None or isinstance(value, bool):
        return value, None
    if isinstance(value, int):
        if abs(value) < 10**MAX_DIGITS:
            return value, None
        return _int_text(value), "an integer too long to show in full"
    if isinstance(value, float):
        if math.isfinite(value):
            return value, None
        return None, f"{value} is not a finite number"
    if isinstance(value, str):
        if len(value) <= MAX_TEXT:
            return value, None
        return shown_text(value), f"a text of {len(value):,} characters"
    return None, f"{_what(value)}, not a number or text"


def _what(value: Any) -> str:
    if isinstance(value, dict):
        return f"an object of {len(value):,} keys"
    if isinstance(value, list):
        return f"a list of {len(value):,} items"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a text"
    return f"a {type(value).__name__}"


def _num(value: Any) -> float | None:
    """A finite float for a chart coordinate, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return float(value) if abs(value) < 10**MAX_DIGITS else None
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


class _Unshown:
    """Collects "path: why" lines; past MAX_UNSHOWN only counts them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.more = 0

    def add(self, path: str, why: str) -> None:
        if len(self.lines) < MAX_UNSHOWN:
            self.lines.append(f"{path}: {why}")
        else:
            self.more += 1

    def listed(self) -> list[str]:
        return self.lines + ([f"… and {self.more:,} more"] if self.more else [])


def _name(value: Any, path: str, unshown: _Unshown, default: str) -> str:
    if isinstance(value, str):
        return shown_text(value, MAX_NAME)
    if value is None:
        return default
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        shown, _ = shown_number(value)
        return str(shown) if shown is not None else default
    unshown.add(path, f"{_what(value)}, not a text")
    return default


def _plain(value: Any, path: str, unshown: _Unshown, depth: int = 0) -> Any:
    """Any JSON value, bounded: long texts and integers truncated, nesting past MAX_DEPTH and
    non-finite numbers left out (said so)."""
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            unshown.add(path, f"nested deeper than {MAX_DEPTH} levels")
            return None
        return {
            shown_text(str(k), MAX_NAME): _plain(v, f"{path}.{shown_text(str(k), 40)}", unshown,
                                                 depth + 1)
            for k, v in value.items()
        }  # fmt: skip
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            unshown.add(path, f"nested deeper than {MAX_DEPTH} levels")
            return None
        return [_plain(v, f"{path}[{i}]", unshown, depth + 1) for i, v in enumerate(value)]
    shown, why = shown_number(value)
    if why and shown is None:
        unshown.add(path, why)
    return shown


def _cell(value: Any) -> tuple[Any, str | None]:
    shown, why = shown_number(value)
    if why and shown is None and isinstance(value, (list, dict)):
        return f"({_what(value)})", why
    return shown, why


def _summary(raw: Any, unshown: _Unshown) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        unshown.add("summary", f"{_what(raw)}, not an object of named values")
        return {}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if len(key) > MAX_NAME:
            unshown.add(f"summary[{shown_text(key, 40)!r}]", f"a name of {len(key):,} characters")
            continue
        shown, why = shown_number(value)
        if why:
            unshown.add(f"summary.{key}", why)
        if shown is not None or value is None:
            out[key] = shown
    return out


def _text_map(raw: Any, where: str, unshown: _Unshown, keys: dict[str, Any] | None) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        unshown.add(where, f"{_what(raw)}, not an object of texts")
        return {}
    out = {}
    for k, v in raw.items():
        if keys is not None and k not in keys:
            continue  # a label of a value not shown
        if isinstance(v, str):
            out[k] = shown_text(v, MAX_NAME)
        else:
            unshown.add(f"{where}.{shown_text(k, 40)}", f"{_what(v)}, not a text")
    return out


def _table(raw: Any, i: int, seen: dict[str, int], unshown: _Unshown) -> dict | None:
    path = f"tables[{i}]"
    if not isinstance(raw, dict):
        unshown.add(path, f"{_what(raw)}, not a table")
        return None
    tid = _unique(_name(raw.get("id"), f"{path}.id", unshown, f"table-{i + 1}"), seen)
    path = f"tables[{i}] ({tid})"
    columns_raw = raw.get("columns")
    rows_raw = raw.get("rows")
    if not isinstance(columns_raw, list):
        unshown.add(f"{path}.columns", f"{_what(columns_raw)}, not a list of column names")
        return None
    if not isinstance(rows_raw, list):
        unshown.add(f"{path}.rows", f"{_what(rows_raw)}, not a list of rows")
        return None
    columns = [_name(c, f"{path}.columns[{j}]", unshown, f"column {j + 1}")
               for j, c in enumerate(columns_raw)]  # fmt: skip
    width = len(columns)
    rows: list[list[Any]] = []
    bad_rows = ragged = bad_cells = 0
    first = ""
    for r, row in enumerate(rows_raw):
        if not isinstance(row, list):
            bad_rows += 1
            first = first or f"rows[{r}]: {_what(row)}, not a row"
            continue
        if len(row) != width:
            ragged += 1
            first = first or f"rows[{r}]: {len(row):,} cells for {width:,} columns"
            row = row[:width] + [None] * (width - len(row))
        cells = []
        for c, value in enumerate(row):
            shown, why = _cell(value)
            if why:
                bad_cells += 1
                first = first or f"rows[{r}][{c}]: {why}"
            cells.append(shown)
        rows.append(cells)
    if bad_rows or ragged or bad_cells:
        parts = [f"{n:,} {what}" for n, what in ((bad_rows, "rows left out"),
                 (ragged, "rows padded or cut to the columns"), (bad_cells, "cells shortened"))
                 if n]  # fmt: skip
        unshown.add(path, f"{', '.join(parts)} (first: {first})")
    out = {"id": tid, "title": _name(raw.get("title"), f"{path}.title", unshown, tid),
           "columns": columns, "rows": rows}  # fmt: skip
    if raw.get("export_only") is True:  # too wide for a page: offered as its CSV
        out["export_only"] = True
    if isinstance(raw.get("column_labels"), list) and len(raw["column_labels"]) == width:
        out["column_labels"] = [_name(c, f"{path}.column_labels", unshown, columns[j])
                                for j, c in enumerate(raw["column_labels"])]  # fmt: skip
    return out


def _unique(ident: str, seen: dict[str, int]) -> str:
    """Ids address parts (CSV ?part=chart:<id>, file names): a repeated one gets a suffix."""
    if ident not in seen:
        seen[ident] = 1
        return ident
    seen[ident] += 1
    candidate = f"{ident}-{seen[ident]}"
    while candidate in seen:
        seen[ident] += 1
        candidate = f"{ident}-{seen[ident]}"
    seen[candidate] = 1
    return candidate


def _axis(raw: Any, path: str, unshown: _Unshown, default_scale: str, name: str) -> dict:
    if isinstance(raw, str):  # a bare label
        return {"label": shown_text(raw, MAX_NAME), "scale": default_scale}
    if not isinstance(raw, dict):
        if raw is not None:
            unshown.add(path, f"{_what(raw)}, not an axis")
        return {"label": name, "scale": default_scale}
    scale = raw.get("scale", default_scale)
    if scale not in _AXIS_SCALES:
        unshown.add(f"{path}.scale", f"{shown_text(repr(scale), 40)} is not a scale")
        scale = default_scale
    out = {"label": _name(raw.get("label"), f"{path}.label", unshown, name), "scale": scale}
    # one quantity for every series (never two axes); the unit the page rewrites (durations)
    if isinstance(raw.get("shared"), bool):
        out["shared"] = raw["shared"]
    if raw.get("unit") in _AXIS_UNITS:
        out["unit"] = raw["unit"]
    return out


def _points(raw: Any, kind: str, path: str, unshown: _Unshown) -> tuple[list, list[int]]:
    """(points that can be drawn, their indices in the stored list)."""
    if not isinstance(raw, list):
        unshown.add(path, f"{_what(raw)}, not a list of points")
        return [], []
    out: list[list[Any]] = []
    kept: list[int] = []
    bad = 0
    first = ""
    categorical = kind in ("bar", "histogram")
    for j, p in enumerate(raw):
        why = ""
        if not isinstance(p, list) or len(p) != (3 if kind == "gantt" else 2):
            shape = "[start, end, row]" if kind == "gantt" else "a pair [x, y]"
            why = f"{_what(p)}, not {shape}"
        elif kind == "gantt":
            a, b = _num(p[0]), _num(p[1])
            row, row_why = shown_number(p[2])
            if a is None or b is None:
                why = "start and end must be finite numbers"
            elif row_why and row is None:
                why = f"row: {row_why}"
            else:
                out.append([p[0], p[1], "" if row is None else row])
        else:
            y = _num(p[1])
            if categorical:
                x, x_why = shown_number(p[0])
                if x_why and x is None:
                    why = f"category: {x_why}"
                elif y is None and p[1] is not None:
                    why = "y must be a finite number"
                else:
                    out.append([x, p[1] if y is not None else None])
            else:
                x = _num(p[0])
                if x is None or (y is None and p[1] is not None):  # (a null y is a gap)
                    why = "x and y must be finite numbers"
                else:
                    out.append([p[0], p[1]])
        if why:
            bad += 1
            first = first or f"points[{j}]: {why}"
        else:
            kept.append(j)
    if bad:
        unshown.add(path, f"{bad:,} of {len(raw):,} points cannot be drawn (first: {first})")
    return out, kept


def _series(raw: Any, kind: str, path: str, k: int, unshown: _Unshown) -> dict | None:
    if not isinstance(raw, dict):
        unshown.add(path, f"{_what(raw)}, not a series")
        return None
    points, kept = _points(raw.get("points"), kind, f"{path}.points", unshown)
    out: dict[str, Any] = {"name": _name(raw.get("name"), f"{path}.name", unshown,
                                         f"series {k + 1}"), "points": points}  # fmt: skip
    errors = raw.get("errors")
    if errors is not None:
        n = len(raw["points"]) if isinstance(raw.get("points"), list) else -1
        if not isinstance(errors, list) or len(errors) != n:
            unshown.add(f"{path}.errors", f"{_what(errors)}, not one error per point")
        else:
            picked = [errors[j] for j in kept]
            if all(e is None or _num(e) is not None for e in picked):
                out["errors"] = picked
            else:
                unshown.add(f"{path}.errors", "not all finite numbers: error bars left out")
    for key in ("axis", "reference", "group", "part"):  # group/part: a run's series family
        if key in raw and isinstance(raw[key], (str, bool, int)):
            out[key] = shown_text(raw[key], MAX_NAME) if isinstance(raw[key], str) else raw[key]
    return out


def _chart(raw: Any, i: int, seen: dict[str, int], unshown: _Unshown) -> dict | None:
    path = f"charts[{i}]"
    if not isinstance(raw, dict):
        unshown.add(path, f"{_what(raw)}, not a chart")
        return None
    kind = raw.get("type")
    if kind not in CHART_TYPES:
        unshown.add(f"{path}.type", f"{shown_text(repr(kind), 40)} is not a chart type "
                    f"({', '.join(CHART_TYPES)})")  # fmt: skip
        return None
    cid = _unique(_name(raw.get("id"), f"{path}.id", unshown, f"chart-{i + 1}"), seen)
    path = f"charts[{i}] ({cid})"
    series_raw = raw.get("series")
    if not isinstance(series_raw, list):
        unshown.add(f"{path}.series", f"{_what(series_raw)}, not a list of series")
        series_raw = []
    default_x = "category" if kind in ("bar", "histogram") else "linear"
    out: dict[str, Any] = {
        "id": cid,
        "type": kind,
        "title": _name(raw.get("title"), f"{path}.title", unshown, cid),
        "x": _axis(raw.get("x"), f"{path}.x", unshown, default_x, "x"),
        "y": _axis(raw.get("y"), f"{path}.y", unshown, "linear", "y"),
        "series": [s for k, raw_s in enumerate(series_raw)
                   if (s := _series(raw_s, kind, f"{path}.series[{k}]", k, unshown)) is not None],
    }  # fmt: skip
    if "y2" in raw:
        out["y2"] = _axis(raw["y2"], f"{path}.y2", unshown, "linear", "y2")
    for key in _PASS_SPEC:
        if key in raw:
            value, why = shown_number(raw[key])
            if why and value is None:
                unshown.add(f"{path}.{key}", why)
            else:
                out[key] = value
    return out


def _parts(raw: Any, name: str, unshown: _Unshown) -> list:
    if raw is None:
        return []
    if not isinstance(raw, list):
        unshown.add(name, f"{_what(raw)}, not a list")
        return []
    return raw


def read_result(raw: Any) -> dict[str, Any]:
    """The Result that can be shown of any stored JSON value (see the module docstring).

    ``unshown`` lists what was left out or shortened ("path: why"); when it is not empty the
    last table (id ``unshown``) lists it too, so every renderer shows it without new code.
    """
    unshown = _Unshown()
    if not isinstance(raw, dict):
        unshown.add("result", f"{_what(raw)}, not a Result object")
        raw = {}
    out: dict[str, Any] = {}
    for key in ("kind", "params", "seed"):
        if key in raw:
            out[key] = _plain(raw[key], key, unshown)
    summary = _summary(raw.get("summary"), unshown)
    out["summary"] = summary
    out["summary_labels"] = _text_map(raw.get("summary_labels"), "summary_labels", unshown,
                                      summary)  # fmt: skip
    if raw.get("summary_units") is not None:
        out["summary_units"] = _text_map(raw["summary_units"], "summary_units", unshown, summary)
    if raw.get("key") is not None:
        keys = raw["key"]
        if isinstance(keys, list):
            out["key"] = [k for k in keys if isinstance(k, str) and k in summary]
        else:
            unshown.add("key", f"{_what(keys)}, not a list of summary names")
    seen: dict[str, int] = {}
    out["tables"] = [t for i, rt in enumerate(_parts(raw.get("tables"), "tables", unshown))
                     if (t := _table(rt, i, seen, unshown)) is not None]  # fmt: skip
    seen = {}
    out["charts"] = [c for i, rc in enumerate(_parts(raw.get("charts"), "charts", unshown))
                     if (c := _chart(rc, i, seen, unshown)) is not None]  # fmt: skip
    if raw.get("extremes") is not None:
        out["extremes"] = _extremes(raw["extremes"], unshown)
        if isinstance(raw.get("extremes_note"), str):
            out["extremes_note"] = shown_text(raw["extremes_note"], MAX_NAME)
    return _with_unshown(out, unshown.listed())


def _extremes(raw: Any, unshown: _Unshown) -> list[dict[str, Any]]:
    """A sweep's best and worst points (``[{metric, label, unit, better, best: {value, point},
    worst?}]``): the entries of that shape, each part a short text or a finite number."""
    out = []
    for i, x in enumerate(_parts(raw, "extremes", unshown)[:MAX_NAME]):
        path = f"extremes[{i}]"
        ends = {k: x.get(k) for k in ("best", "worst")} if isinstance(x, dict) else {}
        if not isinstance(x, dict) or not isinstance(ends["best"], dict):
            unshown.add(path, f"{_what(x)}, not a best and worst point")
            continue
        entry: dict[str, Any] = {
            k: shown_text(x[k], MAX_NAME) if isinstance(x.get(k), str) else None
            for k in ("metric", "label", "unit", "better")
        }
        for end, value in ends.items():
            if not isinstance(value, dict):
                continue
            number = _num(value.get("value"))
            point = value.get("point")
            if number is None or not isinstance(point, str):
                unshown.add(f"{path}.{end}", "not a number at a point")
                continue
            entry[end] = {"value": number, "point": shown_text(point, MAX_NAME)}
        if "best" in entry and entry["metric"]:
            out.append(entry)
    return out


def _with_unshown(out: dict[str, Any], lines: list[str]) -> dict[str, Any]:
    out["unshown"] = lines
    if lines:
        ids = {t["id"] for t in out["tables"]}
        tid = "unshown" if "unshown" not in ids else "unshown-parts"
        column = "this part of the result cannot be shown"
        rows = [[line] for line in lines]
        out["tables"].append({"id": tid, "title": UNSHOWN_TITLE, "columns": [column], "rows": rows})
    return out


def summary_only(raw_summary: Any, why: str, extra: dict[str, Any] | None = None) -> dict:
    """The Result that is shown of a stored Result too big to render: its summary and why."""
    unshown = _Unshown()
    out: dict[str, Any] = dict(extra or {})
    out["summary"] = _summary(raw_summary, unshown)
    out["summary_labels"] = {}
    out["tables"] = []
    out["charts"] = []
    unshown.lines.insert(0, f"tables and charts: {why}")
    return _with_unshown(out, unshown.listed())
