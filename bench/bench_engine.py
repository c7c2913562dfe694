"""Benchmark: the engine side by side with a straightforward reference simulator.

    .venv/bin/python bench/bench_engine.py [--repeat N] [--only ctc|lanl] [--no-depth]
                                           [--traces DIR] [--lanl FILE]

One run prints, interleaved (every repetition runs every configuration once, in turn; the
best of ``--repeat`` is kept), CPU time (user + system, from ``os.wait4`` of each child) and
peak RSS of:

* **whole command** — ``python -m scheduler simulate TRACE --procs N --policy P --estimates
  requested`` against ``python bench/bench_engine.py --reference …`` (the reference below, a
  whole program: gunzip, plain parse, simulate, print a summary);
* **in process** — the same work timed inside a child after its imports (read + prepare +
  simulate + summary), for both;
* the **floor** — gunzip + plain split-and-int parse + a heap event loop over two empty events
  per job (submit, end) — and each run's distance to it (run / floor);

for FCFS, EASY and conservative on CTC-SP2 (430 processors, requested estimates) and LANL-CM5
(1024; from ``--lanl``, ``$LANL_CM5_SWF`` or ``LANL-CM5*.swf*`` in ``--traces``; "not
available" otherwise — ``manage.py fetch_trace`` needs the internet).  Conservative in process
is also run at 338 processors.  Then: start-up CPU of ``python -m scheduler simulate --help``;
``read_swf`` against the plain parse; the reference and the engine compared job by job (start
times; they must agree); run time of ``backfill-k`` against its depth K; the top five
functions of a profile of conservative on CTC-SP2.  Reports figures only; never asserts timing.
The second line says whether the engine's compiled kernel ran (``make setup`` builds it;
``GRIDPORTAL_PURE_PYTHON=1`` runs the pure-Python source instead).

The reference simulator (:class:`RefProfile`, :func:`ref_simulate`) is written for this bench
only: the availability profile is two plain lists (breakpoints, free processors), every query
scans them, EASY tries each candidate against the head's block inserted into the profile, and
conservative backfilling re-places every queued job on every early completion.
"""

from __future__ import annotations

import argparse
import gzip
import heapq
import json
import os
import subprocess
import sys
import time
from bisect import bisect_right
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: which kernel the children run: "compiled" (make setup built it) or "pure: <why>"
_NATIVE_CMD = """
import scheduler.cluster.simulator
from scheduler._native import status
s = status()
names = ("_compress", "_loop")
print(", ".join(f"{m}: {s.get('scheduler.cluster.' + m, 'pure: not loaded')}" for m in names))
"""
PY = sys.executable
DEFAULT_TRACES = ROOT.parent / "shared" / "data" / "traces"
POLICIES = ("fcfs", "easy", "conservative")
MiB = 1024 * 1024


# ---------------------------------------------------------------------- the reference


