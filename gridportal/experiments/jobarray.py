"""A sweep as a Slurm job array, and its results uploaded back.

HPC centres run parameter campaigns as Slurm job arrays rather than Celery workers on compute
nodes.  :func:`sweep_jobarray_zip` packs what a cluster needs to compute a sweep's runs with the
engine's own command line (``python -m scheduler run`` = ``gridportal-sim run``): the inputs, one
parameter file per run, ``run-task.sh INDEX`` and one ``sbatch`` script per array of at most
:data:`MAX_ARRAY_TASKS` tasks (Slurm's default ``MaxArraySize`` is 1001).  Each task writes
``results/<run id>.json``; :func:`sweep_upload_results` takes those files (or a zip of them)
back, checks each against the run it claims to be (kind, parameters, seed, the Result contract)
and stores them all or none.  The upload is read in a limited child (the SWF uploads' limits):
zips through :mod:`gridportal.archives`, each result through
:mod:`gridportal.experiments.result_check`; the web process gets back only the checked results,
one small file each, and loads them one at a time to store them.  A run that already has a
result must get the same one back: the engine is deterministic, so a difference means
different inputs or a different engine.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import tempfile
import zipfile
from pathlib import PurePosixPath
from typing import IO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from gridportal.archives import open_archive, refuse

from .models import Experiment, Sweep, SweepRun
from .result_check import check_result, load_json, result_params_match
from .services import run_inputs_of

__all__ = ["MAX_ARRAY_TASKS", "sweep_jobarray_zip", "sweep_upload_results"]

MAX_ARRAY_TASKS = 1000
MAX_UPLOAD_TOTAL = 512 * 1024 * 1024
_RESULT_NAME = re.compile(r"^(?:.*/)?(\d{1,12})\.json$")
_WAITING = "waiting for results from the Slurm job array"


def waiting_message() -> str:
    """The message a run of a ``slurm`` sweep shows until its result is uploaded."""
    return _WAITING


def _suffix(name: str) -> str:
    lower = name.lower()
    for ext in (".swf.gz", ".gz", ".swf", ".xml", ".yml", ".yaml", ".json"):
        if lower.endswith(ext):
            return ext
    return ""


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def sweep_jobarray_zip(*, sweep: Sweep, time_limit: str = "04:00:00") -> tuple[bytes, int]:
    """The zip for the sweep's runs that have no result yet, and how many tasks it holds."""
    runs = [
        p.experiment
        for p in sweep.points.select_related("experiment").order_by("index", "repetition")
        if p.experiment.status != Experiment.Status.SUCCEEDED
    ]
    runs = list({r.id: r for r in runs}.values())  # a run shared by two points once
    if not runs:
        raise ValidationError({"sweep": ["every run of this sweep has its result already"]})
    inputs = run_inputs_of(sweep)
    top = PurePosixPath(f"sweep-{sweep.pk}")
    buf = io.BytesIO()
    args: list[str] = []
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:

        def put(path: str, data: bytes | str, mode: int = 0o644) -> None:
            info = zipfile.ZipInfo(str(top / path), date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)

        for k, trace in enumerate(inputs.traces):
            name = f"inputs/trace-{k + 1}{_suffix(trace.file.name) or '.swf'}"
            with trace.file.open("rb") as fh:
                put(name, fh.read())
            args += ["--trace", name]
        for k, workflow in enumerate(inputs.workflows):
            name = f"inputs/workflow-{k + 1}{_suffix(workflow.file.name) or '.json'}"
            with workflow.file.open("rb") as fh:
                put(name, fh.read())
            args += ["--workflow", name]
        for flag, docs in (("--policies", inputs.policies), ("--topology", inputs.topologies)):
            for k, doc in enumerate(docs):
                name = f"inputs/{flag[2:]}-{k + 1}.json"
                put(name, json.dumps(doc, indent=1, sort_keys=True) + "\n")
                args += [flag, name]
        lines = []
        for exp in runs:
            put(f"params/{exp.id}.json", json.dumps(exp.params, indent=1, sort_keys=True) + "\n")
            lines.append(f"{exp.id}\t{exp.seed}\n")
        put("tasks.tsv", "".join(lines))
        command = " ".join(_shell_quote(a) for a in args)
        put(
            "run-task.sh",
            "#!/bin/sh\n"
            "# Run task INDEX (0-based line of tasks.tsv) with the GridPortal engine.\n"
            "# GRIDPORTAL_SIM names the engine command (default: python3 -m scheduler;\n"
            "# `pip install gridportal-sim` gives the same command as gridportal-sim).\n"
            "set -eu\n"
            'cd "$(dirname "$0")"\n'
            'line=$(sed -n "$(( $1 + 1 ))p" tasks.tsv)\n'
            '[ -n "$line" ] || { echo "no task $1 in tasks.tsv" >&2; exit 2; }\n'
            "run=$(printf '%s' \"$line\" | cut -f1)\n"
            "seed=$(printf '%s' \"$line\" | cut -f2)\n"
            "mkdir -p results\n"
            "${GRIDPORTAL_SIM:-python3 -m scheduler} run "
            f'{_shell_quote(sweep.kind)} --params "params/$run.json" --seed "$seed" '
            f'{command} --out "results/$run.json.part"\n'
            'mv "results/$run.json.part" "results/$run.json"\n',
            0o755,
        )
        parts = [runs[i : i + MAX_ARRAY_TASKS] for i in range(0, len(runs), MAX_ARRAY_TASKS)]
        scripts = []
        for k, part in enumerate(parts):
            script = f"sweep-{sweep.pk}-part{k + 1}.sbatch"
            scripts.append(script)
            put(
                script,
                "#!/bin/bash\n"
                f"#SBATCH --job-name=gridportal-sweep-{sweep.pk}-{k + 1}\n"
                f"#SBATCH --array=0-{len(part) - 1}\n"
                "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
                f"#SBATCH --time={time_limit}\n"
                "#SBATCH --output=logs/%x-%a.out\n"
                f"# {len(part)} runs of sweep {sweep.pk} ({sweep.kind}); tasks "
                f"{k * MAX_ARRAY_TASKS}..{k * MAX_ARRAY_TASKS + len(part) - 1} of tasks.tsv\n"
                'cd "${SLURM_SUBMIT_DIR:-$(dirname "$0")}"\n'
                f'exec ./run-task.sh "$(( SLURM_ARRAY_TASK_ID + {k * MAX_ARRAY_TASKS} ))"\n',
                0o755,
            )
        put(
            "submit-all.sh",
            '#!/bin/sh\nset -eu\ncd "$(dirname "$0")"\nmkdir -p logs\n'
            + "".join(f"${{SBATCH:-sbatch}} {s}\n" for s in scripts),
            0o755,
        )
        put(
            "README.txt",
            f"GridPortal sweep {sweep.pk} ({sweep.kind}): {len(runs)} runs as "
            f"{len(parts)} Slurm job array(s).\n\n"
            "1. Copy this folder to the cluster; install the engine there "
            "(pip install gridportal-sim, or a checkout with `python3 -m scheduler`).\n"
            "2. ./submit-all.sh   (or sbatch each sweep-*.sbatch yourself)\n"
            "3. When the arrays are done: zip the results folder and upload it back:\n"
            "     python3 -m zipfile -c results.zip results/\n"
            "     curl -H 'Authorization: Token <your token>' -F file=@results.zip "
            f"<portal>/api/sweeps/{sweep.pk}/upload-results/\n"
            "   The portal checks every result against its run and stores all or none.\n",
        )
    return buf.getvalue(), len(runs)


