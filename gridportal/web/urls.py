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
    path("experiments/<int:pk>/cancel/", views.experiment_cancel_view, name="experiment-cancel"),
]
