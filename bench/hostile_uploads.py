"""The hostile-upload probe (small uploads that swelled the web process), against the
portal's code path (direct service calls, as the views make them): peak RSS of the *calling*
process (the web worker's part) and wall time for four cases, on this checkout and on another
(``--against ../other-checkout``).

Cases (the probe's figures on a live stack in brackets):

* ``sacct-rule``: an ~800 KB fixed-width sacct file whose rule line has 200,000 spans, with
  1,000 one-character rows (304 → 1,842 MiB, 30.6 s);
* ``jobarray-zip``: a ~43 KB job-array zip holding 2 × 20 MB results (1,724 MiB, stored);
* ``bundle-result``: a bundle whose result.json is 60 MB (4,382 MiB, 222 s, a 500);
* ``sacct-rows``: a 10⁶-row sacct --parsable2 file (1,961 MiB, 62 s).

Each case runs in a fresh process (``ru_maxrss`` is its own peak; the limited children are
other processes), inside a transaction rolled back at the end.  Needs PostgreSQL
(``DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432/h1bench``, migrated here).

    .venv/bin/python bench/hostile_uploads.py [--against ../other-checkout] [--cases a,b]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
CASES = ("sacct-rule", "jobarray-zip", "bundle-result", "sacct-rows")
DB = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/h1bench")


def big_result(kind: str, params: dict, seed: int, megabytes: int, ones: float = 0.0) -> bytes:
    """A valid Result whose one chart has enough points to make ``megabytes`` of JSON; a
    fraction ``ones`` of the points differ (less compressible: 0.04 zips ~140 times, as the
    probe's bundle did; 0 zips ~700 times, as its job-array zip did)."""
    import random

    rnd = random.Random(1)
    points = max(1, megabytes * 2**20 // 8)
    pairs = ", ".join("[0, 1]" if rnd.random() < ones else "[0, 0]" for _ in range(points))
    series = '{"name": "s", "points": [' + pairs + "]}"
    head = json.dumps({"kind": kind, "params": params, "seed": seed, "summary": {"jobs": 1},
                       "summary_labels": {}, "tables": []})  # fmt: skip
    chart = ('{"id": "c", "type": "line", "title": "t", "x": {"label": "x", "scale": "linear"}, '
             '"y": {"label": "y", "scale": "linear"}, "series": [' + series + "]}")  # fmt: skip
    return (head[:-1] + ', "charts": [' + chart + "]}").encode()


def prepare(work: Path) -> None:
    """Write the four inputs under ``work`` (the bundle from a real run of this checkout)."""
    rule = "--- " * 200_000  # 800 KB: the probe's file was 802 KB
    head = "JobID State Submit Start End"
    (work / "sacct-rule.txt").write_text(head + "\n" + rule + "\n" + "x\n" * 1000)
    row = (
        "|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:10|2025-01-06T09:00:00|10|1|1G|x\n"
    )
    with open(work / "sacct-rows.txt", "w") as out:
        out.write("JobID|User|Group|Partition|QOS|State|Submit|Start|End|Timelimit|AllocCPUS|"
                  "ReqMem|JobName\n")  # fmt: skip
        for k in range(1, 1_000_001):
            out.write(f"{k}{row}")
    real = work / "bundle-real.zip"
    _run_case(HERE, "make-bundle", work)
    files = {n: zipfile.ZipFile(real).read(n) for n in zipfile.ZipFile(real).namelist()}
    run = json.loads(files["run.json"])
    files["result/result.json"] = big_result(run["kind"], run["params"], run["seed"], 60, ones=0.04)
    meta = json.loads(files["ro-crate-metadata.json"])
    for entity in meta["@graph"]:
        if "sha256" in entity and entity["@id"] in files:
            entity["sha256"] = hashlib.sha256(files[entity["@id"]]).hexdigest()
            entity["contentSize"] = str(len(files[entity["@id"]]))
    files["ro-crate-metadata.json"] = json.dumps(meta).encode()
    (work / "bundle-result.zip").write_bytes(_zip(files))


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, body in files.items():
            zf.writestr(name, body)
    return buf.getvalue()


# --- one case, in its own process (sys.argv: --case NAME --work DIR, cwd = the checkout) ---


def case_main(name: str, work: Path) -> None:
    import resource
    import time

    import django

    sys.path.insert(0, os.getcwd())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridportal.settings")
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.exceptions import ValidationError
    from django.core.files.base import ContentFile, File
    from django.db import transaction

    def peak_mib() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    class Rollback(Exception):
        pass

    out: dict = {"case": name}
    try:
        with transaction.atomic():
            user = get_user_model().objects.create(username=f"bench-{os.getpid()}")
            from gridportal.inputs.services import trace_create

            if name == "make-bundle":
                _make_bundle(user, work)
                raise Rollback
            call = None
            if name.startswith("sacct"):
                fh = open(work / f"{name}.txt", "rb")  # noqa: SIM115 (closed with the process)

                def call():
                    return trace_create(owner=user, name="", upload=File(fh, name=f"{name}.sacct"))
            elif name == "bundle-result":
                from gridportal.experiments.bundles import bundle_import

                data = (work / "bundle-result.zip").read_bytes()

                def call():
                    return bundle_import(owner=user, data=data)
            elif name == "jobarray-zip":
                from gridportal.experiments.jobarray import sweep_upload_results
                from gridportal.experiments.sweeps import sweep_create

                trace = trace_create(owner=user, name="t", upload=ContentFile(
                    (work / "small.swf").read_bytes(), name="t.swf"))  # fmt: skip
                sweep = sweep_create(owner=user, kind="trace-stats", params={}, traces=[trace],
                                     vary=[{"param": "cdf_points", "values": [10, 20]}],
                                     executor="slurm")  # fmt: skip
                runs = list(sweep.runs.order_by("id"))[:2]
                data = _zip({f"results/{r.pk}.json": big_result(r.kind, r.params, r.seed, 20)
                             for r in runs})  # fmt: skip
                out["upload_bytes"] = len(data)

                def call():
                    return sweep_upload_results(sweep=sweep, files=[("results.zip", data)])

            base = peak_mib()
            t0 = time.perf_counter()
            try:
                value = call()
                out["outcome"] = f"stored ({type(value).__name__})"
            except ValidationError as exc:
                out["outcome"] = "refused (400): " + "; ".join(exc.messages)[:160]
            except Exception as exc:  # noqa: BLE001 (what a 500 would be)
                out["outcome"] = f"server error (500): {type(exc).__name__}: {str(exc)[:120]}"
            out["wall_s"] = round(time.perf_counter() - t0, 2)
            out["rss_before_mib"] = round(base)
            out["peak_rss_mib"] = round(peak_mib())
            raise Rollback
    except Rollback:
        pass
    print("RESULT " + json.dumps(out))


def _make_bundle(user, work: Path) -> None:
    from django.core.files.base import ContentFile

    from gridportal.experiments.bundles import experiment_bundle_zip
    from gridportal.experiments.services import experiment_create, experiment_execute
    from gridportal.inputs.services import trace_create
    from scheduler.traces.lublin import generate_lublin99
    from scheduler.traces.swf import write_swf

    text = io.StringIO()
    write_swf(generate_lublin99(jobs=60, procs=64, seed=3), text)
    swf = text.getvalue().encode()
    (work / "small.swf").write_bytes(swf)
    trace = trace_create(owner=user, name="t", upload=ContentFile(swf, name="t.swf"))
    exp = experiment_create(owner=user, kind="trace-stats", params={}, traces=[trace])
    experiment_execute(experiment_id=exp.pk)
    exp.refresh_from_db()
    (work / "bundle-real.zip").write_bytes(experiment_bundle_zip(experiment=exp))


def _run_case(tree: Path, name: str, work: Path) -> dict | None:
    env = {**os.environ, "DATABASE_URL": DB, "DJANGO_SETTINGS_MODULE": "gridportal.settings",
           "MEDIA_ROOT": str(work / f"media-{tree.name}"), "PYTHONPATH": str(tree)}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--case", name, "--work", str(work)],
        cwd=tree, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    if name != "make-bundle" or proc.returncode:
        print(proc.stderr[-3000:], file=sys.stderr)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout to measure too (before)")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        case_main(args.case, args.work)
        return
    env = {**os.environ, "DATABASE_URL": DB}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=HERE, env=env, check=True)
    work = Path(tempfile.mkdtemp(prefix="hostile-uploads-"))
    prepare(work)
    trees = ([("before", args.against)] if args.against else []) + [("after", HERE)]
    rows = []
    for case in args.cases.split(","):
        for label, tree in trees:
            result = _run_case(tree, case, work) or {"case": case, "outcome": "did not finish"}
            result["code"] = f"{label} ({tree})"
            rows.append(result)
            print(json.dumps(result), flush=True)
    print()
    print(f"{'case':<15} {'code':<8} {'RSS before':>10} {'peak RSS':>9} {'wall s':>7}  outcome")
    for r in rows:
        before, peak = r.get("rss_before_mib", "-"), r.get("peak_rss_mib", "-")
        print(f"{r['case']:<15} {r['code'].split()[0]:<8} {before:>10} {peak:>9} "
              f"{r.get('wall_s', '-'):>7}  {r['outcome']}")  # fmt: skip


if __name__ == "__main__":
    main()
