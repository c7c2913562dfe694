import json
import re

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from gridportal.ids import ID_REGEX
from gridportal.ownership import visible_to
from gridportal.querystrings import FiltersOnListsOnly
from scheduler import engine

from ..bundles import MAX_BUNDLE_BYTES, bundle_import, experiment_bundle_zip, sweep_bundle_zip
from ..export import UnknownPart, result_csv
from ..jobarray import (
    MAX_UPLOAD_TOTAL,
    computed_elsewhere_text,
    sweep_jobarray_zip,
    sweep_upload_results,
)
from ..models import Experiment, Sweep
from ..results import ResultRefused, result_csv_text, result_json, view_of
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


_SBATCH_TIME = re.compile(r"^(\d{1,3}-)?\d{1,2}:\d{2}:\d{2}$")


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
    resp["Content-Disposition"] = f'attachment; filename="{filename}-{_filename_part(part)}.csv"'
    return resp


def refused_response(exc: ResultRefused) -> HttpResponse:
    """A stored Result that is not rendered: the reason as text (400 or 503), never a 500."""
    resp = HttpResponse(exc.message + "\n", status=exc.status, content_type="text/plain")
    if exc.status == 503:
        resp["Retry-After"] = "30"
    return resp


def _elsewhere_header(resp: HttpResponse, exp: Experiment) -> HttpResponse:
    """A result computed elsewhere says so in every download of it (the run's JSON has
    ``computed_elsewhere`` and ``provenance``)."""
    if exp.provenance is not None:
        resp["GridPortal-Computed-Elsewhere"] = computed_elsewhere_text(exp.provenance)
    return resp


def _filename_part(part: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in part)[:80]


