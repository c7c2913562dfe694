"""Workload traces: the Standard Workload Format (SWF) reader/writer and synthetic workloads.

``read_swf`` / ``write_swf`` and the data types are stdlib only; the generators
(``generate_lublin99``, ``assign_estimates``, ``estimate_histogram``) need numpy and are
imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .swf import FIELDS, SWFError, SWFHeader, SWFJob, Trace, read_swf, write_swf

if TYPE_CHECKING:  # pragma: no cover
    from .estimates import assign_estimates, estimate_histogram
    from .lublin import generate_lublin99

__all__ = [
    "FIELDS",
    "SWFError",
    "SWFHeader",
    "SWFJob",
    "Trace",
    "assign_estimates",
    "estimate_histogram",
    "generate_lublin99",
    "read_swf",
    "write_swf",
]

_LAZY = {
    "generate_lublin99": "lublin",
    "assign_estimates": "estimates",
    "estimate_histogram": "estimates",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
