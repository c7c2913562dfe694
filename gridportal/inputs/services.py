"""Trace services: validate with the engine, then store the file and row together or not at all."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import tempfile
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import IO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile, File
from django.db import transaction

from gridportal.limits import web_limited
from gridportal.quotas.services import quota_check_storage
from scheduler.engine import (
    SacctError,
    SummarySink,
    SWFError,
    WorkflowError,
    detect_sacct,
    detect_workflow_format,
    dumps_workflow,
    generate_cybershake,
    generate_layered,
    generate_montage,
    header_machine,
    load_trace,
    load_workflow,
    sacct_to_swf_file,
    scan_swf,
    summarize_workflow,
)

from .models import Trace, Workflow

MAX_REPORTED_ERRORS = 20


def _digest(stream: IO[bytes]) -> tuple[str, int]:
    h = hashlib.sha256()
    size = 0
    stream.seek(0)
    for chunk in iter(lambda: stream.read(1 << 20), b""):
        h.update(chunk)
        size += len(chunk)
    stream.seek(0)
    return h.hexdigest(), size


def _refuse(filename: str, why: str) -> ValidationError:
    return ValidationError({"file": [f"{filename}: {why}"]})


#: Uploads this small (decompressed) are checked in the request's own process: their work
#: is bounded by their size; larger ones are checked in a limited child (upload_limited).
INLINE_CHECK_BYTES = 1 << 20
#: Decompressed bytes below which a gzip upload is never refused for its ratio alone.
GZIP_RATIO_FLOOR = 16 * 2**20
_SCAN_CHUNK = 1 << 20


def trace_precheck(*, upload: File, filename: str) -> int:
    """Cheap streaming checks before any parsing, in constant memory: the upload
    cap, the decompressed size and ratio of gzip data, and the number of job lines (lines
    that are neither comments nor blank, counted approximately and never under).
    Returns the (decompressed) size in bytes."""
    cap = settings.GRIDPORTAL_MAX_UPLOAD_BYTES
    if upload.size is not None and upload.size > cap:
        raise _refuse(filename, f"the file is {upload.size:,} bytes; the limit is {cap:,} bytes")
    max_bytes = settings.GRIDPORTAL_MAX_TRACE_BYTES
    max_jobs = settings.GRIDPORTAL_MAX_TRACE_JOBS
    ratio = settings.GRIDPORTAL_MAX_GZIP_RATIO
    upload.seek(0)
    try:
        head = upload.read(2)
        upload.seek(0)
        gz = head == b"\x1f\x8b"
        inflate = zlib.decompressobj(wbits=47) if gz else None  # gzip, concatenated members
        compressed = total = lines = 0
        last = b"\n"
        while True:
            raw = upload.read(_SCAN_CHUNK)
            if not raw:
                break
            compressed += len(raw)
            pieces = [raw]
            if inflate is not None:
                pieces = []
                data = raw
                while data:
                    try:
                        out = inflate.decompress(data, _SCAN_CHUNK)
                    except zlib.error:
                        return total  # corrupt gzip: the parser names it
                    data = inflate.unconsumed_tail
                    if inflate.eof and inflate.unused_data:  # the next gzip member
                        data = inflate.unused_data + data
                        inflate = zlib.decompressobj(wbits=47)
                    if out:
                        pieces.append(out)
                        _count_checked(filename, total := total + len(out), compressed,
                                       max_bytes, ratio)  # fmt: skip
                    elif not data:
                        break
            else:
                total += len(raw)
            for piece in pieces:
                # lines ended in this piece, less those that begin with ';' or are blank
                text = last + piece
                lines += piece.count(b"\n") - text.count(b"\n;") - text.count(b"\n\n")
                lines -= text.count(b"\n\r\n")
                last = piece[-1:]
                if lines > max_jobs + 1:
                    raise _refuse(
                        filename,
                        f"more than {max_jobs:,} job lines; the limit of one trace is "
                        f"{max_jobs:,} jobs (GRIDPORTAL_MAX_TRACE_JOBS)",
                    )
    finally:
        upload.seek(0)
    return total


def _count_checked(filename: str, total: int, compressed: int, max_bytes: int, ratio: int):
    if max_bytes is not None and total > max_bytes:
        raise _refuse(filename, f"larger than {max_bytes} bytes (decompressed data is too large)")
    if ratio and total > GZIP_RATIO_FLOOR and total > ratio * max(compressed, 1):
        raise _refuse(
            filename,
            f"the gzip data expands more than {ratio} times (larger than {total:,} bytes from "
            f"{compressed:,}): refused as a compression bomb (GRIDPORTAL_MAX_GZIP_RATIO)",
        )


def trace_validate_file(*, upload: File, filename: str) -> dict:
    """Check an uploaded SWF file line by line and summarise it, in constant memory (no job
    is kept: :func:`scheduler.traces.swf.scan_swf` with a summary sink); raise
    ValidationError (field ``file``) naming the lines.  Returns the trace's summary, job count
    and header fields."""
    trace_precheck(upload=upload, filename=filename)
    upload.seek(0)
    sink = SummarySink()
    try:
        header = scan_swf(
            upload, sink, name=filename, max_bytes=settings.GRIDPORTAL_MAX_TRACE_BYTES,
            max_jobs=settings.GRIDPORTAL_MAX_TRACE_JOBS,
        )  # fmt: skip
    except SWFError as exc:
        messages = [
            f"{filename}: line {line}: {reason}" if line else f"{filename}: {reason}"
            for line, reason in exc.errors[:MAX_REPORTED_ERRORS]
        ]
        raise ValidationError({"file": messages}) from None
    finally:
        upload.seek(0)
    return {
        "summary": sink.summary(header_machine(header, sink.widest)),
        "job_count": len(sink),
        "header": dict(header.fields),
    }


@dataclass(frozen=True)
class SacctOptions:
    """How to read an uploaded Slurm accounting file (see :func:`scheduler.engine.convert_sacct`):
    ``lenient`` skips the rows that cannot be read (named in the report) instead of refusing the
    file; ``columns`` is the ``sacct --format`` list of a file without a header line; ``procs``
    the cluster's CPUs (the SWF MaxProcs; default: the peak in use)."""

    lenient: bool = False
    columns: str = ""
    procs: int | None = None


