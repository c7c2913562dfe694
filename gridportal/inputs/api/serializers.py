from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from ..models import Trace
from ..services import trace_create


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
