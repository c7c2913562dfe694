"""Experiment kind ``usage-policy``: S-PEP vs local RM fair share vs no policy.

Dumitrescu, Wilde & Foster 2005: a grid of sites shares its CPUs among VOs (and VOs among their
groups) under ``<resource, provider, consumer, epoch, burst>`` policies.  One run simulates the same
workload under each chosen strategy —

* ``spep`` — V-PEP at each VO's submission host + S-PEP at each site (:mod:`scheduler.usage.
  spep`, :mod:`scheduler.usage.vpep`), suspending over-quota jobs;
* ``rm-fairshare`` — the local resource manager's fair share, no suspension
  (:mod:`scheduler.usage.rm`);
* ``none`` — FCFS, no policy;
* for the testbed's table (slide 26), one strategy per row: ``spep-condor`` / ``spep-pbs`` (the
  S-PEP acting through Condor / OpenPBS-Maui, whose cycles delay its releases) and
  ``rm-condor`` / ``rm-pbs`` (Condor's user priorities / Maui's fair share with the epoch
  shares as targets), with the batch systems' documented defaults as parameters
  (:mod:`scheduler.usage.batch`) —

and reports BUPV, EUPV, ARU, ART and AJC (:mod:`scheduler.usage.metrics`) overall, per site,
per VO and per group, with each VO's and group's share of each site and of the grid over time
against its epoch and burst policy lines (Dumitrescu, Wilde & Foster 2005, Figures 2–13), and bars
per strategy.

The grid comes from a policy document (input ``policies``, e.g. ``--policies FILE`` or the
portal's snapshot) or, without one, from the ``scenario`` parameter: Dumitrescu, Wilde & Foster's
(2005) 2 VOs (two groups in VO0) on 2 or 5 sites, or the single-site testbed of its 'Comparison
Results' table (preset ``seed004-testbed``, see :data:`DEVIATIONS`).  The workload is Poisson
streams per group / VO, or an SWF trace (input ``traces``) whose users and groups are mapped to VOs
and groups.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..bounds import MAX_FACTOR
from ..traces.stats import trace_summary
from ..usage import STRATEGIES, Condor, GridModel, Maui, outcome_metrics, simulate
from ..usage.config import PolicySet, load_policy_document, policy_warnings
from ..usage.metrics import METRICS, downsample, trailing_average
from ..usage.scenarios import (
    SCENARIOS,
    SEED_WEIGHTS,
    TESTBED_WEIGHTS,
    scenario_document,
    scenario_weights,
)
from ..usage.simulator import SimOutcome, Strategy
from ..usage.workload import (
    KEYS,
    PROCS_DISTS,
    RUNTIME_DISTS,
    UsageJob,
    parse_weights,
    poisson_jobs,
    swf_jobs,
)
from .base import ExperimentKind, InputSpec, Preset, Spread, chart, register, series, table
from .claims import of
from .schema import Param, ParamError, split_list


def weights_syntax(text: str) -> None:
    """The form of ``weights`` (``NAME=WEIGHT`` items, weights finite in [0, 10⁶]), checked at
    submit; the names are matched against the policy set when the run starts."""
    for part in split_list(text, "weights"):
        name, sep, value = part.partition("=")
        try:
            weight = float(value) if sep and len(value) <= 40 else math.nan
        except ValueError:
            weight = math.nan
        if not name.strip() or not math.isfinite(weight) or not 0 <= weight <= MAX_FACTOR:
            raise ParamError({"weights": f"{part[:40]!r}: expected NAME=WEIGHT with a weight "
                                         f"in [0, {MAX_FACTOR:.0e}]"})  # fmt: skip


def weights_text(params: dict[str, Any], from_document: bool) -> str:
    """The ``weights`` a Poisson workload uses: as given, else the scenario's (none for a
    policy document: every VO equal)."""
    text = params["weights"]
    if not text.strip() and params["scenario"] != "custom" and not from_document:
        return scenario_weights(params["scenario"])
    return text


#: Most steps of a simulation (each step visits every consumer and site: memory for the
#: per-step series and time grow with it).
MAX_STEPS = 2_000_000
STRATEGY_PARAMS = (
    ("spep", "spep"),
    ("rm-fairshare", "rm_fairshare"),
    ("none", "none"),
    ("spep-condor", "spep_condor"),
    ("spep-pbs", "spep_pbs"),
    ("rm-condor", "rm_condor"),
    ("rm-pbs", "rm_pbs"),
)
#: The four rows of Dumitrescu, Wilde & Foster's (2005) 'Comparison Results' table, by result name.
BATCH_ROWS = ("spep-condor", "spep-pbs", "rm-condor", "rm-pbs")
#: Means over two rows of the table (summary keys ``<name>.<metric>``): each enforcement over
#: both batch systems, each batch system under both enforcements, and all four rows.
ROW_MEANS = {
    "spep-mean": ("spep-condor", "spep-pbs"),
    "rm-mean": ("rm-condor", "rm-pbs"),
    "condor-mean": ("spep-condor", "rm-condor"),
    "pbs-mean": ("spep-pbs", "rm-pbs"),
    "table-mean": BATCH_ROWS,
}
ROW_MEAN_TITLES = {
    "spep-mean": "S-PEP (mean over Condor and PBS)",
    "rm-mean": "local RM (mean over Condor and PBS)",
    "condor-mean": "Condor (mean over S-PEP and RM)",
    "pbs-mean": "OpenPBS/Maui (mean over S-PEP and RM)",
    "table-mean": "the four table rows (mean)",
}
SEED_PARAMS: dict[str, Any] = {
    "jobs": 440,
    "duration": 3600,
    "weights": "",
    "runtime_dist": "exponential",
    "runtime_mean": 500,
    "procs_dist": "uniform",
    "procs_max": 8,
}


#: Site0's size in preset ``seed004-testbed``: the one calibrated unknown (see
#: :data:`DEVIATIONS`), calibrated on ONE row of the table, RM/Condor's ARU (73.2 %), so that the
#: other three rows' ARUs stay independent checks.  RM/Condor because it is the row with the
#: fewest modelled choices: Condor alone with its documented defaults (no S-PEP cycle, none of
#: Maui's fair-share settings).  Over seeds 0–9 its mean ARU is 0.7427 on 326 CPUs, 0.7386 on
#: 328, 0.7345 on 330, 0.7303 on 332 and 0.7263 on 334; 332 is the closest.
TESTBED_CPUS = 332
TESTBED_CALIBRATION_ROW = "rm-condor"
TESTBED_ARU_TARGET = 0.732
#: The table's numbers are one testbed run each; the random seed of our workload is a choice
#: the seed does not state, so the testbed preset's claims are judged over seeds 0–9.
TESTBED_SEEDS = Spread(
    "seed", tuple(range(10)),
    "the testbed's workload is one random draw the seed does not give; seeds 0–9 show how much "
    "a row moves with it (ARU by ± 0.06)",
)  # fmt: skip

#: What the testbed preset chose where Dumitrescu, Wilde & Foster 2005 says nothing.
DEVIATIONS = {
    "Dumitrescu, Wilde & Foster 2005, slide 23 (testbed size)": (
        "the testbed's CPUs are not given: the one calibrated unknown. Site0 has 332 CPUs, the "
        "size at which RM/Condor's ARU over seeds 0–9 (0.730) equals its published 73.2 %; that "
        "row is shown as fitted, not counted, and the other three rows' ARUs are independent "
        "checks (the row with the fewest modelled choices was chosen before the others were "
        "looked at: Condor alone with its documented defaults).  Nothing else is fitted: the "
        "batch systems run with their documented defaults"
    ),
    "Dumitrescu, Wilde & Foster 2005, slides 19 and 23 (testbed workload)": (
        "'Workloads identical': 440 Poisson jobs in one hour, as in our simulation presets, "
        "whose runtimes (exponential, mean 500 s) and sizes (1–8 CPUs) are ours (the seed gives "
        "neither); no group policy is listed for the testbed, so VO0 has no groups and keeps "
        "the simulations' rate per VO (VO0 = 3, VO1 = 6)"
    ),
    "Dumitrescu, Wilde & Foster 2005, slide 26 (Condor and PBS rows)": (
        "each row of the table has its own simulation (scheduler/usage/batch.py): S-PEP/Condor "
        "and S-PEP/PBS are the S-PEP of slide 12 acting through the batch system — its releases "
        "start at the next negotiation cycle (Condor NEGOTIATOR_INTERVAL, default 60 s, HTCondor "
        "manual) or scheduling iteration (Maui RMPOLLINTERVAL, default 60 s, Maui 3.2.6 source); "
        "RM/Condor is Condor's user priority (PRIORITY_HALFLIFE default 86400 s, RUP ≥ 0.5, "
        "pie slices ∝ 1/EUP) with priority factors ∝ 1/epoch share; RM/PBS is Maui's fair share "
        "(FSINTERVAL 43200 s, FSDEPTH 8, FSDECAY 1.0, FSTARGET = epoch share) with FIRSTFIT "
        "start. Model choices where the documents leave it to the site: Maui's priority weights "
        "(fair share first, then queue time), no reservation for Maui's top job (walltime "
        "requests are not in the seed), Condor's last pie spin lets any fitting job start, the "
        "S-PEP polls every second and runs the seed's loop once per poll (one release per VO) on "
        "the running jobs the batch system reports, and jobs reach the site directly (slide 23, "
        "Globus Toolkit 2.0; no V-PEP)"
    ),
    "Dumitrescu, Wilde & Foster 2005, slide 26 (ARU unit)": (
        "the table prints ARU as a percentage (70.2); ours is the fraction Σ ET_i / (cpus Δt) "
        "of slide 25, so the published values are compared as 0.702 etc."
    ),
}


def _r(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(float(x), digits)


def make_strategy(name: str, params: dict[str, Any]) -> Strategy:
    """The strategy ``name`` with the batch-system settings of ``params`` (defaults when a key
    is absent)."""
    cls = STRATEGIES[name]
    if name in ("spep-condor", "rm-condor"):
        default = Condor()
        condor = Condor(
            negotiator_interval=params.get(
                "condor_negotiator_interval", default.negotiator_interval
            ),
            priority_halflife=params.get("condor_priority_halflife", default.priority_halflife),
        )
        return cls(condor)  # type: ignore[call-arg]
    if name in ("spep-pbs", "rm-pbs"):
        maui = Maui(
            rmpollinterval=params.get("maui_rmpollinterval", Maui.rmpollinterval),
            fsinterval=params.get("maui_fsinterval", Maui.fsinterval),
            fsdepth=params.get("maui_fsdepth", Maui.fsdepth),
            fsdecay=params.get("maui_fsdecay", Maui.fsdecay),
        )
        return cls(maui)  # type: ignore[call-arg]
    return cls()


@register
class UsagePolicy(ExperimentKind):
    name = "usage-policy"
    title = "Usage policies: S-PEP vs local RM fair share vs no policy"
    description = (
        "Simulates VOs and their groups sharing grid sites under epoch and burst usage "
        "policies, enforced by S-PEP/V-PEP, by the local resource manager's fair share, or not "
        "at all; compares burst and epoch violations (BUPV, EUPV), utilization (ARU), response "
        "time (ART) and completion (AJC), with each consumer's share over time against its "
        "policy lines."
    )
    reproduces = "Dumitrescu, Wilde & Foster 2005, Figures 2–13 and the comparison table"
    params = (
        Param(
            "scenario", "choice", "seed004-2sites", choices=(*SCENARIOS, "custom"),
            help="The grid when no policy document is given: the policy set of Dumitrescu, Wilde "
            "& Foster 2005 on 2 or 5 sites, or its single-site testbed (slide 23). A policy "
            "document (--policies FILE or the portal's configuration) always takes precedence; "
            "'custom' requires one.",
        ),
        Param(
            "site_cpus", "int", 100, min=1, max=1_000_000, label="CPUs per site",
            help="Size of each site of the Dumitrescu, Wilde & Foster 2005 scenarios (a document "
            "gives its own).",
        ),
        Param(
            "jobs", "int", SEED_PARAMS["jobs"], min=1, max=1_000_000,
            help="Number of Poisson jobs (ignored with a trace).",
        ),
        Param(
            "duration", "int", SEED_PARAMS["duration"], min=0, max=100_000_000,
            label="duration (s)",
            help="Jobs arrive over [0, duration). With a trace: keep the jobs submitted in the "
            "first 'duration' seconds (0 = all).",
        ),
        Param(
            "drain", "int", 0, min=0, max=100_000_000, label="drain (s)",
            help="Simulate this long after the last arrival window; metrics cover "
            "duration + drain.",
        ),
        Param(
            "weights", "str", SEED_PARAMS["weights"],
            help="Relative arrival rate per stream, 'VO.group=w' or 'VO=w' (spread over its "
            f"groups), comma-separated; unlisted consumers submit nothing. Empty: "
            f"'{SEED_WEIGHTS}' for the Dumitrescu, Wilde & Foster 2005 scenarios "
            f"('{TESTBED_WEIGHTS}' for the testbed), every VO equal for a policy document.",
            parse=weights_syntax,
        ),
        Param("runtime_dist", "choice", SEED_PARAMS["runtime_dist"], choices=RUNTIME_DISTS,
              label="runtime distribution",
              help="exponential (mean), uniform on [1, 2·mean − 1], or constant."),
        Param("runtime_mean", "float", SEED_PARAMS["runtime_mean"], min=1, max=10_000_000,
              label="mean runtime (s)"),
        Param("procs_dist", "choice", SEED_PARAMS["procs_dist"], choices=PROCS_DISTS,
              label="processor distribution",
              help="uniform on 1..max, powers of two up to max, or constant = max."),
        Param("procs_max", "int", SEED_PARAMS["procs_max"], min=1, max=1_000_000,
              label="max processors per job"),
        Param("spep", "bool", True, label="S-PEP + V-PEP"),
        Param("rm_fairshare", "bool", True, label="local RM fair share"),
        Param("none", "bool", True, label="no policy (FCFS)"),
        Param("spep_condor", "bool", False, label="S-PEP over Condor",
              help="The S-PEP acting through Condor: its releases start at the next "
              "negotiation cycle (Dumitrescu, Wilde & Foster's (2005) testbed, slide 26)."),
        Param("spep_pbs", "bool", False, label="S-PEP over OpenPBS/Maui",
              help="The S-PEP acting through OpenPBS/Maui: its releases start at Maui's next "
              "scheduling iteration."),
        Param("rm_condor", "bool", False, label="Condor fair share (RM/Condor)",
              help="Condor's user priorities with priority factors from the epoch shares."),
        Param("rm_pbs", "bool", False, label="Maui fair share (RM/PBS)",
              help="Maui's fair share with the epoch shares as FSTARGET."),
        Param("condor_negotiator_interval", "int", Condor.negotiator_interval, min=1,
              max=86_400, label="Condor NEGOTIATOR_INTERVAL (s)",
              help="Time between negotiation cycles; HTCondor's default is 60 s."),
        Param("condor_priority_halflife", "int", Condor.priority_halflife, min=1,
              max=100_000_000, label="Condor PRIORITY_HALFLIFE (s)",
              help="Half-life of the real user priority; HTCondor's default is 86400 s."),
        Param("maui_rmpollinterval", "int", Maui.rmpollinterval, min=1, max=86_400,
              label="Maui RMPOLLINTERVAL (s)",
              help="Time between Maui's scheduling iterations; Maui's default is 60 s."),
        Param("maui_fsinterval", "int", Maui.fsinterval, min=1, max=100_000_000,
              label="Maui FSINTERVAL (s)",
              help="Length of a fair-share window; Maui's default is 43200 s (12 h)."),
        Param("maui_fsdepth", "int", Maui.fsdepth, min=1, max=32, label="Maui FSDEPTH",
              help="Fair-share windows counted; Maui's default is 8."),
        Param("maui_fsdecay", "float", Maui.fsdecay, min=0, max=1, label="Maui FSDECAY",
              help="Weight factor of each older window; Maui's default is 1.0 (no decay)."),
        Param(
            "step", "int", 1, min=1, max=3600, label="enforcement period (s)",
            help="The simulation advances in steps of this length; the S-PEP and the local "
            "RM act once per step. Raise it for long traces.",
        ),
        Param(
            "swf_vo_key", "choice", "group", choices=KEYS, label="trace field → VO",
            help="With a trace, a job belongs to VO number (field mod number of VOs), in "
            "document order; unknown (-1) counts as 0.",
        ),
        Param(
            "swf_group_key", "choice", "user", choices=KEYS, label="trace field → group",
            help="Inside a VO with n groups, group number (field mod n); when it is the same "
            "field as the VO's, (field div number of VOs) mod n.",
        ),
        Param("swf_limit", "int", 0, min=0, max=100_000_000, label="first trace jobs only",
              help="Keep the first K jobs of the trace (0: all)."),
        Param("series_points", "int", 200, min=10, max=300, label="points per time series"),
    )  # fmt: skip
    inputs = (
        InputSpec(
            "policies", "policies", 0, 1,
            "policy document (sites, VOs, groups, policies); absent: the scenario parameter",
        ),
        InputSpec("traces", "trace", 0, 1, "SWF workload whose users/groups map to VOs"),
    )  # fmt: skip
    presets = (
        Preset(
            "seed004-2sites",
            "As in Dumitrescu, Wilde & Foster 2005: 2 VOs (VO0 with 2 groups), 2 sites of 100 "
            "CPUs, 440 jobs in one hour; VO0 epoch (3600 s, 20 %) burst (5 s, 60 %), VO1 epoch "
            "(3600 s, 80 %) burst (5 s, 90 %)",
            {"scenario": "seed004-2sites", "site_cpus": 100, **SEED_PARAMS},
            minutes=0.1,
            published=of("usage-policy", "seed004-2sites"),
        ),
        Preset(
            "seed004-5sites",
            "Dumitrescu, Wilde & Foster 2005 on 5 sites (Figures 12–13): the same policies on 5 "
            "sites of 100 CPUs, 1100 jobs in one hour (the same load per site)",
            {"scenario": "seed004-5sites", "site_cpus": 100, **SEED_PARAMS, "jobs": 1100},
            minutes=0.2,
            published=of("usage-policy", "seed004-5sites"),
        ),
        Preset(
            "seed004-testbed",
            "As in the testbed of Dumitrescu, Wilde & Foster 2005 (slides 23–26, 'Comparison "
            "Results'): one site, Site0, VO0 epoch (3000 s, 20 %) burst (30 s, 60 %), VO1 epoch "
            "(3000 s, 80 %) burst (30 s, 90 %), the simulations' workload (440 jobs in one hour, "
            "VO1 twice VO0's rate); each row of the table simulated on its own batch system (S-PEP"
            " over Condor, over OpenPBS/Maui; Condor's and Maui's own fair share) with their "
            "documented defaults; Site0's size (332 CPUs) calibrated on one row, RM/Condor's "
            "ARU",
            {
                "scenario": "seed004-testbed",
                "site_cpus": TESTBED_CPUS,
                **SEED_PARAMS,
                "spep": False,
                "rm_fairshare": False,
                "none": True,
                "spep_condor": True,
                "spep_pbs": True,
                "rm_condor": True,
                "rm_pbs": True,
            },
            minutes=0.1,
            published=of("usage-policy", "seed004-testbed"),
            spread=TESTBED_SEEDS,
        ),
    )  # fmt: skip

    def run(
        self, params: dict[str, Any], inputs: dict[str, list[Any]], seed: int, progress
    ) -> dict[str, Any]:
        chosen = [name for name, key in STRATEGY_PARAMS if params[key]]
        policyset, source = self._policyset(params, inputs)
        traces = inputs.get("traces") or []
        fact = trace_summary(traces[0]) if traces and not params["duration"] else {}
        span = fact["last_end"] - fact["first_submit"] if fact.get("jobs") else 0
        model = self._checked(params, policyset, bool(inputs.get("policies")), bool(traces), span)
        progress(0.01, "workload")
        jobs, dropped = self._workload(params, inputs, policyset, seed)
        duration = params["duration"] or (max((j.submit for j in jobs), default=0) + 1)
        horizon = duration + params["drain"]

        outcomes: dict[str, SimOutcome] = {}
        metrics: dict[str, dict[str, Any]] = {}
        for i, name in enumerate(chosen):
            lo, hi = 0.05 + 0.85 * i / len(chosen), 0.05 + 0.85 * (i + 1) / len(chosen)
            progress(lo, f"simulating {name}")

            def on_step(f: float, lo: float = lo, hi: float = hi, name: str = name) -> None:
                progress(lo + (hi - lo) * f, f"simulating {name}")

            out = simulate(
                model,
                jobs,
                make_strategy(name, params),
                horizon=horizon,
                step=params["step"],
                on_step=on_step,
            )
            outcomes[name] = out
            metrics[name] = outcome_metrics(out, model)
        progress(0.92, "charts")
        warnings = policy_warnings(policyset)
        body = _report(params, model, policyset, jobs, duration, outcomes, metrics, warnings)
        body["summary"].update(
            {
                "policy_source": source,
                "jobs": len(jobs),
                "dropped_trace_jobs": dropped,
                "sites": len(model.sites),
                "vos": len(model.vo_nodes),
                "groups": len(model.nodes) - len(model.vo_nodes),
                "cpus": model.total_cpus,
                "horizon_s": horizon,
                "warnings": len(warnings),
                "policies_not_simulated": len(model.not_simulated),
            }
        )
        progress(1.0, "done")
        return body

    def check_facts(self, params: dict[str, Any], facts: dict[str, list[dict[str, Any]]]) -> None:
        """The run's refusals, at submit: the policy document of the facts (or the scenario's)
        read as the run reads it, and the trace's span; then :meth:`_checked`."""
        docs = [f["document"] for f in facts.get("policies", []) if f.get("document")]
        traces = facts.get("traces", [])
        policyset, _ = self._policyset(params, {"policies": docs})
        fact = traces[0] if traces and not params["duration"] else {}
        span = fact["last_end"] - fact["first_submit"] if fact.get("jobs") else 0
        self._checked(params, policyset, bool(docs), bool(traces), span)

    @staticmethod
    def _checked(
        params: dict[str, Any],
        policyset: PolicySet,
        from_document: bool,
        with_trace: bool,
        trace_span: int,
    ) -> GridModel:
        """The grid model, or :class:`ParamError` naming the field: no strategy, no site, a
        Poisson workload shorter than 1 s or with weights the policy set cannot take, more
        than :data:`MAX_STEPS` steps (over the duration, else the trace's span from its
        first submission to its last end, plus the drain).  The one check of the submit
        (:meth:`check_facts`) and the run."""
        if not any(params[key] for _, key in STRATEGY_PARAMS):
            raise ParamError({"spep": "choose at least one strategy"})
        model = GridModel.from_policyset(policyset)
        if not model.sites:
            raise ParamError({"policies": "the policy document has no site"})
        if not with_trace:
            if params["duration"] < 1:
                raise ParamError({"duration": "must be >= 1 s for a Poisson workload"})
            try:
                parse_weights(weights_text(params, from_document), policyset)
            except ValueError as exc:
                raise ParamError({"weights": str(exc)}) from None
        horizon = (params["duration"] or trace_span + 1) + params["drain"]
        if horizon / params["step"] > MAX_STEPS:
            raise ParamError({"step": (
                f"{horizon:,} s in steps of {params['step']} s is more than {MAX_STEPS:,} "
                "steps: raise the step or shorten the duration"
            )})  # fmt: skip
        return model

    @staticmethod
    def _policyset(params: dict[str, Any], inputs: dict[str, list[Any]]) -> tuple[PolicySet, str]:
        given = inputs.get("policies") or []
        if given:
            doc = given[0]
            if isinstance(doc, PolicySet):
                return doc, "input"
            return load_policy_document(doc), "input"
        if params["scenario"] == "custom":
            raise ParamError(
                {
                    "scenario": "'custom' needs a policy document (--policies FILE, or the "
                    "portal's configured sites, VOs and policies)"
                }
            )
        doc = scenario_document(params["scenario"], params["site_cpus"])
        return load_policy_document(doc), params["scenario"]

    @staticmethod
    def _workload(
        params: dict[str, Any], inputs: dict[str, list[Any]], ps: PolicySet, seed: int
    ) -> tuple[list[UsageJob], int]:
        traces = inputs.get("traces") or []
        if traces:
            return swf_jobs(
                traces[0].jobs,
                ps,
                vo_key=params["swf_vo_key"],
                group_key=params["swf_group_key"],
                duration=params["duration"],
                limit=params["swf_limit"],
            )
        # (duration and weights checked by _checked before)
        weights = parse_weights(weights_text(params, bool(inputs.get("policies"))), ps)
        jobs = poisson_jobs(
            weights,
            jobs=params["jobs"],
            duration=params["duration"],
            runtime_dist=params["runtime_dist"],
            runtime_mean=params["runtime_mean"],
            procs_dist=params["procs_dist"],
            procs_max=params["procs_max"],
            seed=seed,
        )
        return jobs, 0


