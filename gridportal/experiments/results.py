"""Reading stored Results for people: the page's JSON, CSV parts, bundle files, compare.

Every reader of ``Experiment.result`` goes through here, and from here through the tolerant
reader :func:`scheduler.result_view.read_result` (any stored shape is shown or listed as "this
part of the result cannot be shown: <path>: <why>", never raised on).

Size decides where the work is done, measured in PostgreSQL before anything is loaded (the
length of the stored JSON text):

- up to :data:`INLINE_CHARS` (1 MiB): in the web process (it is linear and small);
- up to ``GRIDPORTAL_RESULT_RENDER_MAX_MB``: in a child under ``run_limited`` with
  ``GRIDPORTAL_WEB_MEMORY_MB`` / ``GRIDPORTAL_WEB_TIME_LIMIT`` (at most
  ``GRIDPORTAL_WEB_HEAVY_CONCURRENCY`` at once); the child reads the row itself and sends back
  only the rendered bytes, so the web process never holds the parsed Result;
- over it: not rendered. The page shows the summary (read alone, as ``result -> 'summary'``)
  and says why; the JSON download is the stored text as PostgreSQL gives it (never parsed
  here); a bundle holds that text and the summary CSV; a table's or chart's CSV is refused.

A limit that fires, or a portal too busy to start a child, is :class:`ResultRefused` with
status 503 and a sentence to show; an over-size part is a 400.  Never a 500.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import TextField
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Cast, Length

from gridportal.limits import web_limited
from scheduler import engine
from scheduler.engine import read_result, summary_only

from .export import UnknownPart, chart_csv, result_csv, summary_csv, table_csv
from .models import Experiment

MIB = 2**20
INLINE_CHARS = MIB
MAX_SUMMARY_CHARS = MIB  # a sweep aggregate or an over-size page reads summaries up to this


class ResultRefused(Exception):
    """A stored Result that is not rendered: ``status`` (400 or 503) and what to tell."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def render_cap() -> int:
    return int(settings.GRIDPORTAL_RESULT_RENDER_MAX_MB) * MIB


def _mb(chars: int) -> str:
    return f"{chars / MIB:,.1f} MB"


def stored_size(pk: int) -> int | None:
    """Characters of the stored Result's JSON text (None: no result), computed by the database."""
    return (
        Experiment.objects.filter(pk=pk)
        .annotate(size=Length(Cast("result", TextField())))
        .values_list("size", flat=True)
        .first()
    )


def stored_text(pk: int) -> str:
    """The stored Result as the database writes it (not parsed here)."""
    text = (
        Experiment.objects.filter(pk=pk)
        .annotate(text=Cast("result", TextField()))
        .values_list("text", flat=True)
        .first()
    )
    return text or "null"


def _stored(pk: int) -> Any:
    return Experiment.objects.filter(pk=pk).values_list("result", flat=True).first()


def stored_summary(pk: int) -> Any:
    """Only the summary of a stored Result (None when it is larger than MAX_SUMMARY_CHARS)."""
    row = (
        Experiment.objects.filter(pk=pk)
        .annotate(size=Length(Cast(KeyTransform("summary", "result"), TextField())))
        .values_list("size", flat=True)
        .first()
    )
    if row is None or row > MAX_SUMMARY_CHARS:
        return None
    return Experiment.objects.filter(pk=pk).values_list("result__summary", flat=True).first()


def _too_big_why(size: int) -> str:
    return (
        f"the stored result is {_mb(size)}, over the {_mb(render_cap())} the portal renders; "
        "download the result JSON to see them"
    )


def _summary_view(pk: int, size: int) -> dict[str, Any]:
    summary = stored_summary(pk)
    view = summary_only(summary, _too_big_why(size))
    if summary is None:
        view["unshown"].insert(1, "summary: larger than the portal shows of a summary")
    return view


def render_limited(fn, *args, size: int, what: str) -> Any:
    """``fn(*args)`` here when the stored Result is small, else in a limited child (a 503
    naming the limit, or that the portal is busy)."""
    if size <= INLINE_CHARS:
        return fn(*args)
    try:
        return web_limited(
            fn,
            *args,
            field="result",
            what=what,
            advice=f"the stored result is {_mb(size)}; download the result JSON",
        )
    except ValidationError as exc:  # a limit fired, or heavy_slot: the portal is busy
        raise ResultRefused(503, exc.messages[0]) from None


def _size_of(exp: Experiment) -> int:
    size = stored_size(exp.pk)
    if exp.status != Experiment.Status.SUCCEEDED or size is None:
        raise ResultRefused(400, f"no result: the run is {exp.status}")
    return size


# --- the result page and the REST result endpoints -------------------------------------------


def view_of(raw: Any) -> dict[str, Any]:
    """The labelled Result the page shows of any stored value."""
    return engine.labelled(read_result(raw))


