"""The replay index: the state at any instant of a site's replay, read from one full
run, equals the live simulator's at that instant — quotes and prediction history alike."""

from __future__ import annotations

import random

import pytest

from scheduler.cluster import prepare_jobs
from scheduler.cluster.replay import build_index, load_index
from scheduler.cluster.simulator import Simulator
from scheduler.pricing.price import SiteQuote
from scheduler.pricing.site import quote_at
from scheduler.reservations.history import SiteHistory
from scheduler.reservations.predictor import WaitPredictor
from scheduler.traces.lublin import generate_lublin99


class _Recorder(WaitPredictor):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, int, int]] = []

    def add(self, procs, estimate, wait):  # type: ignore[no-untyped-def]
        self.seen.append((procs, estimate, wait))
        super().add(procs, estimate, wait)


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_index_state_equals_the_live_simulation(policy, seed):
    trace = generate_lublin99(jobs=700, procs=64, seed=seed)
    jobs, _ = prepare_jobs(trace.jobs, 64, "requested")
    index = build_index(jobs, 64, policy)
    rng = random.Random(seed)
    for _ in range(12):
        t = rng.randint(index.origin, index.last_submit)
        sim = Simulator(jobs, 64, policy)
        sim.run(until=t)
        assert index.queued(t).tolist() == sim.queued()
        assert len(index.running(t)) == sim.running_count()
        live = SiteQuote.of(sim, t)
        fast = SiteQuote(index.base_profile(t), index.queued_shapes(t), t, policy)
        page = quote_at(index, t)  # a site page's: the queue as two lists, shapes when asked
        assert index.base_profile(t) == live.base == page.base
        procs, durs = index.queued_lists(t)
        assert list(zip(procs, durs, strict=True)) == live.shapes == index.queued_shapes(t)
        for n, d in ((1, 600), (16, 3600), (48, 7200), (64, 100)):
            want = [(o.start, o.f) for o in live.options(n, d)]
            assert [(o.start, o.f) for o in fast.options(n, d)] == want
            assert [(o.start, o.f) for o in page.options(n, d)] == want
        assert page.shapes == fast.shapes == live.shapes and page.starts == live.starts
        recorder = _Recorder()
        SiteHistory(sim, recorder).sync()
        assert index.started_by(t) == recorder.seen


@pytest.mark.parametrize("seed", [1, 2])
def test_running_and_queued_look_only_at_jobs_that_may_be_but_find_them_all(seed):
    # (running and waiting jobs are looked for from t less the longest run, and
    # from t less the longest wait, not in the whole trace)
    import numpy as np

    trace = generate_lublin99(jobs=900, procs=64, seed=seed)
    jobs, _ = prepare_jobs(trace.jobs, 64, "requested")
    index = build_index(jobs, 64, "easy")
    instants = set()
    for a in (index.submit, index.start, index.end):
        for v in a.tolist():
            instants.update((v - 1, v, v + 1))
    for t in sorted(instants)[::3]:
        hi = int(np.searchsorted(index.submit, t, side="right"))
        start, end = index.start[:hi], index.end[:hi]
        assert index.running(t).tolist() == np.flatnonzero((start <= t) & (end > t)).tolist()
        assert index.queued(t).tolist() == np.flatnonzero(start > t).tolist()


def test_save_and_load_round_trip(tmp_path):
    jobs, _ = prepare_jobs(generate_lublin99(jobs=200, procs=32, seed=5).jobs, 32, "accurate")
    index = build_index(jobs, 32, "easy")
    path = tmp_path / "idx" / "site.npz"
    index.save(path)
    back = load_index(path)
    assert back is not None and back.policy == "easy" and back.capacity == 32
    t = (index.origin + index.last_submit) // 2
    assert back.queued_shapes(t) == index.queued_shapes(t)
    assert back.base_profile(t) == index.base_profile(t)
    path.write_bytes(b"not an npz")
    assert load_index(path) is None and load_index(tmp_path / "missing.npz") is None


