"""Download a Parallel Workloads Archive log and store it as a validated trace.

    python manage.py fetch_trace CTC-SP2 [--owner USER] [--name NAME]
    python manage.py fetch_trace https://example.org/some.swf.gz

Needs internet access to the archive (or ``--base-url`` / ``GRIDPORTAL_PWA_BASE_URL`` pointing
at a mirror). The file goes through the same validation as an upload.
"""

import os
import tempfile
import urllib.error
import urllib.request

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from gridportal.inputs.services import trace_create
from scheduler.engine import ARCHIVE_LOGS, ARCHIVE_URL

PWA = ARCHIVE_URL


class Command(BaseCommand):
    help = "Download a Parallel Workloads Archive trace (by name or URL) and store it."

    def add_arguments(self, parser):
        parser.add_argument("name", help=f"one of {', '.join(ARCHIVE_LOGS)}, or a URL")
        parser.add_argument(
            "--owner",
            help="username that will own the trace (default: the first superuser, else 'demo')",
        )
        parser.add_argument("--display-name", dest="display_name", default="")
        parser.add_argument("--base-url", default=os.environ.get("GRIDPORTAL_PWA_BASE_URL", PWA))
        parser.add_argument("--timeout", type=float, default=60.0)

    def _owner(self, username):
        User = get_user_model()
        if username:
            try:
                return User.objects.get(username=username)
            except User.DoesNotExist:
                raise CommandError(f"no user {username!r}") from None
        user = (
            User.objects.filter(is_superuser=True).order_by("id").first()
            or User.objects.filter(username="demo").first()
        )
        if user is None:
            raise CommandError("no owner: pass --owner USER (create one with createsuperuser)")
        return user

    def handle(self, *args, name, owner, display_name, base_url, timeout, **options):
        if name.startswith(("http://", "https://")):
            url = name
        elif name in ARCHIVE_LOGS:
            url = f"{base_url.rstrip('/')}/{ARCHIVE_LOGS[name]}"
        else:
            raise CommandError(
                f"unknown trace {name!r}; known: {', '.join(ARCHIVE_LOGS)} (or give a URL)"
            )
        user = self._owner(owner)
        filename = url.rsplit("/", 1)[-1] or "trace.swf"
        limit = settings.GRIDPORTAL_MAX_UPLOAD_BYTES
        self.stdout.write(f"downloading {url}")
        with tempfile.TemporaryFile() as tmp:
            try:
                with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310
                    copied = 0
                    while chunk := resp.read(1 << 20):
                        copied += len(chunk)
                        if copied > limit:
                            raise CommandError(f"{url} is larger than {limit:,} bytes")
                        tmp.write(chunk)
            except (urllib.error.URLError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                raise CommandError(f"cannot download {url}: {reason}") from None
            tmp.seek(0)
            try:
                trace = trace_create(
                    owner=user, name=display_name or name, upload=File(tmp, name=filename)
                )
            except ValidationError as exc:
                raise CommandError("; ".join(exc.messages)) from None
        self.stdout.write(
            self.style.SUCCESS(
                f"stored trace #{trace.pk} {trace.name}: {trace.job_count:,} jobs, "
                f"{trace.machine_procs} processors, owner {user.username}"
            )
        )
