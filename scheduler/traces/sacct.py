"""Slurm accounting (``sacct``) → Standard Workload Format, with a report of what was mapped.

Run on the cluster (as root or an account allowed to see every user's jobs)::

    sacct --allusers --duplicates --parsable2 --starttime 2025-01-01 --endtime 2025-02-01 \\
      --format=JobID,User,Group,Account,Partition,QOS,State,Submit,Start,End,Timelimit,\\
    NCPUS,AllocCPUS,ReqCPUS,NNodes,ReqMem,MaxRSS,JobName > jobs.sacct

``--parsable2`` separates fields with ``|`` (no trailing ``|``) and prints a header line.  Put
``JobName`` last: a ``|`` inside a job name then cannot shift the other columns (it is also
repaired when the name is elsewhere, see below).  The fixed-width form (plain ``sacct
--format=…`` with its ``----------`` rule line) is read too, by the rule's column widths; a
value Slurm truncated (it ends in ``+``) in a column the conversion needs is refused.

Mapping (SWF field numbers in brackets):

- **Jobs and steps**: a row whose JobID has a ``.`` (``123.batch``, ``123.extern``, ``123.0``)
  is a step and is folded into its job (its ``MaxRSS`` counts toward the job's used memory).
  Array tasks ``123_4`` are separate jobs; a pending array range ``123_[1-5]`` never ran and
  is dropped (counted).  Heterogeneous components ``123+0`` are separate jobs.
- **Times**: ``Submit``/``Start``/``End`` as ISO 8601 (``2025-01-02T03:04:05``, optionally
  with a ``Z``/``±hh:mm`` offset) or Unix seconds.  Times without a zone are read as UTC
  (sacct prints the cluster's local time; only differences matter to a simulation, but a file
  that mixes zoned and unzoned times is refused).  [2] submit = seconds after the earliest
  submit (``UnixStartTime`` in the header); [3] wait = Start − Submit; [4] run = End − Start.
- **State** → [11] status: COMPLETED → 1; FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL,
  BOOT_FAIL, DEADLINE, PREEMPTED → 0 (the job ended without completing); CANCELLED and
  ``CANCELLED by <uid>`` → 5.  PENDING, RUNNING, REQUEUED, RESIZING, SUSPENDED, or a row
  whose Start or End is ``Unknown``/``None`` are dropped and counted (they have no run); a job
  cancelled before it started is dropped too ("cancelled before start").
- **Processors**: [5] allocated = AllocCPUS, else NCPUS; [8] requested = ReqCPUS, else the
  allocation.  **Timelimit** → [9] requested time: ``UNLIMITED``/``Partition_Limit`` → −1;
  ``D-HH:MM:SS``, ``D-HH:MM``, ``D-HH``, ``HH:MM:SS``, ``MM:SS``, ``MM`` (Slurm's formats).
- **Memory** (KB per processor, as SWF asks): [10] requested from ReqMem — ``2800Mc`` is per
  CPU, ``500000Mn`` per node (× NNodes ÷ processors), no suffix is read as per node (as
  ``--mem``); units K/M/G/T.  [7] used = the largest MaxRSS of the job and its steps ÷
  processors.
- **Owners**: [12] user, [13] group (Group, else Account), [15] queue = QOS, [16] partition —
  each name numbered 1, 2, … in order of first appearance; the mappings are kept in the report.
- **Machine size** (``MaxProcs``): given by the caller (the cluster's CPU count), else the
  peak number of CPUs the kept jobs used at once (said so in the report).

Malformed rows are never shifted silently: a row with more fields than the header is repaired
only when the extra ``|`` can only belong to the job name (reported with its line number);
any other row whose field count differs (a cut-off line) is refused with its line number.

Hostile files: the file is read as a stream of lines (constant memory per row; only the kept
jobs are held, to sort them by submit time).  A header with more than :data:`MAX_COLUMNS`
fields, a fixed-width rule line with more column spans, a line longer than
:data:`MAX_LINE_CHARS`, a JobID longer than :data:`MAX_ID_CHARS`, a name (User, Group,
Account, Partition, QOS) longer than :data:`MAX_NAME_CHARS` and any NUL or control character
(other than a tab) are refused naming the line and the field.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

from .swf import SWFHeader, SWFJob

__all__ = [
    "MAX_COLUMNS",
    "MAX_ID_CHARS",
    "MAX_LINE_CHARS",
    "MAX_NAME_CHARS",
    "SacctError",
    "SacctReport",
    "convert_sacct",
    "looks_like_sacct",
    "sacct_to_swf",
    "sacct_to_swf_file",
]

MAX_ROWS = 5_000_000
#: Fields of a header (or column spans of a fixed-width rule line): sacct knows ~120 fields.
MAX_COLUMNS = 256
#: Characters of one line (a row of every sacct field is a few KB).
MAX_LINE_CHARS = 65_536
#: Characters of a JobID (``123_45.batch``; Slurm ids are 32-bit numbers).
MAX_ID_CHARS = 64
#: Characters of a User, Group, Account, Partition or QOS name (numbered and kept in the report).
MAX_NAME_CHARS = 256
_NAMES = ("User", "Group", "Account", "Partition", "QOS")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # a tab is allowed
_MAX_REPAIRED_KEPT = 50
_MAX_ERRORS = 20
_MAX_SECONDS = 100 * 365 * 86400
_MAX_PROCS = 10_000_000
_NEEDED = ("JobID", "State", "Submit", "Start", "End")
_KNOWN = (
    "JobID", "JobIDRaw", "JobName", "User", "Group", "Account", "Partition", "QOS", "State",
    "Submit", "Eligible", "Start", "End", "Elapsed", "Timelimit", "NCPUS", "AllocCPUS",
    "ReqCPUS", "NNodes", "ReqMem", "MaxRSS",
)  # fmt: skip
_FAILED = frozenset(
    {"FAILED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "BOOT_FAIL", "DEADLINE", "PREEMPTED"}
)
_UNFINISHED = frozenset(
    {"PENDING", "RUNNING", "REQUEUED", "RESIZING", "SUSPENDED", "REQUEUE_HOLD", "REQUEUE_FED"}
)
_UNKNOWN_TIME = frozenset({"", "Unknown", "None", "N/A"})
_JOBID_RE = re.compile(r"^(\d+)(?:([_+])(\d+|\[[^\]]*\]))?(?:\.(.+))?$")
_MEM_RE = re.compile(r"^(\d+(?:\.\d+)?)([KMGTP]?)([cn]?)$")
_UNIT_KB = {"": 1 / 1024, "K": 1, "M": 1024, "G": 1024**2, "T": 1024**3, "P": 1024**4}


class SacctError(ValueError):
    """A file that cannot be converted; ``errors`` is a list of ``(line, reason)``."""

    def __init__(self, errors: Iterable[tuple[int | None, str]]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(f"line {ln}: {why}" if ln else why for ln, why in self.errors))


@dataclass
class SacctReport:
    """What the conversion did, for the upload's result page and ``--report``."""

    form: str = "parsable2"
    rows: int = 0
    jobs_kept: int = 0
    steps_folded: int = 0
    array_tasks: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    repaired: list[str] = field(default_factory=list)  # the first few (see repaired_count)
    repaired_count: int = 0
    missing_fields: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    mappings: dict[str, dict[str, int]] = field(default_factory=dict)
    max_procs: int = 0
    max_procs_source: str = ""

    def drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1

    def repair(self, what: str) -> None:
        self.repaired_count += 1
        if len(self.repaired) < _MAX_REPAIRED_KEPT:
            self.repaired.append(what)

    def as_json(self) -> dict[str, Any]:
        return {
            "form": self.form,
            "rows": self.rows,
            "jobs_kept": self.jobs_kept,
            "steps_folded": self.steps_folded,
            "array_tasks": self.array_tasks,
            "dropped": dict(sorted(self.dropped.items())),
            "jobs_dropped": sum(self.dropped.values()),
            "repaired": self.repaired[:50],
            "repaired_count": self.repaired_count,
            "missing_fields": self.missing_fields,
            "notes": self.notes,
            "mappings": self.mappings,
            "max_procs": self.max_procs,
            "max_procs_source": self.max_procs_source,
        }


