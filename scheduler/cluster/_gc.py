"""Pausing the cyclic garbage collector around bulk work on whole traces."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: a replay allocates millions of small acyclic tuples,
    and the collector's passes over the parsed trace cost more than the simulation itself
    (reference counting still frees everything)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
