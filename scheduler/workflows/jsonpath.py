"""Small helpers for reading JSON workflow documents with errors that name a JSON path.

A path is written ``$.workflow.tasks[3].parents[0]``.  :class:`Reader` collects
``(path, reason)`` problems and stops (raising :class:`~scheduler.workflows.dag.WorkflowError`)
after 20, so that a broken upload reports several problems at once without flooding.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scheduler.jsonvalues import describe

from .dag import WorkflowError

__all__ = ["Reader", "join"]

_MAX_ERRORS = 20


def join(path: str, key: str | int) -> str:
    """``join("$.a", "b") == "$.a.b"``; ``join("$.a", 3) == "$.a[3]"``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{key!r}]"


class Reader:
    """Typed access to parsed JSON, recording problems by path."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []

    def error(self, path: str, reason: str) -> None:
        self.errors.append((path, reason))
        if len(self.errors) >= _MAX_ERRORS:
            self.raise_if_any()

    def raise_if_any(self) -> None:
        if self.errors:
            raise WorkflowError(self.errors)

    def obj(self, value: Any, path: str) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            self.error(path, f"must be a JSON object, got {describe(value)}")
            return None
        return value

    def array(self, value: Any, path: str) -> list[Any] | None:
        if not isinstance(value, list):
            self.error(path, f"must be a JSON array, got {describe(value)}")
            return None
        return value

    def string(self, value: Any, path: str) -> str | None:
        if not isinstance(value, str) or not value:
            self.error(path, f"must be a non-empty string, got {describe(value)}")
            return None
        return value

    def strings(self, value: Any, path: str) -> list[str]:
        """An optional array of strings (missing → empty)."""
        if value is None:
            return []
        items = self.array(value, path)
        if items is None:
            return []
        out = []
        for k, item in enumerate(items):
            s = self.string(item, join(path, k))
            if s is not None:
                out.append(s)
        return out

    def field(self, doc: dict[str, Any], key: str, path: str) -> Any:
        """``doc[key]``, recording a "missing" problem when absent."""
        if key not in doc:
            self.error(path, f"missing required key {key!r}")
            return None
        return doc[key]

    def named(self, value: Any, path: str, key: str) -> Iterator[tuple[str, dict[str, Any], str]]:
        """``(name, entry, entry's path)`` of each entry of the array ``value`` (at ``path``)
        that is an object with a non-empty string ``key``; every other entry is recorded as a
        problem and skipped."""
        for k, item in enumerate(self.array(value, path) or []):
            item_path = join(path, k)
            entry = self.obj(item, item_path)
            if entry is None:
                continue
            name = self.string(self.field(entry, key, item_path), join(item_path, key))
            if name is not None:
                yield name, entry, item_path

    def unique(
        self, value: Any, path: str, key: str, what: str
    ) -> dict[str, tuple[dict[str, Any], str]]:
        """:meth:`named` as ``{name: (entry, path)}`` in document order; a repeated name is
        recorded (``duplicate {what} …``, naming the first place) and its entry skipped."""
        out: dict[str, tuple[dict[str, Any], str]] = {}
        for name, entry, item_path in self.named(value, path, key):
            if name in out:
                self.error(
                    join(item_path, key), f"duplicate {what} {name!r} (first at {out[name][1]})"
                )
                continue
            out[name] = (entry, item_path)
        return out
