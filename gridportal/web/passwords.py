"""Passwords: what a new one may be, and how many may be hashed at once.

Validators (``AUTH_PASSWORD_VALIDATORS``, beside Django's four): a maximum length (a long
password is refused before anything is computed on it), no all-whitespace password, none that
contains the product's name or a demo account's password, and no common password with digits or
symbols added at its ends (``Summer2024``, ``Winter2023!``: the core word is looked up in
Django's own common-password list).

Hashing: each PBKDF2 hash costs about a second of one core (Django 5.2: 1,000,000 iterations).
:class:`BoundedPBKDF2PasswordHasher` lets at most ``GRIDPORTAL_HASH_CONCURRENCY`` hashes run at
once per process; another waits ``GRIDPORTAL_HASH_WAIT`` seconds, then is refused with
:class:`LoginBusy` (503, "try again in a moment") — never queued without bound. Every hash goes
through it: logins (including the dummy hash Django runs for an unknown name), sign-ups,
password changes.
"""

from __future__ import annotations

import re
import threading

from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.password_validation import CommonPasswordValidator
from django.core.exceptions import ValidationError
from rest_framework import status
from rest_framework.exceptions import APIException

__all__ = [
    "BoundedPBKDF2PasswordHasher",
    "CommonWordWithAffixesValidator",
    "ContextWordsValidator",
    "LoginBusy",
    "MaximumLengthValidator",
    "NotOnlyWhitespaceValidator",
    "max_password_length",
]


def max_password_length() -> int:
    return int(getattr(settings, "GRIDPORTAL_PASSWORD_MAX_LENGTH", 128))


class MaximumLengthValidator:
    """At most ``max_length`` characters (default ``GRIDPORTAL_PASSWORD_MAX_LENGTH``)."""

    def __init__(self, max_length: int | None = None):
        self.max_length = max_length

    def _limit(self) -> int:
        return self.max_length or max_password_length()

    def validate(self, password: str, user=None) -> None:
        if len(password) > self._limit():
            raise ValidationError(
                "This password is too long: at most %(max_length)d characters.",
                code="password_too_long",
                params={"max_length": self._limit()},
            )

    def get_help_text(self) -> str:
        return f"Your password can't be longer than {self._limit()} characters."


class NotOnlyWhitespaceValidator:
    def validate(self, password: str, user=None) -> None:
        if password and not password.strip():
            raise ValidationError("This password is only spaces.", code="password_only_whitespace")

    def get_help_text(self) -> str:
        return "Your password can't be only spaces."


def _letters_and_digits(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


class ContextWordsValidator:
    """Refuses a password containing the product's name (``words``, default ``gridportal``) or
    being a demo account's published password, ignoring case, spaces and punctuation."""

    def __init__(self, words: tuple[str, ...] | list[str] = ("gridportal",)):
        self.words = tuple(_letters_and_digits(w) for w in words if _letters_and_digits(w))

    def _demo_passwords(self) -> tuple[str, ...]:
        from gridportal.experiments.management.commands.seed_demo import demo_credentials

        return tuple(_letters_and_digits(c["password"]) for c in demo_credentials())

    def validate(self, password: str, user=None) -> None:
        flat = _letters_and_digits(password)
        if not flat:
            return
        if any(w in flat for w in self.words) or flat in self._demo_passwords():
            raise ValidationError(
                "This password is too easy to guess here: it contains the portal's name or "
                "is a published demo password.",
                code="password_context",
            )

    def get_help_text(self) -> str:
        return "Your password can't contain the portal's name or be a demo password."


_AFFIXES = re.compile(r"^[\W\d_]*(.*?)[\W\d_]*\Z", re.DOTALL)


class CommonWordWithAffixesValidator:
    """Refuses a common password with digits or symbols added before or after it
    (``Summer2024``, ``!Dragon99``): the core is looked up in Django's common-password list."""

    def __init__(self, min_core: int = 4):
        self.min_core = min_core
        self._common = CommonPasswordValidator()

    def validate(self, password: str, user=None) -> None:
        core = _AFFIXES.match(password).group(1).lower().strip()
        if core != password.lower().strip() and len(core) >= self.min_core:
            if core in self._common.passwords:
                raise ValidationError(
                    "This password is a common word with numbers or symbols added.",
                    code="password_common_with_affixes",
                )

    def get_help_text(self) -> str:
        return "Your password can't be a common word with numbers or symbols added."


class LoginBusy(APIException):
    """Too many password hashes in progress in this process: refused, not queued."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "Too many log-in attempts in progress; try again in a moment."
    default_code = "login_busy"
    wait = 2  # seconds: DRF sends it as Retry-After


_GATE_LOCK = threading.Lock()
_GATES: dict[int, threading.BoundedSemaphore] = {}


def hash_gate() -> threading.BoundedSemaphore:
    """The process-wide semaphore for ``GRIDPORTAL_HASH_CONCURRENCY`` hashes."""
    size = max(1, int(getattr(settings, "GRIDPORTAL_HASH_CONCURRENCY", 1)))
    with _GATE_LOCK:
        return _GATES.setdefault(size, threading.BoundedSemaphore(size))


class BoundedPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2-SHA256 (same algorithm name, so stored hashes are unchanged), with at
    most ``GRIDPORTAL_HASH_CONCURRENCY`` encodings at once per process."""

    def encode(self, password, salt, iterations=None):
        gate = hash_gate()
        if not gate.acquire(timeout=float(getattr(settings, "GRIDPORTAL_HASH_WAIT", 1.0))):
            raise LoginBusy()
        try:
            return super().encode(password, salt, iterations)
        finally:
            gate.release()
