"""Workloads for usage-policy simulations: Poisson job streams per consumer, or an SWF trace.

Dumitrescu, Wilde & Foster 2005, slide 19: jobs "arrive, are executed, and leave the system (Poisson
distribution), without any precedence constraints" — 440 jobs in one hour for two VOs, two groups in
VO0.

* :func:`poisson_jobs` — one Poisson stream per *leaf consumer* (a group, or a VO without
  groups) with rate proportional to its weight.  Exactly ``jobs`` jobs are drawn over
  ``[0, duration)``: given their number, the arrival times of a Poisson process are independent
  uniform draws, so the merged stream is the order statistics of ``jobs`` uniform times and each
  job belongs to stream *k* with probability ``w_k / Σ w`` (the superposition / thinning
  property).  Processors and runtimes come from the chosen distributions; everything is drawn
  from one seeded ``numpy`` generator, so a seed fixes the workload.
* :func:`swf_jobs` — map an SWF trace's users and groups to VOs and groups (see its docstring).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..traces.swf import SWFJob
from .config import PolicySet

__all__ = [
    "KEYS",
    "PROCS_DISTS",
    "RUNTIME_DISTS",
    "UsageJob",
    "leaf_consumers",
    "parse_weights",
    "poisson_jobs",
    "swf_jobs",
]

RUNTIME_DISTS = ("exponential", "uniform", "constant")
PROCS_DISTS = ("uniform", "powers-of-two", "constant")
KEYS = ("user", "group", "queue", "partition")


@dataclass(frozen=True, slots=True)
class UsageJob:
    """A rigid job of a VO (and group): ``procs`` processors for ``runtime`` seconds."""

    id: int
    submit: int
    runtime: int
    procs: int
    vo: str
    group: str | None = None

    @property
    def consumer(self) -> str:
        return self.vo if self.group is None else f"{self.vo}.{self.group}"


def leaf_consumers(policyset: PolicySet) -> list[str]:
    """Consumers that submit jobs: every group (``VO.group``), or the VO when it has none."""
    out: list[str] = []
    for vo in policyset.vos:
        out.extend([f"{vo.name}.{g}" for g in vo.groups] or [vo.name])
    return out


def parse_weights(text: str, policyset: PolicySet) -> dict[str, float]:
    """``"VO0.G0=1, VO0.G1=1, VO1=2"`` → weight per leaf consumer.

    ``""`` gives every VO the same weight, split equally over its groups.  A VO name with
    groups spreads its weight equally over them; unlisted consumers get 0.  Raises
    ``ValueError`` with a message naming the bad entry.
    """
    leaves = leaf_consumers(policyset)
    if not text.strip():
        text = ",".join(f"{vo.name}=1" for vo in policyset.vos)
    out = {c: 0.0 for c in leaves}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition("=")
        name = name.strip()
        try:
            weight = float(value) if sep else math.nan
        except ValueError:
            weight = math.nan
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"{part!r}: expected NAME=WEIGHT with a weight >= 0")
        if name in out:
            out[name] += weight
            continue
        groups = [c for c in leaves if c.startswith(name + ".")]
        if not groups:
            raise ValueError(f"{name!r} is not a VO or a VO.group (known: {', '.join(leaves)})")
        for c in groups:
            out[c] += weight / len(groups)
    if sum(out.values()) <= 0:
        raise ValueError("at least one weight must be > 0")
    return out


def _split(consumer: str) -> tuple[str, str | None]:
    vo, _, group = consumer.partition(".")
    return vo, group or None


def poisson_jobs(
    weights: dict[str, float],
    *,
    jobs: int,
    duration: int,
    runtime_dist: str,
    runtime_mean: float,
    procs_dist: str,
    procs_max: int,
    seed: int,
) -> list[UsageJob]:
    """``jobs`` jobs of Poisson streams over ``[0, duration)`` (see the module docstring).

    Runtimes (whole seconds >= 1): ``exponential`` with mean ``runtime_mean``; ``uniform`` on
    ``[1, 2·mean − 1]``; ``constant``.  Processors: ``uniform`` on ``1..procs_max``;
    ``powers-of-two`` 2^k with k uniform on ``0..floor(log2 procs_max)``; ``constant``.
    """
    if runtime_dist not in RUNTIME_DISTS or procs_dist not in PROCS_DISTS:
        raise ValueError("unknown distribution")
    names = sorted(c for c, w in weights.items() if w > 0)
    if not names:
        raise ValueError("no consumer has a positive weight")
    rng = np.random.default_rng(seed)
    p = np.array([weights[c] for c in names], dtype=float)
    p /= p.sum()
    times = np.sort(np.floor(rng.uniform(0.0, float(duration), size=jobs))).astype(np.int64)
    who = rng.choice(len(names), size=jobs, p=p)
    if procs_dist == "uniform":
        procs = rng.integers(1, procs_max + 1, size=jobs)
    elif procs_dist == "powers-of-two":
        procs = 2 ** rng.integers(0, int(math.log2(procs_max)) + 1, size=jobs)
    else:
        procs = np.full(jobs, procs_max)
    if runtime_dist == "exponential":
        runtime = np.ceil(rng.exponential(runtime_mean, size=jobs))
    elif runtime_dist == "uniform":
        runtime = rng.integers(1, max(1, round(2 * runtime_mean - 1)) + 1, size=jobs)
    else:
        runtime = np.full(jobs, round(runtime_mean))
    runtime = np.maximum(runtime, 1).astype(np.int64)
    out = []
    for k in range(jobs):
        vo, group = _split(names[int(who[k])])
        out.append(UsageJob(k + 1, int(times[k]), int(runtime[k]), int(procs[k]), vo, group))
    return out


def swf_jobs(
    records: Sequence[SWFJob],
    policyset: PolicySet,
    *,
    vo_key: str = "group",
    group_key: str = "user",
    duration: int = 0,
    limit: int = 0,
) -> tuple[list[UsageJob], int]:
    """Jobs of an SWF trace, each given a VO and a group; returns ``(jobs, dropped)``.

    Mapping rule (documented in the experiment's parameters): with the VOs in document order
    ``VO_0 … VO_{V-1}``, a job belongs to ``VO_{k mod V}`` where ``k`` is its ``vo_key`` field
    (SWF user 12, group 13, queue 15 or partition 16; unknown ``-1`` counts as 0).  Inside a VO
    with groups ``G_0 … G_{n-1}`` it belongs to ``G_{m mod n}`` where ``m`` is its ``group_key``
    field — or ``k // V`` when both keys name the same field, so that the two choices do not
    collapse onto each other.  Submit times are shifted so the first job arrives at 0; jobs
    without a runtime or processor count are dropped (counted); ``duration`` > 0 keeps the jobs
    submitted before it, ``limit`` > 0 the first ``limit`` jobs.
    """
    if vo_key not in KEYS or group_key not in KEYS:
        raise ValueError(f"keys must be among {', '.join(KEYS)}")
    vos = policyset.vos
    if not vos:
        return [], 0
    usable = [r for r in records if r.run > 0 and r.procs > 0 and r.submit >= 0]
    dropped = len(records) - len(usable)
    usable.sort(key=lambda r: (r.submit, r.job_id))
    if limit:
        usable = usable[:limit]
    origin = usable[0].submit if usable else 0
    out: list[UsageJob] = []
    for r in usable:
        submit = r.submit - origin
        if duration and submit >= duration:
            break
        k = max(0, int(getattr(r, vo_key)))
        vo = vos[k % len(vos)]
        group = None
        if vo.groups:
            m = k // len(vos) if group_key == vo_key else max(0, int(getattr(r, group_key)))
            group = vo.groups[m % len(vo.groups)]
        out.append(UsageJob(len(out) + 1, submit, int(r.run), int(r.procs), vo.name, group))
    return out, dropped
