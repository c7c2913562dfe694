"""Every site's background trace becomes a copy the site owns (gridportal.sites.traces.
site_trace_copy), and the runs and sweeps of other users that read the uploader's row read the
copy instead (same file contents and sha256, so their fingerprints do not change): the
uploader's trace page then lists only their own runs, and other users' bundles carry the
site's copy, not the uploader's row."""

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.core.files.base import File
from django.db import migrations

SITE_TRACES_USERNAME = "gridportal-sites"  # as gridportal.sites.traces


def _repoint(rows, original, copy) -> None:
    """Rows (runs or sweeps) of other users: ``original`` → ``copy`` in their traces and in
    the trace order of their snapshot."""
    for row in rows.exclude(owner_id=original.owner_id):
        row.traces.remove(original)
        row.traces.add(copy)
        order = (row.snapshot or {}).get("trace_order")
        if order:
            row.snapshot["trace_order"] = [copy.pk if pk == original.pk else pk for pk in order]
            row.save(update_fields=["snapshot"])


def forwards(apps, schema_editor) -> None:
    Site = apps.get_model("sites", "Site")
    Trace = apps.get_model("inputs", "Trace")
    Experiment = apps.get_model("experiments", "Experiment")
    Sweep = apps.get_model("experiments", "Sweep")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    sites = Site.objects.filter(trace__isnull=False, trace__site_owned=False)
    if not sites.exists():
        return
    owner, _ = User.objects.get_or_create(
        username=SITE_TRACES_USERNAME,
        defaults={"is_active": False, "password": make_password(None)},
    )
    for site in sites.select_related("trace"):
        original = site.trace
        suffix = ".swf.gz" if original.file.name.endswith(".gz") else ".swf"
        copy = Trace(
            owner=owner,
            name=f"background trace of site {site.name}",
            original_filename=f"{site.name}-background{suffix}",
            size_bytes=original.size_bytes,
            sha256=original.sha256,
            job_count=original.job_count,
            machine_procs=original.machine_procs,
            header=original.header,
            summary=original.summary,
            site_owned=True,
        )
        try:
            with original.file.open("rb") as fh:
                copy.file.save(f"site{suffix}", File(fh), save=False)
        except FileNotFoundError:  # a row without its file: the site keeps no trace
            site.trace = None
            site.save(update_fields=["trace"])
            continue
        copy.save()
        site.trace = copy
        site.save(update_fields=["trace"])
        _repoint(Experiment.objects.filter(traces=original), original, copy)
        _repoint(Sweep.objects.filter(traces=original), original, copy)


class Migration(migrations.Migration):
    dependencies = [
        ("sites", "0006_local_policy_from_registry"),
        ("inputs", "0004_trace_site_owned"),
        ("experiments", "0005_experiment_claim"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
