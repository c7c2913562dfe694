"""The Reproductions page: a scoreboard of every seed claim — seed × figure coloured by
verdict, counts per seed, filters by kind and verdict, each preset's claims beside our values
with the cause of every difference, a run button that leads to the run it starts, and a JSON
endpoint the page polls so it updates as runs finish.  Thin: the logic is
in :mod:`gridportal.experiments.reproductions` and the engine."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from gridportal.experiments.reproductions import (
    check_key,
    recorded_checks,
    reference_board,
    reproduction_board,
    reproduction_run,
    reproduction_run_all,
    row_checks,
)
from scheduler import engine
from scheduler.engine import label_of


def than_in_words(text: str, than) -> str:
    """ "< service_levels_UserA_at_100" -> "< normal: co-allocation success of UserA …": the
    metric a claim compares with, in words."""
    if isinstance(than, str) and than and than in text:
        return text.replace(than, label_of(than))
    return text


#: What the scoreboard shows (the verdicts a claim or a figure can have).
SHOWN = (
    "reproduced",
    "same shape",
    "depends",
    "differs",
    "fitted",
    "by construction",
    "constant",
    "blocked",
    "not measured",
    "not run",
)  # fmt: skip  (engine.VERDICTS, written out: reading it would load the catalogue at start-up)


def _check_view(check: dict, row=None, recorded: dict | None = None) -> dict:
    """One claim's row: published and ours in words; a claim read along a figure sweep drawn
    as its curve; one this user has not measured with the project's last recorded verdict and
    value (and curve) beside it."""
    x_label = row.rep.preset.sweep.param if row is not None and row.rep.preset.sweep else ""
    view = {
        **check,
        "published_text": than_in_words(engine.published_text(check), check.get("than")),
        "ours_text": engine.value_text(check.get("ours")),
        "css": check["verdict"].replace(" ", "-"),
        "curve": mark_safe(engine.claim_curve_svg(check, x_label)),  # numbers; names escaped
    }
    if recorded is not None and row is not None and check["verdict"] in NOT_MEASURED:
        seen = recorded.get(check_key(row.rep.key, check))
        if seen is not None:
            view["recorded"] = {
                "verdict": seen["verdict"],
                "css": str(seen["verdict"]).replace(" ", "-"),
                "ours_text": engine.value_text(seen.get("ours")),
                "curve": mark_safe(engine.claim_curve_svg(seen, x_label)),
            }
    return view


#: A claim the user's runs do not measure (yet): the page shows the recorded one beside it.
NOT_MEASURED = ("not measured", "not run")


def _context(request) -> dict:
    kind = request.GET.get("kind") or None
    if kind not in {k.name for k in engine.kinds()}:
        kind = None
    want = request.GET.get("verdict") or ""
    board = reproduction_board(user=request.user, kind=kind)
    recorded = recorded_checks()
    items = []
    for row in board["rows"]:
        checks = [_check_view(c, row, recorded) for c in row_checks(row)]
        items.append({
            "row": row,
            "checks": checks,
            "hidden": bool(want) and want != row.verdict,
            "missing_urls": [(n, engine.archive_url(n)) for n in row.missing],
        })  # fmt: skip
    totals = {v: sum(1 for r in board["rows"] if r.verdict == v) for v in engine.VERDICTS}
    return {
        "items": items,
        "groups": _groups(items, kind=kind),
        "board": board["scoreboard"],
        "deviations": board["deviations"],
        "totals": totals,
        "active": any(r.latest_active for r in board["rows"]),
        "kind": kind,
        "verdict": want,
        "kinds": sorted({(r.kind.name, r.kind.title) for r in engine.reproductions()}),
        "verdicts": SHOWN,
        "verdicts_json": json.dumps(SHOWN),
    }


def _groups(items: list[dict], *, kind: str | None) -> list[dict]:
    """The presets grouped by kind, folded unless their kind is the one chosen (the page
    opens on the scoreboard, not on ~80 rows)."""
    by_kind: dict[str, dict] = {}
    for item in items:
        k = item["row"].rep.kind
        group = by_kind.setdefault(k.name, {"name": k.name, "title": k.title, "items": []})
        group["items"].append(item)
    for group in by_kind.values():
        group["counts"] = [
            (v, n) for v in SHOWN if (n := sum(1 for i in group["items"] if i["row"].verdict == v))
        ]
        group["open"] = kind == group["name"]
        group["hidden"] = all(i["hidden"] for i in group["items"])
    return list(by_kind.values())


@login_required
def reproduction_list(request):
    # the committed scoreboard's card is on the page only, not in the polled status
    ctx = {**_context(request), "reference": reference_board()}
    return render(request, "reproductions/list.html", ctx)


@login_required
def reproduction_status(request):
    """The page's live state as JSON: the scoreboard and each preset's row as HTML, so the page
    replaces them without a reload while runs are queued or running."""
    ctx = _context(request)
    return JsonResponse({
        "active": ctx["active"],
        "totals": ctx["totals"],
        "scoreboard_html": render_to_string("reproductions/_scoreboard.html", ctx, request),
        "rows": {
            f"{i['row'].rep.kind.name}/{i['row'].rep.preset.name}": {
                "verdict": i["row"].verdict,
                "html": render_to_string("reproductions/_row.html", {"item": i}, request),
            }
            for i in ctx["items"]
        },
    })  # fmt: skip


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
    messages.success(
        request,
        f"started {exp.name} (run #{exp.pk}); the Reproductions page shows its verdict when it "
        "finishes",
    )
    return redirect(reverse("experiment-detail", args=[exp.pk]))