@pytest.mark.parametrize("policy", ["fairshare", "backfill-k=3"])
def test_predictions_index_any_policy_of_the_simulator(policy):
    """Quotes need fcfs/easy/conservative; the waits a prediction learns from need only the
    starts, so fair share and reservation depth K are indexed too."""
    jobs, _ = prepare_jobs(generate_lublin99(jobs=400, procs=32, seed=4).jobs, 32, "requested")
    index = build_index(jobs, 32, policy)
    t = (index.origin + index.last_submit) // 2
    sim = Simulator(jobs, 32, policy)
    sim.run(until=t)
    recorder = _Recorder()
    SiteHistory(sim, recorder).sync()
    assert index.started_by(t) == recorder.seen and index.queued(t).tolist() == sim.queued()
    with pytest.raises(ValueError, match="unknown policy"):
        build_index(jobs, 32, "no-such-policy")


def test_a_second_request_at_an_instant_reuses_its_plan():
    """The plan at an instant does not depend on the request: the index keeps the last few
    site states (least recently used dropped first), and answers from a kept state equal
    those of a fresh one."""
    from scheduler.pricing.site import STATES_KEPT, price_list, state_at

    jobs, _ = prepare_jobs(generate_lublin99(jobs=500, procs=32, seed=6).jobs, 32, "requested")
    index = build_index(jobs, 32, "conservative")
    span_h = (index.last_submit - index.origin) / 3600
    hours = [span_h * k / (STATES_KEPT + 2) for k in range(1, STATES_KEPT + 2)]
    first = state_at(index, hours[0])
    assert state_at(index, hours[0]) is first
    answer = price_list(first, 8, 3600)
    assert price_list(state_at(index, hours[0]), 8, 3600) == answer
    assert price_list(state_at(index, hours[0]), 16, 7200) != answer
    for h in hours[1:]:  # STATES_KEPT other instants push the first one out
        assert state_at(index, h) is not first
    again = state_at(index, hours[0])
    assert again is not first and price_list(again, 8, 3600) == answer
    assert len(index._memo) == STATES_KEPT
    fresh = SiteQuote(index.base_profile(again.at), index.queued_shapes(again.at), again.at,
                      "conservative")  # fmt: skip
    assert [(o.start, o.delay) for o in fresh.options(8, 3600)] == [
        (o.start, o.delay) for o in again.quote.options(8, 3600)
    ]


def test_derived_arrays_are_kept_beside_the_index_file(tmp_path):
    """What is derived from the whole index is built once: kept in memory, written beside the
    index's file, read back by another process's load — and rebuilt when the file beside it
    belongs to another replay."""
    import numpy as np

    jobs, _ = prepare_jobs(generate_lublin99(jobs=300, procs=32, seed=7).jobs, 32, "requested")
    index = build_index(jobs, 32, "easy")
    builds = []

    def build(ix):  # type: ignore[no-untyped-def]
        def make():  # type: ignore[no-untyped-def]
            builds.append(ix)
            return {"starts": np.sort(ix.start), "n": np.array(len(ix.start))}

        return make

    memory = index.derived("sorted-starts", build(index))
    assert index.derived("sorted-starts", build(index)) is memory and len(builds) == 1
    assert list(tmp_path.iterdir()) == []  # no file: memory only
    path = tmp_path / "site.npz"
    index.save(path)
    back = load_index(path)
    first = back.derived("sorted-starts", build(back))
    assert len(builds) == 2 and (tmp_path / "site.npz.sorted-starts.npz").exists()
    again = load_index(path)
    read = again.derived("sorted-starts", build(again))
    assert len(builds) == 2  # read, not rebuilt
    assert (read["starts"] == first["starts"]).all() and int(read["n"]) == len(index.start)
    other = build_index(jobs, 32, "fcfs")  # another replay saved at the same path
    other.save(path)
    mine = load_index(path).derived("sorted-starts", build(other))
    assert len(builds) == 3 and (mine["starts"] == np.sort(other.start)).all()
