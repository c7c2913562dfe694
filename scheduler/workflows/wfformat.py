"""WfCommons WfFormat JSON (schemas 1.4, 1.5 and 1.6) → :class:`~.dag.Workflow`.

WfFormat (https://github.com/wfcommons/WfFormat) describes workflow instances logged by real
executions (WfInstances) or produced by WfCommons' generators.  Two layouts are read:

**1.5 and 1.6** (1.6 only adds optional fields)::

    {"schemaVersion": "1.5", "name": ...,
     "workflow": {"specification": {"tasks": [{"id", "name", "parents": [ids], "children": [ids],
                                               "inputFiles": [file ids], "outputFiles": [...]}],
                                    "files": [{"id", "sizeInBytes"}]},
                  "execution": {"tasks": [{"id", "runtimeInSeconds", "coreCount"?,
                                           "command": {"program"}?}], ...}}}

**1.4**: one list ``workflow.tasks`` whose entries carry ``name`` (the reference used by
``parents``/``children``), ``runtimeInSeconds``, ``cores``, and
``files: [{"link": "input"|"output", "name", "sizeInBytes"}]``.

Mapping onto the model:

- the task id is ``id`` (1.5/1.6) or ``name`` (1.4, where tasks refer to each other by name; an
  ``id`` is accepted as an alias in references);
- runtime = ``runtimeInSeconds`` (execution entry in 1.5/1.6); a task without one takes
  ``default_runtime`` if the caller gives it (said in the workflow's ``notes``), else it is an
  error at its JSON path;
- processors = ``coreCount`` (1.5/1.6) or ``cores`` (1.4), rounded up to a whole processor,
  else 1 (said in the ``notes``);
- edges = the union of every ``parents`` and ``children`` list (distinct pairs);
- edge data = total size of the files the parent outputs that the child inputs (files not
  listed in ``files`` count 0 bytes).
"""

from __future__ import annotations

import math
from typing import Any

from .dag import Edge, Limits, ReadNotes, Task, Workflow, WorkflowError, check_seconds
from .jsonpath import Reader, join

__all__ = ["SUPPORTED_VERSIONS", "parse_wfformat"]

SUPPORTED_VERSIONS = ("1.4", "1.5", "1.6")


def _processors(r: Reader, value: Any, path: str) -> int:
    if value is None:
        return 1
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        r.error(path, f"must be a number of cores >= 1, got {value!r}")
        return 1
    if value < 1:
        r.error(path, f"must be >= 1, got {value!r}")
        return 1
    return math.ceil(value)


def _runtime(r: Reader, value: Any, path: str, default: float | None) -> float | None:
    if value is None:
        if default is None:
            r.error(
                path,
                "no runtimeInSeconds for this task (load with default_runtime to use a "
                "fixed value)",
            )
        return default
    reason = check_seconds(value, "runtimeInSeconds")
    if reason:
        r.error(path, reason)
        return None
    return float(value)


def _note_defaults(notes: ReadNotes, tid: str, runtime: Any, cores: Any) -> None:
    if runtime is None:
        notes.default_runtimes.append(tid)
    if cores is None:
        notes.default_cores.append(tid)


