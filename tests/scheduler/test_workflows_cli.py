"""``python -m scheduler workflow-info`` and ``generate-workflow`` through a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler.workflows import load_workflow, summarize
from tests.conftest import SHARED_DATA, require
from tests.conftest import scheduler_cli as cli

ROOT = Path(__file__).resolve().parents[2]
SHARED_WORKFLOWS = SHARED_DATA / "workflows"


def test_workflow_info_contract(tmp_path):
    path = tmp_path / "diamond.json"
    path.write_text(
        json.dumps(
            {
                "format": "gridportal-workflow",
                "version": 1,
                "tasks": [
                    {"id": "A", "runtime": 10},
                    {"id": "B", "runtime": 20},
                    {"id": "C", "runtime": 30},
                    {"id": "D", "runtime": 5},
                ],
                "edges": [
                    {"parent": "A", "child": "B"},
                    {"parent": "A", "child": "C"},
                    {"parent": "B", "child": "D"},
                    {"parent": "C", "child": "D"},
                ],
            }
        )
    )
    done = cli("workflow-info", str(path))
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert list(info)[:5] == ["tasks", "edges", "levels", "critical_path", "average_parallelism"]
    assert (info["tasks"], info["edges"], info["levels"]) == (4, 4, 3)
    assert info["critical_path"] == 45
    assert info["average_parallelism"] == pytest.approx(65 / 45, abs=1e-6)
    assert info["name"] == "diamond"


def test_workflow_info_on_a_shared_dax():
    path = SHARED_WORKFLOWS / "Montage_25.xml"
    if not path.is_file():
        require(False, f"shared workflow files not found at {SHARED_WORKFLOWS}")
    done = cli("workflow-info", str(path))
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert (info["tasks"], info["edges"], info["levels"]) == (25, 45, 9)
    assert info["total_runtime"] == pytest.approx(227.75)


def test_workflow_info_errors_exit_2(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<adag version="2.1">\n<job id="a" runtime="fast"/>\n</adag>\n')
    done = cli("workflow-info", str(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert f"error: {bad}: line 2: job 'a': runtime is not a number: 'fast'" in done.stderr
    missing = cli("workflow-info", str(tmp_path / "absent.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_generate_workflow_models(tmp_path):
    out = tmp_path / "cs.json"
    done = cli("generate-workflow", "--model", "cybershake", "--seed", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "8039 tasks" in done.stdout
    info = summarize(load_workflow(out))
    assert (info["tasks"], info["levels"]) == (8039, 5)

    layered = tmp_path / "l.json"
    args = ["--model", "layered", "--tasks", "40", "--levels", "4", "--mean-procs", "6"]
    done = cli("generate-workflow", *args, "--seed", "7", "--out", str(layered))
    assert done.returncode == 0, done.stderr
    again = tmp_path / "l2.json"
    cli("generate-workflow", *args, "--seed", "7", "--out", str(again))
    assert layered.read_bytes() == again.read_bytes()
    assert summarize(load_workflow(layered))["levels"] == 4

    montage = tmp_path / "m.json"
    done = cli(
        "generate-workflow",
        "--model",
        "montage",
        "--images",
        "20",
        "--clusters-per-level",
        "2",
        "--out",
        str(montage),
    )
    assert done.returncode == 0, done.stderr
    assert summarize(load_workflow(montage))["max_parallelism"] == 2


def test_generate_workflow_bad_parameters_exit_2(tmp_path):
    done = cli(
        "generate-workflow",
        "--model",
        "layered",
        "--tasks",
        "3",
        "--levels",
        "5",
        "--out",
        str(tmp_path / "x.json"),
    )
    assert done.returncode == 2 and "levels must be between 1 and the number of tasks" in (
        done.stderr
    )
    assert not (tmp_path / "x.json").exists()