@contextlib.contextmanager
def trace_sacct_converted(
    *, upload: File, filename: str, sacct: SacctOptions | None = None, budget: str = "UPLOAD"
):
    """Slurm accounting (``sacct -P`` with any columns, with or without its header line, or the
    fixed-width form; gzipped or not) becomes SWF here.

    Which it is, :func:`scheduler.engine.detect_sacct` decides from the first KB, as the command
    line does.  Yields the file to validate and store, its name, and the conversion report (None
    when the upload is not sacct output).  The conversion streams the upload line by line in a
    limited child (GRIDPORTAL_{budget}_{MEMORY_MB,TIME_LIMIT}: an upload's, as SWF checks, or
    a run's for a large file a worker converts, :mod:`gridportal.inputs.sacct_imports`) that
    writes the SWF to a temporary file, removed on leaving; the web process never parses the
    upload itself.  A file that cannot be converted is refused naming its lines and fields (or,
    lenient, its unreadable rows are skipped and named in the report).
    """
    sacct = sacct or SacctOptions()
    upload.seek(0)
    head = upload.read(4096)
    upload.seek(0)
    try:
        layout = detect_sacct(head if isinstance(head, bytes) else head.encode(),
                              columns=sacct.columns or None)  # fmt: skip
    except SacctError as exc:
        raise _refuse(filename, str(exc)) from None
    if layout is None:
        yield upload, filename, None
        return
    limit = settings.GRIDPORTAL_MAX_UPLOAD_BYTES
    if upload.size is not None and upload.size > limit:
        raise _refuse(filename, f"the file is {upload.size:,} bytes; the limit is {limit:,} bytes")
    fd, path = tempfile.mkstemp(prefix="gridportal-sacct-", suffix=".swf")
    os.close(fd)
    try:
        report = upload_limited(
            _sacct_to_file, upload, filename, path, sacct, what=f"{filename}: converting it",
            budget=budget,
        )  # fmt: skip
        stem = filename.rsplit(".", 1)[0] if "." in filename else filename
        swf_name = f"{stem}.swf"[:255]
        with open(path, "rb") as converted:
            yield File(converted, name=swf_name), swf_name, report
    finally:
        os.unlink(path)


