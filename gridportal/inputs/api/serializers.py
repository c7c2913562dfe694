from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from scheduler.engine import MAX_PROCS

from ..models import SacctImport, Trace, Workflow
from ..sacct_imports import trace_upload
from ..services import WORKFLOW_GENERATORS, SacctOptions, trace_create, workflow_create


class UploadSerializer(serializers.ModelSerializer):
    """An uploaded input: a write-only ``file`` and an optional ``name``; everything else is
    derived by the service that validates and stores it (``create_service``)."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    COMMON = ["id", "name", "owner", "file", "original_filename", "size_bytes", "sha256", "created"]

    create_service: Callable[..., Any]  # each subclass names the service that stores it

    def create(self, validated_data):
        try:
            return self.create_service(
                owner=self.context["request"].user,
                name=validated_data.get("name", ""),
                upload=validated_data["file"],
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None


class SacctImportSerializer(serializers.ModelSerializer):
    """A large Slurm accounting upload a worker converts: ``converting``, or ``refused`` with
    ``error`` naming the lines (the trace appears under /api/traces/ when it is ready)."""

    class Meta:
        model = SacctImport
        fields = ["id", "name", "original_filename", "status", "error", "created"]
        read_only_fields = fields


class TraceSerializer(UploadSerializer):
    file = serializers.FileField(
        write_only=True,
        allow_empty_file=True,
        help_text="SWF, or Slurm accounting (sacct -P with or without its header line, any "
        "columns, --format=ALL too), plain or gzipped",
    )
    # how a Slurm accounting file is read (ignored for SWF); the report is summary.conversion
    lenient = serializers.BooleanField(
        write_only=True, required=False, default=False,
        help_text="skip the sacct rows that cannot be read (named in the report) instead of "
        "refusing the file",
    )  # fmt: skip
    sacct_format = serializers.CharField(
        write_only=True, required=False, allow_blank=True, max_length=4000,
        help_text="the sacct --format list of a file without a header line (default: Open "
        "XDMoD's column order)",
    )  # fmt: skip
    procs = serializers.IntegerField(
        write_only=True, required=False, allow_null=True, min_value=1, max_value=MAX_PROCS,
        help_text="the cluster's CPUs (SWF MaxProcs) for a sacct file (default: the peak in use)",
    )  # fmt: skip
    create_service = staticmethod(trace_create)

    class Meta:
        model = Trace
        derived = ["job_count", "machine_procs", "header", "summary"]
        fields = UploadSerializer.COMMON + ["lenient", "sacct_format", "procs"] + derived
        read_only_fields = [
            f for f in derived + UploadSerializer.COMMON
            if f not in ("id", "name", "owner", "file")
        ]  # fmt: skip

    def create(self, validated_data):
        sacct = SacctOptions(
            lenient=validated_data.pop("lenient", False),
            columns=validated_data.pop("sacct_format", ""),
            procs=validated_data.pop("procs", None),
        )
        try:  # a large sacct file: a SacctImport (the view answers 202)
            return trace_upload(
                owner=self.context["request"].user,
                name=validated_data.get("name", ""),
                upload=validated_data["file"],
                sacct=sacct,
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None


class WorkflowSerializer(UploadSerializer):
    file = serializers.FileField(
        write_only=True,
        allow_empty_file=True,
        help_text="Pegasus DAX (XML), Pegasus 5 YAML or JSON, WfCommons WfFormat JSON or "
        "gridportal-workflow JSON; defaults the reader assumed are in summary.notes",
    )
    create_service = staticmethod(workflow_create)

    class Meta:
        model = Workflow
        derived = ["format", "task_count", "edge_count", "summary", "generator"]
        fields = UploadSerializer.COMMON + derived
        read_only_fields = [f for f in fields if f not in ("id", "name", "owner", "file")]


class WorkflowGenerateSerializer(serializers.Serializer):
    """A generated workflow: ``model`` and its keyword parameters (see the generators)."""

    model = serializers.ChoiceField(choices=sorted(WORKFLOW_GENERATORS))
    params = serializers.DictField(
        required=False, default=dict, help_text='e.g. {"tasks": 100, "levels": 10, "seed": 1}'
    )
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
