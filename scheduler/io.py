"""Loading user inputs for the engine, with the validation the portal relies on.

Every upload goes through these functions before anything is stored, so the errors a user sees
(naming the line or field) are the engine's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO

from .traces.swf import SWFError, Trace, read_swf
from .usage.config import PolicyError, load_policy_file
from .workflows.dag import WorkflowError
from .workflows.loader import load_workflow

__all__ = [
    "load_trace",
    "load_workflow",
    "load_input",
    "load_policy_file",
    "PolicyError",
    "SWFError",
    "WorkflowError",
    "INPUT_LOADERS",
]


def load_trace(
    source: str | Path | BinaryIO,
    *,
    name: str | None = None,
    max_bytes: int | None = None,
    max_jobs: int | None = None,
) -> Trace:
    """Parse an SWF trace (plain or gzipped); raises :class:`SWFError` naming the lines
    (``max_jobs``: refuse a trace with more jobs, as soon as the next job line is read)."""
    return read_swf(source, name=name, max_bytes=max_bytes, max_jobs=max_jobs)


def load_topology_input(source: Any, **_: Any) -> dict[str, Any]:
    """A co-allocation topology document (a dict, or a JSON file), validated; raises
    ``TopologyError`` naming the JSON path.  Kinds receive the document itself."""
    from .coallocation import load_topology, load_topology_file, topology_as_json

    if isinstance(source, dict):
        load_topology(source)
        return source
    return topology_as_json(load_topology_file(source))


#: the files of a Slurm site's folder (a bundle's ``inputs/slurm-site-1/``, ``run --slurm-site``)
SLURM_SITE_FILES = {"dump": ("dump.sacct", "dump.sacct.gz"), "slurm_conf": ("slurm.conf",),
                    "assoc": ("assoc.txt",), "qos": ("qos.txt",),
                    "sshare": ("sshare.txt",)}  # fmt: skip


def _slurm_site_folder(folder: Path) -> dict[str, Any]:
    found: dict[str, Any] = {"name": folder.name, "files": {}}
    for role, names in SLURM_SITE_FILES.items():
        path = next((folder / n for n in names if (folder / n).is_file()), None)
        if path is None and role in ("dump", "slurm_conf"):
            raise ValueError(f"{folder}: no {' or '.join(names)}")
        if path is not None:
            found[role] = path.read_bytes()
            found["files"][role] = str(path)
    return found


def load_slurm_site_input(source: Any, **_: Any) -> Any:
    """A Slurm site (:func:`scheduler.slurm.whatif.load_site`) from a folder of
    :data:`SLURM_SITE_FILES`, or a dict: ``dump`` (bytes or a path), ``slurm_conf``,
    ``assoc``, ``qos``, ``sshare`` (texts), optional ``name`` and ``files`` (the names errors
    give each file); raises ``SlurmSiteError`` naming the file and line."""
    from .slurm.whatif import load_site

    if isinstance(source, (str, Path)) and Path(source).is_dir():
        source = _slurm_site_folder(Path(source))
    if not isinstance(source, dict):
        raise ValueError("a Slurm site is a folder with dump.sacct and slurm.conf (and "
                         "optionally assoc.txt, qos.txt, sshare.txt)")  # fmt: skip
    dump = source["dump"]
    if isinstance(dump, (str, Path)):
        dump = Path(dump).read_bytes()
    return load_site(
        dump, source.get("slurm_conf", ""), source.get("assoc", ""), source.get("qos", ""),
        source.get("sshare", ""), name=source.get("name", ""), files=source.get("files"),
    )  # fmt: skip


INPUT_LOADERS = {
    "trace": load_trace,
    "slurm-site": load_slurm_site_input,
    "workflow": load_workflow,
    "policies": load_policy_file,
    "topology": load_topology_input,
}


def load_input(kind: str, source: str | Path, **options: Any) -> Any:
    try:
        loader = INPUT_LOADERS[kind]
    except KeyError:
        raise ValueError(f"no reader for inputs of kind {kind!r}") from None
    return loader(source, **options)
