"""``scheduler.engine``, the portal's one entry point: every name it lists resolves to the
engine's own object, and importing it stays cheap (the catalogue loads on first use)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import scheduler
import scheduler.engine as engine

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_name_resolves() -> None:
    missing = [n for n in engine.__all__ if not hasattr(engine, n)]
    assert not missing, f"scheduler.engine lists names it cannot give: {missing}"
    assert len(set(engine.__all__)) == len(engine.__all__)
    assert set(engine.__all__) <= set(dir(engine))


@pytest.mark.parametrize("name", sorted(engine._LAZY))
def test_a_lazy_name_is_the_engine_s_own_object(name: str) -> None:
    module, attribute = engine._LAZY[name]
    assert getattr(engine, name) is getattr(importlib.import_module(module), attribute)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'POLICIES'"):
        engine.POLICIES  # noqa: B018  (the registry joins with its rewrite)
    with pytest.raises(ImportError):
        exec("from scheduler.engine import no_such_thing", {})


def test_importing_it_loads_neither_the_catalogue_nor_numpy() -> None:
    """The portal imports it at start-up; the kinds (and numpy) load on first use."""
    code = (
        "import sys, scheduler.engine as e\n"
        "heavy = [m for m in ('scheduler.experiments', 'scheduler.cluster', 'numpy') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "e.get_kind('trace-stats')\n"
        "assert 'scheduler.experiments' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120, cwd=ROOT)


def test_native_status_and_version() -> None:
    from scheduler.cluster import native_status

    assert engine.native_status() == native_status()
    assert engine.engine_version() == getattr(scheduler, "__version__", "0.1.0")
