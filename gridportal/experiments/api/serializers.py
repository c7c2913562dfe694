from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from gridportal.inputs.models import Trace
from gridportal.ownership import visible_to

from ..models import Experiment
from ..services import experiment_create


class OwnedTraceField(serializers.PrimaryKeyRelatedField):
    """Only traces the requesting user may see can be chosen."""

    def get_queryset(self):
        return visible_to(Trace.objects.all(), self.context["request"].user)


class ExperimentSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    traces = OwnedTraceField(many=True, required=False)
    params = serializers.JSONField(
        required=False, default=dict, help_text="parameters of the kind (see /api/kinds/)"
    )
    seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**31 - 1)
    result_url = serializers.SerializerMethodField()

    class Meta:
        model = Experiment
        fields = [
            "id",
            "name",
            "kind",
            "params",
            "seed",
            "traces",
            "owner",
            "status",
            "progress",
            "message",
            "error",
            "created",
            "started_at",
            "finished_at",
            "result_url",
        ]
        read_only_fields = [
            "status",
            "progress",
            "message",
            "error",
            "created",
            "started_at",
            "finished_at",
        ]

    def get_result_url(self, obj) -> str | None:
        if obj.status != Experiment.Status.SUCCEEDED:
            return None
        request = self.context.get("request")
        path = f"/api/experiments/{obj.pk}/result/"
        return request.build_absolute_uri(path) if request else path

    def validate_params(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("must be a JSON object")
        return value

    def create(self, validated_data):
        try:
            return experiment_create(
                owner=self.context["request"].user,
                kind=validated_data["kind"],
                params=validated_data.get("params"),
                traces=validated_data.get("traces", []),
                seed=validated_data.get("seed", 0),
                name=validated_data.get("name", ""),
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
