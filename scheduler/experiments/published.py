"""Published claims that several presets share (issue 15): builders of
:class:`~scheduler.experiments.base.Expectation` tuples, so each kind's presets stay short.

Every claim quotes the seed; the place is passed in by the preset (which figure it reproduces).
"""

from __future__ import annotations

from .base import Expectation

__all__ = [
    "combined_scheme",
    "makespan_ratio",
    "price_falls_to_0",
    "pricing_claims",
    "provisioned_vs_best_effort",
    "var_vs_adaptive",
]


def var_vs_adaptive(source: str) -> tuple[Expectation, ...]:
    """Thesis ch. 6 (§6.3): VAR is cheaper, adaptive pricing succeeds more often."""
    return (
        Expectation(
            source, "var_cost",
            "the allocation cost of the VAR scheme is less than that of the adaptive pricing "
            "scheme",
            shape="<", than="adaptive_cost",
        ),
        Expectation(
            source, "adaptive_success_pct",
            "the adaptive pricing system has a higher success rate than the probabilistic VAR "
            "system",
            shape=">", than="var_success_pct",
        ),
    )  # fmt: skip


def combined_scheme(source: str) -> tuple[Expectation, ...]:
    """Thesis ch. 6 (§6.4, Figure 45 with p = 0.1): the combined scheme costs less than adaptive
    pricing and succeeds at least as often as either."""
    return (
        Expectation(
            source, "combined_cost",
            "the allocation cost of the combined scheme is significantly less than that of the "
            "adaptive pricing scheme",
            shape="<", than="adaptive_cost",
        ),
        Expectation(
            source, "combined_success_pct",
            "the success rate of the combined scheme is equal to or more than that of VAR",
            shape=">=", than="var_success_pct",
        ),
        Expectation(
            source, "combined_success_pct",
            "... and equal to or more than that of the adaptive pricing scheme",
            shape=">=", than="adaptive_success_pct",
        ),
    )  # fmt: skip


def provisioned_vs_best_effort(
    source: str, *, alphas: bool = True, cost_at_1: float | None = None
) -> tuple[Expectation, ...]:
    """Thesis ch. 4 / ch. 7: the provisioned makespan is below best effort for every α (the
    'makespan-vs-alpha' chart); with ``cost_at_1`` (a relative tolerance), at α = 1 the
    allocation cost is best effort's (``prov_cost_su_a100`` against ``be_cost_su``)."""
    out: list[Expectation] = []
    if alphas:
        out.append(
            Expectation(
                source, "makespan-vs-alpha/Provisioned",
                "the provisioned makespan is lower than the best effort makespan for all "
                "values of α",
                shape="<", than="makespan-vs-alpha/Best effort",
            )
        )  # fmt: skip
    if cost_at_1 is not None:
        out.append(
            Expectation(
                source, "prov_cost_su_a100",
                "when α = 1 the allocation cost is (almost) the same as the best effort's",
                shape="~=", than="be_cost_su", tolerance=cost_at_1, relative=True,
            )
        )  # fmt: skip
    return tuple(out)


def price_falls_to_0(source: str) -> tuple[Expectation, ...]:
    """Thesis ch. 5, Figure 23: the mean price is highest at α = 0 and falls to 0 at α = 1."""
    return (
        Expectation(
            source, "price_su_a100",
            "when the trade-off factor is one, the earliest start with additive price zero is "
            "selected and hence the average price is also zero",
            value=0.0, tolerance=1e-9,
        ),
        Expectation(
            source, "price-vs-alpha/Mean price",
            "α = 0 leads to the highest average price; it falls as α grows",
            shape="non-increasing",
        ),
    )  # fmt: skip


# Seed 003 (Singh, Kesselman, Deelman) ------------------------------------------------------

SEED003_TABLE1 = Expectation(
    "seed 003 §4.2, Table 1", "average-parallelism/clusters per level",
    "average parallelism of the 10-degree Montage clustered with 1 … 512 clusters per level",
    points=(
        (1, 1.0), (2, 1.97), (4, 3.87), (8, 7.42), (16, 13.68), (32, 23.69), (48, 31.22),
        (56, 34.66), (64, 38.36), (128, 54.23), (256, 67.2), (512, 77.34),
    ),
    tolerance=0.25, relative=True,
)  # fmt: skip

SEED003_TABLE2 = Expectation(
    "seed 003 §4.3, Table 2", "average-parallelism/tasks per cluster",
    "average parallelism of the 10-degree Montage clustered with 2 … 4096 tasks per cluster",
    points=(
        (2, 79.2), (4, 67.1), (8, 54.5), (16, 40.0), (32, 26.3), (64, 15.9), (128, 9.69),
        (256, 7.73), (512, 5.47), (1024, 3.46), (2048, 2.01), (4096, 1.25),
    ),
    tolerance=0.25, relative=True,
)  # fmt: skip

SEED003_FIFO_FAIRSHARE_50 = tuple(
    Expectation(
        "seed 003, abstract and §1", f"{policy}_mean_reduction_ar",
        f"in general a 50 % reduction in the workflow completion time ({name}, advance "
        "reservation; mean over the graphs)",
        value=50.0, tolerance=15.0, shape=">", than=0.0,
    )
    for policy, name in (("fcfs", "FIFO"), ("fairshare", "fair share"))
)  # fmt: skip

