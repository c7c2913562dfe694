from django.contrib.auth import views as auth_views
from django.urls import path, register_converter

from gridportal.ids import IdConverter

from . import account, bundles, policyfiles, reproductions, slurm_sites, views

register_converter(IdConverter, "id")

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", account.PortalLoginView.as_view(), name="login"),
    path("signup/", account.signup, name="signup"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("traces/", views.trace_list, name="trace-list"),
    path(
        "traces/imports/<id:pk>/dismiss/", views.sacct_import_dismiss, name="sacct-import-dismiss"
    ),
    path("traces/<id:pk>/", views.trace_detail, name="trace-detail"),
    path("traces/<id:pk>/download/", views.trace_download, name="trace-download"),
    path("workflows/", views.workflow_list, name="workflow-list"),
    path("slurm-sites/", slurm_sites.slurm_site_list, name="slurm-site-list"),
    path("slurm-sites/<id:pk>/", slurm_sites.slurm_site_detail, name="slurm-site-detail"),
    path("policies/", policyfiles.policy_list, name="policyfile-list"),
    path("policies/<id:pk>/", policyfiles.policy_detail, name="policyfile-detail"),
    path("policies/<id:pk>/delete/", policyfiles.policy_delete, name="policyfile-delete"),
    path("workflows/<id:pk>/", views.workflow_detail, name="workflow-detail"),
    path("workflows/<id:pk>/download/", views.workflow_download, name="workflow-download"),
    path("experiments/", views.experiment_list, name="experiment-list"),
    path("experiments/new/", views.experiment_new, name="experiment-new"),
    path("experiments/<id:pk>/", views.experiment_detail, name="experiment-detail"),
    path("experiments/compare/", views.experiment_compare, name="experiment-compare"),
    path("experiments/import-bundle/", bundles.bundle_import_view, name="bundle-import"),
    path("experiments/<id:pk>/cancel/", views.experiment_cancel_view, name="experiment-cancel"),
    path("experiments/<id:pk>/delete/", views.experiment_delete_view, name="experiment-delete"),
    path("sites/", views.site_list, name="site-list"),
    path("sites/<id:pk>/", views.site_detail, name="site-detail"),
    path("sites/topologies/<id:pk>/", views.topology_detail, name="topology-detail"),
    path("reproductions/", reproductions.reproduction_list, name="reproduction-list"),
    path("reproductions/run/", reproductions.reproduction_run_view, name="reproduction-run"),
    path("reproductions/status/", reproductions.reproduction_status, name="reproduction-status"),
    path("sweeps/", views.sweep_list, name="sweep-list"),
    path("sweeps/<id:pk>/", views.sweep_detail, name="sweep-detail"),
    path("sweeps/<id:pk>/cancel/", views.sweep_cancel_view, name="sweep-cancel"),
    path("sweeps/<id:pk>/jobarray/", views.sweep_jobarray, name="sweep-jobarray"),
    path("sweeps/<id:pk>/delete/", views.sweep_delete_view, name="sweep-delete"),
]
