"""The seeds' claims, one module per seed, keyed by ``"kind/preset"``.

Every claim quotes the seed's sentence verbatim (short; ``…`` joins pieces), says where it is
(seed and section/figure), the metric, the tolerance and why that tolerance, whether the
algorithm guarantees it (``by_construction``: shown, checked, never counted) and, when we do
not reproduce it, why (``cause``).  A kind module only references its claims::

    Preset("thesis-fig23-24-ctc", ..., published=claims.of("pricing", "thesis-fig23-24-ctc"))

Deviations a kind chose on purpose are a module-level ``DEVIATIONS: dict[str, str]`` in the
kind's module: ``{where in the seed: what we do differently and why}``; :func:`deviations`
reads them (and ``CALIBRATION`` likewise) for the Reproductions page and the report.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from ..base import Expectation
from . import seed001, seed002, seed003, seed004, thesis_ch3, thesis_ch4_ch7, thesis_ch5, thesis_ch6
from ._base import claim
from .calibrations import CALIBRATIONS, Calibration

__all__ = ["CLAIMS", "CALIBRATIONS", "Calibration", "claim", "of", "deviations", "SEED_FILES"]

#: "kind/preset" -> the claims its runs are checked against.
CLAIMS: dict[str, tuple[Expectation, ...]] = {}
for _module in (thesis_ch3, thesis_ch4_ch7, thesis_ch5, thesis_ch6, seed001, seed002, seed003,
                seed004):  # fmt: skip
    for _key, _claims in _module.CLAIMS.items():
        if _key in CLAIMS:
            raise ValueError(f"claims for {_key} declared twice")
        CLAIMS[_key] = tuple(_claims)


def _mark_fitted(claims: dict[str, tuple[Expectation, ...]]) -> None:
    """Every claim a calibration was tuned on becomes ``fitted`` (shown, never counted); a
    target that matches no claim is an error, so a declaration cannot go stale unseen."""
    for cal in CALIBRATIONS:
        unknown = [key for key in cal.presets if key not in claims]
        if unknown:
            raise ValueError(f"calibration {cal.name}: no claims for presets {unknown}")
        found = {e.metric for key in cal.presets for e in claims[key]}
        missing = [m for m in cal.targets if m not in found]
        if missing:
            raise ValueError(f"calibration {cal.name}: no claim of its presets on {missing}")
        for key in cal.presets:
            claims[key] = tuple(
                replace(e, fitted=cal.why, by_construction="", constant="")
                if e.metric in cal.targets
                else e
                for e in claims[key]
            )


_mark_fitted(CLAIMS)

#: The seed texts the quotes come from, by seed id (the five publications of
#: docs/references.md, as text files kept beside the repository, not in it).
SEED_FILES = {
    "000": "000_f914d7224090b978.txt",
    "001": "001_c7619d3c3f10634f.txt",
    "002": "002_30bbc8b7d6577e1b.txt",
    "003": "003_5daf19a888b74114.txt",
    "004": "004_62c816b0d24ad034.txt",
}


def of(kind: str, preset: str) -> tuple[Expectation, ...]:
    """The claims of one preset (empty when it reproduces nothing the seeds state)."""
    return CLAIMS.get(f"{kind}/{preset}", ())


def deviations(kind_obj: Any) -> dict[str, dict[str, str]]:
    """The deviations a kind declared: ``{"DEVIATIONS": {...}, "CALIBRATION": {...}}`` (only
    the non-empty ones), read from its module."""
    module = sys.modules.get(type(kind_obj).__module__)
    out = {}
    for name in ("DEVIATIONS", "CALIBRATION"):
        value = getattr(module, name, None)
        if isinstance(value, dict) and value:
            out[name] = dict(_entry(k, v) for k, v in value.items())
    return out


def _entry(key: Any, value: Any) -> tuple[str, str]:
    """One deviation as (where in the seed, what we do and why): a plain ``{where: text}``
    entry, or ``{name: {"where", "deviation", "cause"}}``."""
    if isinstance(value, dict):
        where = str(value.get("where") or key)
        text = str(value.get("deviation") or "")
        if value.get("cause"):
            text += f" Cause: {value['cause']}"
        rest = {k: v for k, v in value.items() if k not in ("where", "deviation", "cause")}
        text += "".join(f" {k}: {v}." for k, v in rest.items())
        return where, text.strip()
    return str(key), str(value)