def plain_parse(path: str) -> list[list]:
    """gunzip + split-and-int (floats on lines with decimals), no validation: the parse floor."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as fh:
        data = fh.read()
    rows = []
    append = rows.append
    for line in data.split(b"\n"):
        parts = line.split()
        if not parts or parts[0].startswith(b";"):
            continue
        try:
            append([*map(int, parts)])
        except ValueError:
            append([*map(float, parts)])
    return rows


def ref_jobs(rows: list[list], machine: int) -> list[tuple[int, int, int, int, int]]:
    """(job id, submit, runtime, estimate, procs) in queue order; the "requested" estimate mode
    (plans with SWF field 9)."""
    jobs = []
    for pos, r in enumerate(rows):
        procs = r[7] if r[7] > 0 else r[4]
        run, req = int(r[3]), int(r[8])
        if run < 0 or procs <= 0 or procs > machine:
            continue
        if req > 0 and run > req:
            run = req
        est = req if req > 0 else run
        jobs.append((int(r[1]), int(r[0]), pos, run, max(est, 1), int(procs)))
    jobs.sort()
    return [(j, s, run, est, n) for s, j, _, run, est, n in jobs]


class RefProfile:
    """Free processors over time: ``free[i]`` on ``[times[i], times[i + 1])``."""

    def __init__(self, capacity: int, t0: int) -> None:
        self.times = [t0]
        self.free = [capacity]

    def advance(self, now: int) -> None:
        i = bisect_right(self.times, now) - 1
        if i > 0:
            del self.times[:i]
            del self.free[:i]
        self.times[0] = now

    def _split(self, x: int) -> int:
        i = bisect_right(self.times, x) - 1
        if self.times[i] == x:
            return i
        self.times.insert(i + 1, x)
        self.free.insert(i + 1, self.free[i])
        return i + 1

    def add(self, s: int, e: int, delta: int) -> None:
        i = self._split(s)
        j = self._split(e)
        for k in range(i, j):
            self.free[k] += delta
        for k in (j, i):  # drop breakpoints that no longer change anything
            if 0 < k < len(self.times) and self.free[k] == self.free[k - 1]:
                del self.times[k]
                del self.free[k]

    def free_over(self, s: int, e: int) -> int:
        i = bisect_right(self.times, s) - 1
        m = self.free[i]
        i += 1
        while i < len(self.times) and self.times[i] < e:
            m = min(m, self.free[i])
            i += 1
        return m

    def earliest_start(self, n: int, d: int, t: int) -> int:
        times, free = self.times, self.free
        k = bisect_right(times, t) - 1
        cand = t
        while True:
            if free[k] < n:
                cand = times[k + 1]
            elif k + 1 == len(times) or times[k + 1] >= cand + d:
                return cand
            k += 1


def ref_simulate(jobs: list, machine: int, policy: str) -> list[int]:
    """Start time of each job (queue order)."""
    n_jobs = len(jobs)
    start = [-1] * n_jobs
    if not n_jobs:
        return start
    prof = RefProfile(machine, jobs[0][1])
    queue: list[int] = []
    plan: dict[int, int] = {}
    wake: list[tuple[int, int]] = []  # conservative: (planned start, job), lazy
    done: list[tuple[int, int]] = []  # (end, job)
    a = 0
    while True:
        t = jobs[a][1] if a < n_jobs else None
        for h in (done, wake):
            while h is wake and wake and plan.get(wake[0][1]) != wake[0][0]:
                heapq.heappop(wake)
            if h and (t is None or h[0][0] < t):
                t = h[0][0]
        if t is None:
            break
        prof.advance(t)
        early = False
        while done and done[0][0] == t:
            k = heapq.heappop(done)[1]
            planned = start[k] + jobs[k][3]
            if t < planned:
                prof.add(t, planned, jobs[k][4])
                early = True
        if early and policy == "conservative":
            for k in queue:  # re-place every queued job, in queue order
                s, d, n = plan[k], jobs[k][3], jobs[k][4]
                prof.add(s, s + d, n)
                s2 = prof.earliest_start(n, d, t)
                prof.add(s2, s2 + d, -n)
                if s2 != s:
                    plan[k] = s2
                    heapq.heappush(wake, (s2, k))
        while a < n_jobs and jobs[a][1] == t:
            if policy == "conservative":
                d, n = jobs[a][3], jobs[a][4]
                s = prof.earliest_start(n, d, t)
                prof.add(s, s + d, -n)
                plan[a] = s
                heapq.heappush(wake, (s, a))
            queue.append(a)
            a += 1
        started = []
        if policy == "conservative":
            started = sorted(k for k in queue if plan[k] == t)
            for k in started:
                del plan[k]
        else:
            while queue:  # the head (and each next head) while it fits
                k = queue[0]
                if prof.free_over(t, t + jobs[k][3]) < jobs[k][4]:
                    break
                prof.add(t, t + jobs[k][3], -jobs[k][4])
                started.append(queue.pop(0))
            if policy == "easy" and len(queue) > 1:
                h = queue[0]
                hd, hn = jobs[h][3], jobs[h][4]
                shadow = prof.earliest_start(hn, hd, t)
                prof.add(shadow, shadow + hd, -hn)  # the head's reservation
                for k in queue[1:]:
                    d, n = jobs[k][3], jobs[k][4]
                    if prof.free_over(t, t + d) >= n:
                        prof.add(t, t + d, -n)
                        started.append(k)
                prof.add(shadow, shadow + hd, hn)
        if started:
            gone = set(started)
            queue[:] = [k for k in queue if k not in gone]
            for k in started:
                start[k] = t
                heapq.heappush(done, (t + jobs[k][2], k))
    return start


def ref_summary(jobs: list, start: list[int]) -> dict:
    waits = [s - j[1] for j, s in zip(jobs, start, strict=True)]
    bsld = [max(1.0, (w + j[2]) / max(j[2], 10)) for j, w in zip(jobs, waits, strict=True)]
    return {
        "jobs": len(jobs),
        "mean_wait": round(sum(waits) / len(waits), 3),
        "mean_bounded_slowdown": round(sum(bsld) / len(bsld), 4),
    }


def floor_loop(rows: list[list]) -> int:
    """A heap event loop over two empty events per job (its submit, in file order, and its
    end, through a heap of end times)."""
    ends: list[int] = []
    pop, push = heapq.heappop, heapq.heappush
    events = 0
    for r in rows:
        t = r[1]
        while ends and ends[0] <= t:
            pop(ends)
            events += 1
        push(ends, t + (r[3] if r[3] > 0 else 0))
        events += 1
    events += len(ends)
    return events


# ---------------------------------------------------------------------- child modes


def child_reference(path: str, procs: int, policy: str) -> None:
    jobs = ref_jobs(plain_parse(path), procs)
    print(json.dumps(ref_summary(jobs, ref_simulate(jobs, procs, policy)), sort_keys=True))


def _rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_inproc(who: str, path: str, procs: int, policy: str) -> None:
    """Time (CPU) the work after the imports; print JSON {cpu, rss}."""
    if who == "ours":
        sys.path.insert(0, str(ROOT))
        from scheduler.cluster import simulate
        from scheduler.traces.swf import read_swf

        t0 = time.process_time()
        simulate(read_swf(path), procs, policy, "requested").summary()
    elif who == "ref":
        t0 = time.process_time()
        jobs = ref_jobs(plain_parse(path), procs)
        ref_summary(jobs, ref_simulate(jobs, procs, policy))
    elif who == "floor":
        t0 = time.process_time()
        floor_loop(plain_parse(path))
    elif who == "parse":
        t0 = time.process_time()
        plain_parse(path)
    elif who in ("read_swf", "read_swf_limit"):
        sys.path.insert(0, str(ROOT))
        from scheduler.traces.swf import read_swf

        t0 = time.process_time()
        read_swf(path, limit=1000 if who == "read_swf_limit" else None)
    else:
        raise SystemExit(f"unknown mode {who}")
    print(json.dumps({"cpu": time.process_time() - t0, "rss": _rss_mib()}))


def child_depth(path: str, procs: int, depth: str) -> None:
    sys.path.insert(0, str(ROOT))
    from scheduler.cluster import simulate
    from scheduler.traces.swf import read_swf

    trace = read_swf(path)
    t0 = time.process_time()
    simulate(trace, procs, "easy" if depth == "easy" else f"backfill-k={depth}", "requested")
    print(json.dumps({"cpu": time.process_time() - t0, "rss": _rss_mib()}))


# ---------------------------------------------------------------------- parent


def run_child(cmd: list[str]) -> tuple[float, float, str]:
    """-> (CPU seconds user+sys, peak RSS MiB, stdout) of one child process."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    out = proc.stdout.read()  # type: ignore[union-attr]
    err = proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{err.decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.decode()


def inproc(who: str, path: str, procs: int = 0, policy: str = "") -> tuple[float, float]:
    _, _, out = run_child([PY, __file__, "--child", who, path, str(procs), policy])
    d = json.loads(out)
    return d["cpu"], d["rss"]


def find_traces(args: argparse.Namespace) -> dict[str, tuple[str | None, int]]:
    ctc = args.traces / "CTC-SP2-1996-3.1-cln.swf.gz"
    lanl = args.lanl or os.environ.get("LANL_CM5_SWF")
    if not lanl:
        found = sorted(args.traces.glob("LANL-CM5*.swf*"))
        lanl = str(found[0]) if found else None
    cases = {"CTC-SP2": (str(ctc) if ctc.exists() else None, 430)}
    cases["LANL-CM5"] = (lanl if lanl and Path(lanl).exists() else None, 1024)
    if args.only == "ctc":
        del cases["LANL-CM5"]
    elif args.only == "lanl":
        del cases["CTC-SP2"]
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--lanl", help="LANL-CM5 SWF file (else $LANL_CM5_SWF)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("ctc", "lanl"))
    parser.add_argument("--no-depth", action="store_true", help="skip the depth-K sweep")
    parser.add_argument("--no-profile", action="store_true", help="skip the profile")
    args = parser.parse_args(argv)
    cases = find_traces(args)
    print(f"python {sys.version.split()[0]}; CPU = user+sys of the child; best of {args.repeat}")
    _, _, native = run_child([PY, "-c", _NATIVE_CMD])
    print(f"engine kernels (cluster/_compress.py with _steps.py, _loop.py): {native.strip()}")

    # ---- side by side, interleaved
    rows: dict[tuple, dict[str, tuple[float, float]]] = {}
    for _ in range(args.repeat):
        for name, (path, procs) in cases.items():
            if path is None:
                continue
            configs = [(p, procs) for p in POLICIES]
            if name == "CTC-SP2":
                configs.append(("conservative", 338))
            key_floor = (name, "floor", procs)
            cur = rows.setdefault(key_floor, {})
            for who in ("floor", "parse", "read_swf", "read_swf_limit"):
                cur[who] = min(cur.get(who, (1e9, 0)), inproc(who, path))
            cpu, rss, _ = run_child([PY, "-c", _FLOOR_CMD, path])
            cur["floor_cmd"] = min(cur.get("floor_cmd", (1e9, 0)), (cpu, rss))
            for policy, n in configs:
                cur = rows.setdefault((name, policy, n), {})
                whole = [] if n != procs else [
                    ("ours_cmd", [PY, "-m", "scheduler", "simulate", path, "--procs", str(n),
                                  "--policy", policy, "--estimates", "requested"]),
                    ("ref_cmd", [PY, __file__, "--reference", path, str(n), policy]),
                ]  # fmt: skip
                for who, cmd in whole:
                    cpu, rss, _ = run_child(cmd)
                    cur[who] = min(cur.get(who, (1e9, 0)), (cpu, rss))
                for who in ("ours", "ref"):
                    cur[who] = min(cur.get(who, (1e9, 0)), inproc(who, path, n, policy))

    for name, (path, procs) in cases.items():
        print(f"\n== {name} ({procs} processors, requested estimates) ==")
        if path is None:
            print(
                "not available"
                + (
                    " (give --lanl FILE or $LANL_CM5_SWF; no local copy)"
                    if name == "LANL-CM5"
                    else f" (not in {args.traces})"
                )
            )
            continue
        fl = rows[(name, "floor", procs)]
        floor_cpu = fl["floor"][0]
        print(
            f"floor in process (gunzip + plain parse + heap loop): {floor_cpu:.3f} s; "
            f"as a whole command: {fl['floor_cmd'][0]:.3f} s, {fl['floor_cmd'][1]:.0f} MiB"
        )
        print(
            f"SWF reading: read_swf {fl['read_swf'][0]:.3f} s vs plain parse "
            f"{fl['parse'][0]:.3f} s = {fl['read_swf'][0] / fl['parse'][0]:.2f}x; "
            f"read_swf(limit=1000) {fl['read_swf_limit'][0]:.3f} s (reading stops early)"
        )
        print(
            f"{'policy':<13}{'procs':>6} | {'cmd ours':>9}{'cmd ref':>9}{'ratio':>7}"
            f"{'RSS ours':>9}{'RSS ref':>8} | {'in ours':>8}{'in ref':>8}{'ratio':>7}"
            f"{'ours/floor':>11}{'ref/floor':>10}"
        )
        for (nm, policy, n), cur in rows.items():
            if nm != name or policy == "floor":
                continue
            o, r = cur["ours"][0], cur["ref"][0]
            if "ours_cmd" in cur:
                oc, rc = cur["ours_cmd"], cur["ref_cmd"]
                cmd = (
                    f"{oc[0]:>8.2f}s{rc[0]:>8.2f}s{oc[0] / rc[0]:>6.2f}x"
                    f"{oc[1]:>8.0f}M{rc[1]:>7.0f}M"
                )
            else:
                cmd = f"{'-':>9}{'-':>9}{'-':>7}{'-':>9}{'-':>8}"
            print(
                f"{policy:<13}{n:>6} | {cmd} | {o:>7.2f}s{r:>7.2f}s{o / r:>6.2f}x"
                f"{o / floor_cpu:>10.1f}x{r / floor_cpu:>9.1f}x"
            )

    # ---- start-up
    best = min(
        run_child([PY, "-m", "scheduler", "simulate", "--help"])[:2] for _ in range(args.repeat)
    )
    print(
        f"\nstart-up: python -m scheduler simulate --help: {best[0]:.3f} s CPU, {best[1]:.0f} MiB"
    )
    best = min(run_child([PY, "-c", "pass"])[:2] for _ in range(args.repeat))
    print(
        f"          python -c pass (the interpreter alone): {best[0]:.3f} s CPU, {best[1]:.0f} MiB"
    )

    # ---- job by job
    path, procs = cases.get("CTC-SP2", (None, 0))
    if path:
        sys.path.insert(0, str(ROOT))
        from scheduler.cluster import Simulator, prepare_jobs
        from scheduler.traces.swf import read_swf

        trace = read_swf(path)
        rows_plain = plain_parse(path)
        for n in (procs, 338):
            jobs = ref_jobs(rows_plain, n)
            sim_jobs, _ = prepare_jobs(trace.jobs, n, "requested")
            for policy in POLICIES:
                ref = ref_simulate(jobs, n, policy)
                ours = Simulator(sim_jobs, n, policy).run().start
                diff = sum(1 for a, b in zip(ref, ours, strict=True) if a != b)
                print(
                    f"job by job, CTC-SP2 at {n}, {policy}: {len(ref)} jobs, "
                    f"{diff} start times differ from the reference"
                )

    # ---- depth K
    if path and not args.no_depth:
        from scheduler.cluster import BUILTIN as ENGINE_POLICIES

        if "backfill-k" in ENGINE_POLICIES:
            print("\nbackfill-k on CTC-SP2 at 430 (simulation only, CPU s):")
            for depth in ("easy", "1", "2", "4", "8", "16", "64", "inf"):
                cpu, _ = min(
                    (lambda o: (json.loads(o)["cpu"], 0))(
                        run_child([PY, __file__, "--depth", path, str(procs), depth])[2]
                    )
                    for _ in range(max(1, args.repeat - 1))
                )
                label = "EASY policy" if depth == "easy" else f"K={depth}"
                print(f"  {label:<12} {cpu:7.3f}")
        else:
            print("\n(backfill-k not available)")

    # ---- profile
    if path and not args.no_profile:
        import cProfile
        import pstats

        from scheduler.cluster import simulate

        for n in (procs, 338):
            pr = cProfile.Profile()
            pr.enable()
            simulate(trace, n, "conservative", "requested")
            pr.disable()
            print(f"\nprofile, conservative on CTC-SP2 at {n}, top five by own time:")
            st = pstats.Stats(pr)
            items = sorted(st.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:5]
            total = sum(v[2] for v in st.stats.values())
            for (file, line, fn), (_, calls, tt, _ct, _) in items:
                print(
                    f"  {tt:7.3f}s {tt / total:5.1%} {calls:>9} calls  "
                    f"{Path(file).name}:{line}({fn})"
                )
    return 0


_FLOOR_CMD = (
    "import sys; sys.path.insert(0, 'bench'); import bench_engine as b; "
    "b.floor_loop(b.plain_parse(sys.argv[1]))"
)

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--reference":
        child_reference(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_inproc(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--depth":
        child_depth(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        raise SystemExit(main())
