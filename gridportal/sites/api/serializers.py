from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from scheduler.engine import MAX_HOURS, MAX_MONEY, MAX_PROCS, MAX_SECONDS

from ..models import Group, Site, Topology, UsagePolicy, VirtualOrganization

#: Physical bounds on stored numbers (scheduler.bounds): a 400 naming the field, never a
#: database error or an engine overflow.
_PROCS = {"min_value": 1, "max_value": MAX_PROCS}
_MONEY = {"min_value": 0, "max_value": MAX_MONEY}
_INTERVAL = {"min_value": 1, "max_value": int(MAX_SECONDS)}


#: why a site's local policy is never an uploaded one (``user:<sha prefix>``)
NO_USER_POLICY = (
    "a site's local policy is one of the built-in policies: a site is shared, its quotes and "
    "start predictions are computed in the portal's web requests for every user, while an "
    "uploaded policy is its owner's alone and runs only in the sandbox of a worker; compare "
    "yours as the site policy of a pricing or virtual-reservations run"
)


class SiteSerializer(serializers.ModelSerializer):
    def to_internal_value(self, data):
        policy = data.get("local_policy") if hasattr(data, "get") else None
        if isinstance(policy, str) and policy.strip().startswith("user:"):
            raise serializers.ValidationError({"local_policy": [NO_USER_POLICY]})
        return super().to_internal_value(data)

    class Meta:
        model = Site
        fields = [
            "id",
            "name",
            "description",
            "processors",
            "local_policy",
            "trace",
            "unit_cost",
            "fixed_cost",
        ]
        extra_kwargs = {"processors": _PROCS, "unit_cost": _MONEY, "fixed_cost": _MONEY}


class GroupSerializer(serializers.ModelSerializer):
    vo = serializers.SlugRelatedField(slug_field="name", queryset=VirtualOrganization.objects)

    class Meta:
        model = Group
        fields = ["id", "vo", "name"]


class VirtualOrganizationSerializer(serializers.ModelSerializer):
    groups = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)

    class Meta:
        model = VirtualOrganization
        fields = ["id", "name", "description", "groups"]


class UsagePolicySerializer(serializers.ModelSerializer):
    """Provider and consumer by name: a site or VO name, and a VO name or ``VO.group``."""

    provider = serializers.CharField(help_text="a site name or a VO name")
    consumer = serializers.CharField(help_text="a VO name, or VO.group for a group")

    class Meta:
        model = UsagePolicy
        fields = [
            "id",
            "resource",
            "provider",
            "consumer",
            "epoch_interval",
            "epoch_percent",
            "burst_interval",
            "burst_percent",
        ]
        extra_kwargs = {"epoch_interval": _INTERVAL, "burst_interval": _INTERVAL}

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["provider"], data["consumer"] = str(instance.provider), str(instance.consumer)
        return data

    def validate(self, attrs):
        out = dict(attrs)
        provider = out.pop("provider", None)
        consumer = out.pop("consumer", None)
        errors = {}
        if provider is not None:
            site = Site.objects.filter(name=provider).first()
            vo = VirtualOrganization.objects.filter(name=provider).first()
            if not (site or vo):
                errors["provider"] = [f"no site or VO named {provider!r}"]
            out["provider_site"], out["provider_vo"] = site, (None if site else vo)
        if consumer is not None:
            vo_name, dot, group_name = consumer.partition(".")
            if dot:
                group = Group.objects.filter(vo__name=vo_name, name=group_name).first()
                if group is None:
                    errors["consumer"] = [f"no group {consumer!r}"]
                out["consumer_group"], out["consumer_vo"] = group, None
            else:
                vo = VirtualOrganization.objects.filter(name=consumer).first()
                if vo is None:
                    errors["consumer"] = [f"no VO named {consumer!r}"]
                out["consumer_vo"], out["consumer_group"] = vo, None
        if errors:
            raise serializers.ValidationError(errors)
        candidate = UsagePolicy(**{**self._current(), **out})
        try:
            candidate.clean()
        except DjangoValidationError as exc:
            raise serializers.ValidationError(_by_api_field(exc.message_dict)) from None
        return out

    def _current(self) -> dict:
        if self.instance is None:
            return {}
        return {
            f: getattr(self.instance, f)
            for f in (
                "resource",
                "provider_site",
                "provider_vo",
                "consumer_vo",
                "consumer_group",
                "epoch_interval",
                "epoch_percent",
                "burst_interval",
                "burst_percent",
            )
        } | {"pk": self.instance.pk}


def _by_api_field(errors: dict) -> dict:
    names = {
        "provider_site": "provider",
        "provider_vo": "provider",
        "consumer_vo": "consumer",
        "consumer_group": "consumer",
    }
    out: dict[str, list[str]] = {}
    for field, messages in errors.items():
        out.setdefault(names.get(field, field), []).extend(messages)
    return out


class QuoteRequestSerializer(serializers.Serializer):
    """A reservation request to price (thesis §5.2): ``n`` processors for ``duration``
    seconds, on the site as it stands ``at`` hours into its trace; ``s_min`` (hours after
    that instant) asks query (19) instead of (18)."""

    n = serializers.IntegerField(min_value=1, max_value=10_000_000)
    duration = serializers.IntegerField(min_value=1, max_value=10**9, help_text="seconds")
    at = serializers.FloatField(
        min_value=0, max_value=MAX_HOURS, default=24.0, help_text="hours into the site's trace"
    )
    s_min = serializers.FloatField(
        min_value=0, max_value=MAX_HOURS, required=False,
        help_text="earliest start, hours after 'at'",
    )  # fmt: skip
    estimates = serializers.ChoiceField(
        choices=["auto", "accurate", "requested"], default="auto", required=False
    )


class PredictRequestSerializer(serializers.Serializer):
    """A job to predict the start of: ``n`` processors asking ``req_time`` seconds, submitted
    ``at`` hours into the site's trace."""

    n = serializers.IntegerField(min_value=1, max_value=10_000_000)
    req_time = serializers.IntegerField(min_value=1, max_value=10**9, help_text="seconds")
    at = serializers.FloatField(
        min_value=0, max_value=MAX_HOURS, default=24.0, help_text="hours into the site's trace"
    )
    estimates = serializers.ChoiceField(
        choices=["auto", "accurate", "requested"], default="auto", required=False
    )


class TopologySerializer(serializers.ModelSerializer):
    class Meta:
        model = Topology
        fields = ["id", "name", "description", "document"]

    def validate(self, attrs):
        instance = Topology(**{**({} if self.instance is None else {
            "name": self.instance.name, "document": self.instance.document,
        }), **attrs})  # fmt: skip
        try:
            instance.clean()
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        return attrs


class PlanRequestSerializer(serializers.Serializer):
    """One co-allocation request to plan against a topology (Takefusa et al. 2010): ``request`` is
    the engine's request document, ``options`` the user and administrator options."""

    request = serializers.JSONField(
        help_text='{"sites": [{"name", "cpus"}], "paths": [{"between": [a, b], "bandwidth"}], '
        '"frame": {...}}'
    )
    options = serializers.JSONField(
        required=False,
        default=dict,
        help_text='{"option": "earliest"|"cheapest"|"quality", "frames": 1-100, "admin", '
        '"domain_order", "priority": "normal"|"low", "p_max", "two_way", "solver", '
        '"formulation": "routes"|"arcs", "time_limit": seconds of solving for the whole '
        "request, all frames (0-60, default 10; the frames left when it is spent are not "
        "planned)}",
    )
