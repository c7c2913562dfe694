from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("traces/", views.trace_list, name="trace-list"),
    path("traces/<int:pk>/", views.trace_detail, name="trace-detail"),
    path("traces/<int:pk>/download/", views.trace_download, name="trace-download"),
    path("experiments/", views.experiment_list, name="experiment-list"),
    path("experiments/new/", views.experiment_new, name="experiment-new"),
    path("experiments/<int:pk>/", views.experiment_detail, name="experiment-detail"),
    path("experiments/compare/", views.experiment_compare, name="experiment-compare"),
    path("experiments/<int:pk>/cancel/", views.experiment_cancel_view, name="experiment-cancel"),
    path("experiments/<int:pk>/delete/", views.experiment_delete_view, name="experiment-delete"),
    path("sweeps/", views.sweep_list, name="sweep-list"),
    path("sweeps/<int:pk>/", views.sweep_detail, name="sweep-detail"),
    path("sweeps/<int:pk>/cancel/", views.sweep_cancel_view, name="sweep-cancel"),
    path("sweeps/<int:pk>/delete/", views.sweep_delete_view, name="sweep-delete"),
]