def _page_json(pk: int, indent: int | None) -> bytes:
    return json.dumps(view_of(_stored(pk)), indent=indent).encode()


def result_json(exp: Experiment, *, download: bool = False) -> bytes:
    """The page's Result as JSON bytes (``download``: indented; over the cap, the stored text)."""
    size = _size_of(exp)
    if size > render_cap():
        if download:
            return stored_text(exp.pk).encode()
        return json.dumps(engine.labelled(_summary_view(exp.pk, size))).encode()
    return render_limited(_page_json, exp.pk, 1 if download else None, size=size,
                     what="reading this result")  # fmt: skip


def stored_view(pk: int) -> dict[str, Any] | None:
    """The tolerant view of a stored Result in this process (bounded by the render cap: a
    larger one gives its summary only); None when there is no result."""
    size = stored_size(pk)
    if size is None:
        return None
    if size > render_cap():
        return _summary_view(pk, size)
    return read_result(_stored(pk))


# --- CSV --------------------------------------------------------------------------------------


def _part_csv(pk: int, part: str) -> str:
    return result_csv(view_of(_stored(pk)), part)


def result_csv_text(exp: Experiment, part: str) -> str:
    """One part as CSV (raises UnknownPart for a part the Result has not)."""
    size = _size_of(exp)
    if size > render_cap():
        if part == "summary":
            return summary_csv(engine.labelled(_summary_view(exp.pk, size)))
        raise ResultRefused(400, f"{part[:100]}: {_too_big_why(size)}")
    return render_limited(_part_csv, exp.pk, part, size=size, what="writing this CSV")


# --- bundle files -----------------------------------------------------------------------------


def _safe_id(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in str(text))[:80]


def _unique_path(path: str, used: set[str]) -> str:
    base, dot, ext = path.rpartition(".")
    k, out = 1, path
    while out in used:
        k += 1
        out = f"{base}-{k}{dot}{ext}"
    used.add(out)
    return out


def result_files(raw: Any, prefix: str) -> list[tuple[str, bytes, str, str]]:
    """(path, body, format, about) of a Result's files in a bundle: the Result JSON as stored,
    the summary CSV, each table's and chart's CSV, each chart as SVG. Linear in its size."""
    view = view_of(raw)
    svg_chart = engine.svg_chart
    used: set[str] = set()
    try:
        text = json.dumps(raw, indent=1, sort_keys=True)
    except (RecursionError, ValueError, TypeError):  # nested deeper than the encoder goes
        text = json.dumps(view, indent=1, sort_keys=True)  # what can be shown (depth-bounded)
    out = [
        (f"{prefix}/result.json", (text + "\n").encode(), "application/json",
         "Result (summary, tables, charts)"),
        (f"{prefix}/summary.csv", summary_csv(view).encode(), "text/csv", ""),
    ]  # fmt: skip
    used.update(p for p, *_ in out)
    for tab in view["tables"]:
        path = _unique_path(f"{prefix}/table-{_safe_id(tab['id'])}.csv", used)
        out.append((path, table_csv(tab).encode(), "text/csv", tab["title"]))
    for spec in view["charts"]:
        cid = _safe_id(spec["id"])
        path = _unique_path(f"{prefix}/chart-{cid}.csv", used)
        out.append((path, chart_csv(spec).encode(), "text/csv", f"data of {spec['title']}"))
        svg = svg_chart(spec)
        if svg:
            path = _unique_path(f"{prefix}/chart-{cid}.svg", used)
            out.append((path, svg.encode(), "image/svg+xml", spec["title"]))
    return out


def _stored_files(pk: int, prefix: str) -> list[tuple[str, bytes, str, str]]:
    return result_files(_stored(pk), prefix)


def stored_result_files(exp: Experiment, prefix: str) -> list[tuple[str, bytes, str, str]]:
    """A stored Result's bundle files, rendered under the limits (see the module docstring);
    over the cap: the stored JSON text, the summary CSV and a note saying why no more."""
    size = _size_of(exp)
    if size > render_cap():
        view = engine.labelled(_summary_view(exp.pk, size))
        note = "Tables and charts are not in this bundle: " + _too_big_why(size) + ".\n"
        return [
            (f"{prefix}/result.json", stored_text(exp.pk).encode(), "application/json",
             "Result (summary, tables, charts)"),
            (f"{prefix}/summary.csv", summary_csv(view).encode(), "text/csv", ""),
            (f"{prefix}/NOT-RENDERED.txt", note.encode(), "text/plain", "why no CSV or SVG"),
        ]  # fmt: skip
    return render_limited(_stored_files, exp.pk, prefix, size=size, what="bundling this result")


__all__ = [
    "ResultRefused",
    "UnknownPart",
    "result_csv_text",
    "result_files",
    "result_json",
    "stored_result_files",
    "stored_size",
    "stored_summary",
    "stored_view",
    "view_of",
]
