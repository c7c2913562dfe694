"""Compiled or pure: how the engine loads its few compiled modules.

A module listed in ``NATIVE_MODULES`` of ``setup.py`` is plain Python written in Cython's
pure-Python mode; ``setup.py build_ext --inplace`` (run by ``make setup``) compiles it into
an extension beside the ``.py`` and embeds the source's sha256 as ``__source_sha256__``.
:func:`load` returns the extension only when that hash matches the ``.py`` beside it, so an
extension built from an older source never runs: the ``.py`` is loaded instead, with a
warning.  ``GRIDPORTAL_PURE_PYTHON=1`` forces the ``.py`` (tests run both).  Either way the
module is registered under its own name, so ``import`` finds the chosen one afterwards.

:func:`status` says, per module loaded, ``"compiled"`` or ``"pure: <why>"``.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType, SimpleNamespace

__all__ = ["PURE_ENV", "cython_shim", "load", "load_compiled", "load_pure", "status"]

#: set to 1 to run the pure-Python source even when a compiled build exists
PURE_ENV = "GRIDPORTAL_PURE_PYTHON"

_STATUS: dict[str, str] = {}


def _same(f):  # type: ignore[no-untyped-def]
    return f


def _directive(*_args, **_kwargs):  # type: ignore[no-untyped-def]
    return _same


#: stands in for the ``cython`` module when Cython is not installed: ``compiled`` and the
#: decorators the sources use, as no-ops (their C types appear in annotations only, which
#: ``from __future__ import annotations`` never evaluates)
cython_shim = SimpleNamespace(
    compiled=False,
    ccall=_same,
    cfunc=_same,
    cclass=_same,
    inline=_same,
    wraparound=_directive,
    boundscheck=_directive,
    cdivision=_directive,
    locals=_directive,
    exceptval=_directive,
    initializedcheck=_directive,
    final=_same,
)


def source_sha256(path: str | os.PathLike[str]) -> str:
    """The hash a build embeds: sha256 of the ``.py`` file's bytes, then of every ``.pxd``
    beside it (sorted by name), then of every other ``.pxd`` it cimports
    (``cython.cimports.<package>.<module>``, found under a folder above it; sorted by name) — a
    kernel inlines the bodies a ``.pxd`` declares, so a change there makes its build stale
    too — and last of the ``.py`` of every module it cimports: a kernel calls that module's
    compiled functions, so it is stale exactly when that module's build is (else a fresh
    kernel would import the pure module a stale build leaves in its place, and fail)."""
    try:  # CPython's own sha256: no OpenSSL to load at start-up (~2 ms, ~4 MiB)
        from _sha256 import sha256
    except ImportError:  # pragma: no cover - other interpreters
        from hashlib import sha256
    src = Path(path)
    data = src.read_bytes()
    digest = sha256(data)
    beside = sorted(src.parent.glob("*.pxd"))
    for pxd in beside:
        digest.update(pxd.read_bytes())
    mine = {pxd.resolve() for pxd in beside}
    cimported = _cimported_pxd(src, data.decode())
    for pxd in cimported:
        if pxd.resolve() not in mine:
            digest.update(pxd.read_bytes())
    for pxd in cimported:
        module = pxd.with_suffix(".py")
        if module.is_file() and module.resolve() != src.resolve():
            digest.update(module.read_bytes())
    return digest.hexdigest()


def _cimported_pxd(src: Path, text: str) -> list[Path]:
    """The ``.pxd`` files of the modules ``src`` cimports that lie in a folder above it."""
    import re

    found = []
    for name in sorted(set(re.findall(r"cython\.cimports\.([A-Za-z_][\w.]*\w)", text))):
        rel = Path(*name.split(".")).with_suffix(".pxd")
        for folder in src.parent.parents:
            if (folder / rel).is_file():
                found.append(folder / rel)
                break
    return found


def _paths(name: str, directory: str | os.PathLike[str] | None) -> tuple[Path, Path | None]:
    """The ``.py`` source of module ``name`` and its compiled build (None if there is none)."""
    leaf = name.rpartition(".")[2]
    if directory is None:
        parent = importlib.import_module(name.rpartition(".")[0])
        directory = Path(parent.__file__).parent  # type: ignore[arg-type]
    directory = Path(directory)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        ext = directory / f"{leaf}{suffix}"
        if ext.is_file():
            return directory / f"{leaf}.py", ext
    return directory / f"{leaf}.py", None


def _exec(name: str, spec: importlib.machinery.ModuleSpec | None) -> ModuleType:
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {name}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_pure(name: str, as_name: str | None = None, directory: str | None = None) -> ModuleType:
    """Module ``name`` from its ``.py`` source, registered as ``as_name`` (default ``name``)."""
    src, _ = _paths(name, directory)
    as_name = as_name or name
    loader = importlib.machinery.SourceFileLoader(as_name, str(src))
    # a spec with a location: ``__file__`` is set while the source runs
    module = _exec(as_name, importlib.util.spec_from_file_location(as_name, src, loader=loader))
    sys.modules[as_name] = module
    return module


def load_compiled(name: str, directory: str | None = None) -> tuple[ModuleType | None, str]:
    """Module ``name``'s compiled build if there is one built from the ``.py`` beside it:
    ``(module, "compiled")``, else ``(None, why not)``.  Does not register it."""
    src, ext = _paths(name, directory)
    if ext is None:
        return None, "no compiled build"
    try:
        loader = importlib.machinery.ExtensionFileLoader(name, str(ext))
        module = _exec(name, importlib.util.spec_from_file_location(name, ext, loader=loader))
    except (ImportError, AttributeError, ValueError) as exc:  # (a module it cimports
        # is loaded without its compiled functions)
        return None, f"the compiled build does not load ({exc})"
    built = getattr(module, "__source_sha256__", None)
    if built != source_sha256(src):
        return None, f"stale compiled build {ext.name} (built from another {src.name})"
    return module, "compiled"


def load(name: str) -> ModuleType:
    """Module ``name`` (e.g. ``"scheduler.cluster._compress"``), compiled when possible."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        why = f"{PURE_ENV} is set"
    else:
        module, why = load_compiled(name)
        if module is not None:
            sys.modules[name] = module
            _STATUS[name] = why
            return module
        if why.startswith("stale") or why.startswith("the compiled"):
            warnings.warn(
                f"{name}: {why}; running the pure-Python source (rebuild: make setup)",
                RuntimeWarning,
                stacklevel=2,
            )
    module = load_pure(name)
    _STATUS[name] = f"pure: {why}"
    return module


def status() -> dict[str, str]:
    """``{module: "compiled" | "pure: <why>"}`` for every module :func:`load` has loaded."""
    return dict(_STATUS)