# --------------------------------------------------------------------------------------------
# Result: summary, tables, charts
# --------------------------------------------------------------------------------------------

LABELS = {
    "BUPV": "burst usage-policy violation (fraction of capacity)",
    "EUPV": "epoch usage-policy violation (fraction of capacity)",
    "ARU": "aggregated resource utilization (fraction)",
    "ART": "aggregated response time (s)",
    "AJC": "aggregated job completion (completed / submitted)",
    "group_BUPV": "group burst violation (fraction of capacity)",
    "group_EUPV": "group epoch violation (fraction of capacity)",
    "completed": "jobs completed",
    "rejected": "jobs no site could run",
    "suspensions": "suspensions by the S-PEP",
}


def _report(
    params: dict[str, Any],
    model: GridModel,
    ps: PolicySet,
    jobs: list[UsageJob],
    duration: int,
    outcomes: dict[str, SimOutcome],
    metrics: dict[str, dict[str, Any]],
    warnings: list[str],
) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    labels: dict[str, str] = {}
    for name, m in metrics.items():
        title = STRATEGIES[name].title
        for key in (*METRICS, "group_BUPV", "group_EUPV"):
            summary[f"{name}.{key}"] = _r(m["overall"][key], 2 if key == "ART" else 4)
            labels[f"{name}.{key}"] = f"{title}: {LABELS[key]}"
        for key in ("completed", "rejected", "suspensions"):
            summary[f"{name}.{key}"] = m["counts"][key]
            labels[f"{name}.{key}"] = f"{title}: {LABELS[key]}"
    for mean, rows in ROW_MEANS.items():
        if not all(r in metrics for r in rows):
            continue
        for key in ("BUPV", "EUPV", "ARU"):
            summary[f"{mean}.{key}"] = _r(sum(metrics[r]["overall"][key] for r in rows) / len(rows))
            labels[f"{mean}.{key}"] = f"{ROW_MEAN_TITLES[mean]}: {LABELS[key]}"
    labels.update(
        {
            "policy_source": "where the policies came from",
            "jobs": "jobs in the workload",
            "dropped_trace_jobs": "trace jobs without runtime or processors",
            "sites": "sites",
            "vos": "VOs",
            "groups": "groups",
            "cpus": "CPUs in the grid",
            "horizon_s": "simulated time (s)",
            "warnings": "policy warnings",
            "policies_not_simulated": "NET/STORAGE policies (not simulated)",
        }
    )
    # Key results: how far each enforcement lets usage stray from the policy
    # (epoch violation) and what it costs in utilization (at most three enforcements)
    names = list(metrics)[:3]
    parts = ("EUPV", "BUPV", "ARU", "ART", "AJC") if len(names) == 1 else ("EUPV", "ARU")
    key = [f"{n}.{p}" for p in parts for n in names]
    if all(r in metrics for r in BATCH_ROWS):  # the testbed's table: its four rows
        key = [f"{r}.EUPV" for r in BATCH_ROWS] + ["spep-mean.ARU", "rm-mean.ARU"]
    return {
        "summary": summary,
        "summary_labels": labels,
        "key": [k for k in key if summary.get(k) is not None],
        "tables": _tables(model, ps, jobs, duration, metrics, warnings),
        "charts": _bars(metrics) + _share_charts(model, outcomes, params["series_points"]),
    }


