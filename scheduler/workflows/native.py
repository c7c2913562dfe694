"""GridPortal's own workflow JSON: the smallest document that holds the whole model.

::

    {
     "format": "gridportal-workflow",       required, exactly this string
     "version": 1,                           required, 1
     "name": "my-workflow",                  optional (default: the file name, else "workflow")
     "tasks": [                              required, at least one
      {"id": "t1",                           required, unique non-empty string
       "runtime": 1000,                      required, seconds >= 0
       "processors": 22,                     optional, integer >= 1 (default 1)
       "runtimes": {"ctc": 900, "sdsc": 1400},  optional, per-site seconds
       "name": "...", "module": "...",       optional labels
       "virtual": true}                      optional, only for added entry/exit tasks
     ],
     "edges": [                              optional (default none)
      {"parent": "t1", "child": "t2",        required, task ids
       "data": 1250000000}                   optional, bytes >= 0 (default 0)
     ]
    }

Unknown keys are errors (they are usually typos).  :func:`to_native` / :func:`dumps_native` /
:func:`write_native` write the same format; reading what was written gives an equal
:class:`~.dag.Workflow`.  Numbers that are whole are written as integers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from .dag import (
    Edge,
    Limits,
    Task,
    Workflow,
    WorkflowError,
    check_bytes,
    check_processors,
    check_seconds,
)
from .jsonpath import Reader, join

__all__ = ["FORMAT", "VERSION", "dumps_native", "parse_native", "to_native", "write_native"]

FORMAT = "gridportal-workflow"
VERSION = 1

_TOP_KEYS = frozenset({"format", "version", "name", "tasks", "edges", "description"})
_TASK_KEYS = frozenset({"id", "runtime", "processors", "runtimes", "name", "module", "virtual"})
_EDGE_KEYS = frozenset({"parent", "child", "data"})


def _unknown_keys(r: Reader, obj: dict[str, Any], allowed: frozenset[str], path: str) -> None:
    for key in obj:
        if key not in allowed:
            r.error(join(path, key), f"unknown key (allowed: {', '.join(sorted(allowed))})")


def _task(r: Reader, entry: Any, path: str) -> Task | None:
    t = r.obj(entry, path)
    if t is None:
        return None
    _unknown_keys(r, t, _TASK_KEYS, path)
    tid = r.string(r.field(t, "id", path), join(path, "id"))
    runtime = r.field(t, "runtime", path)
    ok = tid is not None
    if "runtime" in t and (reason := check_seconds(runtime)):
        r.error(join(path, "runtime"), reason)
        ok = False
    processors = t.get("processors", 1)
    if reason := check_processors(processors):
        r.error(join(path, "processors"), reason)
        ok = False
    runtimes: dict[str, float] = {}
    if "runtimes" in t:
        given = r.obj(t["runtimes"], join(path, "runtimes"))
        for site, seconds in (given or {}).items():
            if reason := check_seconds(seconds):
                r.error(join(join(path, "runtimes"), site), reason)
                ok = False
            elif not site:
                r.error(join(path, "runtimes"), "site names must be non-empty")
                ok = False
            else:
                runtimes[site] = seconds
    labels: dict[str, Any] = {}
    for key in ("name", "module"):
        if key in t and (value := r.string(t[key], join(path, key))) is not None:
            labels[key] = value
    virtual = t.get("virtual", False)
    if not isinstance(virtual, bool):
        r.error(join(path, "virtual"), "must be true or false")
        ok = False
    if not ok or "runtime" not in t:
        return None
    assert tid is not None
    return Task(tid, runtime, processors, runtimes=runtimes, virtual=virtual, **labels)


def _edge(r: Reader, entry: Any, path: str, ids: set[str]) -> Edge | None:
    e = r.obj(entry, path)
    if e is None:
        return None
    _unknown_keys(r, e, _EDGE_KEYS, path)
    ends = []
    for key in ("parent", "child"):
        ref = r.string(r.field(e, key, path), join(path, key))
        if ref is not None and ref not in ids:
            r.error(join(path, key), f"names no task: {ref!r}")
            ref = None
        ends.append(ref)
    data = e.get("data", 0)
    if reason := check_bytes(data):
        r.error(join(path, "data"), reason)
        return None
    if ends[0] is None or ends[1] is None:
        return None
    if ends[0] == ends[1]:
        r.error(path, f"task {ends[0]!r} cannot depend on itself")
        return None
    return Edge(ends[0], ends[1], data)


def parse_native(doc: Any, *, name: str | None = None, limits: Limits | None = None) -> Workflow:
    """Build a workflow from a parsed native document; errors name the JSON path."""
    limits = limits or Limits()
    r = Reader()
    top = r.obj(doc, "$")
    r.raise_if_any()
    assert top is not None
    if top.get("format") != FORMAT:
        r.error("$.format", f"must be {FORMAT!r}, got {top.get('format')!r}")
    if top.get("version") != VERSION or isinstance(top.get("version"), bool):
        r.error("$.version", f"must be {VERSION}, got {top.get('version')!r}")
    _unknown_keys(r, top, _TOP_KEYS, "$")
    doc_name = top.get("name")
    if doc_name is not None:
        r.string(doc_name, "$.name")
    tasks_in = r.array(r.field(top, "tasks", "$"), "$.tasks")
    edges_in = r.array(top.get("edges", []), "$.edges")
    r.raise_if_any()
    assert tasks_in is not None and edges_in is not None
    if not tasks_in:
        raise WorkflowError([("$.tasks", "the workflow has no tasks")])
    if len(tasks_in) > limits.max_tasks:
        raise WorkflowError([("$.tasks", f"more than {limits.max_tasks} tasks (the limit)")])
    if len(edges_in) > limits.max_edges:
        raise WorkflowError([("$.edges", f"more than {limits.max_edges} edges (the limit)")])
    declared = {t["id"] for t in tasks_in if isinstance(t, dict) and isinstance(t.get("id"), str)}
    tasks: list[Task] = []
    paths: dict[str, str] = {}
    for k, entry in enumerate(tasks_in):
        path = join("$.tasks", k)
        task = _task(r, entry, path)
        if task is None:
            continue
        if task.id in paths:
            r.error(join(path, "id"), f"duplicate task id {task.id!r} (first at {paths[task.id]})")
            continue
        paths[task.id] = path
        tasks.append(task)
    edges: list[Edge] = []
    seen: dict[tuple[str, str], str] = {}
    for k, entry in enumerate(edges_in):
        path = join("$.edges", k)
        edge = _edge(r, entry, path, declared)
        if edge is None:
            continue
        pair = (edge.parent, edge.child)
        if pair in seen:
            r.error(
                path, f"duplicate edge {edge.parent!r} -> {edge.child!r} (first at {seen[pair]})"
            )
            continue
        seen[pair] = path
        edges.append(edge)
    r.raise_if_any()
    return Workflow(
        tuple(tasks),
        tuple(edges),
        (doc_name if isinstance(doc_name, str) and doc_name else None) or name or "workflow",
        locate=lambda tid: f"{paths[tid]} (task {tid!r})",
        source="native",
    )


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def to_native(workflow: Workflow) -> dict[str, Any]:
    """The native JSON document (a dict) of ``workflow``."""
    tasks = []
    for t in workflow.tasks:
        entry: dict[str, Any] = {"id": t.id, "runtime": _num(t.runtime), "processors": t.processors}
        if t.name != t.id:
            entry["name"] = t.name
        if t.module:
            entry["module"] = t.module
        if t.runtimes:
            entry["runtimes"] = {site: _num(s) for site, s in t.runtimes}
        if t.virtual:
            entry["virtual"] = True
        tasks.append(entry)
    edges = []
    for e in workflow.edges:
        edge: dict[str, Any] = {"parent": e.parent, "child": e.child}
        if e.data:
            edge["data"] = e.data
        edges.append(edge)
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": workflow.name,
        "tasks": tasks,
        "edges": edges,
    }


def dumps_native(workflow: Workflow) -> str:
    """Native JSON text: one task or edge per line, deterministic."""
    doc = to_native(workflow)
    head = json.dumps({k: doc[k] for k in ("format", "version", "name")})[:-1]
    lines = [head + ',\n "tasks": [']
    lines.append(",\n".join("  " + json.dumps(t) for t in doc["tasks"]))
    lines.append(' ],\n "edges": [')
    if doc["edges"]:
        lines.append(",\n".join("  " + json.dumps(e) for e in doc["edges"]))
    lines.append(" ]\n}\n")
    return "\n".join(lines)


def write_native(workflow: Workflow, dest: str | os.PathLike[str] | IO[str]) -> None:
    """Write :func:`dumps_native` text to a path or a text file object."""
    text = dumps_native(workflow)
    if isinstance(dest, str | os.PathLike):
        Path(dest).write_text(text, encoding="utf-8")
    else:
        dest.write(text)
