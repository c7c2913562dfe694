"""Experiment runs. The row is the single source of truth for state, progress and result."""

from django.conf import settings
from django.db import models

from .fields import ResultField


def kind_title(kind: str) -> str:
    """A kind's short title for people ("Adaptive reservation pricing over a whole trace", not
    "pricing"): the catalogue's title before its colon; the name itself for an unknown kind."""
    from scheduler import engine

    try:
        return engine.get_kind(kind).title.split(":")[0]
    except KeyError:
        return kind


class Experiment(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"

    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="experiments"
    )
    name = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=64, db_index=True)
    params = models.JSONField(default=dict, blank=True)
    seed = models.PositiveIntegerField(default=0)
    traces = models.ManyToManyField("inputs.Trace", related_name="experiments", blank=True)
    workflows = models.ManyToManyField("inputs.Workflow", related_name="experiments", blank=True)
    slurm_sites = models.ManyToManyField("inputs.SlurmSite", related_name="experiments", blank=True)
    snapshot = models.JSONField(
        default=dict,
        blank=True,
        help_text="configuration copied at creation (e.g. the policy document), so later "
        "edits never change the run",
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    progress = models.FloatField(default=0.0)
    message = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    result = ResultField(null=True, blank=True)  # reads what jsonb stored, never raises
    fingerprint = models.CharField(
        max_length=64,
        blank=True,
        db_index=True,
        help_text="hash of kind, parameters, seed and input contents: identical runs share it",
    )
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    claim = models.CharField(
        max_length=64,
        blank=True,
        help_text="the task message that took the run (a duplicate message never runs it twice)",
    )
    published_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="when its task message was published; a queued run without one is held in "
        "the database until its owner has room under the in-flight limit (fair dispatch)",
    )
    provenance = models.JSONField(
        null=True,
        blank=True,
        help_text="a result computed elsewhere (uploaded from a Slurm job array): where, the "
        "engine version, the hashes of its inputs and parameters, its start and end, and the "
        "upload; null: computed by the portal's workers. Never reused for another run.",
    )

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["owner", "status"], name="experiment_owner_status")]

    def __str__(self) -> str:
        return self.name or f"{kind_title(self.kind)} #{self.pk}"

    @property
    def is_held(self) -> bool:
        """Queued and not yet published: waiting in the database for a turn (fair dispatch)."""
        return self.status == self.Status.QUEUED and self.published_at is None

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def computed_elsewhere(self) -> bool:
        return self.provenance is not None


class Sweep(models.Model):
    """A parameter sweep: one or two varied parameters × repetitions (seeds), one run per
    combination. Runs are ordinary experiments, shared with other sweeps when identical."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sweeps"
    )
    name = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=64, db_index=True)
    params = models.JSONField(default=dict, blank=True, help_text="the fixed parameters")
    seed = models.PositiveIntegerField(default=0, help_text="repetition r runs with seed + r")
    traces = models.ManyToManyField("inputs.Trace", related_name="sweeps", blank=True)
    workflows = models.ManyToManyField("inputs.Workflow", related_name="sweeps", blank=True)
    slurm_sites = models.ManyToManyField("inputs.SlurmSite", related_name="sweeps", blank=True)
    snapshot = models.JSONField(default=dict, blank=True)
    vary = models.JSONField(default=list, help_text='[{"param": name, "values": [...]}, ...]')
    repetitions = models.PositiveIntegerField(default=1)
    executor = models.CharField(
        max_length=16,
        choices=[("workers", "the portal's Celery workers"), ("slurm", "a Slurm job array")],
        default="workers",
        help_text="slurm: the runs wait for results uploaded from the exported job array",
    )
    runs = models.ManyToManyField(Experiment, through="SweepRun", related_name="sweeps")
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.name or f"{kind_title(self.kind)} sweep #{self.pk}"


class SweepRun(models.Model):
    """One point of a sweep: the varied values, the repetition, and the run that computes it."""

    sweep = models.ForeignKey(Sweep, on_delete=models.CASCADE, related_name="points")
    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="+")
    point = models.JSONField(default=dict)
    index = models.PositiveIntegerField(help_text="position of the point in the sweep grid")
    repetition = models.PositiveIntegerField(default=0)
    reused = models.BooleanField(default=False, help_text="an identical earlier run was reused")

    class Meta:
        ordering = ["index", "repetition"]
        constraints = [
            models.UniqueConstraint(
                fields=["sweep", "index", "repetition"], name="one_run_per_sweep_point"
            )
        ]

    def __str__(self) -> str:
        values = ", ".join(f"{k}={v}" for k, v in self.point.items())
        return f"{self.sweep} · {values} · repetition {self.repetition}"


class ResultUpload(models.Model):
    """Results of a sweep's job array uploaded at once. They wait (their runs stay queued)
    while a sample of them is re-run on the workers; every sampled run must come out the same,
    else the whole upload is refused and its runs fail naming the run and the value."""

    class Status(models.TextChoices):
        CHECKING = "checking"
        ACCEPTED = "accepted"
        REFUSED = "refused"

    sweep = models.ForeignKey(Sweep, on_delete=models.CASCADE, related_name="uploads")
    created = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CHECKING)
    message = models.TextField(blank=True)
    runs = models.JSONField(default=list, help_text="ids of the runs whose results it brought")
    sample = models.JSONField(default=list, help_text="ids of the runs re-run on the workers")
    checked = models.JSONField(default=dict, help_text="run id -> what its re-run found")

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"upload {self.pk} of sweep {self.sweep_id} ({self.status})"

    def as_json(self) -> dict:
        return {
            "id": self.pk,
            "status": self.status,
            "message": self.message,
            "created": self.created.isoformat(),
            "runs": len(self.runs),
            "sample": self.sample,
            "checked": self.checked,
        }
