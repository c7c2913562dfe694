"""Experiment kind ``virtual-reservations``: VAR vs adaptive reservations vs both combined
(thesis ch. 6, Figures 36, 38–49).

Once a day, at a fixed hour, for each request ``(n, D, start in h)`` (thesis: 32/64 nodes ×
1/4 h × 1/4/8 h, 12 requests, 30 days) against a site replaying its trace under its policy:

* **VAR** (Figure 33) — a QBETS-like predictor fed with the waits of the jobs started so far
  picks the submission time of highest probability; the padded job really queues (in a fork
  of the site); success iff it starts by S, cost the idle holding (S − T_start)·n;
* **adaptive** (ch. 5) — the slot at exactly S priced by Figure 22; it fails when it cannot be
  granted (conflicts with running jobs or reservations), as in thesis §6.3.1;
* **combined** (Figure 45, penalty p) — both, cancelling the costlier one.

Costs are normalised by the base charge n·D and averaged over the successful cases (a failed
request has no cost, thesis §6.1.1).  "% cheaper" counts, among the cases where VAR and the
adaptive reservation both succeeded, those where each was strictly cheaper (the rest: equal).
``days = 0`` runs every day of the whole trace, beyond the thesis's 30 days.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from ..bounds import MAX_HOURS, MAX_PROCS
from ..cluster import policy_choices, prepare_jobs
from ..reservations.combined import PENALTY
from ..reservations.predictor import WaitPredictor
from ..reservations.study import HOUR, Case, Request, StudyRun, issue_times, run_study
from ._facts import check_estimates, check_trace_facts
from .base import ExperimentKind, InputSpec, Preset, chart, register, result, series, table
from .claims import of
from .schema import USER_POLICY_HELP, Param, ParamError
from .schema import number_list as bounded_list

DAY = 86400
ARMS = ("var", "adaptive", "combined")
ARM_LABEL = {"var": "VAR", "adaptive": "Adaptive (AR)", "combined": "Combined"}


def number_list(text: str, field: str, *, integer: bool = False, positive: bool = True) -> list:
    """Comma-separated numbers (distinct, in the order given), within the physical bounds
    (processors for ``sizes``, 100 years in hours otherwise); at most 100 of them."""
    hi = MAX_PROCS if field == "sizes" else MAX_HOURS
    values = [float(v) for v in bounded_list(str(text), field, lo=0, hi=hi, max_items=100)]
    if not values or any(not math.isfinite(v) for v in values):
        raise ParamError({field: f"give comma-separated numbers, not {text[:40]!r}"})
    if positive and any(v <= 0 for v in values):
        raise ParamError({field: f"every value must be > 0; got {text[:40]!r}"})
    if integer:
        if any(not v.is_integer() for v in values):
            raise ParamError({field: f"give whole numbers; got {text[:40]!r}"})
        values = [int(v) for v in values]
    if field in SECONDS_AT_LEAST:  # hours run in whole seconds: a value must be >= 1 s
        short = next((v for v in values if round(v * HOUR) < 1), None)
        if short is not None:
            raise ParamError({field: f"{SECONDS_AT_LEAST[field]} must be at least 1 s "
                                     f"({1 / HOUR:.6f} h); got {short:g} h"})  # fmt: skip
    return list(dict.fromkeys(values))


#: The hour lists whose values the run rounds to whole seconds, and what they are.
SECONDS_AT_LEAST = {"durations_h": "a duration", "offsets_h": "a start after the request"}


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _short(r: Request) -> str:
    return f"{r.procs}n {r.duration / HOUR:g}h +{r.offset / HOUR:g}h"


def _arm(case: Case, arm: str):  # type: ignore[no-untyped-def]
    return getattr(case, arm)


@register
class VirtualReservations(ExperimentKind):
    def check_facts(self, params: dict[str, Any], facts: dict[str, list[dict[str, Any]]]) -> None:
        """A warm-up as long as the trace leaves no day to issue requests on (the run's own
        refusal, from the trace's summary at submit)."""
        for t in facts.get("traces", [])[:1]:
            # no machine size, no job that fits, sizes wider than the machine,
            # "requested" estimates without requested times
            check_trace_facts(t, params["procs"], estimates=params["estimates"])
            machine = params["procs"] or t.get("machine_procs") or 0
            too_big = [n for n in number_list(params["sizes"], "sizes", integer=True)
                       if machine and n > machine]  # fmt: skip
            if too_big:
                raise ParamError({"sizes": f"{too_big[0]} processors exceed the site's {machine}"})
            if (
                "first_submit" in t
                and params["warmup_days"] * 86400 > t["last_end"] - t["first_submit"]
            ):
                raise ParamError({
                    "warmup_days": f"the trace spans {t['span_days']:g} days: no day is left "
                    f"after a {params['warmup_days']:g}-day warm-up"
                })  # fmt: skip

    name = "virtual-reservations"
    title = "Virtual advance reservations (VAR) vs adaptive reservations, and both combined"
    description = (
        "Each day a user asks for n processors at a start a few hours ahead. VAR submits a "
        "padded job to the best-effort queue at the time a QBETS-like wait predictor rates "
        "best; the adaptive arm buys the slot at its adaptive price; the combined scheme does "
        "both and cancels the costlier. Compares normalised cost, success rate and how often "
        "each is cheaper, per request type."
    )
    reproduces = "thesis ch. 6, Figures 36, 38–49"
    params = (
        Param("procs", "int", 0, min=0, max=10_000_000, label="machine processors",
              help="0 takes MaxProcs from the trace header (CTC-SP2: 338 batch, the thesis's "
              "ch. 5 used 430; SDSC-SP2 128)."),
        Param("policy", "choice", "conservative",
              choices=tuple(
                  t for t, _ in policy_choices((2, 4, 8), quotable=True, backfilling=True)
              ),
              label="site policy π", help="The thesis assumed conservative backfilling (§6.2); "
              "backfill-k=K: the first K queued jobs hold reservations. " + USER_POLICY_HELP,
              user_policy=True),
        Param("estimates", "choice", "requested", choices=("requested", "accurate"),
              label="runtime estimates",
              help="requested: plan with SWF field 9; accurate: with the actual runtimes."),
        Param("days", "int", 30, min=0, max=100_000, label="days of requests",
              help="Issue the requests once a day for this many days (thesis: 30); 0 = every "
              "day of the whole trace."),
        Param("warmup_days", "float", 7.0, min=0.0, max=10_000, label="warm-up (days)",
              help="Days of history the predictor gathers before the first request."),
        Param("issue_hour", "float", 12.0, min=0.0, max=23.99, label="issue hour of day",
              help="Hour of the day the requests are made (UTC of the trace's UnixStartTime; "
              "hours after the first submission's midnight when the header has none)."),
        Param("issue_jitter_h", "float", 0.0, min=0.0, max=24.0, label="issue jitter (h)",
              help="Each day's issue instant moves by a seeded random [0, jitter) hours."),
        Param("sizes", "str", "32,64", label="request sizes (processors)",
              help="Comma-separated node counts (thesis: 32, 64).",
              parse=lambda t: number_list(t, "sizes", integer=True)),
        Param("durations_h", "str", "1,4", label="durations D (h)",
              help="Comma-separated reservation durations in hours (thesis: 1, 4).",
              parse=lambda t: number_list(t, "durations_h")),
        Param("offsets_h", "str", "1,4,8", label="starts S (h from the request)",
              help="Comma-separated start offsets in hours, > 0 (thesis: 1, 4, 8).",
              parse=lambda t: number_list(t, "offsets_h")),
        Param("penalty", "float", PENALTY, min=0.0, max=1.0, label="penalty factor p",
              help="Cancelling an adaptive reservation costs p·f (Figure 45; thesis 0.1)."),
        Param("combined_mode", "choice", "replay", choices=("replay", "live"),
              label="combined scheme",
              help="replay: combine the two arms' outcomes, as the thesis did (§6.4); live: "
              "the VAR job queues beside the granted reservation."),
        Param("confidence", "float", 0.95, min=0.5, max=0.999, label="confidence C",
              help="Confidence of the binomial quantile bounds (QBETS: 0.95)."),
        Param("quantile", "float", 0.95, min=0.5, max=0.999, label="change-point quantile q",
              help="The quantile whose bound a wait must exceed to count as a miss."),
        Param("change_run", "int", 3, min=0, max=1000, label="misses marking a change",
              help="Consecutive misses that trim a class's history (0: never trim)."),
        Param("step_s", "int", 30, min=1, max=3600, label="VAR step (s)",
              help="Time between candidate submission times (Figure 33: 30 s)."),
    )  # fmt: skip
    inputs = (InputSpec("traces", "trace", 1, 1, "the site's SWF trace"),)
    presets = (
        Preset("thesis-fig38-40-32nodes",
               "Thesis Figures 38–40: VAR vs adaptive, 32-node requests, 30 days",
               {"sizes": "32"}, traces=("CTC-SP2",), minutes=0.1,
               published=of("virtual-reservations", "thesis-fig38-40-32nodes")),
        Preset("thesis-fig41-44-64nodes",
               "Thesis Figures 41–44: VAR vs adaptive, 64-node requests, 30 days",
               {"sizes": "64"}, traces=("CTC-SP2",), minutes=0.1,
               published=of("virtual-reservations", "thesis-fig41-44-64nodes")),
        Preset("thesis-fig46-47-combined-32",
               "Thesis Figures 46–47: the combined scheme (p = 0.1), 32-node requests",
               {"sizes": "32", "penalty": 0.1, "combined_mode": "replay"},
               traces=("CTC-SP2",), minutes=0.1,
               published=of("virtual-reservations", "thesis-fig46-47-combined-32")),
        Preset("thesis-fig48-49-combined-64",
               "Thesis Figures 48–49: the combined scheme (p = 0.1), 64-node requests",
               {"sizes": "64", "penalty": 0.1, "combined_mode": "replay"},
               traces=("CTC-SP2",), minutes=0.1,
               published=of("virtual-reservations", "thesis-fig48-49-combined-64")),
        Preset("thesis-all-12-requests", "All 12 requests of thesis §6.2, 30 days", {},
               traces=("CTC-SP2",), minutes=0.1,
               published=of("virtual-reservations", "thesis-all-12-requests")),
        Preset("whole-trace-ctc-430", "Beyond the thesis: every day of CTC-SP2 (430 processors)",
               {"procs": 430, "days": 0}),
        Preset("whole-trace-sdsc", "Beyond the thesis: every day of SDSC-SP2 (128 processors)",
               {"procs": 128, "days": 0}),
        Preset("whole-trace-live", "Every day of the trace, combined scheme run live",
               {"days": 0, "combined_mode": "live"}),
    )  # fmt: skip

    # ------------------------------------------------------------------ run

    def run(
        self, params: dict[str, Any], inputs: dict[str, list[Any]], seed: int, progress
    ) -> dict[str, Any]:
        trace = inputs["traces"][0]
        procs = params["procs"] or trace.machine_procs
        if not procs:
            raise ParamError({"procs": "the trace header has no MaxProcs: give the processors"})
        sizes = number_list(params["sizes"], "sizes", integer=True)
        durations = number_list(params["durations_h"], "durations_h")
        offsets = number_list(params["offsets_h"], "offsets_h")
        too_big = [n for n in sizes if n > procs]
        if too_big:
            raise ParamError({
                "sizes": f"{too_big[0]} processors exceed the site's {procs}"
            })  # fmt: skip
        check_estimates(params["estimates"], trace.jobs)
        progress(0.01, "preparing the workload")
        jobs, dropped = prepare_jobs(trace.jobs, procs, params["estimates"])
        if not jobs:
            raise ParamError({"procs": f"no job of the trace fits {procs} processors"})
        requests = [
            Request(n, round(d * HOUR), round(o * HOUR))
            for n in sizes
            for d in durations
            for o in offsets
        ]
        horizon = max(r.offset for r in requests)
        unix = trace.header.unix_start_time
        first = jobs[0].submit
        midnight = first - ((unix or 0) + first) % DAY if unix is not None else first
        issues = issue_times(
            jobs, days=params["days"], warmup_days=params["warmup_days"],
            hour=params["issue_hour"], horizon=horizon, midnight=midnight,
            jitter_h=params["issue_jitter_h"], seed=seed,
        )  # fmt: skip
        if not issues:
            span = (jobs[-1].submit - first) / DAY
            raise ParamError({
                "warmup_days": f"the trace's submissions span {span:.1f} days: no day after "
                f"a {params['warmup_days']:g}-day warm-up leaves {horizon / HOUR:g} h for the "
                "latest request"
            })  # fmt: skip
        try:
            predictor = WaitPredictor(
                quantile=params["quantile"], confidence=params["confidence"],
                change_run=params["change_run"],
            )  # fmt: skip
        except ValueError as exc:
            raise ParamError({"quantile": str(exc)}) from None
        curve_offset = 4 * HOUR if 4 * HOUR in {r.offset for r in requests} else horizon

        def report(f: float, msg: str) -> None:
            progress(0.02 + 0.95 * f, msg)

        run = run_study(
            jobs, procs, params["policy"], requests, issues, predictor=predictor,
            penalty=params["penalty"], combined_mode=params["combined_mode"],
            step=params["step_s"], curve_offset=curve_offset, progress=report,
        )  # fmt: skip
        progress(0.98, "charts")
        return self._report(run, requests, procs, len(jobs), dropped, issues, first)

    # ------------------------------------------------------------------ results

    def _report(self, run: StudyRun, requests, procs, njobs, dropped, issues, first):  # type: ignore[no-untyped-def]
        by_req: dict[Request, list[Case]] = defaultdict(list)
        for c in run.cases:
            by_req[c.request].append(c)
        rows = []
        cost_pts: dict[str, list] = {a: [] for a in ARMS}
        succ_pts: dict[str, list] = {a: [] for a in ARMS}
        cheap_pts: dict[str, list] = {"var": [], "adaptive": [], "equal": []}
        for r in requests:
            cs = by_req[r]
            st = _stats(cs)
            name = _short(r)
            for a in ARMS:
                cost_pts[a].append([name, _r(st[f"{a}_cost"], 3)])
                succ_pts[a].append([name, _r(st[f"{a}_success"], 2)])
            for k in cheap_pts:
                cheap_pts[k].append([name, _r(st[f"{k}_cheaper"], 2)])
            rows.append([
                r.procs, r.duration / HOUR, r.offset / HOUR, len(cs),
                *(_r(st[f"{a}_success"], 2) for a in ARMS),
                *(_r(st[f"{a}_cost"], 4) for a in ARMS),
                _r(st["var_cheaper"], 2), _r(st["adaptive_cheaper"], 2), _r(st["equal_cheaper"], 2),
                _r(st["var_prob"], 3),
            ])  # fmt: skip
        total = _stats(run.cases)
        summary: dict[str, Any] = {
            "cases": len(run.cases),
            "days": len(issues),
            "first_day": _r((issues[0] - first) / DAY, 3) if issues else None,
            "processors": procs,
            "jobs": njobs,
            "dropped_jobs": sum(dropped.values()),
            "change_points": run.change_points,
        }
        labels = {
            "cases": "requests answered (days × request types)",
            "days": "days with requests",
            "first_day": "first request (days after the first submission)",
            "processors": "processors",
            "jobs": "jobs simulated",
            "dropped_jobs": "jobs dropped (no runtime, no processors or too large)",
            "change_points": "change points the predictor detected",
        }
        for a in ARMS:
            summary[f"{a}_success_pct"] = _r(total[f"{a}_success"], 2)
            summary[f"{a}_cost"] = _r(total[f"{a}_cost"], 4)
            labels[f"{a}_success_pct"] = f"{ARM_LABEL[a]}: success rate (%)"
            labels[f"{a}_cost"] = f"{ARM_LABEL[a]}: mean normalised cost (successes)"
        for k, lab in (("var", "VAR"), ("adaptive", "adaptive"), ("equal", "equal")):
            summary[f"{k}_cheaper_pct"] = _r(total[f"{k}_cheaper"], 2)
            labels[f"{k}_cheaper_pct"] = (
                f"% of cases (both succeeded) where {lab} was cheaper"
                if k != "equal"
                else "% of cases (both succeeded) where both cost the same"
            )
        summary["var_mean_prob"] = _r(total["var_prob"], 4)
        labels["var_mean_prob"] = "VAR: mean predicted probability of the chosen submission"
        charts = [
            chart("cost", "bar",
                  "Allocation cost normalised by n·D (thesis Figures 38, 41, 46, 48)",
                  x="request (nodes, duration, start)", y="mean normalised cost (successes)",
                  series=[series(ARM_LABEL[a], cost_pts[a]) for a in ARMS]),
            chart("success", "bar", "Success rate (thesis Figures 39, 43, 47, 49)",
                  x="request (nodes, duration, start)", y="success (%)",
                  series=[series(ARM_LABEL[a], succ_pts[a]) for a in ARMS]),
            chart("cheaper", "bar",
                  "Cases where each was cheaper, of those both succeeded (thesis Figs 40, 44)",
                  x="request (nodes, duration, start)", y="% of cases",
                  series=[series("VAR cheaper", cheap_pts["var"]),
                          series("Adaptive cheaper", cheap_pts["adaptive"]),
                          series("Equal", cheap_pts["equal"])]),
        ]  # fmt: skip
        if run.curves:
            charts.append(
                chart("var-probability", "line",
                      "VAR: probability of starting by S per submission time, first day "
                      "(thesis Figure 36)",
                      x="submission time (minutes from the request)", y="probability",
                      series=[series(_short(r), [[round(dt / 60, 2), p]
                                                 for dt, p in zip(*run.curves[r], strict=True)])
                              for r in requests if r in run.curves]))  # fmt: skip
        case_rows = [
            [c.day, _r((c.issue - first) / DAY, 3), _short(c.request),
             _r((c.var.plan.submit - c.issue) / 60, 2), _r(c.var.plan.prob, 3),
             _r((c.request.offset - (c.var.started - c.issue)) / 60, 2)
             if c.var.started is not None else None,
             _r(c.normalised(c.var.cost), 4), _r(c.normalised(c.adaptive.cost), 4),
             c.combined.choice, _r(c.normalised(c.combined.cost), 4), c.queued]
            for c in run.cases[:600]
        ]  # fmt: skip
        columns = [
            "nodes", "D (h)", "start (h)", "cases",
            "VAR success %", "AR success %", "combined success %",
            "VAR cost", "AR cost", "combined cost",
            "VAR cheaper %", "AR cheaper %", "equal %", "VAR mean probability",
        ]  # fmt: skip
        # Key results: success rate and normalised cost of VAR, adaptive and
        # combined (a cost is absent when an arm never succeeded)
        key = [f"{a}_success_pct" for a in ARMS] + [f"{a}_cost" for a in ARMS]
        tables = [
            table("per-request", "Per request type (costs normalised by n·D, successes)",
                  columns, rows),
            table("cases", "The first cases",
                  ["day", "issued (days)", "request", "VAR submit (min after request)",
                   "VAR probability", "VAR idle before S (min)", "VAR cost", "AR cost",
                   "combined uses", "combined cost", "queued jobs"], case_rows),
        ]  # fmt: skip
        return result(summary, labels, key + ["var_cheaper_pct"], tables, charts)


def _stats(cases: list[Case]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    n = len(cases)
    for a in ARMS:
        outs = [_arm(c, a) for c in cases]
        out[f"{a}_success"] = 100.0 * sum(o.success for o in outs) / n if n else None
        out[f"{a}_cost"] = _mean(
            [c.normalised(_arm(c, a).cost) for c in cases if _arm(c, a).success]
        )
    both = [c for c in cases if c.var.success and c.adaptive.success]
    m = len(both)
    var_c = sum(1 for c in both if c.var.cost < c.adaptive.cost)
    ad_c = sum(1 for c in both if c.adaptive.cost < c.var.cost)
    out["var_cheaper"] = 100.0 * var_c / m if m else None
    out["adaptive_cheaper"] = 100.0 * ad_c / m if m else None
    out["equal_cheaper"] = 100.0 * (m - var_c - ad_c) / m if m else None
    out["var_prob"] = _mean([c.var.plan.prob for c in cases])
    return out
