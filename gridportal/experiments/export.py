"""Result export: CSV of the summary, of one table, or of one chart's data."""

from __future__ import annotations

import csv
import io
from typing import Any


class UnknownPart(KeyError):
    pass


def result_csv(result: dict[str, Any], part: str = "summary") -> str:
    """``part`` is ``summary``, ``table:<id>`` or ``chart:<id>``."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    if part == "summary":
        labels = result.get("summary_labels", {})
        w.writerow(["metric", "value", "label"])
        for key, value in result.get("summary", {}).items():
            w.writerow([key, "" if value is None else value, labels.get(key, "")])
    elif part.startswith("table:"):
        tid = part.split(":", 1)[1]
        tab = next((t for t in result.get("tables", []) if t.get("id") == tid), None)
        if tab is None:
            raise UnknownPart(f"no table {tid!r} in this result")
        w.writerow(tab["columns"])
        w.writerows(tab["rows"])
    elif part.startswith("chart:"):
        cid = part.split(":", 1)[1]
        spec = next((c for c in result.get("charts", []) if c.get("id") == cid), None)
        if spec is None:
            raise UnknownPart(f"no chart {cid!r} in this result")
        if spec["type"] == "gantt":
            w.writerow(["series", "start", "end", "row"])
        else:
            w.writerow(["series", spec["x"]["label"], spec["y"]["label"], "error"])
        for s in spec["series"]:
            errors = s.get("errors")
            for i, point in enumerate(s["points"]):
                row = [s["name"], *point]
                if spec["type"] != "gantt":
                    row.append(errors[i] if errors else "")
                w.writerow(row)
    else:
        raise UnknownPart(f"unknown part {part!r}: use summary, table:<id> or chart:<id>")
    return out.getvalue()


def result_parts(result: dict[str, Any]) -> list[str]:
    return (
        ["summary"]
        + [f"table:{t['id']}" for t in result.get("tables", [])]
        + [f"chart:{c['id']}" for c in result.get("charts", [])]
    )
