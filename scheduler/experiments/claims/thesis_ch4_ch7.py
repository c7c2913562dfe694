"""Singh 2008 (thesis), ch. 4 (provisioning with MOGA, Figures 13–19) and ch. 7 (greedy
provisioning with adaptive pricing, Figures 52–56)."""

from __future__ import annotations

from ._base import claim as _c

ALL_ALPHAS = (
    "For both the SDSC and CTC clusters, the provisioned makespan is lower than the best "
    "effort makespan for all values of α"
)
GENERATED = (
    "model choice: the thesis's generated workflows (Figure 12) are given by level count, task "
    "count and mean size only; ours are drawn from those figures with the run's seed"
)
EQ20 = (
    "eq. 20 at α = 1 weighs only the additional price f, the greedy algorithm (Figure 51) then "
    "picks slots with f = 0, which cost what best effort costs"
)


def _makespans(where: str) -> object:
    return _c(where=where, metric="makespan-vs-alpha/Provisioned", quote=ALL_ALPHAS,
              shape="<", than="makespan-vs-alpha/Best effort", cause=GENERATED)  # fmt: skip


def _ch7_makespans(where: str) -> object:
    return _c(where=where, metric="makespan-vs-alpha/Provisioned",
              quote="When the tradeoff factor α = 1 is used, the makespan is less than the best "
              "effort makespan", shape="<", than="makespan-vs-alpha/Best effort",
              cause=GENERATED)  # fmt: skip


def _all_sizes(where: str) -> object:
    """Figure 53's "for all workflow sizes": the per-α makespans below best effort's, at every
    size of the sweep."""
    return _c(where=where, metric="makespan-vs-alpha/Provisioned", quote=FIG53_ALL, shape="<",
              than="makespan-vs-alpha/Best effort", cause=GENERATED)  # fmt: skip


def _ch7_cost_at_1(where: str) -> object:
    return _c(where=where, metric="prov_cost_su_a100",
              quote="the allocation cost is the same as the best effort allocation cost",
              shape="~=", than="be_cost_su", tolerance=1e-6, relative=True,
              tolerance_why="'the same': equal up to rounding", by_construction=EQ20)  # fmt: skip


FIG13_COST = dict(
    where="thesis §4.7, Figure 13",
    metric="prov_cost_su_a100",
    quote="at a cost of slightly increased allocation cost",
    shape=">=",
    than="be_cost_su",
    by_construction="a plan's slots hold its tasks' processor-time at the same unit price, "
    "so their allocation cost is at least the tasks' own n·d·c, best effort's cost",
)
FIG15_COST = dict(
    where="thesis §4.7, Figure 15",
    metric="prov_cost_su_a100",
    quote="the provisioned allocation cost varies from being 1.5 ( α=0) to 1 ( α=1) times the "
    "best effort allocation cost",
    shape="~=",
    than="be_cost_su",
    tolerance=0.005,
    relative=True,
    tolerance_why="printed as exactly 1 (× best effort); 0.5 % for rounding",
    cause="model choice: MOGA (§4.5) searches plans heuristically; at α = 1 it may keep a "
    "plan slightly dearer than best effort's",
)
FIG16 = (
    "Generally, the provisioned makespan becomes smaller as compared to best effort as the "
    "resource utilization … increases"
)
# Figures 14–16 and 53–55 are curves: their presets run the figure's sweep (base.Sweep) and
# "sweep/<key>" reads a summary number across its points.
RATIO_TOL = 0.05
RATIO_WHY = (
    "a ratio of two means over the thesis's submissions, printed to 2–3 decimals; ± 0.05 for "
    "the instants sampled and the generated workflow"
)
COST_TOL = 0.1
COST_WHY = (
    "a ratio of mean allocation costs printed to 1–4 digits; ± 10 % of it for the instants "
    "sampled and the generated workflow (the cost depends on the workload at each instant)"
)
TREND = (
    "model choice: the generated workflows and the submission instants are drawn with the "
    "run's seed, so each point is one sample of 50 submissions; the thesis shows one curve"
)
SIZE_UP = (
    "The figure shows that the application performance in terms of makespan improves with "
    "provisioning as compared to best effort as the workflow size increases"
)
SIZE_COST = (
    "The allocation cost of the … provisioned approach is not significantly impacted and in "
    "fact decreases in comparison to the best effort allocation cost with increase in "
    "workflow size"
)
FIG15_TREND = (
    "For both the clusters, as the task size increases, the application makespan of the "
    "provisioned approach relative to the best effort improves"
)
FIG15_COST_TREND = (
    "As the task size increase, the overhead of the allocation … cost of the provisioned "
    "approach decreases"
)
FIG15_CTC = (
    "For the CTC cluster, when the average task size is 3, the provisioned makespan varies from "
    "being 0.87 ( α=0) to 0.92 ( α=1) times the best effort makespan"
)
FIG15_CTC_COST = (
    "the provisioned allocation cost varies from being 1.5 ( α=0) to 1 ( α=1) times the best "
    "effort allocation cost"
)
FIG15_CTC_30 = (
    "When the average task size increases to 30, the makespan varies from being 0.577 to 0.585 "
    "times and the provisioned allocation cost varies from being 1.003 to 1 times"
)
FIG53_ALL = "makespan is better than best effort for all workflow sizes"
FIG53_SDSC = (
    "The reduction in makespan actually increases with the workflow size in case of the SDSC "
    "cluster"
)
FIG54_A0 = (
    "when the trade-off factor of 0 was used for the CTC cluster with an average of 3 "
    "processors per task in the application, the provisioned makespan was 0.85 times the best "
    "effort makespan and the provisioned allocation cost was 2.2 times the best effort "
    "allocation cost"
)
FIG54_A1 = (
    "When the trade-off factor was 1, … the provisioned makespan was 0.89 times the best "
    "effort makespan"
)
FIG54_SDSC = (
    "to being 2 times the cost in the CTC cluster and about 6 times the cost in the SDSC "
    "cluster for application with small sized tasks"
)
FIG54_TREND = (
    "As the average task size … increases, both the provisioned makespan and allocation cost "
    "improve as compared to best effort"
)
FIG55 = (
    "Generally, the provisioned makespan becomes smaller as compared to the best effort as the "
    "resource utilization increases and/or the task sizes increase"
)