def looks_like_sacct(data: bytes) -> bool:
    """True when the first line is a sacct header (``JobID|…`` or a fixed-width ``JobID …``)."""
    first = data[:4096].lstrip(b"\xef\xbb\xbf").lstrip().split(b"\n", 1)[0].strip()
    return first.split(b"|")[0].strip() == b"JobID" or (
        first.startswith(b"JobID") and b"|" not in first and b" " in first
    )


# --- field parsers --------------------------------------------------------------------------


def _time(value: str) -> tuple[int, bool] | None:
    """(Unix seconds, zoned?) or None for Unknown; raises ValueError when unreadable."""
    value = value.strip()
    if value in _UNKNOWN_TIME:
        return None
    if value.isdigit() and len(value) <= 12:
        return int(value), True
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    stamp = datetime.fromisoformat(text)
    zoned = stamp.tzinfo is not None
    if not zoned:
        stamp = stamp.replace(tzinfo=UTC)
    return int(stamp.timestamp()), zoned


def _duration(value: str) -> int:
    """Slurm's time formats → seconds; -1 for UNLIMITED; raises ValueError when unreadable."""
    value = value.strip()
    if value in ("UNLIMITED", "Partition_Limit", "INVALID", ""):
        return -1
    days = 0
    if "-" in value:
        d, _, value = value.partition("-")
        days = int(d)
        parts = [int(p) for p in value.split(":")]
        h, m, s = (parts + [0, 0, 0])[:3]
    else:
        parts = [int(p) for p in value.split(":")]
        if len(parts) == 1:
            h, m, s = 0, parts[0], 0
        elif len(parts) == 2:
            h, m, s = 0, parts[0], parts[1]
        elif len(parts) == 3:
            h, m, s = parts
        else:
            raise ValueError(value)
    if min(days, h, m, s) < 0:
        raise ValueError(value)
    return ((days * 24 + h) * 60 + m) * 60 + s


