"""Each exactness condition of the FCFS quote kernel, dropped: how many prices go wrong.

The pure source of ``scheduler/pricing/_replan.py`` is loaded with one condition removed or
weakened (a text replacement, checked to apply), and prices the random small sites of
tests/scheduler/test_pricing_fcfs_fast.py — the test's own sites (its seeds, states kept at
every job, every second and every eighth) and as many more — against Figure 22 taken
literally (:meth:`SiteQuote.price_naive`).  A condition the tests guard gives wrong prices on
the test's sites (the test fails); the unmodified source gives none.  Two comparisons of the
states with the last re-plan's (their sizes, their free processors at the floor) only reject
early: kept as releases, a state's releases add up to the whole machine, so two states whose
releases are the same have the same size and the same free processors at the floor.  Two
tests of the search for the first job a slot moves are no conditions either (dropped, the
search stops at an earlier job, and the re-plan, exact from any job before the first that
moves, starts there): whether a job by the slot's start has a block meeting it, and the
later jobs starting with a job among its spare processors.

    .venv/bin/python bench/fcfs_kernel_mutations.py [--more 700] [--compiled]

``--compiled``: the conditions of the compiled build's own branches (``if cython.compiled:``,
where the pure source computes the same plainly), each mutant compiled with Cython.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scheduler.pricing.price as price_mod  # noqa: E402
from scheduler.pricing import SiteQuote  # noqa: E402
from tests.scheduler.native_helpers import deep_site  # noqa: E402
from tests.scheduler.test_pricing_fcfs_fast import fcfs_site  # noqa: E402

SOURCE = ROOT / "scheduler" / "pricing" / "_replan.py"

#: name -> (text, replacement, how many times it must occur[, the file: _replan.py unless
#: "_steps.py", the profile-step operations the kernel shares with the EASY kernel])
MUTATIONS = {
    "none (the kernel as it is)": ("", "", 0),
    "first job meeting the slot: by start, not by reach": (
        "first = index(rmax, start, m) + 1",
        "first = index(starts, start - 1, m) + 1",  # (the first start after start - 1)
        1,
    ),
    "no-duration job: its reach is its start": (
        "reach[j] = floor + (dur if dur > 0 else 1)",
        "reach[j] = floor + dur",
        1,
    ),
    "restart nearer: skips jobs meeting the slot too": (
        "while k < self.m and self.starts[k] < e and self.reach[k] <= s:",
        "while k < self.m and self.starts[k] < e:",
        1,
    ),
    "stop when no later job meets the slot: even after a move": (
        "            if not moved:\n                if start >= e:",
        "            if True:\n                if start >= e:",
        1,
    ),
    "profile until the slot starts: not the base's reservations": (
        "rise: cython.longlong = s if s > base_rise else base_rise",
        "rise: cython.longlong = s",
        1,
    ),
    "profile until the base's last reservation: not the slot": (
        "rise: cython.longlong = s if s > base_rise else base_rise",
        "rise: cython.longlong = base_rise",
        1,
    ),
    "same state as the plan: sizes not compared": (
        "hit: cython.bint = size == self.coff[c + 1] - o and at_floor == self.kept_free[o]",
        "hit: cython.bint = at_floor == self.kept_free[o]",
        1,
    ),
    "same state as the plan: free at the floor not compared": (
        "hit: cython.bint = size == self.coff[c + 1] - o and at_floor == self.kept_free[o]",
        "hit: cython.bint = size == self.coff[c + 1] - o",
        1,
    ),
    "same state as the plan: release times not compared": (
        "                self.times[b + x - 1] - late == self.kept_times[o + x]\n"
        "                and level == self.kept_free[o + x]",
        "                level == self.kept_free[o + x]",
        1,
    ),
    "same state as the plan: release sizes not compared": (
        "                self.times[b + x - 1] - late == self.kept_times[o + x]\n"
        "                and level == self.kept_free[o + x]",
        "                self.times[b + x - 1] - late == self.kept_times[o + x]",
        1,
    ),
    "same profile as the plan (before the slot starts): times not compared": (
        "                self.times[h + i] - late != self.kept_times[o + i]\n"
        "                or self.free[h + i] != self.kept_free[o + i]",
        "                self.free[h + i] != self.kept_free[o + i]",
        1,
    ),
    "same state as the last re-plan: sizes not compared": (
        "hit = self.last_size[c] == size and self.last_free[o] == at_floor",
        "hit = self.last_size[c] > 0 and self.last_free[o] == at_floor",
        1,
    ),
    "same state as the last re-plan: free at the floor not compared": (
        "hit = self.last_size[c] == size and self.last_free[o] == at_floor",
        "hit = self.last_size[c] == size",
        1,
    ),
    "same state as the last re-plan: release times not compared": (
        "self.times[b + x - 1] - self.last_times[o + x] == late\n"
        "                and self.last_free[o + x] == self.free[b + x - 1]",
        "True\n                and self.last_free[o + x] == self.free[b + x - 1]",
        1,
    ),
    "same state as the last re-plan: release times compared unmoved": (
        "late = floor - self.last_floor[c]  # (times kept as they were",
        "late = 0  # (times kept as they were",
        1,
    ),
    "same state as the last re-plan: release sizes not compared": (
        "self.times[b + x - 1] - self.last_times[o + x] == late\n"
        "                and self.last_free[o + x] == self.free[b + x - 1]",
        "self.times[b + x - 1] - self.last_times[o + x] == late\n                and True",
        1,
    ),
    "the last re-plan's rest: its floor not taken off": (
        "                - self.rec_sum[x]\n"
        "                - (self.rec_floor[x] - self.now) * self.qsum[c << self.shift]\n",
        "                - self.rec_sum[x]\n",
        1,
    ),
    "releases from the kept state on: even when the base falls after its floor": (
        "            if self.kept_times[o] >= base_rise:",
        "            if True:",
        1,
    ),
    "slot ahead: a block not tested beside it at its start": (
        "if at_floor < procs_j or at_floor + pre - n < procs_j:",
        "if at_floor < procs_j:",
        1,
    ),
    "slot ahead: the kept releases up to its start not summed": (
        "        pre += free[x]\n",
        "        pass\n",
        1,
    ),
    "slot ahead: passed releases not taken off the sum": (
        "pre -= free[b]\n",
        "pass\n",
        2,
    ),
    "slot ahead: a kept job's release before its start not summed": (
        "if keep and start + dur <= s:\n                    pre += procs_j",
        "if keep and start + dur <= s:\n                    pass",
        1,
    ),
    "hole of the plan: even with a job of no duration": (
        "    if 0 in queue.durs:\n        return\n",
        "    if False:\n        return\n",
        1,
    ),
    "first mover: only when no block of the base starts after the slot's": (
        "        if holes and start >= base_rise:",
        "        if holes:",
        1,
    ),
    "first mover: the base's free processors at the slot's start, less none": (
        "lim: cython.longlong = room.beside_base(s, s + 1) - n",
        "lim: cython.longlong = room.beside_base(s, s + 1)",
        1,
    ),
    "first mover: a job by the slot's start, its own block only": (
        "            used += procs[k]",
        "            used = procs[k]",
        1,
    ),
    "first mover: a later job's spare processors not tested": (
        "while k < m and starts[k] < e and spare[k] >= n:",
        "while k < m and starts[k] < e:",
        1,
    ),
    "new release among the first: moved forward with no consumed one before": (
        "                    elif b > 0 and at - b < 4:",
        "                    elif at - b < 4:",
        1,
    ),
    "new release at the last one's instant: the last one kept across re-plans": (
        (
            "        last_stop: cython.longlong = floor\n        last_at: cython.Py_ssize_t = b\n",
            "        self.delay = delay\n",
        ),
        (
            '        last_stop = getattr(self, "kept_stop", floor)\n'
            '        last_at = getattr(self, "kept_at", b)\n',
            "        self.delay = delay\n"
            "        self.kept_stop, self.kept_at = last_stop, last_at\n",
        ),
        1,
    ),
    "new release at the last one's instant: its place not followed forward": (
        "                        b -= 1\n                        last_at = at - 1\n",
        "                        b -= 1\n",
        1,
    ),
    "hole of the plan: only its first step tested": (
        "    while p < hi and times[p] < b:\n        least = min(least, free[p])",
        "    while False:\n        least = min(least, free[p])",
        1,
        "_steps.py",
    ),
}

#: conditions of the compiled build only (``if cython.compiled:`` branches), each mutant
#: compiled with Cython (``--compiled``; the pure source computes the same without them)
COMPILED_MUTATIONS = {
    "none (the kernel as it is)": ("", "", 0),
    "new release moved forward past the first four too": (
        "                    elif b > 0 and at - b < 4:",
        "                    elif b > 0 and at - b < 5:",
        1,
    ),
    "new release among the first four: the fourth place always written": (
        "        times[b + 2] = stop if mid == 3 else times[b + 2]",
        "        times[b + 2] = stop",
        1,
    ),
    "new release among the first four: the second place never the new one": (
        "times[b] = times[b + 1] if mid > 1 else (stop if mid == 1 else times[b])",
        "times[b] = times[b + 1] if mid > 1 else times[b]",
        1,
    ),
    "new release at the latest's instant: before it whatever its instant": (
        "lo = nsteps - (times[nsteps - 1] == stop)",
        "lo = nsteps - 1",
        1,
    ),
}


def _source(name: str, text, new, count: int, path: Path = SOURCE) -> str:  # type: ignore[no-untyped-def]
    """The source with ``text`` replaced by ``new`` (each ``count`` times; tuples: pair by pair)."""
    source = path.read_text()
    pairs = zip(text, new, strict=True) if isinstance(text, tuple) else [(text, new)]
    for old, replacement in pairs if count else ():
        found = source.count(old)
        if found != count:
            raise SystemExit(f"{name!r}: the text occurs {found} times, not {count}")
        source = source.replace(old, replacement)
    return source


def mutant(name: str, text: str, new: str, count: int, tmp: Path, where: str = "_replan.py"):  # type: ignore[no-untyped-def]
    path = tmp / f"_replan_mutant_{abs(hash(name))}.py"
    if where == "_replan.py":
        path.write_text(_source(name, text, new, count))
    else:  # the kernel as it is, on a mutant of its profile steps (loaded from their own folder)
        steps = tmp / f"steps_{abs(hash(name))}"
        steps.mkdir()
        library = SOURCE.parent.parent / "cluster" / where  # (the cluster's step library)
        (steps / where).write_text(_source(name, text, new, count, library))
        load = 'load_pure("scheduler.cluster._steps", "scheduler.cluster._steps_pure")'
        mine = f"scheduler.cluster._steps_mutant_{abs(hash(name))}"
        kernel = _source(
            name, load, f'load_pure("scheduler.cluster._steps", "{mine}", {str(steps)!r})', 1
        )
        path.write_text(kernel)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert not module.cython.compiled
    return module


def compiled_mutant(name: str, text: str, new: str, count: int, tmp: Path):  # type: ignore[no-untyped-def]
    """The mutant compiled as ``setup.py`` compiles the kernel (Cython, -O2), imported."""
    import os

    from Cython.Build import cythonize
    from setuptools import Extension, setup

    stem = f"_replan_cmutant_{abs(hash(name))}"
    (tmp / f"{stem}.py").write_text(_source(name, text, new, count))
    cwd = Path.cwd()
    os.chdir(tmp)  # (build_ext --inplace writes here)
    try:
        setup(
            ext_modules=cythonize(
                [Extension(stem, [f"{stem}.py"], extra_compile_args=["-O2", "-w"])],
                compiler_directives={
                    "language_level": 3,
                    "binding": False,
                    "embedsignature": False,
                },
                quiet=True,
            ),  # fmt: skip
            script_args=["-q", "build_ext", "--inplace", "--build-temp", str(tmp / "build")],
        )
    finally:
        os.chdir(cwd)
    sys.path.insert(0, str(tmp))
    module = importlib.import_module(stem)
    assert not module.__file__.endswith(".py")  # (the extension, not the source)
    return module


def wrong_prices(module, seed: int, sites: int, shift: int) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(wrong, priced) over the test's sites of ``seed`` (the test's loop, counting; a
    site where the kernel raises counts all its prices wrong)."""
    price_mod._R = module
    rng = random.Random(seed)
    wrong = total = 0
    for i in range(sites):
        base, shapes, cap = fcfs_site(rng)
        now = rng.randint(0, 3)
        q = SiteQuote(base, shapes, now, "fcfs")
        n, d = rng.randint(1, cap), rng.randint(1, 12)
        end = max(v + dq for (_, dq), v in zip(q.shapes, q.starts, strict=True))
        starts = sorted(set(q.candidates()) | {end, end + 1, now + rng.randint(0, 30)})
        want = [q.price_naive(s, n, d) for s in starts]
        Q = module.FcfsQueue(
            q.base.times, q.base.free, [p for p, _ in q.shapes], [dq for _, dq in q.shapes],
            q.now, shift, 3 if i % 3 == 0 else 64,
        )  # fmt: skip
        try:
            got = module.fcfs_delays(Q, starts, n, d)
        except (IndexError, ValueError):  # (read past the kept state, or before the
            # releases: the test fails too)
            got = [-1] * len(want)
        wrong += sum(a != b for a, b in zip(got, want, strict=True))
        total += len(want)
    return wrong, total


