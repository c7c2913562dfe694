"""Getting in: a sign-up page (``GRIDPORTAL_SIGNUP=off`` turns it off for closed
deployments) and, in development, the demo account's credentials on the login page.

Abuse (:mod:`gridportal.web.auth_guard`): logins are throttled per client and locked
per name and per client after repeated failures (django-axes), sign-ups are throttled per
client, passwords are bounded in length before anything is computed on them (every login form
and the sign-up form), new names may not mix alphabets nor look like an existing name
(:mod:`gridportal.web.usernames`), and a refused name gets one answer whatever the reason.

What the sign-up form still tells: a name that is free *can* be taken (the account is made).
That is unavoidable with chosen names; what is avoided is a cheaper oracle — refusals of a
taken, look-alike or reserved name read the same, and every sign-up attempt (successful or
not) counts against the client's sign-up throttle."""

from __future__ import annotations

import os

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.views import LoginView
from django.core.validators import MaxLengthValidator
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.decorators import method_decorator

from gridportal.web.auth_guard import throttled
from gridportal.web.passwords import max_password_length
from gridportal.web.usernames import UNAVAILABLE, check_new_username

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


def _cap_password(field: forms.CharField) -> None:
    """Bound a password field: a longer value is a field error, and the form's password check
    (hash) and validators never see it. The browser is told the bound too."""
    field.max_length = max_password_length()
    field.validators.append(MaxLengthValidator(field.max_length))
    field.widget.attrs["maxlength"] = str(field.max_length)


class PortalAuthenticationForm(AuthenticationForm):
    def __init__(self, request=None, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        _cap_password(self.fields["password"])


class PortalAdminAuthenticationForm(AdminAuthenticationForm):
    def __init__(self, request=None, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        _cap_password(self.fields["password"])


class NewUsernameMixin:
    """A new account's name: one alphabet, no look-alike of an existing or reserved name."""

    def clean_username(self):
        username = self.cleaned_data.get("username")
        if username:
            check_new_username(username)
        return username


class SignupForm(NewUsernameMixin, UserCreationForm):
    email = forms.EmailField(required=False, help_text="Optional; only used to reach you.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")
        # a name taken between the check and the save reads as every other refusal
        error_messages = {"username": {"unique": UNAVAILABLE}}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("password1", "password2"):
            _cap_password(self.fields[name])


@method_decorator(throttled("login"), name="post")
class PortalLoginView(LoginView):
    authentication_form = PortalAuthenticationForm

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
    return _signup_form(request)


@throttled("signup")
def _signup_form(request):
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})
