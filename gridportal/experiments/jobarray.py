"""A sweep as a Slurm job array, and its results uploaded back.

HPC centres run parameter campaigns as Slurm job arrays rather than Celery workers on compute
nodes.  :func:`sweep_jobarray_zip` packs what a cluster needs to compute a sweep's runs with the
engine's own command line (``python -m scheduler run`` = ``gridportal-sim run``): the inputs, one
parameter file per run, ``run-task.sh INDEX`` and one ``sbatch`` script per array of at most
:data:`MAX_ARRAY_TASKS` tasks (Slurm's default ``MaxArraySize`` is 1001).  Each task writes
``results/<run id>.json``; :func:`sweep_upload_results` takes those files (or a zip of them)
back, checks each against the run it claims to be (kind, parameters, seed, the Result contract)
and stores them all or none.  A run that already has a result must get the same one back: the
engine is deterministic, so a difference means different inputs or a different engine.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import PurePosixPath
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from scheduler import engine

from .models import Experiment, Sweep, SweepRun
from .services import run_inputs_of

__all__ = ["MAX_ARRAY_TASKS", "check_result", "sweep_jobarray_zip", "sweep_upload_results"]

MAX_ARRAY_TASKS = 1000
MAX_RESULT_BYTES = 64 * 1024 * 1024
MAX_UPLOAD_MEMBERS = 5000
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


def _read_upload(files: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """Expand zips; bounded in members, sizes and names."""
    out: list[tuple[str, bytes]] = []
    total = 0
    for name, data in files:
        if data[:4] == b"PK\x03\x04":
            try:
                zf = zipfile.ZipFile(io.BytesIO(data))
                members = [m for m in zf.infolist() if not m.is_dir()]
            except zipfile.BadZipFile as exc:
                raise ValidationError({"file": [f"{name}: not a readable zip ({exc})"]}) from None
            if len(members) > MAX_UPLOAD_MEMBERS:
                raise ValidationError(
                    {"file": [f"{name}: {len(members)} files (max {MAX_UPLOAD_MEMBERS})"]}
                )
            for m in members:
                if m.file_size > MAX_RESULT_BYTES:
                    raise ValidationError(
                        {"file": [f"{name}/{m.filename}: larger than {MAX_RESULT_BYTES:,} bytes"]}
                    )
                total += m.file_size
                if total > MAX_UPLOAD_TOTAL:
                    raise ValidationError(
                        {"file": [f"{name}: more than {MAX_UPLOAD_TOTAL:,} bytes unpacked"]}
                    )
                with zf.open(m) as fh:
                    body = fh.read(MAX_RESULT_BYTES + 1)
                if len(body) > MAX_RESULT_BYTES:  # the header lied about the size
                    raise ValidationError({"file": [f"{name}/{m.filename}: too large"]})
                out.append((f"{name}/{m.filename}", body))
        else:
            total += len(data)
            out.append((name, data))
    return out


def check_result(name: str, doc: Any, exp: Experiment) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise ValidationError({"file": [f"{name}: a result must be a JSON object"]})
    for key in ("kind", "params", "seed", "summary", "tables", "charts"):
        if key not in doc:
            raise ValidationError({"file": [f"{name}: missing key {key!r}"]})
    if doc["kind"] != exp.kind or doc["seed"] != exp.seed:
        raise ValidationError(
            {"file": [f"{name}: kind/seed {doc['kind']!r}/{doc['seed']!r} are not run "
                      f"{exp.id}'s ({exp.kind!r}/{exp.seed})"]}
        )  # fmt: skip
    if json.dumps(doc["params"], sort_keys=True) != json.dumps(exp.params, sort_keys=True):
        raise ValidationError({"file": [f"{name}: parameters differ from run {exp.id}'s"]})
    if not isinstance(doc["summary"], dict) or not isinstance(doc["charts"], list):
        raise ValidationError({"file": [f"{name}: summary must be an object, charts a list"]})
    if not isinstance(doc["tables"], list) or not isinstance(doc.get("summary_labels", {}), dict):
        raise ValidationError({"file": [f"{name}: tables must be a list"]})
    for spec in doc["charts"]:
        if not isinstance(spec, dict) or spec.get("type") not in engine.CHART_TYPES:
            raise ValidationError({"file": [f"{name}: a chart has no known type"]})
    for key, value in doc["summary"].items():
        if value is not None and not isinstance(value, int | float | str):
            raise ValidationError({"file": [f"{name}: summary {key!r} is not a number"]})
    return doc


def sweep_upload_results(*, sweep: Sweep, files: list[tuple[str, bytes]]) -> dict[str, int]:
    """Store uploaded results of the sweep's runs, all or none; returns counts."""
    members = _read_upload(files)
    runs = {
        p.experiment_id: p.experiment
        for p in SweepRun.objects.filter(sweep=sweep).select_related("experiment")
    }
    found: dict[int, tuple[str, dict]] = {}
    for name, data in members:
        m = _RESULT_NAME.match(name)
        if m is None:
            continue  # logs, the zip's folder entries...
        run_id = int(m.group(1))
        if run_id not in runs:
            raise ValidationError({"file": [f"{name}: run {run_id} is not a run of this sweep"]})
        try:
            doc = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ValidationError({"file": [f"{name}: not a JSON result ({exc})"]}) from None
        found[run_id] = (name, check_result(name, doc, runs[run_id]))
    if not found:
        raise ValidationError({"file": ["no results/<run id>.json file in the upload"]})
    stored = same = 0
    with transaction.atomic():
        for run_id, (name, doc) in sorted(found.items()):
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
