"""Each shortcut of conservative backfilling's compression pass, dropped: how many plans go wrong.

The pass (``scheduler/cluster/_compress.py``) is run by the reference policy and by the
whole-run loop; it skips most jobs by exact rules (the step before a job's start too full, a
running maximum of the free counts, per-shape lower bounds on the earliest window kept across
moves).  Its pure source is loaded with one rule removed or weakened (a text replacement,
checked to apply) and put in the engine's place, then:

* **property** — the tests of tests/scheduler/test_cluster_properties.py that hold the pass
  to its definition, re-placing every queued job (``test_pruned_compression_equals_the_plain_
  re_placement``, ``..._on_deep_plans``: round after round on generated plans and on deep
  seeded ones; ``test_conservative_runs_alike_with_the_pruned_pass_and_with_plain_re_placement``:
  whole runs on deep queues): "fails" when one of them fails;
* **deep queues** — conservative backfilling (the reference policy, through the event loop)
  on the overloaded random traces of
  tests/scheduler/test_native_kernel.py (tests/scheduler/native_helpers.py; its 12 seeds and
  ``--more`` others), start by start
  against the unmodified pass: how many jobs start elsewhere.

A rule whose removal changes no plan is a speed shortcut only (it says so), not an exactness
condition; the unmodified source changes none.

    .venv/bin/python bench/compress_mutations.py [--more 12]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduler.cluster import Simulator, prepare_jobs  # noqa: E402
from tests.scheduler import test_cluster_properties as props  # noqa: E402
from tests.scheduler.native_helpers import deep_queue_trace, kernel  # noqa: E402

SOURCE = ROOT / "scheduler" / "cluster" / "_compress.py"

#: (name, text, replacement): each drops or weakens one rule of the pass
MUTATIONS = [
    ("no window can open before now", "    if last < now:\n        return start\n", ""),
    (
        "the running maximum is refreshed past its horizon",
        "    if last >= passed.peak_until:\n        passed.running_max(p)\n",
        "    if passed.peak_len == 0:\n        passed.running_max(p)\n",
    ),
    (
        "no step ever has n free",
        "    if x == passed.peak_len:\n        return start\n",
        "    if x == passed.peak_len:\n        x -= 1\n",
    ),
    (
        "the first step with n free is after the last opening",
        "    if b > last:\n        return start\n",
        "",
    ),
    (
        "the shape's bound rules the whole window out",
        "        if bound > last:\n            return start\n",
        "",
    ),
    (
        "a full step moves the window past it",
        "            b = p.times[x + 1]\n",
        "            pass\n",
    ),
    (
        "the window must last d",
        "        elif p.times[x + 1] - b >= d:\n",
        "        elif p.times[x + 1] - b >= 0:\n",
    ),
    ("a start before the first step stays", "    if before < 0:\n        return start\n", ""),
    (
        "a window reaching start opens after start - d",
        "        if reach < b:\n            b = reach if reach > now else now\n",
        "",
    ),
    (
        "a bound belongs to this pass",
        "        if self.slot_generation[i] != self.generation:\n            return now\n",
        "        if self.slot_generation[i] == -1:\n            return now\n",
    ),
    (
        "a bound is lowered by the capacity moves gave back",
        "            if first_back < b:\n"
        "                b = first_back if first_back > now else now\n",
        "",
    ),
    (
        "a move ends the running maximum's horizon",
        "        if back_from < self.peak_until:\n            self.peak_until = back_from\n",
        "",
    ),
    (
        "a slot holds one shape (its duration too)",
        "            self.shape_n[i] != n or self.shape_d[i] != d\n",
        "            self.shape_n[i] != n\n",
    ),
    (
        "capacity comes back from the old start at the earliest",
        "    if back_from < start:\n        back_from = start\n",
        "",
    ),
    (
        "a kept bound is recorded where no window was found",
        "    if new_start == start:\n        passed.keep(slot, n, d, start)\n",
        "",
    ),
]


def load(source: str, tag: str):  # type: ignore[no-untyped-def]
    """The pass from ``source`` (run as Python, on the step library's pure source)."""
    path = Path(tempfile.mkdtemp()) / "_compress.py"
    path.write_text(source)
    name = f"scheduler.cluster._compress_mutant_{tag}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def property_fails() -> tuple[bool, str]:
    """Whether the tests fail (the seeded ones first), and how if it crashed."""
    try:
        for seed in range(8):
            props.test_pruned_compression_equals_the_plain_re_placement_on_deep_plans(seed)
        for seed in range(4):
            props.test_conservative_runs_alike_with_the_pruned_pass_and_with_plain_re_placement(
                seed
            )
        props.test_pruned_compression_equals_the_plain_re_placement()
    except AssertionError:
        return True, ""
    except Exception as exc:  # a mutant may also crash (e.g. a move that does not fit)
        return True, f"crashed: {type(exc).__name__}: {str(exc)[:60]}"
    return False, ""


def deep_queue_starts(seeds: range) -> list[list[int]]:
    """Conservative backfilling through the event loop (the reference policy, which runs the
    pass in the engine's place; a plain run would otherwise be the compiled whole-run loop)."""
    out = []
    for seed in seeds:
        procs = (16, 32, 64)[seed % 3]
        jobs, _ = prepare_jobs(deep_queue_trace(seed, procs=procs), procs, "requested")
        sim = Simulator(jobs, procs, "conservative")
        sim._run(None, None)
        out.append(list(sim.start))
    return out


def wrong_starts(expected: list[list[int]], seeds: range) -> int | str:
    try:
        got = deep_queue_starts(seeds)
    except Exception as exc:
        return f"crash ({type(exc).__name__})"
    return sum(
        a != b for xs, ys in zip(expected, got, strict=True) for a, b in zip(xs, ys, strict=True)
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--more", type=int, default=12, help="deep-queue seeds beyond the test's 12")
    args = ap.parse_args()
    text = SOURCE.read_text()
    seeds = range(12 + args.more)
    with kernel(load(text, "none")):
        expected = deep_queue_starts(seeds)
        assert property_fails() == (False, ""), "the unmodified pass fails the tests"
        assert wrong_starts(expected, seeds) == 0
    print(f"{'rule dropped':<58}{'property tests':>15}{'deep queues: wrong starts':>28}")
    guarded = 0
    for tag, (name, old, new) in enumerate(MUTATIONS):
        if text.count(old) != 1:
            raise SystemExit(f"mutation {name!r} matches {text.count(old)} places, not one")
        with kernel(load(text.replace(old, new), str(tag))):
            fails, how = property_fails()
            wrong = wrong_starts(expected, seeds)
        guarded += fails
        verdict = "fails" if fails else "passes"
        note = f"  ({how})" if how else "" if fails or wrong else "  (speed shortcut only)"
        print(f"{name:<58}{verdict:>15}{wrong!s:>28}{note}")
    print(f"{guarded} of {len(MUTATIONS)} dropped rules fail the property tests")


if __name__ == "__main__":
    main()
