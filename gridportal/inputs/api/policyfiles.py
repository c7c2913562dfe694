"""REST for users' scheduling policies: ``/api/policy-files/`` (owner's own only)."""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import mixins, parsers, serializers, viewsets

from gridportal.ids import ID_REGEX

from ..models import PolicyFile
from ..policyfiles import MAX_POLICY_BYTES, policy_file_create, policy_file_delete


class PolicyFileSerializer(serializers.ModelSerializer):
    file = serializers.FileField(
        write_only=True,
        help_text="a Python file defining a scheduler.policies PriorityPolicy or "
        f"DecisionPolicy subclass (at most {MAX_POLICY_BYTES:,} bytes)",
    )
    ref = serializers.CharField(
        read_only=True, help_text="how a run names it, e.g. in cluster-sim's policies"
    )

    class Meta:
        model = PolicyFile
        fields = [
            "id", "ref", "name", "class_name", "file", "original_filename", "size_bytes",
            "sha256", "title", "description", "dry_run", "source", "created",
        ]  # fmt: skip
        read_only_fields = [f for f in fields if f not in ("name", "class_name", "file")]
        extra_kwargs = {"name": {"required": False}}

    def create(self, validated_data):
        upload = validated_data["file"]
        try:
            return policy_file_create(
                owner=self.context["request"].user,
                name=validated_data.get("name", ""),
                filename=getattr(upload, "name", "") or "policy.py",
                data=upload.read(MAX_POLICY_BYTES + 1),
                class_name=validated_data["class_name"],
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None


class PolicyFileViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.ListModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Your scheduling policies: upload (multipart ``file`` and ``class_name``), checked in
    the sandbox; name one in a run as its ``ref`` (``user:<sha256 prefix>``).  DELETE removes
    a version no run names (400 naming how many runs name it otherwise)."""

    serializer_class = PolicyFileSerializer
    lookup_value_regex = ID_REGEX
    parser_classes = [parsers.MultiPartParser, parsers.FormParser]

    def get_queryset(self):
        return PolicyFile.objects.filter(owner=self.request.user)

    def perform_destroy(self, instance):
        try:
            policy_file_delete(policy_file=instance)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
