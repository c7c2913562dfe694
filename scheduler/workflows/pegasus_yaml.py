"""Pegasus 5 abstract workflows (YAML or JSON, ``pegasus: "5.0"``) → :class:`~.dag.Workflow`.

Pegasus 5 writes its abstract workflow as YAML (schema ``wf-5.0.yml`` in the Pegasus
distribution, ``share/pegasus/schema/yaml/``) and is retiring the DAX XML format; its Python
API (``Pegasus.api.Workflow.write(..., _format="json")``) writes the same document as JSON,
which :mod:`.loader` hands to :func:`parse_pegasus`.  What is read::

    pegasus: "5.0"
    name: diamond
    jobs:
      - type: job                    # "dag" / "dax" sub-workflows are refused
        id: ID0000001
        name: preprocess             # the transformation → the task's module
        namespace: diamond           # optional, with version: picks the transformation
        arguments: [-a, preprocess]
        uses:
          - {lfn: f.a, type: input}
          - {lfn: f.b, type: output, size: 1024}   # bytes (string or number), else
                                                   # metadata: {size: ...} (File.add_metadata)
        profiles: {pegasus: {runtime: "60", cores: "4"}}
    jobDependencies:
      - {id: ID0000001, children: [ID0000002, ID0000003]}
    transformationCatalog: {transformations: [{name: preprocess, profiles: {...}, sites: [...]}]}
    replicaCatalog: {...}  siteCatalog: {...}  profiles: {...}  hooks: {...}  metadata: {...}

Keys may come in any order; ``x-…`` vendor keys, hooks, metadata, the site and replica
catalogs are read past.

- **Runtime** (seconds): the ``pegasus`` profile key ``runtime`` — Pegasus's own "expected time
  in seconds that a job will take to complete" — looked up on the job, then on the job's
  transformation (its site entries, then the transformation itself, in the inline
  transformation catalog), then on the workflow's ``profiles``.  A job with no runtime profile
  anywhere takes ``default_runtime`` when the caller gives one, else :data:`DEFAULT_RUNTIME`
  (60 s); the workflow's ``notes`` say which jobs took the default, so a schedule built on
  them is never silently meaningless.  (Pegasus's own example workflows carry no runtimes.)
  A negative runtime is read as 0 s and named in the ``notes`` (:class:`~.dag.ReadNotes`).
- **Processors**: the ``pegasus`` profile ``cores`` (job, transformation, workflow), else the
  ``globus`` profile ``count``, else 1 (said in the ``notes``).
- **Edges**: only from ``jobDependencies`` (``children``; a ``parents`` list is accepted too);
  edge data is the total size of files the parent ``uses`` as ``output``/``inout`` that the
  child uses as ``input``/``inout`` (a size declared on either side, else 0; a negative size is
  read as not declared and named in the ``notes``).

YAML is read with a safe loader that refuses anchors and aliases (alias "billion laughs"
bombs), tags beyond the plain scalars, and nesting deeper than :data:`MAX_DEPTH`.  Errors name
the YAML line or the path (``$.jobs[3].profiles.pegasus.runtime``).
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from .dag import Edge, Limits, ReadNotes, Task, Workflow, WorkflowError, check_seconds, utf8_text
from .jsonpath import Reader, join

__all__ = [
    "DEFAULT_RUNTIME",
    "MAX_DEPTH",
    "looks_like_pegasus_yaml",
    "parse_pegasus",
    "parse_pegasus_yaml",
]

#: Seconds given to a job with no ``pegasus.runtime`` profile anywhere (documented default).
DEFAULT_RUNTIME = 60.0
#: Deepest nesting of mappings/sequences accepted (a Pegasus workflow needs about 8).
MAX_DEPTH = 64
_MAX_INT_DIGITS = 30
_OUTPUT = frozenset({"output", "inout"})
_INPUT = frozenset({"input", "inout"})


def looks_like_pegasus_yaml(data: bytes) -> bool:
    """True when the first 64 KiB hold a top-level ``pegasus:`` key (and it is not XML/JSON)."""
    head = data[:65536]
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    for raw in head.splitlines():
        line = raw.rstrip()
        if line.startswith(b"pegasus:"):
            return True
    return False


class _Loader(yaml.SafeLoader):
    """SafeLoader without anchors/aliases and with a depth limit."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError(
                None, None, "aliases (*name) are not accepted", event.start_mark
            )
        event = self.peek_event()
        if getattr(event, "anchor", None):
            raise yaml.MarkedYAMLError(
                None, None, "anchors (&name) are not accepted", event.start_mark
            )
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise yaml.MarkedYAMLError(
                    None, None, f"nested deeper than {MAX_DEPTH} levels", event.start_mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    digits = sum(ch.isdigit() for ch in str(node.value))
    if digits > _MAX_INT_DIGITS:
        raise yaml.MarkedYAMLError(
            None, None, f"an integer of {digits} digits is out of range", node.start_mark
        )
    return yaml.SafeLoader.construct_yaml_int(loader, node)


_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _load(data: bytes) -> Any:
    text = utf8_text(data, "YAML")
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a restricted SafeLoader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark else "file"
        raise WorkflowError([(where, f"invalid YAML: {exc.problem or exc.context}")]) from None
    except yaml.YAMLError as exc:
        raise WorkflowError([("file", f"invalid YAML: {exc}")]) from None
    except (RecursionError, ValueError, OverflowError) as exc:
        raise WorkflowError([("file", f"invalid YAML: {exc}")]) from None


def _number(r: Reader, value: Any, path: str) -> float | None:
    """A profile value: a number or a numeric string ("60", "1.5")."""
    if isinstance(value, bool):
        r.error(path, f"must be a number, got {value!r}")
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            r.error(path, f"must be a number, got {value!r}")
            return None
    if not isinstance(value, int | float) or not math.isfinite(value):
        r.error(path, f"must be a finite number, got {value!r}")
        return None
    return float(value)


def _profile(profiles: Any, namespace: str, key: str) -> Any:
    if not isinstance(profiles, dict):
        return None
    ns = profiles.get(namespace)
    if not isinstance(ns, dict):
        return None
    return ns.get(key)


def _transformations(r: Reader, doc: dict[str, Any]) -> dict[tuple[str, str], list[tuple]]:
    """(namespace or "", name) → [(profiles, path)] in lookup order (sites first)."""
    out: dict[tuple[str, str], list[tuple]] = {}
    tc = doc.get("transformationCatalog")
    if not isinstance(tc, dict):
        return out
    base = "$.transformationCatalog.transformations"
    for name, t, path in r.named(tc.get("transformations", []), base, "name"):
        ns = t.get("namespace") if isinstance(t.get("namespace"), str) else ""
        chain: list[tuple] = []
        sites = t.get("sites") if isinstance(t.get("sites"), list) else []
        for j, site in enumerate(sites):
            if isinstance(site, dict) and "profiles" in site:
                chain.append((site["profiles"], join(join(join(path, "sites"), j), "profiles")))
        if "profiles" in t:
            chain.append((t["profiles"], join(path, "profiles")))
        out.setdefault((ns, name), []).extend(chain)
        if ns:
            out.setdefault(("", name), []).extend(chain)
    return out


def _lookup(chain: list[tuple[Any, str]], namespace: str, key: str) -> tuple[Any, str] | None:
    for profiles, path in chain:
        value = _profile(profiles, namespace, key)
        if value is not None:
            return value, join(join(path, namespace), key)
    return None


def _size(r: Reader, use: dict[str, Any], path: str, job: str, lfn: str, notes: ReadNotes) -> int:
    """The bytes a ``uses`` entry declares (``size``, else ``metadata.size``); 0 when none."""
    value = use.get("size")
    if value is None and isinstance(use.get("metadata"), dict):
        value, path = use["metadata"].get("size"), join(join(path, "metadata"), "size")
    else:
        path = join(path, "size")
    if value is None:
        return 0
    number = _number(r, value, path)
    if number is None:
        return 0
    return int(round(notes.size(job, lfn, number) or 0))


def parse_pegasus_yaml(
    data: bytes,
    *,
    name: str | None = None,
    limits: Limits | None = None,
    default_runtime: float | None = None,
) -> Workflow:
    """Build a workflow from the bytes of a Pegasus 5 YAML abstract workflow (see module doc)."""
    return parse_pegasus(
        _load(data),
        name=name,
        limits=limits,
        default_runtime=default_runtime,
        source="pegasus-yaml",
    )


def _header(r: Reader, doc: Any, limits: Limits) -> tuple[dict[str, Any], list[Any]]:
    """The document's top mapping and its ``jobs`` array, its version and size checked."""
    top = r.obj(doc, "$")
    r.raise_if_any()
    assert top is not None
    version = top.get("pegasus")
    if version is None:
        raise WorkflowError([("$", "missing required key 'pegasus' (the format version, '5.0')")])
    if str(version).split(".")[0] != "5":
        raise WorkflowError(
            [("$.pegasus", f"Pegasus workflow version {version!r} is not supported (5.x is)")]
        )
    jobs_in = r.array(r.field(top, "jobs", "$"), "$.jobs")
    r.raise_if_any()
    assert jobs_in is not None
    if len(jobs_in) > limits.max_tasks:
        raise WorkflowError(
            [("$.jobs", f"{len(jobs_in)} jobs, more than the limit of {limits.max_tasks}")]
        )
    return top, jobs_in


def _chain(
    r: Reader,
    job: dict[str, Any],
    path: str,
    transformation: list[tuple[Any, str]],
    workflow: list[tuple[Any, str]],
) -> list[tuple[Any, str]]:
    """Where a job's profiles are looked up, first to last: the job's own, its
    transformation's (sites first), the workflow's."""
    chain: list[tuple[Any, str]] = []
    if "profiles" in job:
        if not isinstance(job["profiles"], dict):
            r.error(join(path, "profiles"), "must be a mapping of namespace → keys")
        chain.append((job["profiles"], join(path, "profiles")))
    return chain + transformation + workflow


def _runtime_and_cores(
    r: Reader, chain: list[tuple[Any, str]], jid: str, fallback: float, notes: ReadNotes
) -> tuple[float | None, int]:
    """The job's runtime (``pegasus.runtime``; the fallback when absent, None when refused)
    and processors (``pegasus.cores`` or ``globus.count``; 1 when absent)."""
    found = _lookup(chain, "pegasus", "runtime")
    runtime: float | None
    if found is None:
        runtime = fallback
        notes.default_runtimes.append(jid)
    else:
        runtime = _number(r, found[0], found[1])
        if runtime is not None:
            runtime = notes.runtime(jid, runtime)
            reason = check_seconds(runtime, "runtime")
            if reason:
                r.error(found[1], reason)
                runtime = None
    cores = _lookup(chain, "pegasus", "cores") or _lookup(chain, "globus", "count")
    procs = 1
    if cores is None:
        notes.default_cores.append(jid)
    else:
        value = _number(r, cores[0], cores[1])
        if value is not None and value < 1:
            r.error(cores[1], f"must be >= 1, got {cores[0]!r}")
        elif value is not None:
            procs = math.ceil(value)
    return runtime, procs


def _uses(
    r: Reader, job: dict[str, Any], path: str, jid: str, notes: ReadNotes
) -> tuple[dict[str, int], dict[str, int]]:
    """The job's output and input files (logical name → size in bytes) from its ``uses``."""
    outs: dict[str, int] = {}
    ins: dict[str, int] = {}
    for lfn, use, use_path in r.named(job.get("uses", []), join(path, "uses"), "lfn"):
        link = use.get("type", "input")
        if not isinstance(link, str):
            r.error(join(use_path, "type"), f"must be input/output/inout, got {link!r}")
            continue
        size = _size(r, use, use_path, jid, lfn, notes)
        if link in _OUTPUT:
            outs[lfn] = size
        if link in _INPUT:
            ins[lfn] = size
    return outs, ins


def _dependencies(
    r: Reader, top: dict[str, Any], paths: dict[str, str], limits: Limits
) -> dict[tuple[str, str], None]:
    """The ``(parent, child)`` pairs of ``jobDependencies``, in order, each once."""
    pairs: dict[tuple[str, str], None] = {}
    for jid, dep, path in r.named(top.get("jobDependencies", []), "$.jobDependencies", "id"):
        if jid not in paths:
            r.error(join(path, "id"), f"names no job: {jid!r}")
            continue
        for key, as_parent in (("children", True), ("parents", False)):
            for j, other in enumerate(r.strings(dep.get(key), join(path, key))):
                where = join(join(path, key), j)
                if other not in paths:
                    r.error(where, f"names no job: {other!r}")
                elif other == jid:
                    r.error(where, f"job {jid!r} cannot depend on itself")
                else:
                    pairs[(jid, other) if as_parent else (other, jid)] = None
                    if len(pairs) > limits.max_edges:
                        r.error(where, f"more than {limits.max_edges} edges (the limit)")
                        r.raise_if_any()
    return pairs


def parse_pegasus(
    doc: Any,
    *,
    name: str | None = None,
    limits: Limits | None = None,
    default_runtime: float | None = None,
    source: str = "pegasus-json",
) -> Workflow:
    """Build a workflow from a parsed Pegasus 5 document (YAML or JSON; see module doc)."""
    limits = limits or Limits()
    r = Reader()
    top, jobs_in = _header(r, doc, limits)
    catalog = _transformations(r, top)
    wf_chain = [(top["profiles"], "$.profiles")] if "profiles" in top else []
    fallback = DEFAULT_RUNTIME if default_runtime is None else float(default_runtime)

    paths: dict[str, str] = {}
    tasks: list[Task] = []
    outputs: dict[str, dict[str, int]] = {}
    inputs: dict[str, dict[str, int]] = {}
    notes = ReadNotes(
        runtime_key="pegasus.runtime profile", cores_key="pegasus.cores or globus.count profile"
    )
    for jid, job, path in r.named(jobs_in, "$.jobs", "id"):
        kind = job.get("type", "job")
        if kind != "job":
            r.error(join(path, "type"), f"sub-workflow jobs ({kind!r}) are not supported")
            continue
        if jid in paths:
            r.error(join(path, "id"), f"duplicate job id {jid!r} (first at {paths[jid]})")
            continue
        paths[jid] = path
        tname = job.get("name") if isinstance(job.get("name"), str) and job.get("name") else None
        ns = job.get("namespace") if isinstance(job.get("namespace"), str) else ""
        entries = (catalog.get((ns, tname)) or catalog.get(("", tname)) or []) if tname else []
        chain = _chain(r, job, path, entries, wf_chain)
        runtime, procs = _runtime_and_cores(r, chain, jid, fallback, notes)
        outputs[jid], inputs[jid] = _uses(r, job, path, jid, notes)
        if runtime is not None:
            try:
                tasks.append(Task(jid, runtime, procs, name=tname or jid, module=tname))
            except WorkflowError as exc:
                for _, reason in exc.errors:
                    r.error(path, reason)
    r.raise_if_any()
    pairs = _dependencies(r, top, paths, limits)
    r.raise_if_any()
    if not tasks:
        raise WorkflowError([("$.jobs", "the workflow has no jobs")])
    edges = []
    for parent, child in pairs:
        out, want = outputs.get(parent, {}), inputs.get(child, {})
        data = sum(out[f] or want[f] for f in want if f in out)
        edges.append(Edge(parent, child, data))
    label = top.get("name") if isinstance(top.get("name"), str) and top.get("name") else name
    return Workflow(
        tuple(tasks),
        tuple(edges),
        label or "workflow",
        locate=lambda tid: f"{paths[tid]} (job {tid!r})",
        notes=notes.notes(len(tasks), fallback),
        source=source,
    )