def _tables(
    model: GridModel,
    ps: PolicySet,
    jobs: list[UsageJob],
    duration: int,
    metrics: dict[str, dict[str, Any]],
    warnings: list[str],
) -> list[dict[str, Any]]:
    rows = []
    for name, m in metrics.items():
        scopes = [("grid", "all", m["overall"])]
        scopes += [("site", s, v) for s, v in m["sites"].items()]
        scopes += [("VO", s, v) for s, v in m["vos"].items()]
        scopes += [("group", s, v) for s, v in m["groups"].items()]
        for scope, who, v in scopes:
            rows.append(
                [
                    name,
                    scope,
                    who,
                    _r(v["BUPV"]),
                    _r(v["EUPV"]),
                    _r(v["ARU"]),
                    _r(v["ART"], 2),
                    _r(v["AJC"]),
                ]
            )
    out = [
        table(
            "metrics",
            "BUPV, EUPV, ARU, ART, AJC per strategy (per-VO and per-group values are fractions "
            "of the whole grid; per-site values of that site)",
            ["strategy", "scope", "name", "BUPV", "EUPV", "ARU", "ART (s)", "AJC"],
            rows,
        ),
        table(
            "policies",
            "Usage policies",
            [
                "resource",
                "provider",
                "consumer",
                "epoch (s)",
                "epoch %",
                "burst (s)",
                "burst %",
                "simulated",
            ],
            [
                [
                    p.resource,
                    p.provider,
                    p.consumer,
                    p.epoch.interval,
                    p.epoch.percent,
                    p.burst.interval,
                    p.burst.percent,
                    "yes" if p.resource == "CPU" else "no",
                ]
                for p in ps.policies
            ],
        ),
    ]
    capacity = model.total_cpus * duration
    demand: dict[str, list[float]] = {}
    for j in jobs:
        d = demand.setdefault(j.consumer, [0, 0.0])
        d[0] += 1
        d[1] += j.procs * j.runtime
    out.append(
        table(
            "workload",
            "Workload per consumer (demand in CPU-hours; offered load = demand / grid CPUs / "
            "arrival window)",
            ["consumer", "jobs", "demand (CPU-h)", "offered load"],
            [
                [c, d[0], round(d[1] / 3600, 2), round(d[1] / capacity, 4)]
                for c, d in sorted(demand.items())
            ],
        )
    )
    if warnings:
        out.append(table("warnings", "Policy warnings", ["warning"], [[w] for w in warnings]))
    return out


