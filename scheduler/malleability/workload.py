"""Workloads of the malleability experiments (Buisson et al. 2007, §6.3), generated or from SWF.

Generated (Buisson et al. 2007, §6.3): ``jobs`` jobs (300 in the seed) submitted at a fixed
inter-arrival time (2 minutes for the PRA experiments, 30 s for PWA), each running FT or GADGET2
with equal probability ("combine the two applications with a uniform distribution"); malleable jobs
have minimum 2 and maximum 46 (GADGET2) or 32 (FT) and start at their minimum; a fraction of the
jobs (workload W_mr: 50 %) is instead rigid with 2 processors.  ``malleable_fraction`` = 1 is W_m.
The applications and the malleable marks come from two independent streams of the same seed,
so W_m and W_mr of one seed differ only in the marks.

From a trace: each SWF job with a known runtime and size becomes a job of that size whose
execution-time curve has the shape of the chosen application scaled to pass through the
recorded runtime at the recorded size; a ``malleable_fraction`` of them (chosen at random,
seeded) are malleable between ``min(min_procs, size)`` and ``max(size, app maximum)`` (capped by
the largest cluster).  FT jobs keep to powers of 2 (bounds rounded inwards; sizes down).
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from .apps import APPS, get_app, pow2_ceil, pow2_floor
from .model import JobSpec, ModelError

__all__ = ["APP_CHOICES", "seed_workload", "trace_workload", "mark_malleable"]

APP_CHOICES = ("mixed", "gadget2", "ft")


def _apps_for(n: int, app: str, rng: random.Random) -> list[str]:
    if app == "mixed":
        names = sorted(APPS)
        return [rng.choice(names) for _ in range(n)]
    get_app(app)
    return [app] * n


def mark_malleable(n: int, fraction: float, seed: int) -> list[bool]:
    """Exactly ``round(n * fraction)`` of ``n`` jobs marked malleable, at random (seeded)."""
    if not 0.0 <= fraction <= 1.0:
        raise ModelError("malleable_fraction", f"fraction {fraction} must be in [0, 1]")
    k = round(n * fraction)
    chosen = set(random.Random(seed * 31 + 17).sample(range(n), k))
    return [i in chosen for i in range(n)]


def _bounds(app: str, lo: int, hi: int) -> tuple[int, int]:
    if get_app(app).pow2:
        return pow2_ceil(lo), pow2_floor(hi)
    return lo, hi


def check_sizes(app: str, min_procs: int, max_gadget2: int, max_ft: int, rigid_size: int) -> None:
    """The processor ranges of the generated applications, or :class:`ModelError` naming the
    field (what :func:`seed_workload` checks before drawing; callable at submit)."""
    if min_procs < 1:
        raise ModelError("min_procs", f"min_procs {min_procs} < 1")
    for name, hi in (("max_gadget2", max_gadget2), ("max_ft", max_ft)):
        if hi < min_procs:
            raise ModelError(name, f"{name} = {hi} is below min_procs = {min_procs}")
    if rigid_size < 1:
        raise ModelError("rigid_size", f"rigid_size {rigid_size} < 1")
    if app in ("mixed", "ft") and pow2_ceil(min_procs) > pow2_floor(max_ft):
        raise ModelError("max_ft", f"no power of 2 between min {min_procs} and FT max {max_ft}")


def seed_workload(
    *,
    jobs: int = 300,
    interarrival: float = 120.0,
    arrivals: str = "fixed",
    app: str = "mixed",
    malleable_fraction: float = 1.0,
    min_procs: int = 2,
    max_gadget2: int = 46,
    max_ft: int = 32,
    rigid_size: int = 2,
    seed: int = 0,
) -> list[JobSpec]:
    """The Buisson et al. 2007, §6.3 workload (W_m with fraction 1, W_mr with 0.5)."""
    if jobs < 0:
        raise ModelError("jobs", f"{jobs} jobs")
    if interarrival < 0:
        raise ModelError("interarrival", f"inter-arrival {interarrival} s < 0")
    if arrivals not in ("fixed", "poisson"):
        raise ModelError("arrivals", f"unknown arrival process {arrivals!r}")
    check_sizes(app, min_procs, max_gadget2, max_ft, rigid_size)
    rng = random.Random(seed)
    names = _apps_for(jobs, app, rng)
    marks = mark_malleable(jobs, malleable_fraction, seed)
    out = []
    t = 0.0
    for i in range(jobs):
        if i:
            t += interarrival if arrivals == "fixed" else rng.expovariate(1.0 / interarrival)
        name = names[i]
        if marks[i]:
            lo, hi = _bounds(name, min_procs, max_ft if name == "ft" else max_gadget2)
            out.append(JobSpec(i, round(t), name, "malleable", lo, hi))
        else:
            size = pow2_floor(rigid_size) if get_app(name).pow2 else rigid_size
            out.append(JobSpec(i, round(t), name, "rigid", size, size))
    return out


def trace_workload(
    swf_jobs: Iterable,
    *,
    app: str = "gadget2",
    malleable_fraction: float = 1.0,
    min_procs: int = 2,
    max_gadget2: int = 46,
    max_ft: int = 32,
    largest_cluster: int,
    limit: int = 0,
    seed: int = 0,
) -> tuple[list[JobSpec], int]:
    """Jobs from SWF records (``submit``, ``run``, ``procs``); returns (jobs, dropped)."""
    usable = []
    dropped = 0
    for j in swf_jobs:
        if limit and len(usable) >= limit:
            break
        if j.run is None or j.run <= 0 or j.procs <= 0 or j.submit < 0:
            dropped += 1
            continue
        usable.append(j)
    rng = random.Random(seed)
    names = _apps_for(len(usable), app, rng)
    marks = mark_malleable(len(usable), malleable_fraction, seed)
    t0 = min((j.submit for j in usable), default=0)
    out = []
    for i, j in enumerate(usable):
        model = get_app(names[i])
        size = min(j.procs, largest_cluster)
        if model.pow2:
            size = pow2_floor(size)
        scale = j.run / model.time(j.procs)  # the curve passes through (procs, run)
        if marks[i]:
            hi = max(size, max_ft if model.pow2 else max_gadget2)
            lo, hi = _bounds(names[i], min(min_procs, size), min(hi, largest_cluster))
            out.append(JobSpec(i, j.submit - t0, names[i], "malleable", lo, hi, scale))
        else:
            out.append(JobSpec(i, j.submit - t0, names[i], "rigid", size, size, scale))
    return out, dropped
