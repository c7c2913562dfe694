"""Trace services: validate with the engine, then store the file and row together or not at all."""

from __future__ import annotations

import functools
import hashlib
from typing import IO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import File
from django.db import transaction

from scheduler.io import SWFError, load_trace
from scheduler.traces.stats import trace_summary

from .models import Trace

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
    row.file.save(filename, upload, save=False)
    try:
        with transaction.atomic():
            row.save()
    except BaseException:
        row.file.delete(save=False)
        raise
    return row


def trace_delete(*, trace: Trace) -> None:
    if trace.experiments.exists():
        raise ValidationError("this trace is used by experiments; delete them first")
    storage, path = trace.file.storage, trace.file.name
    trace.delete()
    transaction.on_commit(lambda: storage.delete(path))


def trace_open(trace: Trace):
    """Load a stored trace for the engine (it was validated on upload).

    Parsed traces are immutable, so a worker keeps the last few in memory: the runs of a
    sweep mostly share their input and would otherwise parse it again every time.
    """
    return _parsed_trace(trace.file.path, trace.sha256)


@functools.lru_cache(maxsize=4)
def _parsed_trace(path: str, sha256: str):
    return load_trace(path, name=path)
