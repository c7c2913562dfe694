import json

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from gridportal.ownership import visible_to
from scheduler import experiments as catalogue

from ..export import UnknownPart, result_csv
from ..models import Experiment
from ..services import experiment_cancel, experiment_delete
from .serializers import ExperimentSerializer


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
    filterset_fields = ["kind", "status"]
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

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT},
        parameters=[OpenApiParameter("download", bool, description="as an attachment")],
    )
    @action(detail=True, methods=["get"])
    def result(self, request, pk=None):
        """The Result JSON: summary, tables and declarative chart specs."""
        exp = self.get_object()
        data = _finished_result(exp)
        if request.query_params.get("download"):
            resp = HttpResponse(json.dumps(data, indent=1), content_type="application/json")
            resp["Content-Disposition"] = f'attachment; filename="experiment-{exp.pk}.json"'
            return resp
        return Response(data)

    @extend_schema(
        responses={(200, "text/csv"): OpenApiTypes.STR},
        parameters=[
            OpenApiParameter("part", str, description="summary (default), table:<id> or chart:<id>")
        ],
    )
    @action(detail=True, methods=["get"], url_path="result/csv", url_name="result-csv")
    def result_csv(self, request, pk=None):
        """The result as CSV: the summary, one table or one chart's data."""
        exp = self.get_object()
        data = _finished_result(exp)
        part = request.query_params.get("part", "summary")
        try:
            body = result_csv(data, part)
        except UnknownPart as exc:
            raise Http404(exc.args[0]) from None
        resp = HttpResponse(body, content_type="text/csv; charset=utf-8")
        safe = part.replace(":", "-").replace("/", "-")
        resp["Content-Disposition"] = f'attachment; filename="experiment-{exp.pk}-{safe}.csv"'
        return resp


class KindViewSet(viewsets.ViewSet):
    """The experiment kinds: parameter schema, declared inputs and presets."""

    lookup_value_regex = r"[a-z0-9-]+"

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def list(self, request):
        return Response([k.as_json() for k in catalogue.kinds()])

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def retrieve(self, request, pk=None):
        try:
            return Response(catalogue.get_kind(pk).as_json())
        except KeyError:
            raise Http404(f"no experiment kind {pk!r}") from None
