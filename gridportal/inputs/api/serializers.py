from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from ..models import Trace, Workflow
from ..services import WORKFLOW_GENERATORS, trace_create, workflow_create


class TraceSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    file = serializers.FileField(
        write_only=True, allow_empty_file=True, help_text="SWF file, plain or gzipped"
    )
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)

    class Meta:
        model = Trace
        fields = [
            "id",
            "name",
            "owner",
            "file",
            "original_filename",
            "size_bytes",
            "sha256",
            "job_count",
            "machine_procs",
            "header",
            "summary",
            "created",
        ]
        read_only_fields = [
            "original_filename",
            "size_bytes",
            "sha256",
            "job_count",
            "machine_procs",
            "header",
            "summary",
            "created",
        ]

    def create(self, validated_data):
        try:
            return trace_create(
                owner=self.context["request"].user,
                name=validated_data.get("name", ""),
                upload=validated_data["file"],
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None


class WorkflowSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    file = serializers.FileField(
        write_only=True,
        allow_empty_file=True,
        help_text="Pegasus DAX (XML), WfCommons WfFormat JSON or gridportal-workflow JSON",
    )
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)

    class Meta:
        model = Workflow
        fields = [
            "id",
            "name",
            "owner",
            "file",
            "original_filename",
            "format",
            "size_bytes",
            "sha256",
            "task_count",
            "edge_count",
            "summary",
            "generator",
            "created",
        ]
        read_only_fields = [
            "original_filename",
            "format",
            "size_bytes",
            "sha256",
            "task_count",
            "edge_count",
            "summary",
            "generator",
            "created",
        ]

    def create(self, validated_data):
        try:
            return workflow_create(
                owner=self.context["request"].user,
                name=validated_data.get("name", ""),
                upload=validated_data["file"],
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None


class WorkflowGenerateSerializer(serializers.Serializer):
    """A generated workflow: ``model`` and its keyword parameters (see the generators)."""

    model = serializers.ChoiceField(choices=sorted(WORKFLOW_GENERATORS))
    params = serializers.DictField(
        required=False, default=dict, help_text='e.g. {"tasks": 100, "levels": 10, "seed": 1}'
    )
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
