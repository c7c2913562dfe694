"""Import a run bundle from the browser (the REST face is POST /api/experiments/import-bundle/)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from gridportal.experiments.bundles import MAX_BUNDLE_BYTES, bundle_import


@login_required
@require_POST
def bundle_import_view(request):
    upload = request.FILES.get("file")
    if upload is None or (upload.size or 0) > MAX_BUNDLE_BYTES:
        messages.error(request, f"Choose a bundle zip (at most {MAX_BUNDLE_BYTES // 2**20} MB).")
        return redirect("experiment-list")
    try:
        original, rerun = bundle_import(owner=request.user, data=upload)
    except ValidationError as exc:
        messages.error(request, "The bundle was refused: " + "; ".join(exc.messages))
        return redirect("experiment-list")
    messages.success(
        request,
        f"Imported run #{original.pk} from the bundle and queued its re-run #{rerun.pk}; "
        "the comparison fills in when the re-run finishes.",
    )
    return redirect(f"{reverse('experiment-compare')}?ids={original.pk}&ids={rerun.pk}")
