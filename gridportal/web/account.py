"""Getting in: a sign-up page (``GRIDPORTAL_SIGNUP=off`` turns it off for closed
deployments) and, in development, the demo account's credentials on the login page."""

from __future__ import annotations

import os

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.views import LoginView
from django.http import Http404
from django.shortcuts import redirect, render

OFF = ("off", "0", "false", "no")


def signup_enabled() -> bool:
    value = getattr(settings, "GRIDPORTAL_SIGNUP", None)
    if value is None:
        value = os.environ.get("GRIDPORTAL_SIGNUP", "on")
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() not in OFF


def demo_accounts() -> list[dict[str, str]]:
    """The accounts ``manage.py seed_demo`` creates, shown on the login page in development
    only (DEBUG) and only while they exist."""
    if not settings.DEBUG:
        return []
    from gridportal.experiments.management.commands.seed_demo import demo_credentials

    users = get_user_model().objects
    return [c for c in demo_credentials() if users.filter(username=c["username"]).exists()]


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="Optional; only used to reach you.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


class PortalLoginView(LoginView):
    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["demo_accounts"] = demo_accounts()
        ctx["signup_enabled"] = signup_enabled()
        return ctx


def signup(request):
    if not signup_enabled():
        raise Http404("sign-up is turned off on this portal")
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})
