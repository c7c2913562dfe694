"""Per-user limits: runs in flight, runs queued, bytes stored — read, counted and enforced.

The defaults are settings (``GRIDPORTAL_USER_MAX_RUNNING``, ``GRIDPORTAL_USER_MAX_QUEUED``,
``GRIDPORTAL_USER_STORAGE_BYTES``); staff override them per user in the admin
(:class:`UserQuota`). 0 means no limit. The in-flight limit is enforced by the fair dispatch
(``gridportal.experiments.services.experiments_dispatch``), the others at the door: a submit
past the queued limit, or an upload or submit past the storage quota, is refused naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import BigIntegerField, Func, Q, Sum

from .models import UserQuota


def _experiments():  # type: ignore[no-untyped-def]
    """The Experiment model, looked up by name (as are Trace and Workflow): the experiments and
    inputs apps use this one (to refuse a submit or an upload past a quota), so importing
    their models here would tie the apps into a circle."""
    return apps.get_model("experiments", "Experiment")


@dataclass(frozen=True)
class Limits:
    max_running: int
    max_queued: int
    storage_bytes: int


def quota_limits(*, user) -> Limits:
    """The user's limits: their :class:`UserQuota` where set, else the settings."""
    own = UserQuota.objects.filter(user_id=user.pk).first()

    def pick(field: str, setting: str) -> int:
        value = getattr(own, field, None) if own is not None else None
        return int(getattr(settings, setting) if value is None else value)

    return Limits(
        max_running=pick("max_running", "GRIDPORTAL_USER_MAX_RUNNING"),
        max_queued=pick("max_queued", "GRIDPORTAL_USER_MAX_QUEUED"),
        storage_bytes=pick("storage_bytes", "GRIDPORTAL_USER_STORAGE_BYTES"),
    )


def limits_by_user(user_ids) -> dict[int, int]:
    """In-flight limits of several users at once (the dispatcher's question)."""
    default = int(settings.GRIDPORTAL_USER_MAX_RUNNING)
    out = {pk: default for pk in user_ids}
    for pk, value in UserQuota.objects.filter(
        user_id__in=list(out), max_running__isnull=False
    ).values_list("user_id", "max_running"):
        out[pk] = int(value)
    return out


#: A run in flight: its task message is published (waiting in the broker) or it is running.
IN_FLIGHT = Q(status="running") | Q(status="queued", published_at__isnull=False)


def queued_runs(user_id: int):
    """The user's queued runs that wait for the portal's workers (a Slurm sweep's runs wait
    for uploaded results instead, and take no worker)."""
    return (
        _experiments()
        .objects.filter(owner_id=user_id, status=_experiments().Status.QUEUED)
        .exclude(sweeps__executor="slurm")
    )


class StoredSize(Func):
    """Bytes a JSON column takes: ``pg_column_size`` (as stored, compressed; read without
    decompressing) on PostgreSQL, the text's length elsewhere."""

    function = "LENGTH"
    output_field = BigIntegerField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, function="pg_column_size", **extra)


def storage_used(*, user_id: int) -> dict[str, int]:
    traces = (
        apps.get_model("inputs", "Trace")
        .objects.filter(owner_id=user_id)
        .aggregate(n=Sum("size_bytes"))["n"]
        or 0
    )
    workflows = (
        apps.get_model("inputs", "Workflow")
        .objects.filter(owner_id=user_id)
        .aggregate(n=Sum("size_bytes"))["n"]
        or 0
    )
    slurm_sites = (
        apps.get_model("inputs", "SlurmSite")
        .objects.filter(owner_id=user_id)
        .aggregate(n=Sum("size_bytes"))["n"]
        or 0
    )
    results = (
        _experiments()
        .objects.filter(owner_id=user_id, result__isnull=False)
        .aggregate(n=Sum(StoredSize("result")))["n"]
        or 0
    )
    return {
        "traces": int(traces),
        "workflows": int(workflows),
        "slurm_sites": int(slurm_sites),
        "results": int(results),
        "total": int(traces + workflows + slurm_sites + results),
    }


def describe_bytes(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


def quota_check_storage(*, owner, adding: int = 0, field: str = "file") -> None:
    """Refuse (a ValidationError on ``field``) when the owner's stored bytes plus ``adding``
    pass their storage quota; ``adding`` = 0 (a submit) refuses once the quota is full."""
    limit = quota_limits(user=owner).storage_bytes
    if limit <= 0:
        return
    used = storage_used(user_id=owner.pk)
    if used["total"] + adding > limit or (adding == 0 and used["total"] >= limit):
        kinds = ("traces", "workflows", *(("slurm_sites",) if used["slurm_sites"] else ()),
                 "results")  # fmt: skip
        parts = ", ".join(f"{k.replace('_', ' ')} {describe_bytes(used[k])}" for k in kinds)
        head = (
            f"this upload of {describe_bytes(adding)} would pass your storage quota of "
            f"{describe_bytes(limit)}"
            if adding
            else f"your storage quota of {describe_bytes(limit)} is used up"
        )
        raise ValidationError(
            {
                field: [
                    f"{head}: you store {describe_bytes(used['total'])} ({parts}). Delete "
                    "runs, traces or workflows you no longer need, or ask staff for a larger "
                    "quota."
                ]
            }
        )


def quota_check_queued(*, owner, adding: int, field: str = "vary") -> None:
    """Refuse a submit that would leave the owner more queued runs than their limit."""
    limit = quota_limits(user=owner).max_queued
    if limit <= 0 or adding <= 0:
        return
    queued = queued_runs(owner.pk).count()
    if queued + adding > limit:
        raise ValidationError(
            {
                field: [
                    f"this submits {adding} run{'s' * (adding != 1)} and you have {queued} "
                    f"queued; the limit is {limit} queued runs per user. Wait for some to "
                    "finish, cancel some, or submit fewer (or ask staff for a larger quota)."
                ]
            }
        )


def quota_summary(*, user) -> dict[str, Any]:
    """The user's usage against their limits, for the runs page and ``/api/quota/``."""
    limits = quota_limits(user=user)
    mine = _experiments().objects.filter(owner_id=user.pk)
    in_flight = mine.filter(IN_FLIGHT).count()
    running = mine.filter(status=_experiments().Status.RUNNING).count()
    queued = queued_runs(user.pk).count()
    held = queued_runs(user.pk).filter(published_at__isnull=True).count()
    storage = storage_used(user_id=user.pk)
    return {
        "runs_in_flight": in_flight,
        "runs_running": running,
        "runs_queued": queued,
        "runs_held": held,
        "max_runs_in_flight": limits.max_running,
        "max_runs_queued": limits.max_queued,
        "storage_bytes": storage["total"],
        "storage_by_kind": {
            k: storage[k] for k in ("traces", "workflows", "slurm_sites", "results")
        },
        "storage_quota_bytes": limits.storage_bytes,
        "storage_quota": describe_bytes(limits.storage_bytes) if limits.storage_bytes else None,
        "storage_used": describe_bytes(storage["total"]),
        "note": "0 means no limit. Runs beyond the in-flight limit wait in the portal (held) "
        "and start as yours finish, users taking turns.",
    }
