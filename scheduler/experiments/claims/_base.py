"""The claim builder every seed module uses."""

from __future__ import annotations

from typing import Any

from ..base import Expectation


def claim(**kw: Any) -> Expectation:
    """A claim with the issue-18 names: ``quote`` (the seed's words, verbatim; ``…`` joins
    pieces) and ``where`` (seed and section/figure); the rest as :class:`Expectation`."""
    quote, where = kw.pop("quote"), kw.pop("where")
    return Expectation(where, kw.pop("metric"), quote, **kw)