def _sacct_to_file(upload: File, filename: str, path: str, sacct: SacctOptions) -> dict:
    """(In a limited child) convert the sacct upload, read line by line, into SWF at ``path``;
    only the conversion report goes back."""
    upload.seek(0)
    gz = upload.read(2) == b"\x1f\x8b"
    upload.seek(0)
    lines = (
        _LineCapped(gzip.GzipFile(fileobj=upload, mode="rb"), filename, compressed=upload)
        if gz
        else _LineCapped(upload, filename)
    )
    try:
        with open(path, "w", encoding="utf-8") as out:
            report = sacct_to_swf_file(
                lines, out, max_procs=sacct.procs, lenient=sacct.lenient,
                columns=sacct.columns or None,
            )  # fmt: skip
    except SacctError as exc:
        raise ValidationError(
            {
                "file": [
                    f"{filename}: line {line}: {why}" if line else f"{filename}: {why}"
                    for line, why in exc.errors[:MAX_REPORTED_ERRORS]
                ]
            }
        ) from None
    return report.as_json()


class _LineCapped:
    """An upload read by lines, refused past GRIDPORTAL_MAX_UPLOAD_BYTES (when its size was
    not known beforehand); a gzipped one (``compressed``: the upload under the decompressing
    reader) past GRIDPORTAL_MAX_TRACE_BYTES decompressed or GRIDPORTAL_MAX_GZIP_RATIO, as an
    SWF upload is (:func:`trace_precheck`)."""

    def __init__(self, upload, filename: str = "", compressed: File | None = None) -> None:
        self.upload, self.read_bytes, self.filename = upload, 0, filename
        self.compressed = compressed
        self.limit = (
            settings.GRIDPORTAL_MAX_TRACE_BYTES
            if compressed
            else settings.GRIDPORTAL_MAX_UPLOAD_BYTES
        )

    def readline(self, size: int = -1):
        line = self.upload.readline(size)
        self.read_bytes += len(line)
        if self.compressed is not None:
            _count_checked(self.filename, self.read_bytes, self.compressed.tell(), self.limit,
                           settings.GRIDPORTAL_MAX_GZIP_RATIO)  # fmt: skip
        elif self.read_bytes > self.limit:
            raise ValidationError({"file": [f"larger than the limit of {self.limit:,} bytes"]})
        return line


def trace_create(
    *, owner, name: str, upload: File, sacct: SacctOptions | None = None, budget: str = "UPLOAD"
) -> Trace:
    """Validate and store an uploaded trace (SWF, or sacct output converted to SWF as
    ``sacct`` says), checked under the limits of ``budget`` (``UPLOAD``; ``RUN`` when a worker
    converts a large sacct file).

    Nothing is saved if anything fails.
    """
    filename = (getattr(upload, "name", "") or "trace.swf").rsplit("/", 1)[-1][:255]
    with trace_sacct_converted(
        upload=upload, filename=filename, sacct=sacct, budget=budget
    ) as converted:
        return _trace_store(owner, name, *converted, budget=budget)


def _trace_store(
    owner, name: str, upload: File, filename: str, conversion: dict | None, budget: str
):
    size = trace_precheck(upload=upload, filename=filename)  # here: cheap, constant memory
    facts = (
        _trace_facts(upload, filename)
        if size <= INLINE_CHECK_BYTES  # small: bounded work, no child needed
        else upload_limited(
            _trace_facts, upload, filename, what=f"{filename}: checking it", budget=budget
        )
    )
    upload.seek(0)  # the child read the same open file
    sha, size = _digest(upload)
    summary = facts["summary"]
    if conversion is not None:
        summary["conversion"] = conversion
    row = Trace(
        owner=owner,
        name=(name or filename)[:200],
        original_filename=filename,
        size_bytes=size,
        sha256=sha,
        job_count=facts["job_count"],
        machine_procs=summary["machine_procs"],
        header=facts["header"],
        summary=summary,
    )
    return _save_with_file(row, filename, upload)


