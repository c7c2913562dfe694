"""What a cluster simulation produces.

* the schedule: job id, submit, start, end, processors, wait;
* a summary: mean and median wait, mean bounded slowdown (τ = 10 s), utilization over the trace
  span, makespan, dropped and killed jobs;
* time series: busy processors and queue length at every event instant, and their
  time-weighted averages over equal bins (:meth:`SimulationResult.binned`) for charts.

Bounded slowdown (Feitelson et al., "Theory and practice in parallel job scheduling",
JSSPP 1997): ``max(1, (wait + run) / max(run, τ))`` with τ = 10 s, ``run`` the simulated runtime.
Utilization: Σ processors × runtime / (machine × (last end − first submit)).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence, Sized
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

from .jobs import SimJob

__all__ = ["SimulationResult", "BSLD_TAU", "SCHEDULE_HEADER"]

BSLD_TAU = 10
SCHEDULE_HEADER = ("job_id", "submit", "start", "end", "procs")

_KILLED = attrgetter("killed")


def _column(jobs: list[SimJob], name: str) -> np.ndarray:
    """One field of every job, as int64 (a C-speed getter, no generator)."""
    return np.fromiter(map(attrgetter(name), jobs), np.int64, len(jobs))


class Finished(Protocol):
    """What :meth:`SimulationResult.build` reads of a finished run: the
    :class:`~scheduler.cluster.simulator.Simulator`, described here rather than imported (the
    simulator imports this module; a type import back would close a circle)."""

    jobs: Sequence[SimJob]
    capacity: int
    start: Sequence[int]  # per job, -1 when it never started
    reservations: Sized
    _series: Sequence[int]  # (time, busy, queue) flattened


@dataclass
class SimulationResult:
    """Schedule, summary inputs and time series of one simulation."""

    policy: str
    estimates: str
    procs: int
    jobs: list[SimJob]
    start: np.ndarray
    end: np.ndarray
    dropped: dict[str, int] = field(default_factory=dict)
    series_time: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    series_busy: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    series_queue: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    reservations: int = 0

    @classmethod
    def build(
        cls, sim: Finished, *, policy: str, estimates: str, dropped: dict[str, int]
    ) -> SimulationResult:
        start = np.array(sim.start, dtype=np.int64)  # sim.jobs[k].index == k
        if start.size and int(start.min()) < 0:  # some never started: leave them out
            kept = np.flatnonzero(start >= 0)
            started = [sim.jobs[k] for k in kept.tolist()]
            start = start[kept]
        else:
            started = list(sim.jobs)
        run = _column(started, "runtime")
        series = np.array(sim._series, dtype=np.int64).reshape(-1, 3)  # a copy: sim goes on
        return cls(
            policy=policy,
            estimates=estimates,
            procs=sim.capacity,
            jobs=started,
            start=start,
            end=start + run,
            dropped=dict(dropped),
            series_time=series[:, 0],
            series_busy=series[:, 1],
            series_queue=series[:, 2],
            reservations=len(sim.reservations),
        )

    # ------------------------------------------------------------- per job

    @cached_property
    def submit(self) -> np.ndarray:
        """Per job (read once: the summary and the CDFs need it several times)."""
        return _column(self.jobs, "submit")

    @property
    def job_procs(self) -> np.ndarray:
        return _column(self.jobs, "procs")

    @property
    def wait(self) -> np.ndarray:
        return self.start - self.submit

    def bounded_slowdown(self, tau: int = BSLD_TAU) -> np.ndarray:
        run = self.end - self.start
        return np.maximum(1.0, (self.end - self.submit) / np.maximum(run, tau))

    def rows(self) -> list[tuple[int, int, int, int, int]]:
        """``(job_id, submit, start, end, procs)`` per simulated job, in queue order."""
        return [
            (j.job_id, j.submit, s, e, j.procs)
            for j, s, e in zip(self.jobs, self.start.tolist(), self.end.tolist(), strict=True)
        ]

    def write_csv(self, out: str | Path | IO[str]) -> None:
        """The schedule as CSV with the header ``job_id,submit,start,end,procs``."""
        if isinstance(out, (str, Path)):
            with open(out, "w", newline="") as fh:
                self.write_csv(fh)
            return
        w = csv.writer(out, lineterminator="\n")
        w.writerow(SCHEDULE_HEADER)
        w.writerows(self.rows())

    # ------------------------------------------------------------- summary

    def summary(self) -> dict[str, Any]:
        """Headline numbers (JSON-ready; None where undefined, e.g. with no jobs)."""
        n = len(self.jobs)
        dropped = sum(self.dropped.values())
        out: dict[str, Any] = {
            "policy": self.policy,
            "estimates": self.estimates,
            "procs": self.procs,
            "jobs": n,
            "dropped": dropped,
            **{f"dropped_{k}": v for k, v in sorted(self.dropped.items())},
            "killed": sum(map(_KILLED, self.jobs)),
            "reservations": self.reservations,
        }
        if n == 0:
            out.update(
                mean_wait=None, median_wait=None, max_wait=None, mean_response=None,
                mean_bounded_slowdown=None, utilization=None, makespan=None,
                first_submit=None, last_end=None,
            )  # fmt: skip
            return out
        submit = self.submit
        wait = self.start - submit
        run = self.end - self.start
        first = int(submit.min())
        last = int(self.end.max())
        span = last - first
        work = float((run * self.job_procs).sum())
        out.update(
            mean_wait=round(float(wait.mean()), 3),
            median_wait=float(np.median(wait)),
            max_wait=int(wait.max()),
            mean_response=round(float((self.end - submit).mean()), 3),
            mean_bounded_slowdown=round(float(self.bounded_slowdown().mean()), 4),
            utilization=round(work / (self.procs * span), 6) if span > 0 else None,
            makespan=span,
            first_submit=first,
            last_end=last,
        )
        return out

    # -------------------------------------------------------------- series

    def binned(self, what: str, bins: int = 300) -> list[list[float]]:
        """Time-weighted average of ``"utilization"`` (busy / machine) or ``"queue"`` (jobs
        waiting) over ``bins`` equal intervals of the simulated span: ``[[bin start, mean]]``."""
        t = self.series_time
        values = {"utilization": self.series_busy, "queue": self.series_queue}[what]
        if t.size < 2:
            return []
        v = values.astype(np.float64)
        if what == "utilization":
            v = v / self.procs
        cum = np.concatenate(([0.0], np.cumsum(v[:-1] * np.diff(t))))
        edges = np.linspace(float(t[0]), float(t[-1]), max(1, bins) + 1)
        area = np.interp(edges, t.astype(np.float64), cum)
        means = np.diff(area) / np.diff(edges)
        return [[float(e), round(float(m), 6)] for e, m in zip(edges[:-1], means, strict=True)]
