"""One table of archive logs for the engine and the portal (scheduler/traces/archive.py)."""

from __future__ import annotations

from gridportal.inputs.management.commands import fetch_trace
from scheduler.experiments.base import kinds
from scheduler.experiments.reproduce import archive_url, fetch_hint
from scheduler.traces.archive import ARCHIVE, ARCHIVE_LOGS


def test_every_trace_a_preset_names_has_a_download_address():
    named = {t for kind in kinds() for p in kind.presets for t in p.traces}
    assert named, "the presets name archive traces"
    missing = sorted(named - set(ARCHIVE_LOGS))
    assert not missing, f"presets name traces the archive table lacks: {missing}"
    for name in named:
        url = archive_url(name)
        assert url.startswith(ARCHIVE + "/l_") and url.endswith(".swf.gz"), url
        assert url in fetch_hint(name)


def test_unknown_names_point_at_the_archive_log_page():
    assert archive_url("NO-SUCH-LOG") == f"{ARCHIVE}/logs.html"


def test_fetch_trace_downloads_from_the_same_table():
    assert fetch_trace.ARCHIVE_LOGS is ARCHIVE_LOGS
    assert fetch_trace.PWA == ARCHIVE
    # the paths follow the archive's naming: l_<dir>/<NAME>-<year>-<version>[-cln].swf.gz
    for name, path in ARCHIVE_LOGS.items():
        folder, _, file = path.partition("/")
        # an original (uncleaned) log is named after its cleaned one: <NAME>-original
        stem = name.removesuffix("-original")
        assert folder.startswith("l_") and file.startswith(stem + "-"), (name, path)
        assert ("-cln" in file) == (stem == name), (name, path)
