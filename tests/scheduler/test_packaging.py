"""The engine installs as a package and its ``gridportal-sim`` command works from any directory.

A throwaway virtual environment gets the engine built from a copy of ``pyproject.toml`` and
``scheduler/`` (so nothing is written into the repository), without network: ``--no-deps
--no-build-isolation``, with numpy, scipy, defusedxml and setuptools visible from the project's
own environment through a ``.pth`` file. The command then runs in an empty directory, where
``python -m scheduler`` would fail, and must agree with ``python -m scheduler``.
"""

import ast
import re
import shutil
import site
import subprocess
import sys
import tomllib
import venv

import pytest

from tests.conftest import ROOT, scheduler_cli

pytestmark = pytest.mark.timeout(300)


#: import name -> distribution name, where they differ
DISTRIBUTION = {"yaml": "pyyaml"}


def test_engine_dependencies_are_its_imports_only():
    """The declared dependencies are exactly the third-party packages ``scheduler/`` imports
    at module level (Django, Celery and the rest stay in the portal's requirements)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {re.split(r"[<>=!~ ]", d)[0].lower() for d in project["dependencies"]}
    imported = set()
    for path in (ROOT / "scheduler").rglob("*.py"):
        for node in ast.parse(path.read_text()).body:  # module level: lazy imports are optional
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0].lower() for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0].lower())
    third_party = {m for m in imported if m not in sys.stdlib_module_names} - {"scheduler"}
    third_party = {DISTRIBUTION.get(m, m) for m in third_party}
    assert third_party == declared, (third_party, declared)
    assert not declared & {"django", "celery", "djangorestframework", "redis", "psycopg"}
    assert project["scripts"]["gridportal-sim"] == "scheduler.cli:main"


def test_gridportal_sim_installs_and_runs_from_any_directory(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copytree(
        ROOT / "scheduler", src / "scheduler", ignore=shutil.ignore_patterns("__pycache__")
    )
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    purelib = subprocess.check_output(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip()
    # numpy, scipy, defusedxml and setuptools from the project's environment (no network)
    (tmp_path / "venv").joinpath(purelib, "project-deps.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    install = subprocess.run(
        [py, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["--quiet", str(src)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    command = env_dir / "bin" / "gridportal-sim"
    kinds = subprocess.run(
        [command, "kinds"], cwd=elsewhere, capture_output=True, text=True, timeout=60
    )
    assert kinds.returncode == 0, kinds.stderr
    # the same catalogue as `python -m scheduler kinds` from the repository
    assert kinds.stdout == scheduler_cli("kinds").stdout
    assert "cluster-sim" in kinds.stdout
    # the installed package, not the repository, was imported
    where = subprocess.run(
        [py, "-c", "import scheduler; print(scheduler.__file__)"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert where.stdout.startswith(str(env_dir)), where.stdout
    # and a real run, from that directory: generate a trace and simulate it
    gen = subprocess.run(
        [command, "generate-trace", "--jobs", "200", "--procs", "32", "--out", "t.swf"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert gen.returncode == 0, gen.stderr
    assert (elsewhere / "t.swf").read_text().count("\n") > 200


def test_lazily_imported_engine_packages_are_declared_as_extras():
    """A third-party package the engine imports only inside functions (so ``simulate`` starts
    without it) is still declared: as an optional dependency of the package."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = {
        re.split(r"[<>=!~ ]", d)[0].lower()
        for deps in project.get("optional-dependencies", {}).values()
        for d in deps
    }
    declared = {re.split(r"[<>=!~ ]", d)[0].lower() for d in project["dependencies"]} | extras
    # the compiler of setup.py's NATIVE_MODULES, imported by them only when it is installed
    # (scheduler._native stands in for it otherwise): a build requirement
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    declared |= {re.split(r"[<>=!~ ]", d)[0].lower() for d in build} & {"cython"}
    lazy = set()
    for path in (ROOT / "scheduler").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                lazy |= {a.name.split(".")[0].lower() for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                lazy.add(node.module.split(".")[0].lower())
    third_party = {m for m in lazy if m not in sys.stdlib_module_names} - {"scheduler"}
    third_party = {DISTRIBUTION.get(m, m) for m in third_party}
    assert third_party <= declared, third_party - declared