def _count(value: str) -> int | None:
    value = value.strip()
    if not value:
        return None
    if len(value) > 9 or not value.isdigit():
        raise ValueError(value)
    return int(value)


def _mem_kb(value: str) -> tuple[float, str] | None:
    """``4G`` → (4194304.0, ""), ``2800Mc`` → (2867200.0, "c"); None when empty/0."""
    value = value.strip()
    if not value or value in ("0", "0n", "0c"):
        return None
    m = _MEM_RE.match(value)
    if m is None or len(value) > 20:
        raise ValueError(value)
    return float(m.group(1)) * _UNIT_KB[m.group(2)], m.group(3)


# --- splitting rows -------------------------------------------------------------------------


def _numbered_lines(source: bytes | str | IO[bytes]) -> Iterator[tuple[int, str]]:
    """(line number, text without its line end) of the file, one line at a time.

    Lines end at ``\\n`` (a ``\\r`` before it is dropped); bytes are read as UTF-8 with
    undecodable bytes replaced.  A line longer than :data:`MAX_LINE_CHARS` is refused here,
    before it is held whole."""
    if isinstance(source, str):
        source = source.encode("utf-8", errors="surrogatepass")
    stream: IO[bytes] = io.BytesIO(source) if isinstance(source, bytes | bytearray) else source
    limit = MAX_LINE_CHARS * 4 + 2  # UTF-8: at most 4 bytes a character, plus "\r\n"
    for n in itertools.count(1):
        raw = stream.readline(limit + 1)
        if not raw:
            return
        if isinstance(raw, str):  # a text-mode stream
            raw = raw.encode("utf-8", errors="surrogatepass")
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        ended = raw.endswith(b"\n")
        text = raw.rstrip(b"\n").removesuffix(b"\r").decode("utf-8", errors="replace")
        if len(text) > MAX_LINE_CHARS or (not ended and len(raw) > limit):
            raise SacctError([(n, f"longer than {MAX_LINE_CHARS:,} characters (no sacct row is)")])
        yield n, text


def _header_parsable(n: int, line: str) -> tuple[list[str], bool]:
    if line.count("|") + 1 > MAX_COLUMNS + 1:  # (+1: the trailing | of --parsable)
        raise SacctError(
            [(n, f"the header has {line.count('|') + 1:,} fields; at most {MAX_COLUMNS} are read "
                 "(sacct --format lists far fewer)")]
        )  # fmt: skip
    header = [h.strip() for h in line.split("|")]
    trailing = bool(header) and header[-1] == ""  # --parsable (trailing |)
    if trailing:
        header.pop()
    return header, trailing


