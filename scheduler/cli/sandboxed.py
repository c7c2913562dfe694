"""The engine inside the portal's sandbox: ``python -m scheduler.cli.sandboxed RUN_DIR``.

The portal (gridportal/sandbox.py) starts this module in a bubblewrap sandbox whose only
writable folder is ``RUN_DIR``: it holds ``job.json`` and the job's inputs (a policy file, the
run's traces) and receives ``out.json``.  Two jobs:

* ``{"mode": "check", "policy": "policy.py", "class": "Name"}`` — the upload check of a user
  policy: the file compiles (a syntax error names its line), the class is a
  :class:`~scheduler.policies.PriorityPolicy` or :class:`~scheduler.policies.DecisionPolicy`
  with its method, and a dry run on a small generated trace (Lublin & Feitelson 2003) ends;
* ``{"mode": "run", "kind", "params", "seed", "inputs": {name: [trace or workflow files]},
  "workflows": [the workflow inputs' names], "names": {workflow file: the name it is read
  as}, "policies": {"user:<sha prefix>": "policy-….py:Name"}}`` — a whole experiment run
  whose policies include user policies.

``out.json`` is ``{"ok": true, ...}`` or ``{"ok": false, "error": ..., "limit": ...}`` where
``limit`` names the sandbox's wall when the error came from one (``memory`` for an allocation
past the address-space limit, ``processes`` for a fork past the process-count limit).
Progress goes to stdout as lines ``\\x1eprogress <fraction> <message>``.
"""

from __future__ import annotations

import errno
import json
import socket
import sys
from pathlib import Path
from typing import Any

from ..cluster import PolicyError, resolve, run_user_policies, simulate
from ..experiments import ParamError, run_experiment
from ..io import load_trace, load_workflow
from ..traces.lublin import generate_lublin99

#: the dry run of an upload check: a small machine and a day's worth of generated jobs
DRY_RUN_JOBS, DRY_RUN_PROCS, DRY_RUN_SEED = 200, 64, 1


def check(run_dir: Path, job: dict[str, Any]) -> dict[str, Any]:
    """Load the policy file, check its contract and replay a small generated trace."""
    spec = f"{run_dir / job['policy']}:{job['class']}"
    ref = resolve(spec, files=True)
    entry = ref.entry
    trace = generate_lublin99(jobs=DRY_RUN_JOBS, procs=DRY_RUN_PROCS, seed=DRY_RUN_SEED)
    summary = simulate(trace, DRY_RUN_PROCS, ref, "requested").summary()
    return {
        "ok": True,
        "title": entry.title,
        "description": entry.description,
        "dry_run": {
            "jobs": DRY_RUN_JOBS,
            "procs": DRY_RUN_PROCS,
            "mean_wait": summary.get("mean_wait"),
            "mean_bsld": summary.get("mean_bsld"),
        },
    }


def run(run_dir: Path, job: dict[str, Any]) -> dict[str, Any]:
    """A whole experiment run, its user policies allowed."""
    run_user_policies({name: str(run_dir / spec) for name, spec in job["policies"].items()})
    workflows, shown = set(job.get("workflows", ())), job.get("names", {})
    inputs = {
        name: [
            load_workflow(run_dir / f, name=shown.get(f, f), max_bytes=None) if name in workflows
            else load_trace(run_dir / f, name=f)
            for f in files
        ]
        for name, files in job["inputs"].items()
    }  # fmt: skip

    def progress(fraction: float, message: str) -> None:
        line = " ".join(str(message).split())[:200]
        sys.stdout.write(f"\x1eprogress {float(fraction):.4f} {line}\n")
        sys.stdout.flush()

    result = run_experiment(job["kind"], job["params"], inputs, seed=job["seed"], progress=progress)
    return {"ok": True, "result": result}


#: errors that come from a wall of the sandbox: (exception types, errno values) -> the wall
_WALLS = (
    ((MemoryError,), (), "memory"),
    ((ModuleNotFoundError,), (), "files"),  # the portal's modules are not in the sandbox
    ((OSError,), (errno.EAGAIN,), "processes"),
    ((OSError,), (errno.ENETUNREACH, errno.ECONNREFUSED, errno.EADDRNOTAVAIL), "network"),
    ((socket.gaierror,), (), "network"),
    ((OSError,), (errno.ENOENT, errno.EACCES, errno.EROFS, errno.EPERM), "files"),
)


def _wall(exc: BaseException | None) -> str:
    for types, numbers, wall in _WALLS:
        if isinstance(exc, types) and (not numbers or getattr(exc, "errno", None) in numbers):
            return wall
    return ""


def _failure(exc: BaseException) -> dict[str, Any]:
    """What went wrong; ``limit``: the wall of the sandbox the error came from, if any (the
    user's exception, or the one a policy load or run wrapped)."""
    wall, seen = "", 0
    link: BaseException | None = exc
    while link is not None and not wall and seen < 8:  # the chain: wrapped even ``from None``
        wall, link, seen = _wall(link), link.__cause__ or link.__context__, seen + 1
    if wall:
        return {"ok": False, "limit": wall, "error": str(exc) or type(exc).__name__}
    if isinstance(exc, ParamError):
        return {"ok": False, "error": "; ".join(f"{k}: {v}" for k, v in exc.errors.items())}
    if isinstance(exc, PolicyError | ValueError | OSError):
        return {"ok": False, "error": str(exc)}
    return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


def main(argv: list[str] | None = None) -> int:
    run_dir = Path((argv or sys.argv[1:])[0])
    job = json.loads((run_dir / "job.json").read_text())
    try:
        out = check(run_dir, job) if job["mode"] == "check" else run(run_dir, job)
    except BaseException as exc:  # noqa: BLE001 (every failure is reported to the portal)
        out = _failure(exc)
    text = json.dumps(out, default=str)
    (run_dir / "out.json").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
