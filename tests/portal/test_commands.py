"""Management commands: demo data and archive download."""

import http.server
import threading
from functools import partial

import pytest
from django.core.management import CommandError, call_command

from gridportal.experiments.models import Experiment
from gridportal.inputs.models import Trace, Workflow
from gridportal.sites.models import Site, Topology, UsagePolicy
from tests.conftest import make_swf_bytes

pytestmark = pytest.mark.django_db


def test_seed_demo_creates_user_trace_and_queued_experiment_once(media_root, capsys):
    call_command("seed_demo")
    out = capsys.readouterr().out
    assert "username 'demo' password 'demo-grid'" in out
    trace = Trace.objects.get(owner__username="demo")
    assert trace.job_count == 5000 and trace.machine_procs == 128
    exp = Experiment.objects.get()
    assert exp.kind == "trace-stats" and exp.status == "queued"
    wf = Workflow.objects.get(owner__username="demo")
    assert wf.task_count == 100 and wf.summary["levels"] == 10
    assert (
        UsagePolicy.objects.filter(provider_site__name="site0", consumer_vo__name="VO0")
        .get()
        .epoch_percent
        == 20
    )
    # the demo sites replay the demo trace (quotes, predictions) as their own copies (not the
    # demo user's row) and seed 001's testbed is there
    assert all(s.trace.site_owned and s.trace.sha256 == trace.sha256 for s in Site.objects.all())
    assert Topology.objects.get().name == "seed001"
    call_command("seed_demo")  # again: nothing new (the sites' copies included)
    assert Trace.objects.filter(site_owned=False).count() == 1 and Experiment.objects.count() == 1
    assert Trace.objects.filter(site_owned=True).count() == Site.objects.count()
    assert Workflow.objects.count() == 1 and Site.objects.count() == 2
    assert Topology.objects.count() == 1


@pytest.fixture
def archive(tmp_path):
    """A local stand-in for the Parallel Workloads Archive (no internet here)."""
    folder = tmp_path / "l_kth_sp2"
    folder.mkdir()
    import gzip

    (folder / "KTH-SP2-1996-2.1-cln.swf.gz").write_bytes(gzip.compress(make_swf_bytes(120)))
    ctc = tmp_path / "l_ctc_sp2"  # the archive keeps the uncleaned log beside the cleaned one
    ctc.mkdir()
    (ctc / "CTC-SP2-1996-3.1.swf.gz").write_bytes(gzip.compress(make_swf_bytes(90)))
    (tmp_path / "broken.swf").write_bytes(b"1 2 3\n")
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_fetch_trace_by_name_from_a_mirror(archive, alice, media_root, capsys):
    call_command("fetch_trace", "KTH-SP2", "--owner", "alice", "--base-url", archive)
    trace = Trace.objects.get()
    assert trace.owner == alice and trace.job_count == 120 and trace.name == "KTH-SP2"
    assert "stored trace" in capsys.readouterr().out


def test_fetch_trace_offers_the_uncleaned_ctc_log(archive, alice, media_root, capsys):
    """The thesis counted the original CTC-SP2 log's jobs (§3.1, 79,285): the download command
    fetches it by name from the archive's l_ctc_sp2/CTC-SP2-1996-3.1.swf.gz, not the cleaned
    log."""
    call_command("fetch_trace", "CTC-SP2-original", "--owner", "alice", "--base-url", archive)
    trace = Trace.objects.get()
    assert trace.name == "CTC-SP2-original" and trace.job_count == 90


def test_fetch_trace_errors_are_clear(archive, alice, media_root):
    with pytest.raises(CommandError, match="unknown trace 'NOPE'"):
        call_command("fetch_trace", "NOPE", "--owner", "alice")
    with pytest.raises(CommandError, match="cannot download"):
        call_command("fetch_trace", f"{archive}/missing.swf.gz", "--owner", "alice")
    with pytest.raises(CommandError, match="line 1"):
        call_command("fetch_trace", f"{archive}/broken.swf", "--owner", "alice")
    assert Trace.objects.count() == 0


def test_load_policies_command(capsys):
    call_command("load_policies", "seed004-5sites")
    assert Site.objects.count() == 5
    assert "loaded 5 sites" in capsys.readouterr().out
    with pytest.raises(CommandError, match="cannot read|No such file"):
        call_command("load_policies", "/nonexistent.json")
