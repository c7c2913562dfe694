from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token
from rest_framework.routers import DefaultRouter

from gridportal.experiments.api.reproductions import ReproductionViewSet
from gridportal.experiments.api.views import ExperimentViewSet, KindViewSet, SweepViewSet
from gridportal.inputs.api.views import TraceViewSet, WorkflowViewSet
from gridportal.sites.api.views import (
    GroupViewSet,
    SiteViewSet,
    TopologyViewSet,
    UsagePolicyViewSet,
    VirtualOrganizationViewSet,
)

router = DefaultRouter()
router.register("traces", TraceViewSet, basename="trace")
router.register("workflows", WorkflowViewSet, basename="workflow")
router.register("experiments", ExperimentViewSet, basename="experiment")
router.register("sweeps", SweepViewSet, basename="sweep")
router.register("kinds", KindViewSet, basename="kind")
router.register("reproductions", ReproductionViewSet, basename="reproduction")
router.register("sites", SiteViewSet, basename="site")
router.register("vos", VirtualOrganizationViewSet, basename="vo")
router.register("groups", GroupViewSet, basename="group")
router.register("policies", UsagePolicyViewSet, basename="policy")
router.register("topologies", TopologyViewSet, basename="topology")

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(router.urls)),
    path("api/auth/token/", obtain_auth_token, name="api-token"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("gridportal.web.urls")),
]
