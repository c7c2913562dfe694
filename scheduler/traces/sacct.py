"""Slurm accounting (``sacct``) → Standard Workload Format, with a report of what was mapped.

Run on the cluster (as root or an account allowed to see every user's jobs)::

    sacct --allusers --duplicates --parsable2 --starttime 2025-01-01 --endtime 2025-02-01 \\
      --format=JobID,User,Group,Account,Partition,QOS,State,Submit,Start,End,Timelimit,\\
    NCPUS,AllocCPUS,ReqCPUS,NNodes,ReqMem,MaxRSS,JobName > jobs.sacct

What is read (:func:`detect_sacct` decides it, for the command line, the portal's upload and
so the Python client alike, from the first lines):

- ``--parsable2`` (``-P``: fields separated by ``|``) or ``--parsable`` (a trailing ``|``), the
  columns **in any order**, any of sacct's fields (``--format=ALL`` too: the columns the
  conversion does not use are ignored).  The first line is the header when every field of it
  is a column name (sacct prints the names it was given, case-insensitively canonical here).
- **Without a header** (``--noheader``): the columns are the ``--format`` list the caller gives
  (``columns``), else Open XDMoD's Slurm shredder order (:data:`XDMOD_COLUMNS`: the
  ``--format`` its guide asks ``sacct --parsable2 --noheader`` for, ``JobName`` last).
- The fixed-width form (plain ``sacct --format=…`` with its ``----------`` rule line), by the
  rule's column widths; a value Slurm truncated (it ends in ``+``) in a column the conversion
  needs is refused.
- gzip-compressed files of any of these.

Rows as Slurm writes them (``sacct -P`` does not quote): a free-text field (``SubmitLine`` of a
``--wrap`` holding a newline, a ``Comment``…) may run over several lines, and a ``|`` in a
``JobName``, ``SubmitLine``, ``WorkDir`` or comment makes a row too wide.  Continuation lines are
joined back to their row; a row with too many fields is re-split when exactly one way of giving
the extra ``|`` to the free-text columns (:data:`TEXT_COLUMNS`) leaves every other column well
formed (a time where a time belongs, a number where a count does, …); each repair is reported
with its line.  A row that is truly cut off (too few fields, and the next line starts a row of
its own or the file ends), or too wide with no single reading, is refused naming its line and
the cause (*strict*, the default), or skipped and named in the report (*lenient*).

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
  cancelled before it started is dropped too ("cancelled before start": Start ``None``, or —
  as Slurm 22.05 writes it, Start = End = the cancel time — NodeList ``None assigned`` or
  AllocCPUS ``0``).
- **Processors**: [5] allocated = AllocCPUS, else NCPUS; [8] requested = ReqCPUS, else the
  allocation.  **Timelimit** → [9] requested time: ``UNLIMITED``/``Partition_Limit`` → −1;
  ``D-HH:MM:SS``, ``D-HH:MM``, ``D-HH``, ``HH:MM:SS``, ``MM:SS``, ``MM`` (Slurm's formats).
- **Memory** (KB per processor, as SWF asks): [10] requested from ReqMem — ``2800Mc`` is per
  CPU, ``500000Mn`` per node (× NNodes ÷ processors), no suffix is read as per node (as
  ``--mem``); units K/M/G/T.  [7] used = the largest MaxRSS of the job and its steps ÷
  processors.
- **Owners**: [12] user, [13] group (Group, else Account), [15] queue = QOS, [16] partition —
  each name numbered 1, 2, … in order of first appearance; the report lists the first
  :data:`MAX_NAMES_LISTED` of each (``mappings``) and counts the others (``mappings_more``).
- **Machine size** (``MaxProcs``): given by the caller (the cluster's CPU count), else the
  peak number of CPUs the kept jobs used at once (said so in the report).  A job that needs
  more CPUs than the size given is kept, as SWF keeps it, and named in the report's notes: a
  simulation drops it, as it drops any SWF job wider than ``MaxProcs``
  (:func:`scheduler.cluster.jobs.prepare_jobs`, "exceeds_machine").

Hostile files: the file is read as a stream of lines (constant memory per row; only the kept
jobs are held, to sort them by submit time).  A header with more than :data:`MAX_COLUMNS`
fields, a fixed-width rule line with more column spans, a line (or a row joined from lines)
longer than :data:`MAX_LINE_CHARS`, a JobID longer than :data:`MAX_ID_CHARS`, a name (User,
Group, Account, Partition, QOS) longer than :data:`MAX_NAME_CHARS` and any NUL or control
character (other than a tab) in a column the conversion reads are refused naming the line and
the field (the free-text columns are never read: what they hold is not checked).
"""

from __future__ import annotations

import gzip
import io
import itertools
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

from .swf import SWFHeader, SWFJob

__all__ = [
    "MAX_COLUMNS",
    "MAX_ID_CHARS",
    "MAX_LINE_CHARS",
    "MAX_NAME_CHARS",
    "MAX_NAMES_LISTED",
    "SACCT_FIELDS",
    "TEXT_COLUMNS",
    "XDMOD_COLUMNS",
    "SacctError",
    "SacctLayout",
    "SacctReport",
    "convert_sacct",
    "detect_sacct",
    "looks_like_sacct",
    "parse_columns",
    "sacct_to_swf",
    "sacct_to_swf_file",
    "slurm_duration",
]

