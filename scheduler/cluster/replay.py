"""A site's whole replay, indexed by instant: the state at any time without replaying again.

Site pages answer "price a reservation" and "when would my job start?" at an instant of the
site's trace.  Replaying the trace up to that instant on every request took seconds on an
archive trace.  But the replay is deterministic: one full run of the simulator gives
every job's start, and the state at any instant ``t`` follows from it — the jobs running at
``t`` (started at or before ``t``, not yet ended) and the jobs queued at ``t`` (submitted at or
before ``t``, started after it), in queue order.  That is all a quote needs (it re-plans the
queue on the running jobs' blocks, :class:`~scheduler.pricing.price.SiteQuote`) and all the
queue-wait predictor may know (the waits of the jobs started by ``t``, in start order).
Quotes need a policy :class:`~scheduler.pricing.price.SiteQuote` can re-plan (fcfs, easy,
conservative); predictions only need the starts, so any policy of the simulator is indexed
(fair share, reservation depth K).

:class:`ReplayIndex` holds the replay as five integer arrays (a few MB for a whole archive
trace); :meth:`ReplayIndex.save`/:func:`load_index` keep it in a ``.npz`` file so a process
that did not build it answers in milliseconds.  Only trace jobs are indexed (sites without
reservations granted on the fly).

What a page derives from the whole index once (the queue-wait predictor's checkpoints,
:mod:`scheduler.reservations.site`) is kept by :meth:`ReplayIndex.derived`: in memory, and in a
sidecar ``.npz`` beside the index file (fingerprinted with the replay), so a forked request
process reads it instead of deriving it again.
"""

from __future__ import annotations

import os
import tempfile
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .jobs import SimJob
from .profile import Profile
from .simulator import Simulator

__all__ = ["ReplayIndex", "build_index", "load_index"]

_FORMAT = 1
_T = TypeVar("_T")


