"""The portal reaches the engine through one door, ``scheduler.engine`` (DESIGN.md "Layers run
one way"): no module of ``gridportal/`` imports another module of ``scheduler``, at module
level, inside a function or under ``if TYPE_CHECKING:``.  Read with ``ast``; needs no Django
(but for the last test, which starts the portal in a child process).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PORTAL = ROOT / "gridportal"
ENTRY = "scheduler.engine"

# Imports of the cluster's policy registry (POLICIES, POLICY_LABELS, get_policy, the depth
# policies) that may still bypass the entry point: the registry is being rewritten and joins
# scheduler.engine with that work.  Entries are ("gridportal/path.py", "scheduler.module");
# remove them as the portal moves to the new registry.  Empty: no portal module needs one.
POLICY_REGISTRY_IMPORTS: set[tuple[str, str]] = set()


def portal_files() -> list[Path]:
    return sorted(
        p
        for p in PORTAL.rglob("*.py")
        if "migrations" not in p.parts and "__pycache__" not in p.parts
    )


def engine_imports(source: str, filename: str = "<portal>") -> list[tuple[int, str]]:
    """``(line, module)`` for every import of ``scheduler`` (or a module in it) in ``source``,
    wherever it stands; ``from scheduler import engine`` is the module ``scheduler.engine``.
    ``importlib.import_module("scheduler....")`` with a literal name counts too."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if _is_engine(a.name)]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module == "scheduler":
                out += [(node.lineno, f"scheduler.{a.name}") for a in node.names]
            elif _is_engine(node.module):
                out.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and _is_engine(node.args[0].value)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (
                    isinstance(node.func, ast.Name)
                    and node.func.id in {"import_module", "__import__"}
                )
            )
        ):
            out.append((node.lineno, node.args[0].value))
    return out


def _is_engine(module: str) -> bool:
    return module == "scheduler" or module.startswith("scheduler.")


def test_the_portal_imports_the_engine_only_through_scheduler_engine() -> None:
    wrong = []
    for path in portal_files():
        rel = str(path.relative_to(ROOT))
        for line, module in engine_imports(path.read_text(), rel):
            if module != ENTRY and (rel, module) not in POLICY_REGISTRY_IMPORTS:
                wrong.append(f"{rel}:{line} imports {module}")
    assert not wrong, (
        "portal modules importing the engine past scheduler.engine (add what they need to "
        "scheduler/engine.py instead):\n" + "\n".join(wrong)
    )


def test_every_allowed_policy_import_is_still_there() -> None:
    """An allowance nobody needs any more is removed, not left open."""
    seen = {
        (str(p.relative_to(ROOT)), m)
        for p in portal_files()
        for _, m in engine_imports(p.read_text(), str(p))
    }
    stale = POLICY_REGISTRY_IMPORTS - seen
    assert not stale, f"remove from POLICY_REGISTRY_IMPORTS (no longer imported): {sorted(stale)}"


def test_the_checker_sees_every_kind_of_import() -> None:
    source = """
from scheduler import engine
from scheduler.engine import get_kind
import scheduler.engine
import scheduler
from scheduler import experiments as catalogue
from scheduler.io import load_trace
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from scheduler.experiments import ExperimentKind
def f():
    from scheduler.pricing.site import price_list
    importlib.import_module("scheduler.cluster")
from .models import Site
"""
    found = sorted(m for _, m in engine_imports(source))
    assert found == sorted(
        [
            "scheduler.engine",
            "scheduler.engine",
            "scheduler.engine",
            "scheduler",
            "scheduler.experiments",
            "scheduler.io",
            "scheduler.experiments",
            "scheduler.pricing.site",
            "scheduler.cluster",
        ]
    )


def test_the_portal_starts_without_loading_the_experiment_kinds() -> None:
    """Start-up stays cheap: URLs, views, API and tasks import, the catalogue (every kind,
    about a second) loads on the first request or run that needs it."""
    code = (
        "import os, sys, django\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'gridportal.settings')\n"
        "django.setup()\n"
        "import gridportal.urls, gridportal.experiments.tasks\n"
        "from django.urls import get_resolver\n"
        "get_resolver().url_patterns\n"
        "assert 'scheduler.experiments' not in sys.modules, 'the catalogue loaded at start-up'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300, cwd=ROOT)