MAX_ROWS = 5_000_000
#: Fields of a header (or column spans of a fixed-width rule line): sacct knows ~120 fields.
MAX_COLUMNS = 256
#: Characters of one line, or of a row joined from lines (a row of every sacct field is a few KB).
MAX_LINE_CHARS = 65_536
#: Characters of a JobID (``123_45.batch``; Slurm ids are 32-bit numbers).
MAX_ID_CHARS = 64
#: Characters of a User, Group, Account, Partition or QOS name (numbered and kept in the report).
MAX_NAME_CHARS = 256
_NAMES = ("User", "Group", "Account", "Partition", "QOS")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # a tab is allowed
_MAX_REPAIRED_KEPT = 50
#: Names listed in the report for each of users, groups, QOS and partitions (the first, by
#: number); the others are counted (``mappings_more``): a site's dump may name thousands.
MAX_NAMES_LISTED = 50
_MAX_ERRORS = 20
_MAX_SECONDS = 100 * 365 * 86400
_MAX_PROCS = 10_000_000
_NEEDED = ("JobID", "State", "Submit", "Start", "End")
_KNOWN = (
    "JobID", "JobIDRaw", "JobName", "User", "Group", "Account", "Partition", "QOS", "State",
    "Submit", "Eligible", "Start", "End", "Elapsed", "Timelimit", "NCPUS", "AllocCPUS",
    "ReqCPUS", "NNodes", "ReqMem", "MaxRSS",
)  # fmt: skip
#: The columns the conversion reads (their values are checked for control characters).
_READ = frozenset(
    ("JobID", "User", "Group", "Account", "Partition", "QOS", "State", "Submit", "Start", "End",
     "Timelimit", "NCPUS", "AllocCPUS", "ReqCPUS", "NNodes", "ReqMem", "MaxRSS")
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

#: sacct's field names as ``sacct --helpformat`` spells them: the 109 of Slurm 22.05's
#: ``--format=ALL`` (in its order), then names of other releases (``ReqGRES``/``AllocGRES``
#: before 19.05; ``Extra``, ``FailedNode``, ``Licenses``, ``Planned*``, ``QOSREQ``, ``Std*``
#: later).  A header or a ``--format`` list is matched against them case-insensitively.
SACCT_FIELDS = (
    "Account", "AdminComment", "AllocCPUS", "AllocNodes", "AllocTRES", "AssocID", "AveCPU",
    "AveCPUFreq", "AveDiskRead", "AveDiskWrite", "AvePages", "AveRSS", "AveVMSize", "BlockID",
    "Cluster", "Comment", "Constraints", "ConsumedEnergy", "ConsumedEnergyRaw", "Container",
    "CPUTime", "CPUTimeRAW", "DBIndex", "DerivedExitCode", "Elapsed", "ElapsedRaw", "Eligible",
    "End", "ExitCode", "Flags", "GID", "Group", "JobID", "JobIDRaw", "JobName", "Layout",
    "MaxDiskRead", "MaxDiskReadNode", "MaxDiskReadTask", "MaxDiskWrite", "MaxDiskWriteNode",
    "MaxDiskWriteTask", "MaxPages", "MaxPagesNode", "MaxPagesTask", "MaxRSS", "MaxRSSNode",
    "MaxRSSTask", "MaxVMSize", "MaxVMSizeNode", "MaxVMSizeTask", "McsLabel", "MinCPU",
    "MinCPUNode", "MinCPUTask", "NCPUS", "NNodes", "NodeList", "NTasks", "Partition", "Priority",
    "QOS", "QOSRAW", "Reason", "ReqCPUFreq", "ReqCPUFreqGov", "ReqCPUFreqMax", "ReqCPUFreqMin",
    "ReqCPUS", "ReqMem", "ReqNodes", "ReqTRES", "Reservation", "ReservationId", "Reserved",
    "ResvCPU", "ResvCPURAW", "Start", "State", "Submit", "SubmitLine", "Suspended",
    "SystemComment", "SystemCPU", "Timelimit", "TimelimitRaw", "TotalCPU", "TRESUsageInAve",
    "TRESUsageInMax", "TRESUsageInMaxNode", "TRESUsageInMaxTask", "TRESUsageInMin",
    "TRESUsageInMinNode", "TRESUsageInMinTask", "TRESUsageInTot", "TRESUsageOutAve",
    "TRESUsageOutMax", "TRESUsageOutMaxNode", "TRESUsageOutMaxTask", "TRESUsageOutMin",
    "TRESUsageOutMinNode", "TRESUsageOutMinTask", "TRESUsageOutTot", "UID", "User", "UserCPU",
    "WCKey", "WCKeyID", "WorkDir",
    # other releases
    "AllocGRES", "ReqGRES", "Extra", "FailedNode", "Licenses", "Planned", "PlannedCPU",
    "PlannedCPURAW", "QOSREQ", "StdErr", "StdIn", "StdOut", "SLUID", "Segment",
)  # fmt: skip
_CANONICAL = {name.lower(): name for name in SACCT_FIELDS}

#: The column order of a file without a header line when none is given: what Open XDMoD's
#: Slurm shredder asks for (``sacct --parsable2 --noheader --format=`` these; its guide,
#: "Slurm Notes", and ``classes/OpenXdmod/Shredder/Slurm.php``).
XDMOD_COLUMNS = (
    "JobID", "JobIDRaw", "Cluster", "Partition", "QOS", "Account", "Group", "GID", "User", "UID",
    "Submit", "Eligible", "Start", "End", "Elapsed", "ExitCode", "State", "NNodes", "NCPUS",
    "ReqCPUS", "ReqMem", "ReqTRES", "AllocTRES", "Timelimit", "NodeList", "JobName",
)  # fmt: skip

#: Free-text columns: the ones a user's text reaches (sbatch's ``--job-name``, ``--comment``,
#: ``--constraint``, ``--chdir``, ``--wckey``, ``--container``, ``-o``/``-e``/``-i``, the command
#: line itself), which may hold a ``|`` or a line break.  Only they absorb the extra ``|`` of a
#: row that is too wide.
TEXT_COLUMNS = frozenset(
    ("JobName", "SubmitLine", "WorkDir", "Comment", "AdminComment", "SystemComment",
     "Constraints", "Container", "WCKey", "Extra", "StdErr", "StdIn", "StdOut")
)  # fmt: skip

# What a well-formed value of a typed column looks like (only to choose among the ways of
# re-splitting a row that is too wide: never to refuse a row).  Unlisted columns accept anything.
_RE_TIME = r"|Unknown|None|N/A|\d{1,12}|\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?(?:Z|[+-]\d\d:?\d\d)?"
_RE_SPAN = r"|UNLIMITED|Partition_Limit|INVALID|(?:\d+-)?\d+(?::\d+){0,2}(?:\.\d+)?"
_RE_INT = r"\d*"
_RE_MEM = r"|\d+(?:\.\d+)?[KMGTPE]?[cn]?"
_RE_TRES = r"|[^\s=,]+=[^\s,]*(?:,[^\s=,]+=[^\s,]*)*"
_RE_NAME = r"\S*"
_STEP_MAX = ("MaxDiskRead", "MaxDiskWrite", "MaxPages", "MaxRSS", "MaxVMSize", "MinCPU")
_SHAPES: dict[str, str] = {
    **dict.fromkeys(("Submit", "Start", "End", "Eligible"), _RE_TIME),
    **dict.fromkeys(
        ("Elapsed", "Timelimit", "CPUTime", "TotalCPU", "SystemCPU", "UserCPU", "Suspended",
         "Reserved", "AveCPU", "MinCPU", "ResvCPU", "Planned", "PlannedCPU"), _RE_SPAN,
    ),
    **dict.fromkeys(
        ("AllocCPUS", "NCPUS", "ReqCPUS", "NNodes", "AllocNodes", "ReqNodes", "NTasks", "UID",
         "GID", "ElapsedRaw", "CPUTimeRAW", "TimelimitRaw", "ResvCPURAW", "PlannedCPURAW",
         "DBIndex", "AssocID", "Priority", "QOSRAW", "ReservationId", "WCKeyID",
         "ConsumedEnergyRaw", *(f"{m}Task" for m in _STEP_MAX)), _RE_INT,
    ),
    **dict.fromkeys(
        ("ReqMem", "MaxRSS", "AveRSS", "MaxVMSize", "AveVMSize", "MaxPages", "AvePages",
         "MaxDiskRead", "MaxDiskWrite", "AveDiskRead", "AveDiskWrite"), _RE_MEM,
    ),
    **dict.fromkeys(
        ("AllocTRES", "ReqTRES", *(f"TRESUsage{d}{s}" for d in ("In", "Out")
                                   for s in ("Ave", "Max", "MaxNode", "MaxTask", "Min",
                                             "MinNode", "MinTask", "Tot"))), _RE_TRES,
    ),
    **dict.fromkeys(
        ("User", "Group", "Account", "Partition", "QOS", "Cluster", "Reservation",
         *(f"{m}Node" for m in _STEP_MAX)), _RE_NAME,
    ),
    "Layout": r"|[A-Z][a-z]+(?:[:,][A-Z][a-z]+)*",
    "Flags": r"|[A-Za-z_]+(?:,[A-Za-z_]+)*",
    "ConsumedEnergy": r"|\d+(?:\.\d+)?[KMGTP]?",
    "NodeList": r"\S*|None assigned",
    "JobID": r"\d+(?:[_+](?:\d+|\[[^\]]*\]))?(?:\.\S+)?",
    "JobIDRaw": r"\d+(?:\.\S+)?",
    "State": r"|[A-Z_]+\+?(?: by \d+)?",
    "ExitCode": r"|\d+:\d+",
    "DerivedExitCode": r"|\d+:\d+",
}  # fmt: skip
_CHECKS: dict[str, Callable[[str], Any]] = {
    name: re.compile(f"(?:{shape})").fullmatch for name, shape in _SHAPES.items()
}
#: Typed columns checked when re-splitting one row, and one file, before giving up on it.
_RESPLIT_BUDGET = 20_000
_RESPLIT_FILE_BUDGET = 2_000_000
_HEADER_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def parse_columns(text: str | Iterable[str]) -> tuple[str, ...]:
    """A ``--format`` list (``"jobid,jobidraw%20,State"`` or a sequence of names) → canonical
    column names (sacct's spelling; widths ``%N`` dropped).  Raises :class:`SacctError` for an
    empty list, more than :data:`MAX_COLUMNS` names or a name that is not a word."""
    names = text.split(",") if isinstance(text, str) else list(text)
    out = []
    for raw in names[: MAX_COLUMNS + 1]:
        name = str(raw).strip().split("%", 1)[0]
        if not _HEADER_WORD.fullmatch(name):
            raise SacctError([(None, f"the column list: {name[:40]!r} is not a sacct field name")])
        out.append(_CANONICAL.get(name.lower(), name))
    if not out or len(names) > MAX_COLUMNS:
        raise SacctError(
            [(None, f"the column list must name 1 to {MAX_COLUMNS} sacct fields "
                    "(as given to sacct --format)")]
        )  # fmt: skip
    return tuple(out)


@dataclass(frozen=True)
class SacctLayout:
    """How a sacct file is laid out: ``form`` (``parsable2``, ``parsable``: a trailing ``|``,
    ``fixed-width``), its ``columns`` (canonical names; empty for fixed-width, read off the
    rule line) and where they come from (``source``: ``header line``, ``given --format`` or
    ``XDMoD's column order``).  ``header`` is True when the file's first line names them."""

    form: str
    columns: tuple[str, ...]
    header: bool
    source: str


def _is_header(fields: list[str]) -> bool:
    """A header line: every field a column name (a word), at least one of them sacct's."""
    words = [f.strip() for f in fields]
    return all(_HEADER_WORD.fullmatch(w) for w in words) and any(
        w.lower() in _CANONICAL for w in words
    )


def _layout(first: str, columns: tuple[str, ...] | None, line: int = 1) -> SacctLayout | None:
    """The one decision (see :func:`detect_sacct`) from the first non-blank line; None when
    this is not sacct output.  Raises :class:`SacctError` for a header with
    more than :data:`MAX_COLUMNS` fields."""
    if "|" in first:
        if first.count("|") + 1 > MAX_COLUMNS + 1:  # (+1: the trailing | of --parsable)
            raise SacctError(
                [(line, f"the header has {first.count('|') + 1:,} fields; at most "
                        f"{MAX_COLUMNS} are read (sacct --format lists far fewer)")]
            )  # fmt: skip
        fields = first.split("|")
        if _is_header(fields[:-1] if fields[-1] == "" else fields):
            trailing = fields[-1] == ""
            if trailing:
                fields.pop()
            names = tuple(_CANONICAL.get(f.strip().lower(), f.strip()) for f in fields)
            return SacctLayout("parsable" if trailing else "parsable2", names, True, "header line")
        names = columns or XDMOD_COLUMNS
        source = "given --format" if columns else "XDMoD's column order"
        # --parsable ends every row in '|': one field more than the columns, the last empty
        trailing = len(fields) == len(names) + 1 and fields[-1] == ""
        return SacctLayout("parsable" if trailing else "parsable2", names, False, source)
    words = first.split()
    if words and all(_HEADER_WORD.fullmatch(w.rstrip("+")) for w in words):
        if any(w.rstrip("+").lower() in _CANONICAL for w in words):
            return SacctLayout("fixed-width", (), True, "header line")
    return None


def detect_sacct(
    head: bytes | str, *, columns: str | Iterable[str] | None = None
) -> SacctLayout | None:
    """Is this (the first few KB of a file, gzip-compressed or not) sacct output, and how are
    its columns named?  None for anything else (an SWF trace: its lines are ``;`` comments and
    numbers, never ``|``).

    The command line (``python -m scheduler convert sacct``), the portal's trace upload (web
    form and REST, and so the Python client) and :func:`convert_sacct` itself all decide with
    this function: ``|`` on the first line is ``sacct -P`` — with a header when every field is
    a column name, else headerless (the ``columns`` given, else :data:`XDMOD_COLUMNS`); a first
    line of column names only, without ``|``, is the fixed-width form."""
    if isinstance(head, str):
        head = head.encode("utf-8", errors="surrogatepass")
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(wbits=47).decompress(head, 1 << 16)
        except zlib.error:
            return None
    text = head.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    nonblank = [ln for ln in lines if ln.strip()]
    if not nonblank:
        return None
    given = parse_columns(columns) if columns else None
    try:
        return _layout(nonblank[0], given)
    except SacctError:
        return SacctLayout("parsable2", (), True, "header line")  # sacct, refused on reading


class SacctError(ValueError):
    """A file that cannot be converted; ``errors`` is a list of ``(line, reason)``."""

    def __init__(self, errors: Iterable[tuple[int | None, str]]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(f"line {ln}: {why}" if ln else why for ln, why in self.errors))


@dataclass
class SacctReport:
    """What the conversion did, for the upload's result page and ``--report``."""

    form: str = "parsable2"
    mode: str = "strict"
    columns_from: str = "header line"
    columns: int = 0
    rows: int = 0
    jobs_kept: int = 0
    steps_folded: int = 0
    array_tasks: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    repaired: list[str] = field(default_factory=list)  # the first few (see repaired_count)
    repaired_count: int = 0
    skipped: list[str] = field(default_factory=list)  # lenient: the first few rows skipped
    skipped_count: int = 0
    missing_fields: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    mappings: dict[str, dict[str, int]] = field(default_factory=dict)
    max_procs: int = 0
    max_procs_source: str = ""
    wider_than_machine: list[dict[str, Any]] = field(default_factory=list)  # the first few
    wider_than_machine_count: int = 0

    def drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1

    def repair(self, what: str) -> None:
        self.repaired_count += 1
        if len(self.repaired) < _MAX_REPAIRED_KEPT:
            self.repaired.append(what)

    def skip(self, what: str) -> None:
        self.skipped_count += 1
        if len(self.skipped) < _MAX_REPAIRED_KEPT:
            self.skipped.append(what)

    def as_json(self) -> dict[str, Any]:
        return {
            "form": self.form,
            "mode": self.mode,
            "columns_from": self.columns_from,
            "columns": self.columns,
            "rows": self.rows,
            "jobs_kept": self.jobs_kept,
            "steps_folded": self.steps_folded,
            "array_tasks": self.array_tasks,
            "dropped": dict(sorted(self.dropped.items())),
            "jobs_dropped": sum(self.dropped.values()),
            "repaired": self.repaired[:_MAX_REPAIRED_KEPT],
            "repaired_count": self.repaired_count,
            "skipped": self.skipped[:_MAX_REPAIRED_KEPT],
            "skipped_count": self.skipped_count,
            "missing_fields": self.missing_fields,
            "notes": self.notes,
            "mappings": {
                kind: dict(itertools.islice(table.items(), MAX_NAMES_LISTED))
                for kind, table in self.mappings.items()
            },
            "mappings_more": {
                kind: len(table) - MAX_NAMES_LISTED
                for kind, table in self.mappings.items()
                if len(table) > MAX_NAMES_LISTED
            },
            "max_procs": self.max_procs,
            "max_procs_source": self.max_procs_source,
            "wider_than_machine": self.wider_than_machine,
            "wider_than_machine_count": self.wider_than_machine_count,
        }


def looks_like_sacct(data: bytes) -> bool:
    """True when :func:`detect_sacct` reads ``data`` (a file's first KB) as sacct output."""
    return detect_sacct(data) is not None


# --- field parsers --------------------------------------------------------------------------


def _time(value: str) -> tuple[int, bool] | None:
    """(Unix seconds, zoned?) or None for Unknown; raises ValueError when unreadable."""
    value = value.strip()
    if value in _UNKNOWN_TIME:
        return None
    if value.isdigit() and len(value) <= 12:
        return int(value), True
    plain = _PLAIN_TIME(value)  # sacct's own form: the date's midnight looked up, not parsed
    if plain is not None:
        hour, minute, second = int(plain[2]), int(plain[3]), int(plain[4])
        if hour < 24 and minute < 60 and second < 60:
            return _midnight(plain[1]) + hour * 3600 + minute * 60 + second, False
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    stamp = datetime.fromisoformat(text)
    zoned = stamp.tzinfo is not None
    if not zoned:
        stamp = stamp.replace(tzinfo=UTC)
    return int(stamp.timestamp()), zoned


_PLAIN_TIME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[T ]([0-9]{2}):([0-9]{2}):([0-9]{2})"
).fullmatch
_MIDNIGHTS: dict[str, int] = {}
_MAX_MIDNIGHTS = 100_000  # dates remembered (a day each: 270 years)


