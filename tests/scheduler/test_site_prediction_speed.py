"""Predictions from checkpoints: restoring the predictor's last checkpoint before an
instant and adding the starts since gives exactly the predictor of a replay of every start —
every class's waits, runs of misses and change points — and so the same answers, at any
instant and confidence; a request adds fewer waits than the checkpoint spacing."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scheduler.cluster import prepare_jobs
from scheduler.cluster.replay import build_index, load_index
from scheduler.reservations import site
from scheduler.reservations.predictor import WaitPredictor
from scheduler.reservations.site import (
    CHECKPOINT_EVERY,
    predict_at,
    predictor_at,
    wait_checkpoints,
)
from scheduler.traces.lublin import generate_lublin99

HOUR = 3600


@pytest.fixture(scope="module")
def index():
    trace = generate_lublin99(jobs=2500, procs=64, seed=3)
    jobs, _ = prepare_jobs(trace.jobs, 64, "requested")
    return build_index(jobs, 64, "easy")


def _plain(index, t, confidence):  # type: ignore[no-untyped-def]
    """The predictor fed every start at or before ``t``, one by one (no checkpoint)."""
    predictor = WaitPredictor(confidence=confidence)
    for row in index.started_by(t):
        predictor.add(*row)
    return predictor


def _state(predictor):  # type: ignore[no-untyped-def]
    pools = [(list(p.recent), list(p.sorted), p.misses, p.changes) for p in predictor.pools()]
    return pools, predictor.size


def _instants(index, k, seed):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    ts = [rng.randint(index.origin, int(index.end.max())) for _ in range(k)]
    return ts + [index.origin, int(index._by_start[1][-1])]  # first submission, last start


@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.99])
@pytest.mark.parametrize("every", [1, 7, 100, CHECKPOINT_EVERY])
def test_checkpointed_predictor_is_the_plain_replay(index, confidence, every):
    changes = 0
    for t in _instants(index, 25, seed=every):
        plain = _plain(index, t, confidence)
        assert _state(predictor_at(index, t, confidence, every)) == _state(plain)
        changes = max(changes, plain.changes())
    assert changes > 0  # the trace has change points: trimmed histories are restored too


@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_predictions_are_those_of_the_plain_replay(index, monkeypatch, confidence):
    span_h = (index.last_submit - index.origin) / HOUR
    rng = random.Random(11)
    hours = [rng.uniform(0.5, span_h) for _ in range(15)] + [span_h]
    shapes = [(1, 600), (8, HOUR), (40, 10 * HOUR), (64, 30 * HOUR)]
    fast = [predict_at(index, h, n, r, confidence=confidence) for h in hours for n, r in shapes]
    monkeypatch.setattr(site, "predictor_at", lambda ix, t, c: _plain(ix, t, c))
    plain = [predict_at(index, h, n, r, confidence=confidence) for h in hours for n, r in shapes]
    assert fast == plain


def _count_adds(monkeypatch):  # type: ignore[no-untyped-def]
    calls = [0]
    add = WaitPredictor.add

    def counted(self, *args):  # type: ignore[no-untyped-def]
        calls[0] += 1
        add(self, *args)

    monkeypatch.setattr(WaitPredictor, "add", counted)
    return calls


def test_a_request_adds_fewer_waits_than_the_checkpoint_spacing(index, monkeypatch):
    wait_checkpoints(index)  # built once (a full replay), not per request
    calls = _count_adds(monkeypatch)
    late = (index.last_submit - index.origin) / HOUR
    for h in (late / 3, late / 2, late):
        calls[0] = 0
        out = predict_at(index, h, 8, HOUR)
        assert 0 <= calls[0] < CHECKPOINT_EVERY
        assert out["summary"]["history_total"] > CHECKPOINT_EVERY  # restored, not replayed


def test_checkpoints_are_kept_beside_the_index_file(index, tmp_path, monkeypatch):
    path = tmp_path / "site.npz"
    replace(index).save(path)  # a copy: the module's index keeps no file
    first = load_index(path)
    t = int(index._by_start[1][-1])
    built = wait_checkpoints(first, 0.9)
    assert sorted(tmp_path.glob("site.npz.wait-checkpoints-*")) != []
    calls = _count_adds(monkeypatch)
    again = load_index(path)  # a fresh process: reads the checkpoints, replays nothing
    read = wait_checkpoints(again, 0.9)
    assert calls[0] == 0
    assert all((read[k] == built[k]).all() for k in built)
    assert _state(predictor_at(again, t, 0.9)) == _state(_plain(index, t, 0.9))
