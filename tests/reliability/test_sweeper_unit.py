"""The sweeper's and the submit path's rules, in-process (the real processes are in the other
modules of this package): a run is never left queued without a task nor running forever."""

import pytest
from kombu.exceptions import OperationalError

from gridportal.experiments import services
from gridportal.experiments.models import Experiment
from tests.portal.factories import stored_trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker_down(monkeypatch):
    def refuse(*, experiment_id):
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(services, "experiment_enqueue", refuse)


def test_submit_with_the_broker_down_holds_the_run_with_a_message(
    alice, media_root, broker_down, django_capture_on_commit_callbacks
):
    trace = stored_trace(alice)
    with django_capture_on_commit_callbacks(execute=True):
        exp = services.experiment_create(owner=alice, kind="trace-stats", params={}, traces=[trace])
    assert exp.message.startswith(services.NOT_ENQUEUED) and "Connection refused" in exp.message
    exp.refresh_from_db()
    assert exp.status == "queued" and exp.message.startswith(services.NOT_ENQUEUED)
    # the sweeper cannot enqueue it either while the broker is down, and says so
    assert services.experiment_sweep_stale()["held"] == 1


def test_sweeper_enqueues_held_runs_once_the_broker_is_back(alice, media_root, monkeypatch):
    trace = stored_trace(alice)
    exp = services.experiment_new(
        owner=alice, kind="trace-stats", params={}, inputs=services.RunInputs.of([trace])
    )
    services.experiments_hold(ids=[exp.pk], reason="test")
    sent = []
    monkeypatch.setattr(
        services, "experiment_enqueue", lambda *, experiment_id: sent.append(experiment_id)
    )
    assert services.experiment_sweep_stale()["enqueued"] == 1
    assert sent == [exp.pk]
    exp.refresh_from_db()
    assert exp.message == "queued"
    assert services.experiment_sweep_stale()["enqueued"] == 0  # not twice


def test_running_run_whose_worker_is_gone_is_requeued_then_failed(alice, media_root, monkeypatch):
    trace = stored_trace(alice)
    exp = services.experiment_new(
        owner=alice, kind="trace-stats", params={}, inputs=services.RunInputs.of([trace])
    )
    sent = []
    monkeypatch.setattr(
        services, "experiment_enqueue", lambda *, experiment_id: sent.append(experiment_id)
    )
    monkeypatch.setattr(services, "_active_run_ids", lambda timeout: set())
    for loss in (1, 2):
        Experiment.objects.filter(pk=exp.pk).update(status="running", started_at=exp.created)
        counts = services.experiment_sweep_stale(grace_s=0)
        assert counts["requeued"] == 1, counts
        exp.refresh_from_db()
        assert exp.status == "queued" and exp.snapshot["worker_losses"] == loss
    Experiment.objects.filter(pk=exp.pk).update(status="running", started_at=exp.created)
    assert services.experiment_sweep_stale(grace_s=0)["failed"] == 1
    exp.refresh_from_db()
    assert exp.status == "failed" and "stopped 3 times" in exp.error and exp.finished_at
    assert sent == [exp.pk, exp.pk]


def test_running_run_a_live_worker_has_is_left_alone(alice, media_root, monkeypatch):
    trace = stored_trace(alice)
    exp = services.experiment_new(
        owner=alice, kind="trace-stats", params={}, inputs=services.RunInputs.of([trace])
    )
    Experiment.objects.filter(pk=exp.pk).update(status="running", started_at=exp.created)
    monkeypatch.setattr(services, "_active_run_ids", lambda timeout: {exp.pk})
    assert services.experiment_sweep_stale(grace_s=0)["running_alive"] == 1
    assert Experiment.objects.get(pk=exp.pk).status == "running"


def test_a_run_that_keeps_killing_its_worker_is_failed_on_redelivery(alice, media_root):
    """acks_late + reject_on_worker_lost re-deliver a run whose worker died at once; a run
    that kills every worker (out of memory) must not come back forever."""
    trace = stored_trace(alice)
    exp = services.experiment_new(
        owner=alice, kind="trace-stats", params={}, inputs=services.RunInputs.of([trace])
    )
    Experiment.objects.filter(pk=exp.pk).update(status="running", snapshot={"worker_losses": 2})
    assert services.experiment_execute(experiment_id=exp.pk) == "failed"
    exp.refresh_from_db()
    assert exp.snapshot["worker_losses"] == 3 and "stopped 3 times" in exp.error
    # one loss only: the re-delivered run is taken again and finishes
    again = services.experiment_new(
        owner=alice, kind="trace-stats", params={}, inputs=services.RunInputs.of([trace])
    )
    Experiment.objects.filter(pk=again.pk).update(status="running")
    assert services.experiment_execute(experiment_id=again.pk) == "succeeded"
    assert Experiment.objects.get(pk=again.pk).snapshot["worker_losses"] == 1