def _midnight(date: str) -> int:
    """Unix seconds of a ``YYYY-MM-DD`` date's midnight, UTC; raises ValueError for no date."""
    seconds = _MIDNIGHTS.get(date)
    if seconds is None:
        seconds = int(datetime.fromisoformat(date).replace(tzinfo=UTC).timestamp())
        if len(_MIDNIGHTS) < _MAX_MIDNIGHTS:
            _MIDNIGHTS[date] = seconds
    return seconds


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


#: Slurm's time formats (``D-HH:MM:SS``, ``MM``, …) → seconds, -1 for UNLIMITED (public name)
slurm_duration = _duration


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
    if getattr(stream, "seekable", lambda: False)():
        magic = stream.read(2)
        stream.seek(-len(magic), io.SEEK_CUR)
        if magic == b"\x1f\x8b":
            stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
    limit = MAX_LINE_CHARS * 4 + 2  # UTF-8: at most 4 bytes a character, plus "\r\n"
    for n in itertools.count(1):
        try:
            raw = stream.readline(limit + 1)
        except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
            raise SacctError([(n, f"corrupt or truncated gzip data: {exc}")]) from None
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


class _Faults:
    """Rows that cannot be read: refused together (strict: the first :data:`_MAX_ERRORS`) or
    skipped, each named in the report (lenient)."""

    def __init__(self, report: SacctReport, lenient: bool, headless: int = 0) -> None:
        self.report, self.lenient, self.headless = report, lenient, headless
        self.errors: list[tuple[int | None, str]] = []

    def add(self, line: int, why: str, shape: bool = False) -> None:
        """``shape``: the row's fields do not fit the columns (too few, too many)."""
        if shape and line == self.headless:  # the first row of a file without a header
            raise SacctError(
                [(line, f"{why}; a file without a header line is read in {self.report.columns_from}"
                        ": give the --format list it was dumped with (or dump it with its header)")]
            )  # fmt: skip
        if self.lenient:
            self.report.skip(f"line {line}: {why}")
        else:
            self.errors.append((line, why))

    @property
    def full(self) -> bool:
        return len(self.errors) >= _MAX_ERRORS