class ExperimentViewSet(
    FiltersOnListsOnly,
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
        """The Result JSON: summary, tables and declarative chart specs (read tolerantly: what
        cannot be shown is listed in ``unshown``; over the render cap, the summary only —
        ``?download=1`` then gives the stored JSON as it is)."""
        exp = self.get_object()
        download = bool(request.query_params.get("download"))
        try:
            body = result_json(exp, download=download)
        except ResultRefused as exc:
            if exc.status == 400:
                raise serializers.ValidationError({"detail": exc.message}) from None
            return refused_response(exc)
        resp = HttpResponse(body, content_type="application/json")
        if download:
            resp["Content-Disposition"] = f'attachment; filename="experiment-{exp.pk}.json"'
        return _elsewhere_header(resp, exp)

    @RESULT_CSV_SCHEMA
    @action(detail=True, methods=["get"], url_path="result/csv", url_name="result-csv")
    def result_csv(self, request, pk=None):
        """The result as CSV: the summary, one table or one chart's data."""
        exp = self.get_object()
        part = request.query_params.get("part", "summary")
        try:
            body = result_csv_text(exp, part)
        except UnknownPart as exc:
            raise Http404(exc.args[0]) from None
        except ResultRefused as exc:
            return refused_response(exc)
        resp = HttpResponse(body, content_type="text/csv; charset=utf-8")
        name = f"experiment-{exp.pk}-{_filename_part(part)}.csv"
        resp["Content-Disposition"] = f'attachment; filename="{name}"'
        return _elsewhere_header(resp, exp)

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    @action(detail=True, methods=["get"])
    def bundle(self, request, pk=None):
        """The run as a Workflow Run RO-Crate (Process Run Crate) zip: inputs, parameters,
        seed, engine version, result JSON/CSV and charts, ro-crate-metadata.json."""
        exp = self.get_object()
        try:
            data = experiment_bundle_zip(experiment=exp)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        except ResultRefused as exc:
            return refused_response(exc)
        return _zip_response(data, f"gridportal-run-{exp.pk}.zip")

    @extend_schema(
        request={"multipart/form-data": {"type": "object", "properties": {
            "file": {"type": "string", "format": "binary"}}}},
        responses={201: OpenApiTypes.OBJECT},
    )  # fmt: skip
    @action(detail=False, methods=["post"], url_path="import-bundle", url_name="import-bundle")
    def import_bundle(self, request):
        """Import a run bundle: its result becomes a finished run of yours and the same run is
        queued again here; compare the two with the returned compare link."""
        upload = request.FILES.get("file")
        if upload is None:
            raise serializers.ValidationError({"file": ["attach the bundle zip (file=...)"]})
        if (upload.size or 0) > MAX_BUNDLE_BYTES:
            raise serializers.ValidationError({"file": [f"larger than {MAX_BUNDLE_BYTES:,} B"]})
        try:
            original, rerun = bundle_import(owner=request.user, data=upload)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(
                exc.message_dict if hasattr(exc, "error_dict") else {"file": exc.messages}
            ) from None
        return Response(
            {
                "original": self.get_serializer(original).data,
                "rerun": self.get_serializer(rerun).data,
                "compare": f"/experiments/compare/?ids={original.pk}&ids={rerun.pk}",
            },
            status=status.HTTP_201_CREATED,
        )


def _zip_response(data: bytes, filename: str) -> HttpResponse:
    resp = HttpResponse(data, content_type="application/zip")
    resp["Content-Disposition"] = f'attachment; filename="{filename}"'
    return resp


class SweepViewSet(
    FiltersOnListsOnly,
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
        return json_response(request, view_of(sweep_aggregate(sweep)), f"sweep-{sweep.pk}")

    @RESULT_CSV_SCHEMA
    @action(detail=True, methods=["get"], url_path="result/csv", url_name="result-csv")
    def result_csv(self, request, pk=None):
        sweep = self.get_object()
        return csv_response(request, view_of(sweep_aggregate(sweep)), f"sweep-{sweep.pk}")

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    @action(detail=True, methods=["get"], url_path="bundle", url_name="bundle")
    def bundle(self, request, pk=None):
        """The sweep as an RO-Crate zip: inputs once, every finished run's result, the
        aggregate."""
        sweep = self.get_object()
        try:
            data = sweep_bundle_zip(sweep=sweep)
        except ResultRefused as exc:
            return refused_response(exc)
        return _zip_response(data, f"gridportal-sweep-{sweep.pk}.zip")

    @extend_schema(
        responses={(200, "application/zip"): OpenApiTypes.BINARY},
        parameters=[
            OpenApiParameter("time", str, description="#SBATCH --time (HH:MM:SS)"),
            OpenApiParameter(
                "chunk", int, description="runs per array task (default: enough for ~10 min)"
            ),
        ],
    )
    @action(detail=True, methods=["get"])
    def jobarray(self, request, pk=None):
        """The sweep's unfinished runs as Slurm job arrays (≤ 1,000 tasks each, ``chunk`` runs
        per task): inputs, parameters, run-chunk.py, sbatch scripts, submit-all.sh and a
        README; see upload-results."""
        sweep = self.get_object()
        limit = request.query_params.get("time") or "04:00:00"
        if not _SBATCH_TIME.match(limit):
            raise serializers.ValidationError({"time": ["give HH:MM:SS or D-HH:MM:SS"]})
        chunk_text = (request.query_params.get("chunk") or "").strip()
        if chunk_text and not (chunk_text.isdigit() and len(chunk_text) <= 6):
            raise serializers.ValidationError({"chunk": ["runs per array task: a whole number"]})
        try:
            data, _ = sweep_jobarray_zip(
                sweep=sweep, time_limit=limit, chunk=int(chunk_text) if chunk_text else None
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        resp = HttpResponse(data, content_type="application/zip")
        resp["Content-Disposition"] = f'attachment; filename="sweep-{sweep.pk}-jobarray.zip"'
        return resp

    @extend_schema(
        request={"multipart/form-data": {"type": "object", "properties": {
            "file": {"type": "array", "items": {"type": "string", "format": "binary"}}}}},
        responses={200: OpenApiTypes.OBJECT},
    )  # fmt: skip
    @action(detail=True, methods=["post"], url_path="upload-results", url_name="upload-results")
    def upload_results(self, request, pk=None):
        """Results computed by the job array (results/<run id>.json files, or a zip of them):
        each checked against its run (kind, parameters, seed, Result shape, and its provenance:
        engine version, sha256 of the inputs and parameters), staged all or none; a sample is
        re-run on the workers (``upload`` says which) and the upload is accepted or refused
        when they are done. A run that has a result must get the identical one back."""
        sweep = self.get_object()
        if sweep.owner_id != request.user.id:
            raise serializers.ValidationError({"detail": "only the sweep's owner uploads results"})
        uploads = request.FILES.getlist("file")
        if not uploads:
            raise serializers.ValidationError({"file": ["attach results (file=...)"]})
        if sum(u.size or 0 for u in uploads) > MAX_UPLOAD_TOTAL:
            raise serializers.ValidationError(
                {"file": [f"more than {MAX_UPLOAD_TOTAL:,} bytes in all"]}
            )
        files = [(u.name or "result", u) for u in uploads]  # read in a limited child
        try:
            counts = sweep_upload_results(sweep=sweep, files=files)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        return Response({**counts, "state": self.get_serializer(sweep).data["state"]})


class KindViewSet(viewsets.ViewSet):
    """The experiment kinds: parameter schema, declared inputs and presets."""

    lookup_value_regex = r"[a-z0-9-]+"

    @extend_schema(operation_id="kinds_list", responses={200: OpenApiTypes.OBJECT})
    def list(self, request):
        return Response([k.as_json() for k in engine.kinds()])

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def retrieve(self, request, pk=None):
        try:
            return Response(engine.get_kind(pk).as_json())
        except KeyError:
            raise Http404(f"no experiment kind {pk!r}") from None
