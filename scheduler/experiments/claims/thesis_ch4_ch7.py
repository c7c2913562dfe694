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
    cause=GENERATED,
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


CLAIMS = {
    "provisioning/thesis-fig13-ctc": (_makespans("thesis §4.7, Figure 13"), _c(**FIG13_COST)),
    "provisioning/thesis-fig13-sdsc": (_makespans("thesis §4.7, Figure 13"), _c(**FIG13_COST)),
    "provisioning/thesis-fig14-ctc": (_makespans("thesis §4.7, Figure 14"),),
    "provisioning/thesis-fig14-sdsc": (_makespans("thesis §4.7, Figure 14"),),
    "provisioning/thesis-fig15-ctc": (_makespans("thesis §4.7, Figure 15"), _c(**FIG15_COST)),
    "provisioning/thesis-fig15-sdsc": (_makespans("thesis §4.7, Figure 15"), _c(**FIG15_COST)),
    "provisioning/thesis-fig16-ctc": (
        _c(where="thesis §4.7, Figure 16", metric="makespan_ratio", quote=FIG16, shape="<",
           than=1.0, cause=GENERATED),
    ),
    "provisioning/thesis-fig16-sdsc": (
        _c(where="thesis §4.7, Figure 16", metric="makespan_ratio", quote=FIG16, shape="<",
           than=1.0, cause=GENERATED),
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
        _ch7_makespans("thesis §7.2, Figure 53"), _ch7_cost_at_1("thesis §7.2, Figure 53")),
    "greedy-provisioning/thesis-fig53-sdsc": (
        _ch7_makespans("thesis §7.2, Figure 53"), _ch7_cost_at_1("thesis §7.2, Figure 53")),
    "greedy-provisioning/thesis-fig54-ctc": (
        _ch7_makespans("thesis §7.2, Figure 54"), _ch7_cost_at_1("thesis §7.2, Figure 54")),
    "greedy-provisioning/thesis-fig55-ctc": (
        _c(where="thesis §7.2, Figure 55", metric="makespan_ratio",
           quote="provisioning is empirically pareto superior to best effort", shape="<",
           than=1.0, cause=GENERATED),
        _c(where="thesis §7.2, Figure 55", metric="cost_ratio",
           quote="results in an increased allocation cost", shape=">", than=1.0,
           cause=GENERATED),
    ),
    "greedy-provisioning/thesis-fig56-multisite": (
        _c(where="thesis §7.3, Figure 56", metric="prov_makespan_h_a50",
           quote="The provisioned makespan is also lower than that of Figure 19",
           shape="<", than="prov_makespan_h_a50", than_run="provisioning/thesis-fig19-multisite",
           cause=GENERATED),
    ),
}  # fmt: skip
