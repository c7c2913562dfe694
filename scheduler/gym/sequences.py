"""Job sequences sampled from an SWF trace, as RLScheduler's environment builds them.

RLScheduler (D. Zhang, D. Dai, Y. He, F. S. Bao, B. Xie, "RLScheduler: an automated HPC batch
job scheduler using reinforcement learning", SC'20; github.com/DIR-LAB/deep-batch-scheduler,
``job.py`` and ``HPCSimPickJobs.py``) reads a trace with these rules, which
:func:`load_workload` follows:

* processors: the larger of the allocated and the requested count (SWF fields 5 and 8);
* requested time: field 9, or the runtime when it is missing (-1);
* a runtime below zero becomes 10 s; a job whose runtime is then 0 is left out;
* the machine: the header's ``MaxProcs`` (else ``MaxNodes``).

An episode is ``length`` consecutive jobs starting at a uniformly drawn index in
``[length, size - length - 1)`` (or below ``slice_end`` when the protocol limits the draw to
the first jobs of the trace), on an empty machine whose clock starts at the first job's submit
time.  The draws come from a seeded generator; :func:`legacy_gym_rng` rebuilds the one the
2019 Gym (``gym.utils.seeding.np_random``) made from an integer seed, so that a seed names the
same sequences as in the published evaluation.

The engine plans with the requested time and never lets a job run past it (it is killed at its
request, :mod:`scheduler.cluster.jobs`); RLScheduler lets such a job run its whole runtime.
:class:`Workload` counts those jobs (``overrun``) so a report can name the difference.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..cluster.jobs import SimJob
from ..traces.swf import read_swf

__all__ = ["Workload", "legacy_gym_rng", "load_workload", "sequence_starts"]


@dataclass(frozen=True)
class Workload:
    """A trace read with RLScheduler's rules: one :class:`SimJob` per kept job (file order,
    ``index`` = position), the machine size and the longest runtime (a normaliser)."""

    name: str
    jobs: tuple[SimJob, ...]
    capacity: int
    max_runtime: int
    #: jobs whose runtime exceeds their request (see :func:`load_workload`)
    overrun: int
    #: each job's requested time as RLScheduler reads it (what priorities rank by)
    request: tuple[int, ...] = ()

    def __len__(self) -> int:
        return len(self.jobs)

    def sequence(self, start: int, length: int) -> list[SimJob]:
        """Jobs ``start .. start + length - 1``, re-indexed from 0 (the simulator's order)."""
        if start < 0 or length < 1 or start + length > len(self.jobs):
            raise ValueError(
                f"sequence [{start}, {start + length}) is outside the {len(self.jobs)} jobs "
                f"of {self.name}"
            )
        return [j._replace(index=i) for i, j in enumerate(self.jobs[start : start + length])]

    def requests(self, start: int, length: int) -> list[int]:
        """The requested times of the jobs of :meth:`sequence`."""
        return list(self.request[start : start + length])


def load_workload(
    source: Any, *, name: str | None = None, capacity: int | None = None, overrun: str = "kill"
) -> Workload:
    """Read an SWF trace (a path or a parsed :class:`~scheduler.traces.swf.Trace`) with
    RLScheduler's rules (see the module's docstring).  A job that ran longer than its request
    is cut to it (``overrun="kill"``, the engine's rule) or planned with its runtime
    (``"extend"``: it runs as long as in RLScheduler, and is still ranked and observed by its
    request, :attr:`Workload.request`, but planned by its runtime)."""
    if overrun not in ("kill", "extend"):
        raise ValueError(f"overrun must be 'kill' or 'extend', got {overrun!r}")
    trace = read_swf(source) if isinstance(source, str | Path) else source
    label = name or (Path(source).name if isinstance(source, str | Path) else "trace")
    procs = capacity or trace.machine_procs
    jobs: list[SimJob] = []
    requests: list[int] = []
    overrun, mode_kill = 0, overrun == "kill"
    for j in sorted(trace.jobs, key=lambda j: j.job_id):
        run = 10 if j.run < 0 else j.run
        if run == 0:
            continue
        n = max(j.alloc_procs, j.req_procs)
        if n < 1 or n > procs:
            raise ValueError(f"{label}: job {j.job_id} needs {n} processors of {procs}")
        request = run if j.req_time == -1 else j.req_time
        requests.append(max(request, 1))
        killed = run > request
        if killed:
            overrun += 1
            if mode_kill:
                run = max(request, 0)
            else:
                request, killed = run, False
        jobs.append(
            SimJob(len(jobs), j.job_id, j.submit, run, max(request, 1), n, killed,
                   j.user, j.group, j.queue, j.partition)
        )  # fmt: skip
    if any(a.submit > b.submit for a, b in zip(jobs, jobs[1:], strict=False)):
        raise ValueError(f"{label}: job numbers are not in submit order")
    longest = max((j.runtime for j in jobs), default=1)
    return Workload(label, tuple(jobs), procs, max(longest, 1), overrun, tuple(requests))


def legacy_gym_rng(seed: int) -> np.random.RandomState:
    """The generator the 2019 Gym's ``seeding.np_random(seed)`` returned: a Mersenne Twister
    seeded with the first 8 bytes of SHA-512 of the seed's decimal text, read as little-endian
    32-bit words (Gym 0.14, ``gym/utils/seeding.py``: ``hash_seed`` and
    ``_int_list_from_bigint``)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    seed %= 2**64
    digest = hashlib.sha512(str(seed).encode("utf8")).digest()[:8]
    low, high = struct.unpack("<II", digest)
    words = [low, high] if high else [low]
    if not low and not high:
        words = [0]
    rng = np.random.RandomState()
    rng.seed(words)
    return rng


def sequence_starts(
    size: int, length: int, iterations: int, seed: int, slice_end: int = 0
) -> list[int]:
    """The first job of each of ``iterations`` sequences of ``length`` jobs, drawn as
    RLScheduler's evaluation draws them (``compare-pick-jobs.py``: one draw per iteration from
    the generator seeded once; ``slice_end`` > 0 limits the draw to the first jobs)."""
    end = (slice_end or size) - length - 1
    if end <= length:
        raise ValueError(f"{size} jobs cannot hold sequences of {length} (slice {slice_end})")
    rng = legacy_gym_rng(seed)
    return [int(rng.randint(length, end)) for _ in range(iterations)]
