"""One gate for every zip door (run bundles, job-array results): checked before any member is
read, then read member by member with every failure named.

:func:`open_archive` reads only the zip's central directory and refuses, naming the member and
the cap (``GRIDPORTAL_ARCHIVE_*`` settings): more members than ``MAX_MEMBERS``; a member larger
than ``MAX_MEMBER_BYTES`` uncompressed, or all of them larger than ``MAX_TOTAL_BYTES``; a member
(over 1 MiB) or the whole archive expanding more than ``MAX_RATIO`` times (a bomb); names that
are absolute (``/x``, ``C:x``, ``\\x``), hold ``..``, ``.`` or empty parts, NUL or control
characters, or appear twice; encrypted members; compression methods other than stored and
deflate.  :meth:`CheckedArchive.read` and :meth:`CheckedArchive.copy_to` then read one member
bounded by its cap and turn a bad CRC, broken deflate data, a truncated member or a header
that does not match its directory entry into a refusal naming that member: a ValidationError
on ``file`` (a 400), never a server error.

These run in the limited child of the door (:func:`gridportal.inputs.services.upload_limited`),
so even a zip this module does not foresee cannot take the web process's memory.
"""

from __future__ import annotations

import hashlib
import io
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO

from django.conf import settings
from django.core.exceptions import ValidationError

__all__ = ["ArchiveLimits", "CheckedArchive", "open_archive", "refuse"]

#: A member this small is never refused for its compression ratio alone.
RATIO_FLOOR = 1 << 20
MAX_NAME_CHARS = 255
_CHUNK = 1 << 20
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_READ_ERRORS = (
    zipfile.BadZipFile,  # bad CRC, bad local header, names that differ
    zlib.error,  # broken deflate data
    EOFError,  # a member cut short
    NotImplementedError,  # a compression method zipfile cannot read
    RuntimeError,  # an encrypted member
    ValueError,
    OSError,
    struct.error,
    UnicodeError,
)
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}


def refuse(message: str) -> ValidationError:
    return ValidationError({"file": [message]})


@dataclass(frozen=True)
class ArchiveLimits:
    max_members: int
    max_member_bytes: int
    max_total_bytes: int
    max_ratio: int

    @classmethod
    def from_settings(cls) -> ArchiveLimits:
        return cls(
            max_members=int(settings.GRIDPORTAL_ARCHIVE_MAX_MEMBERS),
            max_member_bytes=int(settings.GRIDPORTAL_ARCHIVE_MAX_MEMBER_BYTES),
            max_total_bytes=int(settings.GRIDPORTAL_ARCHIVE_MAX_TOTAL_BYTES),
            max_ratio=int(settings.GRIDPORTAL_ARCHIVE_MAX_RATIO),
        )


def name_problem(name: str) -> str | None:
    """Why a member name is unsafe, or None."""
    if not name or not name.rstrip("/"):
        return "an empty name"
    if len(name) > MAX_NAME_CHARS:
        return f"a name longer than {MAX_NAME_CHARS} characters"
    bad = _CONTROL.search(name)
    if bad:
        return f"a name holding the control character U+{ord(bad.group()):04X}"
    if "\\" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return "an absolute path (or a backslash)"
    parts = name.rstrip("/").split("/")
    if ".." in parts:
        return "a '..' part (outside the archive)"
    if any(p in ("", ".") for p in parts):
        return "an empty or '.' part"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "a name that is not valid text"
    return None


def _show(name: str) -> str:
    return repr(name[:80]) if name_problem(name) else name


