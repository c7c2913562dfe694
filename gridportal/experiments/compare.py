"""Compare runs: overlay the charts of 2–N runs of one kind and list what differs."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from scheduler.engine import table

from .models import Experiment

MAX_COMPARED = 12


def _label(exp: Experiment) -> str:
    return f"#{exp.pk} {exp.name}" if exp.name else f"#{exp.pk}"


def compare_runs(experiments: list[Experiment]) -> dict[str, Any]:
    """A Result whose charts overlay every run's series (named after the run), whose summary
    table puts the runs side by side, and whose first table lists the differing settings."""
    if not 2 <= len(experiments) <= MAX_COMPARED:
        raise ValidationError(f"pick between 2 and {MAX_COMPARED} runs to compare")
    kinds = {e.kind for e in experiments}
    if len(kinds) > 1:
        raise ValidationError(f"runs of different kinds cannot be compared: {sorted(kinds)}")
    unfinished = [e.pk for e in experiments if e.status != Experiment.Status.SUCCEEDED]
    if unfinished:
        raise ValidationError(f"runs without a result: {unfinished}")
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

    metrics: list[str] = []
    for e in experiments:
        metrics += [m for m in e.result.get("summary", {}) if m not in metrics]
    summary_rows = [
        [m, *[e.result.get("summary", {}).get(m) for e in experiments]] for m in metrics
    ]

    charts: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for e, label in zip(experiments, labels, strict=True):
        for spec in e.result.get("charts", []):
            merged = by_id.get(spec["id"])
            if merged is None:
                merged = {**spec, "series": []}
                by_id[spec["id"]] = merged
                charts.append(merged)
            for s in spec["series"]:
                name = label if len(spec["series"]) == 1 else f"{label}: {s['name']}"
                merged["series"].append({**s, "name": name})
    return {
        "kind": experiments[0].kind,
        "params": {},
        "seed": None,
        "summary": {"runs": len(experiments), "differing_settings": len(differing)},
        "summary_labels": {"runs": "runs compared", "differing_settings": "settings that differ"},
        "tables": [
            table("differences", "Settings that differ", ["setting", *labels], diff_rows),
            table("summaries", "Summaries side by side", ["metric", *labels], summary_rows),
        ],
        "charts": charts,
    }
