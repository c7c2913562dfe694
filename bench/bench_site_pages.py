"""Benchmark: the site page's "Price a reservation" and "When would my job start?" (targets:
each ≤ 0.3 s at any instant of a whole archive trace; quote p99 ≤ 10 ms at 200+ queued jobs).

    .venv/bin/python bench/bench_site_pages.py [--trace FILE] [--procs N] [--policy P]
        [--instants K] [--before K] [--deep K] [--before-rev REV] [--predict-rev REV]
        [--fresh K]

Side by side, in one run, on the same instants of the whole trace (requested estimates):

* **before** — what a request did until now: replay the trace up to the instant
  (``Simulator.run(until=t)``), then quote (query 18 for 32 processors × 2 h) or feed the
  predictor the waits seen so far and predict (8 processors × 1 h);
* **after** — what a request does now: read the site's replay index from its ``.npz`` file
  (as a fresh process, or a forked child under the web limits, does), take the state at the
  instant (:mod:`scheduler.cluster.replay`) and quote / predict.  Building the index (one full
  replay, once per trace × site size × policy × estimates) is printed apart.

Then, on the index state in hand, quote and prediction against the queue length at the
instant — median / p95 / p99 / max by class (0–49, 50–199 and 200+ queued jobs; ``--deep K``
adds K instants drawn among those with 200+ queued, so that class has a p99) — before (the
code of commit ``--before-rev``, loaded from git: the quote's re-plan through the profile's
methods and the EASY planner rescanning the queue job by job; the prediction of commit
``--predict-rev``, replaying every start) and after (the re-plan kernel
:func:`scheduler.pricing._replan.delays`, compiled when a build exists — the engine modules'
status is printed first —, EASY by the depth-K kernel at K = 1; the prediction from the last
checkpoint), with a check that both
give the same option lists and the same predictions.  Then a second request at the same
instant (another size; the plan is kept in the index, :meth:`ReplayIndex.remember`).
``--procs 338`` gives deep queues (200+ queued jobs).

Predictions "from the index" are timed twice: replaying every start before the instant into a
fresh predictor (the code of ``--predict-rev``, loaded from git) and restoring the predictor's
last checkpoint (:func:`scheduler.reservations.site.wait_checkpoints`, read from its sidecar
file as a fresh process does) then adding the few starts since — with a check that both give
identical predictions at every instant; and for the ``--fresh`` latest instants, once more
each in a fresh process (imports done but nothing cached: the predictor's bound cache cold).
CPU seconds (the machine may be shared); nothing is asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler._native import status as native_status  # noqa: E402
from scheduler.cluster import prepare_jobs  # noqa: E402
from scheduler.cluster.replay import build_index, load_index  # noqa: E402
from scheduler.cluster.simulator import Simulator  # noqa: E402
from scheduler.io import load_trace  # noqa: E402
from scheduler.pricing.price import SiteQuote  # noqa: E402
from scheduler.pricing.site import price_list, state_at  # noqa: E402
from scheduler.reservations.history import SiteHistory  # noqa: E402
from scheduler.reservations.predictor import WaitPredictor  # noqa: E402
from scheduler.reservations.site import QUANTILES, predict_at, wait_checkpoints  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "traces"
HOUR = 3600
BEFORE_REV = "4ffa5c3"  # the last commit before the re-plan kernel
PREDICT_REV = "15c013e"  # the last commit before the predictor's checkpoints
CLASSES = ((200, "200+"), (50, "50-199"), (0, "0-49"))


def _old_module(rev: str, path: str, name: str):  # type: ignore[no-untyped-def]
    """The module ``path`` as it was at commit ``rev``, imported beside today's package."""
    src = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(name, fh.name)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    Path(fh.name).unlink()
    return module


