"""A sweep as a Slurm job array, and its results uploaded back, checked and re-checked.

HPC centres run parameter campaigns as Slurm job arrays rather than Celery workers on compute
nodes.  :func:`sweep_jobarray_zip` packs what a cluster needs to compute a sweep's runs with the
engine's own command line (``python -m scheduler run`` = ``gridportal-sim run``)::

    sweep-<id>/manifest.json        kind, chunk, input files, this export's token
    sweep-<id>/tasks.tsv            one line per run: run id, seed
    sweep-<id>/params/<run>.json    the run's parameters
    sweep-<id>/inputs/…             traces, workflows, configuration documents
    sweep-<id>/run-chunk.py         runs one array task: ``chunk`` runs (:mod:`.jobarray_runner`)
    sweep-<id>/sweep-<id>-partK.sbatch   one array of at most MAX_ARRAY_TASKS tasks each
    sweep-<id>/submit-all.sh, README.txt, logs/, results/

Sites penalise thousands of one-second array tasks, so each task runs ``chunk`` runs: by
default as many as fill :data:`TARGET_TASK_SECONDS`, from the median time the workers took for
this kind's runs on the same inputs (:func:`estimate_run_seconds`), else
:data:`DEFAULT_CHUNK`; the user can choose it on export.  The sbatch scripts need only bash,
python3 and the folder: Slurm runs a copy of a batch script from its spool directory, so a
script finds its folder by this export's token (where it was submitted from, that place's
``sweep-<id>/``, or the path ``scontrol show job`` gives), and Slurm's own output goes beside
where sbatch was called (a folder that exists; ``submit-all.sh`` sends it to ``logs/``).

Each task writes ``results/<run id>.json`` atomically, with the run's provenance (engine
version, sha256 of every input and of the parameters, real start and end).
:func:`sweep_upload_results` takes those files (or a zip of them) back, read in a limited child
(the SWF uploads' limits; zips through :mod:`gridportal.archives`, each result through
:mod:`gridportal.experiments.result_check`): each result is checked against the run it claims
to be (kind, parameters, seed, the Result contract, the provenance: a mismatch is refused
naming the run) and they are staged all or none.  A staged upload waits, its runs queued, while
a sample (``GRIDPORTAL_UPLOAD_RECHECK_FRACTION`` of them, at least one, chosen at random) is
re-run on the workers (:func:`upload_recheck`): when every sampled run comes out the same
(numbers to a relative 1e-9, the rest exactly), the upload is accepted and its runs succeed,
marked computed elsewhere (``Experiment.provenance``); one difference refuses the whole upload
and its runs fail with a message naming the run and the value.  Results computed elsewhere are
never reused for another run (:func:`gridportal.experiments.sweeps._reusable_runs`).  A run
that already has a result must get the same one back: the engine is deterministic, so a
difference means different inputs or a different engine.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import math
import os
import random
import re
import secrets
import shutil
import tempfile
import zipfile
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath
from statistics import median
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from gridportal.archives import open_archive, refuse
from gridportal.limits import KilledFromOutside, LimitExceeded
from scheduler import engine

from .jobarray_runner import FORMAT, params_sha256
from .models import Experiment, ResultUpload, Sweep, SweepRun
from .result_check import check_result, load_json, result_params_match
from .services import ENQUEUE_RETRY_POLICY, RunInputs, experiment_compute, run_inputs_of

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_CHUNK",
    "computed_elsewhere_text",
    "MAX_ARRAY_TASKS",
    "RECHECK_TASK",
    "TARGET_TASK_SECONDS",
    "sweep_jobarray_zip",
    "sweep_upload_results",
    "upload_recheck",
]

MAX_ARRAY_TASKS = 1000  # Slurm's default MaxArraySize is 1001
MAX_CHUNK = 2000  # a sweep's runs at most (sweeps.MAX_RUNS)
#: How long an array task should run: minutes, not seconds (schedulers penalise short jobs).
TARGET_TASK_SECONDS = 600
#: Runs per task when the workers never ran this kind on these inputs: 20 runs of about
#: 30 s (engine start included) fill the 10 minutes of TARGET_TASK_SECONDS.
DEFAULT_CHUNK = 20
#: Seconds each run adds to a task besides its engine time (starting the engine's process).
RUN_START_SECONDS = 2.0
MAX_UPLOAD_TOTAL = 512 * 1024 * 1024
#: The Celery task that re-runs one sampled run of an upload (``tasks.recheck_upload_task``).
RECHECK_TASK = "gridportal.experiments.recheck_upload"
#: Clocks of a cluster and of the portal differ: start/end times may be this far ahead.
CLOCK_SKEW = timedelta(hours=1)
_RESULT_NAME = re.compile(r"^(?:.*/)?(\d{1,12})\.json$")
_RUNNER = Path(__file__).with_name("jobarray_runner.py")


def computed_elsewhere_text(provenance: dict[str, Any]) -> str:
    """One line (ASCII) saying where a result computed elsewhere came from."""
    prov = provenance if isinstance(provenance, dict) else {}
    parts = [f"engine {prov['engine_version']}" if prov.get("engine_version") else ""]
    if prov.get("host"):
        parts.append(f"on {prov['host']}")
    if prov.get("started_at") and prov.get("finished_at"):
        parts.append(f"{prov['started_at']} .. {prov['finished_at']}")
    if prov.get("upload"):
        parts.append(f"upload {prov['upload']}")
    detail = ", ".join(p for p in parts if p)
    text = f"computed elsewhere: {prov.get('via') or 'not by this portal'}" + (
        f" ({detail})" if detail else ""
    )
    return text.encode("ascii", "replace").decode()[:300]


def _suffix(name: str) -> str:
    lower = name.lower()
    for ext in (".swf.gz", ".gz", ".swf", ".xml", ".yml", ".yaml", ".json"):
        if lower.endswith(ext):
            return ext
    return ""


def _document_bytes(doc: Any) -> bytes:
    return (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode()


def input_files(inputs: RunInputs) -> list[tuple[str, str, Any, str]]:
    """(flag, path in the folder, stored row or document, sha256) of every input the runs read,
    in the order the engine's command line takes them; the export writes them, the upload
    compares the hashes a result carries with these."""
    out: list[tuple[str, str, Any, str]] = []
    for k, trace in enumerate(inputs.traces):
        out.append(("--trace", f"inputs/trace-{k + 1}{_suffix(trace.file.name) or '.swf'}",
                    trace, trace.sha256))  # fmt: skip
    for k, workflow in enumerate(inputs.workflows):
        name = f"inputs/workflow-{k + 1}{_suffix(workflow.file.name) or '.json'}"
        out.append(("--workflow", name, workflow, workflow.sha256))
    for flag, docs in (("--policies", inputs.policies), ("--topology", inputs.topologies)):
        for k, doc in enumerate(docs):
            body = _document_bytes(doc)
            out.append((flag, f"inputs/{flag[2:]}-{k + 1}.json", doc,
                        hashlib.sha256(body).hexdigest()))  # fmt: skip
    return out


def estimate_run_seconds(sweep: Sweep) -> float | None:
    """The median engine time of the last 50 runs of the sweep's kind that the workers
    finished on the same first trace (or workflow; any inputs when the kind takes none)."""
    rows = Experiment.objects.filter(
        kind=sweep.kind,
        status=Experiment.Status.SUCCEEDED,
        provenance__isnull=True,
        started_at__isnull=False,
        finished_at__isnull=False,
    )
    trace = sweep.traces.order_by("id").first()
    workflow = sweep.workflows.order_by("id").first()
    if trace is not None:
        rows = rows.filter(traces=trace)
    elif workflow is not None:
        rows = rows.filter(workflows=workflow)
    spans = [
        (end - start).total_seconds()
        for start, end in rows.order_by("-finished_at").values_list("started_at", "finished_at")[
            :50
        ]
    ]
    spans = [s for s in spans if s >= 0]
    return median(spans) if spans else None


def default_chunk(sweep: Sweep, runs: int) -> int:
    """Runs per array task: enough to fill TARGET_TASK_SECONDS (see the module docstring)."""
    seconds = estimate_run_seconds(sweep)
    if seconds is None:
        chunk = DEFAULT_CHUNK
    else:
        chunk = int(TARGET_TASK_SECONDS // (seconds + RUN_START_SECONDS))
    return max(1, min(chunk, runs))


def _sbatch_script(sweep: Sweep, part: int, tasks: int, offset: int, chunk: int, token: str,
                   time_limit: str) -> str:  # fmt: skip
    folder = f"sweep-{sweep.pk}"
    marker = f'"export": "{token}"'
    return (
        "#!/bin/bash\n"
        f"#SBATCH --job-name=gridportal-sweep-{sweep.pk}-{part}\n"
        f"#SBATCH --array=0-{tasks - 1}\n"
        "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
        f"#SBATCH --time={time_limit}\n"
        f"# Sweep {sweep.pk} ({sweep.kind}), part {part}: array tasks {offset}.."
        f"{offset + tasks - 1} of run-chunk.py, {chunk} run(s) each.\n"
        "# Submit it from anywhere (sbatch PATH/TO/THIS), or all parts with ./submit-all.sh.\n"
        "# Slurm writes the output beside where sbatch was called (slurm-JOB_TASK.out), a\n"
        "# folder that exists; submit-all.sh sends it to this folder's logs/ instead.\n"
        "set -euo pipefail\n"
        "# Slurm runs a copy of this script: find the folder it came from by this export's\n"
        "# token (manifest.json), wherever sbatch was called.\n"
        "here=''\n"
        f'for d in "${{GRIDPORTAL_JOBARRAY_DIR:-}}" "$(dirname "$0")" "$PWD" '
        f'"${{SLURM_SUBMIT_DIR:-}}" "${{SLURM_SUBMIT_DIR:-.}}/{folder}"; do\n'
        f'  if [ -n "$d" ] && grep -qsF \'{marker}\' "$d/manifest.json"; then\n'
        '    here=$(cd "$d" && pwd); break\n'
        "  fi\n"
        "done\n"
        'if [ -z "$here" ] && [ -n "${SLURM_JOB_ID:-}" ] && command -v scontrol >/dev/null; then\n'
        '  script=$(scontrol show job "$SLURM_JOB_ID" 2>/dev/null'
        " | sed -n 's/^ *Command=\\([^ ]*\\).*$/\\1/p' | head -n 1 || true)\n"
        '  d=$(dirname "${script:-.}")\n'
        f'  if grep -qsF \'{marker}\' "$d/manifest.json"; then here=$(cd "$d" && pwd); fi\n'
        "fi\n"
        'if [ -z "$here" ]; then\n'
        f'  echo "cannot find the folder {folder} of this job array (manifest.json with '
        f"export {token}): submit with {folder}/submit-all.sh, or set "
        'GRIDPORTAL_JOBARRAY_DIR" >&2\n'
        "  exit 2\n"
        "fi\n"
        'cd "$here"\n'
        f'exec "${{PYTHON:-python3}}" run-chunk.py "$(( SLURM_ARRAY_TASK_ID + {offset} ))"\n'
    )


def sweep_jobarray_zip(
    *, sweep: Sweep, time_limit: str = "04:00:00", chunk: int | None = None
) -> tuple[bytes, int]:
    """The zip for the sweep's runs that have no result yet, and how many runs it holds.
    ``chunk``: runs per array task (None: :func:`default_chunk`)."""
    if sweep.slurm_sites.exists():
        raise ValidationError(
            {"sweep": ["a Slurm site's what-if runs on the portal's workers only: its sweep is "
                       "not exported as a job array"]}
        )  # fmt: skip
    runs = [
        p.experiment
        for p in sweep.points.select_related("experiment").order_by("index", "repetition")
        if p.experiment.status != Experiment.Status.SUCCEEDED
    ]
    runs = list({r.id: r for r in runs}.values())  # a run shared by two points once
    if not runs:
        raise ValidationError({"sweep": ["every run of this sweep has its result already"]})
    if chunk is None:
        chunk = default_chunk(sweep, len(runs))
    elif not isinstance(chunk, int) or not 1 <= chunk <= MAX_CHUNK:
        raise ValidationError({"chunk": [f"runs per array task: an integer in 1..{MAX_CHUNK}"]})
    chunk = min(chunk, len(runs))
    tasks = math.ceil(len(runs) / chunk)
    token = secrets.token_hex(8)
    top = PurePosixPath(f"sweep-{sweep.pk}")
    files = input_files(run_inputs_of(sweep))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:

        def put(path: str, data: bytes | str, mode: int = 0o644) -> None:
            info = zipfile.ZipInfo(str(top / path), date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)

        def folder(path: str) -> None:  # an empty folder that unzip creates
            info = zipfile.ZipInfo(f"{top / path}/", date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o40000 | 0o755) << 16 | 0x10
            zf.writestr(info, b"")

        for _, name, row, _ in files:
            if isinstance(row, dict | list):
                put(name, _document_bytes(row))
            else:
                with row.file.open("rb") as fh:
                    put(name, fh.read())
        lines = []
        for exp in runs:
            put(f"params/{exp.id}.json", json.dumps(exp.params, indent=1, sort_keys=True) + "\n")
            lines.append(f"{exp.id}\t{exp.seed}\n")
        put("tasks.tsv", "".join(lines))
        manifest = {
            "format": "gridportal-jobarray",
            "version": 2,
            "sweep": sweep.pk,
            "kind": sweep.kind,
            "runs": len(runs),
            "chunk": chunk,
            "tasks": tasks,
            "export": token,
            "engine_version": engine.engine_version(),
            "inputs": [{"flag": flag, "path": name} for flag, name, _, _ in files],
        }
        put("manifest.json", json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        put("run-chunk.py", _RUNNER.read_bytes(), 0o755)
        folder("logs")
        folder("results")
        scripts = []
        for k, offset in enumerate(range(0, tasks, MAX_ARRAY_TASKS)):
            script = f"sweep-{sweep.pk}-part{k + 1}.sbatch"
            scripts.append(script)
            n = min(MAX_ARRAY_TASKS, tasks - offset)
            put(script, _sbatch_script(sweep, k + 1, n, offset, chunk, token, time_limit), 0o755)
        put(
            "submit-all.sh",
            "#!/bin/sh\n"
            "# Submit every array of this folder, from anywhere; their output goes to logs/.\n"
            'set -eu\nhere=$(cd "$(dirname "$0")" && pwd)\nmkdir -p "$here/logs"\ncd "$here"\n'
            + "".join(
                f'${{SBATCH:-sbatch}} --chdir="$here" --output="$here/logs/%x-%A_%a.out" {s}\n'
                for s in scripts
            ),
            0o755,
        )
        put(
            "README.txt",
            f"GridPortal sweep {sweep.pk} ({sweep.kind}): {len(runs)} runs in {tasks} Slurm "
            f"array task(s) of {chunk} run(s) each, as {len(scripts)} job array(s).\n\n"
            "1. Copy this folder to the cluster; install the engine there, version "
            f"{engine.engine_version()} (pip install gridportal-sim, then "
            "GRIDPORTAL_SIM=gridportal-sim; or a checkout on PYTHONPATH for "
            "`python3 -m scheduler`).\n"
            "2. ./submit-all.sh  (from anywhere; Slurm's output goes to logs/), or sbatch each "
            "sweep-*.sbatch yourself, from any folder (the output then goes to slurm-*.out "
            "where you called sbatch).  Without Slurm: python3 run-chunk.py TASK.\n"
            "   A task skips the runs whose results/<run>.json exists: submit again after a "
            "time limit or a failure, and only what is missing runs.\n"
            "3. When the arrays are done: zip the results folder and upload it back:\n"
            "     python3 -m zipfile -c results.zip results/\n"
            "     curl -H 'Authorization: Token <your token>' -F file=@results.zip "
            f"<portal>/api/sweeps/{sweep.pk}/upload-results/\n"
            "   The portal checks every result against its run (kind, parameters, seed, the "
            "engine version, the sha256 of the inputs and parameters), stores all or none, "
            "and re-runs a sample of them on its workers before accepting them: do not edit "
            "the results.  They are shown as computed elsewhere and never reused.\n",
        )
    return buf.getvalue(), len(runs)


Upload = bytes | IO[bytes]
#: kind, seed, parameters, the parameters' sha256, the run's creation (POSIX seconds)
RunSpec = tuple[str, int, dict, str, float]


def _parse_time(value: Any, field: str) -> datetime | str:
    if not isinstance(value, str):
        return f"provenance.{field}: must be an ISO 8601 time with its offset"
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return f"provenance.{field}: {value[:40]!r} is not an ISO 8601 time"
    if when.tzinfo is None:
        return f"provenance.{field}: {value[:40]!r} has no UTC offset"
    return when


def provenance_problem(
    prov: Any, *, run_id: int, spec: RunSpec, expected: dict[str, Any], now: float
) -> tuple[str | None, dict[str, Any]]:
    """Why a result's provenance is not the exported run's (or None), and its clean copy."""
    if not isinstance(prov, dict) or prov.get("format") != FORMAT:
        return ("no provenance (engine version, input and parameter hashes): compute it with "
                "the exported job array's run-chunk.py"), {}  # fmt: skip
    if prov.get("run") != run_id:
        return f"provenance.run is {str(prov.get('run'))[:20]}, not {run_id}", {}
    version = prov.get("engine_version")
    if version != expected["engine_version"]:
        return (f"computed by engine version {str(version)[:40]!r}; this portal runs "
                f"{expected['engine_version']!r} (install that version)"), {}  # fmt: skip
    if prov.get("params_sha256") != spec[3]:
        return ("provenance.params_sha256 is not the sha256 of the run's parameters "
                "(params file changed?)"), {}  # fmt: skip
    given = prov.get("inputs_sha256")
    if not isinstance(given, dict):
        return "provenance.inputs_sha256: must be an object (input file -> sha256)", {}
    for name, sha in expected["inputs"].items():
        if given.get(name) != sha:
            return (f"provenance.inputs_sha256: {name} is not the exported file "
                    "(changed or replaced?)"), {}  # fmt: skip
    for name in given:
        if name not in expected["inputs"]:
            return f"provenance.inputs_sha256: {str(name)[:80]} is not an input of the run", {}
    times = {f: _parse_time(prov.get(f), f) for f in ("started_at", "finished_at")}
    for why in times.values():
        if isinstance(why, str):
            return why, {}
    start, end = times["started_at"], times["finished_at"]
    assert isinstance(start, datetime) and isinstance(end, datetime)
    if end < start:
        return "provenance.finished_at is before its started_at", {}
    if end.timestamp() > now + CLOCK_SKEW.total_seconds():
        return "provenance.finished_at is in the future", {}
    if start.timestamp() < spec[4] - CLOCK_SKEW.total_seconds():
        return "provenance.started_at is before the run was created", {}
    clean = {
        "computed": "elsewhere",
        "via": "a Slurm job array",
        "engine_version": version,
        "inputs_sha256": dict(expected["inputs"]),
        "params_sha256": spec[3],
        "started_at": start.isoformat(),
        "finished_at": end.isoformat(),
        "host": str(prov.get("host") or "")[:200],
        "slurm_job": str(prov.get("slurm_job") or "")[:100],
    }
    return None, clean


def _read_results(
    files: list[tuple[str, Upload]],
    specs: dict[int, RunSpec],
    expected: dict[str, Any],
    outdir: str,
    now: float,
) -> list[tuple[int, str, str]]:
    """(In a limited child) read the uploaded files and zips, check every result against its
    run and write each checked result to ``outdir``; returns (run id, name, path) sorted."""
    cap = settings.GRIDPORTAL_MAX_RESULT_BYTES
    found: dict[int, tuple[str, str]] = {}

    def take(name: str, body: bytes) -> None:
        run_id = int(_RESULT_NAME.match(name).group(1))  # type: ignore[union-attr]
        if run_id not in specs:
            raise refuse(f"{name}: run {run_id} is not a run of this sweep")
        if run_id in found:
            raise refuse(f"{name}: a second result of run {run_id} (first: {found[run_id][0]})")
        doc = check_result(load_json(body, name=name), name=name)
        why, prov = provenance_problem(
            doc.pop("provenance", None), run_id=run_id, spec=specs[run_id], expected=expected,
            now=now,
        )  # fmt: skip
        if why:
            raise refuse(f"{name}: run {run_id}: {why}")
        kind, seed, params = specs[run_id][:3]
        why = result_params_match(doc, kind=kind, seed=seed, params=params)
        if why:
            raise refuse(f"{name}: {why.replace('the run', f'run {run_id}')}")
        path = os.path.join(outdir, f"{run_id}.json")
        with open(path, "w", encoding="utf-8") as out:
            json.dump({"result": doc, "provenance": prov}, out)
        found[run_id] = (name, path)

    for name, data in files:
        stream = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
        stream.seek(0)
        head = stream.read(4)
        stream.seek(0)
        if head[:2] == b"PK":
            archive = open_archive(stream, label=name)
            for member in archive.members:
                inner = f"{name}/{member.orig_filename}"
                if _RESULT_NAME.match(inner) is None:
                    continue  # logs, the zip's folder entries... (never read)
                body = archive.read(member.orig_filename, max_bytes=cap,
                                    cap_name="GRIDPORTAL_MAX_RESULT_BYTES")  # fmt: skip
                take(inner, body)
        elif _RESULT_NAME.match(name) is not None:
            body = stream.read(cap + 1)
            if len(body) > cap:
                raise refuse(f"{name}: larger than {cap:,} bytes (GRIDPORTAL_MAX_RESULT_BYTES)")
            take(name, body)
    if not found:
        raise refuse("no results/<run id>.json file in the upload")
    return [(run_id, name, path) for run_id, (name, path) in sorted(found.items())]


def sweep_upload_results(*, sweep: Sweep, files: list[tuple[str, Upload]]) -> dict[str, Any]:
    """Stage uploaded results of the sweep's runs (files or zips, as bytes or open files), all
    or none, and queue the re-run of a sample on the workers; returns counts and the upload."""
    from gridportal.inputs.services import upload_limited

    runs = {
        p.experiment_id: p.experiment
        for p in SweepRun.objects.filter(sweep=sweep).select_related("experiment")
    }
    specs = {
        run_id: (exp.kind, exp.seed, exp.params, params_sha256(exp.params),
                 exp.created.timestamp())
        for run_id, exp in runs.items()
    }  # fmt: skip
    expected = {
        "engine_version": engine.engine_version(),
        "inputs": {name: sha for _, name, _, sha in input_files(run_inputs_of(sweep))},
    }
    outdir = tempfile.mkdtemp(prefix="gridportal-results-")
    try:
        found = upload_limited(
            _read_results, files, specs, expected, outdir, timezone.now().timestamp(),
            what="reading the uploaded results",
        )  # fmt: skip
        return _store_results(sweep, found, runs)
    finally:
        shutil.rmtree(outdir, ignore_errors=True)


def _lost_after() -> timedelta:
    """An upload still checking after this long lost its re-runs' task messages: a new upload
    of the same runs may take its place (the re-run's own time limit, and as long again)."""
    return timedelta(seconds=2 * settings.GRIDPORTAL_TASK_TIME_LIMIT)


def recheck_fraction() -> float:
    fraction = float(settings.GRIDPORTAL_UPLOAD_RECHECK_FRACTION)
    return min(1.0, max(0.0, fraction)) if math.isfinite(fraction) else 1.0


def _checking_message(sample: int, runs: int) -> str:
    return (f"uploaded from a Slurm job array; waiting while {sample} of the upload's {runs} "
            "runs are re-run on the workers to check it")[:200]  # fmt: skip


def _store_results(sweep: Sweep, found: list[tuple[int, str, str]], runs: dict) -> dict[str, Any]:
    """Stage the checked results (loaded one at a time), all or none; the sample's re-runs
    are queued once they are committed."""
    staged: list[int] = []
    same = 0
    with transaction.atomic():
        upload = ResultUpload.objects.create(sweep=sweep)
        for run_id, name, path in found:
            with open(path, encoding="utf-8") as fh:
                checked = json.load(fh)  # checked in the child: bounded and storable
            doc, prov = checked["result"], checked["provenance"]
            exp = Experiment.objects.select_for_update().get(pk=run_id)
            if exp.status == Experiment.Status.SUCCEEDED:
                if json.dumps(exp.result, sort_keys=True) != json.dumps(doc, sort_keys=True):
                    raise ValidationError(
                        {"file": [f"{name}: run {run_id} already has a different result "
                                  "(other inputs or engine version?)"]}
                    )  # fmt: skip
                same += 1
                continue
            if exp.status == Experiment.Status.RUNNING:
                raise refuse(f"{name}: run {run_id} is running on the portal's workers")
            earlier = (exp.provenance or {}).get("upload")
            if exp.status == Experiment.Status.QUEUED and earlier:
                checking = ResultUpload.objects.filter(
                    pk=earlier, status=ResultUpload.Status.CHECKING
                )
                if checking.filter(created__gt=timezone.now() - _lost_after()).exists():
                    raise refuse(f"{name}: run {run_id}: an earlier upload ({earlier}) of its "
                                 "result is still being checked")  # fmt: skip
                checking.update(  # its re-runs never reported back (a lost task message)
                    status=ResultUpload.Status.REFUSED,
                    message=f"its re-runs on the workers never finished; upload {upload.pk} "
                    "took its place",
                )
            exp.status = Experiment.Status.QUEUED
            exp.result, exp.progress, exp.error = doc, 0.0, ""
            exp.provenance = {**prov, "upload": upload.pk}
            exp.started_at = datetime.fromisoformat(prov["started_at"])
            exp.finished_at = datetime.fromisoformat(prov["finished_at"])
            exp.save(
                update_fields=[
                    "status", "result", "progress", "error", "provenance", "started_at",
                    "finished_at",
                ]
            )  # fmt: skip
            staged.append(run_id)
        if not staged:
            upload.delete()
            return {"stored": 0, "unchanged": same, "runs": len(runs), "upload": None}
        size = min(len(staged), max(1, math.ceil(recheck_fraction() * len(staged))))
        sample = sorted(random.SystemRandom().sample(staged, size))
        upload.runs, upload.sample = staged, sample
        upload.message = _checking_message(len(sample), len(staged))
        upload.save(update_fields=["runs", "sample", "message"])
        Experiment.objects.filter(pk__in=staged).update(message=upload.message)
        transaction.on_commit(lambda: _enqueue_rechecks(upload.pk, sample))
    return {
        "stored": len(staged),
        "unchanged": same,
        "runs": len(runs),
        "upload": upload.as_json(),
    }


def _enqueue_rechecks(upload_id: int, sample: list[int]) -> None:
    from gridportal.celery import app

    try:
        for run_id in sample:
            app.send_task(
                RECHECK_TASK,
                args=(upload_id, run_id),
                queue=settings.CELERY_TASK_DEFAULT_QUEUE,
                retry=True,
                retry_policy=ENQUEUE_RETRY_POLICY,
            )
    except Exception as exc:  # any broker failure: the upload cannot be checked
        log.warning("upload %s: re-runs not queued: %s: %s", upload_id, type(exc).__name__, exc)
        upload_refuse(upload_id, f"its re-runs on the workers could not be queued (the task "
                      f"queue is unreachable: {type(exc).__name__}); upload the results again "
                      "later")  # fmt: skip


def _refuse_locked(upload: ResultUpload, why: str) -> None:
    upload.status = ResultUpload.Status.REFUSED
    upload.message = why
    upload.save(update_fields=["status", "message", "checked"])
    Experiment.objects.filter(
        pk__in=upload.runs, status=Experiment.Status.QUEUED, provenance__upload=upload.pk
    ).update(
        status=Experiment.Status.FAILED,
        result=None,
        provenance=None,
        progress=0.0,
        message="failed",
        error=f"the uploaded results were refused: {why}",
        finished_at=timezone.now(),
    )


def upload_refuse(upload_id: int, why: str) -> None:
    with transaction.atomic():
        upload = ResultUpload.objects.select_for_update().filter(pk=upload_id).first()
        if upload is not None and upload.status == ResultUpload.Status.CHECKING:
            _refuse_locked(upload, why)


def _accept_locked(upload: ResultUpload) -> None:
    upload.status = ResultUpload.Status.ACCEPTED
    matched = sum(1 for v in upload.checked.values() if v == "matched")
    upload.message = (f"accepted: {matched} of its {len(upload.runs)} runs re-run on the workers "
                      "gave the same results")  # fmt: skip
    upload.save(update_fields=["status", "message", "checked"])
    Experiment.objects.filter(
        pk__in=upload.runs, status=Experiment.Status.QUEUED, provenance__upload=upload.pk
    ).update(
        status=Experiment.Status.SUCCEEDED,
        progress=1.0,
        message="done (computed elsewhere: uploaded from a Slurm job array)",
    )


#: Numbers a re-run must give to this relative tolerance (another CPU or BLAS may round the
#: last bits differently); everything else exactly.
RECHECK_REL_TOL = 1e-9


def first_difference(uploaded: Any, computed: Any, path: str = "") -> str | None:
    """The first place where two JSON values differ, with both values, or None."""

    def shown(value: Any) -> str:
        text = json.dumps(value, sort_keys=True)
        return text if len(text) <= 60 else text[:57] + "..."

    where, again = path or "the result", "re-running it on the workers gave"
    num = (int, float)
    if isinstance(uploaded, num) and isinstance(computed, num) and not isinstance(
        uploaded, bool
    ) and not isinstance(computed, bool):  # fmt: skip
        if math.isclose(uploaded, computed, rel_tol=RECHECK_REL_TOL, abs_tol=1e-12):
            return None
        return f"{where}: the upload says {shown(uploaded)}, {again} {shown(computed)}"
    if isinstance(uploaded, dict) and isinstance(computed, dict):
        for key in sorted(set(uploaded) | set(computed), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in uploaded or key not in computed:
                side = "the upload" if key not in uploaded else "the workers' re-run"
                return f"{sub}: missing in {side}"
            why = first_difference(uploaded[key], computed[key], sub)
            if why:
                return why
        return None
    if isinstance(uploaded, list) and isinstance(computed, list):
        if len(uploaded) != len(computed):
            return (f"{where}: {len(uploaded)} items in the upload, {len(computed)} in the "
                    "workers' re-run")  # fmt: skip
        for k, (a, b) in enumerate(zip(uploaded, computed, strict=True)):
            why = first_difference(a, b, f"{path}[{k}]")
            if why:
                return why
        return None
    if uploaded != computed or type(uploaded) is not type(computed):
        return f"{where}: the upload says {shown(uploaded)}, {again} {shown(computed)}"
    return None


def _record(upload_id: int, run_id: int, finding: str, why: str | None) -> str:
    """Record what the re-run of a sampled run found; refuse the upload on a difference,
    accept it once every sampled run matched. Returns the upload's status."""
    with transaction.atomic():
        upload = ResultUpload.objects.select_for_update().filter(pk=upload_id).first()
        if upload is None:
            return "missing"
        if upload.status != ResultUpload.Status.CHECKING:
            return upload.status
        upload.checked = {**upload.checked, str(run_id): finding}
        if why:
            _refuse_locked(upload, f"run {run_id}: {why}"[:2000])
        elif all(str(r) in upload.checked for r in upload.sample):
            _accept_locked(upload)
        else:
            upload.save(update_fields=["checked"])
        return upload.status


def upload_recheck(*, upload_id: int, run_id: int) -> str:
    """(On a worker) re-run one sampled run of an upload under the run limits and compare its
    result with the uploaded one; returns the upload's status afterwards."""
    upload = ResultUpload.objects.filter(pk=upload_id).first()
    if upload is None or upload.status != ResultUpload.Status.CHECKING:
        return upload.status if upload else "missing"
    exp = Experiment.objects.filter(
        pk=run_id, status=Experiment.Status.QUEUED, provenance__upload=upload_id
    ).first()
    if exp is None:  # cancelled or deleted meanwhile: nothing of it will be stored
        return _record(upload_id, run_id, "skipped: the run was cancelled or deleted", None)
    try:
        computed = experiment_compute(exp, what="the re-run of an uploaded result")
    except (LimitExceeded, KilledFromOutside) as exc:
        return _record(upload_id, run_id, "failed", f"re-running it on the workers failed: "
                       f"{exc.message}")  # fmt: skip
    except (OperationalError, InterfaceError):
        raise  # the database went away: the task retries
    except Exception as exc:  # the engine refused it: the upload cannot be right
        return _record(upload_id, run_id, "failed", f"re-running it on the workers failed: "
                       f"{type(exc).__name__}: {str(exc)[:300]}")  # fmt: skip
    computed = json.loads(json.dumps(computed))  # as the database stores it
    why = first_difference(exp.result, computed)
    return _record(upload_id, run_id, "matched" if why is None else "differs", why)
