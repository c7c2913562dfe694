"""The engine's house (issue 21): its imports drawn as floors, checked with ``ast``.

Floors, bottom up (a module may import its own floor or any floor below, never above)::

    0  scheduler.results, scheduler.bounds, scheduler.jsonvalues, scheduler.traces
    1  scheduler.cluster
    2  the domain packages: slots, pricing, reservations, coallocation, malleability,
       provisioning, usage, workflows
    3  scheduler.io (loading user inputs of every kind)
    4  scheduler.experiments (the catalogue of kinds)
    5  scheduler.cli, scheduler.__main__

Every import counts (also those inside functions; ``if TYPE_CHECKING:`` blocks do not): none
may run up the floors, and together they must form no circle, between modules (an import of
``a.b.c`` also runs ``a/__init__`` and ``a/b/__init__``) or between packages.  A circle closed
by an import inside a function (``get_policy`` importing the policies that import it back) is
a circle too: registration goes through explicit tables instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "scheduler"

FLOORS = {
    "scheduler": 0,  # the package's own __init__ (empty)
    "scheduler.results": 0,
    "scheduler.bounds": 0,
    "scheduler.jsonvalues": 0,
    "scheduler._native": 0,  # loads the compiled modules or their .py (issue 21); imports no engine
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
    "scheduler.io": 3,
    "scheduler.experiments": 4,
    "scheduler.cli": 5,
    "scheduler.__main__": 5,
}


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
) -> list[tuple[str, bool, int]]:
    """``(imported module of ``prefix``, at module level?, line)`` for each import in
    ``path``."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    out: list[tuple[str, bool, int]] = []

    def resolve(base: str, names: list[str], line: int, top: bool) -> None:
        if not base.startswith(prefix):
            return
        targets = []
        for n in names:
            sub = f"{base}.{n}"
            targets.append(sub if sub in modules else base)
        for t in targets or [base]:
            out.append((t, top, line))

    def visit(body: list[ast.stmt], top: bool) -> None:
        for node in body:
            if isinstance(node, ast.If) and _is_type_checking(node):
                visit(node.orelse, top)
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    resolve(alias.name, [], node.lineno, top)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = package.split(".")
                    if node.level > 1:
                        base_parts = base_parts[: -(node.level - 1)]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                resolve(base, [a.name for a in node.names], node.lineno, top)
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.AST):
                    nested_top = top and not isinstance(
                        node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                    )
                    if isinstance(node, ast.ClassDef):
                        nested_top = top  # a class body runs at import time
                    visit(inner, nested_top)  # type: ignore[arg-type]

    visit(ast.parse(path.read_text(), str(path)).body, True)
    return out


def graph() -> tuple[dict[str, Path], dict[str, list[tuple[str, bool, int]]]]:
    modules = all_modules()
    return modules, {m: imports_of(m, p, modules) for m, p in modules.items()}


def test_no_import_runs_up_the_floors() -> None:
    modules, edges = graph()
    up = []
    for m, targets in sorted(edges.items()):
        for t, _, line in targets:
            if floor_of(t) > floor_of(m):
                up.append(f"{modules[m].relative_to(ROOT)}:{line} {m} (floor {floor_of(m)}) "
                          f"imports {t} (floor {floor_of(t)})")  # fmt: skip
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
    check_no_circles(*graph())


def test_no_import_circles_in_the_portal() -> None:
    """The portal too (issue 21): ``services`` enqueues runs by the task's name instead of
    importing ``tasks``, which imports ``services``."""
    modules = all_modules(ROOT / "gridportal")
    edges = {m: imports_of(m, p, modules, "gridportal") for m, p in modules.items()}
    check_no_circles(modules, edges)


def check_no_circles(
    modules: dict[str, Path], edges: dict[str, list[tuple[str, bool, int]]]
) -> None:
    nodes: dict[str, set[str]] = {}
    packages: dict[str, set[str]] = {}
    for m, targets in edges.items():
        for t, _, _ in targets:
            nodes.setdefault(m, set()).update(
                x for x in _with_packages(t, m) if x != m and x in modules
            )
            a, b = ".".join(m.split(".")[:2]), ".".join(t.split(".")[:2])
            if a != b:
                packages.setdefault(a, set()).add(b)
    cycle = find_cycle(nodes)
    assert cycle is None, "import circle between modules: " + " -> ".join(cycle or [])
    cycle = find_cycle(packages)
    assert cycle is None, "import circle between packages: " + " -> ".join(cycle or [])


def test_the_checker_sees_an_upward_import_and_a_circle(tmp_path: Path) -> None:
    """The checker itself: a domain module importing the catalogue is an upward import."""
    fake = {"scheduler.pricing.x": tmp_path / "x.py", "scheduler.experiments.base": tmp_path}
    (tmp_path / "x.py").write_text("from ..experiments.base import chart\n")
    ((target, top, _),) = imports_of("scheduler.pricing.x", tmp_path / "x.py", fake)
    assert target == "scheduler.experiments.base" and top
    assert floor_of(target) > floor_of("scheduler.pricing.x")
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
