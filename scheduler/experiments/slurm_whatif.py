"""Experiment kind ``slurm-whatif``: a Slurm site's accounting replayed with changed
scheduling parameters, against the same site unchanged and against what its Slurm recorded.

The input is a Slurm site (:mod:`scheduler.slurm.whatif`): a ``sacct -P`` dump with its Slurm
columns, ``slurm.conf`` and optionally ``sacctmgr -P show assoc`` / ``show qos``.  The
changes are ``Key=Value`` items as in ``slurm.conf`` (``PriorityWeight*``,
``PriorityDecayHalfLife``, ``PriorityMaxAge``, ``SchedulerParameters`` options given one by
one as ``bf_window=60``) and association shares (``Fairshare:ACCOUNT=N``).  The schedules are
those of the Slurm model of the policy registry (:mod:`scheduler.cluster.slurm`); the figures
are :func:`scheduler.slurm.whatif.whatif_figures`, which ``python -m scheduler slurm-replay``
prints too.  Shares over time against their targets follow the share charts of Dumitrescu,
Wilde & Foster 2005 (Figs 3–6), with Slurm's normalised shares as the targets.
"""

from __future__ import annotations

from typing import Any

from ..slurm.whatif import (
    SCHEDULES,
    override_accounts,
    parse_overrides,
    whatif_figures,
)
from .base import ExperimentKind, InputSpec, chart, register, series, table
from .schema import Param, ParamError

GROUPINGS = (("account", "account"), ("user", "user"), ("partition", "partition"),
             ("qos", "QOS"))  # fmt: skip
SCHEDULE_WORDS = {"changed": "changed", "unchanged": "unchanged", "recorded": "recorded (real)"}
MAX_SHARE_CHARTS = 8


@register
class SlurmWhatIf(ExperimentKind):
    name = "slurm-whatif"
    title = "Slurm what-if: a site's accounting under changed scheduling parameters"
    description = (
        "Replays a Slurm site's sacct dump under its slurm.conf, associations and QOS with the "
        "changes you give (priority weights, decay, backfill parameters, shares), against the "
        "unchanged configuration and the recorded starts: waits, bounded slowdowns, CPU shares "
        "and utilisation per user, account, partition and QOS, and shares over time against "
        "their targets."
    )
    reproduces = (
        "Slurm's multifactor priority and backfill (slurm.schedmd.com); share charts after "
        "Dumitrescu, Wilde & Foster 2005, Figs 3–6"
    )
    params = (
        Param(
            "overrides", "str", "", label="changes",
            help="Key=Value items separated by spaces or new lines, as in slurm.conf: "
            "PriorityWeightAge=0 PriorityWeightFairshare=5000 PriorityDecayHalfLife=1-0 "
            "bf_window=60 (bf_* and sched_interval one by one), and association shares "
            "Fairshare:ACCOUNT=N or Fairshare:ACCOUNT:USER=N. Empty: the site as it is.",
            parse=parse_overrides, max_length=4000,
        ),
        Param(
            "share_bins", "int", 48, min=4, max=500, label="time bins of the share charts",
            help="How many equal intervals the shares over time are measured in.",
        ),
    )  # fmt: skip
    inputs = (InputSpec("site", "slurm-site", 1, 1, "the Slurm site (dump and configuration)"),)

    def check_facts(self, params: dict[str, Any], facts: dict[str, list[dict[str, Any]]]) -> None:
        """Shares set for an account the site has neither in its associations nor its dump
        are refused (a misspelt account would otherwise add a new one)."""
        site = (facts.get("site") or [{}])[0]
        known = set(site.get("accounts") or ())
        if not known:
            return
        for account in override_accounts(parse_overrides(params["overrides"])):
            if account not in known:
                raise ParamError(
                    {"overrides": f"Fairshare:{account}: the site has no account {account!r} "
                                  f"(accounts: {', '.join(sorted(known)[:10])})"}
                )  # fmt: skip

    def run(
        self, params: dict[str, Any], inputs: dict[str, list[Any]], seed: int, progress
    ) -> dict[str, Any]:
        loaded = inputs["site"][0]
        overrides = parse_overrides(params["overrides"])
        fig = whatif_figures(loaded, overrides, bins=params["share_bins"], progress=progress)
        progress(0.95, "charts")
        return {
            **_summary(fig),
            "tables": _tables(fig),
            "charts": _wait_charts(fig) + _share_charts(fig),
        }


