"""Server-rendered pages: thin callers of the same services as the REST API."""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.dateparse import parse_date
from django.views.decorators.http import require_POST

from gridportal.experiments.compare import MAX_COMPARED, compare_runs
from gridportal.experiments.models import Experiment, Sweep
from gridportal.experiments.reproductions import reproduction_reference
from gridportal.experiments.results import (
    ResultRefused,
    render_limited,
    stored_size,
    stored_summary,
)
from gridportal.experiments.services import (
    experiment_cancel,
    experiment_create,
    experiment_delete,
    experiment_queue_place,
)
from gridportal.experiments.sweeps import sweep_cancel, sweep_create, sweep_delete, sweep_status
from gridportal.ids import parse_id
from gridportal.inputs import sacct_imports
from gridportal.inputs.models import SacctImport, SlurmSite, Trace, Workflow
from gridportal.inputs.policyfiles import usable_policy_files
from gridportal.inputs.sacct_imports import trace_upload
from gridportal.inputs.selectors import usable_traces
from gridportal.inputs.services import workflow_create, workflow_generate
from gridportal.limits import web_limited
from gridportal.ownership import visible_to
from gridportal.quotas.services import quota_summary
from gridportal.sites.models import Site, Topology
from gridportal.sites.services import (
    site_quote,
    site_start_prediction,
    topology_picture,
    topology_plan,
)
from scheduler import engine
from scheduler.engine import label_of, labelled

from .forms import (
    PlanForm,
    PredictForm,
    QuoteForm,
    TraceUploadForm,
    WorkflowGenerateForm,
    WorkflowUploadForm,
    experiment_form_class,
    inputs_from_form,
    params_from_form,
    parse_vary,
)


def _add_errors(form, exc: ValidationError, default_field: str | None = None) -> None:
    for field, errors in exc.message_dict.items():
        target = field if field in form.fields else default_field
        for error in errors:
            param = _PARAM_ERROR.match(error) if field == "params" else None
            if param and f"p_{param.group(1)}" in form.fields:
                # a parameter's refusal ("procs: no job fits …"): said in words at
                # the top of the form and again beside the field it names
                name = f"p_{param.group(1)}"
                form.add_error(None, f"{form.fields[name].label}: {param.group(2)}")
                form.add_error(name, param.group(2))
                continue
            form.add_error(target, error)


_PARAM_ERROR = re.compile(r"^(\w+): (.+)$", re.S)


@login_required
def home(request):
    return render(
        request,
        "home.html",
        {
            "traces": visible_to(Trace.objects.all(), request.user)[:5],
            "experiments": visible_to(Experiment.objects.defer("result"), request.user)[:8],
            "upload_form": TraceUploadForm(),
            "kinds": engine.kinds(),
        },
    )


@login_required
def trace_list(request):
    form = TraceUploadForm()
    if request.method == "POST":
        form = TraceUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                made = trace_upload(
                    owner=request.user,
                    name=form.cleaned_data["name"],
                    upload=form.cleaned_data["file"],
                    sacct=form.sacct_options(),
                )
            except ValidationError as exc:
                _add_errors(form, exc, "file")
            else:
                if isinstance(made, SacctImport):
                    messages.info(
                        request,
                        f"Converting {made}: a large Slurm accounting file is converted by a "
                        "worker; it appears here when ready.",
                    )
                    return redirect("trace-list")
                messages.success(request, f"Uploaded {made.name}: {made.job_count:,} jobs.")
                return redirect("trace-detail", pk=made.pk)
    traces = visible_to(Trace.objects.select_related("owner"), request.user)
    imports = SacctImport.objects.filter(owner=request.user)
    status = 400 if form.errors else 200
    return render(
        request, "traces/list.html", {"traces": traces, "imports": imports, "form": form},
        status=status,
    )  # fmt: skip


@login_required
@require_POST
def sacct_import_dismiss(request, pk: int):
    row = get_object_or_404(SacctImport, pk=pk, owner=request.user)
    try:
        sacct_imports.sacct_import_dismiss(row=row)
    except ValidationError as exc:
        messages.error(request, "; ".join(exc.messages))
    return redirect("trace-list")


