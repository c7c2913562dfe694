"""A sweep of 200 runs exported as Slurm job arrays, run on the real single-node Slurm of the
test fixture (tests/slurm/cluster.py), uploaded back and re-checked run by run on a real
Celery worker: prints the number of array tasks, the wall time from ``submit-all.sh`` to
accounting, and how many re-runs were identical.

It is tests/slurm/test_jobarray_on_slurm.py with ``GRIDPORTAL_SLURM_ARRAY_RUNS`` set (that test
runs 12 in the suite); it needs Slurm (``apt-get install slurm-wlm slurmdbd munge``),
MariaDB, PostgreSQL and Redis, and root.

    .venv/bin/python bench/jobarray_slurm.py [RUNS]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    runs = sys.argv[1] if len(sys.argv) > 1 else "200"
    env = {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/jobarraybench",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/8",
        **os.environ,
        "GRIDPORTAL_SLURM_ARRAY_RUNS": runs,
        "CI": "1",  # a missing service is a failure here, not a skip
    }
    test = "tests/slurm/test_jobarray_on_slurm.py"
    argv = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q",
            "-s", test]  # fmt: skip
    sys.exit(subprocess.run(argv, cwd=ROOT, env=env).returncode)