def _rows_parsable(
    header: list[str], trailing: bool, lines: Iterable[tuple[int, str]], report: SacctReport,
    errors: list,
) -> Iterator[tuple[int, list[str]]]:  # fmt: skip
    width = len(header)
    name_at = header.index("JobName") if "JobName" in header else None
    for n, raw in lines:
        if not raw.strip():
            continue
        parts = raw.split("|")
        if trailing and parts and parts[-1] == "":
            parts.pop()
        if len(parts) > width and name_at is not None:
            extra = len(parts) - width
            parts[name_at : name_at + extra + 1] = ["|".join(parts[name_at : name_at + extra + 1])]
            report.repair(f"line {n}: a '|' inside the job name (columns re-joined)")
        if len(parts) != width:
            errors.append(
                (n, f"{len(parts)} fields where the header has {width} (a cut-off or shifted "
                    "line); fix or delete it")
            )  # fmt: skip
            if len(errors) >= _MAX_ERRORS:
                return
            continue
        yield n, parts


def _spans_fixed(n: int, rule: str) -> list[tuple[int, int]]:
    spans = []
    for m in re.finditer(r"-+", rule):
        if len(spans) >= MAX_COLUMNS:
            raise SacctError(
                [(n, f"the rule line has more than {MAX_COLUMNS} column spans (at most "
                     f"{MAX_COLUMNS} are read; sacct --format lists far fewer)")]
            )  # fmt: skip
        spans.append((m.start(), m.end()))
    return spans


def _rows_fixed(
    spans: list[tuple[int, int]], lines: Iterable[tuple[int, str]]
) -> Iterator[tuple[int, list[str]]]:
    for n, raw in lines:
        if not raw.strip():
            continue
        yield n, [raw[a:b].strip() for a, b in spans]


def _field_problem(header: list[str], parts: list[str]) -> str | None:
    """A reason naming the field when a row holds what no field may (control characters,
    over-long ids and names); None when it is fine."""
    if not _CONTROL.search("|".join(parts)):  # one search a row; the field only when needed
        return None
    for name, value in zip(header, parts, strict=False):
        bad = _CONTROL.search(value)
        if bad:
            return f"{name or 'a field'}: holds the control character U+{ord(bad.group()):04X}"
    return None


# --- conversion -----------------------------------------------------------------------------


@dataclass(slots=True)
class _Job:
    line: int
    key: tuple
    submit: int
    start: int
    end: int
    zoned: bool
    status: int
    alloc: int
    req: int
    req_time: int
    req_mem: float
    nodes: int
    rss_kb: float
    user: str
    group: str
    qos: str
    partition: str


