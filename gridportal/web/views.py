"""Server-rendered pages: thin callers of the same services as the REST API."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_cancel, experiment_create
from gridportal.inputs.models import Trace
from gridportal.inputs.services import trace_create
from gridportal.ownership import visible_to
from scheduler import experiments as catalogue

from .forms import TraceUploadForm, experiment_form_class, inputs_from_form, params_from_form


def _add_errors(form, exc: ValidationError, default_field: str | None = None) -> None:
    for field, errors in exc.message_dict.items():
        target = field if field in form.fields else default_field
        for error in errors:
            form.add_error(target, error)


@login_required
def home(request):
    return render(
        request,
        "home.html",
        {
            "traces": visible_to(Trace.objects.all(), request.user)[:5],
            "experiments": visible_to(Experiment.objects.defer("result"), request.user)[:8],
            "upload_form": TraceUploadForm(),
            "kinds": catalogue.kinds(),
        },
    )


@login_required
def trace_list(request):
    form = TraceUploadForm()
    if request.method == "POST":
        form = TraceUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                trace = trace_create(
                    owner=request.user,
                    name=form.cleaned_data["name"],
                    upload=form.cleaned_data["file"],
                )
            except ValidationError as exc:
                _add_errors(form, exc, "file")
            else:
                messages.success(request, f"Uploaded {trace.name}: {trace.job_count:,} jobs.")
                return redirect("trace-detail", pk=trace.pk)
    traces = visible_to(Trace.objects.select_related("owner"), request.user)
    status = 400 if form.errors else 200
    return render(request, "traces/list.html", {"traces": traces, "form": form}, status=status)


@login_required
def trace_detail(request, pk: int):
    trace = get_object_or_404(visible_to(Trace.objects.all(), request.user), pk=pk)
    kinds = [k for k in catalogue.kinds() if any(i.kind == "trace" for i in k.inputs)]
    return render(
        request,
        "traces/detail.html",
        {
            "trace": trace,
            "experiments": trace.experiments.defer("result").order_by("-created")[:20],
            "kinds": kinds,
        },
    )


@login_required
def trace_download(request, pk: int):
    trace = get_object_or_404(visible_to(Trace.objects.all(), request.user), pk=pk)
    return FileResponse(trace.file.open("rb"), as_attachment=True, filename=trace.original_filename)


@login_required
def experiment_list(request):
    experiments = visible_to(
        Experiment.objects.defer("result").select_related("owner"), request.user
    )
    return render(request, "experiments/list.html", {"experiments": experiments[:200]})


@login_required
def experiment_new(request):
    kind_name = request.GET.get("kind") or request.POST.get("kind") or "trace-stats"
    try:
        kind = catalogue.get_kind(kind_name)
    except KeyError:
        raise Http404(f"no experiment kind {kind_name!r}") from None
    traces = visible_to(Trace.objects.all(), request.user)
    form_class = experiment_form_class(kind, traces)
    initial = {}
    if request.GET.get("trace"):
        initial = {spec.name: request.GET["trace"] for spec in kind.inputs}
    form = form_class(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            exp = experiment_create(
                owner=request.user,
                kind=kind.name,
                params=params_from_form(kind, form.cleaned_data),
                traces=inputs_from_form(kind, form.cleaned_data),
                seed=form.cleaned_data["seed"],
                name=form.cleaned_data["name"],
            )
        except ValidationError as exc:
            _add_errors(form, exc)
        else:
            return redirect("experiment-detail", pk=exp.pk)
    presets = [{"title": p.title, "params_json": json.dumps(p.params)} for p in kind.presets]
    return render(
        request,
        "experiments/new.html",
        {
            "kind": kind,
            "form": form,
            "kinds": catalogue.kinds(),
            "presets": presets,
        },
        status=400 if form.errors else 200,
    )


@login_required
def experiment_detail(request, pk: int):
    exp = get_object_or_404(
        visible_to(Experiment.objects.defer("result").prefetch_related("traces"), request.user),
        pk=pk,
    )
    try:
        kind = catalogue.get_kind(exp.kind)
    except KeyError:
        kind = None
    return render(request, "experiments/detail.html", {"exp": exp, "kind": kind})


@login_required
@require_POST
def experiment_cancel_view(request, pk: int):
    exp = get_object_or_404(visible_to(Experiment.objects.defer("result"), request.user), pk=pk)
    try:
        experiment_cancel(experiment=exp)
    except ValidationError as exc:
        messages.warning(request, exc.messages[0])
    return redirect("experiment-detail", pk=pk)