@dataclass(frozen=True)
class ReplayIndex:
    """Every job of one replay: ``submit``, ``start``, ``end`` (actual), ``estimate`` (what the
    scheduler plans with) and ``procs``, in queue order."""

    capacity: int
    policy: str
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    estimate: np.ndarray
    procs: np.ndarray
    #: what was derived from the index at recent instants (:meth:`remember`), newest last
    _memo: OrderedDict = field(default_factory=OrderedDict, init=False, repr=False, compare=False)
    _lock: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )
    #: the file the index was saved to or loaded from (None: in memory only)
    path: Path | None = field(default=None, repr=False, compare=False)
    #: arrays derived from the whole index (:meth:`derived`), by name
    _derived: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def origin(self) -> int:
        return int(self.submit[0])

    @property
    def last_submit(self) -> int:
        return int(self.submit[-1])

    def _known(self, t: int) -> int:
        """How many jobs are submitted at or before ``t`` (they are a prefix: queue order)."""
        return int(np.searchsorted(self.submit, t, side="right"))

    @cached_property
    def _spans(self) -> tuple[int, int]:
        """The longest run and the longest wait of the jobs that start (0 when none):
        a job running at ``t`` started after ``t`` less the first, one waiting at ``t`` was
        submitted after ``t`` less the second — what bounds the jobs looked at (
        not the whole trace at every instant)."""
        started = self.start >= 0
        if not started.any():
            return 0, 0
        runs = self.end[started] - self.start[started]
        waits = self.start[started] - self.submit[started]
        return int(runs.max()), int(waits.max())

    def running(self, t: int) -> np.ndarray:
        """Indexes of the jobs running at ``t``: started at or before it and ending after it
        (in queue order)."""
        by_start, starts = self._by_start
        run, _ = self._spans
        lo = int(np.searchsorted(starts, t - run, side="left"))
        hi = int(np.searchsorted(starts, t, side="right"))
        cand = by_start[lo:hi]  # started in [t - longest run, t]: all that may run at t
        return np.sort(cand[self.end[cand] > t])

    def queued(self, t: int) -> np.ndarray:
        """Indexes of the jobs waiting at ``t``, in queue order."""
        hi = self._known(t)
        _, wait = self._spans
        lo = int(np.searchsorted(self.submit[:hi], t - wait, side="left"))
        # (a job waiting at t starts after t, at most the longest wait after its submission)
        return lo + np.flatnonzero(self.start[lo:hi] > t)

    def base_profile(self, t: int) -> Profile:
        """Free processors from ``t`` on with the running jobs' planned blocks (start +
        estimate): what a policy plans the queue on."""
        run = self.running(t)
        ends = self.start[run] + self.estimate[run]
        procs = self.procs[run]
        # (a job running past its planned end holds no block, nor does a job of no processor)
        live = (ends > t) & (procs > 0)
        return Profile.of_blocks_from(self.capacity, t, ends[live].tolist(), procs[live].tolist())

    def queued_shapes(self, t: int) -> list[tuple[int, int]]:
        """``(processors, planned duration)`` of the queued jobs, in queue order."""
        return list(zip(*self.queued_lists(t), strict=True))

    def queued_lists(self, t: int) -> tuple[list[int], list[int]]:
        """:meth:`queued_shapes` as two lists, the processors and the planned durations (what
        :meth:`~scheduler.pricing.price.SiteQuote.from_queue` takes: no pair per job)."""
        q = self.queued(t)
        return self.procs[q].tolist(), self.estimate[q].tolist()

    @cached_property
    def _by_start(self) -> tuple[np.ndarray, np.ndarray]:
        """Every job that starts, in start order (ties by queue order), and their starts:
        computed once."""
        started = np.flatnonzero(self.start >= 0)
        order = started[np.lexsort((started, self.start[started]))]
        return order, self.start[order]

    def started_by(self, t: int) -> list[tuple[int, int, int]]:
        """``(processors, planned duration, wait)`` of the jobs started at or before ``t``, in
        start order (ties by queue order): the history an observer of the site has at ``t``.
        A prefix of the start order (a job starts after its submission)."""
        by_start, starts = self._by_start
        order = by_start[: int(np.searchsorted(starts, t, side="right"))]
        waits = self.start[order] - self.submit[order]
        return list(
            zip(
                self.procs[order].tolist(),
                self.estimate[order].tolist(),
                waits.tolist(),
                strict=True,
            )
        )

    def started_arrays(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`started_by` as three int64 arrays ``(processors, planned duration, wait)``."""
        by_start, starts = self._by_start
        order = by_start[: int(np.searchsorted(starts, t, side="right"))]
        return self.procs[order], self.estimate[order], self.start[order] - self.submit[order]

    @cached_property
    def fingerprint(self) -> int:
        """A checksum of the replay (capacity and every job's submit, start, end, planned
        duration and processors): what derived arrays are checked against."""
        crc = zlib.crc32(np.array([self.capacity, len(self.start)], dtype=np.int64).tobytes())
        for a in (self.submit, self.start, self.end, self.estimate, self.procs):
            crc = zlib.crc32(np.ascontiguousarray(a, dtype=np.int64).tobytes(), crc)
        return crc

    def derived(
        self, name: str, build: Callable[[], dict[str, np.ndarray]]
    ) -> dict[str, np.ndarray]:
        """Arrays ``build()`` derives from the whole index, computed once: kept in memory and,
        when the index has a file, in the sidecar ``<file>.<name>.npz`` (written atomically,
        read back only if its fingerprint is this index's).  ``name``: letters, digits, ``-``,
        ``_`` and ``.``."""
        with self._lock:
            if name in self._derived:
                return self._derived[name]
        side = None if self.path is None else self.path.with_name(f"{self.path.name}.{name}.npz")
        value = None
        if side is not None:
            try:
                with np.load(side, allow_pickle=False) as data:
                    if int(data["__fingerprint__"]) == self.fingerprint:
                        value = {k: data[k] for k in data.files if k != "__fingerprint__"}
            except (OSError, KeyError, ValueError):
                value = None
        if value is None:
            value = build()
            if side is not None:
                try:
                    _write_npz(side, __fingerprint__=np.array(self.fingerprint), **value)
                except OSError:
                    pass  # a read-only directory: kept in memory only
        with self._lock:
            self._derived[name] = value
        return value

    def remember(self, key: Any, build: Callable[[], _T], size: int = 8) -> _T:
        """``build()``, kept for the ``size`` most recently used keys: what a page derives
        from the index at an instant (the queue's plan) does not depend on the request, so a
        second request at the same instant reuses it."""
        with self._lock:
            if key in self._memo:
                self._memo.move_to_end(key)
                return self._memo[key]
        value = build()  # outside the lock: two first requests may both build (same value)
        with self._lock:
            self._memo[key] = value
            self._memo.move_to_end(key)
            while len(self._memo) > size:
                self._memo.popitem(last=False)
        return value

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the index atomically (a reader never sees half a file); the index then
        keeps its derived arrays (:meth:`derived`) beside that file."""
        path = Path(path)
        _write_npz(
            path, format=np.array([_FORMAT, self.capacity]), policy=np.array(self.policy),
            submit=self.submit, start=self.start, end=self.end,
            estimate=self.estimate, procs=self.procs,
        )  # fmt: skip
        object.__setattr__(self, "path", path)


def _write_npz(path: Path, **arrays: np.ndarray) -> None:
    """``np.savez`` to ``path`` atomically (a temporary file in its directory, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".npz", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def build_index(jobs: list[SimJob], procs: int, policy: str) -> ReplayIndex:
    """Replay ``jobs`` (in queue order, from :func:`~scheduler.cluster.jobs.prepare_jobs`) to
    the end on ``procs`` processors under ``policy`` and index it."""
    sim = Simulator(jobs, procs, policy)  # any policy the simulator knows (ValueError if not)
    sim.run()
    start = np.asarray(sim.start, dtype=np.int64)
    runtime = np.asarray(sim.runtime, dtype=np.int64)
    return ReplayIndex(
        procs,
        policy,
        np.asarray(sim.submit_time, dtype=np.int64),
        start,
        start + runtime,
        np.asarray(sim.estimate, dtype=np.int64),
        np.asarray(sim.procs, dtype=np.int64),
    )


def load_index(path: str | os.PathLike[str]) -> ReplayIndex | None:
    """The index saved at ``path``, or None when there is none (or it is of another format)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            fmt, capacity = (int(v) for v in data["format"])
            if fmt != _FORMAT:
                return None
            return ReplayIndex(
                capacity, str(data["policy"]), data["submit"], data["start"], data["end"],
                data["estimate"], data["procs"], Path(path),
            )  # fmt: skip
    except (OSError, KeyError, ValueError):
        return None
