"""REST face of Slurm sites (``/api/slurm-sites/``): upload the dump and the configuration
files (multipart ``dump``, ``slurm_conf``, optional ``assoc``, ``qos`` and ``sshare``), list,
read what was understood (``summary``), delete an unused one."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import mixins, parsers, serializers, viewsets

from gridportal.ids import ID_REGEX
from gridportal.ownership import visible_to
from gridportal.querystrings import FiltersOnListsOnly

from ..models import SlurmSite
from ..slurm_sites import slurm_site_create, slurm_site_delete


class SlurmSiteSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    dump = serializers.FileField(
        write_only=True, allow_empty_file=True,
        help_text="sacct -P dump with JobID, User, Account, Partition, QOS, State, Submit, "
        "Start, End, Timelimit, NCPUS (plain or gzipped)",
    )  # fmt: skip
    slurm_conf = serializers.FileField(write_only=True, allow_empty_file=True)
    assoc = serializers.FileField(
        write_only=True, required=False, allow_empty_file=True,
        help_text="sacctmgr -P show assoc",
    )  # fmt: skip
    qos = serializers.FileField(
        write_only=True, required=False, allow_empty_file=True, help_text="sacctmgr -P show qos"
    )
    sshare = serializers.FileField(
        write_only=True, required=False, allow_empty_file=True,
        help_text="sshare -a -P taken when the dump starts (each user's RawUsage)",
    )  # fmt: skip

    class Meta:
        model = SlurmSite
        fields = [
            "id", "name", "owner", "dump", "slurm_conf", "assoc", "qos", "sshare",
            "original_filename", "slurm_conf_filename", "assoc_filename", "qos_filename",
            "sshare_filename", "size_bytes", "sha256", "job_count", "summary", "created",
        ]  # fmt: skip
        read_only_fields = [
            f
            for f in fields
            if f not in ("id", "name", "dump", "slurm_conf", "assoc", "qos", "sshare")
        ]

    def create(self, validated_data):
        try:
            return slurm_site_create(
                owner=self.context["request"].user, name=validated_data.get("name", ""),
                dump=validated_data["dump"], slurm_conf=validated_data["slurm_conf"],
                assoc=validated_data.get("assoc"), qos=validated_data.get("qos"),
                sshare=validated_data.get("sshare"),
            )  # fmt: skip
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None


class SlurmSiteViewSet(
    FiltersOnListsOnly,
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Slurm sites for the ``slurm-whatif`` kind: a sacct dump and the site's slurm.conf,
    sacctmgr associations and QOS, read at upload (a bad file is refused naming its line)."""

    serializer_class = SlurmSiteSerializer
    lookup_value_regex = ID_REGEX
    search_fields = ["name", "original_filename"]
    ordering_fields = ["created", "name", "job_count"]
    parser_classes = [parsers.MultiPartParser, parsers.FormParser]

    def get_queryset(self):
        return visible_to(SlurmSite.objects.select_related("owner"), self.request.user)

    def perform_destroy(self, instance):
        try:
            slurm_site_delete(site=instance)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"detail": exc.messages}) from None
