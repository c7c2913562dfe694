"""Experiment runs. The row is the single source of truth for state, progress and result."""

from django.conf import settings
from django.db import models


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
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    progress = models.FloatField(default=0.0)
    message = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    result = models.JSONField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.name or f"{self.kind} #{self.pk}"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED
