"""Pegasus DAX (XML, versions 2.x and 3.x) → :class:`~scheduler.workflows.dag.Workflow`.

The abstract workflow format of the Pegasus WMS ("Pegasus: a framework for mapping complex
scientific workflows onto distributed systems", Deelman et al. 2005), as written by the Pegasus
Workflow Generator (Bharathi et al., WORKS 2008) for Montage, CyberShake, Epigenomics and LIGO
Inspiral, and read by WorkflowSim.  What is read::

    <adag version="2.1" name=...>
      <job id="ID00000" name="mProjectPP" runtime="13.39">          (one task)
        <uses file="a.fits" link="input" size="4222080"/>           (2.x: file=, 3.x: name=)
        <profile namespace="pegasus" key="runtime">13.39</profile>  (3.x alternative)
      </job>
      <child ref="ID00001"><parent ref="ID00000"/></child>           (edges)
    </adag>

- **Runtime**: the job's ``runtime`` attribute (seconds); if absent, a ``pegasus`` profile with
  key ``runtime``; if neither, ``default_runtime`` when the caller gives one (said in the
  workflow's ``notes``), else the job is an error naming its line.  (Guessing a runtime silently
  would make every schedule meaningless.)  A negative runtime — the Pegasus Workflow
  Generator's traces carry some, e.g. -1.03 s in ``Epigenomics_997.xml`` — is read as 0 s and
  named in the ``notes``.
- **Processors**: a ``pegasus`` profile ``cores``, else a ``globus`` profile ``count``, else 1,
  said in the ``notes`` (DAX 2.1 files have no processor count: every job is one core).
- **Edge data**: the total size of the files the parent uses with ``link="output"`` (or
  ``inout``) that the child uses with ``link="input"`` (or ``inout``); the size is the parent's
  declared size, else the child's, else 0.  A negative size (``Epigenomics_997.xml`` has 209)
  is read as not declared and named in the ``notes``.  Edges come only from
  ``<child>/<parent>``, never from files alone.
- ``<dax>`` / ``<dag>`` sub-workflow jobs are refused; other elements (``<file>``,
  ``<executable>``, ``<transformation>``, ``<argument>``, ``<metadata>`` …) are ignored.

Parsing is by SAX through :mod:`defusedxml`, with document type declarations (DTDs) refused
outright: that rules out entity-expansion bombs ("billion laughs") and external entities.
Errors name the line of the element at fault.
"""

from __future__ import annotations

import io
import math
import xml.sax
from dataclasses import dataclass, field
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import AttributesImpl, Locator

from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.expatreader import DefusedExpatParser

from .dag import Edge, Limits, ReadNotes, Task, Workflow, WorkflowError, check_seconds

__all__ = ["parse_dax"]

_MAX_ERRORS = 20
_OUTPUT_LINKS = frozenset({"output", "inout"})
_INPUT_LINKS = frozenset({"input", "inout"})


class _Stop(Exception):
    """Raised inside the SAX handler to stop parsing (limit reached or fatal problem)."""


@dataclass
class _Job:
    id: str
    name: str
    line: int
    runtime: float | None = None
    profiles: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    inputs: dict[str, int | None] = field(default_factory=dict)
    outputs: dict[str, int | None] = field(default_factory=dict)


def _local(qname: str) -> str:
    return qname.rsplit(":", 1)[-1]


