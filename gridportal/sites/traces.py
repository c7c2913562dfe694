"""A site's background trace is the site's own: a copy of the upload staff chose, owned by a
system account, so the uploader's trace page, bundles and deletions stay the uploader's alone.

Separate from :mod:`.services` because :meth:`gridportal.sites.models.Site.save` calls it (and
services import the models)."""

from __future__ import annotations

#: The account that owns the sites' background traces (inactive: nobody logs in as it).
SITE_TRACES_USERNAME = "gridportal-sites"


def site_traces_owner():  # type: ignore[no-untyped-def]
    """The system account owning the sites' background traces (created when first needed)."""
    from django.contrib.auth import get_user_model

    user, created = get_user_model().objects.get_or_create(
        username=SITE_TRACES_USERNAME, defaults={"is_active": False}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def site_trace_copy(*, site_name: str, trace):  # type: ignore[no-untyped-def]
    """``trace`` as a background trace of the site ``site_name``: the trace itself when it
    already is a site's, else a copy of its file and facts owned by :func:`site_traces_owner`,
    named after the site (never after the upload or its owner)."""
    from django.core.files.base import File

    from gridportal.inputs.models import Trace

    if trace.site_owned:
        return trace
    suffix = ".swf.gz" if trace.file.name.endswith(".gz") else ".swf"
    copy = Trace(
        owner=site_traces_owner(),
        name=f"background trace of site {site_name}",
        original_filename=f"{site_name}-background{suffix}",
        size_bytes=trace.size_bytes,
        sha256=trace.sha256,
        job_count=trace.job_count,
        machine_procs=trace.machine_procs,
        header=trace.header,
        summary=trace.summary,
        site_owned=True,
    )
    with trace.file.open("rb") as fh:
        copy.file.save(f"site{suffix}", File(fh), save=False)
    copy.save()
    return copy
