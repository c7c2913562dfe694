"""docs/gym-tutorial.ipynb: every cell but the training ones runs (on the synthetic trace)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "gym-tutorial.ipynb"


def _cells():
    nb = json.loads(NOTEBOOK.read_text())
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def test_notebook_is_small_and_has_no_outputs():
    cells = _cells()
    assert NOTEBOOK.stat().st_size < 50_000
    assert all(not c["outputs"] and c["execution_count"] is None for c in cells)
    assert any("training" in c["metadata"].get("tags", ()) for c in cells)


def test_non_training_cells_run(monkeypatch, capsys):
    monkeypatch.setenv("GYM_TUTORIAL_TRACE", "lublin")
    monkeypatch.chdir(NOTEBOOK.parent)
    namespace: dict = {}
    for i, cell in enumerate(_cells()):
        if "training" in cell["metadata"].get("tags", ()):
            continue
        source = "".join(cell["source"])
        exec(compile(source, f"{NOTEBOOK.name} cell {i}", "exec"), namespace)  # noqa: S102
    results = namespace["results"]
    assert set(results[False]) == {"FCFS", "WFP3", "UNICEP", "SJF", "F1", "mine"}
    assert results["easy"]["FCFS"] <= results[False]["FCFS"]
    out = capsys.readouterr().out
    assert "lublin-4000 4000 jobs, 128 processors" in out
    assert (
        1 <= namespace["steps"] <= 128
    )  # one decision per job at most (backfilled jobs need none)
    assert namespace["info"]["metrics"]["bsld"] == pytest.approx(-namespace["reward"])