@login_required
def trace_detail(request, pk: int):
    trace = get_object_or_404(visible_to(Trace.objects.all(), request.user), pk=pk)
    kinds = [k for k in engine.kinds() if any(i.kind == "trace" for i in k.inputs)]
    return render(
        request,
        "traces/detail.html",
        {
            "trace": trace,
            # the runs the viewer may see (a trace shared as a site's lists no other's runs)
            "experiments": visible_to(trace.experiments.defer("result"), request.user).order_by(
                "-created"
            )[:20],
            "kinds": kinds,
        },
    )


@login_required
def trace_download(request, pk: int):
    trace = get_object_or_404(visible_to(Trace.objects.all(), request.user), pk=pk)
    return FileResponse(trace.file.open("rb"), as_attachment=True, filename=trace.original_filename)


@login_required
def workflow_list(request):
    upload = WorkflowUploadForm()
    generate = WorkflowGenerateForm()
    if request.method == "POST":
        try:
            if request.POST.get("action") == "generate":
                generate = WorkflowGenerateForm(request.POST)
                if generate.is_valid():
                    wf = workflow_generate(
                        owner=request.user,
                        model=generate.cleaned_data["model"],
                        params=generate.generator_params(),
                        name=generate.cleaned_data["name"],
                    )
                    return redirect("workflow-detail", pk=wf.pk)
            else:
                upload = WorkflowUploadForm(request.POST, request.FILES)
                if upload.is_valid():
                    wf = workflow_create(
                        owner=request.user,
                        name=upload.cleaned_data["name"],
                        upload=upload.cleaned_data["file"],
                    )
                    messages.success(request, f"Uploaded {wf.name}: {wf.task_count:,} tasks.")
                    return redirect("workflow-detail", pk=wf.pk)
        except ValidationError as exc:
            form = generate if request.POST.get("action") == "generate" else upload
            _add_errors(form, exc, "file" if form is upload else None)
    workflows = visible_to(Workflow.objects.select_related("owner"), request.user)
    status = 400 if upload.errors or generate.errors else 200
    return render(
        request,
        "workflows/list.html",
        {"workflows": workflows, "form": upload, "generate_form": generate},
        status=status,
    )


@login_required
def workflow_detail(request, pk: int):
    wf = get_object_or_404(visible_to(Workflow.objects.all(), request.user), pk=pk)
    levels = wf.summary.get("tasks_per_level", [])
    preview = {
        "summary": {},
        "tables": [],
        "charts": [
            engine.chart(
                "levels",
                "bar",
                "Tasks per level",
                x="level",
                y="tasks",
                series=[engine.series("tasks", [[str(i + 1), n] for i, n in enumerate(levels)])],
            )
        ],
    }
    kinds = [k for k in engine.kinds() if any(i.kind == "workflow" for i in k.inputs)]
    return render(
        request,
        "workflows/detail.html",
        {
            "workflow": wf,
            "preview": preview,
            "kinds": kinds,
            "experiments": wf.experiments.defer("result").order_by("-created")[:20],
        },
    )


@login_required
def workflow_download(request, pk: int):
    wf = get_object_or_404(visible_to(Workflow.objects.all(), request.user), pk=pk)
    return FileResponse(wf.file.open("rb"), as_attachment=True, filename=wf.original_filename)


def _day(text: str | None):
    """A YYYY-MM-DD filter, or None (an ignored filter) when it is not a real day:
    ``parse_date`` raises on 2024-02-30 (well formed, no such day)."""
    try:
        return parse_date((text or "")[:32])
    except ValueError:
        return None


@login_required
def experiment_list(request):
    """Runs, "my runs" by default; filter by kind, status, input and date; search by name."""
    qs = Experiment.objects.defer("result").select_related("owner")
    show_all = request.user.is_staff and request.GET.get("all") == "1"
    qs = qs if show_all else qs.filter(owner=request.user)
    f = request.GET
    if f.get("kind"):
        qs = qs.filter(kind=f["kind"])
    if f.get("status"):
        qs = qs.filter(status=f["status"])
    if parse_id(f.get("trace")):
        qs = qs.filter(traces=parse_id(f["trace"]))
    if f.get("q"):
        qs = qs.filter(name__icontains=f["q"])
    if f.get("sweeps") != "1":  # a sweep's runs are listed on its page
        qs = qs.filter(sweeps__isnull=True)
    for key, lookup in (("after", "created__date__gte"), ("before", "created__date__lte")):
        day = _day(f.get(key))
        if day:
            qs = qs.filter(**{lookup: day})
    page = Paginator(qs.distinct(), 50).get_page(f.get("page"))
    query = f.copy()
    query.pop("page", None)
    return render(
        request,
        "experiments/list.html",
        {
            "page": page,
            "experiments": page.object_list,
            "quota": quota_summary(user=request.user),
            "kinds": engine.kinds(),
            "statuses": Experiment.Status.choices,
            "traces": visible_to(Trace.objects.only("id", "name"), request.user),
            "filters": f,
            "show_all": show_all,
            "query": query.urlencode(),
        },
    )


