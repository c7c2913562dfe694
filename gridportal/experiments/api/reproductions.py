"""REST: ``/api/reproductions/`` — every preset with claims, the user's latest run beside them
and the engine's verdict; ``scoreboard/`` counts them per seed and figure; ``run/`` starts one,
``run-all/`` starts every one the user has the traces for."""

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from ..reproductions import (
    reference_report,
    reproduction_board,
    reproduction_rows,
    reproduction_run,
    reproduction_run_all,
)


class RunSerializer(serializers.Serializer):
    kind = serializers.CharField(max_length=64)
    preset = serializers.CharField(max_length=100)
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)


class RunAllSerializer(serializers.Serializer):
    kind = serializers.CharField(max_length=64, required=False)


class ReproductionViewSet(viewsets.ViewSet):
    """Presets that reproduce a seed figure or table: published values, ours, verdict."""

    @extend_schema(
        operation_id="reproductions_list",
        responses={200: OpenApiTypes.OBJECT},
        parameters=[OpenApiParameter("kind", str, description="only this experiment kind")],
    )
    def list(self, request):
        kind = request.query_params.get("kind") or None
        return Response([row.as_json() for row in reproduction_rows(user=request.user, kind=kind)])

    @extend_schema(
        operation_id="reproductions_scoreboard",
        responses={200: OpenApiTypes.OBJECT},
        parameters=[OpenApiParameter("kind", str, description="only this experiment kind")],
    )
    @action(detail=False, methods=["get"])
    def scoreboard(self, request):
        """Seed × figure with the verdict counts per seed (as on the Reproductions page), and
        each kind's declared deviations from the seeds."""
        kind = request.query_params.get("kind") or None
        board = reproduction_board(user=request.user, kind=kind)
        return Response({**board["scoreboard"], "deviations": board["deviations"]})

    @extend_schema(
        operation_id="reproductions_reference",
        responses={200: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT},
    )
    @action(detail=False, methods=["get"])
    def reference(self, request):
        """The project's own scoreboard, as committed by ``make reproduce``
        (docs/reproductions.json): every preset's claims with our value, verdict and cause,
        measured on the archive traces — to read beside the user's own runs."""
        data = reference_report()
        if data is None:
            return Response({"detail": "no committed scoreboard in this deployment"},
                            status=status.HTTP_404_NOT_FOUND)  # fmt: skip
        return Response(data)

    @extend_schema(request=RunSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=False, methods=["post"])
    def run(self, request):
        """Start one reproduction on the user's copies of its archive traces."""
        data = RunSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            exp = reproduction_run(user=request.user, **data.validated_data)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        return Response(
            {"experiment": exp.pk, "url": f"/experiments/{exp.pk}/", "status": exp.status},
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(request=RunAllSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=False, methods=["post"], url_path="run-all", url_name="run-all")
    def run_all(self, request):
        """Start every reproduction the user has the traces for; the rest say what is missing."""
        data = RunAllSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        started, skipped = reproduction_run_all(user=request.user, **data.validated_data)
        return Response(
            {"experiments": [e.pk for e in started], "skipped": skipped},
            status=status.HTTP_201_CREATED,
        )
