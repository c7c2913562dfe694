"""Measured figures of the reliability, fuzz and access tests, kept for the README's table.

Each test records what it measured into ``var/reliability-figures.json`` (not in git) and
prints it; ``make reliability`` shows the file at the end.
"""

import fcntl
import json
from pathlib import Path

FIGURES = Path(__file__).resolve().parents[2] / "var" / "reliability-figures.json"


def record_figure(name: str, value) -> None:
    print(f"FIGURE {name} = {value}")
    FIGURES.parent.mkdir(parents=True, exist_ok=True)
    # parallel test processes (pytest-xdist) record into the same file: one at a time
    with open(FIGURES.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = json.loads(FIGURES.read_text()) if FIGURES.exists() else {}
        data[name] = value
        FIGURES.write_text(json.dumps(data, indent=1, sort_keys=True))
