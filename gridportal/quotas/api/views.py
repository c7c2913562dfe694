from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.response import Response

from ..services import quota_summary


class QuotaViewSet(viewsets.ViewSet):
    """``GET /api/quota/``: your runs in flight and queued, and your stored bytes, against
    your limits (0: no limit). Runs past the in-flight limit wait in the portal (held) and
    start as yours finish, users taking turns; submits past the queued limit or the storage
    quota are refused naming them."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def list(self, request):
        return Response(quota_summary(user=request.user))