#: one prediction in a fresh process (argv: root, index dir, "plain" or "checkpoint", hours):
#: the CPU seconds of loading the index and predicting, imports excluded
_FRESH = """
import importlib.util, sys, time
root, tmp, mode, h = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
sys.path.insert(0, root)
from scheduler.cluster.replay import load_index
from scheduler.reservations import site
if mode == "plain":
    mods = {}
    for name in ("predictor", "site"):
        spec = importlib.util.spec_from_file_location(
            "scheduler.reservations._plain_" + name, tmp + "/plain_" + name + ".py")
        mods[name] = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[name])
    mods["site"].WaitPredictor = mods["predictor"].WaitPredictor
    predict_at = mods["site"].predict_at
else:
    predict_at = site.predict_at
t = time.process_time()
predict_at(load_index(tmp + "/site.npz"), h, 8, 3600)
print(time.process_time() - t)
"""


def _pcts(values: list[float]) -> str:
    v = sorted(values)

    def at(p: float) -> float:
        return v[min(len(v) - 1, round(p * (len(v) - 1)))] * 1e3

    return (f"median {statistics.median(v) * 1e3:7.2f}  p95 {at(0.95):7.2f}  p99 {at(0.99):7.2f}"
            f"  max {v[-1] * 1e3:7.2f} ms")  # fmt: skip


def _stats(values: list[float]) -> str:
    v = sorted(values)
    p99 = v[min(len(v) - 1, round(0.99 * (len(v) - 1)))]
    med = statistics.median(v)
    return f"median {med * 1e3:8.2f} ms  p99 {p99 * 1e3:8.2f} ms  max {v[-1] * 1e3:8.2f} ms"