def _resplit(
    parts: list[str], header: tuple[str, ...], texts: tuple[int, ...], left: list[int]
) -> tuple[list[str], list[str]] | str:
    """Re-split a row with more fields than ``header``: the one way of giving the extra ``|``
    to the free-text columns (at ``texts``) that leaves every typed column well formed.
    Returns the row's fields and the columns that took a ``|``, or why there is no one way.
    ``left`` holds the checks the file may still spend (:data:`_RESPLIT_FILE_BUDGET`)."""
    extra = len(parts) - len(header)
    if not texts:
        return (f"{len(parts)} fields where the columns are {len(header)}, and none of them "
                "is free text that could hold a '|' (JobName, SubmitLine, WorkDir, …)")  # fmt: skip
    if left[0] <= 0:
        return (f"{len(parts)} fields where the columns are {len(header)}: not re-split (the "
                f"file's rows have needed more than {_RESPLIT_FILE_BUDGET:,} checks)")  # fmt: skip
    checks = [_CHECKS.get(name) for name in header]
    budget = min(_RESPLIT_BUDGET, left[0])

    def fits(first: int, stop: int, shift: int) -> bool:
        nonlocal budget
        budget -= stop - first
        left[0] -= stop - first
        return all(
            checks[c] is None or checks[c](parts[c + shift]) is not None  # type: ignore[misc]
            for c in range(first, stop)
        )

    found: list[tuple[int, ...]] = []
    given = [0] * len(texts)

    def walk(i: int, shift: int) -> None:
        column = texts[i]
        stop = texts[i + 1] if i + 1 < len(texts) else len(header)
        for more in range(extra - shift + 1) if i + 1 < len(texts) else (extra - shift,):
            if len(found) > 1 or budget <= 0:
                return
            if not fits(column + 1, stop, shift + more):
                continue
            given[i] = more
            if i + 1 < len(texts):
                walk(i + 1, shift + more)
            else:
                found.append(tuple(given))

    if fits(0, texts[0], 0):
        walk(0, 0)
    names = ", ".join(header[c] for c in texts)
    if budget <= 0:
        return f"{len(parts)} fields where the columns are {len(header)}: too many ways to " \
               f"give the {extra} extra '|' to {names}"  # fmt: skip
    if not found:
        return (f"{len(parts)} fields where the columns are {len(header)}, and no way of giving "
                f"the {extra} extra '|' to {names} leaves the other columns readable")  # fmt: skip
    if len(found) > 1:
        which = sorted({header[texts[i]] for way in found for i, m in enumerate(way) if m})
        return (f"{len(parts)} fields where the columns are {len(header)}: the {extra} extra '|' "
                f"could belong to {' or '.join(which)} (more than one reading)")  # fmt: skip
    out: list[str] = []
    took: list[str] = []
    shift = 0
    position = dict(zip(texts, found[0], strict=True))
    for c, name in enumerate(header):
        more = position.get(c, 0)
        out.append("|".join(parts[c + shift : c + shift + more + 1]) if more else parts[c + shift])
        if more:
            took.append(name)
        shift += more
    return out, took