class _DaxHandler(ContentHandler):
    def __init__(self, limits: Limits) -> None:
        super().__init__()
        self.limits = limits
        self.locator: Locator | None = None
        self.errors: list[tuple[str, str]] = []
        self.jobs: dict[str, _Job] = {}
        self.deps: list[tuple[str, str, int, int]] = []  # parent, child, parent line, child line
        self.stack: list[str] = []
        self.adag_name: str | None = None
        self.job: _Job | None = None
        self.child: tuple[str, int] | None = None
        self.profile: tuple[str, str, int] | None = None
        self.text: list[str] = []
        self.notes = ReadNotes(
            runtime_key="runtime attribute or pegasus runtime profile",
            cores_key="pegasus cores or globus count profile",
        )

    # -- helpers -----------------------------------------------------------------------------

    def setDocumentLocator(self, locator: Locator) -> None:  # noqa: N802 (SAX API)
        self.locator = locator

    def line(self) -> int:
        return self.locator.getLineNumber() if self.locator is not None else 0

    def error(self, reason: str, line: int | None = None) -> None:
        self.errors.append((f"line {self.line() if line is None else line}", reason))
        if len(self.errors) >= _MAX_ERRORS:
            raise _Stop

    def fatal(self, reason: str) -> None:
        self.errors.append((f"line {self.line()}", reason))
        raise _Stop

    # -- SAX callbacks -----------------------------------------------------------------------

    def startElement(self, qname: str, attrs: AttributesImpl) -> None:  # noqa: N802
        tag = _local(qname)
        parent = self.stack[-1] if self.stack else None
        self.stack.append(tag)
        if parent is None:
            self._start_adag(tag, attrs)
        elif parent == "adag":
            if tag == "job":
                self._start_job(attrs)
            elif tag in ("dax", "dag"):
                self.error(f"<{tag}> sub-workflows are not supported; give a flat DAX")
            elif tag == "child":
                ref = attrs.get("ref")
                if not ref:
                    self.error("<child> without a ref attribute")
                self.child = (ref or "", self.line())
        elif parent == "job" and self.job is not None:
            if tag == "uses":
                self._start_uses(attrs)
            elif tag == "profile":
                ns = (attrs.get("namespace") or "").lower()
                key = (attrs.get("key") or "").lower()
                self.profile = (ns, key, self.line())
                self.text = []
        elif parent == "child" and tag == "parent" and self.child is not None:
            ref = attrs.get("ref")
            if not ref:
                self.error("<parent> without a ref attribute")
            elif self.child[0]:
                self.deps.append((ref, self.child[0], self.line(), self.child[1]))
                if len(self.deps) > self.limits.max_edges:
                    self.fatal(f"more than {self.limits.max_edges} dependencies (the limit)")

    def endElement(self, qname: str) -> None:  # noqa: N802
        tag = self.stack.pop() if self.stack else _local(qname)
        if tag == "job":
            self.job = None
        elif tag == "child":
            self.child = None
        elif tag == "profile" and self.profile is not None and self.job is not None:
            ns, key, line = self.profile
            self.job.profiles[(ns, key)] = ("".join(self.text).strip(), line)
            self.profile = None

    def characters(self, content: str) -> None:
        if self.profile is not None:
            self.text.append(content)

    def _start_adag(self, tag: str, attrs: AttributesImpl) -> None:
        if tag != "adag":
            self.fatal(f"root element is <{tag}>, not <adag>: this is not a Pegasus DAX")
        version = attrs.get("version")
        if version is not None:
            major = version.strip().split(".", 1)[0]
            if major not in ("2", "3"):
                self.fatal(f"DAX version {version!r} is not supported (2.x and 3.x are)")
        self.adag_name = attrs.get("name")

    def _start_job(self, attrs: AttributesImpl) -> None:
        job_id = attrs.get("id")
        if not job_id:
            self.error("<job> without an id attribute")
            return
        if job_id in self.jobs:
            self.error(f"duplicate job id {job_id!r} (first at line {self.jobs[job_id].line})")
            return
        if len(self.jobs) >= self.limits.max_tasks:
            self.fatal(f"more than {self.limits.max_tasks} jobs (the limit)")
        job = _Job(id=job_id, name=attrs.get("name") or job_id, line=self.line())
        raw = attrs.get("runtime")
        if raw is not None:
            job.runtime = self._seconds(raw, job_id)
        self.jobs[job_id] = job
        self.job = job

    def _seconds(self, raw: str, job_id: str) -> float | None:
        what = f"job {job_id!r}: runtime"
        try:
            value = float(raw)
        except ValueError:
            self.error(f"{what} is not a number: {raw!r}")
            return None
        if math.isfinite(value):
            value = self.notes.runtime(job_id, value)
        reason = check_seconds(value, what)
        if reason:
            self.error(reason)
            return None
        return value

    def _start_uses(self, attrs: AttributesImpl) -> None:
        assert self.job is not None
        file = attrs.get("file") or attrs.get("name")
        if not file:
            self.error(f"job {self.job.id!r}: <uses> without a file or name attribute")
            return
        link = (attrs.get("link") or "").lower()
        size: int | None = None
        raw = attrs.get("size")
        if raw is not None:
            try:
                value = float(raw)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                self.error(f"job {self.job.id!r}: size of {file!r} must be bytes >= 0: {raw!r}")
            elif self.notes.size(self.job.id, file, value) is not None:
                size = int(round(value))
        if link in _INPUT_LINKS:
            self.job.inputs[file] = size
        if link in _OUTPUT_LINKS:
            self.job.outputs[file] = size


def _profile_number(job: _Job, keys: list[tuple[str, str]]) -> tuple[str, int] | None:
    for key in keys:
        if key in job.profiles:
            return job.profiles[key]
    return None


