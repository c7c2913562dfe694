"""Experiment kind ``greedy-provisioning``: a workflow provisioned greedily with adaptive-priced
slots versus the same workflow run best effort (thesis ch. 7, Figures 52–56).

Each site replays its trace under conservative backfilling with accurate estimates (thesis
§7.2).  At ``submissions`` instants spread over the traces' common span, for each trade-off
``α`` the workflow is provisioned by Figure 51 (:mod:`scheduler.provisioning.greedy`) in forks
of the sites' simulations, and also run best effort, just in time, exactly as the
``provisioning`` kind does (:mod:`scheduler.provisioning.best_effort`).  The same inputs as
``provisioning``: one trace per site, a workflow (uploaded or generated), sites from the
parameters or the portal's configured sites.

Charts: makespan and allocation cost against α with the best-effort line, means over the
submissions with one standard deviation (Figure 52); each submission's makespans; a Gantt chart
of one plan.  Sweeps over ``tasks`` (Figure 53), ``mean_procs`` (Figure 54), ``load_p``
(Figure 55) and ``num_sites`` (Figure 56) plot the other figures from the summary.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..provisioning.best_effort import run_best_effort
from ..provisioning.greedy import GreedyPlan, greedy_provision
from .base import Preset, chart, register, series, table
from .claims import of
from .provisioning import (
    CTC_PROCS_SWEEP,
    THESIS_LAYERED,
    Provisioning,
    _r,
    versus_best_effort,
)

HOUR = 3600.0
DAY = 86400.0
GANTT_MAX_BARS = 1500
_MOGA_ONLY = {"population", "generations", "sigma_share", "seed_full_plan", "exhaustive_max_slots"}


def _greedy_params():  # type: ignore[no-untyped-def]
    out = []
    for p in Provisioning.params:
        if p.name in _MOGA_ONLY:
            continue
        if p.name == "estimates":  # thesis §7.2: best-effort jobs request their actual runtime
            p = type(p)(**{**p.__dict__, "help": "The thesis assumes accurate estimates (§7.2)."})
        out.append(p)
    return tuple(out)


def _rerun(ch4: str, name: str, title: str, *, minutes: float) -> Preset:
    """Thesis ch. 7 repeats ch. 4's experiments with greedy provisioning: the ``provisioning``
    kind's preset ``ch4`` (its parameters, traces and sweep) as this kind's preset ``name``,
    checked against this kind's claims of that name."""
    given = next(p for p in Provisioning.presets if p.name == ch4)
    return replace(
        given,
        name=name,
        title=title,
        params=dict(given.params),
        minutes=minutes,
        published=of("greedy-provisioning", name),
    )


