"""Run control, in-process: stopping a limited child, reporting who killed it,
fair dispatch of held runs, and the per-user quotas at the door.

The same behaviour across real worker processes: tests/integration/test_cancel_workers.py
and tests/integration/test_fair_dispatch.py.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from rest_framework.test import APIClient

from gridportal import limits
from gridportal.experiments import services
from gridportal.experiments.models import Experiment, Sweep
from gridportal.inputs.models import Trace
from gridportal.limits import KilledFromOutside, LimitExceeded, Stopped, child_report, run_limited
from gridportal.quotas.models import UserQuota
from tests.conftest import make_swf_bytes
from tests.portal.factories import stored_trace

EXTERNAL_KILL = (
    "the run's process was killed by signal 9 (SIGKILL) from outside the portal "
    "(out-of-memory killer or an administrator?)"
)


def _spin():
    while True:
        pass


def _report_pid_then_spin():
    child_report(os.getpid())
    _spin()


def _kill_myself():
    os.kill(os.getpid(), signal.SIGKILL)


# Stopping and kill reports -------------------------------------------------------------------


def test_should_stop_kills_the_child_within_a_poll_without_any_report():
    asked = []
    children = []
    t0 = time.monotonic()

    def should_stop():
        asked.append(time.monotonic() - t0)
        return len(asked) >= 2

    with pytest.raises(Stopped):
        run_limited(
            _report_pid_then_spin,
            timeout=60,
            memory_mb=200,
            should_stop=should_stop,
            poll_s=0.3,
            on_report=children.append,
        )
    assert time.monotonic() - t0 < 5
    assert len(asked) == 2  # polled on its own: the child never reported after starting
    assert not os.path.exists(f"/proc/{children[0]}")  # killed and reaped


def test_a_child_killed_from_outside_is_said_so_not_the_memory_limit():
    def kill_it(pid):
        os.kill(pid, signal.SIGKILL)  # as the OOM killer or `kill -9` would

    with pytest.raises(KilledFromOutside) as exc:
        run_limited(
            _report_pid_then_spin, timeout=60, memory_mb=4096, what="the run", on_report=kill_it
        )
    assert exc.value.message == EXTERNAL_KILL
    assert "memory" not in str(exc.value).replace("out-of-memory", "")
    with pytest.raises(KilledFromOutside, match="signal 9 .SIGKILL. from outside"):
        run_limited(_kill_myself, timeout=60, memory_mb=4096, what="the run")


def test_the_memory_message_only_when_the_guard_fired(monkeypatch):
    # RLIMIT_AS: the child's allocation fails (MemoryError) -> the memory message
    def hog():
        chunks = []
        while True:
            chunks.append(bytearray(16 * 2**20))

    with pytest.raises(LimitExceeded, match="exceeded the memory limit of 100 MiB"):
        run_limited(hog, timeout=30, memory_mb=100)
    # the RSS guard: it kills the child (SIGKILL) itself -> the memory message, not "outside"
    parent = os.getpid()
    real_rss = limits._rss
    monkeypatch.setattr(limits, "_rss", lambda pid: real_rss(pid) if pid == parent else 2**50)
    with pytest.raises(LimitExceeded, match="exceeded the memory limit of 100 MiB") as exc:
        run_limited(_spin, timeout=30, memory_mb=100)
    assert exc.value.limit == "memory"


@pytest.mark.django_db(transaction=True)
def test_a_run_whose_child_is_killed_from_outside_fails_saying_so(alice, media_root):
    from tests.integration.run_control import LONG_PARAMS

    trace = stored_trace(alice, jobs=2000, procs=128)
    exp = services.experiment_new(
        owner=alice,
        kind="provisioning",
        params=LONG_PARAMS,
        inputs=services.RunInputs.of([trace]),
    )
    me = os.getpid()
    # children this process already has (a session's daemons, servers): not the run's
    before = {int(e.name) for e in os.scandir("/proc") if e.name.isdigit()}

    def killer():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for entry in os.scandir("/proc"):
                if not entry.name.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry.name}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                pid = int(entry.name)
                if pid not in before and int(fields[1]) == me and int(fields[2]) == pid:
                    # the limited child: a new child of ours, leading its own process group
                    time.sleep(1.0)
                    os.kill(pid, signal.SIGKILL)
                    return
            time.sleep(0.1)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    assert services.experiment_execute(experiment_id=exp.pk, token="t") == "failed"
    thread.join(5)
    exp.refresh_from_db()
    assert exp.status == "failed" and exp.error == EXTERNAL_KILL, exp.error


@pytest.mark.django_db(transaction=True)
def test_a_cancelled_run_stops_at_the_next_poll_and_stays_cancelled(alice, media_root):
    from tests.integration.run_control import LONG_PARAMS

    trace = stored_trace(alice, jobs=2000, procs=128)
    exp = services.experiment_new(
        owner=alice, kind="provisioning", params=LONG_PARAMS, inputs=services.RunInputs.of([trace])
    )
    cancelled_at = []

    def cancel_soon():
        time.sleep(2.0)
        try:
            services.experiment_cancel(experiment=Experiment.objects.get(pk=exp.pk))
            cancelled_at.append(time.monotonic())
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=cancel_soon, daemon=True)
    thread.start()
    assert services.experiment_execute(experiment_id=exp.pk, token="t") == "cancelled"
    stopped = time.monotonic()
    thread.join(5)
    assert stopped - cancelled_at[0] < services.STOP_POLL_S + 3
    exp.refresh_from_db()
    assert exp.status == "cancelled" and exp.result is None


# Fair dispatch --------------------------------------------------------------------------------


@pytest.fixture
def published(monkeypatch):
    sent: list[int] = []
    monkeypatch.setattr(
        services, "experiment_enqueue", lambda *, experiment_id: sent.append(experiment_id)
    )
    return sent


def new_runs(owner, trace, n: int) -> list[int]:
    return [
        services.experiment_new(
            owner=owner,
            kind="trace-stats",
            params={"cdf_points": 1000 + i},
            inputs=services.RunInputs.of([trace]),
        ).pk
        for i in range(n)
    ]


@pytest.mark.django_db
def test_dispatch_takes_turns_fewest_in_flight_first_oldest_first(
    alice, bob, media_root, settings, published
):
    settings.GRIDPORTAL_USER_MAX_RUNNING = 2
    a = new_runs(alice, stored_trace(alice), 5)
    b = new_runs(bob, stored_trace(bob), 3)
    assert services.experiments_dispatch() == {"enqueued": 4, "held": 0}
    assert published == [a[0], b[0], a[1], b[1]]  # turns; alice's oldest run is older
    assert services.experiments_dispatch()["enqueued"] == 0  # both at their limit
    # one of bob's finishes: bob's next goes, alice still waits
    Experiment.objects.filter(pk=b[0]).update(status="succeeded")
    services.experiments_dispatch()
    assert published[4:] == [b[2]]
    # a published run that waits for a worker counts as in flight; running ones too
    Experiment.objects.filter(pk=a[0]).update(status="running")
    assert services.experiments_dispatch()["enqueued"] == 0
    # a user with none in flight goes before one with one in flight, even if the other's
    # held run is older; then the oldest first
    Experiment.objects.filter(pk__in=[a[0], a[1], b[1]]).update(status="succeeded")
    c = new_runs(bob, stored_trace(bob), 1)
    Experiment.objects.filter(pk=c[0]).update(created=Experiment.objects.get(pk=a[0]).created)
    services.experiments_dispatch()
    assert published[5:] == [a[2], c[0], a[3]]  # alice 0 in flight, bob 1 (b[2])
    assert len(published) == len(set(published))  # never a run twice


@pytest.mark.django_db
def test_a_users_own_quota_overrides_the_default(alice, bob, media_root, settings, published):
    settings.GRIDPORTAL_USER_MAX_RUNNING = 1
    UserQuota.objects.create(user=alice, max_running=3)
    UserQuota.objects.create(user=bob, max_running=0)  # no limit
    new_runs(alice, stored_trace(alice), 5)
    new_runs(bob, stored_trace(bob), 4)
    assert services.experiments_dispatch()["enqueued"] == 3 + 4


@pytest.mark.django_db
def test_held_runs_say_why_and_where_and_are_no_orphans(
    alice, media_root, settings, published, django_capture_on_commit_callbacks, monkeypatch
):
    settings.GRIDPORTAL_USER_MAX_RUNNING = 2
    api = APIClient()
    api.force_authenticate(alice)
    trace = stored_trace(alice)
    with django_capture_on_commit_callbacks(execute=True):
        resp = api.post(
            "/api/sweeps/",
            {
                "kind": "trace-stats",
                "traces": [trace.pk],
                "vary": [{"param": "cdf_points", "values": [10, 20, 30, 40, 50]}],
            },
            format="json",
        )
    assert resp.status_code == 201, resp.content
    assert len(published) == 2
    rows = api.get("/api/experiments/?ordering=created&page_size=50").json()["results"]
    held = [r for r in rows if r["queue_place"]]
    assert sorted(r["queue_place"] for r in held) == [1, 2, 3]
    assert all(r["message"].startswith("held: you have 2 runs in flight") for r in held), held
    quota = api.get("/api/quota/").json()
    assert quota["runs_in_flight"] == 2 and quota["runs_held"] == 3 and quota["runs_queued"] == 5
    assert quota["max_runs_in_flight"] == 2
    # the sweeper: held runs are not orphans (never published past the limit by it)
    monkeypatch.setattr(services, "_messages_in_broker", lambda: set(published))
    monkeypatch.setattr(services, "_worker_run_ids", lambda timeout: set())
    counts = services.experiment_sweep_stale(grace_s=0, inspect_timeout=0.1)
    assert counts["enqueued"] == 0 and counts["orphans"] == 0, counts
    # a published run whose message is lost is one, and is sent again (still in flight)
    monkeypatch.setattr(services, "_messages_in_broker", lambda: set(published[1:2]))
    counts = services.experiment_sweep_stale(grace_s=0, inspect_timeout=0.1)
    assert counts["orphans"] == 1 and published[-1] == published[0], counts
    assert services.held_runs().filter(owner=alice).count() == 3
    # a run ends: the sweeper (or the worker) publishes the next held one, place 1
    first_held = next(r["id"] for r in held if r["queue_place"] == 1)
    Experiment.objects.filter(pk=published[0]).update(status="succeeded")
    assert services.experiment_sweep_stale(grace_s=3600)["enqueued"] == 1
    assert published[-1] == first_held
    # a page shows the share too
    page = APIClient()
    page.force_login(alice)
    text = page.get("/experiments/").content.decode()
    assert 'id="quota"' in text and "2</strong> runs in flight (limit 2)" in text


@pytest.mark.django_db
def test_cancelling_or_deleting_frees_a_turn(
    alice, media_root, settings, published, django_capture_on_commit_callbacks
):
    settings.GRIDPORTAL_USER_MAX_RUNNING = 1
    runs = new_runs(alice, stored_trace(alice), 3)
    services.experiments_dispatch()
    assert published == [runs[0]]
    with django_capture_on_commit_callbacks(execute=True):
        services.experiment_cancel(experiment=Experiment.objects.get(pk=runs[0]))
    assert published == runs[:2]
    with django_capture_on_commit_callbacks(execute=True):
        services.experiment_delete(experiment=Experiment.objects.get(pk=runs[1]))
    assert published == runs


# Quotas at the door ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_oversized_sweep_is_refused_naming_the_limit_and_nothing_is_saved(
    alice, media_root, settings, published, django_capture_on_commit_callbacks
):
    settings.GRIDPORTAL_USER_MAX_QUEUED = 10
    api = APIClient()
    api.force_authenticate(alice)
    trace = stored_trace(alice)
    new_runs(alice, trace, 4)  # 4 queued already
    before = Experiment.objects.count()
    body = {
        "kind": "trace-stats",
        "traces": [trace.pk],
        "vary": [{"param": "cdf_points", "range": {"start": 10, "stop": 70, "step": 10}}],
    }
    with django_capture_on_commit_callbacks(execute=True):
        resp = api.post("/api/sweeps/", body, format="json")
    assert resp.status_code == 400, resp.content
    message = resp.json()["quota"][0]
    assert "this submits 7 runs and you have 4 queued; the limit is 10 queued runs" in message
    assert Sweep.objects.count() == 0 and Experiment.objects.count() == before
    assert published == []
    # within the limit it goes (6 more: 10)
    body["vary"][0]["range"]["stop"] = 60
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post("/api/sweeps/", body, format="json").status_code == 201
    # one more single run is refused too, naming the limit
    resp = api.post(
        "/api/experiments/", {"kind": "trace-stats", "traces": [trace.pk]}, format="json"
    )
    assert resp.status_code == 400 and "limit is 10 queued runs" in resp.json()["quota"][0]


@pytest.mark.django_db
def test_the_storage_quota_refuses_uploads_and_submits_naming_it(alice, media_root, settings):
    api = APIClient()
    api.force_authenticate(alice)
    content = make_swf_bytes(jobs=300, procs=64, seed=3)
    settings.GRIDPORTAL_USER_STORAGE_BYTES = len(content) + 100
    upload = {"file": SimpleUploadedFile("a.swf", content)}
    resp = api.post("/api/traces/", upload, format="multipart")
    assert resp.status_code == 201, resp.content
    trace_id = resp.json()["id"]
    resp = api.post(
        "/api/traces/", {"file": SimpleUploadedFile("b.swf", content)}, format="multipart"
    )
    assert resp.status_code == 400, resp.content
    message = resp.json()["file"][0]
    assert "would pass your storage quota of" in message and "you store" in message, message
    assert Trace.objects.filter(owner=alice).count() == 1
    # a staff override lifts it; a full quota refuses a submit (results would grow it)
    UserQuota.objects.create(user=alice, storage_bytes=len(content))
    resp = api.post("/api/experiments/", {"kind": "trace-stats", "traces": [trace_id]}, "json")
    assert resp.status_code == 400 and "is used up" in resp.json()["quota"][0]
    assert Experiment.objects.count() == 0
    UserQuota.objects.filter(user=alice).update(storage_bytes=0)  # 0: no limit
    resp = api.post("/api/experiments/", {"kind": "trace-stats", "traces": [trace_id]}, "json")
    assert resp.status_code == 201, resp.content
    quota = api.get("/api/quota/").json()
    assert quota["storage_by_kind"]["traces"] == len(content) and quota["storage_quota"] is None
