"""Slurm sites: a sacct dump and the site's configuration files, read by the engine in a
limited child at upload and stored together, or not at all (the ``slurm-whatif`` kind's input).

Every file is refused naming itself and its line (the engine's ``SlurmSiteError``); the
configuration files are text of at most :data:`MAX_CONFIG_BYTES` each (stored in the row), the
dump a file of at most GRIDPORTAL_MAX_UPLOAD_BYTES (stored as uploaded, gzipped or not).
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import File

from scheduler import engine

from .models import SlurmSite
from .services import (
    _INPUT_CACHE,
    TRACE_JOB_BYTES,
    _delete_unused,
    _digest,
    _save_with_file,
    upload_limited,
)

#: the largest slurm.conf / sacctmgr file (real ones are kilobytes; the engine reads 4 MB)
MAX_CONFIG_BYTES = 1 << 20
#: form field -> what errors call the file when the upload has no name
CONFIG_FIELDS = {"slurm_conf": "slurm.conf", "assoc": "assoc", "qos": "qos", "sshare": "sshare"}


def _filename(upload, default: str) -> str:
    return ((getattr(upload, "name", "") or default).rsplit("/", 1)[-1] or default)[:255]


def _config_text(upload, field: str) -> tuple[str, str]:
    """(text, file name) of a configuration upload; refused naming the file (field ``field``)
    when too large, not UTF-8 text or holding NUL bytes."""
    if upload is None:
        return "", ""
    name = _filename(upload, CONFIG_FIELDS[field])
    upload.seek(0)
    data = upload.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValidationError({field: [f"{name}: larger than {MAX_CONFIG_BYTES:,} bytes"]})
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValidationError({field: [f"{name}: line {line}: not UTF-8 text"]}) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise ValidationError({field: [f"{name}: line {line}: a NUL byte (not a text file)"]})
    return text, name


def _site_facts(dump, texts: dict[str, str], files: dict[str, str]) -> dict:
    """(In a limited child) read the site as a run will; only its facts go back."""
    dump.seek(0)
    try:
        loaded = engine.load_slurm_site(dump, **texts, files=files)
    except engine.SlurmSiteError as exc:
        raise ValidationError({exc.file: exc.errors}) from None
    return engine.slurm_site_facts(loaded)


def slurm_site_sha256(dump_sha256: str, texts: dict[str, str]) -> str:
    """A site's identity: the dump's sha256 and those of its configuration texts."""
    parts = {"dump": dump_sha256, **{k: hashlib.sha256(texts.get(k, "").encode()).hexdigest()
                                    for k in CONFIG_FIELDS}}  # fmt: skip
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def slurm_site_create(
    *, owner, name: str, dump: File, slurm_conf, assoc=None, qos=None, sshare=None
):
    """Read and store a Slurm site (the files as uploaded), or nothing: every refusal is a
    ValidationError on the field of the file at fault, naming the file and line."""
    if dump is None or slurm_conf is None:
        missing = "dump" if dump is None else "slurm_conf"
        raise ValidationError({missing: ["this file is required"]})
    dump_name = _filename(dump, "sacct.txt")
    cap = settings.GRIDPORTAL_MAX_UPLOAD_BYTES
    if dump.size is not None and dump.size > cap:
        raise ValidationError({"dump": [f"{dump_name}: the file is {dump.size:,} bytes; the "
                                        f"limit is {cap:,} bytes"]})  # fmt: skip
    texts, files = {}, {"dump": dump_name}
    given = {"slurm_conf": slurm_conf, "assoc": assoc, "qos": qos, "sshare": sshare}
    for field, upload in given.items():
        texts[field], files[field] = _config_text(upload, field)
        files[field] = files[field] or CONFIG_FIELDS[field]
    facts = upload_limited(_site_facts, dump, texts, files, what=f"{dump_name}: reading the site")
    dump_sha, dump_size = _digest(dump)
    row = SlurmSite(
        owner=owner,
        name=(name or dump_name)[:200],
        original_filename=dump_name,
        slurm_conf=texts["slurm_conf"],
        slurm_conf_filename=files["slurm_conf"],
        assoc=texts["assoc"],
        assoc_filename=files["assoc"] if texts["assoc"] else "",
        qos=texts["qos"],
        qos_filename=files["qos"] if texts["qos"] else "",
        sshare=texts["sshare"],
        sshare_filename=files["sshare"] if texts["sshare"] else "",
        size_bytes=dump_size + sum(len(v.encode()) for v in texts.values()),
        sha256=slurm_site_sha256(dump_sha, texts),
        job_count=facts["jobs"],
        summary=facts,
    )
    return _save_with_file(row, dump_name, dump)


def slurm_site_delete(*, site: SlurmSite) -> None:
    _delete_unused(site, "Slurm site")


def slurm_site_open(site: SlurmSite):
    """Load a stored site for the engine (read at upload; cached like traces)."""
    key = ("slurm-site", site.sha256, site.file.path)
    cost = max(1, site.job_count) * TRACE_JOB_BYTES

    def load():
        with site.file.open("rb") as fh:
            return engine.load_slurm_site(
                fh.read(), site.slurm_conf, site.assoc, site.qos, site.sshare, name=site.name,
                files={"dump": site.original_filename, "slurm_conf": site.slurm_conf_filename,
                       "assoc": site.assoc_filename, "qos": site.qos_filename,
                       "sshare": site.sshare_filename},
            )  # fmt: skip

    return _INPUT_CACHE.get(key, cost, load)
