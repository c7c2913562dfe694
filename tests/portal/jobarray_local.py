"""An exported job array run here as Slurm would run it, without Slurm.

What sbatch and slurmd do that matters to the exported scripts: the ``#SBATCH`` lines are read
up to the first command; options on sbatch's command line win over them; the job's working
directory is ``--chdir`` or where sbatch was called (``SLURM_SUBMIT_DIR``); the output file
(``--output``, default ``slurm-%A_%a.out``, relative to that directory) is opened before the
script runs, so its folder must exist; each array task runs a *copy* of the script, from a
spool directory, with ``SLURM_ARRAY_TASK_ID``, ``SLURM_ARRAY_JOB_ID`` and ``SLURM_JOB_ID``
set.  ``python -m tests.portal.jobarray_local`` is a stand-in ``sbatch`` for
``submit-all.sh`` (``$SBATCH``).  The real-Slurm test lives beside the Slurm fixture.
"""

from __future__ import annotations

import io
import itertools
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

_JOBS = itertools.count(100 + os.getpid() % 1000 * 1000)


def unpack(data: bytes, into: Path) -> Path:
    """Extract the exported zip with its files' modes (as unzip does); returns its folder."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        zf.extractall(into)
        for info in zf.infolist():
            mode = (info.external_attr >> 16) & 0o777
            if mode and not info.is_dir():
                os.chmod(into / info.filename, mode)
        top = zf.namelist()[0].split("/")[0]
    return into / top


def _options(script: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in script.read_text().splitlines()[1:]:
        if line.startswith("#SBATCH "):
            key, _, value = line[len("#SBATCH ") :].partition("=")
            out[key] = value
        elif line.strip() and not line.startswith("#"):
            break
    return out


def sbatch(args: list[str], *, env: dict[str, str] | None = None, spool: Path | None = None) -> int:
    """``sbatch [--chdir=D] [--output=F] SCRIPT``: runs every task of the array, one after
    another; returns the first failing task's exit status (0 when all succeed)."""
    env = dict(os.environ if env is None else env)
    given = dict(a[2:].partition("=")[::2] for a in args[:-1])
    script = Path(args[-1]).resolve()
    options = {**_options(script), **{f"--{k}": v for k, v in given.items()}}
    submit_dir = Path.cwd()
    workdir = Path(submit_dir, options.get("--chdir", "."))
    first, last = (int(x) for x in options["--array"].split("-"))
    job = next(_JOBS)
    spool_dir = Path(spool or env.get("TMPDIR") or "/tmp") / f"slurmd-spool-{job}"
    spool_dir.mkdir(parents=True)
    copy = spool_dir / "slurm_script"
    shutil.copy(script, copy)
    copy.chmod(0o755)
    name = options.get("--job-name", script.name)
    status = 0
    for task in range(first, last + 1):
        output = (
            options.get("--output", "slurm-%A_%a.out")
            .replace("%x", name)
            .replace("%A", str(job))
            .replace("%a", str(task))
        )
        out_path = workdir / output
        if not out_path.parent.is_dir():  # slurmd cannot open it: the task fails unrun
            print(f"task {task}: cannot open {out_path}", file=sys.stderr)
            status = status or 1
            continue
        task_env = {**env, "SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_JOB_ID": str(job),
                    "SLURM_JOB_ID": str(job + task + 1), "SLURM_SUBMIT_DIR": str(submit_dir),
                    "SLURM_JOB_NAME": name}  # fmt: skip
        with open(out_path, "ab") as out:
            done = subprocess.run(["bash", str(copy)], cwd=workdir, env=task_env, stdout=out,
                                  stderr=subprocess.STDOUT, timeout=600)  # fmt: skip
        status = status or done.returncode
    shutil.rmtree(spool_dir, ignore_errors=True)
    print(f"Submitted batch job {job}")
    return status


if __name__ == "__main__":
    raise SystemExit(sbatch(sys.argv[1:]))