def _trend(where: str, metric: str, quote: str, shape: str = "decreasing") -> object:
    """A trend along a figure's sweep: ``metric`` read at every point of the curve."""
    return _c(where=where, metric=f"sweep/{metric}", quote=quote, shape=shape, cause=TREND)


def _at(where: str, metric: str, quote: str, points: tuple, cost: bool = False) -> object:
    """Published ratios at points of a figure's sweep (x = the swept parameter)."""
    tol = (
        dict(tolerance=COST_TOL, relative=True, tolerance_why=COST_WHY)
        if cost
        else dict(tolerance=RATIO_TOL, tolerance_why=RATIO_WHY)
    )
    return _c(where=where, metric=f"sweep/{metric}", quote=quote, points=points, cause=TREND,
              **tol)  # fmt: skip


CYBERSHAKE = (
    "model choice: the CyberShake workflow is rebuilt from Table 2 (every task its module's mean "
    "runtime and processors) and Figure 17's five levels; the thesis's per-task runtimes from "
    "the HPCC provenance records are not given (on one cluster no data moves)"
)
#: Measured: best-effort-only runs at the preset's instants (9 s CPU per 10) and the
#: preset on 338 processors (155 s CPU); see tests/scheduler/test_fig18_cybershake.py.
FIG18_BE_CAUSE = (
    "trace version or an unstated set-up (missing data in the seed), not a departure from "
    "§4.7–4.8 that we found: our queue at 430 processors is shorter. Ours is "
    "48.6 h of run time on the critical path (2 × 288 > 430 processors, so the two SGT tasks run "
    "one after the other: 50.0 h on an idle machine) plus, over the 10 submissions, 9.0 h of "
    "wait before fd_grid_cvm, 9.4 h before pmvl_chk1 and 21.2 h for the 4017 synthSGT tasks, "
    "which queue behind the backlog the trace built while the SGT tasks held 288 processors "
    "(the plan ends 33.1 h ahead when they are submitted, 15.2 h without the workflow). The "
    "thesis's provisioned makespan, 0.77 × 132.45 = 102 h, is 43 h above ours (59 h) too. Not "
    "sampling (50 instants: 84.2 h, 100 over the whole span: 79.7 h, none above 131 h), "
    "runtime spread (± 50 %: 81.7 h) or estimates (requested: 75.7 h). A busier machine gives "
    "132 h (135.3 h at 86 % offered, load_p 0.33; 131.8 h on 338 processors, 84 %) but not the "
    "thesis's provisioned side (72 h there, ratio 0.54 vs 0.77); the thesis's CTC has 430 "
    "processors at 63 % (the cleaned log offers 66 %)"
)

