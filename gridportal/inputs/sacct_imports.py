"""Large Slurm accounting uploads are converted by a worker, not within the web request.

A 10⁶-row ``sacct`` dump takes longer to convert than a web request may last
(GRIDPORTAL_UPLOAD_TIME_LIMIT; ``bench/bench_sacct.py`` prints the conversion's rows per
second).  A sacct upload larger than GRIDPORTAL_SACCT_BACKGROUND_BYTES is stored as it came,
and a :class:`~gridportal.inputs.models.SacctImport` row says "converting…"; a Celery task
converts it under a run's limits (GRIDPORTAL_RUN_{TIME_LIMIT,MEMORY_MB}) through the same
service as any upload (:func:`~gridportal.inputs.services.trace_create`), then removes the row
and the stored upload — or marks the row refused with the reasons naming the lines and removes
the stored upload: of a refused file no trace row and no file is left.
"""

from __future__ import annotations

import dataclasses
import logging

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files import File
from django.db import transaction

from gridportal.quotas.services import quota_check_storage
from scheduler.engine import SacctError, detect_sacct

from .models import SacctImport, Trace
from .services import SacctOptions, trace_create

log = logging.getLogger(__name__)

IMPORT_TASK = "gridportal.inputs.convert_sacct_import"
_MAX_ERROR_CHARS = 20_000


def goes_to_background(upload, sacct: SacctOptions) -> bool:
    """A sacct upload (as :func:`scheduler.engine.detect_sacct` reads its first KB) larger
    than GRIDPORTAL_SACCT_BACKGROUND_BYTES."""
    size = getattr(upload, "size", None)
    if size is None or size <= settings.GRIDPORTAL_SACCT_BACKGROUND_BYTES:
        return False
    upload.seek(0)
    head = upload.read(4096)
    upload.seek(0)
    try:
        return detect_sacct(head, columns=sacct.columns or None) is not None
    except SacctError:
        return False  # refused on the spot, naming the column list


def trace_upload(
    *, owner, name: str, upload, sacct: SacctOptions | None = None
) -> Trace | SacctImport:
    """An uploaded trace stored now (:func:`trace_create`), or a large sacct file queued for a
    worker to convert (the :class:`SacctImport` that says how it goes)."""
    sacct = sacct or SacctOptions()
    if not goes_to_background(upload, sacct):
        return trace_create(owner=owner, name=name, upload=upload, sacct=sacct)
    limit = settings.GRIDPORTAL_MAX_UPLOAD_BYTES
    filename = (getattr(upload, "name", "") or "trace.sacct").rsplit("/", 1)[-1][:255]
    if upload.size > limit:
        raise ValidationError(
            {
                "file": [
                    f"{filename}: the file is {upload.size:,} bytes; the limit is {limit:,} bytes"
                ]
            }
        )
    busy = SacctImport.objects.filter(owner=owner, status=SacctImport.Status.CONVERTING).count()
    at_once = settings.GRIDPORTAL_SACCT_IMPORTS_AT_ONCE
    if busy >= at_once:
        raise ValidationError(
            {"file": [f"{filename}: {busy} of your Slurm accounting files are being converted "
                      f"(at most {at_once} at once); upload this one when they are done"]}
        )  # fmt: skip
    quota_check_storage(owner=owner, adding=upload.size, field="file")  # as the trace will
    row = SacctImport(
        owner=owner, name=(name or "")[:200], original_filename=filename,
        options=dataclasses.asdict(sacct),
    )  # fmt: skip
    row.file.save(filename, upload, save=False)
    try:
        with transaction.atomic():
            row.save()
            transaction.on_commit(lambda: _enqueue(row.pk))
    except BaseException:
        row.file.delete(save=False)
        raise
    return row


def _enqueue(import_id: int) -> None:
    from gridportal.celery import app

    try:
        app.send_task(IMPORT_TASK, args=(import_id,), queue=settings.CELERY_TASK_DEFAULT_QUEUE)
    except Exception as exc:  # the broker is unreachable: refused, nothing kept
        log.warning("sacct import %s not queued: %s: %s", import_id, type(exc).__name__, exc)
        _refuse(
            SacctImport.objects.get(pk=import_id),
            [f"the conversion could not be queued (the task queue is unreachable: "
             f"{type(exc).__name__}); upload the file again later"],
        )  # fmt: skip


def sacct_import_run(import_id: int) -> str:
    """(In a worker) convert a queued sacct upload into a trace under a run's limits."""
    row = SacctImport.objects.filter(pk=import_id, status=SacctImport.Status.CONVERTING).first()
    if row is None:
        return "missing"
    options = SacctOptions(**row.options)
    try:
        with open(row.file.path, "rb") as fh:
            trace = trace_create(
                owner=row.owner, name=row.name, upload=File(fh, name=row.original_filename),
                sacct=options, budget="RUN",
            )  # fmt: skip
    except ValidationError as exc:
        _refuse(row, exc.messages)
        return "refused"
    storage, path = row.file.storage, row.file.name
    row.delete()
    storage.delete(path)
    return f"trace {trace.pk}"


def _refuse(row: SacctImport, messages: list[str]) -> None:
    storage, path = row.file.storage, row.file.name
    row.status = SacctImport.Status.REFUSED
    row.error = "\n".join(messages)[:_MAX_ERROR_CHARS]
    row.file = ""
    row.save(update_fields=["status", "error", "file"])
    if path:
        storage.delete(path)


def sacct_import_dismiss(*, row: SacctImport) -> None:
    """Forget a refused import (a converting one goes on)."""
    if row.status != SacctImport.Status.REFUSED:
        raise ValidationError("the file is still being converted")
    row.delete()
