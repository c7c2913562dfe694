"""Trace services: validate with the engine, then store the file and row together or not at all."""

from __future__ import annotations

import functools
import hashlib
from typing import IO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile, File
from django.db import transaction

from scheduler.io import SWFError, load_trace
from scheduler.traces.stats import trace_summary
from scheduler.workflows import (
    WorkflowError,
    dumps_native,
    generate_cybershake,
    generate_layered,
    generate_montage,
    load_workflow,
    summarize,
)
from scheduler.workflows.loader import detect_format

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


def trace_validate_file(*, upload: File, filename: str):
    """Parse an uploaded SWF file; raise ValidationError (field ``file``) naming the lines."""
    if upload.size is not None and upload.size > settings.GRIDPORTAL_MAX_UPLOAD_BYTES:
        raise ValidationError(
            {
                "file": [
                    f"{filename}: the file is {upload.size:,} bytes; the limit is "
                    f"{settings.GRIDPORTAL_MAX_UPLOAD_BYTES:,} bytes"
                ]
            }
        )
    upload.seek(0)
    try:
        trace = load_trace(upload, name=filename, max_bytes=settings.GRIDPORTAL_MAX_TRACE_BYTES)
    except SWFError as exc:
        messages = [
            f"{filename}: line {line}: {reason}" if line else f"{filename}: {reason}"
            for line, reason in exc.errors[:MAX_REPORTED_ERRORS]
        ]
        raise ValidationError({"file": messages}) from None
    finally:
        upload.seek(0)
    return trace


def trace_create(*, owner, name: str, upload: File) -> Trace:
    """Validate and store an uploaded trace. Nothing is saved if anything fails."""
    filename = (getattr(upload, "name", "") or "trace.swf").rsplit("/", 1)[-1][:255]
    trace = trace_validate_file(upload=upload, filename=filename)
    sha, size = _digest(upload)
    summary = trace_summary(trace)
    row = Trace(
        owner=owner,
        name=(name or filename)[:200],
        original_filename=filename,
        size_bytes=size,
        sha256=sha,
        job_count=len(trace.jobs),
        machine_procs=summary["machine_procs"],
        header=dict(trace.header.fields),
        summary=summary,
    )
    return _save_with_file(row, filename, upload)


def _save_with_file(row, filename: str, content):
    """Write the file, then the row; if the row cannot be saved, the file goes too."""
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
    return _parsed_trace(trace.file.path, trace.sha256)


@functools.lru_cache(maxsize=4)
def _parsed_trace(path: str, sha256: str):
    return load_trace(path, name=path)


# Workflows ---------------------------------------------------------------------------------

WORKFLOW_GENERATORS = {
    "layered": generate_layered,
    "cybershake": generate_cybershake,
    "montage": generate_montage,
}


def _workflow_format(data: bytes) -> str:
    if detect_format(data) == "dax":
        return "dax"
    return "native" if b'"gridportal-workflow"' in data[:4096] else "wfformat"


def _store_workflow(
    *, owner, name: str, filename: str, data: bytes, workflow, generator: dict | None = None
) -> Workflow:
    summary = summarize(workflow)
    row = Workflow(
        owner=owner,
        name=(name or workflow.name or filename)[:200],
        original_filename=filename[:255],
        format=_workflow_format(data),
        size_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        task_count=summary["tasks"],
        edge_count=summary["edges"],
        summary=summary,
        generator=generator,
    )
    return _save_with_file(row, filename, ContentFile(data))


def workflow_create(*, owner, name: str, upload: File) -> Workflow:
    """Validate and store an uploaded DAX / WfFormat / native JSON workflow, or nothing."""
    filename = (getattr(upload, "name", "") or "workflow").rsplit("/", 1)[-1][:255]
    limit = settings.GRIDPORTAL_MAX_WORKFLOW_BYTES
    upload.seek(0)
    data = upload.read(limit + 1)
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
    return _store_workflow(owner=owner, name=name, filename=filename, data=data, workflow=workflow)


def workflow_generate(*, owner, model: str, params: dict, name: str = "") -> Workflow:
    """Generate a workflow (SPEC §4, §8 models) and store it as native JSON."""
    try:
        generator = WORKFLOW_GENERATORS[model]
    except KeyError:
        raise ValidationError({"model": [f"unknown model {model!r}"]}) from None
    try:
        workflow = generator(**params)
    except (TypeError, ValueError) as exc:
        raise ValidationError({"params": [str(exc)]}) from None
    data = dumps_native(workflow).encode()
    filename = f"{model}-{workflow.name or 'workflow'}.json".replace("/", "-")
    return _store_workflow(
        owner=owner,
        name=name or f"{model} workflow",
        filename=filename,
        data=data,
        workflow=workflow,
        generator={"model": model, "params": params},
    )


def workflow_delete(*, workflow: Workflow) -> None:
    _delete_unused(workflow, "workflow")


def workflow_open(workflow: Workflow):
    """Load a stored workflow for the engine (validated on upload; cached like traces)."""
    return _parsed_workflow(workflow.file.path, workflow.sha256)


@functools.lru_cache(maxsize=4)
def _parsed_workflow(path: str, sha256: str):
    return load_workflow(path, max_bytes=None)
