"""Compare runs: overlay the charts of 2–N runs of one kind and list what differs."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from scheduler.engine import read_result, summary_only, table

from .models import Experiment, kind_title
from .results import render_cap, stored_size, stored_summary, stored_view

MAX_COMPARED = 12


def _label(exp: Experiment) -> str:
    return f"#{exp.pk} {exp.name or kind_title(exp.kind)}"


def compared_views(experiments: list[Experiment]) -> list[dict[str, Any]]:
    """Each run's Result as the tolerant reader shows it; when together they are larger than
    the render cap, each run's summary only (the page says why)."""
    sizes = [stored_size(e.pk) or 0 for e in experiments]
    if sum(sizes) > render_cap():
        why = (
            f"the compared results are {sum(sizes) / 2**20:,.1f} MB together, over the "
            f"{render_cap() / 2**20:,.0f} MB the portal renders: compare fewer runs"
        )
        return [summary_only(stored_summary(e.pk), why) for e in experiments]
    return [stored_view(e.pk) or read_result(None) for e in experiments]


def same_results(views: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether the runs' results are the same: every summary value equal (and the charts and
    tables too), else the metrics that differ — a bundle's re-run against its original says
    whether the result was reproduced."""
    first = views[0]
    metrics = list(dict.fromkeys(k for v in views for k in v["summary"]))
    differ = [m for m in metrics if len({repr(v["summary"].get(m)) for v in views}) > 1]
    identical = not differ and all(
        v.get("charts") == first.get("charts") and v.get("tables") == first.get("tables")
        for v in views[1:]
    )
    return {"metrics": len(metrics), "differing_metrics": differ, "identical": identical}


def compare_runs(experiments: list[Experiment]) -> dict[str, Any]:
    """A Result whose charts overlay every run's series (named after the run), whose summary
    table puts the runs side by side, and whose first table lists the differing settings."""
    if not 2 <= len(experiments) <= MAX_COMPARED:
        raise ValidationError(f"pick between 2 and {MAX_COMPARED} runs to compare")
    kinds = {e.kind for e in experiments}
    if len(kinds) > 1:
        raise ValidationError(f"runs of different kinds cannot be compared: {sorted(kinds)}")
    unfinished = [e for e in experiments if e.status != Experiment.Status.SUCCEEDED]
    if unfinished:
        raise ValidationError(
            "only finished runs can be compared; without a result: "
            + ", ".join(f"run #{e.pk} ({e.status})" for e in unfinished)
        )
    labels = [_label(e) for e in experiments]

    settings = {}
    for e in experiments:
        settings[e.pk] = {
            **{f"param {k}": v for k, v in e.params.items()},
            "seed": e.seed,
            "inputs": ", ".join(t.name for t in e.traces.order_by("id")),
        }
    keys = sorted({k for s in settings.values() for k in s})
    differing = [k for k in keys if len({repr(settings[e.pk].get(k)) for e in experiments}) > 1]
    diff_rows = [[k, *[settings[e.pk].get(k) for e in experiments]] for k in differing]

    views = compared_views(experiments)
    metrics: dict[str, None] = {}  # in order of first appearance (a dict: no list scans)
    for view in views:
        metrics.update(dict.fromkeys(view["summary"]))
    summary_rows = [[m, *[view["summary"].get(m) for view in views]] for m in metrics]

    charts: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for view, label in zip(views, labels, strict=True):
        for spec in view["charts"]:
            merged = by_id.get(spec["id"])
            if merged is None:
                merged = {**spec, "series": []}
                by_id[spec["id"]] = merged
                charts.append(merged)
            for s in spec["series"]:
                name = label if len(spec["series"]) == 1 else f"{label}: {s['name']}"
                # the page colours a series' runs as one family (one hue, a shade per run)
                merged["series"].append({**s, "name": name, "group": label, "part": s["name"]})
            merged["y"] = {**merged.get("y", {}), "shared": True}  # the runs share the axis
    unshown = [
        [label, line] for view, label in zip(views, labels, strict=True) for line in view["unshown"]
    ]
    columns = ["run", "this part of the result cannot be shown"]
    title = "Parts of the runs' results that cannot be shown"
    extra = [table("unshown", title, columns, unshown)] if unshown else []
    same = same_results(views)
    return {
        "kind": experiments[0].kind,
        "params": {},
        "seed": None,
        "match": {"same_settings": not differing or differing == ["inputs"], **same},
        "summary": {"runs": len(experiments), "differing_settings": len(differing)},
        "summary_labels": {"runs": "runs compared", "differing_settings": "settings that differ"},
        "tables": [
            table("differences", "Settings that differ", ["setting", *labels], diff_rows),
            table("summaries", "Summaries side by side", ["metric", *labels], summary_rows),
            *extra,
        ],
        "charts": charts,
    }
