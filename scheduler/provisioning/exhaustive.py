"""Exhaustive search of the Pareto front over all plans of a small slot set (thesis §4.3).

With ``n`` slots there are ``2^n`` plans; for ``n ≤ 16`` (65,536 plans) evaluating them all
gives the true Pareto front, against which MOGA's front is measured (hypervolume ratio,
:func:`~.pareto.hypervolume_ratio`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .pareto import ParetoArchive

__all__ = ["MAX_EXHAUSTIVE_SLOTS", "exhaustive_front"]

MAX_EXHAUSTIVE_SLOTS = 16


def exhaustive_front(
    evaluate: Callable[[np.ndarray], tuple[float, float]], n_bits: int
) -> list[tuple[float, float, np.ndarray]]:
    """The Pareto front ``(ac, sc, plan)`` over every plan of ``n_bits`` slots, sorted by AC
    (one plan per objective pair: the first in binary counting order)."""
    if not 0 < n_bits <= MAX_EXHAUSTIVE_SLOTS:
        raise ValueError(f"exhaustive search takes 1 to {MAX_EXHAUSTIVE_SLOTS} slots, got {n_bits}")
    archive = ParetoArchive()
    bits = np.arange(n_bits)
    for number in range(1, 1 << n_bits):
        plan = ((number >> bits) & 1).astype(bool)
        ac, sc = evaluate(plan)
        archive.add(ac, sc, plan)
    return archive.front()
