"""Experiment kind ``trace-stats``: what a workload trace holds, before simulating it.

Summary numbers and the four charts researchers look at first when they pick a trace
(Feitelson's Parallel Workloads Archive, SWF): job-size histogram (power-of-two peaks), runtime CDF,
arrivals by hour of day (the daily cycle), and the accuracy of the users' requested runtimes (SWF
field 9), which is what separates the "accurate" and "requested" estimate modes of every later
simulation.

Headline numbers (span, machine size, offered load) come from
:func:`scheduler.traces.stats.trace_summary`, which the portal also shows for every upload.
"""

from __future__ import annotations

import datetime as dt
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from ..traces.stats import trace_summary
from .base import ExperimentKind, InputSpec, Preset, chart, register, series, table
from .claims import of
from .schema import Param

ACCURACY_BINS = [i / 10 for i in range(11)]


def size_bin_labels(max_size: int) -> list[tuple[int, int, str]]:
    """Power-of-two bins (1, 2, 3–4, 5–8, …) up to ``max_size``: (low, high, label)."""
    bins = [(1, 1, "1")]
    hi = 1
    while hi < max_size:
        lo, hi = hi + 1, hi * 2
        bins.append((lo, hi, str(hi) if lo == hi else f"{lo}–{hi}"))
    return bins


def _zone(name: str | None) -> tuple[dt.tzinfo, str]:
    if name:
        try:
            return ZoneInfo(name), name
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return dt.UTC, "UTC"


