"""Celery tasks: thin callers of services (they take an id and re-read the row)."""

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from . import services
from .jobarray import RECHECK_TASK, upload_recheck


@shared_task(
    bind=True,
    name=services.RUN_TASK,
    acks_late=True,
    # A last resort only: the run's own limit (GRIDPORTAL_RUN_TIME_LIMIT, enforced on the
    # engine's child process) fires first and fails the run naming it.
    time_limit=max(settings.GRIDPORTAL_TASK_TIME_LIMIT, settings.GRIDPORTAL_RUN_TIME_LIMIT + 300),
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def run_experiment_task(self, experiment_id: int) -> str:
    # The message's id is the run's claim: a duplicate message never runs it twice.
    outcome = services.experiment_execute(experiment_id=experiment_id, token=self.request.id or "")
    if outcome not in ("duplicate", "missing"):
        # a slot of this user is free (or the run was already over): the next held runs go
        services.dispatch_quietly()
    return outcome


@shared_task(
    name=RECHECK_TASK,
    acks_late=True,
    time_limit=max(settings.GRIDPORTAL_TASK_TIME_LIMIT, settings.GRIDPORTAL_RUN_TIME_LIMIT + 300),
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def recheck_upload_task(upload_id: int, run_id: int) -> str:
    """Re-run one sampled run of an uploaded job array's results and compare (the upload is
    accepted once every sampled run matched, refused at the first difference)."""
    return upload_recheck(upload_id=upload_id, run_id=run_id)
