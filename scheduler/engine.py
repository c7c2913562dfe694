"""The engine's one entry point for the portal (DESIGN.md "Layers run one way").

The portal (``gridportal/``) imports ``scheduler.engine`` and nothing else of ``scheduler``
(tests/portal/test_engine_entry.py), so the engine can move its modules around without
touching the portal.  Top floor, beside the CLI: it may import the catalogue and every domain
package; nothing in ``scheduler`` imports it.

Thin: re-exports (some renamed so that a name says what it is outside its module, e.g.
``summarize_workflow`` for :func:`scheduler.workflows.summarize`) and two small functions.
Importing it is cheap: the bottom floor (bounds, JSON values, labels, result vocabulary) loads
at once, everything else (the experiment kinds, numpy, the domain packages) on first use of a
name (module ``__getattr__``, PEP 562), so ``from scheduler.engine import get_kind`` inside a
function stays as lazy as the import it replaces.

Sections
--------
bounds and JSON values
    ``MAX_HOURS``, ``MAX_MONEY``, ``MAX_PROCS``, ``MAX_SECONDS``; ``JSONLimitError``,
    ``json_loads``, ``json_loads_strict``
labels
    ``label_of``, ``unit_of``, ``format_value``, ``labelled``
result vocabulary
    ``CHART_TYPES``, ``chart``, ``series``, ``table``; the tolerant reader of stored Results:
    ``read_result``, ``summary_only``
experiment catalogue
    ``kinds``, ``get_kind``, ``run_experiment``, ``validate_params``, ``schema_as_json``,
    ``check_inputs``, ``document_facts``, ``ExperimentKind``, ``InputSpec``, ``Param``,
    ``Preset``, ``ParamError``, ``InputError``, ``Cancelled``
inputs (loading and validation)
    ``load_input``, ``load_trace``, ``SWFError``, ``scan_swf``, ``write_swf``;
    sacct: ``detect_sacct``, ``looks_like_sacct``, ``sacct_to_swf``, ``sacct_to_swf_file``,
    ``SacctError``, ``SACCT_NAMES_LISTED``;
    trace stats: ``SummarySink``, ``header_machine``;
    workflows: ``load_workflow``, ``detect_workflow_format``, ``summarize_workflow``,
    ``dumps_workflow``, ``generate_layered``, ``generate_cybershake``, ``generate_montage``,
    ``WorkflowError``;
    topologies: ``load_topology``, ``topology_layout``, ``builtin_topologies``,
    ``TopologyError``;
    Slurm sites: ``load_slurm_site``, ``slurm_site_facts``, ``SlurmSiteError``;
    usage configuration: ``load_policy_document``, ``load_policy_file``,
    ``policy_to_document``, ``policy_warnings``, ``seed004_document``, ``PolicyError``
archive traces and generated ones
    ``ARCHIVE_URL``, ``ARCHIVE_LOGS``, ``archive_url``, ``generate_lublin99``
sites (quote, start prediction, replay index)
    ``check_quotable``, ``price_list``, ``site_state_at``, ``site_index``, ``load_site_index``,
    ``predict_start_at``, ``site_wait_checkpoints``, ``QuoteRequestError``,
    ``PredictionRequestError``
co-allocation
    ``plan_coallocation``, ``COALLOCATION_USER_OPTIONS``, ``COALLOCATION_ADMIN_OPTIONS``
reproductions (report, claims, passes)
    ``reproductions``, ``Reproduction``, ``reproduction_verdict``, ``reproduction_scoreboard``,
    ``reference_rows``, ``fetch_hint``, ``trace_matches``, ``published_text``, ``value_text``,
    ``VERDICTS``, ``NOT_RUN``, ``claim_deviations``, ``set_pass_workers``,
    ``reproduce_in_process``, ``build_reproduce_report``, ``merge_reproduce_reports``,
    ``write_reproduce_report``, ``svg_chart``, ``claim_curve_svg``, ``sweep_points``,
    ``sweep_of``, ``NEEDS_SWEEP``
scheduling policies (the one registry of the cluster policies)
    ``scheduling_policy_choices``, ``resolve_scheduling_policy``, ``scheduling_policy_label``,
    ``SchedulingPolicyError``
the engine itself
    ``engine_version``, ``native_status``
"""

