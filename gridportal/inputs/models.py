"""Stored inputs: workload traces (SWF). Validated by ``scheduler.io`` before they are saved."""

import uuid

from django.conf import settings
from django.db import models


def trace_upload_to(instance: "Trace", filename: str) -> str:
    # A fresh random name: user file names never become paths on disk.
    suffix = ".swf.gz" if filename.lower().endswith(".gz") else ".swf"
    return f"traces/{instance.owner_id}/{uuid.uuid4().hex}{suffix}"


class Trace(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="traces"
    )
    name = models.CharField(max_length=200)
    file = models.FileField(upload_to=trace_upload_to)
    original_filename = models.CharField(max_length=255)
    size_bytes = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    job_count = models.PositiveIntegerField()
    machine_procs = models.PositiveIntegerField(null=True, blank=True)
    header = models.JSONField(default=dict, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    site_owned = models.BooleanField(
        default=False,
        help_text="a site's background trace: a copy owned by the sites' system account, not "
        "a user's upload (gridportal.sites.traces.site_trace_copy)",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.name


def workflow_upload_to(instance: "Workflow", filename: str) -> str:
    suffix = {"dax": ".xml", "pegasus-yaml": ".yml"}.get(instance.format, ".json")
    return f"workflows/{instance.owner_id}/{uuid.uuid4().hex}{suffix}"


class Workflow(models.Model):
    """A workflow (DAG of tasks): uploaded DAX / Pegasus 5 YAML or JSON / WfFormat / native JSON,
    or generated."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workflows"
    )
    name = models.CharField(max_length=200)
    file = models.FileField(upload_to=workflow_upload_to)
    original_filename = models.CharField(max_length=255)
    format = models.CharField(
        max_length=16, help_text="dax, pegasus-yaml, pegasus-json, wfformat, native"
    )
    size_bytes = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    task_count = models.PositiveIntegerField()
    edge_count = models.PositiveIntegerField()
    summary = models.JSONField(default=dict, blank=True)
    generator = models.JSONField(
        null=True, blank=True, help_text="model and parameters when generated"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.name


def sacct_import_to(instance: "SacctImport", filename: str) -> str:
    return f"sacct-imports/{instance.owner_id}/{uuid.uuid4().hex}"


class SacctImport(models.Model):
    """A large Slurm accounting upload being converted to a trace by a worker (under a run's
    limits): ``converting`` until its trace is saved (then this row and its file go), or
    ``refused`` with the reasons naming the lines (its file is removed; no trace is saved)."""

    class Status(models.TextChoices):
        CONVERTING = "converting"
        REFUSED = "refused"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sacct_imports"
    )
    name = models.CharField(max_length=200, blank=True)
    original_filename = models.CharField(max_length=255)
    file = models.FileField(upload_to=sacct_import_to, blank=True)
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.CONVERTING)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.name or self.original_filename


class PolicyFile(models.Model):
    """A scheduling policy written by a user (scheduler.policies: a PriorityPolicy or
    DecisionPolicy subclass), checked in the sandbox at upload (gridportal/sandbox.py) and run
    only there. Versioned by the sha256 of its source: the same content is one version, named
    in runs as ``user:<first 12 hex digits>``."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="policy_files"
    )
    name = models.CharField(max_length=200)
    class_name = models.CharField(max_length=100)
    source = models.TextField()
    original_filename = models.CharField(max_length=255)
    size_bytes = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    title = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    dry_run = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "sha256"], name="policyfile_owner_sha256")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.ref})"

    @property
    def ref(self) -> str:
        """How runs name it (the registry's user-policy name)."""
        return f"user:{self.sha256[:12]}"


def slurm_site_upload_to(instance: "SlurmSite", filename: str) -> str:
    suffix = ".sacct.gz" if filename.lower().endswith(".gz") else ".sacct"
    return f"slurm-sites/{instance.owner_id}/{uuid.uuid4().hex}{suffix}"


class SlurmSite(models.Model):
    """A Slurm site for what-ifs (the ``slurm-whatif`` kind): its accounting dump as uploaded
    (``sacct -P`` with its Slurm columns: Account, Partition, QOS, Timelimit, …) and its
    configuration — ``slurm.conf`` and optionally ``sacctmgr -P show assoc`` / ``show qos``
    and ``sshare -a -P`` — all read by the engine at upload; ``summary`` is what was
    understood of them."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="slurm_sites"
    )
    name = models.CharField(max_length=200)
    file = models.FileField(upload_to=slurm_site_upload_to, help_text="the sacct dump")
    original_filename = models.CharField(max_length=255)
    slurm_conf = models.TextField()
    slurm_conf_filename = models.CharField(max_length=255, default="slurm.conf")
    assoc = models.TextField(blank=True, help_text="sacctmgr -P show assoc")
    assoc_filename = models.CharField(max_length=255, blank=True)
    qos = models.TextField(blank=True, help_text="sacctmgr -P show qos")
    qos_filename = models.CharField(max_length=255, blank=True)
    sshare = models.TextField(blank=True, help_text="sshare -a -P: RawUsage before the dump")
    sshare_filename = models.CharField(max_length=255, blank=True)
    size_bytes = models.BigIntegerField(help_text="the dump and the configuration files")
    sha256 = models.CharField(max_length=64, help_text="of the dump and the other files")
    job_count = models.PositiveIntegerField()
    summary = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.name
