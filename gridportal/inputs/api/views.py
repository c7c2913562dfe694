from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, parsers, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from gridportal.ids import ID_REGEX
from gridportal.ownership import visible_to
from gridportal.parsers import BoundedJSONParser
from gridportal.querystrings import FiltersOnListsOnly

from ..models import SacctImport, Trace, Workflow
from ..services import trace_delete, workflow_delete, workflow_generate
from .filters import TraceFilter
from .serializers import (
    SacctImportSerializer,
    TraceSerializer,
    WorkflowGenerateSerializer,
    WorkflowSerializer,
)


class TraceViewSet(
    FiltersOnListsOnly,
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

    @extend_schema(responses={201: TraceSerializer, 202: SacctImportSerializer})
    def create(self, request, *args, **kwargs):
        """Upload a trace (201); a Slurm accounting file larger than
        GRIDPORTAL_SACCT_BACKGROUND_BYTES is converted by a worker (202: its import, followed
        at ``imports/``)."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        made = serializer.save()
        if isinstance(made, SacctImport):
            return Response(SacctImportSerializer(made).data, status=status.HTTP_202_ACCEPTED)
        return Response(serializer.data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: SacctImportSerializer(many=True)})
    @action(detail=False, methods=["get"], url_path="imports", url_name="imports")
    def imports(self, request):
        """Your Slurm accounting files being converted (``converting``) or refused (``error``
        names the lines); a converted one leaves this list and is a trace."""
        rows = SacctImport.objects.filter(owner=request.user)[:100]
        return Response(SacctImportSerializer(rows, many=True).data)

    def perform_destroy(self, instance):
        try:
            trace_delete(trace=instance)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"detail": exc.messages}) from None


class WorkflowViewSet(
    FiltersOnListsOnly,
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Workflows: upload (multipart ``file``: DAX, Pegasus 5 YAML/JSON, WfFormat or native JSON)
    or generate one."""

    serializer_class = WorkflowSerializer
    lookup_value_regex = ID_REGEX
    search_fields = ["name", "original_filename"]
    ordering_fields = ["created", "name", "task_count"]
    filterset_fields = ["format"]

    parser_classes = [parsers.MultiPartParser, parsers.FormParser, BoundedJSONParser]

    def get_queryset(self):
        return visible_to(Workflow.objects.select_related("owner"), self.request.user)

    def perform_destroy(self, instance):
        try:
            workflow_delete(workflow=instance)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"detail": exc.messages}) from None

    @extend_schema(request=WorkflowGenerateSerializer, responses={201: WorkflowSerializer})
    @action(detail=False, methods=["post"])
    def generate(self, request):
        """Generate a layered random, CyberShake or Montage-like workflow."""
        ser = WorkflowGenerateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        try:
            wf = workflow_generate(owner=request.user, **ser.validated_data)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        return Response(
            WorkflowSerializer(wf, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )
