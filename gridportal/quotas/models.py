"""Per-user limits set by staff (the defaults are settings: GRIDPORTAL_USER_*)."""

from django.conf import settings
from django.db import models


class UserQuota(models.Model):
    """One user's own limits; an empty field keeps the portal's default for it. 0: no limit."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quota"
    )
    max_running = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="runs in flight at once (published to the workers or running); empty: "
        "GRIDPORTAL_USER_MAX_RUNNING; 0: no limit",
    )
    max_queued = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="runs waiting (queued) at once; a submit past it is refused; empty: "
        "GRIDPORTAL_USER_MAX_QUEUED; 0: no limit",
    )
    storage_bytes = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        help_text="bytes of traces, workflows and results stored; empty: "
        "GRIDPORTAL_USER_STORAGE_BYTES; 0: no limit",
    )
    note = models.CharField(max_length=200, blank=True, help_text="why (for staff)")

    def __str__(self) -> str:
        return f"quota of {self.user}"
