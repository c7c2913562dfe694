"""Experiment kind ``cluster-sim``: one trace under several batch policies side by side.

Replay an SWF trace on one space-shared cluster under FCFS, EASY (aggressive) and
conservative backfilling (Mu'alem & Feitelson 2001), planning with accurate or with requested
runtimes, optionally at a raised load (thesis §4.7 shifted copy, or §5.3 duplicated jobs).
Charts: wait and bounded-slowdown CDFs per (policy, estimates), utilization and queue length
over time (time-weighted bins), mean wait per configuration, and a summary table.  Chart data
is downsampled (``cdf_points`` quantiles, ``time_bins`` bins) to keep the stored Result small.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cluster import (
    ESTIMATE_MODES,
    PolicyError,
    is_user_policy_name,
    policy_label,
    prepare_jobs,
    resolve,
)
from ..cluster.simulator import Simulator
from ..traces.load import duplicate_jobs, first_days, offered_load, shifted_copy
from ._facts import check_trace_facts
from .base import ExperimentKind, InputSpec, Preset, Spread, chart, register, series, table
from .claims import of
from .schema import Param, ParamError, split_list, validate_params

DAY = 86400.0
DEFAULT_POLICIES = "fcfs, easy, conservative"
#: the policy ticks of runs stored before ``policies``: tick -> (policy, its old default)
LEGACY_TICKS = {
    "fcfs": ("fcfs", True),
    "easy": ("easy", True),
    "conservative": ("conservative", True),
    "fairshare": ("fairshare", False),
    "fairshare_cb": ("fairshare-cb", False),
    "backfill_k": ("backfill-k", False),
}


def policy_list(text: str) -> list[str]:
    """The policies of a run: comma-separated registry names (``backfill-k=8`` with its
    parameter), each checked by the registry as the run will build it, in the order given,
    duplicates refused.  Policy files are not taken here (a form could name any file on the
    server): run them with ``python -m scheduler simulate --policy file.py:Class``."""
    names = split_list(text, "policies", max_items=12)
    if not names:
        raise ParamError({"policies": "choose at least one policy"})
    out: list[str] = []
    for name in names:
        if is_user_policy_name(name) and name not in out:
            out.append(name)  # a portal upload: the portal checks its owner, its sandbox runs it
            continue
        if ":" in name:
            raise ParamError({"policies": f"{name[:60]!r}: give registry names (policy files "
                                          "run from the command line)"})  # fmt: skip
        try:
            ref = resolve(name)
        except PolicyError as exc:
            raise ParamError({"policies": str(exc)}) from None
        if ref.text in out:
            raise ParamError({"policies": f"{ref.text} is named twice"})
        out.append(ref.text)
    return out


def _label(policy: str, estimates: str) -> str:
    return f"{policy_label(policy)}, {estimates}"


def _cdf(values: np.ndarray, points: int, floor: float) -> list[list[float]]:
    if values.size == 0:
        return []
    qs = np.linspace(0.0, 1.0, min(points, values.size))
    xs = np.quantile(values, qs, method="inverted_cdf")
    return [[max(float(x), floor), round(float(q), 5)] for x, q in zip(xs, qs, strict=True)]


#: Thesis §4.7 ("Just simulating the first trace gave a resource utilization of 63% for the CTC
#: cluster and 70% for the SDSC cluster"): the thesis's simulator runs conservative backfilling
#: with the jobs' runtimes (§3.1); the span is not stated.
THESIS_SIM = {"policies": "conservative", "accurate": True, "requested": False}
SPAN_SPREAD = Spread(
    "days", (60.0, 70.0, 80.0),
    "§4.7 does not say over which span its utilizations were measured; the first 70 days were "
    "chosen because SDSC-SP2's jobs offer 70 % of 128 processors there (a fitted span, see "
    "claims/calibrations.py), and ± 10 days shows how much the span moves the figure",
)  # fmt: skip


@register
class ClusterSim(ExperimentKind):
    name = "cluster-sim"
    title = "Batch cluster simulation: FCFS, EASY and conservative backfilling"
    description = (
        "Replays one SWF trace on a simulated space-shared cluster under several local "
        "policies and runtime-estimate modes, and compares waits, bounded slowdowns, "
        "utilization and queue length."
    )
    reproduces = (
        "the batch-cluster simulation every thesis experiment uses (Mu'alem & Feitelson 2001)"
    )
    params = (
        Param(
            "procs", "int", 0, min=0, max=10_000_000, label="machine processors",
            help="0 takes MaxProcs from the trace header (the thesis simulated CTC-SP2 with "
            "430, where the header says 338).",
        ),
        Param(
            "policies", "str", DEFAULT_POLICIES, label="policies",
            help="Comma-separated: fcfs, easy, conservative, backfill-k=K (the first K queued "
            "jobs hold reservations; K = 1 is EASY, K = inf conservative), fairshare (Maui-style "
            "priority from users' decayed usage, queue time, expansion factor, bypass and size), "
            "fairshare-cb (the same with backfilling of the top 50 jobs).",
            parse=policy_list,
        ),
        Param(
            "accurate", "bool", True, label="accurate estimates",
            help="Plan with the actual runtimes.",
        ),
        Param(
            "requested", "bool", True, label="requested estimates",
            help="Plan with the requested times (SWF field 9); jobs are killed at their request.",
        ),
        Param(
            "limit", "int", 0, min=0, max=100_000_000, label="first jobs only",
            help="Keep the first K jobs of the file (0: all).",
        ),
        Param(
            "load_method", "choice", "none", choices=("none", "shifted-copy", "duplicate"),
            label="load scaling",
            help="shifted-copy: a second copy one week later, each job kept with probability p "
            "(thesis §4.7); duplicate: add a fraction of duplicated jobs (thesis §5.3).",
        ),
        Param(
            "load_p", "float", 0.5, min=0.0, max=1.0, label="shifted-copy probability p",
            help="Used by load scaling 'shifted-copy'.",
        ),
        Param(
            "load_extra", "float", 0.2, min=0.0, max=10.0, label="duplicated fraction",
            help="Used by load scaling 'duplicate' (0.2 = +20 % jobs).",
        ),
        Param(
            "days", "float", 0.0, min=0.0, max=100_000, label="first days only",
            help="Keep the jobs submitted in the first N days (0: all), after load scaling.",
        ),
        Param("cdf_points", "int", 200, min=10, max=2000, label="CDF points"),
        Param("time_bins", "int", 300, min=10, max=2000, label="time-series bins"),
    )  # fmt: skip
    inputs = (InputSpec("traces", "trace", 1, 1, "the SWF trace to replay"),)
    presets = (
        Preset("ctc-thesis", "CTC-SP2 as in the thesis, 430 processors", {"procs": 430}),
        Preset("sdsc-thesis", "SDSC-SP2 as in the thesis, 128 processors", {"procs": 128}),
        Preset(
            "ctc-thesis-70-days",
            "Thesis §4.7's utilization: CTC-SP2, 430 processors, first 70 days, conservative "
            "backfilling (spread over 60, 70 and 80 days)",
            {"procs": 430, "days": 70.0, **THESIS_SIM}, traces=("CTC-SP2",), minutes=0.1,
            published=of("cluster-sim", "ctc-thesis-70-days"), spread=SPAN_SPREAD,
        ),
        Preset(
            "sdsc-thesis-70-days",
            "Thesis §4.7's utilization: SDSC-SP2, 128 processors, first 70 days, conservative "
            "backfilling (spread over 60, 70 and 80 days)",
            {"procs": 128, "days": 70.0, **THESIS_SIM}, traces=("SDSC-SP2",), minutes=0.1,
            published=of("cluster-sim", "sdsc-thesis-70-days"), spread=SPAN_SPREAD,
        ),
        Preset(
            "ctc-quick",
            "CTC-SP2, 430 processors, first 10,000 jobs",
            {"procs": 430, "limit": 10_000},
        ),
        Preset(
            "ctc-high-load",
            "CTC-SP2, 430 processors, load raised by a shifted copy (p = 0.5)",
            {"procs": 430, "load_method": "shifted-copy", "load_p": 0.5},
        ),
    )  # fmt: skip

    def upgrade(self, params: dict[str, Any]) -> dict[str, Any]:
        """The policy ticks of runs stored before ``policies`` (``fcfs``, ``easy``,
        ``conservative``, ``fairshare``, ``fairshare_cb``, ``backfill_k`` with ``depth``) read
        as that list."""
        given = dict(params)
        if "policies" in given or not LEGACY_TICKS.keys() & given.keys():
            return given
        ticked = []
        for key, (policy, default) in LEGACY_TICKS.items():
            value = given.pop(key, default)
            try:
                on = Param(key, "bool", default).clean(value)
            except ValueError as exc:
                raise ParamError({key: str(exc)}) from None
            if on and key == "backfill_k":
                policy = f"backfill-k={given.get('depth', 4) or 'inf'}"
            if on:
                ticked.append(policy)
        given.pop("depth", None)
        given["policies"] = ", ".join(ticked)
        return given

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        """The schema's checks (after :meth:`upgrade`) and the estimate modes (one at least)."""
        out = validate_params(self.params, self.upgrade(dict(params or {})))
        if not (out["accurate"] or out["requested"]):
            raise ParamError({"accurate": "choose at least one estimate mode"})
        if 0 < out["days"] * DAY < 1:  # the window ends before the first submission
            raise ParamError({"days": f"a window of at least 1 s ({1 / DAY:.7f} days), or 0 "
                                      f"for the whole trace; got {out['days']:g}"})  # fmt: skip
        return out

    def check_facts(self, params: dict[str, Any], facts: dict[str, list[dict[str, Any]]]) -> None:
        """No machine size, or no job that fits it: refused at submit as the run refuses them
        ."""
        for fact in facts.get("traces", [])[:1]:
            check_trace_facts(fact, params["procs"], first_jobs=params["limit"],
                              first_days=params["days"])  # fmt: skip

    def run(
        self, params: dict[str, Any], inputs: dict[str, list[Any]], seed: int, progress
    ) -> dict[str, Any]:
        trace = inputs["traces"][0]
        policies = policy_list(params["policies"])
        modes = [m for m in ESTIMATE_MODES if params[m]]
        procs = params["procs"] or trace.machine_procs
        progress(0.01, "preparing the workload")
        if params["limit"]:
            trace = type(trace)(header=trace.header, jobs=trace.jobs[: params["limit"]])
        if params["load_method"] == "shifted-copy":
            trace = shifted_copy(trace, params["load_p"], seed=seed)
        elif params["load_method"] == "duplicate":
            trace = duplicate_jobs(trace, params["load_extra"], seed=seed)
        trace = first_days(trace, params["days"])

        configs = [(pol, mode) for mode in modes for pol in policies]
        results = []
        dropped: dict[str, int] = {}
        prepared = {}
        if not procs:
            raise ParamError({"procs": "the trace has no machine size: give the processors"})
        for mode in modes:
            prepared[mode], dropped = prepare_jobs(trace.jobs, procs, mode)
        if not any(prepared.values()):  # nothing to simulate: say so instead of empty charts
            raise ParamError({"procs": f"no job of the trace fits {procs:,} processors"})
        for r, (pol, mode) in enumerate(configs):
            lo, width = 0.05 + 0.85 * r / len(configs), 0.85 / len(configs)
            label = _label(pol, mode)
            progress(lo, f"simulating {label}")

            def report(
                f: float, msg: str, lo: float = lo, width: float = width, label: str = label
            ) -> None:
                progress(lo + width * f, f"{label}: {msg}")

            sim = Simulator(prepared[mode], procs, pol, estimates=mode).run(progress=report)
            results.append(sim.result(policy=pol, estimates=mode, dropped=dropped))
        progress(0.92, "charts")
        return self._report(trace, procs, params, configs, results, dropped, progress)

    def _report(self, trace, procs, params, configs, results, dropped, progress) -> dict:  # type: ignore[no-untyped-def]
        npts, nbins = params["cdf_points"], params["time_bins"]
        origin = min((float(r.series_time[0]) for r in results if r.series_time.size), default=0)
        wait_s, bsld_s, util_s, queue_s, mean_wait = [], [], [], [], []
        rows = []
        summary: dict[str, Any] = {
            "jobs": len(trace.jobs),
            "simulated_jobs": len(results[0].jobs),
            "dropped": sum(dropped.values()),
            "machine_procs": procs,
            "offered_load": offered_load(trace, procs),
        }
        labels = {
            "jobs": "job lines (after limit and load scaling)",
            "simulated_jobs": "jobs simulated",
            "dropped": "jobs dropped (no runtime, no processors, or larger than the machine)",
            "machine_procs": "machine processors",
            "offered_load": "offered load",
        }
        for (pol, mode), res in zip(configs, results, strict=True):
            label = _label(pol, mode)
            s = res.summary()
            wait_s.append(series(label, _cdf(res.wait.astype(np.float64), npts, 1.0)))
            bsld_s.append(series(label, _cdf(res.bounded_slowdown(), npts, 1.0)))

            def days(points: list[list[float]]) -> list[list[float]]:
                return [[round((t - origin) / DAY, 4), v] for t, v in points]

            util_s.append(series(label, days(res.binned("utilization", nbins))))
            queue_s.append(series(label, days(res.binned("queue", nbins))))
            mean_wait.append([label, s["mean_wait"]])
            rows.append(
                [
                    policy_label(pol), mode, s["jobs"], s["killed"], s["mean_wait"],
                    s["median_wait"], s["mean_bounded_slowdown"], s["utilization"],
                    s["makespan"],
                ]
            )  # fmt: skip
            key = f"{pol}_{mode}"
            for name, text in (
                ("mean_wait", "mean wait (s)"),
                ("median_wait", "median wait (s)"),
                ("mean_bounded_slowdown", "mean bounded slowdown"),
                ("utilization", "utilization"),
            ):
                summary[f"{key}_{name}"] = s[name]
                labels[f"{key}_{name}"] = f"{label}: {text}"
        for reason, count in sorted(dropped.items()):
            summary[f"dropped_{reason}"] = count
            labels[f"dropped_{reason}"] = f"dropped: {reason.replace('_', ' ')}"
        charts = [
            chart(
                "wait-cdf", "line", "Wait time CDF (waits under 1 s drawn at 1 s)",
                x="wait (s)", y="fraction of jobs", x_scale="log", series=wait_s,
            ),
            chart(
                "bsld-cdf", "line", "Bounded slowdown CDF (τ = 10 s)",
                x="bounded slowdown", y="fraction of jobs", x_scale="log", series=bsld_s,
            ),
            chart(
                "utilization", "line", "Utilization over time (time-weighted bins)",
                x="time since first submission (days)", y="busy processors / machine",
                series=util_s,
            ),
            chart(
                "queue-length", "line", "Queue length over time (time-weighted bins)",
                x="time since first submission (days)", y="jobs waiting", series=queue_s,
            ),
            chart(
                "mean-wait", "bar", "Mean wait per configuration",
                x="policy, estimates", y="mean wait (s)", series=[series("mean wait", mean_wait)],
            ),
        ]  # fmt: skip
        columns = [
            "policy", "estimates", "jobs", "killed", "mean wait (s)", "median wait (s)",
            "mean bounded slowdown", "utilization", "makespan (s)",
        ]  # fmt: skip
        progress(1.0, "done")
        # Key results: how the configurations compare on wait and slowdown
        combos = [f"{pol}_{mode}" for pol, mode in configs]
        if len(combos) == 1:
            metrics = ("mean_wait", "median_wait", "mean_bounded_slowdown", "utilization")
            key = ["offered_load"] + [f"{combos[0]}_{m}" for m in metrics]
        elif len(combos) == 2:
            metrics = ("mean_wait", "mean_bounded_slowdown", "utilization")
            key = [f"{c}_{m}" for m in metrics for c in combos]
        else:
            key = [f"{c}_{m}" for m in ("mean_wait", "mean_bounded_slowdown") for c in combos[:3]]
        return {
            "summary": summary,
            "summary_labels": labels,
            "key": [k for k in key if summary.get(k) is not None],
            "tables": [table("summary", "Summary per configuration", columns, rows)],
            "charts": charts,
        }