def _trace_facts(upload: File, filename: str) -> dict:
    """(In a limited child for big files) check and summarise: only these small facts go
    back."""
    return trace_validate_file(upload=upload, filename=filename)


def upload_limited(fn, *args, what: str, budget: str = "UPLOAD"):
    """Check an upload in a child under GRIDPORTAL_{budget}_{MEMORY_MB,TIME_LIMIT} (an
    upload's, or a run's in a worker): a file that needs more is refused naming the limit
    (field ``file``), the web process never grows."""
    return web_limited(
        fn, *args, field="file", what=what, budget=budget, advice="the file is refused"
    )


def _save_with_file(row, filename: str, content):
    """Write the file, then the row; if the row cannot be saved, the file goes too. Refused
    (naming the quota) when it would take the owner past their storage quota."""
    quota_check_storage(owner=row.owner, adding=row.size_bytes, field="file")
    row.file.save(filename, content, save=False)
    try:
        with transaction.atomic():
            row.save()
    except BaseException:
        row.file.delete(save=False)
        raise
    return row


def _delete_unused(row, what: str) -> None:
    """Delete an input and (after commit) its file, unless experiments still use it."""
    if row.experiments.exists():
        raise ValidationError(f"this {what} is used by experiments; delete them first")
    storage, path = row.file.storage, row.file.name
    row.delete()
    transaction.on_commit(lambda: storage.delete(path))


def trace_delete(*, trace: Trace) -> None:
    _delete_unused(trace, "trace")


def trace_open(trace: Trace):
    """Load a stored trace for the engine (it was validated on upload).

    Parsed traces are immutable, so a worker keeps the last few in memory: the runs of a
    sweep mostly share their input and would otherwise parse it again every time.
    """
    key = ("trace", trace.sha256, trace.file.path)
    cost = max(1, trace.job_count) * TRACE_JOB_BYTES
    return _INPUT_CACHE.get(key, cost, lambda: load_trace(trace.file.path, name=trace.file.path))


#: Estimated memory of one parsed job (SWFJob and its fields) and one workflow task.
TRACE_JOB_BYTES = 400
WORKFLOW_TASK_BYTES = 1500


class BoundedCache:
    """Least-recently-used cache bounded by the estimated bytes of its values (a setting,
    GRIDPORTAL_INPUT_CACHE_MB): a worker never keeps more parsed inputs than that."""

    def __init__(self, limit_bytes=None):
        self._limit = limit_bytes
        self._items: OrderedDict = OrderedDict()  # key -> (cost, value)
        self._lock = threading.Lock()

    @property
    def limit(self) -> int:
        if self._limit is not None:
            return self._limit
        return settings.GRIDPORTAL_INPUT_CACHE_MB * 2**20

    def total(self) -> int:
        return sum(cost for cost, _ in self._items.values())

    def get(self, key, cost: int, load):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][1]
        value = load()
        with self._lock:
            if cost <= self.limit:
                self._items[key] = (cost, value)
                self._items.move_to_end(key)
                while self.total() > self.limit:
                    self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_INPUT_CACHE = BoundedCache()


# Workflows ---------------------------------------------------------------------------------

WORKFLOW_GENERATORS = {
    "layered": generate_layered,
    "cybershake": generate_cybershake,
    "montage": generate_montage,
}


def _workflow_format(data: bytes) -> str:
    """The format of a generated workflow's bytes (an upload's comes from its reader)."""
    fmt = detect_workflow_format(data)
    if fmt in ("dax", "yaml"):
        return {"dax": "dax", "yaml": "pegasus-yaml"}[fmt]
    return "native" if b'"gridportal-workflow"' in data[:4096] else "wfformat"