def _build_tasks(
    handler: _DaxHandler, default_runtime: float | None
) -> tuple[list[Task], list[tuple[str, str]]]:
    errors: list[tuple[str, str]] = []
    tasks: list[Task] = []
    for job in handler.jobs.values():
        where = f"line {job.line}"
        runtime = job.runtime
        if runtime is None:
            found = _profile_number(job, [("pegasus", "runtime")])
            if found is not None:
                text, line = found
                try:
                    runtime = float(text)
                except ValueError:
                    errors.append((f"line {line}", f"runtime profile is not a number: {text!r}"))
                    continue
                if math.isfinite(runtime):
                    runtime = handler.notes.runtime(job.id, runtime)
                reason = check_seconds(runtime, "runtime profile")
                if reason:
                    errors.append((f"line {line}", reason))
                    continue
        if runtime is None:
            if default_runtime is None:
                errors.append(
                    (
                        where,
                        f"job {job.id!r} has no runtime (no runtime attribute and no pegasus "
                        "'runtime' profile); give one, or load with default_runtime",
                    )
                )
                continue
            runtime = default_runtime
            handler.notes.default_runtimes.append(job.id)
        processors = 1
        found = _profile_number(job, [("pegasus", "cores"), ("globus", "count")])
        if found is None:
            handler.notes.default_cores.append(job.id)
        else:
            text, line = found
            try:
                value = float(text)
            except ValueError:
                value = math.nan
            if not value.is_integer() or value < 1:
                errors.append(
                    (f"line {line}", f"processor count must be an integer >= 1: {text!r}")
                )
                continue
            processors = int(value)
        tasks.append(Task(job.id, runtime, processors, name=job.name, module=job.name))
    return tasks, errors


def _build_edges(handler: _DaxHandler) -> tuple[list[Edge], list[tuple[str, str]]]:
    errors: list[tuple[str, str]] = []
    edges: list[Edge] = []
    seen: set[tuple[str, str]] = set()
    jobs = handler.jobs
    for parent, child, pline, cline in handler.deps:
        if child not in jobs:
            errors.append((f"line {cline}", f"<child ref={child!r}> names no job"))
            continue
        if parent not in jobs:
            errors.append((f"line {pline}", f"<parent ref={parent!r}> names no job"))
            continue
        if parent == child:
            errors.append((f"line {pline}", f"job {child!r} cannot be its own parent"))
            continue
        if (parent, child) in seen:
            continue  # a repeated <parent> is the same dependency
        seen.add((parent, child))
        out, inp = jobs[parent].outputs, jobs[child].inputs
        data = 0
        for file in out.keys() & inp.keys():
            size = out[file] if out[file] is not None else inp[file]
            data += size or 0
        edges.append(Edge(parent, child, data))
        if len(errors) >= _MAX_ERRORS:
            break
    return edges, errors


def parse_dax(
    data: bytes,
    *,
    name: str | None = None,
    limits: Limits | None = None,
    default_runtime: float | None = None,
) -> Workflow:
    """Parse DAX bytes; ``name`` names the workflow (else the ``adag`` name, else "workflow").

    Raises :class:`WorkflowError` naming the line of each problem.
    """
    limits = limits or Limits()
    if default_runtime is not None and check_seconds(default_runtime, "default_runtime"):
        raise ValueError(check_seconds(default_runtime, "default_runtime"))
    handler = _DaxHandler(limits)
    parser = DefusedExpatParser(forbid_dtd=True, forbid_entities=True, forbid_external=True)
    parser.setContentHandler(handler)
    parser.setFeature(xml.sax.handler.feature_external_ges, False)
    try:
        parser.parse(io.BytesIO(data))
    except _Stop:
        pass
    except DTDForbidden:
        raise WorkflowError(
            [
                (
                    f"line {handler.line()}",
                    "document type declarations (<!DOCTYPE ...>) are refused: they enable "
                    "entity-expansion bombs and external entities",
                )
            ]
        ) from None
    except EntitiesForbidden as exc:
        raise WorkflowError(
            [(f"line {handler.line()}", f"entity declaration {exc.name!r} refused")]
        ) from None
    except ExternalReferenceForbidden as exc:
        raise WorkflowError(
            [(f"line {handler.line()}", f"external reference {exc.sysid!r} refused")]
        ) from None
    except xml.sax.SAXParseException as exc:
        raise WorkflowError(
            [(f"line {exc.getLineNumber()}", f"not well-formed XML: {exc.getMessage()}")]
        ) from None
    except LookupError as exc:  # an XML declaration naming an encoding Python does not know
        raise WorkflowError([("line 1", f"unknown character encoding: {exc}")]) from None
    if handler.errors:
        raise WorkflowError(handler.errors)
    if not handler.jobs:
        raise WorkflowError([("<adag>", "the DAX has no <job> elements")])
    tasks, errors = _build_tasks(handler, default_runtime)
    edges, edge_errors = _build_edges(handler)
    errors.extend(edge_errors)
    if errors:
        raise WorkflowError(errors[:_MAX_ERRORS])
    lines = {job.id: job.line for job in handler.jobs.values()}
    return Workflow(
        tuple(tasks),
        tuple(edges),
        name or handler.adag_name or "workflow",
        locate=lambda tid: f"line {lines[tid]} (job {tid!r})",
        notes=handler.notes.notes(len(tasks), default_runtime),
        source="dax",
    )