def _rows_parsable(
    layout: SacctLayout, lines: Iterable[tuple[int, str]], report: SacctReport, faults: _Faults
) -> Iterator[tuple[int, list[str]]]:
    """The rows of a ``-P`` file as lists of fields, one per column.

    A row is a line, unless a free-text field holds a line break: a line with too few fields
    takes the following lines (joined with ``\\n``) while they cannot be rows of their own; a
    row with too many fields is re-split (:func:`_resplit`).  A row still too short (cut off) or
    too wide goes to ``faults`` with its first line."""
    header = layout.columns
    width = len(header)
    trailing = layout.form == "parsable"
    texts = tuple(c for c, name in enumerate(header) if name in TEXT_COLUMNS)
    last_is_text = header[-1] in TEXT_COLUMNS
    left = [_RESPLIT_FILE_BUDGET]
    shape = (header, texts, left)
    what = {"header line": "the header", "given --format": "the --format given"}.get(
        layout.source, layout.source
    )

    def count(text: str) -> int:
        return text.count("|") + (0 if trailing and text.endswith("|") else 1)

    def split(text: str) -> list[str]:
        parts = text.split("|")
        if trailing and text.endswith("|"):
            parts.pop()
        return parts

    def emit(text: str, first: int, last: int, k: int, ended: bool) -> list[str] | None:
        """The row's fields, or None (its fault recorded)."""
        parts = split(text)
        if k < width:
            tail = "the file ends" if ended else "the next line starts a row"
            joined = f"; lines {first}-{last} read as one row" if last > first else ""
            faults.add(
                first, f"cut off: {k} fields where {what} has {width} ({tail}){joined}", True
            )
            return None
        took: list[str] = []
        if k > width:
            fixed = _resplit(parts, header, texts, left)
            if isinstance(fixed, str):
                faults.add(first, fixed, True)
                return None
            parts, took = fixed
        if last > first:
            broken = [header[c] for c, v in enumerate(parts) if "\n" in v]
            report.repair(f"lines {first}-{last}: line breaks inside {', '.join(broken)} "
                          "(lines re-joined)")  # fmt: skip
        if took:
            report.repair(f"line {first}: a '|' inside {', '.join(took)} (fields re-split)")
        return parts

    cur: str | None = None
    first = last = k = 0
    for n, raw in lines:
        more = raw.count("|") + (0 if trailing and raw.endswith("|") else 1)
        if cur is not None and more >= width and k == width and first == last:
            yield first, split(cur)  # the common case: one line, one row
            cur, first, last, k = raw, n, n, more
            continue
        if cur is None:
            if raw.strip():
                cur, first, last, k = raw, n, n, more
            continue
        if k >= width:  # the row is complete, unless a line break sits in its last column
            if more == 1 and last_is_text and raw.strip() and len(cur) + len(raw) < MAX_LINE_CHARS:
                cur, last = f"{cur}\n{raw}", n
                continue
        else:
            joined = f"{cur}\n{raw}"
            joined_k = count(joined)
            if (
                more < width
                and len(joined) <= MAX_LINE_CHARS
                and (joined_k <= width or isinstance(_resplit(split(joined), *shape), tuple))
            ):
                cur, k = joined, joined_k
                if raw.strip():
                    last = n
                continue
        parts = emit(cur, first, last, k, ended=False)  # this line starts a row of its own
        if parts is not None:
            yield first, parts
        if faults.full:
            return
        cur, first, last, k = (raw, n, n, more) if raw.strip() else (None, 0, 0, 0)
    if cur is not None:
        parts = emit(cur, first, last, k, ended=True)
        if parts is not None:
            yield first, parts


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


