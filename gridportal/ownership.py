"""Every object belongs to a user; users see only their own, staff see all (404 otherwise)."""

from django.db.models import QuerySet


def visible_to(queryset: QuerySet, user) -> QuerySet:
    if not user.is_authenticated:
        return queryset.none()
    if user.is_staff:
        return queryset
    return queryset.filter(owner=user)
