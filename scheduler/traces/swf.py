"""Reading and writing the Standard Workload Format (SWF) of the Parallel Workloads Archive.

SWF (Chapin et al., "Benchmarks and standards for the evaluation of parallel job schedulers",
JSSPP 1999; https://www.cs.huji.ac.il/labs/parallel/workload/swf.html) is a text format: header
comments start with ``;`` (``; Key: value`` lines carry machine facts such as ``MaxProcs`` or
``UnixStartTime``), then one job per line with 18 whitespace-separated numbers, ``-1`` meaning
"unknown".

:func:`read_swf` is strict: it either returns a complete :class:`Trace` or raises
:class:`SWFError` listing the offending lines (1-based, comment lines counted; line 0 for
problems with the file as a whole).  It never returns a partial trace.  Gzip input is recognised
by its magic bytes, not by its name, and is decompressed while streaming so that ``max_bytes``
protects against gzip bombs.

Speed: the text is read in blocks of whole lines; a run of job lines is checked and
converted with a few numpy passes over its bytes (:func:`_fast_table`) when every line is
plainly valid, and otherwise line by line, which is also what names a bad line — so both ways
give the same jobs and the same errors.  :func:`read_swf_table` keeps the fields a simulation
reads as int64 columns, without a :class:`SWFJob` per job.  numpy is imported on first use; the
line-by-line reader alone needs only the standard library.
"""

from __future__ import annotations

import gc
import gzip
import io
import math
import os
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, BinaryIO

from ..bounds import INT64_MAX, MAX_BYTES_DATA, MAX_PROCS, MAX_SECONDS

__all__ = [
    "FIELDS",
    "FIELD_BOUNDS",
    "HEADER_BOUNDS",
    "SWFError",
    "SWFHeader",
    "SWFJob",
    "Trace",
    "TABLE_FIELDS",
    "read_swf",
    "read_swf_table",
    "scan_swf",
    "write_swf",
]

#: The 18 SWF fields, in file order, with their Python names.
FIELDS: tuple[str, ...] = (
    "job_id",
    "submit",
    "wait",
    "run",
    "alloc_procs",
    "avg_cpu",
    "used_mem",
    "req_procs",
    "req_time",
    "req_mem",
    "status",
    "user",
    "group",
    "app",
    "queue",
    "partition",
    "prev_job",
    "think_time",
)
_NFIELDS = len(FIELDS)
_PROC_FIELDS = frozenset({"alloc_procs", "req_procs"})

#: Physical bounds of the fields: processors <= 10**7, times <= 100 years (s), memory
#: <= 10**15 KB, identifiers and codes fit a signed 64-bit integer.  Every value is finite.
FIELD_BOUNDS: dict[str, tuple[float, str]] = {
    **dict.fromkeys(
        ("job_id", "status", "user", "group", "app", "queue", "partition", "prev_job"),
        (INT64_MAX, "identifiers and codes must fit a 64-bit integer"),
    ),
    **dict.fromkeys(
        ("submit", "wait", "run", "avg_cpu", "req_time", "think_time"),
        (MAX_SECONDS, "times must be at most 100 years in seconds"),
    ),
    **dict.fromkeys(_PROC_FIELDS, (MAX_PROCS, "processor counts must be at most 10^7")),
    **dict.fromkeys(("used_mem", "req_mem"), (MAX_BYTES_DATA, "memory must be at most 10^15 KB")),
}
_BOUNDS = tuple(FIELD_BOUNDS[f][0] for f in FIELDS)
_FAST_MAX = min(_BOUNDS[i] for i in range(_NFIELDS) if FIELDS[i] not in _PROC_FIELDS)
_ALLOC, _REQ = FIELDS.index("alloc_procs"), FIELDS.index("req_procs")

#: Header keys whose value must start with an integer, with their bounds: the
#: portal stores MaxProcs and MaxJobs in 32-bit integer columns.
HEADER_BOUNDS: dict[str, tuple[int, int]] = {
    "MaxProcs": (0, MAX_PROCS),
    "MaxNodes": (0, MAX_PROCS),
    "MaxJobs": (0, 2**31 - 1),
    "MaxRecords": (0, 2**31 - 1),
    "UnixStartTime": (0, 2 * int(MAX_SECONDS)),  # 1970 + 200 years
    "MaxRuntime": (0, int(MAX_SECONDS)),
    "MaxQueues": (0, 2**31 - 1),
    "MaxPartitions": (0, 2**31 - 1),
}
_MAX_NUMBER_CHARS = 40  # a longer token is no plausible number (5,000-digit integers)

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 18  # bytes read from the (decompressed) stream at a time (the fast path's
# numpy temporaries are a few times this: small blocks keep the peak memory down)
_MAX_LINE = 1 << 20  # a line longer than this is certainly not SWF (binary data?)
#: Header comments kept per file; later ``;`` lines are skipped (not stored), so a file — or a
#: gzip bomb — of comment lines cannot fill memory before the size limit refuses it.
_MAX_COMMENTS = 10_000
_MAX_TOKEN_SHOWN = 40

# A header line is "; Key: value" with a one-word key.  URLs are excluded so that indented
# continuation lines holding one (";     http://...") are not taken for a field named "http".
_HEADER_RE = re.compile(r"^\s*(?!(?:https?|ftp|file)://)([A-Za-z][A-Za-z0-9_]*)\s*:(.*)$")
_LEADING_INT_RE = re.compile(r"^\s*([+-]?\d+)")


