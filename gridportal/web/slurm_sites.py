"""Pages of Slurm sites (the ``slurm-whatif`` kind's input): upload the dump and the
configuration files, and see what was understood of them."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render

from gridportal.inputs.models import SlurmSite
from gridportal.inputs.slurm_sites import slurm_site_create
from gridportal.ownership import visible_to
from scheduler import engine

from .forms import SlurmSiteForm
from .views import _add_errors

#: slurm.conf keys whose value is a duration in seconds (shown in words)
DURATION_KEYS = {
    "PriorityDecayHalfLife", "PriorityMaxAge", "PriorityCalcPeriod", "OverTimeLimit",
    "sched_interval", "bf_interval", "bf_window", "bf_resolution",
}  # fmt: skip


@login_required
def slurm_site_list(request):
    form = SlurmSiteForm()
    if request.method == "POST":
        form = SlurmSiteForm(request.POST, request.FILES)
        if form.is_valid():
            data = form.cleaned_data
            try:
                site = slurm_site_create(
                    owner=request.user, name=data["name"], dump=data["dump"],
                    slurm_conf=data["slurm_conf"], assoc=data.get("assoc"), qos=data.get("qos"),
                    sshare=data.get("sshare"),
                )  # fmt: skip
            except ValidationError as exc:
                _add_errors(form, exc, "dump")
            else:
                messages.success(request, f"Read {site.name}: {site.job_count:,} jobs.")
                return redirect("slurm-site-detail", pk=site.pk)
    sites = visible_to(SlurmSite.objects.select_related("owner"), request.user).defer(
        "slurm_conf", "assoc", "qos", "sshare"
    )
    status = 400 if form.errors else 200
    return render(request, "slurm_sites/list.html", {"form": form, "sites": sites}, status=status)


@login_required
def slurm_site_detail(request, pk: int):
    site = get_object_or_404(visible_to(SlurmSite.objects.all(), request.user), pk=pk)
    facts = site.summary or {}
    keys = [
        {**k, "shown": engine.format_value(k["value"], unit="s" if k["key"] in DURATION_KEYS
                                           else "")}
        for k in facts.get("keys", [])
    ]  # fmt: skip
    kinds = [k for k in engine.kinds() if any(i.kind == "slurm-site" for i in k.inputs)]
    return render(
        request,
        "slurm_sites/detail.html",
        {
            "site": site,
            "facts": facts,
            "keys": keys,
            "kinds": kinds,
            "experiments": visible_to(site.experiments.defer("result"), request.user).order_by(
                "-created"
            )[:20],
        },
    )
