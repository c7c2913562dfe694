"""Helpers that create stored objects through the real services."""

from django.core.files.base import ContentFile

from gridportal.experiments.services import experiment_create, experiment_execute
from gridportal.inputs.services import trace_create
from gridportal.inputs.slurm_sites import slurm_site_create
from tests.conftest import make_swf_bytes


def stored_trace(owner, *, jobs=200, procs=64, seed=3, name="generated"):
    return trace_create(
        owner=owner,
        name=name,
        upload=ContentFile(make_swf_bytes(jobs, procs, seed), name="gen.swf"),
    )


def stored_slurm_site(owner, *, jobs=60, seed=5, name="whatif site"):
    """A Slurm site (tests/slurm/sites.py: two 8-CPU nodes, two accounts, two QOS) whose dump
    records the Slurm model's own schedule of it."""
    from tests.slurm.sites import ASSOC, QOS, SLURM_CONF, recorded_dump

    return slurm_site_create(
        owner=owner, name=name,
        dump=ContentFile(recorded_dump(jobs, seed).encode(), name="sacct.txt"),
        slurm_conf=ContentFile(SLURM_CONF.encode(), name="slurm.conf"),
        assoc=ContentFile(ASSOC.encode(), name="assoc.txt"),
        qos=ContentFile(QOS.encode(), name="qos.txt"),
    )  # fmt: skip


def inputs_for_kind(owner, kind) -> dict:
    """Small stored inputs of every kind ``kind`` declares (at its minimum count), as the
    services' keyword arguments."""
    out: dict = {"traces": [], "slurm_sites": []}
    for spec in kind.inputs:
        if spec.kind == "trace":
            out["traces"] += [stored_trace(owner, jobs=400, procs=64, seed=i)
                              for i in range(spec.min)]  # fmt: skip
        elif spec.kind == "slurm-site":
            out["slurm_sites"] += [stored_slurm_site(owner) for _ in range(spec.min)]
    return out


def finished_experiment(owner, trace, **params):
    """An experiment run in-process by the service a worker calls (for page/API tests that
    need a result; the worker path itself is covered by tests/integration)."""
    exp = experiment_create(owner=owner, kind="trace-stats", params=params, traces=[trace])
    experiment_execute(experiment_id=exp.pk)
    exp.refresh_from_db()
    return exp