def _size(r: Reader, value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        r.error(path, f"sizeInBytes must be a number of bytes, got {value!r}")
        return 0
    if value < 0:
        r.error(path, f"sizeInBytes must be >= 0, got {value!r}")
        return 0
    return int(round(value))


def _edges(
    r: Reader,
    links: list[tuple[str, str, str]],
    ids: dict[str, str],
    outputs: dict[str, dict[str, int]],
    inputs: dict[str, set[str]],
    limits: Limits,
) -> list[Edge]:
    """``links``: (parent ref, child ref, path of the reference).  ``ids`` maps refs to ids."""
    seen: dict[tuple[str, str], None] = {}
    for parent_ref, child_ref, path in links:
        parent, child = ids.get(parent_ref), ids.get(child_ref)
        if parent is None or child is None:
            missing = parent_ref if parent is None else child_ref
            r.error(path, f"names no task: {missing!r}")
        elif parent == child:
            r.error(path, f"task {parent!r} cannot depend on itself")
        else:
            seen[(parent, child)] = None
            if len(seen) > limits.max_edges:
                r.error(path, f"more than {limits.max_edges} edges (the limit)")
                r.raise_if_any()
    edges = []
    for parent, child in seen:
        out = outputs.get(parent, {})
        data = sum(out[f] for f in inputs.get(child, set()) if f in out)
        edges.append(Edge(parent, child, data))
    return edges


def _parse_15(
    r: Reader,
    doc: dict[str, Any],
    limits: Limits,
    default_runtime: float | None,
    notes: ReadNotes,
) -> tuple[list[Task], list[Edge], dict[str, str]]:
    wf = r.obj(r.field(doc, "workflow", "$"), "$.workflow")
    r.raise_if_any()
    assert wf is not None
    spec = r.obj(r.field(wf, "specification", "$.workflow"), "$.workflow.specification")
    r.raise_if_any()
    assert spec is not None
    base = "$.workflow.specification"
    tasks_in = r.array(r.field(spec, "tasks", base), join(base, "tasks"))
    r.raise_if_any()
    assert tasks_in is not None
    if len(tasks_in) > limits.max_tasks:
        r.error(
            join(base, "tasks"), f"{len(tasks_in)} tasks, more than the limit of {limits.max_tasks}"
        )
        r.raise_if_any()

    sizes: dict[str, int] = {}
    for fid, f, path in r.named(spec.get("files", []), join(base, "files"), "id"):
        sizes[fid] = _size(r, f.get("sizeInBytes", 0), join(path, "sizeInBytes"))

    execution: dict[str, tuple[dict[str, Any], str]] = {}
    ex = wf.get("execution")
    if ex is not None and r.obj(ex, "$.workflow.execution") is not None:
        for eid, e, path in r.named(ex.get("tasks", []), "$.workflow.execution.tasks", "id"):
            execution[eid] = (e, path)

    specs = r.unique(tasks_in, join(base, "tasks"), "id", "task id")
    paths = {tid: path for tid, (_, path) in specs.items()}
    for eid, (_, path) in execution.items():
        if eid not in paths:
            r.error(join(path, "id"), f"execution entry for unknown task {eid!r}")

    tasks: list[Task] = []
    links: list[tuple[str, str, str]] = []
    outputs: dict[str, dict[str, int]] = {}
    inputs: dict[str, set[str]] = {}
    for tid, (t, path) in specs.items():
        e, e_path = execution.get(tid, ({}, path))
        runtime = _runtime(
            r,
            e.get("runtimeInSeconds"),
            join(e_path, "runtimeInSeconds") if e else path,
            default_runtime,
        )
        procs = _processors(r, e.get("coreCount"), join(e_path, "coreCount"))
        _note_defaults(notes, tid, e.get("runtimeInSeconds"), e.get("coreCount"))
        name = t.get("name") if isinstance(t.get("name"), str) and t.get("name") else tid
        command = e.get("command")
        program = command.get("program") if isinstance(command, dict) else None
        for k, ref in enumerate(r.strings(t.get("parents"), join(path, "parents"))):
            links.append((ref, tid, join(join(path, "parents"), k)))
        for k, ref in enumerate(r.strings(t.get("children"), join(path, "children"))):
            links.append((tid, ref, join(join(path, "children"), k)))
        outs = r.strings(t.get("outputFiles"), join(path, "outputFiles"))
        outputs[tid] = {f: sizes.get(f, 0) for f in outs}
        inputs[tid] = set(r.strings(t.get("inputFiles"), join(path, "inputFiles")))
        if runtime is not None:
            module = program if isinstance(program, str) and program else None
            tasks.append(Task(tid, runtime, procs, name=name, module=module))
    edges = _edges(r, links, {tid: tid for tid in paths}, outputs, inputs, limits)
    r.raise_if_any()
    return tasks, edges, paths


def _parse_14(
    r: Reader,
    doc: dict[str, Any],
    limits: Limits,
    default_runtime: float | None,
    notes: ReadNotes,
) -> tuple[list[Task], list[Edge], dict[str, str]]:
    wf = r.obj(r.field(doc, "workflow", "$"), "$.workflow")
    r.raise_if_any()
    assert wf is not None
    base = "$.workflow.tasks"
    tasks_in = r.array(r.field(wf, "tasks", "$.workflow"), base)
    r.raise_if_any()
    assert tasks_in is not None
    if len(tasks_in) > limits.max_tasks:
        r.error(base, f"{len(tasks_in)} tasks, more than the limit of {limits.max_tasks}")
        r.raise_if_any()
    entries = r.unique(tasks_in, base, "name", "task name")
    paths = {tid: path for tid, (_, path) in entries.items()}
    refs = {tid: tid for tid in entries}
    for tid, (t, _) in entries.items():
        alias = t.get("id")
        if isinstance(alias, str) and alias and alias not in refs:
            refs[alias] = tid

    tasks: list[Task] = []
    links: list[tuple[str, str, str]] = []
    outputs: dict[str, dict[str, int]] = {}
    inputs: dict[str, set[str]] = {}
    for tid, (t, path) in entries.items():
        runtime = _runtime(r, t.get("runtimeInSeconds", t.get("runtime")), path, default_runtime)
        procs = _processors(r, t.get("cores"), join(path, "cores"))
        _note_defaults(notes, tid, t.get("runtimeInSeconds", t.get("runtime")), t.get("cores"))
        for k, ref in enumerate(r.strings(t.get("parents"), join(path, "parents"))):
            links.append((ref, tid, join(join(path, "parents"), k)))
        for k, ref in enumerate(r.strings(t.get("children"), join(path, "children"))):
            links.append((tid, ref, join(join(path, "children"), k)))
        outs: dict[str, int] = {}
        ins: set[str] = set()
        for fname, f, f_path in r.named(t.get("files", []), join(path, "files"), "name"):
            size = _size(r, f.get("sizeInBytes", f.get("size", 0)), join(f_path, "sizeInBytes"))
            if str(f.get("link", "")).lower() == "input":
                ins.add(fname)
            else:
                outs[fname] = size
        outputs[tid], inputs[tid] = outs, ins
        category = t.get("category")
        command = t.get("command")
        module = category if isinstance(category, str) and category else None
        if module is None and isinstance(command, dict) and isinstance(command.get("program"), str):
            module = command["program"] or None
        if runtime is not None:
            tasks.append(Task(tid, runtime, procs, name=tid, module=module))
    edges = _edges(r, links, refs, outputs, inputs, limits)
    r.raise_if_any()
    return tasks, edges, paths


def parse_wfformat(
    doc: Any,
    *,
    name: str | None = None,
    limits: Limits | None = None,
    default_runtime: float | None = None,
) -> Workflow:
    """Build a workflow from a parsed WfFormat document (a dict from ``json.loads``).

    The workflow is named by the instance's ``name``, else ``name``.  Raises
    :class:`WorkflowError` naming the JSON path of each problem.
    """
    limits = limits or Limits()
    r = Reader()
    top = r.obj(doc, "$")
    r.raise_if_any()
    assert top is not None
    version = top.get("schemaVersion")
    if version not in SUPPORTED_VERSIONS:
        raise WorkflowError(
            [
                (
                    "$.schemaVersion",
                    f"WfFormat schemaVersion {version!r} is not supported "
                    f"(supported: {', '.join(SUPPORTED_VERSIONS)})",
                )
            ]
        )
    parse = _parse_14 if version == "1.4" else _parse_15
    notes = ReadNotes(runtime_key="runtimeInSeconds", cores_key="coreCount", noun="task")
    if version == "1.4":
        notes.cores_key = "cores"
    tasks, edges, paths = parse(r, top, limits, default_runtime, notes)
    if not tasks:
        raise WorkflowError([("$.workflow", "the workflow has no tasks")])
    label = (top.get("name") if isinstance(top.get("name"), str) else None) or name
    return Workflow(
        tuple(tasks),
        tuple(edges),
        label or "workflow",
        locate=lambda tid: f"{paths[tid]} (task {tid!r})",
        notes=notes.notes(len(tasks), default_runtime),
        source="wfformat",
    )
