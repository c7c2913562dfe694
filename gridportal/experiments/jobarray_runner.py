#!/usr/bin/env python3
"""Run one task of a GridPortal job array: a chunk of a sweep's runs, one after another.

    python3 run-chunk.py TASK        (TASK counts from 0; the sbatch scripts pass
                                      $SLURM_ARRAY_TASK_ID plus their part's offset)

Task TASK runs the lines ``TASK * chunk .. TASK * chunk + chunk - 1`` of ``tasks.tsv`` (run id,
seed), ``chunk`` as ``manifest.json`` gives it.  This file is shipped in every exported job
array as ``run-chunk.py``; it needs Python 3's standard library and the engine's command line:
``$GRIDPORTAL_SIM`` if set (e.g. ``gridportal-sim``, which ``pip install gridportal-sim``
gives), else this Python's ``-m scheduler``.

Resumable: each run's result is written beside its final name and renamed into place
(``results/<run id>.json``), so a file that is there is complete, and a task that starts again
(after a time limit, a pre-emption, a ``scancel``) skips the runs already done.

Each result carries ``provenance``: the engine's version (``--version``), the sha256 of every
input file and of the parameters (their canonical JSON), the real start and end of the run
(UTC, ISO 8601), the host and the Slurm job.  The portal refuses an upload whose provenance
does not match the runs it exported, and stores the start and end as the run's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import socket
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

FORMAT = "gridportal-jobarray-result"


def params_sha256(params: dict) -> str:
    """The sha256 of parameters as canonical JSON (keys sorted, no spaces, UTF-8)."""
    text = json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")  # noqa: UP017


def _write_atomically(path: Path, text: str) -> None:
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    with open(part, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(part, path)  # readers see the whole file or none


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python3 run-chunk.py TASK   (0-based task number)", file=sys.stderr)
        return 2
    task = int(argv[0])
    folder = Path(__file__).resolve().parent
    os.chdir(folder)  # every path of the manifest is relative to the folder
    manifest = json.loads(Path("manifest.json").read_text(encoding="utf-8"))
    chunk = int(manifest["chunk"])
    lines = [ln.split("\t") for ln in Path("tasks.tsv").read_text().splitlines() if ln.strip()]
    mine = lines[task * chunk : (task + 1) * chunk]
    if not mine:
        print(f"task {task}: no runs (tasks.tsv has {len(lines)}, {chunk} per task)",
              file=sys.stderr)  # fmt: skip
        return 2
    sim = shlex.split(os.environ.get("GRIDPORTAL_SIM", "")) or [sys.executable, "-m", "scheduler"]
    Path("results").mkdir(exist_ok=True)
    todo = [(run, seed) for run, seed in mine if not Path(f"results/{run}.json").exists()]
    print(f"task {task}: runs {mine[0][0]}..{mine[-1][0]}: {len(mine) - len(todo)} already "
          f"done, {len(todo)} to run", flush=True)  # fmt: skip
    if not todo:
        return 0
    probe = subprocess.run([*sim, "--version"], capture_output=True, text=True)
    if probe.returncode != 0:  # the engine does not start here: say why, run nothing
        print(f"task {task}: {shlex.join(sim)} --version exited with {probe.returncode}:\n"
              f"{probe.stderr.strip()}", file=sys.stderr)  # fmt: skip
        return 3
    version = probe.stdout.strip()
    args: list[str] = []
    inputs: dict[str, str] = {}
    for item in manifest["inputs"]:
        args += [item["flag"], item["path"]]
        inputs[item["path"]] = file_sha256(Path(item["path"]))
    job = os.environ.get("SLURM_ARRAY_JOB_ID") or os.environ.get("SLURM_JOB_ID") or ""
    if job and os.environ.get("SLURM_ARRAY_TASK_ID"):
        job = f"{job}_{os.environ['SLURM_ARRAY_TASK_ID']}"
    failed = []
    for run, seed in todo:
        params_file = Path(f"params/{run}.json")
        params = json.loads(params_file.read_text(encoding="utf-8"))
        engine_out = Path(f"results/.{run}.{os.getpid()}.engine.json")
        started = _now()
        done = subprocess.run(
            [
                *sim,
                "run",
                manifest["kind"],
                "--params",
                str(params_file),
                "--seed",
                seed,
                *args,
                "--out",
                str(engine_out),
            ]  # fmt: skip
        )
        finished = _now()
        if done.returncode != 0:
            print(f"run {run}: the engine failed (exit status {done.returncode})", flush=True)
            engine_out.unlink(missing_ok=True)
            failed.append(run)
            continue
        result = json.loads(engine_out.read_text(encoding="utf-8"))
        result["provenance"] = {
            "format": FORMAT,
            "run": int(run),
            "engine_version": version,
            "inputs_sha256": inputs,
            "params_sha256": params_sha256(params),
            "started_at": started,
            "finished_at": finished,
            "host": socket.gethostname(),
            "slurm_job": job,
        }
        _write_atomically(Path(f"results/{run}.json"), json.dumps(result, sort_keys=True) + "\n")
        engine_out.unlink()
        print(f"run {run}: done ({started} .. {finished})", flush=True)
    if failed:
        print(f"task {task}: {len(failed)} run(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
