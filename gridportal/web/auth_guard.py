"""What stands in front of a password check, on every way in (web login, admin login, the API's
token endpoint) and in front of sign-up.

1. **Throttles** (Django REST framework's, by client address): ``login`` on the web and admin
   login forms, ``auth-token`` on ``/api/auth/token/``, ``signup`` on the sign-up form; rates in
   ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``. A throttled request costs a cache look-up.
2. **Lockout** (django-axes): after ``AXES_FAILURE_LIMIT`` failed logins for one name or from
   one address, that name / address is refused for ``AXES_COOLOFF_TIME`` without its password
   being hashed — the same answer whether the name exists or not. Staff unlock in the admin
   ("Access attempts") or with ``manage.py axes_reset`` / ``axes_reset_username NAME``.
3. **Hashing bound** (:mod:`gridportal.web.passwords`): at most ``GRIDPORTAL_HASH_CONCURRENCY``
   password hashes at once per process; others are refused with a 503 after a short wait.

The client's address is DRF's throttle identity (``REMOTE_ADDR``, or with
``GRIDPORTAL_NUM_PROXIES=N`` the address N proxies back in ``X-Forwarded-For``), for the
throttles and for axes alike.
"""

from __future__ import annotations

import functools
import math

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework import parsers, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle, SimpleRateThrottle

from gridportal.parsers import BoundedJSONParser
from gridportal.web.passwords import LoginBusy, max_password_length

__all__ = [
    "LockoutBackend",
    "LoginBusyMiddleware",
    "TokenLoginView",
    "client_ip",
    "lockout_message",
    "lockout_response",
    "throttled",
]


def client_ip(request) -> str:
    """The client's address as DRF's throttles see it (``NUM_PROXIES`` aware)."""
    return BaseThrottle().get_ident(request)


def lockout_message(request=None) -> str:
    """One message whether the name exists or not, with the cool-off in minutes."""
    cool_off = get_cool_off(request)
    wait = ""
    if cool_off:
        minutes = max(1, math.ceil(cool_off.total_seconds() / 60))
        wait = f" Try again in {minutes} minute{'s' if minutes != 1 else ''}."
    return (
        "Too many failed log-in attempts for this name or from your address: logging in is "
        f"paused.{wait} A portal administrator can lift it sooner."
    )


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:
    """Axes' answer to a locked-out web or admin login: a 429 page, the same for every name."""
    cool_off = get_cool_off(request)
    response = render(
        request,
        "registration/locked_out.html",
        {"message": lockout_message(request)},
        status=status.HTTP_429_TOO_MANY_REQUESTS,
    )
    if cool_off:
        response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response


class LockoutBackend(AxesStandaloneBackend):
    """Axes' check before the password backend (it never logs anyone in itself).

    Every way in from outside passes the request; a call without one (the test client's
    ``login()``, a shell) has no client to count or lock, so it is let through to the password
    check instead of failing."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class ClientThrottle(SimpleRateThrottle):
    """A throttle by client address for plain Django views; ``scope`` names its rate."""

    def __init__(self, scope: str):
        self.scope = scope
        super().__init__()

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def refusal(request: HttpRequest, message: str, status_code: int, retry_after=None):
    response = render(
        request,
        "registration/refused.html",
        {"message": message},
        status=status_code,
    )
    if retry_after:
        response["Retry-After"] = str(math.ceil(retry_after))
    return response


def throttled(scope: str):
    """Decorator: POSTs to the view beyond the ``scope`` rate, per client, get a 429 page."""

    def decorate(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method == "POST":
                throttle = ClientThrottle(scope)
                if not throttle.allow_request(request, None):
                    wait = throttle.wait()
                    minutes = max(1, math.ceil((wait or 60) / 60))
                    return refusal(
                        request,
                        f"Too many attempts from your address. Try again in {minutes} "
                        f"minute{'s' if minutes != 1 else ''}.",
                        status.HTTP_429_TOO_MANY_REQUESTS,
                        wait,
                    )
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


class LoginBusyMiddleware:
    """A password hash refused by the hashing bound, on a plain Django view: a 503 page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception) -> HttpResponse | None:
        if isinstance(exception, LoginBusy):
            return refusal(
                request, str(LoginBusy.default_detail), LoginBusy.status_code, LoginBusy.wait
            )
        return None


class TokenLoginSerializer(AuthTokenSerializer):
    """DRF's token serializer with bounded fields: an over-long password is refused before
    anything is hashed."""

    username = serializers.CharField(label="Username", max_length=150, write_only=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["password"] = serializers.CharField(
            label="Password",
            style={"input_type": "password"},
            trim_whitespace=False,
            max_length=max_password_length(),
            write_only=True,
        )


class TokenLoginView(ObtainAuthToken):
    """Exchange a username and password for an API token (``{"token": "…"}``).

    Requests are throttled per client address (429). After repeated failed attempts for a
    name or from an address, logging in is paused for a while (429, the same answer whether
    the name exists or not). When too many logins are being checked at once: 503, try again
    in a moment. Passwords longer than the portal's maximum are refused (400)."""

    parser_classes = (BoundedJSONParser, parsers.FormParser, parsers.MultiPartParser)
    serializer_class = TokenLoginSerializer
    throttle_classes = (ScopedRateThrottle,)
    throttle_scope = "auth-token"

    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            if getattr(request, "axes_locked_out", False):
                cool_off = get_cool_off(request)
                headers = {"Retry-After": str(int(cool_off.total_seconds()))} if cool_off else {}
                return Response(
                    {"detail": lockout_message(request)},
                    status=status.HTTP_429_TOO_MANY_REQUESTS,
                    headers=headers,
                )
            return Response(serializer.errors, status=status.HTTP_400_BAD_REQUEST)
        # As ObtainAuthToken.post, without validating (and hashing) a second time.
        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key})
