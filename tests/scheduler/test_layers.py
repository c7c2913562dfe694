"""The engine's house: its imports drawn as floors, checked with ``ast``.

Floors, bottom up (a module may import its own floor or any floor below, never above)::

    0  scheduler.results, scheduler.bounds, scheduler.jsonvalues, scheduler.traces
    1  scheduler.cluster
    2  the domain packages: slots, pricing, reservations, coallocation, malleability,
       provisioning, usage, workflows
    3  scheduler.io (loading user inputs of every kind)
    4  scheduler.experiments (the catalogue of kinds)
    5  scheduler.cli, scheduler.__main__, scheduler.engine (the portal's one entry point)

Every import counts, also those inside functions and those under ``if TYPE_CHECKING:``: none
may run up the floors, and together they must form no circle, between modules (an import of
``a.b.c`` also runs ``a/__init__`` and ``a/b/__init__``) or between packages.  A circle closed
by an import inside a function (``get_policy`` importing the policies that import it back) is
a circle too: registration goes through explicit tables instead.  So is one closed by a type
import: the two modules are still tied (a reader, a type checker and every refactoring see
them as one); the lower module describes what it reads with a ``Protocol`` instead
(``scheduler.cluster.result.Finished``), or the code moves to the floor where it belongs.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "scheduler"

FLOORS = {
    "scheduler": 0,  # the package's own __init__ (empty)
    "scheduler.results": 0,
    "scheduler.result_view": 0,  # the tolerant reader of stored Results (beside results)
    "scheduler.bounds": 0,
    "scheduler.jsonvalues": 0,
    "scheduler._native": 0,  # loads the compiled modules or their .py; imports no engine
    "scheduler.labels": 0,  # the label registry (imports nothing of the engine)
    "scheduler.traces": 0,
    "scheduler.cluster": 1,
    "scheduler.policies": 1,  # the public policy API (re-exports scheduler.cluster)
    "scheduler.slots": 2,
    "scheduler.pricing": 2,
    "scheduler.reservations": 2,
    "scheduler.coallocation": 2,
    "scheduler.malleability": 2,
    "scheduler.provisioning": 2,
    "scheduler.usage": 2,
    "scheduler.workflows": 2,
    "scheduler.gym": 2,  # the Gymnasium environment and RLScheduler's baselines
    "scheduler.slurm": 2,  # a Slurm site's configuration and what-if replays
    "scheduler.io": 3,
    "scheduler.experiments": 4,
    "scheduler.cli": 5,
    "scheduler.__main__": 5,
    "scheduler.engine": 5,  # the portal's one entry point (tests/portal/test_engine_entry.py)
}

# Circles closed only by an ``if TYPE_CHECKING:`` import, waiting for work under way:
# (importer, imported) -> why.  The test below fails once an entry is no longer needed.
PENDING_TYPE_IMPORTS: dict[tuple[str, str], str] = {}


class Import(NamedTuple):
    target: str  # the imported module of the prefix
    top: bool  # at module level (also inside a class body), not inside a function
    line: int
    type_only: bool  # under ``if TYPE_CHECKING:`` (still an import: it ties the modules)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules(package: Path = ENGINE) -> dict[str, Path]:
    return {module_name(p): p for p in package.rglob("*.py") if "__pycache__" not in p.parts}


def floor_of(module: str) -> int:
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in FLOORS and (n > 1 or module == "scheduler"):
            return FLOORS[prefix]
    raise AssertionError(f"{module} lies on no floor: add it to FLOORS in {__file__}")


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(
    name: str, path: Path, modules: dict[str, Path], prefix: str = "scheduler"
) -> list[Import]:
    """Every import of a module of ``prefix`` in ``path`` (see :class:`Import`)."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    out: list[Import] = []

    def resolve(base: str, names: list[str], line: int, top: bool, type_only: bool) -> None:
        if not base.startswith(prefix):
            return
        targets = []
        for n in names:
            sub = f"{base}.{n}"
            targets.append(sub if sub in modules else base)
        for t in targets or [base]:
            out.append(Import(t, top, line, type_only))

    def visit(body: list[ast.stmt], top: bool, type_only: bool = False) -> None:
        for node in body:
            if isinstance(node, ast.If) and _is_type_checking(node):
                visit(node.body, top, True)
                visit(node.orelse, top, type_only)
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    resolve(alias.name, [], node.lineno, top, type_only)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = package.split(".")
                    if node.level > 1:
                        base_parts = base_parts[: -(node.level - 1)]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                resolve(base, [a.name for a in node.names], node.lineno, top, type_only)
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.AST):
                    nested_top = top and not isinstance(
                        node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                    )
                    if isinstance(node, ast.ClassDef):
                        nested_top = top  # a class body runs at import time
                    visit(inner, nested_top, type_only)  # type: ignore[arg-type]

    visit(ast.parse(path.read_text(), str(path)).body, True)
    return out


def graph() -> tuple[dict[str, Path], dict[str, list[Import]]]:
    modules = all_modules()
    return modules, {m: imports_of(m, p, modules) for m, p in modules.items()}


def test_no_import_runs_up_the_floors() -> None:
    modules, edges = graph()
    up = []
    for m, targets in sorted(edges.items()):
        for t, _, line, type_only in targets:
            if floor_of(t) > floor_of(m):
                up.append(f"{modules[m].relative_to(ROOT)}:{line} {m} (floor {floor_of(m)}) "
                          f"imports {t} (floor {floor_of(t)})"
                          + (" under if TYPE_CHECKING" if type_only else ""))  # fmt: skip
    assert not up, "imports running up the floors:\n" + "\n".join(up)


