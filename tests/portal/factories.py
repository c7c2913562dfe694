"""Helpers that create stored objects through the real services."""

from django.core.files.base import ContentFile

from gridportal.experiments.services import experiment_create, experiment_execute
from gridportal.inputs.services import trace_create
from tests.conftest import make_swf_bytes


def stored_trace(owner, *, jobs=200, procs=64, seed=3, name="generated"):
    return trace_create(
        owner=owner,
        name=name,
        upload=ContentFile(make_swf_bytes(jobs, procs, seed), name="gen.swf"),
    )


def finished_experiment(owner, trace, **params):
    """An experiment run in-process by the service a worker calls (for page/API tests that
    need a result; the worker path itself is covered by tests/integration)."""
    exp = experiment_create(owner=owner, kind="trace-stats", params=params, traces=[trace])
    experiment_execute(experiment_id=exp.pk)
    exp.refresh_from_db()
    return exp
