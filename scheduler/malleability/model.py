"""Plain data of malleable-job scheduling in a multicluster (Buisson et al. 2007, §2 and §6).

Buisson et al. 2007, §2.1 (after Feitelson & Rudolph 1996) distinguishes three kinds of
parallel job:

* **rigid** — a fixed number of processors;
* **moldable** — the size is chosen once, when the job starts, and then fixed;
* **malleable** — the job may grow and shrink while it runs, between a minimum (below which it
  cannot run) and a maximum (beyond which processors would be wasted), §2.2.

Clusters are space-shared and identical inside (DAS-3, Buisson et al. 2007, Table 1: 85, 41, 68, 46
and 32 nodes).  Times are integer seconds; a job's work is normalised to 1 and progresses at rate
``1 / T(p)`` on ``p`` processors, ``T`` being its application's speed-up curve
(:mod:`scheduler.malleability.apps`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "JOB_KINDS",
    "DAS3_CLUSTERS",
    "ModelError",
    "ClusterSpec",
    "JobSpec",
    "JobRecord",
    "clusters_from_sizes",
]

JOB_KINDS = ("rigid", "moldable", "malleable")

#: DAS-3 (Buisson et al. 2007, Table 1): Vrije Universiteit, U. of Amsterdam, Delft, MultimediaN,
#: Leiden.
DAS3_CLUSTERS: tuple[tuple[str, int], ...] = (
    ("vu", 85),
    ("uva", 41),
    ("delft", 68),
    ("mn", 46),
    ("leiden", 32),
)


class ModelError(ValueError):
    """Invalid model input; ``field`` names what is wrong (a parameter name when known)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    """A space-shared cluster of ``size`` identical processors.

    On DAS-3 a "processor" of a job is a node: Table 1 counts nodes (dual-CPU), SGE runs jobs on
    nodes exclusively (Buisson et al. 2007, §6.2) and Figure 6 plots "number of machines", so
    cluster and job sizes are both counted in nodes (85, 41, 68, 46, 32).
    """

    name: str
    size: int

    def __post_init__(self) -> None:
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 1:
            raise ModelError("clusters", f"cluster {self.name!r} has size {self.size!r}; need >= 1")


def clusters_from_sizes(
    sizes: list[int], names: list[str] | None = None
) -> tuple[ClusterSpec, ...]:
    """Clusters named ``names`` (default ``c1``, ``c2``, …) of the given sizes."""
    if not sizes:
        raise ModelError("clusters", "give at least one cluster size")
    names = list(names or [])
    if len(names) > len(sizes):
        raise ModelError("cluster_names", f"{len(names)} names for {len(sizes)} clusters")
    names += [f"c{i + 1}" for i in range(len(names), len(sizes))]
    if len(set(names)) != len(names) or any(not n for n in names):
        raise ModelError("cluster_names", "cluster names must be distinct and non-empty")
    return tuple(ClusterSpec(n, s) for n, s in zip(names, sizes, strict=True))


@dataclass(frozen=True, slots=True)
class JobSpec:
    """A submitted job.

    ``min_procs == max_procs`` for a rigid job.  ``scale`` multiplies the application's
    execution-time curve (1 for the seed's FT and GADGET2 runs; a trace job is scaled so that
    its curve passes through its recorded runtime at its recorded size).
    """

    id: int
    submit: int
    app: str
    kind: str
    min_procs: int
    max_procs: int
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in JOB_KINDS:
            raise ModelError("kind", f"job {self.id}: unknown kind {self.kind!r}")
        if self.min_procs < 1:
            raise ModelError("min_procs", f"job {self.id}: min {self.min_procs} < 1")
        if self.min_procs > self.max_procs:
            raise ModelError(
                "min_procs", f"job {self.id}: min {self.min_procs} > max {self.max_procs}"
            )
        if self.kind == "rigid" and self.min_procs != self.max_procs:
            raise ModelError("kind", f"job {self.id}: a rigid job has min == max")
        if self.submit < 0:
            raise ModelError("submit", f"job {self.id}: submit time {self.submit} < 0")
        if not self.scale > 0:
            raise ModelError("scale", f"job {self.id}: scale {self.scale} must be > 0")


@dataclass(frozen=True, slots=True)
class JobRecord:
    """What happened to one job.  ``start``/``finish`` are None for a failed job."""

    id: int
    app: str
    kind: str
    cluster: str | None
    submit: int
    start: int | None
    finish: int | None
    avg_procs: float | None  # time-weighted over the execution
    max_procs: int | None
    grows: int
    shrinks: int
    tries: int
    failed: bool

    @property
    def wait(self) -> int | None:
        return None if self.start is None else self.start - self.submit

    @property
    def execution(self) -> int | None:
        return None if self.finish is None or self.start is None else self.finish - self.start

    @property
    def response(self) -> int | None:
        return None if self.finish is None else self.finish - self.submit