@register
class TraceStats(ExperimentKind):
    name = "trace-stats"
    title = "Trace statistics"
    description = (
        "Job count, time span, machine size and offered load of one SWF trace, with its "
        "job-size histogram, runtime CDF, arrivals by hour of day and runtime-estimate accuracy."
    )
    reproduces = "characterisation of the traces used throughout the thesis (Singh 2008)"
    params = (
        Param(
            "procs",
            "int",
            0,
            min=0,
            max=10_000_000,
            label="machine processors",
            help="Machine size for the offered load; 0 takes MaxProcs from the trace header "
            "(the thesis simulated CTC-SP2 with 430).",
        ),
        Param(
            "cdf_points",
            "int",
            200,
            min=10,
            max=5000,
            label="CDF points",
            help="How many points the runtime CDF keeps (quantiles).",
        ),
    )
    inputs = (InputSpec("traces", "trace", 1, 1, "the SWF trace to describe"),)
    presets = (
        Preset(
            "ctc-thesis", "CTC-SP2 as simulated in the thesis (430 processors)", {"procs": 430},
            traces=("CTC-SP2",), minutes=0.1,
            published=of("trace-stats", "ctc-thesis"),
        ),
        Preset(
            "sdsc-thesis", "SDSC-SP2 as simulated in the thesis (128 processors)", {"procs": 128},
            traces=("SDSC-SP2",), minutes=0.1,
            published=of("trace-stats", "sdsc-thesis"),
        ),
    )  # fmt: skip

    def run(
        self, params: dict[str, Any], inputs: dict[str, list[Any]], seed: int, progress
    ) -> dict[str, Any]:
        trace = inputs["traces"][0]
        progress(0.05, "reading jobs")
        jobs = trace.jobs
        submit = np.fromiter((j.submit for j in jobs), dtype=np.int64, count=len(jobs))
        run = np.fromiter((j.run for j in jobs), dtype=np.float64, count=len(jobs))
        procs = np.fromiter((j.procs for j in jobs), dtype=np.int64, count=len(jobs))
        req = np.fromiter((j.req_time for j in jobs), dtype=np.float64, count=len(jobs))

        headline = trace_summary(trace, params["procs"] or None)
        valid = (run > 0) & (procs > 0)
        progress(0.3, "job sizes")

        charts = []
        sizes = procs[valid]
        bins = size_bin_labels(int(sizes.max()) if sizes.size else 1)
        counts = [int(((sizes >= lo) & (sizes <= hi)).sum()) for lo, hi, _ in bins]
        charts.append(
            chart(
                "job-sizes",
                "histogram",
                "Job sizes (power-of-two bins)",
                x="processors",
                y="jobs",
                series=[
                    series("jobs", [[lab, c] for (_, _, lab), c in zip(bins, counts, strict=True)])
                ],
            )
        )
        progress(0.45, "runtime distribution")

        runtimes = np.sort(run[valid])
        if runtimes.size:
            qs = np.linspace(0.0, 1.0, min(params["cdf_points"], runtimes.size))
            xs = np.quantile(runtimes, qs, method="inverted_cdf")
            points = [[float(x), float(q)] for x, q in zip(xs, qs, strict=True)]
        else:
            points = []
        charts.append(
            chart(
                "runtime-cdf",
                "line",
                "Runtime CDF",
                x="runtime (s)",
                y="fraction of jobs",
                x_scale="log",
                series=[series("runtime", points)],
            )
        )
        progress(0.6, "arrivals by hour")

        tz, tz_name = _zone(trace.header.time_zone_string)
        origin = trace.header.unix_start_time or 0
        hours = [0] * 24
        for s in submit.tolist():
            hours[dt.datetime.fromtimestamp(origin + s, tz).hour] += 1
        charts.append(
            chart(
                "arrivals-by-hour",
                "bar",
                f"Arrivals by hour of day ({tz_name})",
                x="hour",
                y="jobs submitted",
                series=[series("arrivals", [[f"{h:02d}", c] for h, c in enumerate(hours)])],
            )
        )
        progress(0.75, "estimate accuracy")

        has_req = valid & (req > 0)
        accuracy = run[has_req] / req[has_req]
        acc_labels = [f"{int(a * 100)}–{int(b * 100)} %" for a, b in pairwise(ACCURACY_BINS)]
        acc_counts = np.histogram(np.clip(accuracy, 0, 1), bins=ACCURACY_BINS)[0].tolist()
        over = int((accuracy > 1).sum())
        # np.histogram's last bin is closed, so runs that exceeded the request sit in it too.
        acc_counts[-1] -= over
        acc_points = [[lab, int(c)] for lab, c in zip(acc_labels, acc_counts, strict=True)]
        acc_points.append(["> 100 % (ran past request)", over])
        charts.append(
            chart(
                "estimate-accuracy",
                "histogram",
                "Requested vs actual runtime (actual / requested)",
                x="accuracy",
                y="jobs",
                series=[series("jobs", acc_points)],
            )
        )
        progress(0.9, "summary")

        n_parallel = int((sizes > 1).sum())
        pow2 = int(((sizes > 1) & ((sizes & (sizes - 1)) == 0)).sum())
        summary = {
            **headline,
            "serial_fraction": round(float((sizes == 1).mean()), 4) if sizes.size else None,
            "power_of_two_fraction": round(pow2 / n_parallel, 4) if n_parallel else None,
            "median_runtime_s": float(np.median(runtimes)) if runtimes.size else None,
            "jobs_with_estimates": int(has_req.sum()),
            "mean_estimate_accuracy": (round(float(accuracy.mean()), 4) if accuracy.size else None),
        }
        labels = {
            "jobs": "job lines",
            "valid_jobs": "jobs with runtime and processors",
            "first_submit": "first submit (s)",
            "last_end": "last end (s)",
            "span_days": "time span (days)",
            "machine_procs": "machine processors",
            "offered_load": "offered load",
            "largest_job_procs": "largest job (processors)",
            "serial_fraction": "serial jobs (fraction)",
            "power_of_two_fraction": "power-of-two sizes among parallel jobs",
            "median_runtime_s": "median runtime (s)",
            "jobs_with_estimates": "jobs with a requested time",
            "mean_estimate_accuracy": "mean actual/requested runtime",
        }
        header_rows = [[k, v] for k, v in trace.header.fields.items()]
        progress(1.0, "done")
        key = [
            "jobs", "span_days", "machine_procs", "offered_load", "median_runtime_s",
            "mean_estimate_accuracy",
        ]  # fmt: skip
        return {
            "summary": summary,
            "summary_labels": labels,
            # Key results: what the trace is — size, span, machine, load, job length
            "key": [k for k in key if summary.get(k) is not None],
            "tables": [table("header", "SWF header", ["field", "value"], header_rows)],
            "charts": charts,
        }
