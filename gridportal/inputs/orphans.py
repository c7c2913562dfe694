"""Orphan files: files under MEDIA_ROOT that no row points at (a write whose row never
committed, a crash between the two).  The doors remove what a refused upload wrote; this is the
periodic check behind them: ``manage.py orphans`` prints the count and bytes (``--delete``
removes them), and ``manage.py sweep_runs`` logs the count on its passes (never deleting)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from django.conf import settings

__all__ = ["media_orphans", "report_orphans"]

log = logging.getLogger(__name__)


def _referenced() -> set[str]:
    from gridportal.inputs.models import SacctImport, SlurmSite, Trace, Workflow

    names: set[str] = set()
    for model in (Trace, Workflow, SacctImport, SlurmSite):
        names.update(model.objects.exclude(file="").values_list("file", flat=True).iterator())
    return names


def media_orphans(*, min_age_s: float = 0.0) -> list[tuple[Path, int]]:
    """(path, bytes) of every file under MEDIA_ROOT no Trace, Workflow, SacctImport or SlurmSite row
    names, older than ``min_age_s`` seconds (an upload being saved writes its file just before
    its row)."""
    root = Path(settings.MEDIA_ROOT)
    if not root.exists():
        return []
    referenced = _referenced()
    cutoff = time.time() - min_age_s
    out = []
    for path in sorted(root.rglob("*")):
        try:
            stat = path.stat()
        except OSError:  # removed meanwhile
            continue
        if not path.is_file() or stat.st_mtime > cutoff:
            continue
        if path.relative_to(root).as_posix() not in referenced:
            out.append((path, stat.st_size))
    return out


def report_orphans(*, min_age_s: float = 3600.0) -> tuple[int, int]:
    """Log (and return) how many orphan files and bytes there are; deletes nothing."""
    found = media_orphans(min_age_s=min_age_s)
    count, size = len(found), sum(b for _, b in found)
    if count:
        log.warning("orphan files under MEDIA_ROOT: %d (%d bytes); manage.py orphans --delete "
                    "removes them", count, size)  # fmt: skip
    return count, size