class CheckedArchive:
    """A zip whose directory passed :func:`open_archive`; read its members with :meth:`read`
    or :meth:`copy_to`."""

    def __init__(self, zf: zipfile.ZipFile, label: str, limits: ArchiveLimits) -> None:
        self.zf, self.label, self.limits = zf, label, limits
        self.members = [m for m in zf.infolist() if not m.is_dir()]
        self.by_name = {m.orig_filename: m for m in self.members}

    def _refuse(self, member: str, why: str) -> ValidationError:
        return refuse(f"{self.label}: {_show(member)}: {why}")

    def copy_to(self, name: str, dest: IO[bytes], *, max_bytes: int | None = None,
                cap_name: str = "GRIDPORTAL_ARCHIVE_MAX_MEMBER_BYTES") -> str:  # fmt: skip
        """Copy one member to ``dest`` in chunks, at most ``max_bytes`` (else the member cap);
        returns its sha256."""
        info = self.by_name[name]
        cap = self.limits.max_member_bytes if max_bytes is None else max_bytes
        if info.file_size > cap:
            raise self._refuse(name, f"{info.file_size:,} bytes; the limit is {cap:,} ({cap_name})")
        digest = hashlib.sha256()
        done = 0
        try:
            with self.zf.open(info) as fh:
                while chunk := fh.read(_CHUNK):
                    done += len(chunk)
                    if done > min(cap, info.file_size):
                        raise self._refuse(name, "more data than its zip header says")
                    digest.update(chunk)
                    dest.write(chunk)
        except _READ_ERRORS as exc:
            raise self._refuse(name, f"cannot be read ({type(exc).__name__}: {exc})") from None
        return digest.hexdigest()

    def read(self, name: str, *, max_bytes: int | None = None,
             cap_name: str = "GRIDPORTAL_ARCHIVE_MAX_MEMBER_BYTES") -> bytes:  # fmt: skip
        buf = io.BytesIO()
        self.copy_to(name, buf, max_bytes=max_bytes, cap_name=cap_name)
        return buf.getvalue()


def _size_of(source: bytes | IO[bytes]) -> int:
    if isinstance(source, bytes | bytearray):
        return len(source)
    here = source.tell()
    size = source.seek(0, io.SEEK_END)
    source.seek(here)
    return size


def open_archive(
    source: bytes | IO[bytes], *, label: str, limits: ArchiveLimits | None = None
) -> CheckedArchive:
    """Open and check a zip (see the module docstring); raises ValidationError on ``file``."""
    limits = limits or ArchiveLimits.from_settings()
    size = _size_of(source)
    stream = io.BytesIO(source) if isinstance(source, bytes | bytearray) else source
    try:
        stream.seek(0)
        zf = zipfile.ZipFile(stream)
        infos = zf.infolist()
    except (*_READ_ERRORS, zipfile.LargeZipFile) as exc:
        raise refuse(f"{label}: not a readable zip file ({exc})") from None
    if len(infos) > limits.max_members:
        raise refuse(
            f"{label}: {len(infos):,} members; the limit is {limits.max_members:,} "
            "(GRIDPORTAL_ARCHIVE_MAX_MEMBERS)"
        )
    seen: set[str] = set()
    total = 0
    for info in infos:
        name = info.orig_filename
        problem = name_problem(name)
        if problem:
            raise refuse(f"{label}: unsafe file name in the zip: {name[:80]!r} ({problem})")
        key = name.rstrip("/")
        if key in seen:
            raise refuse(f"{label}: {name}: appears twice in the zip")
        seen.add(key)
        if info.flag_bits & 0x1:
            raise refuse(f"{label}: {name}: encrypted (encrypted members are refused)")
        if info.compress_type not in _METHODS:
            raise refuse(
                f"{label}: {name}: compressed with method {info.compress_type} (only stored and "
                "deflate members are read)"
            )
        if info.is_dir():
            continue
        if info.file_size > limits.max_member_bytes:
            raise refuse(
                f"{label}: {name}: {info.file_size:,} bytes uncompressed; the limit is "
                f"{limits.max_member_bytes:,} (GRIDPORTAL_ARCHIVE_MAX_MEMBER_BYTES): the zip "
                "unpacks to too much data"
            )
        total += info.file_size
        if total > limits.max_total_bytes:
            raise refuse(
                f"{label}: more than {limits.max_total_bytes:,} bytes uncompressed "
                "(GRIDPORTAL_ARCHIVE_MAX_TOTAL_BYTES); the zip unpacks to too much data"
            )
        if info.file_size > RATIO_FLOOR and info.file_size > limits.max_ratio * max(
            info.compress_size, 1
        ):
            raise refuse(
                f"{label}: {name}: expands {info.file_size / max(info.compress_size, 1):,.0f} "
                f"times; the limit is {limits.max_ratio} (GRIDPORTAL_ARCHIVE_MAX_RATIO): refused "
                "as a compression bomb"
            )
    if total > RATIO_FLOOR and total > limits.max_ratio * max(size, 1):
        raise refuse(
            f"{label}: the zip unpacks to too much data ({total:,} bytes from {size:,}; the "
            f"limit is {limits.max_ratio} times, GRIDPORTAL_ARCHIVE_MAX_RATIO)"
        )
    return CheckedArchive(zf, label, limits)
