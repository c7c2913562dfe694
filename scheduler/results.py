"""The engine's result vocabulary: charts, series and tables (the Result contract).

A chart spec is declarative (rendered by one generic Chart.js adapter in the portal)::

    {"id": str, "type": "line" | "bar" | "scatter" | "histogram" | "gantt", "title": str,
     "x": {"label": str, "scale": "linear" | "log" | "category"},
     "y": {"label": str, "scale": "linear" | "log"},
     "series": [{"name": str, "points": [[x, y], ..], "errors": [e, ..] (optional)}],
     "priority": int (optional, lower first; default 50),
     "section": str (optional: charts of a section are shown together)}

This module sits below every domain package (it imports nothing of the engine), so a domain
package can describe its own results (pricing/site.py, reservations/site.py) without importing
the experiment catalogue; :mod:`scheduler.experiments.base` re-exports these builders.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CHART_TYPES", "chart", "series", "table"]

CHART_TYPES = ("line", "bar", "scatter", "histogram", "gantt")


def series(name: str, points: list[list[Any]], errors: list[float] | None = None) -> dict:
    out: dict[str, Any] = {"name": name, "points": points}
    if errors is not None:
        out["errors"] = errors
    return out


def chart(
    id: str,
    type: str,
    title: str,
    *,
    x: str,
    y: str,
    series: list[dict],
    x_scale: str | None = None,
    y_scale: str = "linear",
) -> dict[str, Any]:
    if type not in CHART_TYPES:
        raise ValueError(f"unknown chart type {type!r}")
    default_x = "category" if type in ("bar", "histogram") else "linear"
    return {
        "id": id,
        "type": type,
        "title": title,
        "x": {"label": x, "scale": x_scale or default_x},
        "y": {"label": y, "scale": y_scale},
        "series": series,
    }


def table(id: str, title: str, columns: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"id": id, "title": title, "columns": columns, "rows": rows}