FIG19_CAUSE = (
    "model choice and sampling: §4.9 runs the six sites at 88, 84, 76, 78, 63 and 70 %; the "
    "cleaned SDSC log alone offers 83 % and §4.7's method only adds load, so our three SDSC "
    "sites are one simulation at 83 %. That is not the gap: decorrelated SDSC copies give 0.20, "
    "SDSC sites at 83/78/70 % (128/137/153 processors, a diagnostic only) 0.24. The ratio of "
    "means is ruled by a few submissions where best-effort tasks wait 11–22 h (best effort "
    "4.1–52.3 h per submission, provisioned 3.6–5.6 h): other instants give 0.28 (40 "
    "submissions) and 0.34 (the whole span), other seeds 0.21–0.24; the thesis names neither "
    "its instants nor their spread"
)
FIG19_2_CAUSE = (
    "sampling: over the 10 submissions best effort takes 6.2–132.4 h (std 35.8 h) and "
    "provisioning 3.6–29.1 h; the thesis names neither its instants nor their spread (its SDSC "
    "site runs at 84 %, ours at the log's 83 %)"
)


F14, F15, F16 = "thesis §4.7, Figure 14", "thesis §4.7, Figure 15", "thesis §4.7, Figure 16"
F53, F54, F55 = "thesis §7.2, Figure 53", "thesis §7.2, Figure 54", "thesis §7.2, Figure 55"
#: Figure 15's α = 1 cost, 1 × best effort at both printed sizes (MOGA, not by construction).
FIG15_COST_A1 = dict(FIG15_COST, metric="sweep/cost_ratio_a100", shape="", than=None,
                     points=((3, 1.0),))  # fmt: skip
FIG15_COST_A1_30 = dict(FIG15_COST_A1, quote=FIG15_CTC_30, points=((30, 1.0),))


def _size_trends(where: str) -> tuple:
    return (_trend(where, "makespan_ratio_a0", SIZE_UP),
            _trend(where, "makespan_ratio_a100", SIZE_UP),
            _trend(where, "cost_ratio_a0", SIZE_COST))  # fmt: skip


def _task_trends(where: str) -> tuple:
    return (_trend(where, "makespan_ratio_a0", FIG15_TREND),
            _trend(where, "makespan_ratio_a100", FIG15_TREND),
            _trend(where, "cost_ratio_a0", FIG15_COST_TREND))  # fmt: skip


