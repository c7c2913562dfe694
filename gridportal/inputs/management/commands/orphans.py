"""``manage.py orphans``: files under MEDIA_ROOT that no row points at (count and bytes);
``--delete`` removes them. Files younger than ``--min-age`` seconds are left alone (an upload
being saved writes its file just before its row)."""

from django.core.management.base import BaseCommand

from gridportal.inputs.orphans import media_orphans


class Command(BaseCommand):
    help = "Report (or --delete) files under MEDIA_ROOT that no trace or workflow row names."

    def add_arguments(self, parser):
        parser.add_argument("--delete", action="store_true", help="remove the orphan files")
        parser.add_argument("--min-age", type=float, default=3600.0,
                            help="seconds a file must be old to count (default 3600)")  # fmt: skip
        parser.add_argument("--list", action="store_true", help="print each orphan's path")

    def handle(self, *args, delete, min_age, list, **options):
        found = media_orphans(min_age_s=min_age)
        for path, size in found if list else ():
            self.stdout.write(f"{path} {size}")
        removed = 0
        if delete:
            for path, _ in found:
                path.unlink(missing_ok=True)
                removed += 1
        self.stdout.write(
            f"orphans={len(found)} bytes={sum(s for _, s in found)}"
            + (f" deleted={removed}" if delete else "")
        )