def _field_problem(header: list[str] | tuple[str, ...], parts: list[str]) -> str | None:
    """A reason naming the field when a column the conversion reads holds a control character
    (a line break, a NUL, …); None when it is fine.  Free-text columns are never read."""
    if not _CONTROL.search("|".join(parts)):  # one search a row; the field only when needed
        return None
    for name, value in zip(header, parts, strict=False):
        if name not in _READ:
            continue
        bad = _CONTROL.search(value)
        if bad:
            if bad.group() == "\n":
                return f"{name}: holds a line break (a row over several lines read wrongly?)"
            return f"{name or 'a field'}: holds the control character U+{ord(bad.group()):04X}"
    return None


# --- conversion -----------------------------------------------------------------------------


@dataclass(slots=True)
class _Job:
    line: int
    jobid: str
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
    extra: tuple[str, ...] = ()


_STATUS = {"COMPLETED": 1, "CANCELLED": 5, **dict.fromkeys(_FAILED, 0)}
_TRUNCATED = ("JobID", "Submit", "Start", "End", "State")


def convert_sacct(
    data: bytes | str | IO[bytes], *, max_procs: int | None = None, max_rows: int = MAX_ROWS,
    lenient: bool = False, columns: str | Iterable[str] | None = None,
    extras: tuple[str, ...] = (), kept: list[dict[str, str]] | None = None,
) -> tuple[SWFHeader, list[SWFJob], SacctReport]:  # fmt: skip
    """Convert sacct output; returns the SWF header, jobs in submit order, and the report.

    ``data`` may be gzip-compressed, and a binary file object: it is read one line at a time.
    ``columns``: the ``--format`` list of a file without a header line (default
    :data:`XDMOD_COLUMNS`; ignored, with a note, when the file has one).  Raises
    :class:`SacctError` naming the lines at fault (nothing is converted then); ``lenient``
    skips the rows that cannot be read instead, naming them in the report's ``skipped``.

    ``extras``: further columns (``Account``, ``Eligible``, ``Priority``, ``JobID``…) whose
    raw values are appended to ``kept``, one dict per SWF job in the same order (empty
    strings for a column the file lacks).
    """
    given = parse_columns(columns) if columns else None
    if max_procs is not None and not 1 <= max_procs <= _MAX_PROCS:
        raise SacctError([(None, f"the machine size (--procs) must be 1..{_MAX_PROCS:,}")])
    layout, header, rows, report, faults = _open_rows(_numbered_lines(data), given, lenient)
    reader = _RowReader(header, layout.form == "fixed-width", report, faults, max_rows, extras)
    for n, parts in rows:
        if faults.full:
            break
        reader.read(n, parts)
    reader.finish()
    ordered = sorted(reader.jobs.values(), key=lambda j: (j.submit, j.key))
    out, maps = _swf_jobs(ordered, reader.step_rss, report)
    if kept is not None:
        kept.extend({**dict(zip(extras, j.extra, strict=True)), "JobID": j.jobid} for j in ordered)
    report.jobs_kept = len(out)
    report.mappings = {k: v for k, v in maps.items() if v}
    if max_procs:
        report.max_procs, report.max_procs_source = max_procs, "given"
        _note_wider(report, ordered, max_procs)
    else:
        report.max_procs = _peak_cpus(out)
        report.max_procs_source = "peak CPUs in use at once (give the cluster's size to override)"
    return _swf_header(report, maps, ordered[0].submit), out, report


def _open_rows(
    lines: Iterator[tuple[int, str]], given: tuple[str, ...] | None, lenient: bool
) -> tuple[SacctLayout, tuple[str, ...], Iterable[tuple[int, list[str]]], SacctReport, _Faults]:
    """The layout (from the first non-blank line), the column names, the rows (read lazily,
    one list of fields per column each), the report and where faults go.  Raises
    :class:`SacctError` for an empty file, one that is not sacct output, or columns that lack
    a field the conversion needs."""
    first = next(((n, text) for n, text in lines if text.strip()), None)
    if first is None:
        raise SacctError([(None, "the file is empty")])
    head_n, head_line = first
    layout = _layout(head_line, given, head_n)
    if layout is None:
        raise SacctError(
            [(head_n, "not sacct output: the first line has no '|' (sacct -P) and is not a "
                      "line of column names (the fixed-width form); an SWF trace is uploaded "
                      "as a trace, not converted")]
        )  # fmt: skip
    report = SacctReport(form=layout.form, mode="lenient" if lenient else "strict")
    report.columns_from = layout.source
    faults = _Faults(report, lenient, 0 if layout.header else head_n)
    rows: Iterable[tuple[int, list[str]]]
    if layout.form == "fixed-width":
        header, rows = _open_fixed(head_n, head_line, lines)
    else:
        header = layout.columns
        rest: Iterable[tuple[int, str]] = lines
        if not layout.header:
            rest = itertools.chain([first], lines)  # the first line is a row
            width = len(header) + (layout.form == "parsable")
            if head_line.count("|") + 1 < width:  # too few columns: not this order
                faults.add(head_n, f"{head_line.count('|') + 1} fields where "
                                   f"{'the --format given' if given else layout.source} has "
                                   f"{len(header)}", True)  # fmt: skip
        elif given:
            report.notes.append("the file has a header line: the column list given was not used")
        rows = _rows_parsable(layout, rest, report, faults)
    report.columns = len(header)
    missing = [f for f in _NEEDED if f not in header]
    if missing:
        where = "the header" if layout.header else f"the columns ({layout.source})"
        why = f"{where} lack(s) the field(s) {', '.join(missing)}"
        raise SacctError([(head_n if layout.header else None, why)])
    report.missing_fields = [f for f in _KNOWN if f not in header]
    return layout, header, rows, report, faults


