"""The Reproductions page: every preset with published values, ours beside them, the verdict,
and buttons to run one or all of them (issue 15).  Thin: the logic is in
:mod:`gridportal.experiments.reproductions` and the engine."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from gridportal.experiments.reproductions import (
    reproduction_rows,
    reproduction_run,
    reproduction_run_all,
)
from scheduler.experiments.reproduce import VERDICTS, published_text, value_text


def _check_view(check: dict) -> dict:
    return {
        **check,
        "published_text": published_text(check),
        "ours_text": value_text(check.get("ours")),
        "css": check["verdict"].replace(" ", "-"),
    }


@login_required
def reproduction_list(request):
    kind = request.GET.get("kind") or None
    rows = []
    for row in reproduction_rows(user=request.user, kind=kind):
        checks = row.checks or [
            {**e.as_json(), "verdict": "not run", "ours": None, "detail": ""}
            for e in row.rep.preset.published
        ]
        rows.append({"row": row, "checks": [_check_view(c) for c in checks]})
    totals = {v: sum(1 for r in rows if r["row"].verdict == v) for v in VERDICTS}
    active = any(r["row"].latest_active for r in rows)
    return render(
        request,
        "reproductions/list.html",
        {"rows": rows, "totals": totals, "active": active, "kind": kind},
    )


@login_required
@require_POST
def reproduction_run_view(request):
    if request.POST.get("all"):
        started, skipped = reproduction_run_all(user=request.user, kind=request.POST.get("kind"))
        messages.success(request, f"started {len(started)} reproduction(s)")
        for reason in skipped:
            messages.warning(request, reason)
        return redirect("reproduction-list")
    try:
        exp = reproduction_run(
            user=request.user,
            kind=request.POST.get("kind", ""),
            preset=request.POST.get("preset", ""),
        )
    except ValidationError as exc:
        for message in exc.messages:
            messages.warning(request, message)
        return redirect("reproduction-list")
    messages.success(request, f"started {exp.name} (run #{exp.pk})")
    return redirect("reproduction-list")
