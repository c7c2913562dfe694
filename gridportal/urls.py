from collections import OrderedDict

from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.routers import APIRootView, DefaultRouter

from gridportal.experiments.api.reproductions import ReproductionViewSet
from gridportal.experiments.api.views import ExperimentViewSet, KindViewSet, SweepViewSet
from gridportal.inputs.api.policyfiles import PolicyFileViewSet
from gridportal.inputs.api.slurm_sites import SlurmSiteViewSet
from gridportal.inputs.api.views import TraceViewSet, WorkflowViewSet
from gridportal.quotas.api.views import QuotaViewSet
from gridportal.sites.api.views import (
    GroupViewSet,
    SiteViewSet,
    TopologyViewSet,
    UsagePolicyViewSet,
    VirtualOrganizationViewSet,
)
from gridportal.web.auth_guard import TokenLoginView, throttled


class PortalAPIRoot(APIRootView):
    """The GridPortal REST API: every collection below takes JSON (and gives CSV where a
    result is a table); sign in here or send a token from /api/auth/token/. The schema and
    its interactive docs are listed too."""

    # The browsable API shows the docstring above to readers: notes for developers stay in
    # comments.  Every collection by its API address only: DRF's own root reverses route names
    # such as ``trace-list``, which the HTML pages share (6 of 11 entries pointed at pages
    # that send token clients to the login form).

    permission_classes = [AllowAny]  # a list of addresses; every collection checks its own

    def get_view_name(self) -> str:
        return "GridPortal API"

    def get(self, request, *args, **kwargs):
        base = request.build_absolute_uri("/api/")
        out = OrderedDict((prefix, f"{base}{prefix}/") for prefix, _, _ in router.registry)
        out["auth-token"] = f"{base}auth/token/"
        out["schema"] = f"{base}schema/"
        out["docs"] = f"{base}docs/"
        return Response(out)


class PortalRouter(DefaultRouter):
    APIRootView = PortalAPIRoot
    # No ``.json`` twin of every route: the actions take no ``format`` argument, so
    # ``/api/experiments/1/bundle.json/`` was a 500 (TypeError) on 20 actions (found by the
    # query-string fuzz). ``?format=json`` still picks the renderer.
    include_format_suffixes = False


router = PortalRouter()
router.register("traces", TraceViewSet, basename="trace")
router.register("workflows", WorkflowViewSet, basename="workflow")
router.register("slurm-sites", SlurmSiteViewSet, basename="slurmsite")
router.register("policy-files", PolicyFileViewSet, basename="policyfile")
router.register("experiments", ExperimentViewSet, basename="experiment")
router.register("sweeps", SweepViewSet, basename="sweep")
router.register("kinds", KindViewSet, basename="kind")
router.register("reproductions", ReproductionViewSet, basename="reproduction")
router.register("sites", SiteViewSet, basename="site")
router.register("vos", VirtualOrganizationViewSet, basename="vo")
router.register("groups", GroupViewSet, basename="group")
router.register("policies", UsagePolicyViewSet, basename="policy")
router.register("topologies", TopologyViewSet, basename="topology")
router.register("quota", QuotaViewSet, basename="quota")

urlpatterns = [
    # the admin's login form, throttled per client like the portal's (before the admin's own)
    path("admin/login/", throttled("login")(admin.site.login)),
    path("admin/", admin.site.urls),
    path("favicon.ico", lambda request: HttpResponsePermanentRedirect(static("favicon.svg"))),
    path("api/", include(router.urls)),
    path("api/auth/token/", TokenLoginView.as_view(), name="api-token"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # the split view serves its start-up script as a file of its own (no inline script: CSP)
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("gridportal.web.urls")),
]
