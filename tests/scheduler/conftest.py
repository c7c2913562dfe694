"""Fixtures shared by the engine's tests."""

from __future__ import annotations

import pytest

import scheduler.pricing.price as price_mod
from tests.scheduler.native_helpers import easy_kernels


@pytest.fixture(params=sorted(easy_kernels()))
def easy_kernel(request, monkeypatch):
    """Price EASY and depth-K quotes with the pure or the compiled EASY kernel
    (scheduler/pricing/_easy.py; the compiled one skips without a build, fails under CI)."""
    module = easy_kernels()[request.param]()
    monkeypatch.setattr(price_mod, "_E", module)
    return module
