from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import mixins, parsers, serializers, viewsets

from gridportal.ids import ID_REGEX
from gridportal.ownership import visible_to

from ..models import Trace
from ..services import trace_delete
from .filters import TraceFilter
from .serializers import TraceSerializer


class TraceViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Workload traces (SWF). Upload with multipart ``file`` (and optional ``name``)."""

    serializer_class = TraceSerializer
    lookup_value_regex = ID_REGEX
    parser_classes = [parsers.MultiPartParser, parsers.FormParser]
    search_fields = ["name", "original_filename"]
    ordering_fields = ["created", "name", "job_count"]
    filterset_class = TraceFilter

    def get_queryset(self):
        return visible_to(Trace.objects.select_related("owner"), self.request.user)

    def perform_destroy(self, instance):
        try:
            trace_delete(trace=instance)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"detail": exc.messages}) from None
