from django.core.exceptions import ValidationError
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from gridportal.ids import ID_REGEX
from gridportal.limits import web_limited

from ..models import Group, Site, Topology, UsagePolicy, VirtualOrganization
from ..services import configuration_warnings, site_quote, site_start_prediction, topology_plan
from .serializers import (
    GroupSerializer,
    PlanRequestSerializer,
    PredictRequestSerializer,
    QuoteRequestSerializer,
    SiteSerializer,
    TopologySerializer,
    UsagePolicySerializer,
    VirtualOrganizationSerializer,
)


class ReadForUsersWriteForStaff(permissions.BasePermission):
    """Everyone logged in reads the grid configuration; staff change it."""

    def has_permission(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return False
        return request.method in permissions.SAFE_METHODS or request.user.is_staff


def _answer(serializer_class, data, service) -> Response:  # type: ignore[no-untyped-def]
    """Validate ``data`` with ``serializer_class`` and answer with ``service(validated)``; a
    service's ValidationError (naming the field) becomes a 400."""
    params = serializer_class(data=data)
    params.is_valid(raise_exception=True)
    try:  # in a child under the web limits: a huge request is refused, never a stuck worker
        return Response(web_limited(service, params.validated_data, what="this request"))
    except ValidationError as exc:
        raise serializers.ValidationError(exc.message_dict) from None


class ConfigViewSet(viewsets.ModelViewSet):
    permission_classes = [ReadForUsersWriteForStaff]
    lookup_value_regex = ID_REGEX


class SiteViewSet(ConfigViewSet):
    """Sites: processors, local policy, background trace and slot prices."""

    queryset = Site.objects.all()
    serializer_class = SiteSerializer
    search_fields = ["name", "description"]
    filterset_fields = ["local_policy"]

    @extend_schema(
        parameters=[QuoteRequestSerializer],
        responses={200: OpenApiResponse(description="start times with their prices"), 400: None},
    )
    @action(detail=True, methods=["get"], permission_classes=[permissions.IsAuthenticated])
    def quote(self, request, pk=None):
        """The price list of a reservation on this site (thesis §5.2, queries 18/19): every
        feasible start with its adaptive price f (SU) and total n·d·c + f."""
        return _answer(QuoteRequestSerializer, request.query_params, lambda d: site_quote(
            site=self.get_object(), n=d["n"], duration=d["duration"], at_hours=d["at"],
            s_min_hours=d.get("s_min"), estimates=d.get("estimates"),
        ))  # fmt: skip

    @extend_schema(
        parameters=[PredictRequestSerializer],
        responses={200: OpenApiResponse(description="predicted start quantiles"), 400: None},
    )
    @action(detail=True, methods=["get"], permission_classes=[permissions.IsAuthenticated])
    def predict(self, request, pk=None):
        """When would a job start on this site? Upper bounds on the quantiles of its start
        (QBETS-like, from the waits of the jobs the site has run so far; thesis ch. 6)."""
        return _answer(PredictRequestSerializer, request.query_params, lambda d: (
            site_start_prediction(
                site=self.get_object(), n=d["n"], req_time=d["req_time"], at_hours=d["at"],
                estimates=d.get("estimates"),
            )
        ))  # fmt: skip


class VirtualOrganizationViewSet(ConfigViewSet):
    queryset = VirtualOrganization.objects.prefetch_related("groups")
    serializer_class = VirtualOrganizationSerializer
    search_fields = ["name"]


class GroupViewSet(ConfigViewSet):
    queryset = Group.objects.select_related("vo")
    serializer_class = GroupSerializer


class UsagePolicyViewSet(ConfigViewSet):
    """Usage policies <resource, provider, consumer, epoch, burst>. Responses to writes carry
    ``warnings`` when a provider's epoch shares add up to more than 100 %."""

    queryset = UsagePolicy.objects.select_related(
        "provider_site", "provider_vo", "consumer_vo", "consumer_group__vo"
    )
    serializer_class = UsagePolicySerializer
    filterset_fields = ["resource"]

    def _with_warnings(self, response: Response) -> Response:
        if isinstance(response.data, dict):
            response.data["warnings"] = configuration_warnings()
        return response

    def create(self, request, *args, **kwargs):
        return self._with_warnings(super().create(request, *args, **kwargs))

    def update(self, request, *args, **kwargs):
        return self._with_warnings(super().update(request, *args, **kwargs))


class TopologyViewSet(ConfigViewSet):
    """Co-allocation topologies (Takefusa et al. 2010): compute sites, exchange points, links."""

    queryset = Topology.objects.all()
    serializer_class = TopologySerializer
    search_fields = ["name", "description"]

    @extend_schema(
        request=PlanRequestSerializer,
        responses={200: OpenApiResponse(description="ranked plans, best first"), 400: None},
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def plan(self, request, pk=None):
        """Plan one co-allocation request against this topology (nothing reserved): the
        0-1 IP per time frame, plans ranked by the user's option (Takefusa et al. 2010, §3)."""
        topology = self.get_object()

        def plan(d):  # type: ignore[no-untyped-def]
            plans = topology_plan(topology=topology, request=d["request"],
                                  options=d.get("options") or {})  # fmt: skip
            return {"plans": plans, "feasible": bool(plans)}

        return _answer(PlanRequestSerializer, request.data, plan)