def cpu(fn, *args):  # type: ignore[no-untyped-def]
    t = time.process_time()
    out = fn(*args)
    return time.process_time() - t, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default=str(DATA / "CTC-SP2-1996-3.1-cln.swf.gz"))
    ap.add_argument("--procs", type=int, default=430)
    ap.add_argument("--policy", default="conservative")
    ap.add_argument("--instants", type=int, default=200)
    ap.add_argument("--before", type=int, default=12, help="instants timed the old way")
    ap.add_argument("--deep", type=int, default=40, help="instants drawn among 200+ queued")
    ap.add_argument("--before-rev", default=BEFORE_REV, help="commit of the 'before' code")
    ap.add_argument("--fresh", type=int, default=6,
                    help="latest instants predicted again, each in a fresh process")  # fmt: skip
    ap.add_argument("--predict-rev", default=PREDICT_REV,
                    help="commit of the plain-replay prediction code")  # fmt: skip
    args = ap.parse_args()
    # the prediction as of --predict-rev: its site.py and predictor.py, loaded from git
    plain_site = _old_module(args.predict_rev, "scheduler/reservations/site.py",
                             "scheduler.reservations._site_plain")  # fmt: skip
    plain_site.WaitPredictor = _old_module(
        args.predict_rev, "scheduler/reservations/predictor.py",
        "scheduler.reservations._predictor_plain",
    ).WaitPredictor  # fmt: skip
    trace = load_trace(args.trace)
    jobs, _ = prepare_jobs(trace.jobs, args.procs, "requested")
    print(f"{Path(args.trace).name}: {len(jobs):,} jobs on {args.procs} processors, "
          f"{args.policy}, requested estimates")  # fmt: skip
    print("engine modules: " + ", ".join(f"{k} {v}" for k, v in sorted(native_status().items())))
    build_s, index = cpu(build_index, jobs, args.procs, args.policy)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "site.npz"
        index.save(path)
        size = path.stat().st_size
        load_s = min(cpu(load_index, path)[0] for _ in range(5))
        print(f"index: built once in {build_s:.2f} s CPU (one full replay); {size / 2**20:.1f} MiB "
              f"on disk; loaded in {load_s * 1e3:.1f} ms")  # fmt: skip
        cp_s, cps = cpu(wait_checkpoints, load_index(path))
        side = sorted(Path(tmp).glob("site.npz.wait-checkpoints-*.npz"))
        side_kib = sum(f.stat().st_size for f in side) / 1024
        print(f"predictor checkpoints: built once in {cp_s:.2f} s CPU (one full replay into the "
              f"predictor), every {int(cps['every'])} starts, {len(cps['state'])} of them, "
              f"{side_kib:.0f} KiB beside the index")  # fmt: skip
        plain_p: list[float] = []
        same_plain = True
        span_h = (index.last_submit - index.origin) / HOUR
        rng = random.Random(7)
        instants = sorted(rng.uniform(0, span_h) for _ in range(args.instants))

        old_q, old_p, new_q, new_p = [], [], [], []
        for h in rng.sample(instants, min(args.before, len(instants))):
            at = index.origin + int(round(h * HOUR))

            def replay_quote(at=at):  # type: ignore[no-untyped-def]
                sim = Simulator(jobs, args.procs, args.policy)
                sim.run(until=at)
                return SiteQuote.of(sim, at).options(32, 2 * HOUR)

            def replay_predict(at=at):  # type: ignore[no-untyped-def]
                sim = Simulator(jobs, args.procs, args.policy)
                sim.run(until=at)
                p = WaitPredictor()
                SiteHistory(sim, p).sync()
                return p.predict(8, HOUR, QUANTILES)

            old_q.append(cpu(replay_quote)[0])
            old_p.append(cpu(replay_predict)[0])
        for h in instants:

            def quote(h=h):  # type: ignore[no-untyped-def]
                return price_list(state_at(load_index(path), h), 32, 2 * HOUR)

            def predict(h=h):  # type: ignore[no-untyped-def]
                return predict_at(load_index(path), h, 8, HOUR)

            def predict_plain(h=h):  # type: ignore[no-untyped-def]
                return plain_site.predict_at(load_index(path), h, 8, HOUR)

            new_q.append(cpu(quote)[0])
            dt, pred_new = cpu(predict)
            new_p.append(dt)
            dt, pred_plain = cpu(predict_plain)
            plain_p.append(dt)
            same_plain = same_plain and pred_new == pred_plain
        fresh = {"plain": [], "checkpoint": []}  # type: dict[str, list[float]]
        for rev, name in ((args.predict_rev, "site"), (args.predict_rev, "predictor")):
            src = subprocess.run(["git", "-C", str(ROOT), "show",
                                  f"{rev}:scheduler/reservations/{name}.py"],
                                 capture_output=True, text=True, check=True).stdout  # fmt: skip
            (Path(tmp) / f"plain_{name}.py").write_text(src)
        for h in instants[-args.fresh :] if args.fresh else []:
            for mode in fresh:
                out = subprocess.run(
                    [sys.executable, "-c", _FRESH, str(ROOT), tmp, mode, repr(h)],
                    capture_output=True, text=True, check=True,
                ).stdout  # fmt: skip
                fresh[mode].append(float(out))
    print(f"{'':28}{'quote (32 p x 2 h)':>56}   prediction (8 p x 1 h)")
    print(f"before (replay, {len(old_q):3} instants) {_stats(old_q)}   {_stats(old_p)}")
    print(f"after  (index,  {len(new_q):3} instants) {_stats(new_q)}   {_stats(new_p)}")
    print(f"{'prediction, plain replay of every start (' + args.predict_rev + ')':>84}   "
          f"{_stats(plain_p)}")  # fmt: skip
    print(f"{'prediction, from the last checkpoint (this tree)':>84}   {_stats(new_p)}")
    print(f"identical predictions, checkpointed vs plain replay, at all {len(new_p)} instants: "
          f"{same_plain}")  # fmt: skip
    if args.fresh:
        print(f"prediction in a fresh process (imports done, nothing cached; the {args.fresh} "
              "latest instants):")  # fmt: skip
        print(f"{'plain replay (' + args.predict_rev + ')':>84}   {_stats(fresh['plain'])}")
        print(f"{'from the last checkpoint (this tree)':>84}   {_stats(fresh['checkpoint'])}")
    rq = statistics.median(new_q) / statistics.median(old_q)
    rp = statistics.median(new_p) / statistics.median(old_p)
    print(f"ratio of medians after/before: quote {rq:.4f}, prediction {rp:.4f}")

    # quote and prediction on the index state, by queue length, side by side: the code of
    # --before-rev (loaded from git) and today's
    old_price = _old_module(args.before_rev, "scheduler/pricing/price.py",
                            "scheduler.pricing._price_before")  # fmt: skip
    old_plan = _old_module(args.before_rev, "scheduler/pricing/plan.py",
                           "scheduler.pricing._plan_before")  # fmt: skip
    old_price.plan_queue, old_price.PLANNERS = old_plan.plan_queue, old_plan.PLANNERS  # EASY too
    hours = list(instants)
    if args.deep:  # the queue length at every submission: known minus started by then
        subs = np.unique(index.submit)
        started = np.sort(index.start[index.start >= 0])
        queued = np.searchsorted(index.submit, subs, "right") - np.searchsorted(
            started, subs, "right"
        )
        deep = subs[queued >= 200]
        if len(deep):
            picks = sorted(rng.sample(deep.tolist(), min(args.deep, len(deep))))
            hours += [(t - index.origin) / HOUR for t in picks]
        print(f"instants with 200+ queued jobs: {len(deep):,} of {len(subs):,} submissions; "
              f"{min(args.deep, len(deep))} of them added")  # fmt: skip
    wait_checkpoints(index)  # built once per index (printed above), not per request
    rows: dict[str, dict[str, list[float]]] = {}
    same_q = same_p = True
    second = []
    for h in hours:
        at = index.origin + int(round(h * HOUR))
        label = next(c for lo, c in CLASSES if len(index.queued(at)) >= lo)
        row = rows.setdefault(label, {k: [] for k in ("qb", "qa", "pb", "pa")})
        t0 = time.process_time()
        base, shapes = index.base_profile(at), index.queued_shapes(at)
        before = old_price.SiteQuote(base, shapes, at, index.policy).options(32, 2 * HOUR)
        t1 = time.process_time()
        index._memo.clear()  # a first request at this instant
        price_list(state_at(index, h), 32, 2 * HOUR)
        t2 = time.process_time()
        price_list(state_at(index, h), 8, HOUR)  # the same instant, another request
        t3 = time.process_time()
        pred_b = plain_site.predict_at(index, h, 8, HOUR)
        t4 = time.process_time()
        pred_a = predict_at(index, h, 8, HOUR)
        t5 = time.process_time()
        row["qb"].append(t1 - t0)
        row["qa"].append(t2 - t1)
        row["pb"].append(t4 - t3)
        row["pa"].append(t5 - t4)
        second.append(t3 - t2)
        after = state_at(index, h).quote.options(32, 2 * HOUR)  # the delays, unrounded
        same_q = same_q and [(o.start, o.delay) for o in after] == [
            (o.start, o.delay) for o in before
        ]
        same_p = same_p and pred_a == pred_b
    print(f"by jobs queued at the instant (before: {args.before_rev}, predictions "
          f"{args.predict_rev}; after: this tree):")  # fmt: skip
    print(f"  {'':8} {'':8} {'quote: options (32 p x 2 h) from the state':>54}   "
          f"{'prediction (8 p x 1 h) from the index':>54}")  # fmt: skip
    for _, label in reversed(CLASSES):
        if label in rows:
            r = rows[label]
            n = len(r["qa"])
            print(f"  {label:>7} ({n:3}) before {_pcts(r['qb'])}   {_pcts(r['pb'])}")
            print(f"  {'':>7}       after  {_pcts(r['qa'])}   {_pcts(r['pa'])}")
    print(f"  a second request at the same instant (8 p x 1 h, plan kept): {_pcts(second)}")
    print(f"identical option lists before and after: {same_q}; identical predictions: {same_p}")


if __name__ == "__main__":
    main()
