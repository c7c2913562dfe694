"""``load_workflow``: read any supported workflow file, deciding its format from its content.

Sniffing (the file name is never trusted): after an optional byte-order mark and white space,
``<`` means XML → Pegasus DAX (:mod:`.dax`); ``{`` means JSON, which is the native format
(:mod:`.native`) when ``"format": "gridportal-workflow"``, a Pegasus 5 workflow written as JSON
(:mod:`.pegasus_yaml`, the same schema as the YAML) when it has a top-level ``"pegasus"`` key,
and WfFormat (:mod:`.wfformat`) when it has ``schemaVersion`` or ``workflow``; a document with a
top-level ``pegasus:`` key is a Pegasus 5 YAML workflow.  Anything else is refused with a clear
error.

The size limit is enforced while reading (at most ``max_bytes + 1`` bytes are read), before any
parsing; task and edge limits are enforced by the parsers as they go.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, BinaryIO

from ..jsonvalues import JSONLimitError
from ..jsonvalues import loads as loads_bounded
from .dag import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_EDGES,
    DEFAULT_MAX_TASKS,
    Limits,
    Workflow,
    WorkflowError,
    utf8_text,
)
from .dax import parse_dax
from .native import FORMAT, parse_native
from .pegasus_yaml import looks_like_pegasus_yaml, parse_pegasus, parse_pegasus_yaml
from .wfformat import parse_wfformat

__all__ = ["detect_format", "load_workflow", "parse_workflow_bytes", "read_limited"]

_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"


def read_limited(
    source: str | os.PathLike[str] | bytes | BinaryIO, max_bytes: int | None
) -> tuple[bytes, str | None]:
    """The bytes of ``source`` (a path, bytes, or a binary file object) and its display name.

    Raises :class:`WorkflowError` when there are more than ``max_bytes`` bytes.
    """
    if isinstance(source, bytes | bytearray | memoryview):
        data, display = bytes(source), None
    elif isinstance(source, str | os.PathLike):
        display = os.fspath(source)
        try:
            with open(source, "rb") as fh:
                data = fh.read() if max_bytes is None else fh.read(max_bytes + 1)
        except OSError as exc:
            raise WorkflowError([(display, f"cannot read: {exc.strerror or exc}")]) from None
    else:
        display = getattr(source, "name", None)
        display = display if isinstance(display, str) else None
        data = source.read() if max_bytes is None else source.read(max_bytes + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
    if max_bytes is not None and len(data) > max_bytes:
        raise WorkflowError([("file", f"larger than the limit of {max_bytes} bytes")])
    return data, display


def detect_format(data: bytes) -> str:
    """``"dax"``, ``"json"``, ``"yaml"`` (Pegasus 5); raises :class:`WorkflowError` otherwise."""
    head = data[:4]
    if head.startswith(_GZIP_MAGIC):
        raise WorkflowError([("file", "gzip-compressed data: decompress it first")])
    if head.startswith(_ZIP_MAGIC):
        raise WorkflowError([("file", "a ZIP archive: extract the workflow file first")])
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "dax"  # UTF-16 with a BOM: only XML declares that; expat decodes it
    text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    first = text.lstrip(b" \t\r\n")[:1]
    if first == b"<":
        return "dax"
    if first in (b"{", b"["):
        return "json"
    if not first:
        raise WorkflowError([("file", "the file is empty")])
    if looks_like_pegasus_yaml(text):
        return "yaml"
    shown = text.lstrip()[:20]
    raise WorkflowError(
        [
            (
                "line 1",
                f"neither XML (Pegasus DAX), Pegasus 5 YAML (a top-level 'pegasus:' key) nor "
                f"JSON (Pegasus 5, WfFormat, gridportal-workflow): "
                f"starts with {shown!r}",
            )
        ]
    )


def _load_json(data: bytes) -> Any:
    text = utf8_text(data, "JSON")
    try:
        # depth, integer digits and non-finite numbers bounded before parsing
        return loads_bounded(text)
    except JSONLimitError as exc:
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, json.JSONDecodeError):
            raise WorkflowError(
                [(f"line {cause.lineno} column {cause.colno}", f"invalid JSON: {cause.msg}")]
            ) from None
        raise WorkflowError([("$", str(exc))]) from None


def parse_workflow_bytes(
    data: bytes,
    *,
    name: str | None = None,
    limits: Limits | None = None,
    default_runtime: float | None = None,
) -> Workflow:
    """Parse in-memory bytes of any supported format (see the module docstring).

    ``name`` names a DAX workflow (DAX ``adag`` names are generic, e.g. "test") and is the
    fallback name of a JSON workflow whose document has none.
    """
    limits = limits or Limits()
    if limits.max_bytes is not None and len(data) > limits.max_bytes:
        raise WorkflowError([("file", f"larger than the limit of {limits.max_bytes} bytes")])
    fmt = detect_format(data)
    if fmt == "dax":
        return parse_dax(data, name=name, limits=limits, default_runtime=default_runtime)
    if fmt == "yaml":
        return parse_pegasus_yaml(data, name=name, limits=limits, default_runtime=default_runtime)
    doc = _load_json(data)
    if not isinstance(doc, dict):
        raise WorkflowError([("$", "the top-level JSON value must be an object")])
    if "format" in doc:
        if doc["format"] != FORMAT:
            raise WorkflowError([("$.format", f"unknown format {doc['format']!r}")])
        return parse_native(doc, name=name, limits=limits)
    if "pegasus" in doc:
        return parse_pegasus(doc, name=name, limits=limits, default_runtime=default_runtime)
    if "schemaVersion" in doc or "workflow" in doc:
        return parse_wfformat(doc, name=name, limits=limits, default_runtime=default_runtime)
    raise WorkflowError(
        [
            (
                "$",
                'JSON object is neither a Pegasus 5 workflow (needs "pegasus": "5.0"), WfFormat '
                '(needs "schemaVersion" and "workflow") nor the native format (needs '
                f'"format": "{FORMAT}")',
            )
        ]
    )


def load_workflow(
    source: str | os.PathLike[str] | bytes | BinaryIO,
    *,
    name: str | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    max_tasks: int = DEFAULT_MAX_TASKS,
    max_edges: int = DEFAULT_MAX_EDGES,
    default_runtime: float | None = None,
) -> Workflow:
    """Read a Pegasus DAX, Pegasus 5 YAML/JSON, WfFormat or native JSON workflow from a path,
    bytes or binary file.

    ``name`` is the source's name for errors (e.g. the uploaded file name); the workflow is
    named by its file's own ``name`` (WfFormat, native), else the stem of ``name`` or of the
    path.  ``default_runtime`` (seconds) is used for tasks whose file gives no runtime;
    without it such tasks are errors (Pegasus 5 jobs take 60 s).  What the reader assumed is in
    the workflow's ``notes``.  Raises :class:`WorkflowError` (a ``ValueError``) naming
    the line or JSON path; its ``source`` is the file's name.
    """
    data, display = read_limited(source, max_bytes)
    label = name or display
    stem = Path(label).stem if label else None
    limits = Limits(max_tasks=max_tasks, max_edges=max_edges, max_bytes=max_bytes)
    try:
        return parse_workflow_bytes(data, name=stem, limits=limits, default_runtime=default_runtime)
    except WorkflowError as exc:
        exc.source = label
        raise