from __future__ import annotations

import importlib
from typing import Any

from .bounds import MAX_HOURS, MAX_MONEY, MAX_PROCS, MAX_SECONDS
from .jsonvalues import JSONLimitError, json_depth
from .jsonvalues import loads as json_loads
from .jsonvalues import loads_strict as json_loads_strict
from .labels import (
    better_of,
    format_value,
    label_of,
    labelled,
    member_label,
    member_metric,
    name_label,
    unit_of,
)
from .result_view import read_result, summary_only
from .results import CHART_TYPES, chart, series, table

# Loaded on first use: facade name -> (module, name there).  Every name resolves
# (tests/scheduler/test_engine.py), and ``import scheduler.engine`` loads none of them.
_LAZY: dict[str, tuple[str, str]] = {
    # experiment catalogue (loads every kind)
    **{
        n: ("scheduler.experiments", n)
        for n in (
            "Cancelled",
            "ExperimentKind",
            "InputError",
            "InputSpec",
            "Param",
            "ParamError",
            "Preset",
            "get_kind",
            "kinds",
            "run_experiment",
            "validate_params",
        )
    },
    "check_inputs": ("scheduler.experiments.base", "check_inputs"),
    "document_facts": ("scheduler.experiments.base", "document_facts"),
    "schema_as_json": ("scheduler.experiments.schema", "schema_as_json"),
    # inputs
    "load_input": ("scheduler.io", "load_input"),
    "load_trace": ("scheduler.io", "load_trace"),
    "SWFError": ("scheduler.traces.swf", "SWFError"),
    "scan_swf": ("scheduler.traces.swf", "scan_swf"),
    "write_swf": ("scheduler.traces.swf", "write_swf"),
    "SacctError": ("scheduler.traces.sacct", "SacctError"),
    "looks_like_sacct": ("scheduler.traces.sacct", "looks_like_sacct"),
    "detect_sacct": ("scheduler.traces.sacct", "detect_sacct"),
    "sacct_to_swf": ("scheduler.traces.sacct", "sacct_to_swf"),
    "sacct_to_swf_file": ("scheduler.traces.sacct", "sacct_to_swf_file"),
    "SACCT_NAMES_LISTED": ("scheduler.traces.sacct", "MAX_NAMES_LISTED"),
    "SummarySink": ("scheduler.traces.stats", "SummarySink"),
    "header_machine": ("scheduler.traces.stats", "header_machine"),
    "WorkflowError": ("scheduler.workflows", "WorkflowError"),
    "load_workflow": ("scheduler.workflows", "load_workflow"),
    "detect_workflow_format": ("scheduler.workflows", "detect_format"),
    "summarize_workflow": ("scheduler.workflows", "summarize"),
    "dumps_workflow": ("scheduler.workflows", "dumps_native"),
    "generate_layered": ("scheduler.workflows", "generate_layered"),
    "generate_cybershake": ("scheduler.workflows", "generate_cybershake"),
    "generate_montage": ("scheduler.workflows", "generate_montage"),
    "SlurmSiteError": ("scheduler.slurm.whatif", "SlurmSiteError"),
    "load_slurm_site": ("scheduler.slurm.whatif", "load_site"),
    "slurm_site_facts": ("scheduler.slurm.whatif", "site_facts"),
    "TopologyError": ("scheduler.coallocation", "TopologyError"),
    "load_topology": ("scheduler.coallocation", "load_topology"),
    "topology_layout": ("scheduler.coallocation", "layout"),
    "builtin_topologies": ("scheduler.coallocation", "builtin_topologies"),
    "PolicyError": ("scheduler.usage.config", "PolicyError"),
    "load_policy_document": ("scheduler.usage.config", "load_policy_document"),
    "load_policy_file": ("scheduler.usage.config", "load_policy_file"),
    "policy_to_document": ("scheduler.usage.config", "to_document"),
    "policy_warnings": ("scheduler.usage.config", "policy_warnings"),
    "seed004_document": ("scheduler.usage.scenarios", "seed004_document"),
    # archive traces and generated ones
    "ARCHIVE_URL": ("scheduler.traces.archive", "ARCHIVE"),
    "ARCHIVE_LOGS": ("scheduler.traces.archive", "ARCHIVE_LOGS"),
    "archive_url": ("scheduler.traces.archive", "archive_url"),
    "generate_lublin99": ("scheduler.traces.lublin", "generate_lublin99"),
    # sites
    "QuoteRequestError": ("scheduler.pricing.site", "QuoteRequestError"),
    "check_quotable": ("scheduler.pricing.site", "check_quotable"),
    "price_list": ("scheduler.pricing.site", "price_list"),
    "site_state_at": ("scheduler.pricing.site", "state_at"),
    "site_index": ("scheduler.pricing.site", "site_index"),
    "load_site_index": ("scheduler.cluster.replay", "load_index"),
    "PredictionRequestError": ("scheduler.reservations.site", "PredictionRequestError"),
    "predict_start_at": ("scheduler.reservations.site", "predict_at"),
    "site_wait_checkpoints": ("scheduler.reservations.site", "wait_checkpoints"),
    # co-allocation
    "plan_coallocation": ("scheduler.coallocation", "plan_request"),
    "COALLOCATION_USER_OPTIONS": ("scheduler.coallocation", "USER_OPTIONS"),
    "COALLOCATION_ADMIN_OPTIONS": ("scheduler.coallocation", "ADMIN_OPTIONS"),
    # reproductions
    **{
        n: ("scheduler.experiments.reproduce", n)
        for n in (
            "NOT_RUN",
            "VERDICTS",
            "Reproduction",
            "fetch_hint",
            "published_text",
            "reference_rows",
            "reproductions",
            "trace_matches",
            "value_text",
            "sweep_points",
            "sweep_of",
            "NEEDS_SWEEP",
        )
    },
    "reproduction_verdict": ("scheduler.experiments.reproduce", "verdict"),
    "reproduction_scoreboard": ("scheduler.experiments.reproduce", "scoreboard"),
    "claim_deviations": ("scheduler.experiments.claims", "deviations"),
    "set_pass_workers": ("scheduler.experiments.passes", "set_workers"),
    "reproduce_in_process": ("scheduler.experiments.reproduce_report", "in_process"),
    "build_reproduce_report": ("scheduler.experiments.reproduce_report", "build_report"),
    "merge_reproduce_reports": ("scheduler.experiments.reproduce_report", "merge_reports"),
    "write_reproduce_report": ("scheduler.experiments.reproduce_report", "write_report"),
    "svg_chart": ("scheduler.experiments.reproduce_report", "svg_chart"),
    "claim_curve_svg": ("scheduler.experiments.reproduce_report", "claim_curve_svg"),
    # scheduling policies: the registry
    "scheduling_policy_choices": ("scheduler.cluster.registry", "policy_choices"),
    "resolve_scheduling_policy": ("scheduler.cluster.registry", "resolve"),
    "scheduling_policy_label": ("scheduler.cluster.registry", "policy_label"),
    "SchedulingPolicyError": ("scheduler.cluster.policy", "PolicyError"),
}


def __getattr__(name: str) -> Any:
    """A lazy name's value, imported on first use (then kept as a plain global)."""
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def engine_version() -> str:
    """The engine's version (``scheduler.__version__`` when set), written into bundles."""
    import scheduler

    return getattr(scheduler, "__version__", "0.1.0")


def native_status() -> str:
    """``"compiled"`` when the profile's hot loops run compiled, else ``"pure: <why>"``;
    loads the kernel first (compiled or its .py), so the answer is about this process."""
    from .cluster import native_status as status
    from .cluster import profile  # noqa: F401  (loads the kernel: compiled or its .py)

    return status()


__all__ = [
    "CHART_TYPES",
    "JSONLimitError",
    "json_depth",
    "MAX_HOURS",
    "MAX_MONEY",
    "MAX_PROCS",
    "MAX_SECONDS",
    "better_of",
    "chart",
    "engine_version",
    "format_value",
    "json_loads",
    "json_loads_strict",
    "label_of",
    "labelled",
    "member_label",
    "member_metric",
    "name_label",
    "native_status",
    "read_result",
    "series",
    "summary_only",
    "table",
    "unit_of",
    *_LAZY,
]