def convert_sacct(
    data: bytes | str | IO[bytes], *, max_procs: int | None = None, max_rows: int = MAX_ROWS
) -> tuple[SWFHeader, list[SWFJob], SacctReport]:
    """Convert sacct output; returns the SWF header, jobs in submit order, and the report.

    Raises :class:`SacctError` naming the lines at fault (nothing is converted then).
    ``data`` may be a binary file object: it is read one line at a time.
    """
    lines = _numbered_lines(data)
    first = next(((n, text) for n, text in lines if text.strip()), None)
    if first is None:
        raise SacctError([(None, "the file is empty")])
    head_n, head_line = first
    second = next(lines, None)
    report = SacctReport()
    errors: list[tuple[int | None, str]] = []
    fixed = "|" not in head_line and second is not None and set(second[1].strip()) <= {"-", " "}
    rows: Iterable[tuple[int, list[str]]]
    if fixed and second is not None:
        spans = _spans_fixed(second[0], second[1])
        header = [head_line[a:b].strip() for a, b in spans]
        report.form = "fixed-width"
        rows = _rows_fixed(spans, lines)
    else:
        header, trailing = _header_parsable(head_n, head_line)
        rest = itertools.chain([second] if second is not None else [], lines)
        rows = _rows_parsable(header, trailing, rest, report, errors)
    col = {name: k for k, name in enumerate(header)}
    missing = [f for f in _NEEDED if f not in col]
    if missing:
        raise SacctError([(head_n, f"the header lacks the field(s) {', '.join(missing)}")])
    report.missing_fields = [f for f in _KNOWN if f not in col]

    def get(parts: list[str], name: str) -> str:
        k = col.get(name)
        return parts[k] if k is not None else ""

    jobs: dict[tuple, _Job] = {}
    step_rss: dict[tuple, float] = {}
    seen_zoned: set[bool] = set()
    for n, parts in rows:
        if len(errors) >= _MAX_ERRORS:
            break
        report.rows += 1
        if report.rows > max_rows:
            raise SacctError([(n, f"more than {max_rows:,} rows (the limit)")])
        problem = _field_problem(header, parts)
        if problem is not None:
            errors.append((n, problem))
            continue
        jobid = get(parts, "JobID").strip()
        if len(jobid) > MAX_ID_CHARS:
            errors.append((n, f"JobID: longer than {MAX_ID_CHARS} characters ({len(jobid):,})"))
            continue
        long_name = next((f for f in _NAMES if len(get(parts, f).strip()) > MAX_NAME_CHARS), None)
        if long_name is not None:
            errors.append((n, f"{long_name}: longer than {MAX_NAME_CHARS} characters"))
            continue
        if fixed and any(
            get(parts, f).endswith("+") for f in ("JobID", "Submit", "Start", "End", "State")
        ):
            errors.append((n, "a value was truncated by sacct's column width (ends in '+'); "
                              "use --parsable2"))  # fmt: skip
            continue
        m = _JOBID_RE.match(jobid)
        if m is None:
            errors.append((n, f"JobID {jobid[:40]!r} is not a Slurm job id"))
            continue
        base, sep, index, step = m.groups()
        if index is not None and index.startswith("["):
            if step is None:
                report.drop("array range never started (pending)")
            continue
        key = (int(base), sep or "", int(index) if index else -1)
        if step is not None:
            try:
                rss = _mem_kb(get(parts, "MaxRSS"))
            except ValueError:
                errors.append((n, f"MaxRSS {get(parts, 'MaxRSS')[:30]!r} is not a memory size"))
                continue
            report.steps_folded += 1
            if rss is not None:
                step_rss[key] = max(step_rss.get(key, 0.0), rss[0])
            continue
        if key in jobs:
            report.drop("duplicate record (requeued job: the last record is kept)")
        state = get(parts, "State").strip().split(" ")[0].upper().rstrip("+")
        if state in _UNFINISHED:
            report.drop(f"state {state}")
            continue
        try:
            submit = _time(get(parts, "Submit"))
            start = _time(get(parts, "Start"))
            end = _time(get(parts, "End"))
        except (ValueError, OverflowError):
            errors.append((n, "Submit/Start/End must be ISO 8601 times or Unix seconds"))
            continue
        if submit is None:
            report.drop("unknown submit time")
            continue
        if start is None:
            report.drop("cancelled before start" if state == "CANCELLED" else "unknown start")
            continue
        if end is None:
            report.drop("unknown end")
            continue
        if state == "COMPLETED":
            status = 1
        elif state == "CANCELLED":
            status = 5
        elif state in _FAILED:
            status = 0
        else:
            report.drop(f"state {state or '(empty)'}")
            continue
        seen_zoned.update({submit[1], start[1], end[1]})
        if not (submit[0] <= start[0] <= end[0]):
            errors.append((n, "times out of order (need Submit <= Start <= End)"))
            continue
        try:
            alloc = _count(get(parts, "AllocCPUS")) or _count(get(parts, "NCPUS"))
            req = _count(get(parts, "ReqCPUS")) or alloc
            nodes = _count(get(parts, "NNodes")) or 1
            req_time = _duration(get(parts, "Timelimit"))
        except ValueError:
            errors.append((n, "AllocCPUS/NCPUS/ReqCPUS/NNodes/Timelimit unreadable"))
            continue
        if not alloc or alloc > _MAX_PROCS or (req and req > _MAX_PROCS):
            errors.append((n, f"processors must be 1..{_MAX_PROCS:,} (AllocCPUS/NCPUS)"))
            continue
        if req_time > _MAX_SECONDS or end[0] - submit[0] > _MAX_SECONDS:
            errors.append((n, "a time span beyond 100 years"))
            continue
        try:
            mem = _mem_kb(get(parts, "ReqMem"))
            rss = _mem_kb(get(parts, "MaxRSS"))
        except ValueError:
            errors.append((n, "ReqMem/MaxRSS is not a memory size like 4G, 2800Mc, 500000Mn"))
            continue
        if mem is None:
            req_mem = -1.0
        elif mem[1] == "c":
            req_mem = mem[0]
        else:
            req_mem = mem[0] * nodes / alloc
        group = get(parts, "Group").strip() or get(parts, "Account").strip()
        jobs[key] = _Job(
            n, key, submit[0], start[0], end[0], submit[1], status, alloc, req or alloc,
            req_time, req_mem, nodes, rss[0] if rss else 0.0, get(parts, "User").strip(),
            group, get(parts, "QOS").strip(), get(parts, "Partition").strip(),
        )  # fmt: skip
    if len(seen_zoned) > 1:
        errors.append((None, "the file mixes times with and without a time zone"))
    if errors:
        raise SacctError(errors[:_MAX_ERRORS])
    if not jobs:
        raise SacctError([(None, "no finished job in the file (see what was dropped: "
                                 f"{report.dropped or 'nothing'})")])  # fmt: skip
    if seen_zoned == {False}:
        report.notes.append("times have no time zone: read as UTC (only differences matter)")
    if "Group" not in col and "Account" in col:
        report.notes.append("SWF group numbers are Slurm accounts (no Group column)")

    ordered = sorted(jobs.values(), key=lambda j: (j.submit, j.key))
    t0 = ordered[0].submit
    maps: dict[str, dict[str, int]] = {"user": {}, "group": {}, "qos": {}, "partition": {}}

    def number(kind: str, name: str) -> int:
        if not name:
            return -1
        table = maps[kind]
        return table.setdefault(name, len(table) + 1)

    out: list[SWFJob] = []
    for k, j in enumerate(ordered, start=1):
        if j.key[1] == "_":
            report.array_tasks += 1
        rss = max(j.rss_kb, step_rss.get(j.key, 0.0))
        out.append(
            SWFJob(
                job_id=k, submit=j.submit - t0, wait=j.start - j.submit, run=j.end - j.start,
                alloc_procs=j.alloc, avg_cpu=-1, used_mem=round(rss / j.alloc) if rss else -1,
                req_procs=j.req, req_time=j.req_time,
                req_mem=round(j.req_mem) if j.req_mem >= 0 else -1,
                status=j.status, user=number("user", j.user), group=number("group", j.group),
                app=-1, queue=number("qos", j.qos), partition=number("partition", j.partition),
                prev_job=-1, think_time=-1,
            )
        )  # fmt: skip
    report.jobs_kept = len(out)
    report.mappings = {k: v for k, v in maps.items() if v}
    if max_procs:
        report.max_procs, report.max_procs_source = max_procs, "given"
    else:
        report.max_procs = _peak_cpus(out)
        report.max_procs_source = "peak CPUs in use at once (give the cluster's size to override)"
    header = SWFHeader.from_fields(
        {
            "Version": "2.2",
            "Conversion": "GridPortal sacct import (scheduler.traces.sacct)",
            "UnixStartTime": str(t0),
            "MaxJobs": str(len(out)),
            "MaxRecords": str(len(out)),
            "MaxProcs": str(report.max_procs),
            "MaxUsers": str(len(maps["user"])),
            "MaxQueues": str(len(maps["qos"])),
            "MaxPartitions": str(len(maps["partition"])),
        },
        comments=[
            f" Note: {report.jobs_kept} jobs kept, {report.steps_folded} steps folded, "
            f"{sum(report.dropped.values())} dropped",
        ],
    )
    return header, out, report


def _peak_cpus(jobs: list[SWFJob]) -> int:
    events: list[tuple[int, int]] = []
    for j in jobs:
        start = j.submit + j.wait
        events.append((start, j.alloc_procs))
        events.append((start + j.run, -j.alloc_procs))
    events.sort(key=lambda e: (e[0], e[1]))
    peak = busy = 0
    for _, delta in events:
        busy += delta
        peak = max(peak, busy)
    return max(peak, 1)


def sacct_to_swf(data: bytes | str, *, max_procs: int | None = None) -> tuple[str, SacctReport]:
    """The SWF text of converted sacct output, and the report (see :func:`convert_sacct`)."""
    out = io.StringIO()
    report = sacct_to_swf_file(data, out, max_procs=max_procs)
    return out.getvalue(), report


def sacct_to_swf_file(
    data: bytes | str | IO[bytes], out: IO[str], *, max_procs: int | None = None
) -> SacctReport:
    """Convert sacct output (bytes, text or a binary file read line by line) and write the
    SWF text to ``out``; returns the report."""
    from .swf import write_swf

    header, jobs, report = convert_sacct(data, max_procs=max_procs)
    write_swf(jobs, out, header=header.fields, comments=header.comments[len(header.fields) :])
    return report