# --------------------------------------------------------------------------------------------
# Data types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SWFJob:
    """One job line: the 18 SWF fields (``-1`` = unknown).

    Values are ints; ``avg_cpu``, ``used_mem`` and ``req_mem`` (or any field written with
    decimals) may be floats.
    """

    job_id: int
    submit: int
    wait: int
    run: int
    alloc_procs: int
    avg_cpu: float
    used_mem: float
    req_procs: int
    req_time: int
    req_mem: float
    status: int
    user: int
    group: int
    app: int
    queue: int
    partition: int
    prev_job: int
    think_time: int

    @property
    def procs(self) -> int:
        """Processors of the job: allocated if known (> 0), else requested."""
        return self.alloc_procs if self.alloc_procs > 0 else self.req_procs

    def to_fields(self) -> tuple:
        """The 18 values in SWF order."""
        return (
            self.job_id,
            self.submit,
            self.wait,
            self.run,
            self.alloc_procs,
            self.avg_cpu,
            self.used_mem,
            self.req_procs,
            self.req_time,
            self.req_mem,
            self.status,
            self.user,
            self.group,
            self.app,
            self.queue,
            self.partition,
            self.prev_job,
            self.think_time,
        )


def _job_factory(positional: bool = False):  # type: ignore[no-untyped-def]
    """``values -> SWFJob`` (or, with ``positional``, ``(*values) -> SWFJob``) without the
    frozen dataclass's 18 ``object.__setattr__`` calls: the slot descriptors are set directly
    (same object, same checks left to the caller)."""
    env = {"new": object.__new__, "cls": SWFJob}
    args = ", ".join(f"a{i}" for i in range(len(FIELDS)))
    body = [f"def _new_job({args if positional else 'v'}):", "    o = new(cls)"]
    for i, name in enumerate(FIELDS):
        env[f"s{i}"] = SWFJob.__dict__[name].__set__
        body.append(f"    s{i}(o, {f'a{i}' if positional else f'v[{i}]'})")
    body.append("    return o")
    exec("\n".join(body), env)  # noqa: S102 (fixed text built from FIELDS)
    return env["_new_job"]


_new_job = _job_factory()
_new_job_args = _job_factory(positional=True)  # map(_new_job_args, *columns)


def _parse_header_line(text: str) -> tuple[str, str] | None:
    """``" Key: value"`` (a comment without its ``;``) -> ``("Key", "value")``, else None."""
    m = _HEADER_RE.match(text)
    if m is None:
        return None
    return m.group(1), m.group(2).strip()


def _leading_int(value: str | None) -> int | None:
    if value is None:
        return None
    m = _LEADING_INT_RE.match(value)
    return int(m.group(1)) if m else None


def _int_field(key: str) -> property:
    """A read-only header property: the leading integer of field ``key`` (None when the
    header has no such field or it does not start with a number)."""

    def get(header: SWFHeader) -> int | None:
        return _leading_int(header.fields.get(key))

    return property(get, doc=f"The leading integer of the header's {key} (None: absent).")


@dataclass(frozen=True)
class SWFHeader:
    """The header comments of a trace.

    ``fields`` maps each ``; Key: value`` key to its value (first occurrence wins);
    ``comments`` holds every ``;`` line without the ``;``, in file order.
    """

    fields: dict[str, str] = field(default_factory=dict)
    comments: tuple[str, ...] = ()

    @classmethod
    def from_comments(cls, comments: Iterable[str]) -> SWFHeader:
        """Build a header from comment lines (without ``;``), parsing the ``Key: value`` ones."""
        comments = tuple(comments)
        fields: dict[str, str] = {}
        for text in comments:
            kv = _parse_header_line(text)
            if kv is not None and kv[0] not in fields:
                fields[kv[0]] = kv[1]
        return cls(fields=fields, comments=comments)

    @classmethod
    def from_fields(cls, fields: Mapping[str, str], comments: Iterable[str] = ()) -> SWFHeader:
        """Build a header from ``Key -> value`` pairs, plus free comment lines after them."""
        lines = []
        for k, v in fields.items():
            _check_key(k)
            lines.append(f" {k}: {_check_value(k, v)}".rstrip())
        lines.extend(_check_comment(c) for c in comments)
        return cls.from_comments(lines)

    max_procs = _int_field("MaxProcs")
    max_nodes = _int_field("MaxNodes")
    unix_start_time = _int_field("UnixStartTime")
    max_jobs = _int_field("MaxJobs")

    @property
    def time_zone_string(self) -> str | None:
        value = self.fields.get("TimeZoneString")
        return value or None


@dataclass(frozen=True)
class Trace:
    """A parsed SWF trace: header plus jobs in file order."""

    header: SWFHeader
    jobs: tuple[SWFJob, ...]

    @property
    def machine_procs(self) -> int:
        """Machine size: header ``MaxProcs``, else ``MaxNodes``, else the largest job."""
        for value in (self.header.max_procs, self.header.max_nodes):
            if value is not None and value > 0:
                return value
        return max(0, max((j.procs for j in self.jobs), default=0))