def _open_fixed(
    head_n: int, head_line: str, lines: Iterator[tuple[int, str]]
) -> tuple[tuple[str, ...], Iterator[tuple[int, list[str]]]]:
    """The column names of the fixed-width form (read off its rule line) and its rows."""
    second = next(lines, None)
    if second is None or not set(second[1].strip()) <= {"-", " "}:
        raise SacctError(
            [(head_n + 1, "the fixed-width form has a rule line (----) under its header")]
        )
    spans = _spans_fixed(second[0], second[1])
    header = tuple(
        _CANONICAL.get(head_line[a:b].strip().lower(), head_line[a:b].strip()) for a, b in spans
    )
    return header, _rows_fixed(spans, lines)


class _RowReader:
    """Reads rows (lists of fields, one per column) one at a time into the jobs kept (by job
    key: the last record of a requeued job wins), the largest ``MaxRSS`` of each job's steps
    and the time zones seen; what it drops is counted in the report, what it cannot read goes
    to ``faults`` naming the line."""

    def __init__(
        self, header: tuple[str, ...], fixed: bool, report: SacctReport, faults: _Faults,
        max_rows: int, extras: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        self.header, self.fixed, self.report, self.faults = header, fixed, report, faults
        self.max_rows = max_rows
        col: dict[str, int] = {}
        for k, name in enumerate(header):
            col.setdefault(name, k)
        # each row gets one empty field appended: where the columns the file lacks are read
        self.at = {name: col.get(name, len(header)) for name in (*_READ, "NodeList")}
        self.extras = tuple(col.get(name, len(header)) for name in extras)
        self.names = tuple(self.at[f] for f in _NAMES)
        self.group_note = "Group" not in col and "Account" in col
        self.jobs: dict[tuple, _Job] = {}
        self.step_rss: dict[tuple, float] = {}
        self.zoned: set[bool] = set()

    def read(self, n: int, parts: list[str]) -> None:
        report = self.report
        report.rows += 1
        if report.rows > self.max_rows:
            raise SacctError([(n, f"more than {self.max_rows:,} rows (the limit)")])
        problem = _field_problem(self.header, parts)
        if problem is not None:
            self.faults.add(n, problem)
            return
        parts.append("")
        ident = self._ident(n, parts)
        if ident is None:
            return
        jobid, key, step = ident
        if step is not None:
            self._fold_step(n, parts, key)
            return
        if key in self.jobs:
            report.drop("duplicate record (requeued job: the last record is kept)")
        job = self._job(n, parts, jobid, key)
        if job is not None:
            self.jobs[key] = job

    def _ident(self, n: int, parts: list[str]) -> tuple[str, tuple, str | None] | None:
        """(JobID, job key, step or None) of a row, None when it is not read (its fault or
        drop recorded): a pending array range never ran."""
        at, fault = self.at, self.faults.add
        jobid = parts[at["JobID"]].strip()
        if len(jobid) > MAX_ID_CHARS:
            fault(n, f"JobID: longer than {MAX_ID_CHARS} characters ({len(jobid):,})")
            return None
        if max(len(parts[k]) for k in self.names) > MAX_NAME_CHARS:  # (before stripping)
            long = next((f for f in _NAMES if len(parts[at[f]].strip()) > MAX_NAME_CHARS), None)
            if long is not None:
                fault(n, f"{long}: longer than {MAX_NAME_CHARS} characters")
                return None
        if self.fixed and any(parts[at[f]].endswith("+") for f in _TRUNCATED):
            fault(n, "a value was truncated by sacct's column width (ends in '+'); "
                     "use --parsable2")  # fmt: skip
            return None
        m = _JOBID_RE.match(jobid)
        if m is None:
            fault(n, f"JobID {jobid[:40]!r} is not a Slurm job id")
            return None
        base, sep, index, step = m.groups()
        if index is not None and index.startswith("["):
            if step is None:
                self.report.drop("array range never started (pending)")
            return None
        return jobid, (int(base), sep or "", int(index) if index else -1), step

    def _fold_step(self, n: int, parts: list[str], key: tuple) -> None:
        """A step (``123.batch``): only its ``MaxRSS`` counts, toward its job's used memory."""
        value = parts[self.at["MaxRSS"]]
        try:
            rss = _mem_kb(value)
        except ValueError:
            self.faults.add(n, f"MaxRSS {value[:30]!r} is not a memory size")
            return
        self.report.steps_folded += 1
        if rss is not None:
            self.step_rss[key] = max(self.step_rss.get(key, 0.0), rss[0])

    def _job(self, n: int, parts: list[str], jobid: str, key: tuple) -> _Job | None:
        """The job of a row that ran to an end, else None (dropped and counted, or a fault)."""
        at, drop = self.at, self.report.drop
        state = parts[at["State"]].strip().split(" ")[0].upper().rstrip("+")
        if state in _UNFINISHED:
            drop(f"state {state}")
            return None
        try:
            submit = _time(parts[at["Submit"]])
            start = _time(parts[at["Start"]])
            end = _time(parts[at["End"]])
        except (ValueError, OverflowError):
            self.faults.add(n, "Submit/Start/End must be ISO 8601 times or Unix seconds")
            return None
        if submit is None:
            drop("unknown submit time")
            return None
        if parts[at["NodeList"]].strip() == "None assigned" or parts[at["AllocCPUS"]] == "0":
            # Slurm 22.05 gives a job cancelled while pending Start = End = the cancel time;
            # no nodes and no CPUs tell it never ran (as Open XDMoD's shredder skips it)
            drop("cancelled before start" if state == "CANCELLED" else "never ran")
            return None
        if start is None or end is None:
            lost = "unknown start" if start is None else "unknown end"
            drop("cancelled before start" if start is None and state == "CANCELLED" else lost)
            return None
        status = _STATUS.get(state)
        if status is None:
            drop(f"state {state or '(empty)'}")
            return None
        self.zoned.update((submit[1], start[1], end[1]))
        if not (submit[0] <= start[0] <= end[0]):
            self.faults.add(n, "times out of order (need Submit <= Start <= End)")
            return None
        sizes = self._sizes(n, parts, end[0] - submit[0])
        if sizes is None:
            return None
        alloc, req, nodes, req_time, req_mem, rss = sizes
        group = parts[at["Group"]].strip() or parts[at["Account"]].strip()
        return _Job(
            n, jobid, key, submit[0], start[0], end[0], submit[1], status, alloc, req, req_time,
            req_mem, nodes, rss, parts[at["User"]].strip(), group, parts[at["QOS"]].strip(),
            parts[at["Partition"]].strip(), tuple(parts[k].strip() for k in self.extras),
        )  # fmt: skip

    def _sizes(
        self, n: int, parts: list[str], span: int
    ) -> tuple[int, int, int, int, float, float] | None:
        """(allocated CPUs, requested CPUs, nodes, requested seconds, requested KB per CPU,
        used KB) of a job's row; None (a fault recorded) when one is unreadable or out of range
        (``span``: its seconds from submit to end)."""
        at, fault = self.at, self.faults.add
        try:
            alloc = _count(parts[at["AllocCPUS"]]) or _count(parts[at["NCPUS"]])
            req = _count(parts[at["ReqCPUS"]]) or alloc
            nodes = _count(parts[at["NNodes"]]) or 1
            req_time = _duration(parts[at["Timelimit"]])
        except ValueError:
            fault(n, "AllocCPUS/NCPUS/ReqCPUS/NNodes/Timelimit unreadable")
            return None
        if not alloc or alloc > _MAX_PROCS or (req and req > _MAX_PROCS):
            fault(n, f"processors must be 1..{_MAX_PROCS:,} (AllocCPUS/NCPUS)")
            return None
        if req_time > _MAX_SECONDS or span > _MAX_SECONDS:
            fault(n, "a time span beyond 100 years")
            return None
        try:
            mem = _mem_kb(parts[at["ReqMem"]])
            rss = _mem_kb(parts[at["MaxRSS"]])
        except ValueError:
            fault(n, "ReqMem/MaxRSS is not a memory size like 4G, 2800Mc, 500000Mn")
            return None
        if mem is None:
            req_mem = -1.0
        elif mem[1] == "c":
            req_mem = mem[0]
        else:
            req_mem = mem[0] * nodes / alloc
        return alloc, req or alloc, nodes, req_time, req_mem, rss[0] if rss else 0.0

    def finish(self) -> None:
        """Refuse the file (the faults found, a mix of zoned and unzoned times, no finished
        job), or add the report's notes."""
        errors, report = self.faults.errors, self.report
        if len(self.zoned) > 1:
            errors.append((None, "the file mixes times with and without a time zone"))
        if errors:
            raise SacctError(errors[:_MAX_ERRORS])
        if not self.jobs:
            skipped = (
                f"; {report.skipped_count:,} rows skipped ({report.skipped[0]}, …)"
                if report.skipped_count
                else ""
            )
            raise SacctError([(None, "no finished job in the file (see what was dropped: "
                                     f"{report.dropped or 'nothing'}{skipped})")])  # fmt: skip
        if self.zoned == {False}:
            report.notes.append("times have no time zone: read as UTC (only differences matter)")
        if self.group_note:
            report.notes.append("SWF group numbers are Slurm accounts (no Group column)")


def _swf_jobs(
    ordered: list[_Job], step_rss: dict[tuple, float], report: SacctReport
) -> tuple[list[SWFJob], dict[str, dict[str, int]]]:
    """The SWF jobs (numbered 1, 2, … in submit order) and the name → number tables of users,
    groups, QOS and partitions (numbered in order of first appearance)."""
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
    return out, maps


def _swf_header(report: SacctReport, maps: dict[str, dict[str, int]], t0: int) -> SWFHeader:
    return SWFHeader.from_fields(
        {
            "Version": "2.2",
            "Conversion": "GridPortal sacct import (scheduler.traces.sacct)",
            "UnixStartTime": str(t0),
            "MaxJobs": str(report.jobs_kept),
            "MaxRecords": str(report.jobs_kept),
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


def _note_wider(report: SacctReport, jobs: list[_Job], procs: int) -> None:
    """Name the jobs that need more CPUs than the machine size given: kept, as SWF keeps them,
    and dropped by a simulation as any SWF job wider than ``MaxProcs`` is ("exceeds_machine"
    in :func:`scheduler.cluster.jobs.prepare_jobs`)."""
    for j in jobs:
        if j.req > procs:
            report.wider_than_machine_count += 1
            if len(report.wider_than_machine) < _MAX_ERRORS:
                report.wider_than_machine.append({"job": j.jobid, "line": j.line, "cpus": j.req})
    if report.wider_than_machine_count:
        named = ", ".join(
            f"Slurm job {w['job']} (line {w['line']}) needs {w['cpus']}"
            for w in report.wider_than_machine[:5]
        )
        more = report.wider_than_machine_count - min(5, len(report.wider_than_machine))
        report.notes.append(
            f"{report.wider_than_machine_count:,} job(s) need more CPUs than the {procs:,} given "
            f"for the machine: {named}{f' and {more:,} more' if more else ''}; they are kept, "
            "and a simulation on this machine drops them (as any SWF job wider than MaxProcs)"
        )


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


def sacct_to_swf(data: bytes | str, **options: Any) -> tuple[str, SacctReport]:
    """The SWF text of converted sacct output, and the report (``options``: ``max_procs``,
    ``lenient``, ``columns``, see :func:`convert_sacct`)."""
    out = io.StringIO()
    report = sacct_to_swf_file(data, out, **options)
    return out.getvalue(), report


def sacct_to_swf_file(
    data: bytes | str | IO[bytes], out: IO[str], *, max_procs: int | None = None,
    lenient: bool = False, columns: str | Iterable[str] | None = None,
) -> SacctReport:  # fmt: skip
    """Convert sacct output (bytes, text or a binary file read line by line) and write the
    SWF text to ``out``; returns the report."""
    from .swf import write_swf

    header, jobs, report = convert_sacct(
        data, max_procs=max_procs, lenient=lenient, columns=columns
    )
    write_swf(jobs, out, header=header.fields, comments=header.comments[len(header.fields) :])
    return report
