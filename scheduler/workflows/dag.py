"""The workflow model: a DAG of tasks with runtimes and processor counts, edges carrying data.

Thesis §4.1 (the application model): each task has processors and a runtime (per resource when
resources differ); edges carry data, whose transfer time is latency + size/bandwidth (0 on the same
resource).  A virtual entry and exit task are added when there are several roots or sinks —
here that is a function, :func:`with_virtual_endpoints`, never baked into the model, so that
counts of "real" tasks stay what the user uploaded.

Everything is plain, frozen data.  A :class:`Workflow` validates itself when built (duplicate
ids, edges naming unknown tasks, self-loops and cycles) and raises :class:`WorkflowError`, whose
``errors`` is a list of ``(location, reason)``; ``location`` names a task, an edge, a line of a
file or a JSON path.  Parsers pass a ``locate`` function so that a cycle found after parsing is
reported at the line (DAX) or JSON path (WfFormat, native) that defined the task.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import InitVar, dataclass, field
from typing import Any

from ..bounds import MAX_BYTES_DATA, MAX_PROCS, MAX_SECONDS, BoundError, check_text

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_EDGES",
    "DEFAULT_MAX_TASKS",
    "Edge",
    "Limits",
    "ReadNotes",
    "Task",
    "Workflow",
    "WorkflowError",
    "with_virtual_endpoints",
]

#: Default size limits of an uploaded workflow (parameters of every loader).
DEFAULT_MAX_TASKS = 100_000
DEFAULT_MAX_EDGES = 1_000_000
DEFAULT_MAX_BYTES = 50 * 1024 * 1024

_MAX_ERRORS = 20


class WorkflowError(ValueError):
    """A workflow that cannot be read or is not a valid DAG.

    ``errors`` is a list of ``(location, reason)``: the location names the line (``"line 12"``),
    the XML element, the task (``"task 'ID00003'"``), the edge or the JSON path
    (``"$.workflow.specification.tasks[4].parents[0]"``) at fault.  ``str(err)`` lists them, one
    per line, as ``location: reason``.
    """

    def __init__(self, errors: Iterable[tuple[str, str]], *, source: str | None = None) -> None:
        self.errors = [(str(loc), str(reason)) for loc, reason in errors]
        if not self.errors:
            self.errors = [("workflow", "invalid workflow")]
        self.source = source
        super().__init__(self._message())

    def _message(self) -> str:
        lines = [f"{loc}: {reason}" if loc else reason for loc, reason in self.errors]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Limits:
    """Size limits applied while reading a workflow (bad input is refused, naming the limit)."""

    max_tasks: int = DEFAULT_MAX_TASKS
    max_edges: int = DEFAULT_MAX_EDGES
    max_bytes: int | None = DEFAULT_MAX_BYTES


def utf8_text(data: bytes, what: str) -> str:
    """``data`` decoded as UTF-8 (a byte-order mark dropped), or a :class:`WorkflowError`
    naming the line of the first byte that is not (``what``: "JSON", "YAML")."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise WorkflowError([(f"line {line}", f"{what} must be UTF-8 text")]) from None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_seconds(value: Any, what: str = "runtime") -> str | None:
    """Return why ``value`` is not a valid duration in seconds (finite, >= 0), or None."""
    if not _is_number(value):
        return f"{what} must be a number of seconds, got {value!r}"
    if not math.isfinite(value):
        return f"{what} must be finite, got {value!r}"
    if value < 0:
        return f"{what} must be >= 0 seconds, got {value!r}"
    if value > MAX_SECONDS:
        return f"{what} must be at most {MAX_SECONDS:.0f} seconds (100 years), got {value:.6g}"
    return None