def _bars(metrics: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    names = list(metrics)
    return [
        chart(
            "violations",
            "bar",
            "BUPV, EUPV and ARU per strategy",
            x="strategy",
            y="fraction of grid capacity",
            series=[
                series(key, [[n, _r(metrics[n]["overall"][key])] for n in names])
                for key in ("BUPV", "EUPV", "ARU")
            ],
        ),
        chart(
            "response",
            "bar",
            "Aggregated response time per strategy",
            x="strategy",
            y="ART (s)",
            series=[series("ART", [[n, _r(metrics[n]["overall"]["ART"], 2)] for n in names])],
        ),
        chart(
            "completion",
            "bar",
            "Aggregated job completion per strategy",
            x="strategy",
            y="completed / submitted",
            series=[series("AJC", [[n, _r(metrics[n]["overall"]["AJC"])] for n in names])],
        ),
    ]


def _line(xs: np.ndarray, ys: np.ndarray) -> list[list[float]]:
    return [[int(x), round(float(y), 4)] for x, y in zip(xs, ys, strict=True)]


def _consumer_series(
    name: str,
    usage: np.ndarray,
    ea: np.ndarray,
    epoch: float | None,
    burst: float | None,
    horizon: int,
    step: int,
    points: int,
) -> list[dict[str, Any]]:
    """A consumer's share (bin means), its epoch-window usage and its two policy lines."""
    first, mean = downsample(usage, points)
    width = np.diff(np.append(first, usage.size))
    out = [series(f"{name} share", _line((first + width / 2) * step, mean))]
    ends = np.append(first[1:], usage.size) - 1
    out.append(series(f"{name} epoch usage", _line((ends + 1) * step, ea[ends])))
    if epoch is not None:
        out.append(series(f"{name} epoch policy", [[0, _r(epoch)], [horizon, _r(epoch)]]))
    if burst is not None:
        out.append(series(f"{name} burst policy", [[0, _r(burst)], [horizon, _r(burst)]]))
    return out


def _share_charts(
    model: GridModel, outcomes: dict[str, SimOutcome], points: int
) -> list[dict[str, Any]]:
    """Share over time per site, per VO and per group (grid level), for each strategy."""
    charts = []
    for name, out in outcomes.items():
        step, horizon = out.step, out.horizon
        title = STRATEGIES[name].title
        grid_usage = np.zeros((len(model.nodes), out.steps))
        grid_ea = np.zeros((len(model.nodes), out.steps))
        for s, site in enumerate(model.sites):
            usage = out.usage[s]
            grid_usage += usage
            lines = []
            for v in model.vo_nodes:
                if not site.member[v]:
                    continue
                w = max(1, round(site.epoch_interval[v] / step))
                ea = trailing_average(usage[v], w) / (site.cpus * step)
                lines += _consumer_series(
                    model.nodes[v].name,
                    usage[v] / (site.cpus * step),
                    ea,
                    site.epoch[v],
                    site.burst[v],
                    horizon,
                    step,
                    points,
                )
            for n in range(len(model.nodes)):
                interval = site.epoch_interval[n] or site.epoch_interval[model.nodes[n].vo]
                if interval is not None:
                    w = max(1, round(interval / step))
                    grid_ea[n] += trailing_average(usage[n], w) / step
            charts.append(
                chart(
                    f"{name}-site-{site.name}",
                    "line",
                    f"{title}: VO shares of {site.name} vs their policies",
                    x="time (s)",
                    y=f"share of {site.name} CPUs",
                    series=lines,
                )
            )
        cpus = model.total_cpus
        for node in model.nodes:
            n = node.index
            kind = "group" if node.is_group else "vo"
            charts.append(
                chart(
                    f"{name}-{kind}-{node.name}",
                    "line",
                    f"{title}: {'group' if node.is_group else 'VO'} {node.name}, share of the "
                    "grid vs its policy",
                    x="time (s)",
                    y="share of grid CPUs",
                    series=_consumer_series(
                        node.name,
                        grid_usage[n] / (cpus * step),
                        grid_ea[n] / cpus,
                        model.grid_share(n, "epoch"),
                        model.grid_share(n, "burst"),
                        horizon,
                        step,
                        points,
                    ),
                )
            )
    return charts
