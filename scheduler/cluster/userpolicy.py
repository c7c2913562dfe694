"""Policies written by users: the public contract, its two engines, and loading from files.

A user writes one of two kinds of class (see docs/policies.md for the tutorial):

* :class:`PriorityPolicy` — a ``priority(job, now)`` function (higher runs first).  The engine
  orders the queue by it at every decision and starts jobs in that order: strictly
  (``backfill = False``: the first job that does not fit blocks everyone below it), or with
  backfilling (``backfill = True``): the ``reservations`` highest-priority jobs that do not fit
  hold a reservation at their earliest start (1: EASY, Lifka 1995; None: every waiting job,
  conservative), and every other job starts now when it fits without delaying one of them.
  Reservations are planned afresh at every decision, since priorities move with time — as
  the Maui scheduler does at each iteration (Jackson, Snell & Clement, JSSPP 2001).
* :class:`DecisionPolicy` — a ``decide(view)`` step that returns the jobs to start now.  It
  sees the queue, the running jobs and the free processors through a read-only
  :class:`View` and never touches the availability profile; the engine checks every
  decision and refuses, naming the policy and the job, one that starts a job that is not
  waiting (not yet submitted, or already started) or that over-commits processors.

Either runs wherever a policy name is accepted: ``Simulator(jobs, procs, MyPolicy)``,
``simulate(trace, policy=MyPolicy)``, ``python -m scheduler simulate T --policy mine.py:MyPolicy``
and the ``cluster-sim`` experiment kind.  An exception raised by the user's code becomes a
:class:`~scheduler.cluster.policy.PolicyError` naming the file and line.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import sys
import traceback
import types
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from .policy import ClusterState, Policy, PolicyEntry, PolicyError

__all__ = [
    "DecisionPolicy",
    "Job",
    "PriorityPolicy",
    "Running",
    "View",
    "entry_for_class",
    "load_policy_file",
]

MAX_POLICY_FILE = 1_000_000  # bytes


@dataclass(frozen=True, slots=True)
class Job:
    """A job as a policy sees it.  ``estimate`` is what the scheduler plans with (the requested
    time, or the runtime under accurate estimates); the actual runtime is not shown."""

    index: int  # position in queue order (what a decision returns)
    id: int  # the trace's job number
    submit: int
    estimate: int
    procs: int
    user: int
    group: int
    queue: int
    partition: int

    def wait(self, now: int) -> int:
        """Seconds waited by ``now``."""
        return now - self.submit


@dataclass(frozen=True, slots=True)
class Running:
    """A running job, its start and its planned end (start + estimate)."""

    job: Job
    start: int
    planned_end: int


class View:
    """What a :class:`DecisionPolicy` sees at one decision (read-only)."""

    __slots__ = ("_profile", "capacity", "estimates", "now", "queue", "running")

    def __init__(
        self, now: int, queue: list[Job], running: list[Running], state: ClusterState
    ) -> None:
        self.now = now
        #: waiting jobs in queue order (submit time, then job id)
        self.queue = queue
        self.running = running
        self.capacity = state.capacity
        #: "accurate" or "requested": what ``Job.estimate`` is
        self.estimates = state.estimates
        self._profile = state.profile

    @property
    def free(self) -> int:
        """Processors free now."""
        return self._profile.free_now

    def free_over(self, start: int, end: int) -> int:
        """Fewest processors free over ``[start, end)`` (running jobs to their planned ends,
        fixed reservations, and the jobs started earlier in this decision)."""
        return self._profile.free_over(start, end)

    def earliest_start(self, procs: int, duration: int, after: int | None = None) -> int | None:
        """Earliest instant ``>= after`` (default now) where ``procs`` processors are free for
        ``duration`` seconds; None if never (more than the machine)."""
        return self._profile.earliest_start(procs, duration, self.now if after is None else after)


class _UserPolicy(Policy):
    """What both kinds of user policy share: job views, running jobs, errors by line."""

    #: a label for charts and tables (default: the class name)
    title: ClassVar[str] = ""

    def __init__(self, state: ClusterState) -> None:
        super().__init__(state)
        self._state = state
        self._views: dict[int, Job] = {}
        self._running: dict[int, int] = {}  # job -> start

    def job(self, k: int) -> Job:
        view = self._views.get(k)
        if view is None:
            j = self.jobs[k]
            view = Job(
                k, j.job_id, self.submit_time[k], self.estimate[k], self.procs[k],
                j.user, j.group, j.queue, j.partition,
            )  # fmt: skip
            self._views[k] = view
        return view

    def complete(self, k: int, now: int, early: bool) -> None:
        self._running.pop(k, None)

    def _started(self, started: list[int], now: int) -> list[int]:
        if started:
            gone = set(started)
            self.queue[:] = [k for k in self.queue if k not in gone]
            for k in started:
                self._running[k] = now
        return started

    def _fail(self, exc: Exception) -> PolicyError:
        return PolicyError(f"policy {_describe(type(self))} failed{_where(exc)}: {exc}")


class PriorityPolicy(_UserPolicy):
    """Start jobs in the order of :meth:`priority` (see the module's docstring)."""

    #: start lower-priority jobs that fit now without delaying a reservation
    backfill: ClassVar[bool] = True
    #: how many of the highest-priority waiting jobs hold a reservation (1: EASY; None: all)
    reservations: ClassVar[int | None] = 1

    def priority(self, job: Job, now: int) -> float:
        """Higher runs first; ties go to queue order.  Override this."""
        raise NotImplementedError

    def schedule(self, now: int, changed: bool) -> list[int]:
        queue = self.queue
        if not queue:
            return []
        procs = self.procs
        if min(procs[k] for k in queue) > self.profile.free_now:
            return []  # nothing fits now, whatever the order
        priority, job = self.priority, self.job
        try:
            keys = {k: float(priority(job(k), now)) for k in queue}
        except Exception as exc:  # the user's code: name its line
            raise self._fail(exc) from exc
        bad = next((k for k, v in keys.items() if not math.isfinite(v)), None)
        if bad is not None:
            raise PolicyError(
                f"policy {_describe(type(self))} gave job {self.jobs[bad].job_id} the priority "
                f"{keys[bad]}: priorities must be finite numbers"
            )
        ranked = sorted(queue, key=lambda k: (-keys[k], k))
        if self.backfill:
            started = self._backfill(ranked, now)
        else:
            started = self.start_in_order(ranked, now)
        return self._started(started, now)

    def _backfill(self, ranked: list[int], now: int) -> list[int]:
        profile = self.profile
        procs, estimate = self.procs, self.estimate
        limit = self.reservations
        started: list[int] = []
        held: list[tuple[int, int, int]] = []  # this decision's reservations (start, end, n)
        try:
            for k in ranked:
                if profile.free_now == 0:
                    break  # nothing else can start now
                n, d = procs[k], estimate[k]
                if profile.free_now >= n and profile.free_over(now, now + d) >= n:
                    profile.reserve(now, now + d, n)
                    started.append(k)
                elif limit is None or len(held) < limit:
                    s = profile.earliest_start(n, d, now)
                    profile.reserve(s, s + d, n)
                    held.append((s, s + d, n))
        finally:
            for s, e, n in held:
                profile.release(s, e, n)
        return started


class DecisionPolicy(_UserPolicy):
    """Start the jobs :meth:`decide` returns (see the module's docstring)."""

    def decide(self, view: View) -> Iterable[Job | int]:
        """The jobs (or their indices) to start now.  Override this."""
        raise NotImplementedError

    def schedule(self, now: int, changed: bool) -> list[int]:
        if not self.queue:
            return []
        job = self.job
        queue = [job(k) for k in self.queue]
        running = [
            Running(job(k), s, s + self.estimate[k]) for k, s in sorted(self._running.items())
        ]
        try:
            chosen = list(self.decide(View(now, queue, running, self._state)) or ())
        except Exception as exc:  # the user's code: name its line
            raise self._fail(exc) from exc
        waiting = set(self.queue)
        started: list[int] = []
        for item in chosen:
            k = item.index if isinstance(item, Job) else item
            self._check(k, now, waiting)
            self.profile.reserve(now, now + self.estimate[k], self.procs[k])
            waiting.discard(k)
            started.append(k)
        started.sort()
        return self._started(started, now)

    def _check(self, k: Any, now: int, waiting: set[int]) -> None:
        name = _describe(type(self))
        if isinstance(k, bool) or not isinstance(k, int):
            raise PolicyError(f"policy {name} returned {k!r}: decide() returns jobs or indices")
        if k not in waiting:
            if 0 <= k < len(self.submit_time) and self.submit_time[k] > now:
                raise PolicyError(
                    f"policy {name} started job {self.jobs[k].job_id} at {now}, before its "
                    f"submit time {self.submit_time[k]}"
                )
            raise PolicyError(f"policy {name} started job index {k}, which is not waiting")
        n, d = self.procs[k], self.estimate[k]
        free = self.profile.free_over(now, now + d)
        if free < n:
            raise PolicyError(
                f"policy {name} over-commits the machine: job {self.jobs[k].job_id} needs {n} "
                f"processors over [{now}, {now + d}) where {free} are free"
            )


# ---------------------------------------------------------------------- loading


def _describe(cls: type) -> str:
    return getattr(cls, "_gridportal_spec", "") or cls.__name__


def _where(exc: BaseException) -> str:
    """`` at FILE, line N`` for the innermost frame of the user's code in ``exc``'s traceback
    (the engine's own frames are skipped)."""
    here = Path(__file__).resolve().parent.parent  # the scheduler package
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        try:
            inside = Path(frame.filename).resolve().is_relative_to(here)
        except (OSError, ValueError):
            inside = False
        if not inside:
            return f" at {frame.filename}, line {frame.lineno}"
    return ""


def entry_for_class(cls: type, spec: str = "", source: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """The registry entry of a user policy class (a subclass of :class:`PriorityPolicy` or
    :class:`DecisionPolicy`); PolicyError if it is not one or does not override its method."""
    name = spec or getattr(cls, "__qualname__", repr(cls))
    if not (inspect.isclass(cls) and issubclass(cls, PriorityPolicy | DecisionPolicy)):
        raise PolicyError(
            f"{name}: a policy is a subclass of scheduler.policies.PriorityPolicy or DecisionPolicy"
        )
    method = "priority" if issubclass(cls, PriorityPolicy) else "decide"
    base = PriorityPolicy if method == "priority" else DecisionPolicy
    if getattr(cls, method) is getattr(base, method):
        raise PolicyError(f"{name}: {base.__name__} needs a {method}() method")
    reservations = getattr(cls, "reservations", None)
    if reservations is not None and (
        isinstance(reservations, bool) or not isinstance(reservations, int) or reservations < 0
    ):
        raise PolicyError(f"{name}: reservations must be an int >= 0 or None")
    cls._gridportal_spec = name
    title = cls.title or cls.__name__
    doc = inspect.getdoc(cls) or ""
    return PolicyEntry(
        name, title, title, doc.split("\n\n")[0], lambda state, _value: cls(state),
        decides_afresh=True, spec=name, source=dict(source or {}),
    )  # fmt: skip


_LOADED: dict[tuple[str, str, str], Any] = {}  # (path, sha256, class) -> entry


def load_policy_file(text: str):  # type: ignore[no-untyped-def]
    """The registry entry of ``path/to/file.py:ClassName``: the file is read, compiled and run
    as a fresh module, and the class checked (:func:`entry_for_class`); a file of the same
    content is loaded once.  Errors name the file and line."""
    path_text, _, cls_name = text.rpartition(":")
    path = Path(path_text)
    if not cls_name.isidentifier():
        raise PolicyError(f"policy {text!r}: write path/to/file.py:ClassName")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PolicyError(f"policy file {path_text}: {exc.strerror or exc}") from None
    if len(data) > MAX_POLICY_FILE:
        raise PolicyError(f"policy file {path_text}: larger than {MAX_POLICY_FILE:,} bytes")
    digest = hashlib.sha256(data).hexdigest()
    key = (str(path.resolve()), digest, cls_name)
    entry = _LOADED.get(key)
    if entry is not None:
        return entry
    module = _run_module(path, data, digest)
    cls = getattr(module, cls_name, None)
    if cls is None:
        found = sorted(
            n for n, v in vars(module).items()
            if inspect.isclass(v) and issubclass(v, PriorityPolicy | DecisionPolicy)
            and v not in (PriorityPolicy, DecisionPolicy)
        )  # fmt: skip
        raise PolicyError(
            f"policy file {path_text} defines no {cls_name!r}"
            + (f" (policies in it: {', '.join(found)})" if found else "")
        )
    entry = entry_for_class(cls, text, {"file": path_text, "sha256": digest, "class": cls_name})
    _LOADED[key] = entry
    return entry


def _run_module(path: Path, data: bytes, digest: str) -> types.ModuleType:
    try:
        source = data.decode("utf-8")
        code = compile(source, str(path), "exec")
    except UnicodeDecodeError as exc:
        raise PolicyError(f"policy file {path}: not UTF-8 text ({exc.reason})") from None
    except SyntaxError as exc:
        raise PolicyError(f"policy file {path}, line {exc.lineno}: {exc.msg}") from None
    module = types.ModuleType(f"gridportal_policy_{digest[:16]}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module  # dataclasses and pickling look modules up by name
    try:
        exec(code, module.__dict__)  # noqa: S102 (the user's own policy file, run as the user)
    except Exception as exc:
        del sys.modules[module.__name__]
        raise PolicyError(f"policy file {path} failed{_where(exc)}: {exc!r}") from None
    return module
