"""Pages of users' scheduling policies: upload (checked in the sandbox), list, source."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from gridportal.inputs.models import PolicyFile
from gridportal.inputs.policyfiles import (
    MAX_POLICY_BYTES,
    enabled,
    policy_file_create,
    policy_file_delete,
    runs_using,
)
from gridportal.sandbox import available
from gridportal.web.views import _add_errors


class PolicyUploadForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="Defaults to the file name.")
    class_name = forms.CharField(
        max_length=100,
        label="Class",
        help_text="The PriorityPolicy or DecisionPolicy subclass in the file (docs/policies.md).",
    )
    file = forms.FileField(help_text=f"A Python file, at most {MAX_POLICY_BYTES:,} bytes.")


@login_required
def policy_list(request):
    form = PolicyUploadForm()
    if request.method == "POST":
        form = PolicyUploadForm(request.POST, request.FILES)
        if form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                row = policy_file_create(
                    owner=request.user,
                    name=form.cleaned_data["name"],
                    filename=upload.name,
                    data=upload.read(MAX_POLICY_BYTES + 1),
                    class_name=form.cleaned_data["class_name"],
                )
            except ValidationError as exc:
                _add_errors(form, exc, "file")
            else:
                messages.success(request, f"Checked in the sandbox and stored as {row.ref}.")
                return redirect("policyfile-detail", pk=row.pk)
    context = {
        "form": form,
        "policies": PolicyFile.objects.filter(owner=request.user).defer("source"),
        "enabled": enabled(),
        "sandbox_problem": available(),
        "limits": {
            "cpu": settings.GRIDPORTAL_SANDBOX_CPU_S,
            "wall": settings.GRIDPORTAL_SANDBOX_WALL_S,
            "memory": settings.GRIDPORTAL_SANDBOX_MEMORY_MB,
            "processes": settings.GRIDPORTAL_SANDBOX_PROCESSES,
        },
    }
    return render(request, "policies/list.html", context, status=400 if form.errors else 200)


@login_required
def policy_detail(request, pk: int):
    row = get_object_or_404(PolicyFile.objects.filter(owner=request.user), pk=pk)
    return render(request, "policies/detail.html", {"policy": row, "runs": runs_using(row).count()})


@login_required
@require_POST
def policy_delete(request, pk: int):
    row = get_object_or_404(PolicyFile.objects.filter(owner=request.user), pk=pk)
    try:
        policy_file_delete(policy_file=row)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("policyfile-detail", pk=row.pk)
    messages.success(request, f"Deleted {row.ref}.")
    return redirect("policyfile-list")