class SWFError(ValueError):
    """A trace that is not valid SWF.

    ``errors`` is a list of ``(line, reason)``; line numbers are 1-based and count comment and
    blank lines; line 0 is used for problems with the file as a whole.  ``str(err)`` lists them,
    one per line, as ``line 12: field 5 (alloc_procs) is -5; ...``.
    """

    def __init__(
        self,
        errors: list[tuple[int, str]],
        *,
        source: str | None = None,
        truncated: bool = False,
    ) -> None:
        self.errors = list(errors)
        self.source = source
        self.truncated = truncated
        super().__init__(self._message())

    def _message(self) -> str:
        lines = [f"line {n}: {reason}" for n, reason in self.errors]
        if self.truncated:
            lines.append(f"(stopped after {len(self.errors)} errors; there may be more)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._message()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # picklable (e.g. across workers)
        return (_rebuild_swf_error, (self.errors, self.source, self.truncated))


def _rebuild_swf_error(
    errors: list[tuple[int, str]], source: str | None, truncated: bool
) -> SWFError:
    return SWFError(errors, source=source, truncated=truncated)


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


class _Stop(Exception):
    """Internal: stop reading (too many errors, or a file-level error)."""


class _PrefixedRaw(io.RawIOBase):
    """A raw stream that yields ``prefix`` and then the rest of ``inner`` (non-seekable input)."""

    def __init__(self, prefix: bytes, inner: BinaryIO) -> None:
        self._prefix = prefix
        self._inner = inner

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        if self._prefix:
            n = min(len(buf), len(self._prefix))
            buf[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._inner.read(len(buf))
        if not data:
            return 0
        n = len(data)
        buf[:n] = data
        return n


class _TextAsBytes(io.RawIOBase):
    """Adapts a text stream to the binary interface the reader works on (UTF-8)."""

    def __init__(self, inner: IO[str]) -> None:
        self._inner = inner
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        while not self._pending:
            text = self._inner.read(_CHUNK)
            if not text:
                return 0
            self._pending = text.encode("utf-8")
        n = min(len(buf), len(self._pending))
        buf[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def _show_token(tok: bytes) -> str:
    text = tok.decode("latin-1")
    if len(text) > _MAX_TOKEN_SHOWN:
        text = text[:_MAX_TOKEN_SHOWN] + "..."
    return repr(text)


def _convert(tok: bytes) -> int | float | None:
    """A numeric SWF token -> int (or float), None if it is not a plain finite number."""
    if not tok.isascii() or b"_" in tok:
        return None
    try:
        return int(tok)
    except ValueError:
        pass
    try:
        value = float(tok)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _format_number(value: float) -> str:
    if isinstance(value, float) and abs(value) >= 1e16:
        return f"{value:.6g}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _slow_job_line(raw: bytes, parts: list[bytes]) -> SWFJob | str:
    """Full check of a job line that failed the fast path: a job, or the reason it is bad."""
    if b"\x00" in raw or not raw.isascii():
        return "contains binary data (NUL or non-ASCII bytes); not a text SWF job line"
    if len(parts) != _NFIELDS:
        plural = "field" if len(parts) == 1 else "fields"
        return f"has {len(parts)} {plural}, expected {_NFIELDS}"
    problems: list[str] = []
    values: list[int | float] = []
    for i, tok in enumerate(parts):
        name = FIELDS[i]
        if len(tok) > _MAX_NUMBER_CHARS:
            problems.append(
                f"field {i + 1} ({name}) is not a plausible number ({len(tok)} characters)"
            )
            continue
        value = _convert(tok)
        if value is None:
            problems.append(f"field {i + 1} ({name}) is not a number: {_show_token(tok)}")
            continue
        if value < 0 and value != -1:
            if name in _PROC_FIELDS:
                rule = "processor counts must be >= 0 or -1 (unknown)"
            else:
                rule = "values must be >= 0 or -1 (unknown)"
            problems.append(f"field {i + 1} ({name}) is {_format_number(value)}; {rule}")
            continue
        bound, rule = FIELD_BOUNDS[name]
        if value > bound:
            problems.append(f"field {i + 1} ({name}) is {_format_number(value)}; {rule}")
            continue
        values.append(value)
    if problems:
        reason = problems[0]
        if len(problems) > 1:
            reason += f" (and {len(problems) - 1} more problem(s) on this line)"
        return reason
    return SWFJob(*values)


def _decode_comment(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _open_source(
    source: str | os.PathLike[str] | BinaryIO | IO[str], name: str | None
) -> tuple[BinaryIO, str | None, bool]:
    """-> (binary stream, display name, whether we opened it and must close it)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        return open(path, "rb"), (name or str(path)), True  # the caller closes it
    if isinstance(source, io.TextIOBase):
        stream: BinaryIO = io.BufferedReader(_TextAsBytes(source))  # type: ignore[arg-type]
        return stream, name or getattr(source, "name", None), False
    if not hasattr(source, "read"):
        raise TypeError(
            f"source must be a path or a binary file object, not {type(source).__name__}"
        )
    display = name
    if display is None:
        candidate = getattr(source, "name", None)
        display = candidate if isinstance(candidate, str) else None
    return source, display, False  # type: ignore[return-value]


def _peek_magic(stream: BinaryIO) -> tuple[bytes, BinaryIO]:
    """Read the first two bytes without losing them."""
    peek = getattr(stream, "peek", None)
    if peek is not None:
        try:
            head = peek(2)[:2]
            if len(head) >= 2:
                return head, stream
        except (OSError, ValueError):
            pass
    seekable = False
    try:
        seekable = stream.seekable()
    except (AttributeError, OSError, ValueError):
        seekable = False
    if seekable:
        pos = stream.tell()
        head = stream.read(2)
        stream.seek(pos)
        return head, stream
    head = b""
    while len(head) < 2:  # a pipe may hand out fewer bytes than asked for
        more = stream.read(2 - len(head))
        if not more:
            break
        head += more
    return head, io.BufferedReader(_PrefixedRaw(head, stream))  # type: ignore[arg-type]


def _blocks(
    stream: BinaryIO, errors: list[tuple[int, str]], max_bytes: int | None, gz: bool
) -> Iterator[bytes | None]:
    """Yield the text in blocks of whole lines (each ends with ``\\n``, except perhaps the
    file's last line), counting decompressed bytes as they arrive; None when a line is longer
    than ``_MAX_LINE`` (the caller reports it and stops)."""
    total = 0
    carry = b""
    first = True
    while True:
        try:
            chunk = stream.read(_CHUNK)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            errors.append((0, f"corrupt or truncated gzip data: {exc}"))
            raise _Stop from None
        except OSError as exc:
            if gz:
                errors.append((0, f"corrupt or truncated gzip data: {exc}"))
                raise _Stop from None
            raise
        if not chunk:
            break
        total += len(chunk)
        if max_bytes is not None and total > max_bytes:
            what = "decompressed data is" if gz else "file is"
            errors.append((0, f"larger than {max_bytes} bytes ({what} too large)"))
            raise _Stop
        if first:
            first = False
            if chunk.startswith(b"\xef\xbb\xbf"):  # UTF-8 byte order mark
                chunk = chunk[3:]
        if carry:
            chunk = carry + chunk
        cut = chunk.rfind(b"\n") + 1
        carry = chunk[cut:]
        if cut:
            yield chunk[:cut]
        if len(carry) > _MAX_LINE:
            yield None
            return
    if carry:
        yield carry


def read_swf(
    source: str | os.PathLike[str] | BinaryIO,
    *,
    name: str | None = None,
    max_errors: int = 20,
    max_bytes: int | None = None,
    max_jobs: int | None = None,
    limit: int | None = None,
) -> Trace:
    """Parse an SWF trace from a path or a binary file object (plain or gzip-compressed).

    ``name`` is used in place of the path to decide whether the data claims to be gzip (a name
    ending in ``.gz`` must hold gzip data) and as the source name of errors.  At most
    ``max_errors`` problems are collected before reading stops; any problem raises
    :class:`SWFError`.  ``max_bytes`` bounds the (decompressed) size, counted while streaming.
    Submit times out of order are accepted.

    Every field is a finite number within :data:`FIELD_BOUNDS` and the numeric header fields
    (``MaxProcs``, ``MaxJobs``, ...) hold integers within :data:`HEADER_BOUNDS`; a value outside
    is refused naming the line and the field.  ``max_jobs``: more job lines than this
    is an error, raised as soon as the next one is read.  ``limit``: keep the first ``limit``
    job lines and stop reading there (the rest of the file is not read, nor checked).
    """
    jobs: list[SWFJob] = []
    header = _read(source, jobs, name, max_errors, max_bytes, max_jobs, limit)
    return Trace(header=header, jobs=tuple(jobs))


def scan_swf(
    source: str | os.PathLike[str] | BinaryIO,
    sink: Any,
    *,
    name: str | None = None,
    max_errors: int = 20,
    max_bytes: int | None = None,
    max_jobs: int | None = None,
) -> SWFHeader:
    """Check an SWF trace as :func:`read_swf` does — every line, the same errors — but hand
    each job to ``sink.append`` instead of keeping it (``len(sink)`` counts them): with
    :class:`~scheduler.traces.stats.SummarySink` a whole upload is validated and summarised in
    constant memory.  Returns the header."""
    return _read(source, sink, name, max_errors, max_bytes, max_jobs, None)


#: The fields :func:`read_swf_table` keeps, in its columns' order: what a cluster simulation
#: reads of a job (:func:`scheduler.cluster.jobs.prepare_table`).
TABLE_FIELDS: tuple[str, ...] = (
    "job_id",
    "submit",
    "run",
    "alloc_procs",
    "req_procs",
    "req_time",
    "user",
    "group",
    "queue",
    "partition",
)
_TABLE_COLUMNS = tuple(FIELDS.index(f) for f in TABLE_FIELDS)


class _TableSink:
    """Where :func:`read_swf_table` puts the jobs: the :data:`TABLE_FIELDS` columns of each run
    of lines the fast path read (no :class:`SWFJob` is made for them), and the jobs the
    line-by-line reader made, in file order."""

    def __init__(self) -> None:
        self.parts: list[Any] = []  # int64 arrays (rows, len(TABLE_FIELDS)), or lists of rows
        self.count = 0
        self.integral = True  # every kept field is an int

    def __len__(self) -> int:
        return self.count

    def append(self, job: SWFJob) -> None:
        self.count += 1
        if not self.integral:
            return
        values = job.to_fields()
        row = [values[i] for i in _TABLE_COLUMNS]
        if any(type(v) is not int for v in row):
            self.integral = False
            self.parts.clear()
            return
        if not self.parts or not isinstance(self.parts[-1], list):
            self.parts.append([])
        self.parts[-1].append(row)

    def add_table(self, table: Any, dots: Any, decimals: list[float]) -> None:
        self.count += len(table)
        if not self.integral:
            return
        np = _get_fast_tables()[0]
        if dots is not None and np.isin(dots % _NFIELDS, _TABLE_COLUMNS).any():
            self.integral = False  # a kept field written with a decimal point
            self.parts.clear()
            return
        self.parts.append(table[:, _TABLE_COLUMNS])

    def table(self) -> Any:
        np = _get_fast_tables()[0]
        width = len(_TABLE_COLUMNS)
        parts = [
            np.array(p, dtype=np.int64).reshape(-1, width) if isinstance(p, list) else p
            for p in self.parts
        ]
        if not parts:
            return np.zeros((0, width), dtype=np.int64)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)


def read_swf_table(
    source: str | os.PathLike[str] | BinaryIO,
    *,
    name: str | None = None,
    max_errors: int = 20,
    max_bytes: int | None = None,
    max_jobs: int | None = None,
    limit: int | None = None,
) -> tuple[SWFHeader, Any]:
    """Read an SWF trace as :func:`read_swf` does — every line checked, the same errors, the
    same ``limit`` — but keep only the :data:`TABLE_FIELDS` of each job, as the columns of an
    int64 numpy array (one row per job, file order), without making a :class:`SWFJob` per job.
    Returns ``(header, table)``; ``table`` is None when one of those fields is written with a
    decimal point somewhere (a float: use :func:`read_swf`).  Needs numpy."""
    if not _get_fast_tables():  # pragma: no cover - numpy is a requirement
        raise ImportError("read_swf_table needs numpy")
    sink = _TableSink()
    header = _read(source, sink, name, max_errors, max_bytes, max_jobs, limit)
    return header, (sink.table() if sink.integral else None)


def _read(
    source: str | os.PathLike[str] | BinaryIO,
    jobs: Any,
    name: str | None,
    max_errors: int,
    max_bytes: int | None,
    max_jobs: int | None,
    limit: int | None,
) -> SWFHeader:
    if max_errors < 1:
        raise ValueError(f"max_errors must be >= 1, got {max_errors}")
    if max_bytes is not None and max_bytes < 0:
        raise ValueError(f"max_bytes must be >= 0 or None, got {max_bytes}")
    for label, value in (("max_jobs", max_jobs), ("limit", limit)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 0
        ):
            raise ValueError(f"{label} must be an int >= 0 or None, got {value!r}")
    raw_stream, display, owned = _open_source(source, name)
    errors: list[tuple[int, str]] = []
    truncated = False
    comments: list[str] = []
    comment_lines: list[int] = []
    try:
        head, stream = _peek_magic(raw_stream)
        gz = head == _GZIP_MAGIC
        claimed = name if name is not None else display
        if not gz and claimed is not None and claimed.lower().endswith(".gz"):
            raise SWFError([(0, "named .gz but is not gzip-compressed data")], source=display)
        if gz:
            stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
        # the cyclic collector would walk the growing job list again and again (acyclic
        # objects: reference counting frees them all the same)
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            truncated = _parse_lines(
                stream, jobs, comments, comment_lines, errors, max_errors, max_bytes, gz,
                max_jobs, limit,
            )  # fmt: skip
        except _Stop:
            pass
        finally:
            if gc_was_on:
                gc.enable()
    finally:
        if owned:
            raw_stream.close()

    if not errors and not jobs and limit != 0:
        errors.append((0, "no job lines (empty trace)"))
    header = SWFHeader.from_comments(comments)
    if len(errors) < max_errors:
        errors.extend(_check_header(comments, comment_lines)[: max_errors - len(errors)])
        errors.sort(key=lambda e: e[0])
    if errors:
        raise SWFError(errors, source=display, truncated=truncated)
    return header


def _check_header(comments: list[str], lines: list[int]) -> list[tuple[int, str]]:
    """The numeric header fields against HEADER_BOUNDS (every occurrence: a repeated key is
    read first-wins, but a hostile later value is refused all the same)."""
    out: list[tuple[int, str]] = []
    for text, lineno in zip(comments, lines, strict=True):
        kv = _parse_header_line(text)
        if kv is None:
            continue
        key, value = kv
        bounds = HEADER_BOUNDS.get(key)
        if bounds is None:
            continue
        token = value.split()[0] if value.split() else ""
        lo, hi = bounds
        shown = token if len(token) <= _MAX_NUMBER_CHARS else f"a {len(token)}-character value"
        if not re.fullmatch(r"[+-]?\d{1,40}", token):
            out.append((lineno, f"header {key} must be an integer, not {shown!r}"))
        elif not lo <= int(token) <= hi:
            out.append((lineno, f"header {key} is {shown}; it must be between {lo} and {hi}"))
    return out


def _decimal_job_values(parts: list[bytes]) -> list[int | float] | None:
    """Second fast path, for lines with decimals (e.g. ``142.00`` in avg_cpu).

    Fields with a dot are read as floats, the others as ints; None if any token is not a plain
    finite number (the slow path then says which).  The three fields that usually carry decimals
    are tried first without a per-token loop.
    """
    a, b, c = parts[5], parts[6], parts[9]
    if b"." in a or b"." in b or b"." in c:
        rest = parts.copy()
        rest[5] = rest[6] = rest[9] = b"0"
        try:
            values: list[int | float] = [*map(int, rest)]
            values[5] = float(a) if b"." in a else int(a)
            values[6] = float(b) if b"." in b else int(b)
            values[9] = float(c) if b"." in c else int(c)
        except ValueError:
            pass
        else:
            return values if max(values) < math.inf else None
    try:
        values = [float(t) if b"." in t else int(t) for t in parts]
    except ValueError:
        return None
    return values if max(values) < math.inf else None


# A comment line: its first non-blank character is ";" (with the line's end, if any).
_COMMENT_LINE_RE = re.compile(rb"^[ \t\r\x0b\x0c]*;[^\n]*\n?", re.MULTILINE)
_FAST_MIN_BYTES = 4096  # shorter runs of job lines are read line by line
_FAST_MAX_CHARS = 18  # longer tokens (e.g. 19-digit ids) go line by line (int64 range)
_DOT_TO_ZERO = bytes.maketrans(b".", b"0")
_FAST_CHARS = b"0123456789-. \t\n\r\x0b\x0c"  # the six blanks are those of bytes.split()
_fast_tables: Any = None  # (numpy, int bounds, float bounds); False: no numpy


def _get_fast_tables() -> Any:
    global _fast_tables
    if _fast_tables is None:
        try:
            import numpy as np
        except ImportError:  # pragma: no cover - numpy is a requirement; read line by line
            _fast_tables = False
            return False
        ints = np.array([math.floor(b) for b in _BOUNDS], dtype=np.int64)
        floats = np.array(_BOUNDS, dtype=np.float64)
        _fast_tables = (np, ints, floats)
    return _fast_tables


def _fast_table(text: bytes) -> tuple[Any, Any, list[float]] | None:
    """The jobs of ``text`` — whole lines, none of them a comment — read with a few numpy passes
    over its bytes, as ``(table, dots, decimals)``: an int64 array of one row of 18 fields per
    job, the flat indices of its tokens written with a decimal point (None if none; their
    cells hold 0) and those tokens' values, ``float(token)``.  None unless every line is
    plainly valid: blank, or 18 tokens of the form
    ``-?digits`` or ``-?digits.digits`` (at most 18 characters), each ``>= 0`` or ``-1`` and
    within :data:`FIELD_BOUNDS`.  On None the caller reads the lines one by one, which accepts
    some more spellings (``1e3``, ``.5``) and names the line and field of each problem.

    :func:`_table_jobs` makes the same jobs as the line-by-line reader of them.
    """
    tables = _get_fast_tables()
    if not tables:
        return None
    np, int_bounds, float_bounds = tables
    if text.translate(None, _FAST_CHARS):  # something else than digits, "-", "." and blanks
        return None
    buf = np.frombuffer(text, dtype=np.uint8)
    digits = text
    n = buf.size
    # only digits, "-", "." and the six blanks of bytes.split() are left: blanks are <= 32
    edge = np.diff((buf > 32).view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edge == 1)
    ends = np.flatnonzero(edge == -1)
    ntok = starts.size
    if ntok == 0:  # blank lines only
        return np.zeros((0, _NFIELDS), dtype=np.int64), None, []
    if int((ends - starts).max()) > _FAST_MAX_CHARS:
        return None
    line_ends = np.flatnonzero(buf == 10)
    if buf[-1] != 10:
        line_ends = np.append(line_ends, n)
    per_line = np.diff(np.searchsorted(starts, line_ends), prepend=0)
    if not ((per_line == _NFIELDS) | (per_line == 0)).all():
        return None
    if b"-" in text:  # "-" only first in its token and followed by a digit
        m = np.flatnonzero(buf == 45)
        if m[-1] + 1 >= n:
            return None
        after = buf[m + 1]
        if ((after < 48) | (after > 57)).any():
            return None
        if m[0] == 0:
            m = m[1:]
        if (buf[m - 1] > 32).any():
            return None
    dots = None
    if b"." in text:  # "." between two digits, at most one per token
        d = np.flatnonzero(buf == 46)
        if d[0] == 0 or d[-1] + 1 >= n:
            return None
        before, after = buf[d - 1], buf[d + 1]
        if ((before < 48) | (before > 57) | (after < 48) | (after > 57)).any():
            return None
        dots = np.searchsorted(starts, d, side="right") - 1  # token of each "."
        if dots.size > 1 and not (np.diff(dots) > 0).all():
            return None
        digits = text.translate(_DOT_TO_ZERO)  # same tokens, digits only (values set below)
    values = np.fromstring(digits, dtype=np.int64, sep=" ")
    if values.size != ntok:
        return None
    decimals: list[float] = []
    if dots is not None:
        decimals = [
            float(text[s:e])
            for s, e in zip(starts[dots].tolist(), ends[dots].tolist(), strict=True)
        ]
        values[dots] = 0
        fv = np.array(decimals, dtype=np.float64)
        if (((fv < 0) & (fv != -1)) | (fv > float_bounds[dots % _NFIELDS])).any():
            return None
    table = values.reshape(-1, _NFIELDS)
    if int(table.min()) < -1 or (table > int_bounds).any():
        return None
    return table, dots, decimals


def _table_jobs(table: Any, dots: Any, decimals: list[float]) -> list[SWFJob]:
    """The :class:`SWFJob` of a :func:`_fast_table` result (ints; floats where written with a
    decimal point)."""
    columns = table.T.tolist()
    if dots is not None:
        for row, col, value in zip(
            (dots // _NFIELDS).tolist(), (dots % _NFIELDS).tolist(), decimals, strict=True
        ):
            columns[col][row] = value
    return [*map(_new_job_args, *columns)]


def _cut_table(table: Any, dots: Any, decimals: list[float], keep: int) -> tuple:
    """The first ``keep`` rows of a :func:`_fast_table` result."""
    if dots is not None:
        inside = (dots < keep * _NFIELDS).tolist()
        decimals = [v for v, ok in zip(decimals, inside, strict=True) if ok]
        dots = dots[: len(decimals)] if decimals else None
    return table[:keep], dots, decimals


def _parse_lines(
    stream: BinaryIO,
    jobs: Any,  # a list, or any sink with append() and len()
    comments: list[str],
    comment_lines: list[int],
    errors: list[tuple[int, str]],
    max_errors: int,
    max_bytes: int | None,
    gz: bool,
    max_jobs: int | None = None,
    limit: int | None = None,
) -> bool:
    """Read every block: runs of job lines through :func:`_fast_table`, comment lines and any
    run it does not take line by line (:meth:`_LineState.lines`).  Returns True when it stopped
    early because of ``max_errors``."""
    # jobs kept before stopping (limit) or refusing the file (max_jobs); -1: no bound
    stop = -1 if limit is None else limit
    refuse = -1 if max_jobs is None else max_jobs
    if stop == 0:
        return False
    extend = getattr(jobs, "extend", None)
    add_table = getattr(jobs, "add_table", None)
    state = _LineState(jobs, comments, comment_lines, errors, max_errors, max_jobs, stop, refuse)
    for block in _blocks(stream, errors, max_bytes, gz):
        if block is None:
            errors.append((state.lineno + 1, f"is longer than {_MAX_LINE} bytes (binary data?)"))
            raise _Stop
        pos = 0
        size = len(block)
        search = _COMMENT_LINE_RE.search if b";" in block else None
        while pos < size:
            m = search(block, pos) if search is not None else None
            end = m.start() if m is not None else size
            if end > pos:  # a run of job (or blank) lines
                run = block[pos:end]
                fast = _fast_table(run) if end - pos >= _FAST_MIN_BYTES else None
                have = len(jobs)
                if fast is not None and (refuse < 0 or have + len(fast[0]) <= refuse):
                    if 0 <= stop <= have + len(fast[0]):
                        fast = _cut_table(*fast, stop - have)
                    if add_table is not None:
                        add_table(*fast)
                    elif extend is not None:
                        extend(_table_jobs(*fast))
                    else:
                        for job in _table_jobs(*fast):
                            jobs.append(job)
                    if len(jobs) == stop:
                        return False
                    state.lineno += run.count(b"\n") + (not run.endswith(b"\n"))
                else:
                    done = state.lines(run)
                    if done is not None:
                        return done
            if m is None:
                break
            done = state.lines(block[m.start() : m.end()])
            if done is not None:
                return done
            pos = m.end()
    return False


class _LineState:
    """The line-by-line reader: the full checks, one line at a time (comment lines, short
    runs of job lines, and any run the fast path did not take)."""

    def __init__(
        self,
        jobs: Any,
        comments: list[str],
        comment_lines: list[int],
        errors: list[tuple[int, str]],
        max_errors: int,
        max_jobs: int | None,
        stop: int,
        refuse: int,
    ) -> None:
        self.jobs = jobs
        self.comments = comments
        self.comment_lines = comment_lines
        self.errors = errors
        self.max_errors = max_errors
        self.max_jobs = max_jobs
        self.stop = stop
        self.refuse = refuse
        self.lineno = 0

    def lines(self, text: bytes) -> bool | None:
        """Read ``text`` (whole lines).  None: go on; True: ``max_errors`` reached; False: the
        ``limit`` is reached.  Raises _Stop past ``max_jobs``."""
        jobs, comments, comment_lines, errors = (
            self.jobs, self.comments, self.comment_lines, self.errors,
        )  # fmt: skip
        append = jobs.append
        job = _new_job
        nfields = _NFIELDS
        fast_max, proc_max, alloc, req = _FAST_MAX, MAX_PROCS, _ALLOC, _REQ
        stop, refuse, max_errors = self.stop, self.refuse, self.max_errors
        raws = text.split(b"\n")
        if text.endswith(b"\n"):
            raws.pop()
        lineno = self.lineno
        try:
            for raw in raws:
                lineno += 1
                parts = raw.split()
                if not parts:
                    continue
                if parts[0][0] == 59:  # ";": header / comment line
                    if b"\x00" in raw:
                        errors.append((lineno, "contains NUL bytes (binary data?)"))
                    else:
                        if len(comments) < _MAX_COMMENTS:
                            comments.append(_decode_comment(raw.lstrip())[1:].rstrip())
                            comment_lines.append(lineno)
                        continue
                else:
                    if len(jobs) == refuse:
                        errors.append(
                            (lineno, f"more than {self.max_jobs} jobs (the limit of this portal)")
                        )
                        raise _Stop
                    if len(parts) == nfields and b"_" not in raw:
                        if b"." in raw:
                            values = _decimal_job_values(parts)
                        else:
                            try:
                                values = [*map(int, parts)]
                            except ValueError:
                                values = _decimal_job_values(parts)
                        if (
                            values is not None
                            and min(values) >= -1
                            and max(values) <= fast_max
                            and values[alloc] <= proc_max
                            and values[req] <= proc_max
                        ):
                            append(job(values))
                            if len(jobs) == stop:
                                return False
                            continue
                    result = _slow_job_line(raw, parts)
                    if isinstance(result, SWFJob):
                        append(result)
                        if len(jobs) == stop:
                            return False
                        continue
                    errors.append((lineno, result))
                if len(errors) >= max_errors:
                    return True
        finally:
            self.lineno = lineno
        return None


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

_KEY_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_WIDTHS = (5, 8, 6, 6, 4, 6, 6, 4, 6, 6, 2, 3, 3, 3, 2, 2, 2, 2)


def _check_key(key: str) -> str:
    if not isinstance(key, str) or not _KEY_RE.match(key):
        raise ValueError(f"SWF header key must be one word of letters/digits/_: {key!r}")
    return key


def _check_value(key: str, value: Any) -> str:
    text = str(value)
    if "\n" in text or "\r" in text or "\x00" in text:
        raise ValueError(f"SWF header value of {key!r} must be a single line without NULs")
    text = text.strip()
    if _parse_header_line(f" {key}: {text}") != (key, text):
        raise ValueError(f"SWF header field {key!r} would not read back as written")
    return text


def _check_comment(text: str) -> str:
    if "\n" in text or "\r" in text or "\x00" in text:
        raise ValueError(f"SWF comment must be a single line: {text!r}")
    return text if text.startswith((" ", "\t")) or not text else " " + text


def _fmt_value(value: Any) -> str:
    if isinstance(value, bool):
        raise TypeError("SWF fields must be numbers, not bool")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"SWF fields must be finite numbers, not {value!r}")
        return repr(value)
    raise TypeError(f"SWF fields must be numbers, not {type(value).__name__}")


def _header_lines(
    trace: Trace | None, header: Mapping[str, str] | None, comments: Iterable[str]
) -> list[str]:
    """The ``;`` lines to write (each including its ``;``)."""
    effective: dict[str, str] = {}
    if trace is not None:
        effective.update(trace.header.fields)
    if header:
        for k, v in header.items():
            _check_key(k)
            effective[k] = _check_value(k, v)
    out: list[str] = []
    written: set[str] = set()
    if trace is not None:
        for text in trace.header.comments:
            _check_comment(text)
            kv = _parse_header_line(text)
            if kv is not None and kv[0] not in written:
                key = kv[0]
                written.add(key)
                if key in effective and effective[key] != kv[1]:
                    out.append(f"; {key}: {effective[key]}".rstrip())
                    continue
            out.append(";" + text)
    for key, value in effective.items():
        if key not in written:
            out.append(f"; {key}: {value}".rstrip())
            written.add(key)
    out.extend(";" + _check_comment(c) for c in comments)
    return out


def _job_lines(jobs: Iterable[SWFJob]) -> Iterator[str]:
    widths = _WIDTHS
    for j in jobs:
        values = j.to_fields() if isinstance(j, SWFJob) else tuple(j)
        if len(values) != _NFIELDS:
            raise ValueError(f"a job needs {_NFIELDS} fields, got {len(values)}")
        yield " ".join(_fmt_value(v).rjust(w) for v, w in zip(values, widths, strict=True))


def write_swf(
    trace_or_jobs: Trace | Iterable[SWFJob],
    dest: str | os.PathLike[str] | IO[str] | IO[bytes],
    *,
    header: Mapping[str, str] | None = None,
    comments: Iterable[str] = (),
) -> None:
    """Write a trace (or an iterable of jobs) as SWF text.

    Header comment lines come first: a :class:`Trace`'s own comment lines (its ``Key: value``
    fields overridden by ``header`` where given), then the keys of ``header`` not yet written,
    then ``comments``; then one job per line, 18 right-aligned fields separated by spaces.
    ``dest`` is a path (gzip-compressed when it ends in ``.gz``, with a fixed timestamp so the
    bytes are reproducible) or a text or binary file object.
    ``read_swf(write_swf(t))`` gives back ``t``'s jobs and header fields.
    """
    trace = trace_or_jobs if isinstance(trace_or_jobs, Trace) else None
    jobs: Iterable[SWFJob] = trace.jobs if trace is not None else trace_or_jobs
    head = _header_lines(trace, header, comments)

    def emit(write: Any, encode: bool) -> None:
        def put(text: str) -> None:
            write(text.encode("utf-8") if encode else text)

        if head:
            put("\n".join(head) + "\n")
        batch: list[str] = []
        for line in _job_lines(jobs):
            batch.append(line)
            if len(batch) >= 8192:
                put("\n".join(batch) + "\n")
                batch.clear()
        if batch:
            put("\n".join(batch) + "\n")

    if isinstance(dest, (str, os.PathLike)):
        path = Path(dest)
        if path.name.lower().endswith(".gz"):
            with (
                open(path, "wb") as raw,
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz,
            ):
                emit(gz.write, True)
        else:
            with open(path, "wb") as fh:
                emit(fh.write, True)
        return
    if isinstance(dest, io.TextIOBase):
        emit(dest.write, False)
        return
    if isinstance(dest, (io.RawIOBase, io.BufferedIOBase)) or "b" in getattr(dest, "mode", ""):
        emit(dest.write, True)
        return
    # Unknown file-like object: try text first, then bytes.
    try:
        dest.write("")  # type: ignore[call-arg]
    except TypeError:
        emit(dest.write, True)
    else:
        emit(dest.write, False)