def _with_packages(target: str, importer: str) -> list[str]:
    """``target`` and the package ``__init__`` modules importing it runs first."""
    parts = target.split(".")
    out = []
    for n in range(2, len(parts) + 1):
        prefix = ".".join(parts[:n])
        if not (importer == prefix or importer.startswith(prefix + ".")) or prefix == target:
            out.append(prefix)
    return out


def _shown(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def find_cycle(nodes: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(v: str) -> list[str] | None:
        state[v] = 1
        stack.append(v)
        for w in sorted(nodes.get(v, ())):
            if state.get(w) == 1:
                return stack[stack.index(w) :] + [w]
            if w not in state:
                found = dfs(w)
                if found:
                    return found
        stack.pop()
        state[v] = 2
        return None

    for v in sorted(nodes):
        if v not in state:
            found = dfs(v)
            if found:
                return found
    return None


def test_no_import_circles() -> None:
    check_no_circles(*graph(), pending=PENDING_TYPE_IMPORTS)


def test_every_pending_type_import_still_closes_a_circle() -> None:
    """An entry of :data:`PENDING_TYPE_IMPORTS` whose type import is gone, or no longer closes
    a circle, is removed."""
    modules, edges = graph()
    nodes = import_graph(modules, edges)[0]
    stale = [
        (a, b)
        for a, b in PENDING_TYPE_IMPORTS
        if not any(i.type_only and i.target == b for i in edges.get(a, ()))
        or not reaches(nodes, b, a)
    ]
    assert not stale, f"remove from PENDING_TYPE_IMPORTS (no circle left): {stale}"


def test_no_import_circles_in_the_portal() -> None:
    """The portal too: ``services`` enqueues runs by the task's name instead of
    importing ``tasks``, which imports ``services``."""
    modules = all_modules(ROOT / "gridportal")
    edges = {m: imports_of(m, p, modules, "gridportal") for m, p in modules.items()}
    check_no_circles(modules, edges)


def import_graph(
    modules: dict[str, Path], edges: dict[str, list[Import]], skip: Iterable[tuple[str, str]] = ()
) -> tuple[dict[str, set[str]], dict[str, set[str]], dict[tuple[str, str], list[str]]]:
    """Module → modules it runs, package → packages, and where each arrow is written
    (``file:line``); type-only imports ``(importer, imported)`` in ``skip`` left out."""
    skipped = set(skip)
    nodes: dict[str, set[str]] = {}
    packages: dict[str, set[str]] = {}
    where: dict[tuple[str, str], list[str]] = {}
    for m, targets in edges.items():
        for imp in targets:
            if imp.type_only and (m, imp.target) in skipped:
                continue
            at = f"{_shown(modules[m])}:{imp.line}" + (
                " (under if TYPE_CHECKING)" if imp.type_only else ""
            )
            for x in _with_packages(imp.target, m):
                if x != m and x in modules:
                    nodes.setdefault(m, set()).add(x)
                    if at not in where.setdefault((m, x), []):
                        where[m, x].append(at)
            a, b = ".".join(m.split(".")[:2]), ".".join(imp.target.split(".")[:2])
            if a != b:
                packages.setdefault(a, set()).add(b)
                where.setdefault((a, b), []).append(f"{at} {m} imports {imp.target}")
    return nodes, packages, where


def reaches(nodes: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        v = todo.pop()
        if v == goal:
            return True
        for w in nodes.get(v, ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return False


def check_no_circles(
    modules: dict[str, Path],
    edges: dict[str, list[Import]],
    pending: Iterable[tuple[str, str]] = (),
) -> None:
    """No circle between modules nor between packages; the message names each import of the
    circle by file and line.  ``pending``: type-only imports (importer, imported) left out."""
    nodes, packages, where = import_graph(modules, edges, pending)
    for what, arrows in (("modules", nodes), ("packages", packages)):
        cycle = find_cycle(arrows)
        assert cycle is None, (
            f"import circle between {what}: "
            + " -> ".join(cycle)
            + "".join(
                f"\n  {a} -> {b}: " + ", ".join(where[a, b]) for a, b in itertools.pairwise(cycle)
            )
        )


def test_the_checker_sees_an_upward_import_and_a_circle(tmp_path: Path) -> None:
    """The checker itself: a domain module importing the catalogue is an upward import, also
    under ``if TYPE_CHECKING:``; a type import closes a circle like any other."""
    fake = {"scheduler.pricing.x": tmp_path / "x.py", "scheduler.experiments.base": tmp_path}
    (tmp_path / "x.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from ..experiments.base import chart\n"
        "if TYPE_CHECKING:\n"
        "    from ..experiments.base import Preset\n"
    )
    first, second = imports_of("scheduler.pricing.x", tmp_path / "x.py", fake)
    assert first == ("scheduler.experiments.base", True, 2, False)
    assert second == ("scheduler.experiments.base", True, 4, True)
    assert floor_of(second.target) > floor_of("scheduler.pricing.x")
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    (tmp_path / "a.py").write_text("from .b import f\n")
    (tmp_path / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n"
    )
    mods = {"scheduler.a": tmp_path / "a.py", "scheduler.b": tmp_path / "b.py"}
    edges = {m: imports_of(m, p, mods) for m, p in mods.items()}
    with pytest.raises(AssertionError, match=r"(?s)circle between modules.*b\.py:3 \(under if"):
        check_no_circles(mods, edges)
    check_no_circles(mods, edges, pending={("scheduler.b", "scheduler.a")})
