"""Result export: CSV of the summary, of one table, or of one chart's data.

These take a Result as :func:`scheduler.result_view.read_result` gives it (every reader of a
stored Result goes through it first, see :mod:`gridportal.experiments.results`): the shapes are
then the documented ones, and each part is written in one pass over its rows or points.
"""

from __future__ import annotations

import csv
import io
from typing import Any


class UnknownPart(KeyError):
    pass


def _writer() -> tuple[io.StringIO, Any]:
    out = io.StringIO()
    return out, csv.writer(out, lineterminator="\n")


def summary_csv(result: dict[str, Any]) -> str:
    out, w = _writer()
    labels = result.get("summary_labels") or {}
    w.writerow(["metric", "value", "label"])
    for key, value in (result.get("summary") or {}).items():
        w.writerow([key, "" if value is None else value, labels.get(key, "")])
    return out.getvalue()


def table_csv(tab: dict[str, Any]) -> str:
    out, w = _writer()
    w.writerow(tab["columns"])
    w.writerows(tab["rows"])
    return out.getvalue()


def chart_csv(spec: dict[str, Any]) -> str:
    out, w = _writer()
    gantt = spec["type"] == "gantt"
    if gantt:
        w.writerow(["series", "start", "end", "row"])
    else:
        w.writerow(["series", spec["x"]["label"], spec["y"]["label"], "error"])
    for s in spec["series"]:
        name, errors = s["name"], s.get("errors")
        if gantt:
            w.writerows([name, *p] for p in s["points"])
        elif errors:
            w.writerows([name, *p, e] for p, e in zip(s["points"], errors, strict=False))
        else:
            w.writerows([name, *p, ""] for p in s["points"])
    return out.getvalue()


def result_csv(result: dict[str, Any], part: str = "summary") -> str:
    """``part`` is ``summary``, ``table:<id>`` or ``chart:<id>``."""
    if part == "summary":
        return summary_csv(result)
    if part.startswith("table:"):
        tid = part.split(":", 1)[1]
        tab = next((t for t in result.get("tables") or [] if t.get("id") == tid), None)
        if tab is None:
            raise UnknownPart(f"no table {tid[:200]!r} in this result")
        return table_csv(tab)
    if part.startswith("chart:"):
        cid = part.split(":", 1)[1]
        spec = next((c for c in result.get("charts") or [] if c.get("id") == cid), None)
        if spec is None:
            raise UnknownPart(f"no chart {cid[:200]!r} in this result")
        return chart_csv(spec)
    raise UnknownPart(f"unknown part {part[:200]!r}: use summary, table:<id> or chart:<id>")


def result_parts(result: dict[str, Any]) -> list[str]:
    return (
        ["summary"]
        + [f"table:{t['id']}" for t in result.get("tables") or []]
        + [f"chart:{c['id']}" for c in result.get("charts") or []]
    )