def wrong_deep(module, seed: int) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(wrong, priced) on the deep queue of tests/scheduler/test_pricing_fcfs_fast.py's
    ``test_deep_queues_are_priced_as_by_the_prefix_kernel`` (600 jobs: long lists of
    releases, which the small sites seldom have), against the module's prefix re-plan."""
    price_mod._R = module
    base, shapes = deep_site(seed, jobs=600, zeros=seed == 2)
    q = SiteQuote(base, shapes, 0, "fcfs")
    procs, durs = [p for p, _ in q.shapes], [dq for _, dq in q.shapes]
    old = module.Queue(q.base.times, q.base.free, procs, durs, q.starts)
    cands = q.candidates()
    wrong = total = 0
    for n, d in ((1, 600), (8, 3600), (32, 2 * 3600), (64, 900)):
        want = module.delays(old, cands, n, d, 0, True)
        for shift in (0, 3, 5):
            Q = module.FcfsQueue(q.base.times, q.base.free, procs, durs, 0, shift, 64)
            got = module.fcfs_delays(Q, cands, n, d)
            wrong += sum(a != b for a, b in zip(got, want, strict=True))
            total += len(want)
    return wrong, total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--more", type=int, default=700, help="more random sites per shift")
    ap.add_argument(
        "--compiled", action="store_true", help="the compiled build's own conditions (Cython)"
    )
    ap.add_argument("--only", help=argparse.SUPPRESS)  # (one compiled mutant, in a child)
    args = ap.parse_args()
    table, make = (COMPILED_MUTATIONS, compiled_mutant) if args.compiled else (MUTATIONS, mutant)
    if args.only is None:
        print(f"{'condition dropped':<72} {'test sites':>16} {'more sites':>16}"
              f"{' ' * 6 + 'deep test queues' if args.compiled else ''}")  # fmt: skip
    if args.compiled and args.only is None:
        # each compiled mutant in a process of its own: one that writes past its buffers
        # (no bounds checks) may crash it, which counts as failing
        import subprocess

        for name in table:
            run = subprocess.run(
                [sys.executable, __file__, "--compiled", "--more", str(args.more), "--only", name],
                capture_output=True, text=True,
            )  # fmt: skip
            line = run.stdout.strip().splitlines()[-1:] if run.returncode == 0 else []
            print(line[0] if line else f"{name:<72} crashed (exit {run.returncode})", flush=True)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for name, (text, new, count, *where) in table.items():
            if args.only is not None and name != args.only:
                continue
            module = make(name, text, new, count, Path(tmp), *where)
            test = [wrong_prices(module, 100 + shift, 700, shift) for shift in (0, 1, 3)]
            more = [wrong_prices(module, 9000 + shift, args.more, shift) for shift in (0, 1, 3)]
            tw, tt = sum(w for w, _ in test), sum(t for _, t in test)
            mw, mt = sum(w for w, _ in more), sum(t for _, t in more)
            deep = ""
            if args.compiled:
                dw = [wrong_deep(module, seed) for seed in (1, 2)]
                deep = f" {sum(w for w, _ in dw):>6} of {sum(t for _, t in dw):<7}"
            print(f"{name:<72} {tw:>6} of {tt:<7} {mw:>6} of {mt:<7}{deep}", flush=True)


if __name__ == "__main__":
    main()