def _summary(fig: dict[str, Any]) -> dict[str, Any]:
    unchanged, changed = fig["comparison"]["unchanged"], fig["comparison"]["changed"]
    summary: dict[str, Any] = {
        "jobs": fig["jobs"],
        "cpus": fig["cpus"],
        "wait_mean_changed": changed.get("wait_mean_sim"),
        "wait_mean_unchanged": unchanged.get("wait_mean_sim"),
        "wait_mean_recorded": unchanged.get("wait_mean_real"),
        "start_error_median": unchanged.get("start_error_median"),
        "start_error_p90": unchanged.get("start_error_p90"),
        "rank_correlation": unchanged.get("rank_correlation"),
        "start_error_median_changed": changed.get("start_error_median"),
        **{f"utilisation_{k}": v for k, v in fig["utilisation"].items()},
        "never_started_changed": changed.get("never_started", 0),
        "never_started_unchanged": unchanged.get("never_started", 0),
    }
    labels = {
        "jobs": "jobs replayed",
        "cpus": "CPUs of the site",
        "wait_mean_changed": "mean wait, changed configuration",
        "wait_mean_unchanged": "mean wait, unchanged configuration",
        "wait_mean_recorded": "mean wait, recorded",
        "start_error_median": "median start error, unchanged vs recorded",
        "start_error_p90": "90th-percentile start error, unchanged vs recorded",
        "rank_correlation": "Spearman ρ of start order, unchanged vs recorded",
        "start_error_median_changed": "median start shift, changed vs recorded",
        "utilisation_changed": "utilisation, changed configuration",
        "utilisation_unchanged": "utilisation, unchanged configuration",
        "utilisation_recorded": "utilisation, recorded",
        "never_started_changed": "jobs never started, changed configuration",
        "never_started_unchanged": "jobs never started, unchanged configuration",
    }
    key = ["wait_mean_changed", "wait_mean_unchanged", "wait_mean_recorded",
           "start_error_median", "rank_correlation"]  # fmt: skip
    return {"summary": summary, "summary_labels": labels, "key": key}


def _tables(fig: dict[str, Any]) -> list[dict[str, Any]]:
    out = [
        table(
            "comparison", "Replays against the recorded starts",
            ["replay", "jobs compared", "never started", "median start error (s)",
             "p90 start error (s)", "mean wait simulated (s)", "mean wait recorded (s)",
             "Spearman ρ of start order"],
            [[name, c.get("jobs", 0), c.get("never_started", 0), c.get("start_error_median"),
              c.get("start_error_p90"), c.get("wait_mean_sim"), c.get("wait_mean_real"),
              c.get("rank_correlation")]
             for name, c in fig["comparison"].items()],
        ),
    ]  # fmt: skip
    for kind, word in GROUPINGS:
        rows = []
        names = sorted(set().union(*(fig["groups"][s][kind] for s in SCHEDULES)))
        for name in names:
            for s in SCHEDULES:
                g = fig["groups"][s][kind].get(name)
                if g is not None:
                    rows.append([name, SCHEDULE_WORDS[s], g["jobs"], g["wait_mean"],
                                 g["wait_median"], g["bsld_mean"], g["cpu_share"],
                                 g["utilisation"]])  # fmt: skip
        out.append(table(
            f"by-{kind}", f"Per {word}",
            [word, "schedule", "jobs", "mean wait (s)", "median wait (s)",
             "mean bounded slowdown", "CPU share", "utilisation"], rows,
        ))  # fmt: skip
    out.append(table("changes", "Changes applied", ["change"], [[o] for o in fig["overrides"]]))
    rejected = [[s, job, why] for s, jobs in fig["rejected"].items() for job, why in jobs.items()]
    if rejected:
        out.append(table("never-started", "Jobs that never start", ["schedule", "job", "reason"],
                         rejected[:1000]))  # fmt: skip
    return out


def _wait_charts(fig: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for kind, word in (("account", "account"), ("partition", "partition"), ("qos", "QOS")):
        names = sorted(fig["groups"]["recorded"][kind])
        spec = chart(
            f"wait-by-{kind}", "bar", f"Mean wait per {word}",
            x=word, y="mean wait (s)",
            series=[series(SCHEDULE_WORDS[s],
                           [[n, fig["groups"][s][kind].get(n, {}).get("wait_mean", 0)]
                            for n in names]) for s in SCHEDULES],
        )  # fmt: skip
        spec["priority"] = 10 if kind == "account" else 30
        out.append(spec)
    return out


def _share_charts(fig: dict[str, Any]) -> list[dict[str, Any]]:
    shares, targets = fig["shares"], fig["targets"]
    hours = shares["hours"]
    used = fig["groups"]["recorded"]["account"]
    accounts = sorted(used, key=lambda a: (-used[a]["cpu_share"], a))[:MAX_SHARE_CHARTS]
    out = []
    for i, account in enumerate(accounts):
        lines = [series(SCHEDULE_WORDS[s], [[h, v] for h, v in
                                            zip(hours, shares[s].get(account, []), strict=False)])
                 for s in SCHEDULES]  # fmt: skip
        if account in targets:
            t = round(targets[account], 4)
            lines.append(series("target (normalised shares)", [[hours[0], t], [hours[-1], t]]))
        spec = chart(f"share-{i + 1}", "line", f"Account {account}: share of the machine over time",
                     x="hours since the first submission", y="share of the CPUs",
                     series=lines)  # fmt: skip
        spec["section"] = "Shares over time against targets"
        spec["priority"] = 20
        out.append(spec)
    return out