SEED003_BACKFILL_LITTLE = Expectation(
    "seed 003 §1", "fairshare_cb_mean_reduction_ar",
    "with the backfilling scheduling policy we did not see any performance benefit except for "
    "very large workflows (less gain than under FIFO)",
    shape="<", than="fcfs_mean_reduction_ar",
)  # fmt: skip

SEED003_FIG7 = (
    *(
        Expectation(
            "seed 003 §5.1", f"{key}_none_min",
            f"the 10-degree Montage workflow takes {minutes} minutes to complete using {name}",
            value=float(minutes), tolerance=0.25, relative=True,
        )
        for key, minutes, name in (
            ("fcfs", 3930, "FIFO"), ("fairshare", 2611, "fair share"),
            ("fairshare_cb", 794, "fair share with backfilling"),
        )
    ),
    Expectation(
        "seed 003 §5.1", "fairshare_cb_none_min",
        "the completion time with backfilling is considerably less (than with FIFO)",
        shape="<", than="fcfs_none_min",
    ),
    Expectation(
        "seed 003 §5.1, Figure 7", "fcfs_ar_min",
        "the minimum completion time for FIFO with advance reservation is 1351 minutes (65 % "
        "reduction)",
        value=1351.0, tolerance=0.25, relative=True, shape="<", than="fcfs_none_min",
    ),
    Expectation(
        "seed 003 §5.1, Figure 7", "fcfs_dp_min",
        "the same request finishes in 699 minutes with dynamic provisioning (for FIFO always "
        "less than advance reservation)",
        value=699.0, tolerance=0.25, relative=True, shape="<=", than="fcfs_ar_min",
    ),
)  # fmt: skip


# Thesis ch. 4 and ch. 7: provisioning versus best effort ------------------------------------


def makespan_ratio(source: str, claim: str, value: float | None = None) -> Expectation:
    """The provisioned / best-effort makespan at the reported α: below 1, optionally a number
    (± 0.1)."""
    if value is None:
        return Expectation(source, "makespan_ratio", claim, shape="<", than=1.0)
    return Expectation(
        source, "makespan_ratio", claim, value=value, tolerance=0.1, shape="<", than=1.0
    )


# Thesis ch. 5: adaptive pricing -----------------------------------------------------------


def pricing_claims(
    source: str, *, estimates: str, alpha_1: bool = True, baseline_util: float | None = None
) -> tuple[Expectation, ...]:
    """What the thesis says of one pricing run.  With accurate estimates (Figure 24) a
    reservation at α = 0 waits less than best effort; with requested ones (Figure 31) at α = 1
    (price 0) it waits longer.  ``baseline_util``: the utilization of the first 30 days the
    thesis reports (§5.3)."""
    out: list[Expectation] = list(price_falls_to_0(source)) if alpha_1 else []
    if estimates == "accurate":
        out.append(
            Expectation(
                "thesis §5.3, Figure 24", "resv_wait_h_a0",
                "when the focus is on wait time minimization (low trade-off factor), the wait "
                "time of the provisioned jobs is much less than that of the best effort jobs",
                shape="<", than="be_wait_h_a0",
            )
        )  # fmt: skip
    elif alpha_1:
        out.append(
            Expectation(
                "thesis §5.3, Figure 31 (requested estimates)", "resv_wait_h_a100",
                "when the slots cost zero (α = 1) the average wait time of slots is more than "
                "the average wait time of best effort traffic",
                shape=">", than="be_wait_h_a100",
            )
        )  # fmt: skip
    if baseline_util is not None:
        out.append(
            Expectation(
                "thesis §5.3 (first 30 days)", "baseline_utilization",
                f"the utilization of the system is {100 * baseline_util:.1f} % before adding "
                "load",
                value=baseline_util, tolerance=0.05,
            )
        )  # fmt: skip
    return tuple(out)


PRICING_FIG28_BE_WAIT = Expectation(
    "thesis §5.3, Figure 28", "wait-vs-alpha/Best effort",
    "with 50 % reservations, as the value of α increases the wait time of best effort tasks "
    "decreases",
    shape="non-increasing",
)  # fmt: skip


# Seed 001 (Takefusa et al.): co-allocation success ratios ----------------------------------

SEED001_SUCCESS = (
    Expectation(
        "seed 001, 'Comparison of Co-allocation Success Ratios'", "normal_success_at_50",
        "about 0.90 when the load = 50 %", value=0.90, tolerance=0.05,
    ),
    Expectation(
        "seed 001, 'Comparison of Co-allocation Success Ratios'", "normal_success_at_80",
        "over 0.61 when the load = 80 %", shape=">=", than=0.61,
    ),
)  # fmt: skip

SEED001_SERVICE_LEVELS = (
    Expectation(
        "seed 001, 'Comparison of service levels'", "service_levels_UserA_at_100",
        "S: UserA is 0.60 ... when the load = 100 %", value=0.60, tolerance=0.05,
    ),
    Expectation(
        "seed 001, 'Comparison of service levels'", "service_levels_UserB_at_100",
        "... and UserB (low priority) is 0.37 when the load = 100 %",
        value=0.37, tolerance=0.05, shape="<", than="service_levels_UserA_at_100",
    ),
)  # fmt: skip