def _store_workflow(
    *,
    owner,
    name: str,
    filename: str,
    data: bytes,
    facts: dict,
    generator: dict | None = None,
) -> Workflow:
    summary = facts["summary"]
    row = Workflow(
        owner=owner,
        name=(name or facts["name"] or filename)[:200],
        original_filename=filename[:255],
        format=facts.get("format") or _workflow_format(data),
        size_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        task_count=summary["tasks"],
        edge_count=summary["edges"],
        summary=summary,
        generator=generator,
    )
    return _save_with_file(row, filename, ContentFile(data))


def workflow_create(*, owner, name: str, upload: File) -> Workflow:
    """Validate and store an uploaded DAX / Pegasus 5 YAML or JSON / WfFormat / native JSON
    workflow, or nothing."""
    filename = (getattr(upload, "name", "") or "workflow").rsplit("/", 1)[-1][:255]
    limit = settings.GRIDPORTAL_MAX_WORKFLOW_BYTES
    upload.seek(0)
    data = upload.read(limit + 1)
    facts = (
        _workflow_facts(data, filename)
        if len(data) <= INLINE_CHECK_BYTES // 4  # small: bounded work, no child needed
        else upload_limited(_workflow_facts, data, filename, what=f"{filename}: checking it")
    )
    return _store_workflow(owner=owner, name=name, filename=filename, data=data, facts=facts)


def _workflow_facts(data: bytes, filename: str) -> dict:
    """(In a limited child) parse and summarize an uploaded workflow."""
    limit = settings.GRIDPORTAL_MAX_WORKFLOW_BYTES
    try:
        workflow = load_workflow(data, name=filename, max_bytes=limit)
    except WorkflowError as exc:
        raise ValidationError(
            {
                "file": [
                    f"{filename}: {where}: {reason}"
                    for where, reason in exc.errors[:MAX_REPORTED_ERRORS]
                ]
            }
        )
    except (LookupError, UnicodeError, RecursionError) as exc:
        # e.g. an XML declaration naming an unknown encoding: the user's file, not a server error
        raise ValidationError({"file": [f"{filename}: file: cannot be read: {exc}"]}) from None
    return {
        "name": workflow.name,
        "summary": summarize_workflow(workflow),
        "format": workflow.source,
    }


def workflow_generate(*, owner, model: str, params: dict, name: str = "") -> Workflow:
    """Generate a workflow (thesis §4.7–4.8 or Singh, Kesselman & Deelman 2005, §4.1) and store it
    as native JSON."""
    if model not in WORKFLOW_GENERATORS:
        raise ValidationError({"model": [f"unknown model {model!r}"]})
    data, facts = web_limited(
        _generated,
        model,
        params,
        field="params",
        what="generating this workflow",
        advice="ask for fewer tasks or fewer parents per task",
    )
    filename = f"{model}-{facts['name'] or 'workflow'}.json".replace("/", "-")
    return _store_workflow(
        owner=owner,
        name=name or f"{model} workflow",
        filename=filename,
        data=data,
        facts=facts,
        generator={"model": model, "params": params},
    )


def _generated(model: str, params: dict) -> tuple[bytes, dict]:
    """(In a limited child) generate, serialize and summarize a workflow."""
    try:
        workflow = WORKFLOW_GENERATORS[model](**params)
    except (TypeError, ValueError) as exc:
        raise ValidationError({"params": [str(exc)]}) from None
    return dumps_workflow(workflow).encode(), {
        "name": workflow.name,
        "summary": summarize_workflow(workflow),
    }


def workflow_delete(*, workflow: Workflow) -> None:
    _delete_unused(workflow, "workflow")


def workflow_open(workflow: Workflow):
    """Load a stored workflow for the engine (validated on upload; cached like traces)."""
    key = ("workflow", workflow.sha256, workflow.file.path)
    cost = max(1, workflow.task_count + workflow.edge_count) * WORKFLOW_TASK_BYTES
    return _INPUT_CACHE.get(key, cost, lambda: load_workflow(workflow.file.path, max_bytes=None))
