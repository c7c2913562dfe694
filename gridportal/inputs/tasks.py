"""Celery tasks of the inputs: thin callers of services (they take an id and re-read the row)."""

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from .sacct_imports import IMPORT_TASK, sacct_import_run


@shared_task(
    name=IMPORT_TASK,
    acks_late=True,
    # a last resort: the conversion's own limit (GRIDPORTAL_RUN_TIME_LIMIT) fires first
    time_limit=max(settings.GRIDPORTAL_TASK_TIME_LIMIT, settings.GRIDPORTAL_RUN_TIME_LIMIT + 300),
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def convert_sacct_import_task(import_id: int) -> str:
    return sacct_import_run(import_id)
