from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from gridportal.inputs.models import SlurmSite, Workflow
from gridportal.inputs.selectors import usable_traces
from gridportal.ownership import visible_to
from gridportal.sites.services import policy_document
from scheduler import engine

from ..models import Experiment, Sweep
from ..services import experiment_create, experiment_queue_place
from ..sweeps import sweep_create, sweep_status
from .params import validate_kind_params


class OwnedTraceField(serializers.PrimaryKeyRelatedField):
    """Only the user's own traces and the configured sites' traces can be chosen."""

    def get_queryset(self):
        return usable_traces(self.context["request"].user)


class OwnedWorkflowField(serializers.PrimaryKeyRelatedField):
    """Only workflows the requesting user may see can be chosen."""

    def get_queryset(self):
        return visible_to(Workflow.objects.all(), self.context["request"].user)


class OwnedSlurmSiteField(serializers.PrimaryKeyRelatedField):
    """Only Slurm sites the requesting user may see can be chosen."""

    def get_queryset(self):
        return visible_to(SlurmSite.objects.all(), self.context["request"].user)


class PoliciesField(serializers.JSONField):
    """``"configured"`` (the sites, VOs and policies staff configured, copied now) or a
    ``gridportal-policies`` document."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if value in (None, "", []):
            return []
        if value == "configured":
            return [policy_document()]
        if isinstance(value, dict):
            return [value]
        raise serializers.ValidationError('give "configured" or a policy document object')


class TopologyField(serializers.JSONField):
    """The name of a configured co-allocation topology (its document is copied now) or a
    topology document object."""

    def to_internal_value(self, data):
        from gridportal.sites.models import Topology

        value = super().to_internal_value(data)
        if value in (None, "", []):
            return []
        if isinstance(value, str):
            found = Topology.objects.filter(name=value).first()
            if found is None:
                raise serializers.ValidationError(f"no configured topology named {value!r}")
            return [found.document]
        if isinstance(value, dict):
            return [value]
        raise serializers.ValidationError("give a configured topology's name or a document")


class JSONObjectField(serializers.JSONField):
    """A JSON object (parameters): anything else is "must be a JSON object"."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            raise serializers.ValidationError("must be a JSON object")
        return value


class RunSpecFields(serializers.Serializer):
    """What runs and sweeps share: kind parameters, seed, inputs and owner."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    params = JSONObjectField(
        required=False, default=dict, help_text="parameters of the kind (see /api/kinds/)"
    )
    seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**31 - 1)
    traces = OwnedTraceField(many=True, required=False)
    workflows = OwnedWorkflowField(many=True, required=False)
    slurm_sites = OwnedSlurmSiteField(many=True, required=False)
    policies = PoliciesField(required=False, write_only=True, default=list)
    topology = TopologyField(required=False, write_only=True, default=list)

    FIELDS = [
        "id",
        "name",
        "kind",
        "params",
        "seed",
        "traces",
        "workflows",
        "slurm_sites",
        "policies",
        "topology",
        "snapshot",
        "owner",
    ]

    def input_kwargs(self, data) -> dict:
        return {
            "traces": data.get("traces", []),
            "workflows": data.get("workflows", []),
            "policies": data.get("policies", []),
            "topologies": data.get("topology", []),
            "slurm_sites": data.get("slurm_sites", []),
        }


class ExperimentSerializer(RunSpecFields, serializers.ModelSerializer):
    result_url = serializers.SerializerMethodField()
    queue_place = serializers.SerializerMethodField(
        help_text="a held run's place among its owner's held runs (1: next to start); null "
        "once it is published to the workers (or finished)"
    )

    class Meta:
        model = Experiment
        fields = [
            *RunSpecFields.FIELDS,
            "status",
            "progress",
            "message",
            "error",
            "created",
            "started_at",
            "finished_at",
            "result_url",
            "queue_place",
            "computed_elsewhere",
            "provenance",
        ]
        read_only_fields = [
            "provenance",
            "snapshot",
            "status",
            "progress",
            "message",
            "error",
            "created",
            "started_at",
            "finished_at",
        ]

    computed_elsewhere = serializers.SerializerMethodField(
        help_text="the result was computed elsewhere (uploaded from a Slurm job array, imported "
        "from a bundle): ``provenance`` says where and how; such results are never reused"
    )

    def get_computed_elsewhere(self, obj) -> bool:
        return obj.provenance is not None

    def get_queue_place(self, obj) -> int | None:
        return experiment_queue_place(obj)

    def get_result_url(self, obj) -> str | None:
        if obj.status != Experiment.Status.SUCCEEDED:
            return None
        request = self.context.get("request")
        path = f"/api/experiments/{obj.pk}/result/"
        return request.build_absolute_uri(path) if request else path

    def validate(self, attrs):
        try:
            kind = engine.get_kind(attrs.get("kind", ""))
        except KeyError as exc:
            raise serializers.ValidationError({"kind": [exc.args[0]]}) from None
        try:
            validate_kind_params(kind, attrs.get("params") or {})
        except serializers.ValidationError as exc:
            raise serializers.ValidationError({"params": exc.detail}) from None
        return attrs

    def create(self, validated_data):
        try:
            return experiment_create(
                owner=self.context["request"].user,
                kind=validated_data["kind"],
                params=validated_data.get("params"),
                seed=validated_data.get("seed", 0),
                name=validated_data.get("name", ""),
                **self.input_kwargs(validated_data),
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None


class CloneSerializer(serializers.Serializer):
    """Optional changes for the copy; anything left out is taken from the original run."""

    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    params = JSONObjectField(required=False, help_text="parameters to override")
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**31 - 1)


class VarySerializer(serializers.Serializer):
    param = serializers.CharField()
    values = serializers.ListField(child=serializers.JSONField(), required=False)
    range = serializers.DictField(
        child=serializers.FloatField(),
        required=False,
        help_text='{"start": a, "stop": b, "step": s} (inclusive of stop)',
    )


class SweepSerializer(RunSpecFields, serializers.ModelSerializer):
    vary = VarySerializer(many=True, help_text="one or two parameters and their values")
    repetitions = serializers.IntegerField(required=False, default=1, min_value=1, max_value=100)
    executor = serializers.ChoiceField(
        choices=["workers", "slurm"],
        required=False,
        default="workers",
        help_text="slurm: export the runs as a Slurm job array (GET jobarray/) and upload "
        "their results back (POST upload-results/) instead of running them on the workers",
    )
    state = serializers.SerializerMethodField()

    class Meta:
        model = Sweep
        fields = [
            *RunSpecFields.FIELDS,
            "vary",
            "repetitions",
            "executor",
            "owner",
            "created",
            "state",
        ]
        read_only_fields = ["created", "snapshot"]

    def get_state(self, obj) -> dict:
        view = self.context.get("view")
        return sweep_status(obj, with_runs=getattr(view, "action", None) != "list")

    def create(self, validated_data):
        try:
            return sweep_create(
                owner=self.context["request"].user,
                kind=validated_data["kind"],
                params=validated_data.get("params"),
                seed=validated_data.get("seed", 0),
                **self.input_kwargs(validated_data),
                vary=[dict(v) for v in validated_data["vary"]],
                repetitions=validated_data.get("repetitions", 1),
                name=validated_data.get("name", ""),
                executor=validated_data.get("executor", "workers"),
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
