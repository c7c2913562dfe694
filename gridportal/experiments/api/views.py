import json

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from gridportal.ids import ID_REGEX
from gridportal.ownership import visible_to
from scheduler import experiments as catalogue

from ..export import UnknownPart, result_csv
from ..models import Experiment, Sweep
from ..services import experiment_cancel, experiment_clone, experiment_delete
from ..sweeps import sweep_aggregate, sweep_cancel, sweep_delete
from .filters import ExperimentFilter, SweepFilter
from .serializers import CloneSerializer, ExperimentSerializer, SweepSerializer

RESULT_CSV_SCHEMA = extend_schema(
    responses={(200, "text/csv"): OpenApiTypes.STR},
    parameters=[
        OpenApiParameter("part", str, description="summary (default), table:<id> or chart:<id>")
    ],
)
RESULT_JSON_SCHEMA = extend_schema(
    responses={200: OpenApiTypes.OBJECT},
    parameters=[OpenApiParameter("download", bool, description="as an attachment")],
)


def json_response(request, data: dict, filename: str):
    if request.query_params.get("download"):
        resp = HttpResponse(json.dumps(data, indent=1), content_type="application/json")
        resp["Content-Disposition"] = f'attachment; filename="{filename}.json"'
        return resp
    return Response(data)


def csv_response(request, data: dict, filename: str) -> HttpResponse:
    part = request.query_params.get("part", "summary")
    try:
        body = result_csv(data, part)
    except UnknownPart as exc:
        raise Http404(exc.args[0]) from None
    resp = HttpResponse(body, content_type="text/csv; charset=utf-8")
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in part)
    resp["Content-Disposition"] = f'attachment; filename="{filename}-{safe}.csv"'
    return resp


def _finished_result(exp: Experiment) -> dict:
    if exp.status != Experiment.Status.SUCCEEDED or exp.result is None:
        raise serializers.ValidationError({"detail": f"no result: the run is {exp.status}"})
    return exp.result


class ExperimentViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Experiment runs: create one (it is queued for a worker), follow it, cancel it, and
    export its result as JSON or CSV."""

    serializer_class = ExperimentSerializer
    lookup_value_regex = ID_REGEX
    filterset_class = ExperimentFilter
    search_fields = ["name", "kind"]
    ordering_fields = ["created", "status", "kind"]

    def get_queryset(self):
        return visible_to(
            Experiment.objects.select_related("owner").prefetch_related("traces"), self.request.user
        ).defer("result")

    def perform_destroy(self, instance):
        experiment_delete(experiment=instance)

    @extend_schema(request=None, responses=ExperimentSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        exp = self.get_object()
        try:
            exp = experiment_cancel(experiment=exp)
        except DjangoValidationError as exc:
            return Response({"detail": exc.messages[0]}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(exp).data)

    @extend_schema(request=CloneSerializer, responses={201: ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request, pk=None):
        """A new queued run with the same kind and inputs (parameters may be overridden)."""
        exp = self.get_object()
        changes = CloneSerializer(data=request.data)
        changes.is_valid(raise_exception=True)
        try:
            copy = experiment_clone(experiment=exp, owner=request.user, **changes.validated_data)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        return Response(self.get_serializer(copy).data, status=status.HTTP_201_CREATED)

    @RESULT_JSON_SCHEMA
    @action(detail=True, methods=["get"])
    def result(self, request, pk=None):
        """The Result JSON: summary, tables and declarative chart specs."""
        exp = self.get_object()
        return json_response(request, _finished_result(exp), f"experiment-{exp.pk}")

    @RESULT_CSV_SCHEMA
    @action(detail=True, methods=["get"], url_path="result/csv", url_name="result-csv")
    def result_csv(self, request, pk=None):
        """The result as CSV: the summary, one table or one chart's data."""
        exp = self.get_object()
        return csv_response(request, _finished_result(exp), f"experiment-{exp.pk}")


class SweepViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Parameter sweeps: one or two varied parameters × repetitions, run as a group of
    experiments across the Celery workers; the result aggregates mean, std and n per point."""

    serializer_class = SweepSerializer
    lookup_value_regex = ID_REGEX
    filterset_class = SweepFilter
    search_fields = ["name", "kind"]
    ordering_fields = ["created", "kind"]

    def get_queryset(self):
        return visible_to(
            Sweep.objects.select_related("owner").prefetch_related("traces"), self.request.user
        )

    def perform_destroy(self, instance):
        sweep_delete(sweep=instance)

    @extend_schema(request=None, responses=SweepSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancel the sweep's queued and running runs (finished ones are kept)."""
        sweep = self.get_object()
        sweep_cancel(sweep=sweep)
        return Response(self.get_serializer(sweep).data)

    @RESULT_JSON_SCHEMA
    @action(detail=True, methods=["get"])
    def result(self, request, pk=None):
        """The aggregate as a Result: a table per point and a chart per metric with error
        bars (mean ± standard deviation)."""
        sweep = self.get_object()
        return json_response(request, sweep_aggregate(sweep), f"sweep-{sweep.pk}")

    @RESULT_CSV_SCHEMA
    @action(detail=True, methods=["get"], url_path="result/csv", url_name="result-csv")
    def result_csv(self, request, pk=None):
        sweep = self.get_object()
        return csv_response(request, sweep_aggregate(sweep), f"sweep-{sweep.pk}")


class KindViewSet(viewsets.ViewSet):
    """The experiment kinds: parameter schema, declared inputs and presets."""

    lookup_value_regex = r"[a-z0-9-]+"

    @extend_schema(operation_id="kinds_list", responses={200: OpenApiTypes.OBJECT})
    def list(self, request):
        return Response([k.as_json() for k in catalogue.kinds()])

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def retrieve(self, request, pk=None):
        try:
            return Response(catalogue.get_kind(pk).as_json())
        except KeyError:
            raise Http404(f"no experiment kind {pk!r}") from None
