"""Build the engine's compiled modules: ``python setup.py build_ext --inplace``.

Everything else about the package is in ``pyproject.toml``.  Each module of
``NATIVE_MODULES`` is plain Python in Cython's pure-Python mode; it is compiled from a copy
under ``build/native/`` that ends with one extra line, ``__source_sha256__ = "<sha256 of the
.py>"``, so :func:`scheduler._native.load` can refuse an extension built from another
version of the source (the ``.py`` then runs).  To compile another module, add its path here:
nothing else changes (``make setup`` rebuilds when a listed file changes; the module is
loaded with ``scheduler._native.load("package.module")``).

Without Cython or a C compiler the build prints one line and the package stays pure Python.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: the compiled modules: ONE list (paths relative to this file)
NATIVE_MODULES = [
    "scheduler/cluster/_compress.py",
    "scheduler/cluster/_steps.py",
    "scheduler/cluster/_loop.py",
    "scheduler/pricing/_replan.py",
    "scheduler/pricing/_easy.py",
]

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from scheduler._native import source_sha256  # noqa: E402 (imports nothing of the engine)

#: Cython compiler directives for every module.  A module's own directives are in its source,
#: where they travel with it (a build of another commit, bench/kernels_callgrind.py's, gets them
#: too): a ``# cython: boundscheck=False, wraparound=False`` first line for the whole module
#: (each module's docstring says why that is safe there;
#: _steps.pxd's first line covers the bodies it inlines into the kernels), and a decorator
#: on a function that differs.
DIRECTIVES = {"language_level": 3, "binding": False, "embedsignature": False}


def _stamped_copy(path: str) -> Path:
    """``build/native/<path>``: the source plus its hash as ``__source_sha256__``."""
    src = ROOT / path
    data = src.read_bytes()
    digest = source_sha256(src)  # the .py and the .pxd files beside it (scheduler/_native.py)
    copy = ROOT / "build" / "native" / path
    copy.parent.mkdir(parents=True, exist_ok=True)
    text = data.decode() + f'\n__source_sha256__ = "{digest}"\n'
    if not copy.is_file() or copy.read_text() != text:  # keep mtimes: no needless rebuild
        copy.write_text(text)
    return copy


def _required() -> bool:
    """``GRIDPORTAL_NATIVE_REQUIRED=1`` (the Docker build): no build is an error."""
    return os.environ.get("GRIDPORTAL_NATIVE_REQUIRED", "") not in ("", "0")


def native_extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        if _required():
            raise
        print("gridportal: Cython is not installed; the engine stays pure Python", file=sys.stderr)
        return []
    exts = [
        Extension(
            path.removesuffix(".py").replace("/", "."),
            [str(_stamped_copy(path).relative_to(ROOT))],
            extra_compile_args=["-O2"],
        )
        for path in NATIVE_MODULES
    ]
    return cythonize(exts, compiler_directives=DIRECTIVES, quiet=True)


class OptionalBuildExt(build_ext):
    """A failed compilation (no compiler, no headers) leaves the pure Python in place, with
    one line of explanation, unless ``GRIDPORTAL_NATIVE_REQUIRED=1``."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            self._give_up(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._give_up(exc)

    def copy_file(self, infile, outfile, *args, **kwargs):  # type: ignore[no-untyped-def]
        """``--inplace``: a running process (a worker, a test run) has the old build mapped;
        writing over that file in place can crash it, so the old file is unlinked first and
        the new build is a new file (the process keeps its copy until it exits)."""
        if os.path.isfile(outfile) and not os.path.samefile(infile, outfile):
            os.unlink(outfile)
        return super().copy_file(infile, outfile, *args, **kwargs)

    @staticmethod
    def _give_up(exc: Exception) -> None:
        if _required():
            raise exc
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"gridportal: compiled kernel not built ({first}); pure Python runs", file=sys.stderr)


os.chdir(ROOT)
setup(ext_modules=native_extensions(), cmdclass={"build_ext": OptionalBuildExt})