CLAIMS = {
    "provisioning/thesis-fig13-ctc": (_makespans("thesis §4.7, Figure 13"), _c(**FIG13_COST)),
    "provisioning/thesis-fig13-sdsc": (_makespans("thesis §4.7, Figure 13"), _c(**FIG13_COST)),
    # Figure 13's "lower than best effort for all values of α" is printed for Figure 13 only:
    # Figures 14-15 state trends along their sweeps (and Figure 14's own point is Figure 13's
    # run), so it is not declared for them
    "provisioning/thesis-fig14-ctc": _size_trends(F14),
    "provisioning/thesis-fig14-sdsc": _size_trends(F14),
    "provisioning/thesis-fig15-ctc": (
        *_task_trends(F15),
        # one claim per printed number: task size 3 (first sentence) and 30 (second)
        _at(F15, "makespan_ratio_a0", FIG15_CTC, ((3, 0.87),)),
        _at(F15, "makespan_ratio_a100", FIG15_CTC, ((3, 0.92),)),
        _at(F15, "cost_ratio_a0", FIG15_CTC_COST, ((3, 1.5),), cost=True),
        _at(F15, "makespan_ratio_a0", FIG15_CTC_30, ((30, 0.577),)),
        _at(F15, "makespan_ratio_a100", FIG15_CTC_30, ((30, 0.585),)),
        _at(F15, "cost_ratio_a0", FIG15_CTC_30, ((30, 1.003),), cost=True),
        _c(**FIG15_COST_A1),
        _c(**FIG15_COST_A1_30),
    ),
    "provisioning/thesis-fig15-sdsc": _task_trends(F15),
    "provisioning/thesis-fig16-ctc": (
        _trend(F16, "makespan_ratio", FIG16),
    ),
    "provisioning/thesis-fig16-sdsc": (
        _trend(F16, "makespan_ratio", FIG16),
    ),
    "provisioning/thesis-fig18-cybershake": (
        _c(where="thesis §4.8, Figure 18", metric="makespan_ratio",
           quote="The provisioned makespan at this utilization level is 23% lower than the best "
           "effort value", value=0.77, tolerance=0.1, shape="<", than=1.0,
           tolerance_why="a percentage printed in the text; ± 0.1 for 10 submissions' spread",
           cause=CYBERSHAKE),
        _c(where="thesis §4.8, Figure 18", metric="be_makespan_h",
           quote="the best effort makespan is 476811 seconds (5.5 days)", value=132.45,
           tolerance=0.25, relative=True,
           tolerance_why="printed exactly; ± 25 % for the rebuilt workflow and trace version",
           cause=FIG18_BE_CAUSE),
    ),
    "provisioning/thesis-fig18-cybershake-88": (
        _c(where="thesis §4.8, Figure 18", metric="makespan_ratio",
           quote="At 88% utilization level, the provisioned makespan is 50% lower than the best "
           "effort makespan", value=0.5, tolerance=0.1, shape="<", than=1.0,
           tolerance_why="a percentage printed in the text; ± 0.1 for 10 submissions' spread",
           cause=CYBERSHAKE),
    ),
    "provisioning/thesis-fig19-multisite": (
        _c(where="thesis §4.9, Figure 19", metric="makespan_ratio",
           quote="increases to about 45% of the best effort makespan when all the 6 resources "
           "are present", value=0.45, tolerance=0.1, shape="<", than=1.0,
           tolerance_why="'about 45 %' read off the text; ± 0.1",
           cause=FIG19_CAUSE),
    ),
    "provisioning/thesis-fig19-2sites": (
        _c(where="thesis §4.9, Figure 19", metric="makespan_ratio",
           quote="The provisioned makespan is about 30% of the best effort makespan when only 2 "
           "highly loaded resources are present", value=0.30, tolerance=0.1, shape="<",
           than=1.0, tolerance_why="'about 30 %' read off the text; ± 0.1",
           cause=FIG19_2_CAUSE),
    ),
    "greedy-provisioning/thesis-fig52-ctc": (
        _ch7_makespans("thesis §7.2, Figure 52"), _ch7_cost_at_1("thesis §7.2, Figure 52")),
    "greedy-provisioning/thesis-fig52-sdsc": (
        _ch7_makespans("thesis §7.2, Figure 52"), _ch7_cost_at_1("thesis §7.2, Figure 52")),
    "greedy-provisioning/thesis-fig53-ctc": (
        _ch7_makespans(F53), _ch7_cost_at_1(F53), _all_sizes(F53)),
    "greedy-provisioning/thesis-fig53-sdsc": (
        _ch7_makespans(F53), _ch7_cost_at_1(F53), _all_sizes(F53),
        _trend(F53, "makespan_ratio_a0", FIG53_SDSC),
        _trend(F53, "makespan_ratio_a100", FIG53_SDSC)),
    "greedy-provisioning/thesis-fig54-ctc": (
        _ch7_makespans(F54), _ch7_cost_at_1(F54),
        _at(F54, "makespan_ratio_a0", FIG54_A0, ((3, 0.85),)),
        _at(F54, "cost_ratio_a0", FIG54_A0, ((3, 2.2),), cost=True),
        _at(F54, "makespan_ratio_a100", FIG54_A1, ((3, 0.89),)),
        _trend(F54, "makespan_ratio_a0", FIG54_TREND), _trend(F54, "cost_ratio_a0", FIG54_TREND),
    ),
    "greedy-provisioning/thesis-fig54-sdsc": (
        _ch7_makespans(F54), _ch7_cost_at_1(F54),
        _c(where=F54, metric="sweep/cost_ratio_a0", quote=FIG54_SDSC, points=((3, 6.0),),
           tolerance=0.2, relative=True, cause=TREND,
           tolerance_why="'about 6 times': ± 20 % of it"),
        _trend(F54, "makespan_ratio_a0", FIG54_TREND), _trend(F54, "cost_ratio_a0", FIG54_TREND),
    ),
    "greedy-provisioning/thesis-fig55-ctc": (
        _c(where=F55, metric="makespan_ratio",
           quote="provisioning is empirically pareto superior to best effort", shape="<",
           than=1.0, cause=GENERATED),
        _c(where=F55, metric="cost_ratio",
           quote="results in an increased allocation cost", shape=">", than=1.0,
           cause=GENERATED),
        _trend(F55, "makespan_ratio", FIG55),
    ),
    "greedy-provisioning/thesis-fig56-multisite": (
        _c(where="thesis §7.3, Figure 56", metric="prov_makespan_h_a50",
           quote="The provisioned makespan is also lower than that of Figure 19",
           shape="<", than="prov_makespan_h_a50", than_run="provisioning/thesis-fig19-multisite",
           cause=GENERATED),
    ),
}  # fmt: skip
