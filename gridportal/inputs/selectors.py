"""Read-only queries about inputs."""

from django.db.models import QuerySet

from gridportal.ownership import visible_to

from .models import Trace


def usable_traces(user) -> QuerySet:
    """Traces a user may run experiments on: their own (staff: all), and the background
    traces of the sites staff configured (shared grid configuration, not private data)."""
    if not user.is_authenticated:
        return Trace.objects.none()
    own = visible_to(Trace.objects.all(), user)
    return (own | Trace.objects.filter(sites__isnull=False)).distinct()