def check_processors(value: Any) -> str | None:
    """Return why ``value`` is not a valid processor count (an integer >= 1), or None."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        return f"processors must be an integer >= 1, got {value!r}"
    if value < 1:
        return f"processors must be >= 1, got {value}"
    if value > MAX_PROCS:
        return f"processors must be at most {MAX_PROCS}, got {value:.6g}"
    return None


def check_bytes(value: Any) -> str | None:
    """Return why ``value`` is not a valid data size (finite number of bytes >= 0), or None."""
    if not _is_number(value) or not math.isfinite(value):
        return f"data size must be a number of bytes, got {value!r}"
    if value < 0:
        return f"data size must be >= 0 bytes, got {value!r}"
    if value > MAX_BYTES_DATA:
        return f"data size must be at most {MAX_BYTES_DATA:.0e} bytes (1 PB), got {value:.6g}"
    return None


def check_name(value: Any, what: str = "name") -> str | None:
    """Return why ``value`` cannot be stored as a name (not UTF-8 encodable, e.g. a lone
    surrogate ``"\\ud800"``, or a NUL character), or None."""
    if not isinstance(value, str):
        return None
    try:
        check_text(value, what, max_length=100_000)
    except BoundError as exc:
        return exc.message
    return None


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _named(items: list[str], shown: int) -> str:
    rest = len(items) - shown
    return ", ".join(items[:shown]) + (f" and {rest} more" if rest > 0 else "")


@dataclass
class ReadNotes:
    """What a reader assumed, collected job by job and given as :attr:`Workflow.notes`.

    Classic Pegasus traces carry negative values — runtimes such as -1.03 s and file sizes in
    ``Epigenomics_997.xml`` of the Pegasus Workflow Generator (Bharathi et al., WORKS 2008) —
    which are measurement artefacts, not durations: a reader records them here and uses 0 s
    (runtime) or an unknown size instead of refusing the file.  Defaults taken for a missing
    runtime or processor count are recorded too, so a schedule built on them never hides them.
    Each note names the first :attr:`shown` jobs.
    """

    runtime_key: str = "runtime"
    cores_key: str = "processor count"
    noun: str = "job"
    shown: int = 5
    negative_runtimes: list[str] = field(default_factory=list)
    negative_sizes: list[str] = field(default_factory=list)
    default_runtimes: list[str] = field(default_factory=list)
    default_cores: list[str] = field(default_factory=list)

    def runtime(self, job: str, value: float) -> float:
        """``value`` read as seconds: a negative one is noted and read as 0."""
        if value < 0:
            self.negative_runtimes.append(f"{job} ({value:g} s)")
            return 0.0
        return value

    def size(self, job: str, file: str, value: float) -> float | None:
        """``value`` read as bytes: a negative one is noted and read as unknown (None)."""
        if value < 0:
            self.negative_sizes.append(f"{job} {file} ({value:.0f} bytes)")
            return None
        return value

    def notes(self, jobs: int, default_runtime: float | None) -> tuple[str, ...]:
        """One sentence per kind of assumption, e.g. ``"default runtime of 60 s (no
        pegasus.runtime profile) for 1 of 2 jobs: j2"``."""
        n = self.noun
        kinds = (
            (
                self.negative_runtimes,
                "negative runtime read as 0 s (a measurement artefact of the trace)",
                n,
            ),
            (
                self.negative_sizes,
                f"negative file size read as unknown (the size the other {n} gives, else 0 bytes)",
                "file use",
            ),
            (
                self.default_runtimes,
                f"default runtime of {default_runtime or 0:g} s (no {self.runtime_key})",
                n,
            ),
            (self.default_cores, f"default of 1 processor (no {self.cores_key})", n),
        )
        out = []
        for items, what, noun in kinds:
            if not items:
                continue
            if noun == n and len(items) == jobs:
                out.append(f"{what} for all {_many(jobs, n)}")
            else:
                count = _many(len(items), noun) if noun != n else f"{len(items)} of {jobs} {n}s"
                out.append(f"{what} for {count}: {_named(items, self.shown)}")
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Task:
    """One task: ``runtime`` seconds on ``processors`` processors.

    ``runtimes`` holds per-site runtimes when they differ (a mapping site → seconds is accepted
    and stored as sorted ``(site, seconds)`` pairs so the task stays hashable); a site that is
    not listed uses ``runtime``.  ``module`` is the task's type or transformation (e.g.
    ``mProjectPP``).  ``virtual`` marks the zero-runtime entry/exit tasks added by
    :func:`with_virtual_endpoints`: they need no processor and are never counted as real tasks.
    """

    id: str
    runtime: float
    processors: int = 1
    name: str = field(default="", kw_only=True)
    module: str | None = field(default=None, kw_only=True)
    runtimes: tuple[tuple[str, float], ...] = field(default=(), kw_only=True)
    virtual: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        errors: list[tuple[str, str]] = []
        where = f"task {self.id!r}"
        if not isinstance(self.id, str) or not self.id:
            raise WorkflowError([(where, "task id must be a non-empty string")])
        for what, text in (("task id", self.id), ("name", self.name), ("module", self.module)):
            if reason := check_name(text, what):
                raise WorkflowError([(where.encode("utf-8", "replace").decode(), reason)])
        reason = check_seconds(self.runtime)
        if reason:
            errors.append((where, reason))
        else:
            object.__setattr__(self, "runtime", float(self.runtime))
        reason = check_processors(self.processors)
        if reason:
            errors.append((where, reason))
        else:
            object.__setattr__(self, "processors", int(self.processors))
        pairs = self.runtimes.items() if isinstance(self.runtimes, Mapping) else self.runtimes
        clean: dict[str, float] = {}
        for site, seconds in pairs:
            reason = check_seconds(seconds, f"runtime on site {site!r}")
            if not isinstance(site, str) or not site:
                errors.append((where, f"site names must be non-empty strings, got {site!r}"))
            elif reason:
                errors.append((where, reason))
            else:
                clean[site] = float(seconds)
        if errors:
            raise WorkflowError(errors)
        object.__setattr__(self, "runtimes", tuple(sorted(clean.items())))
        if not self.name:
            object.__setattr__(self, "name", self.id)

    def runtime_on(self, site: str) -> float:
        """Runtime on ``site``: its own entry in ``runtimes``, else ``runtime``."""
        for name, seconds in self.runtimes:
            if name == site:
                return seconds
        return self.runtime

    @property
    def mean_runtime(self) -> float:
        """Mean over the listed sites (HEFT's w, thesis eq. 7), or ``runtime`` if none."""
        if not self.runtimes:
            return self.runtime
        return sum(s for _, s in self.runtimes) / len(self.runtimes)


