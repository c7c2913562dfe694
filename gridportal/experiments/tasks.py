"""Celery tasks: thin callers of services (they take an id and re-read the row)."""

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from . import services


@shared_task(
    name="gridportal.experiments.run",
    acks_late=True,
    time_limit=settings.GRIDPORTAL_TASK_TIME_LIMIT,
    soft_time_limit=max(settings.GRIDPORTAL_TASK_TIME_LIMIT - 60, 30),
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def run_experiment_task(experiment_id: int) -> str:
    return services.experiment_execute(experiment_id=experiment_id)
