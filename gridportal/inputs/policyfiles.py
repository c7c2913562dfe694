"""Users' scheduling policies as inputs: checked and run only in the sandbox.

An upload is a Python file and the name of its class (scheduler.policies: a PriorityPolicy or
DecisionPolicy subclass).  The check (compile, contract, a dry run on a small generated trace)
runs in the bubblewrap sandbox (gridportal/sandbox.py); the portal process never imports or
runs the file.  A run names an upload ``user:<first 12 hex digits of its sha256>``; the
registry of the engine refuses that name everywhere but in the sandboxed child, and
:func:`check_run_policies` refuses a name that is not one of the submitter's uploads.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q

from gridportal.sandbox import Limits, SandboxError, run_job

from .models import PolicyFile

MAX_POLICY_BYTES = 200_000
#: where the sandbox sees an uploaded file (its messages are rewritten to the user's name)
SANDBOX_POLICY = "/run/job/policy.py"
USER_REF = re.compile(r"\buser:[0-9a-f]{12}\b")
DISABLED = "user policies are turned off on this portal (its staff set GRIDPORTAL_USER_POLICIES=0)"


def enabled() -> bool:
    return bool(settings.GRIDPORTAL_USER_POLICIES)


def sandbox_limits(*, check: bool = False) -> Limits:
    wall = settings.GRIDPORTAL_SANDBOX_CHECK_S if check else settings.GRIDPORTAL_SANDBOX_WALL_S
    return Limits(
        cpu_s=max(1, int(min(wall, settings.GRIDPORTAL_SANDBOX_CPU_S))),
        wall_s=wall,
        memory_mb=settings.GRIDPORTAL_SANDBOX_MEMORY_MB,
        processes=settings.GRIDPORTAL_SANDBOX_PROCESSES,
    )


def usable_policy_files(user) -> list[PolicyFile]:
    """The user's uploads a form offers (none while user policies are turned off)."""
    if not enabled() or not getattr(user, "is_authenticated", False):
        return []
    return list(PolicyFile.objects.filter(owner=user).defer("source").order_by("-id")[:200])


def _refuse(field: str, why: str) -> ValidationError:
    return ValidationError({field: [why]})


def policy_file_create(
    *, owner, name: str, filename: str, data: bytes, class_name: str
) -> PolicyFile:
    """Check an uploaded policy in the sandbox and store it as the owner's; the same content
    again is the same version (returned as it is).  Nothing is saved on any error, and the
    error names the line (syntax, the user's exception) or the field."""
    if not enabled():
        raise _refuse("file", DISABLED)
    filename = (filename or "policy.py").rsplit("/", 1)[-1][:255]
    class_name = (class_name or "").strip()
    if not class_name.isidentifier():
        raise _refuse("class_name", "the name of the policy's class (a Python identifier)")
    if len(data) > MAX_POLICY_BYTES:
        raise _refuse("file", f"{filename}: larger than {MAX_POLICY_BYTES:,} bytes")
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _refuse("file", f"{filename}, line {line}: not UTF-8 text") from None
    if "\x00" in source:
        raise _refuse("file", f"{filename}: a NUL byte is not Python source")
    sha = hashlib.sha256(data).hexdigest()
    same = PolicyFile.objects.filter(owner=owner, sha256=sha).first()
    if same is not None:
        if same.class_name != class_name:
            raise _refuse(
                "class_name",
                f"this file is already uploaded as {same.ref} with class {same.class_name}",
            )
        return same
    facts = _check(filename, data, class_name)
    try:
        with transaction.atomic():
            return PolicyFile.objects.create(
                owner=owner, name=(name or filename)[:200], class_name=class_name,
                source=source, original_filename=filename, size_bytes=len(data), sha256=sha,
                title=str(facts.get("title", ""))[:200],
                description=str(facts.get("description", ""))[:2000],
                dry_run=facts.get("dry_run") or {},
            )  # fmt: skip
    except IntegrityError:  # the same file uploaded twice at once
        return PolicyFile.objects.get(owner=owner, sha256=sha)


def _check(filename: str, data: bytes, class_name: str) -> dict[str, Any]:
    job = {"mode": "check", "policy": "policy.py", "class": class_name}
    try:
        return run_job(job, {"policy.py": data}, sandbox_limits(check=True))
    except SandboxError as exc:
        raise _refuse("file", _user_words(exc.message, filename)) from None


def _user_words(message: str, filename: str) -> str:
    """The sandbox's message with its paths as the user knows them."""
    return message.replace(f"{SANDBOX_POLICY}:", "").replace(SANDBOX_POLICY, filename)


def refs_in(params: dict[str, Any]) -> list[str]:
    """The user-policy names a run's parameters mention (``policies``, ``policy``)."""
    found: list[str] = []
    for key in ("policies", "policy"):
        value = params.get(key) if isinstance(params, dict) else None
        if isinstance(value, str):
            found += [r for r in USER_REF.findall(value) if r not in found]
    return found


def check_run_policies(*, owner, params: dict[str, Any]) -> dict[str, PolicyFile]:
    """The owner's uploads named by a run's parameters; a ValidationError on ``params`` when
    user policies are off or a name is not one of the owner's uploads (another user's policy
    is refused like another user's trace: as unknown)."""
    if refs_in(params) and not enabled():
        key = "policies" if USER_REF.search(str(params.get("policies", ""))) else "policy"
        raise _refuse("params", f"{key}: {DISABLED}")
    return owned_policies(owner=owner, params=params)


def owned_policies(*, owner, params: dict[str, Any]) -> dict[str, PolicyFile]:
    """The owner's uploads named by a run's parameters (user policies on or off: a stored
    run's bundle still carries its sources); a ValidationError for a name not the owner's."""
    refs = refs_in(params)
    if not refs:
        return {}
    mine = {
        p.ref: p for p in PolicyFile.objects.filter(owner=owner).only("sha256") if p.ref in refs
    }
    for ref in refs:
        if ref not in mine:
            key = next(k for k in ("policies", "policy") if ref in str(params.get(k, "")))
            raise _refuse("params", f"{key}: {ref} is not one of your uploaded policies")
    return {ref: PolicyFile.objects.get(pk=mine[ref].pk) for ref in refs}


def runs_using(policy_file: PolicyFile):
    """The owner's runs whose parameters name this upload (``policies`` or ``policy``),
    sweeps' runs and imported runs included (through the owner's ``experiments``, as a
    trace's runs are its ``experiments``)."""
    ref = policy_file.ref
    return policy_file.owner.experiments.filter(
        Q(params__policies__icontains=ref) | Q(params__policy=ref)
    )


def policy_file_delete(*, policy_file: PolicyFile) -> None:
    """Delete an upload that no run names; one that runs name is refused, saying how many
    (their results and bundles need its source: delete those runs first)."""
    with transaction.atomic():
        used = runs_using(policy_file).count()
        if used:
            runs = "run names" if used == 1 else "runs name"
            raise _refuse(
                "policy",
                f"{policy_file.ref} is kept: {used} of your {runs} it (their results and "
                "bundles need its source); delete those runs first",
            )
        policy_file.delete()
