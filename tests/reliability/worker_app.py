"""The portal's Celery app for the reliability tests' workers, plus a record of executions.

Every worker process appends ``<pid> delivered <run id>`` when it receives the run's task and
``<pid> started <run id>`` when the engine actually starts the run (the row was taken), to the
file named by ``RELIABILITY_EXECUTIONS``: the tests count lost and duplicated executions.
"""

import os

from celery.signals import task_prerun, worker_process_init

from gridportal.celery import app

__all__ = ["app"]
RECORD = os.environ.get("RELIABILITY_EXECUTIONS", "")


def _record(event: str, run_id) -> None:
    if RECORD:
        line = f"{os.getpid()} {event} {int(run_id)}\n".encode()
        fd = os.open(RECORD, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one small O_APPEND write: lines never interleave
        finally:
            os.close(fd)


@task_prerun.connect
def _delivered(sender=None, args=None, **_):
    if sender is not None and sender.name == "gridportal.experiments.run" and args:
        _record("delivered", args[0])


@worker_process_init.connect
def _count_engine_starts(**_):
    from gridportal.experiments import services

    load_inputs = services._inputs_for

    def recorded(exp):
        _record("started", exp.pk)
        return load_inputs(exp)

    services._inputs_for = recorded