@dataclass(frozen=True, slots=True)
class Edge:
    """A dependency ``parent → child`` carrying ``data`` bytes (rounded to whole bytes)."""

    parent: str
    child: str
    data: int = 0

    def __post_init__(self) -> None:
        reason = check_bytes(self.data)
        if reason:
            raise WorkflowError([(f"edge {self.parent!r} -> {self.child!r}", reason)])
        object.__setattr__(self, "data", int(round(self.data)))


def _default_locate(task_id: str) -> str:
    return f"task {task_id!r}"


@dataclass(frozen=True)
class Workflow:
    """A validated DAG: tasks, distinct edges, a name, and indexes over them.

    ``locate`` (construction only) maps a task id to the place that defined it, used in error
    locations.  The topological order is deterministic: Kahn's algorithm taking, among ready
    tasks, the one listed first.
    """

    tasks: tuple[Task, ...]
    edges: tuple[Edge, ...] = ()
    name: str = "workflow"
    locate: InitVar[Callable[[str], str] | None] = None
    #: What the reader assumed (e.g. default runtimes), shown by workflow-info and the portal.
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: The format it was read from (``dax``, ``pegasus-yaml``, ``pegasus-json``, ``wfformat``,
    #: ``native``); "" when built in memory (e.g. generated).
    source: str = field(default="", compare=False)
    _index: dict[str, int] = field(init=False, repr=False, compare=False)
    _parents: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    _children: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    _edge_at: dict[tuple[int, int], Edge] = field(init=False, repr=False, compare=False)
    _order: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self, locate: Callable[[str], str] | None) -> None:
        where = locate or _default_locate
        object.__setattr__(self, "tasks", tuple(self.tasks))
        object.__setattr__(self, "edges", tuple(self.edges))
        errors: list[tuple[str, str]] = []
        if not self.tasks:
            raise WorkflowError([("workflow", "the workflow has no tasks")])
        if reason := check_name(self.name, "the workflow's name"):
            raise WorkflowError([("workflow", reason)])
        index: dict[str, int] = {}
        for i, task in enumerate(self.tasks):
            if not isinstance(task, Task):
                raise TypeError(f"tasks[{i}] is {type(task).__name__}, not Task")
            if task.id in index:
                errors.append((where(task.id), f"duplicate task id {task.id!r}"))
            else:
                index[task.id] = i
        parents: list[list[int]] = [[] for _ in self.tasks]
        children: list[list[int]] = [[] for _ in self.tasks]
        edge_at: dict[tuple[int, int], Edge] = {}
        for edge in self.edges:
            label = f"edge {edge.parent!r} -> {edge.child!r}"
            p, c = index.get(edge.parent), index.get(edge.child)
            if p is None or c is None:
                unknown = edge.parent if p is None else edge.child
                errors.append((label, f"unknown task id {unknown!r}"))
            elif p == c:
                errors.append((label, "a task cannot depend on itself"))
            elif (p, c) in edge_at:
                errors.append((label, "duplicate edge"))
            else:
                edge_at[(p, c)] = edge
                parents[c].append(p)
                children[p].append(c)
            if len(errors) >= _MAX_ERRORS:
                break
        if errors:
            raise WorkflowError(errors)
        order = _kahn(children, [len(ps) for ps in parents])
        if len(order) < len(self.tasks):
            cycle = _find_cycle(parents, set(range(len(self.tasks))) - set(order))
            ids = [self.tasks[i].id for i in cycle]
            path = " -> ".join(repr(t) for t in [*ids, ids[0]])
            raise WorkflowError([(where(ids[0]), f"dependency cycle: {path}")])
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_parents", tuple(tuple(ps) for ps in parents))
        object.__setattr__(self, "_children", tuple(tuple(cs) for cs in children))
        object.__setattr__(self, "_edge_at", edge_at)
        object.__setattr__(self, "_order", tuple(order))

    # -- lookups ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.tasks)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._index

    def task(self, task_id: str) -> Task:
        """The task with this id (KeyError if none)."""
        return self.tasks[self._index[task_id]]

    def index(self, task_id: str) -> int:
        """Position of the task in ``tasks``."""
        return self._index[task_id]

    def parents(self, task_id: str) -> tuple[str, ...]:
        return tuple(self.tasks[p].id for p in self._parents[self._index[task_id]])

    def children(self, task_id: str) -> tuple[str, ...]:
        return tuple(self.tasks[c].id for c in self._children[self._index[task_id]])

    def edge(self, parent: str, child: str) -> Edge:
        """The edge ``parent → child`` (KeyError if there is none)."""
        return self._edge_at[(self._index[parent], self._index[child])]

    @property
    def parent_indices(self) -> tuple[tuple[int, ...], ...]:
        """``parent_indices[i]``: positions of the parents of ``tasks[i]`` (fast path)."""
        return self._parents

    @property
    def child_indices(self) -> tuple[tuple[int, ...], ...]:
        return self._children

    def edge_data(self, parent: int, child: int) -> int:
        """Bytes on the edge between the tasks at these positions."""
        return self._edge_at[(parent, child)].data

    @property
    def topological_order(self) -> tuple[str, ...]:
        return tuple(self.tasks[i].id for i in self._order)

    @property
    def topological_indices(self) -> tuple[int, ...]:
        return self._order

    @property
    def roots(self) -> tuple[str, ...]:
        """Tasks without parents, in list order."""
        return tuple(t.id for i, t in enumerate(self.tasks) if not self._parents[i])

    @property
    def sinks(self) -> tuple[str, ...]:
        """Tasks without children, in list order."""
        return tuple(t.id for i, t in enumerate(self.tasks) if not self._children[i])

    @property
    def real_tasks(self) -> tuple[Task, ...]:
        """The tasks that are not virtual entry/exit tasks."""
        return tuple(t for t in self.tasks if not t.virtual)

    @property
    def sites(self) -> tuple[str, ...]:
        """Every site named in some task's per-site runtimes, sorted."""
        return tuple(sorted({s for t in self.tasks for s, _ in t.runtimes}))