Upload = bytes | IO[bytes]
RunSpec = tuple[str, int, dict]  # kind, seed, parameters


def _read_results(
    files: list[tuple[str, Upload]], specs: dict[int, RunSpec], outdir: str
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
        kind, seed, params = specs[run_id]
        why = result_params_match(doc, kind=kind, seed=seed, params=params)
        if why:
            raise refuse(f"{name}: {why.replace('the run', f'run {run_id}')}")
        path = os.path.join(outdir, f"{run_id}.json")
        with open(path, "w", encoding="utf-8") as out:
            json.dump(doc, out)
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


def sweep_upload_results(*, sweep: Sweep, files: list[tuple[str, Upload]]) -> dict[str, int]:
    """Store uploaded results of the sweep's runs (files or zips, as bytes or open files), all
    or none; returns counts."""
    from gridportal.inputs.services import upload_limited

    runs = {
        p.experiment_id: p.experiment
        for p in SweepRun.objects.filter(sweep=sweep).select_related("experiment")
    }
    specs = {run_id: (exp.kind, exp.seed, exp.params) for run_id, exp in runs.items()}
    outdir = tempfile.mkdtemp(prefix="gridportal-results-")
    try:
        found = upload_limited(
            _read_results, files, specs, outdir, what="reading the uploaded results"
        )
        return _store_results(found, runs)
    finally:
        shutil.rmtree(outdir, ignore_errors=True)


def _store_results(found: list[tuple[int, str, str]], runs: dict) -> dict[str, int]:
    """Store the checked results (loaded one at a time), all or none."""
    stored = same = 0
    with transaction.atomic():
        for run_id, name, path in found:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)  # checked in the child: bounded and storable
            exp = Experiment.objects.select_for_update().get(pk=run_id)
            if exp.status == Experiment.Status.SUCCEEDED:
                if json.dumps(exp.result, sort_keys=True) != json.dumps(doc, sort_keys=True):
                    raise ValidationError(
                        {"file": [f"{name}: run {run_id} already has a different result "
                                  "(other inputs or engine version?)"]}
                    )  # fmt: skip
                same += 1
                continue
            exp.status = Experiment.Status.SUCCEEDED
            exp.result, exp.progress, exp.error = doc, 1.0, ""
            exp.message = "done (result uploaded from a Slurm job array)"
            exp.started_at = exp.started_at or timezone.now()
            exp.finished_at = timezone.now()
            exp.save(
                update_fields=[
                    "status", "result", "progress", "error", "message", "started_at",
                    "finished_at",
                ]
            )  # fmt: skip
            stored += 1
    return {"stored": stored, "unchanged": same, "runs": len(runs)}