def _archive_key(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _engine_is_compiled() -> bool:
    """Whether this process runs the engine's compiled kernels (``make setup`` with a C
    compiler): the presets' declared minutes were measured with them."""
    return engine.native_status() == "compiled"


def _presets(kind, user) -> list[dict]:
    """Preset buttons: the parameters, the archive traces each preset is meant for (picked
    from the user's traces when one matches by name, e.g. "CTC-SP2") and how long it runs."""
    traces = (
        list(usable_traces(user).only("id", "name", "original_filename")) if kind.inputs else []
    )
    trace_input = next((i for i in kind.inputs if i.kind == "trace"), None)
    out = []
    for p in kind.presets:
        picked, missing = [], []
        for archive in p.traces if trace_input else ():
            key = _archive_key(archive)
            match = next(
                (t for t in traces if key in _archive_key(t.name + " " + t.original_filename)),
                None,
            )
            if match is None:
                missing.append(archive)
            else:
                picked.append(match.pk)
        if p.minutes is None:
            duration = ""
        elif p.minutes < 1:
            duration = "under a minute"
        else:
            duration = f"about {p.minutes:g} min"
        if duration and not _engine_is_compiled():
            duration += (
                " with the compiled engine; this server runs its pure-Python source (no C "
                "compiler at setup), up to 80× longer"
            )
        out.append(
            {
                "title": p.title,
                "params_json": json.dumps(p.params),
                "inputs_json": json.dumps({trace_input.name: picked} if picked else {}),
                "duration": duration,
                "missing": missing,
            }
        )
    return out


def _initial_from(request, kind) -> dict:
    """Initial form values: ``?trace=`` / ``?workflow=`` pick inputs, ``?policies=`` the
    policies of a kind that takes them, ``?policy=`` the site policy of one that takes an
    uploaded policy there, ``?clone=`` copies a run."""
    initial: dict = {}
    for spec in kind.inputs:
        picked = parse_id(request.GET.get(spec.kind))
        if picked:
            initial[spec.name] = picked if spec.max == 1 else [picked]
    if request.GET.get("sites") == "configured":
        initial.update(configured_sites_initial(kind))
    if request.GET.get("policies") and any(p.name == "policies" for p in kind.params):
        initial["p_policies"] = request.GET["policies"][:500]  # from a policy's page
    if request.GET.get("policy") and any(p.name == "policy" and p.user_policy for p in kind.params):
        initial["p_policy"] = request.GET["policy"][:100]  # a choice: the form checks it
    source_id = parse_id(request.GET.get("clone"))
    if source_id:
        source = get_object_or_404(
            visible_to(Experiment.objects.defer("result"), request.user), pk=source_id
        )
        initial.update({f"p_{k}": v for k, v in source.params.items()})
        initial["seed"] = source.seed
        initial["name"] = f"{source} (copy)"
        stored = {
            "trace": list(source.traces.values_list("id", flat=True)),
            "workflow": list(source.workflows.values_list("id", flat=True)),
            "slurm-site": list(source.slurm_sites.values_list("id", flat=True)),
        }
        for spec in kind.inputs:
            if spec.kind == "policies":
                initial[spec.name] = bool(source.snapshot.get("policies"))
                continue
            if spec.kind == "topology":  # the configured topology whose document it copied
                docs = source.snapshot.get("topology") or [None]
                match = [t.pk for t in Topology.objects.all() if t.document == docs[0]]
                initial[spec.name] = match[0] if match else None
                continue
            ids = stored.get(spec.kind, [])
            initial[spec.name] = (ids[0] if ids else None) if spec.max == 1 else ids
    return initial


SITE_FIELDS = {
    "site_names": "name",
    "procs": "processors",
    "unit_cost": "unit_cost",
    "fixed_cost": "fixed_cost",
}


def kind_uses_sites(kind) -> bool:
    names = {p.name for p in kind.params}
    if "clusters" in names:  # clusters of processors only (e.g. malleability)
        return True
    return "site_names" in names and any(i.kind == "trace" and i.max > 1 for i in kind.inputs)


def configured_sites_initial(kind) -> dict:
    """Form values describing the sites staff configured (those with a background trace):
    one trace input per site, and the per-site lists (names, processors, prices).  A kind
    with a ``clusters`` parameter takes every site's size and name only."""
    if not kind_uses_sites(kind):
        return {}
    if "clusters" in {p.name for p in kind.params}:
        every = list(Site.objects.order_by("name"))
        if not every:
            return {}
        out = {"p_clusters": ",".join(str(s.processors) for s in every)}
        if "cluster_names" in {p.name for p in kind.params}:
            out["p_cluster_names"] = ",".join(s.name for s in every)
        return out
    sites = list(Site.objects.filter(trace__isnull=False).order_by("name"))
    if not sites:
        return {}
    initial = {
        f"p_{param}": ",".join(
            f"{getattr(s, attr):g}"
            if isinstance(getattr(s, attr), float)
            else str(getattr(s, attr))
            for s in sites
        )
        for param, attr in SITE_FIELDS.items()
        if param in {p.name for p in kind.params}
    }
    spec = next(i for i in kind.inputs if i.kind == "trace")
    initial[spec.name] = [s.trace_id for s in sites][: spec.max]
    return initial


@login_required
def experiment_new(request):
    kind_name = request.GET.get("kind") or request.POST.get("kind") or "trace-stats"
    try:
        kind = engine.get_kind(kind_name)
    except KeyError:
        raise Http404(f"no experiment kind {kind_name!r}") from None
    form_class = experiment_form_class(
        kind,
        {
            "trace": usable_traces(request.user),
            "workflow": visible_to(Workflow.objects.all(), request.user),
            "policyfile": usable_policy_files(request.user),
            "slurm-site": visible_to(
                SlurmSite.objects.defer("slurm_conf", "assoc", "qos", "sshare"), request.user
            ),
        },
    )  # fmt: skip
    form = form_class(request.POST or None, initial=_initial_from(request, kind))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        vary, vary_errors = parse_vary(data)
        for field, error in vary_errors.items():
            form.add_error(field, error)
        common = {
            "owner": request.user,
            "kind": kind.name,
            "params": params_from_form(kind, data),
            **inputs_from_form(kind, data),
            "seed": data["seed"],
            "name": data["name"],
        }
        if not vary_errors:
            try:
                if vary:
                    sweep = sweep_create(**common, vary=vary, repetitions=data["repetitions"] or 1)
                    return redirect("sweep-detail", pk=sweep.pk)
                exp = experiment_create(**common)
                return redirect("experiment-detail", pk=exp.pk)
            except ValidationError as exc:
                _add_errors(form, exc, "vary1_values" if "vary" in exc.message_dict else None)
    presets = _presets(kind, request.user)
    sweep_names = {"vary1_param", "vary1_values", "vary2_param", "vary2_values", "repetitions"}
    return render(
        request,
        "experiments/new.html",
        {
            "kind": kind,
            "form": form,
            "main_fields": [f for f in form if f.name not in sweep_names],
            "sweep_fields": [f for f in form if f.name in sweep_names],
            "kinds": engine.kinds(),
            "presets": presets,
            "uses_sites": kind_uses_sites(kind)
            and Site.objects.filter(trace__isnull=False).exists(),
        },
        status=400 if form.errors else 200,
    )


def _label_rows(result: dict) -> dict:
    """The compare tables name a setting ("param fs_decay") or a metric per row: in words."""
    tables = []
    for tab in result.get("tables") or []:
        if tab.get("id") in ("differences", "summaries"):
            rows = []
            for row in tab["rows"]:
                key = str(row[0]).removeprefix("param ")
                rows.append([label_of(key), *row[1:]])
            tab = {**tab, "rows": rows}
        tables.append(tab)
    return {**result, "tables": tables}


def _compare_result(pks: list[int]) -> dict:
    """The compare page's Result (built where the results are read: in a limited child for
    large results, so only the compared Result, never the stored ones, comes back)."""
    by_pk = {e.pk: e for e in Experiment.objects.defer("result").filter(pk__in=pks)}
    experiments = [by_pk[pk] for pk in pks]
    return _label_rows(labelled(compare_runs(experiments)))


@login_required
def experiment_compare(request):
    ids = list(dict.fromkeys(i for i in map(parse_id, request.GET.getlist("ids")) if i))
    error, result, status = None, None, 400
    if not 2 <= len(ids) <= MAX_COMPARED:
        error = f"pick between 2 and {MAX_COMPARED} runs to compare"
        if len(ids) > MAX_COMPARED:  # refused before any query (no list of 900 ids looked up)
            context = {"experiments": [], "result": None, "error": error}
            return render(request, "experiments/compare.html", context, status=400)
    qs = visible_to(Experiment.objects.defer("result"), request.user).filter(pk__in=ids)
    by_pk = {e.pk: e for e in qs}
    if len(by_pk) != len(ids):
        raise Http404("no such run")
    experiments = [by_pk[pk] for pk in ids]
    waiting = [e for e in experiments if not e.is_finished]
    if error is None and waiting:
        # a bundle's re-run (or any run) still computing: a page that waits and refreshes
        context = {"experiments": experiments, "result": None, "error": None, "waiting": waiting}
        return render(request, "experiments/compare.html", context)
    if error is None:
        size = sum(stored_size(pk) or 0 for pk in ids)
        try:
            result = render_limited(_compare_result, ids, size=size, what="comparing these runs")
            status = 200
        except ValidationError as exc:
            error = exc.messages[0]
        except ResultRefused as exc:
            error, status = exc.message, exc.status
    return render(
        request,
        "experiments/compare.html",
        {"experiments": experiments, "result": result, "error": error},
        status=status,
    )


@login_required
@require_POST
def experiment_delete_view(request, pk: int):
    exp = get_object_or_404(visible_to(Experiment.objects.defer("result"), request.user), pk=pk)
    experiment_delete(experiment=exp)
    messages.success(request, f"Deleted {exp}.")
    return redirect("experiment-list")


@login_required
def sweep_list(request):
    sweeps = list(visible_to(Sweep.objects.select_related("owner"), request.user)[:200])
    for sweep in sweeps:  # status and progress: one aggregate query each
        sweep.state = sweep_status(sweep, with_runs=False)
    return render(request, "sweeps/list.html", {"sweeps": sweeps})


@login_required
def sweep_detail(request, pk: int):
    sweep = get_object_or_404(visible_to(Sweep.objects.all(), request.user), pk=pk)
    try:
        kind = engine.get_kind(sweep.kind)
    except KeyError:
        kind = None
    state = sweep_status(sweep)
    return render(
        request,
        "sweeps/detail.html",
        {
            "sweep": sweep,
            "kind": kind,
            "state": state,
            "error_labels": _error_labels(kind),
            "key_labels": _key_labels(sweep, kind),
            "compare": _sweep_compare(state),
            "without_result": sum(r["status"] != "succeeded" for r in state["runs"]),
        },
    )


def _sweep_compare(state: dict) -> dict | None:
    """The compare page of a sweep's points (the first repetition of each, at most
    MAX_COMPARED of them): its address and how many points it shows."""
    runs = list({r["id"]: r for r in state["runs"] if r["repetition"] == 0}.values())
    if len(runs) < 2:
        return None
    shown = runs[:MAX_COMPARED]
    query = "&".join(f"ids={r['id']}" for r in shown)
    return {"url": f"{reverse('experiment-compare')}?{query}", "shown": len(shown),
            "points": len(runs)}  # fmt: skip


@login_required
def sweep_jobarray(request, pk: int):
    """The job-array download of the page: the API's zip while runs lack a result, else a page
    that says so (not the API's 400)."""
    sweep = get_object_or_404(visible_to(Sweep.objects.all(), request.user), pk=pk)
    pending = sweep.points.exclude(experiment__status=Experiment.Status.SUCCEEDED).count()
    if pending:  # the export's own choices (runs per task, time per task) passed on
        asked = {k: v for k, v in request.GET.items() if k in ("chunk", "time") and v}
        return redirect(f"/api/sweeps/{sweep.pk}/jobarray/?{urlencode(asked)}".rstrip("?"))
    return render(request, "sweeps/jobarray.html", {"sweep": sweep})


def _key_labels(sweep: Sweep, kind) -> dict[str, str]:
    """Labels of the keys a sweep's aggregate names in its chart titles, axes and table columns
    ("first_submit mean", "… vs procs"): the kind's parameters and the metrics of one finished
    run (no raw key on the page)."""
    names = {n for n in _error_labels(kind)}
    done = sweep.runs.filter(status=Experiment.Status.SUCCEEDED).only("pk").first()
    summary = stored_summary(done.pk) if done is not None else None  # the summary alone
    if isinstance(summary, dict):
        names |= {k for k in summary if len(k) <= 200}
    # a label that holds its key as a word ("policy": "scheduling policy") is left out: the
    # page would relabel the key inside the label again ("scheduling scheduling policy")
    return {
        n: text
        for n in sorted(names)
        if (text := label_of(n)) != n and not re.search(rf"\b{re.escape(n)}\b", text)
    }


@login_required
@require_POST
def sweep_cancel_view(request, pk: int):
    sweep = get_object_or_404(visible_to(Sweep.objects.all(), request.user), pk=pk)
    n = sweep_cancel(sweep=sweep)
    messages.info(request, f"Cancelled {n} run(s).")
    return redirect("sweep-detail", pk=pk)


@login_required
@require_POST
def sweep_delete_view(request, pk: int):
    sweep = get_object_or_404(visible_to(Sweep.objects.all(), request.user), pk=pk)
    sweep_delete(sweep=sweep)
    messages.success(request, "Deleted the sweep and its runs.")
    return redirect("sweep-list")


@login_required
def experiment_detail(request, pk: int):
    exp = get_object_or_404(
        visible_to(
            Experiment.objects.defer("result").prefetch_related(
                "traces", "workflows", "slurm_sites"
            ),
            request.user,
        ),
        pk=pk,
    )
    try:
        kind = engine.get_kind(exp.kind)
    except KeyError:
        kind = None
    reference = reproduction_reference(experiment=exp) if kind else None
    return render(
        request,
        "experiments/detail.html",
        {
            "exp": exp,
            "kind": kind,
            "queue_place": experiment_queue_place(exp),
            "reference": reference,
            "error_labels": _error_labels(kind),
            "message_words": _message_words(kind),
        },
    )


def _message_words(kind) -> dict[str, str]:
    """The names a kind's progress messages use (its parameters, their choices and the parts of
    list defaults such as "spep,rm-fairshare,none" or "PRA/FPSMA") with their labels, for the
    live message line (no raw key on the page)."""
    if kind is None:
        return {}
    names: set[str] = set()
    values: set[str] = set()
    for p in kind.params:
        names |= {p.name, p.name.replace("_", "-")}
        values |= {str(c) for c in (getattr(p, "choices", None) or ())}
        if isinstance(p.default, str):
            values |= {w for w in re.split(r"[,/\s]+", p.default) if w}
    # "none" is a strategy's name in usage-policy ("no policy") but elsewhere an ordinary value
    values.discard("none")
    words = {}
    for name in names | values:
        text = label_of(name)
        # ("accurate" -> "accurate estimates" would double a message's own "estimates")
        if text not in (name, name.replace("_", " ")) and not text.startswith(name + " "):
            words[name] = text
    return words


def _error_labels(kind) -> dict[str, str]:
    """The labels the page's live script puts on the fields an error message names
    ("start_day: …" -> "window start (start_day): …", as the server's readable_error)."""
    names = ["seed", "params", "traces", "workflows", "policies", "topology", "kind"]
    if kind is not None:
        names += [p.name for p in kind.params] + [i.name for i in kind.inputs]
    return {n: label_of(n) for n in names}


@login_required
@require_POST
def experiment_cancel_view(request, pk: int):
    exp = get_object_or_404(visible_to(Experiment.objects.defer("result"), request.user), pk=pk)
    try:
        experiment_cancel(experiment=exp)
    except ValidationError as exc:
        messages.warning(request, exc.messages[0])
    return redirect("experiment-detail", pk=pk)


# Sites ------------------------------------------------------------------------------------


@login_required
def site_list(request):
    return render(
        request,
        "sites/list.html",
        {"sites": Site.objects.select_related("trace"), "topologies": Topology.objects.all()},
    )


@login_required
def topology_detail(request, pk):
    """A co-allocation topology drawn as a graph, and a planner for one request (Takefusa et al.
    2010)."""
    topology = get_object_or_404(Topology, pk=pk)
    form = PlanForm(request.POST or None, topology=topology)
    plans = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        options = {"option": data["option"], "admin": data["admin"],
                   "priority": data["priority"], "frames": data["frames"]}  # fmt: skip
        try:
            plans = web_limited(  # under the web limits
                lambda: topology_plan(topology=topology, request=data["request"], options=options),
                field="request", what="planning this request",
            )  # fmt: skip
        except ValidationError as exc:
            _add_errors(form, exc, "request")
        else:
            for p in plans:
                p["frame"]["start_min"] = p["frame"]["start"] / 60
                p["frame"]["end_min"] = p["frame"]["end"] / 60
    picture = _with_chosen_plan(topology_picture(topology), plans[0] if plans else None)
    return render(
        request,
        "sites/topology.html",
        {"topology": topology, "picture": picture, "form": form, "plans": plans,
         "chosen": plans[0] if plans else None},
    )  # fmt: skip


def _with_chosen_plan(picture: dict, plan: dict | None) -> dict:
    """Mark the chosen plan's sites and the links of its paths on the graph."""
    if not plan:
        return picture
    sites = {str(s) for s in plan.get("sites", {}).values()}
    hops = set()
    for path in plan.get("paths", []):
        route = [str(n) for n in path.get("route", [])]
        hops |= {frozenset(pair) for pair in zip(route, route[1:], strict=False)}
    nodes = [{**n, "chosen": str(n["name"]) in sites} for n in picture["nodes"]]
    links = [
        {**ln, "chosen": frozenset((str(ln["a"]), str(ln["b"]))) in hops} for ln in picture["links"]
    ]
    return {**picture, "nodes": nodes, "links": links}


@login_required
def site_detail(request, pk):
    """A configured site, and the price list of a reservation on it (thesis §5.2)."""
    site = get_object_or_404(Site.objects.select_related("trace"), pk=pk)
    asks_quote = "n" in request.GET
    asks_prediction = "p-n" in request.GET
    form = QuoteForm(request.GET if asks_quote else None, site=site)
    predict_form = PredictForm(request.GET if asks_prediction else None, site=site)
    quote = prediction = None
    if asks_prediction and predict_form.is_valid():
        data = predict_form.cleaned_data
        try:
            prediction = web_limited(lambda: site_start_prediction(
                site=site, n=data["n"], req_time=max(1, round(data["hours"] * 3600)),
                at_hours=data["at"],
            ), field="n", what="this prediction")  # fmt: skip
        except ValidationError as exc:
            _add_errors(predict_form, exc, "n")
    if asks_quote and form.is_valid():
        data = form.cleaned_data
        try:
            quote = web_limited(lambda: site_quote(
                site=site, n=data["n"], duration=round(data["hours"] * 3600),
                at_hours=data["at"], s_min_hours=data.get("s_min"),
                estimates=data.get("estimates") or None,
            ), field="n", what="this quote")  # fmt: skip
        except ValidationError as exc:
            _add_errors(form, exc, "n")
    # Each form carries the other's query along, so asking one keeps the other's result.
    own_quote = set(form.fields)
    keep_for_quote = [(k, v) for k, v in request.GET.items() if k.startswith("p-")]
    keep_for_predict = [
        (k, v) for k, v in request.GET.items() if k in own_quote and not k.startswith("p-")
    ]
    return render(
        request,
        "sites/detail.html",
        {
            "site": site,
            "keep_for_quote": keep_for_quote,
            "keep_for_predict": keep_for_predict,
            "form": form,
            "quote": labelled(quote) if quote else quote,  # labels, units
            "predict_form": predict_form,
            "prediction": labelled(prediction) if prediction else prediction,
            "pictures": [
                (t, topology_picture(t))
                for t in Topology.objects.all()
                if site.name in t.site_names()
            ],
        },
    )