def _kahn(children: list[list[int]], indegree: list[int]) -> list[int]:
    """Topological order; among ready tasks the lowest position goes first."""
    remaining = list(indegree)
    ready = [i for i, d in enumerate(remaining) if d == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for c in children[i]:
            remaining[c] -= 1
            if remaining[c] == 0:
                heapq.heappush(ready, c)
    return order


def _find_cycle(parents: list[list[int]], left: set[int]) -> list[int]:
    """A cycle among ``left`` (the tasks Kahn could not order), in dependency order, starting
    at its task listed first.

    Every task left over has a parent that is also left over, so walking up parents from any
    of them must revisit a task; the walk from that repeat is the cycle.
    """
    start = min(left)
    seen: dict[int, int] = {}
    walk: list[int] = []
    node = start
    while node not in seen:
        seen[node] = len(walk)
        walk.append(node)
        node = min(p for p in parents[node] if p in left)
    cycle = walk[seen[node] :]
    cycle.reverse()  # walked child → parent; report parent → child
    first = cycle.index(min(cycle))  # start at the task listed first
    return cycle[first:] + cycle[:first]


def fresh_id(wanted: str, taken: Mapping[str, Any] | set[str]) -> str:
    """``wanted``, or ``wanted2``, ``wanted3``… — the first that is not in ``taken``."""
    candidate, n = wanted, 1
    while candidate in taken:
        n += 1
        candidate = f"{wanted}{n}"
    return candidate


def with_virtual_endpoints(
    workflow: Workflow,
    *,
    always: bool = False,
    entry_id: str = "__entry__",
    exit_id: str = "__exit__",
) -> Workflow:
    """Add a zero-runtime virtual entry task when there are several roots and a virtual exit
    task when there are several sinks (thesis §4.1 assumes a single n_entry/n_exit).

    With ``always=True`` both are added regardless.  The ids are made unique by appending a
    number when taken.  Edges to and from virtual tasks carry no data.  Returns a new workflow;
    the original is unchanged.
    """
    roots, sinks = workflow.roots, workflow.sinks
    tasks = list(workflow.tasks)
    edges = list(workflow.edges)
    taken = set(workflow._index)
    if always or len(roots) > 1:
        entry = fresh_id(entry_id, taken)
        taken.add(entry)
        tasks.insert(0, Task(entry, 0.0, name="entry", module="virtual", virtual=True))
        edges.extend(Edge(entry, r) for r in roots)
    if always or len(sinks) > 1:
        exit_ = fresh_id(exit_id, taken)
        tasks.append(Task(exit_, 0.0, name="exit", module="virtual", virtual=True))
        edges.extend(Edge(s, exit_) for s in sinks)
    if len(tasks) == len(workflow.tasks):
        return workflow
    return Workflow(tuple(tasks), tuple(edges), workflow.name)