@register
class GreedyProvisioning(Provisioning):
    name = "greedy-provisioning"
    title = "Greedy provisioning with adaptive prices versus best effort"
    description = (
        "Submits a workflow at many instants of the sites' trace simulations; each time the "
        "tasks, in HEFT order, reserve the slot that best trades cost (n·d·c plus the delay "
        "price f) against finish time at trade-off α, asking every site query (19); the same "
        "workflow also runs best effort through the batch queues."
    )
    reproduces = "thesis ch. 7, Figure 51 and Figures 52–56"
    params = _greedy_params()
    presets = (
        _rerun("thesis-fig13-ctc", "thesis-fig52-ctc",
               "Thesis Figure 52 on CTC-SP2 (430 processors)", minutes=0.5),  # 10 s
        _rerun("thesis-fig13-sdsc", "thesis-fig52-sdsc",
               "Thesis Figure 52 on SDSC-SP2 (128 processors)", minutes=0.5),  # 10 s
        _rerun("thesis-fig14-ctc", "thesis-fig53-ctc",
               "Thesis Figure 53 on CTC-SP2: α = 0 and 1; sweep 'tasks' 100–400",
               minutes=1.0),  # 35 s
        _rerun("thesis-fig14-sdsc", "thesis-fig53-sdsc",
               "Thesis Figure 53 on SDSC-SP2: α = 0 and 1; sweep 'tasks' 100–400",
               minutes=1.0),  # 35 s
        _rerun("thesis-fig15-ctc", "thesis-fig54-ctc",
               "Thesis Figure 54 on CTC-SP2: α = 0 and 1; sweep 'mean_procs' 3–30",
               minutes=0.5),  # 18 s
        # not ch. 4's SDSC-SP2 run (which keeps mean_procs 6 and sweeps 1–9): CTC-SP2's sweep
        Preset("thesis-fig54-sdsc",
               "Thesis Figure 54 on SDSC-SP2: α = 0 and 1; sweep 'mean_procs' 3–30",
               {"procs": "128", "alphas": "0,1", "report_alpha": 1.0, **THESIS_LAYERED},
               traces=("SDSC-SP2",), minutes=0.5,  # 15 s
               published=of("greedy-provisioning", "thesis-fig54-sdsc"), sweep=CTC_PROCS_SWEEP),
        _rerun("thesis-fig16-ctc", "thesis-fig55-ctc",
               "Thesis Figure 55 on CTC-SP2: α = 0.5; sweep 'load_p' 0–0.33", minutes=0.5),  # 16 s
        _rerun("thesis-fig19-multisite", "thesis-fig56-multisite",
               "Thesis Figure 56: six sites from CTC-SP2 (trace 1) and SDSC-SP2 (trace 2); "
               "sweep 'num_sites' 2–6", minutes=0.5),  # 8 s
        Preset("quick", "A quick look: 5 submissions", {"submissions": 5}),
    )  # fmt: skip

    def run(
        self, params: dict[str, Any], inputs: dict[str, list[Any]], seed: int, progress
    ) -> dict[str, Any]:
        alphas, report_alpha, sites, workflow, network, first, times = self._setup(
            params, inputs, seed, progress
        )
        names = [s.name for s in sites]
        K = len(times)
        sims = [s.simulator() for s in sites]
        costs = [s.unit_cost for s in sites]
        subs: list[dict[str, Any]] = []
        keep: tuple[int, GreedyPlan] | None = None
        for k, T in enumerate(times):
            progress(0.03 + 0.9 * k / K, f"submission {k + 1} of {K}")
            for sim in sims:
                sim.run(until=T)
            plans = {
                a: greedy_provision(sims, workflow, submit=T, alpha=a, sites=names,
                                    network=network, unit_costs=costs)
                for a in alphas
            }  # fmt: skip
            be = run_best_effort(sims, workflow, submit=T, sites=names, network=network)
            subs.append({"time": T, "plans": plans, "be_makespan": be.makespan,
                         "be_cost": be.allocation_cost})  # fmt: skip
            if keep is None:
                keep = (k, plans[report_alpha])
        progress(0.95, "charts")
        return self._greedy_report(params, sites, workflow, alphas, report_alpha, subs, keep,
                                   first)  # fmt: skip

    def _greedy_report(self, params, sites, workflow, alphas, report_alpha, subs, keep, origin):  # type: ignore[no-untyped-def]
        vs = versus_best_effort(
            subs, alphas, report_alpha,
            lambda s, a: (s["plans"][a].allocation_cost, s["plans"][a].makespan),
            delay_of=lambda s, a: s["plans"][a].delay_cost,
            what="greedy-provisioned", figure="52", origin=origin,
        )  # fmt: skip
        summary, labels = self._opening(sites, subs, workflow, vs)
        for r, site in enumerate(sites, start=1):
            summary[f"site{r}_offered_load"] = _r(site.offered_load)
            labels[f"site{r}_offered_load"] = f"{site.name}: offered load"
        charts = vs.charts
        if keep is not None:
            k, plan = keep
            T = subs[k]["time"]
            names = [s.name for s in sites]
            bars = [
                [_r((p.start - T) / HOUR, 4), _r((p.finish - T) / HOUR, 4),
                 f"{names[p.site]} · {p.procs} p" if len(sites) > 1 else f"{p.procs} p"]
                for p in plan.placements[:GANTT_MAX_BARS]
            ]  # fmt: skip
            charts.append(chart(
                "plan-gantt", "gantt",
                f"Reserved slots of submission {k + 1} (α = {report_alpha:g}), by task size",
                x="hours after submission", y="site · processors",
                series=[series("reserved slot", bars)],
            ))  # fmt: skip
        columns = [
            "α", "makespan (h)", "makespan std (h)", "cost (SU)", "cost std (SU)",
            "delay price Σf (SU)", "makespan / best effort", "cost / best effort",
            "makespan ≤ best effort",
        ]  # fmt: skip
        sub_rows = [
            [k + 1, _r((s["time"] - origin) / DAY, 3), _r(s["be_makespan"] / HOUR, 3),
             _r(s["plans"][report_alpha].makespan / HOUR, 3), _r(s["be_cost"], 2),
             _r(s["plans"][report_alpha].allocation_cost, 2)]
            for k, s in enumerate(subs)
        ]  # fmt: skip
        return {
            "summary": summary,
            "summary_labels": labels,
            # Key results: makespan and cost, best effort vs provisioned at the
            # headline α, and their ratios
            "key": vs.key,
            "tables": [
                table("per-alpha", "Greedy-provisioned versus best effort per α", columns, vs.rows),
                table("per-submission", "Each submission", [
                    "submission", "day", "best-effort makespan (h)",
                    f"provisioned makespan (h), α = {report_alpha:g}", "best-effort cost (SU)",
                    "provisioned cost (SU)"], sub_rows),
            ],
            "charts": charts,
        }  # fmt: skip
