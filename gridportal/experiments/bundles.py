"""Run bundles: a run or a sweep as a zip a reviewer can cite, and import into another portal.

The zip is a Workflow Run RO-Crate of the **Process Run Crate** profile
(https://w3id.org/ro/wfrun/process/0.5, RO-Crate 1.1): one ``CreateAction`` per run whose
``instrument`` is the engine (``gridportal-sim``, with its version and ``url``), whose ``agent``
is the run's owner (a ``Person`` named by their full name or user name, never an e-mail),
whose ``object`` lists the input files and one ``PropertyValue`` per parameter (and the seed),
whose ``result`` lists the outputs, and whose ``startTime``/``endTime`` are the run's own.  The
root carries ``license`` (``GRIDPORTAL_DATA_LICENSE``, a ``CreativeWork``) and ``author`` and
``publisher``: GridPortal, the ``Organization`` at ``GRIDPORTAL_PROJECT_URL`` that wrote the
crate (RO-Crate 1.1 recommends an affiliation for a ``Person`` author, which a portal does not
know; the person who ran it is each Action's ``agent``).  Each file's checksum is ``sha256``:
the RO-Crate 1.1 context does not define that key, so the crate extends the context with it
as RO-Crate 1.1's "Extending RO-Crate" (appendix, JSON-LD) says, mapped to
``http://schema.org/sha256`` as the RO-Crate 1.2 context maps it.  Single values are written
as values, not one-element lists (RO-Crate 1.1, appendix JSON-LD).  Laid out as::

    ro-crate-metadata.json      the crate (JSON-LD)
    run.json                    kind, parameters, seed, snapshot documents, engine version
    inputs/trace-1.swf …        the traces and workflows exactly as stored (sha256 in the crate)
    inputs/policies-1.json …    configuration documents copied into the run
    inputs/policy-<sha>.py …    the source of each user scheduling policy the run names
                                (run.json's ``user_policies``: name, class, sha256, file)
    result/result.json          the Result (summary, tables, charts)
    result/summary.csv, result/table-<id>.csv, result/chart-<id>.csv
    result/chart-<id>.svg       each chart drawn (SVG: the portal has no server-side PNG
                                renderer; the result page downloads PNGs)

A sweep bundle holds the sweep (``sweep.json``: fixed parameters, varied values, seeds), its
inputs once, every run's result under ``runs/<id>/`` and the aggregate under ``result/``.

:func:`bundle_import` takes a run bundle back (hostile input, read in a limited child: the zip
checked by :mod:`gridportal.archives`, the crate's sha256 of every file verified (a bundle
without its crate, or a file the import reads without a sha256 in it, is refused), run.json's
fields typed, the result by :mod:`gridportal.experiments.result_check`), stores
its inputs as the importing user's own, records the bundle's result as a finished run and
queues a re-run with the same kind, parameters, seed and inputs — the two can then be compared
side by side.  Everything is saved or nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import itertools
import json
import os
import platform
import re
import shutil
import tempfile
import zipfile
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import File
from django.db import transaction
from django.utils import timezone

from gridportal.archives import CheckedArchive, open_archive, refuse
from gridportal.inputs.policyfiles import owned_policies
from scheduler import engine

from .jobarray import computed_elsewhere_text
from .models import Experiment, Sweep
from .result_check import check_result, load_json, result_params_match
from .results import result_files, stored_result_files, stored_size
from .services import experiment_create, run_inputs_of
from .sweeps import sweep_aggregate, sweep_policy_params

__all__ = ["bundle_import", "experiment_bundle_zip", "sweep_bundle_zip"]

PROFILE = "https://w3id.org/ro/wfrun/process/0.5"
CONTEXT = "https://w3id.org/ro/crate/1.1/context"
#: The crate's @context: RO-Crate 1.1's, extended with the checksum key every File carries.
CRATE_CONTEXT = [CONTEXT, {"sha256": "http://schema.org/sha256"}]
ENGINE_ID = "#gridportal-sim"  # the instrument's fragment under GRIDPORTAL_PROJECT_URL
MAX_BUNDLE_BYTES = 256 * 1024 * 1024
#: user policies a bundle may carry (cluster-sim names at most 12 policies)
MAX_BUNDLE_POLICIES = 12
_DATE = (2020, 1, 1, 0, 0, 0)


def engine_version() -> str:
    return engine.engine_version()


def engine_id() -> str:
    """The engine's @id: an absolute URI (Process Run Crate 0.5), under the project's URL."""
    return settings.GRIDPORTAL_PROJECT_URL + ENGINE_ID


def _safe_id(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in str(text))[:80]


def _instant(when) -> str:
    """An instant as Process Run Crate 0.5 writes it: UTC, milliseconds, ``+00:00``."""
    return timezone.localtime(when, dt.UTC).isoformat(timespec="milliseconds")


def _person(user) -> dict[str, Any]:
    """A portal user as a Person: the full name, else the user name (the part before any
    ``@``: a user name may be an e-mail address, which a published crate must not carry)."""
    name = (user.get_full_name() or "").strip() or user.get_username().split("@", 1)[0]
    return {"@id": f"#user-{user.pk}", "@type": "Person", "name": name or f"user {user.pk}"}


def _single(value: Any) -> Any:
    """RO-Crate 1.1 (appendix JSON-LD): a property with one value is written as the value."""
    return value[0] if isinstance(value, list) and len(value) == 1 else value


class _Crate:
    """Collects files and JSON-LD entities, then writes the zip."""

    def __init__(self, name: str, description: str) -> None:
        self.files: dict[str, bytes] = {}
        self.entities: list[dict[str, Any]] = []
        self.parts: list[dict[str, str]] = []
        self.people: dict[str, dict[str, Any]] = {}
        self.name, self.description = name, description

    def person(self, user) -> dict[str, str]:
        """A reference to ``user`` as a Person, added to the crate once."""
        entity = _person(user)
        self.people.setdefault(entity["@id"], entity)
        return {"@id": entity["@id"]}

    def add(self, path: str, data: bytes | str, *, fmt: str, about: str = "") -> dict:
        body = data.encode() if isinstance(data, str) else data
        self.files[path] = body
        entity = {
            "@id": path,
            "@type": "File",
            "name": about or path.rsplit("/", 1)[-1],
            "encodingFormat": fmt,
            "contentSize": str(len(body)),
            "sha256": hashlib.sha256(body).hexdigest(),
        }
        self.entities.append(entity)
        self.parts.append({"@id": path})
        return {"@id": path}

    def add_result(self, prefix: str, result: dict[str, Any]) -> list[dict]:
        """A Result computed here (a sweep's aggregate): its JSON, CSVs and SVGs."""
        return self.add_files(result_files(result, prefix))

    def add_stored_result(self, prefix: str, experiment: Experiment) -> list[dict]:
        """A run's stored Result, read tolerantly and rendered under the limits
        (:mod:`gridportal.experiments.results`)."""
        return self.add_files(stored_result_files(experiment, prefix))

    def add_files(self, files: list[tuple[str, bytes, str, str]]) -> list[dict]:
        return [self.add(path, body, fmt=fmt, about=about) for path, body, fmt, about in files]

    def zip(self, mentions: list[dict], conforms: bool = True) -> bytes:
        project = settings.GRIDPORTAL_PROJECT_URL
        licence = settings.GRIDPORTAL_DATA_LICENSE
        root = {
            "@id": "./",
            "@type": "Dataset",
            "name": self.name,
            "description": self.description,
            "datePublished": timezone.now().date().isoformat(),
            "license": {"@id": licence},
            "author": {"@id": project},
            "publisher": {"@id": project},
            "hasPart": self.parts,
            "mentions": mentions,
        }
        if conforms:
            root["conformsTo"] = {"@id": PROFILE}
        graph = [
            {
                "@id": "ro-crate-metadata.json",
                "@type": "CreativeWork",
                "conformsTo": {"@id": "https://w3id.org/ro/crate/1.1"},
                "about": {"@id": "./"},
            },
            root,
            {"@id": PROFILE, "@type": "CreativeWork", "name": "Process Run Crate",
             "version": "0.5"},
            {
                "@id": engine_id(),
                "@type": "SoftwareApplication",
                "name": "gridportal-sim (GridPortal's engine, python -m scheduler)",
                "version": engine_version(),
                "url": project,
                "softwareRequirements": f"Python {platform.python_version()}",
            },
            {"@id": licence, "@type": "CreativeWork", "name": settings.GRIDPORTAL_DATA_LICENSE_NAME,
             "description": "The licence of this crate's data: the inputs, parameters and "
                            "results of the runs."},
            {"@id": project, "@type": "Organization", "name": "GridPortal",
             "url": project},
            *self.people.values(),
            *self.entities,
        ]  # fmt: skip
        graph = [{key: _single(value) for key, value in e.items()} for e in graph]
        meta = json.dumps({"@context": CRATE_CONTEXT, "@graph": graph}, indent=1, sort_keys=True)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for path, body in [("ro-crate-metadata.json", meta.encode()), *self.files.items()]:
                zf.writestr(zipfile.ZipInfo(path, date_time=_DATE), body, zipfile.ZIP_DEFLATED)
        return buf.getvalue()


def _add_inputs(crate: _Crate, inputs) -> tuple[list[dict], dict[str, list[str]]]:
    objects: list[dict] = []
    names: dict[str, list[str]] = {"traces": [], "workflows": [], "policies": [], "topology": []}
    if inputs.slurm_sites:
        names["slurm_sites"] = []
    for k, trace in enumerate(inputs.traces):
        with trace.file.open("rb") as fh:
            path = f"inputs/trace-{k + 1}{'.swf.gz' if trace.file.name.endswith('.gz') else '.swf'}"
            objects.append(crate.add(path, fh.read(), fmt="text/plain", about=trace.name))
        names["traces"].append(path)
    for k, wf in enumerate(inputs.workflows):
        ext = {"dax": ".xml", "pegasus-yaml": ".yml"}.get(wf.format, ".json")
        with wf.file.open("rb") as fh:
            path = f"inputs/workflow-{k + 1}{ext}"
            objects.append(crate.add(path, fh.read(), fmt="application/octet-stream",
                                     about=wf.name))  # fmt: skip
        names["workflows"].append(path)
    for k, site in enumerate(inputs.slurm_sites):
        for path, body in _slurm_site_files(site, f"inputs/slurm-site-{k + 1}"):
            objects.append(crate.add(path, body, fmt="text/plain", about=site.name))
            names["slurm_sites"].append(path)
    for key, docs in (("policies", inputs.policies), ("topology", inputs.topologies)):
        for k, doc in enumerate(docs):
            path = f"inputs/{key}-{k + 1}.json"
            objects.append(
                crate.add(path, json.dumps(doc, indent=1, sort_keys=True), fmt="application/json")
            )
            names[key].append(path)
    return objects, names


def _slurm_site_files(site, folder: str) -> list[tuple[str, bytes | str]]:
    """A Slurm site's files as ``python -m scheduler run --slurm-site FOLDER`` reads them."""
    with site.file.open("rb") as fh:
        dump = fh.read()
    gz = ".gz" if dump[:2] == b"\x1f\x8b" else ""
    out: list[tuple[str, bytes | str]] = [
        (f"{folder}/dump.sacct{gz}", dump),
        (f"{folder}/slurm.conf", site.slurm_conf),
    ]
    out += [(f"{folder}/{name}", text) for name, text in
            (("assoc.txt", site.assoc), ("qos.txt", site.qos), ("sshare.txt", site.sshare))
            if text]  # fmt: skip
    return out


def _add_user_policies(crate: _Crate, owner, params: dict) -> tuple[list[dict], list[dict]]:
    """The source of each of the owner's uploaded policies the parameters name."""
    objects, listed = [], []
    for ref, row in owned_policies(owner=owner, params=params).items():
        path = f"inputs/policy-{row.sha256[:12]}.py"
        objects.append(crate.add(path, row.source, fmt="text/x-python", about=row.name))
        listed.append({"policy": ref, "name": row.name, "class": row.class_name,
                       "sha256": row.sha256, "file": path})  # fmt: skip
    return objects, listed


def _action(
    crate: _Crate, exp: Experiment, objects: list[dict], results: list[dict], prefix: str
) -> list:
    params = [
        {"@id": f"#{prefix}-param-{_safe_id(k)}", "@type": "PropertyValue", "name": k,
         "value": json.dumps(v) if not isinstance(v, str) else v}
        for k, v in sorted(exp.params.items())
    ] + [{"@id": f"#{prefix}-param-seed", "@type": "PropertyValue", "name": "seed",
          "value": str(exp.seed)}]  # fmt: skip
    action = {
        "@id": f"#{prefix}",
        "@type": "CreateAction",
        "name": f"GridPortal run {exp.pk}: {exp.kind}" + (f" ({exp.name})" if exp.name else ""),
        "description": (
            f"A run of the experiment kind {exp.kind!r} by gridportal-sim with seed {exp.seed}: "
            "its objects are the input files and one PropertyValue per parameter, its results "
            "the files the run wrote."
        ),
        "instrument": {"@id": engine_id()},
        "agent": crate.person(exp.owner),
        "object": objects + [{"@id": p["@id"]} for p in params],
        "result": results,
        "actionStatus": "http://schema.org/CompletedActionStatus",
    }
    if exp.provenance is not None:  # not run by this portal: say so, and where it came from
        action["description"] = computed_elsewhere_text(exp.provenance)
    # the run's own instants (an uploaded job array's come from its accounting)
    if exp.started_at:
        action["startTime"] = _instant(exp.started_at)
    if exp.finished_at:
        action["endTime"] = _instant(exp.finished_at)
    return [action, *params]


def experiment_bundle_zip(*, experiment: Experiment) -> bytes:
    """The run as a Process Run Crate zip (see the module docstring)."""
    if experiment.status != Experiment.Status.SUCCEEDED or stored_size(experiment.pk) is None:
        raise ValidationError({"detail": [f"no result to bundle: the run is {experiment.status}"]})
    crate = _Crate(
        f"GridPortal run {experiment.pk} ({experiment.kind})",
        "A simulation run of GridPortal: inputs, parameters, seed, engine version and result. "
        "Re-run it with: python -m scheduler run KIND --params (run.json's params) --seed SEED "
        "--trace inputs/… --out result.json",
    )
    inputs = run_inputs_of(experiment)
    objects, names = _add_inputs(crate, inputs)
    own, user_policies = _add_user_policies(crate, experiment.owner, experiment.params)
    objects += own
    run = {
        "format": "gridportal-run-bundle",
        "version": 1,
        "kind": experiment.kind,
        "params": experiment.params,
        "seed": experiment.seed,
        "name": experiment.name,
        "inputs": names,
        "engine_version": engine_version(),
        "computed_elsewhere": experiment.provenance is not None,
    }
    if experiment.provenance is not None:
        run["provenance"] = experiment.provenance
    if user_policies:
        run["user_policies"] = user_policies
    crate.add("run.json", json.dumps(run, indent=1, sort_keys=True) + "\n",
              fmt="application/json", about="kind, parameters, seed, inputs")  # fmt: skip
    results = crate.add_stored_result("result", experiment)
    entities = _action(crate, experiment, objects, results, f"run-{experiment.pk}")
    crate.entities.extend(entities)
    return crate.zip([{"@id": entities[0]["@id"]}])


def sweep_bundle_zip(*, sweep: Sweep) -> bytes:
    """The sweep: inputs once, each finished run's result, the aggregate."""
    crate = _Crate(
        f"GridPortal sweep {sweep.pk} ({sweep.kind})",
        "A parameter sweep of GridPortal: fixed parameters, varied values, seeds, every run's "
        "result and the aggregate (mean, standard deviation, n per point).",
    )
    objects, names = _add_inputs(crate, run_inputs_of(sweep))
    own, user_policies = _add_user_policies(crate, sweep.owner, sweep_policy_params(sweep))
    objects += own
    rows = list(
        sweep.points.select_related("experiment", "experiment__owner")
        .defer("experiment__result")
        .order_by("index", "repetition")
    )
    doc = {
        "format": "gridportal-sweep-bundle",
        "version": 1,
        "kind": sweep.kind,
        "params": sweep.params,
        "vary": sweep.vary,
        "seed": sweep.seed,
        "repetitions": sweep.repetitions,
        "inputs": names,
        "runs": [
            {"id": r.experiment_id, "point": r.point, "repetition": r.repetition,
             "seed": r.experiment.seed, "status": r.experiment.status,
             "computed_elsewhere": r.experiment.provenance is not None}
            for r in rows
        ],
        "engine_version": engine_version(),
        **({"user_policies": user_policies} if user_policies else {}),
    }  # fmt: skip
    crate.add("sweep.json", json.dumps(doc, indent=1, sort_keys=True) + "\n",
              fmt="application/json")  # fmt: skip
    mentions = []
    seen: set[int] = set()
    for r in rows:
        exp = r.experiment
        if exp.pk in seen or exp.status != Experiment.Status.SUCCEEDED:
            continue
        if stored_size(exp.pk) is None:
            continue
        seen.add(exp.pk)
        results = crate.add_stored_result(f"runs/{exp.pk}", exp)
        entities = _action(crate, exp, objects, results, f"run-{exp.pk}")
        crate.entities.extend(entities)
        mentions.append({"@id": entities[0]["@id"]})
    crate.add_result("result", sweep_aggregate(sweep))
    return crate.zip(mentions)


# --- import ---------------------------------------------------------------------------------

RUN_JSON = "run.json"
RESULT_JSON = "result/result.json"
CRATE_JSON = "ro-crate-metadata.json"
_INPUT_KEYS = ("traces", "workflows", "policies", "topology", "slurm_sites")
#: a Slurm site's members by their name in its folder (``inputs/slurm-site-K/``)
_SITE_ROLES = {"dump.sacct": "dump", "dump.sacct.gz": "dump", "slurm.conf": "slurm_conf",
               "assoc.txt": "assoc", "qos.txt": "qos", "sshare.txt": "sshare"}  # fmt: skip


def _member(archive: CheckedArchive, name: str) -> Any:
    """A JSON member, bounded and checked (GRIDPORTAL_MAX_RESULT_BYTES)."""
    if name not in archive.by_name:
        raise refuse(f"the bundle has no {name}")
    body = archive.read(name, max_bytes=settings.GRIDPORTAL_MAX_RESULT_BYTES,
                        cap_name="GRIDPORTAL_MAX_RESULT_BYTES")  # fmt: skip
    return load_json(body, name=name)


def _field(path: str, value: Any, kind: type | tuple, what: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise refuse(f"{RUN_JSON}: {path}: must be {what}")
    return value


def _run_fields(run: Any, archive: CheckedArchive) -> dict[str, Any]:
    """run.json's fields, typed (strings were checked storable by load_json)."""
    if not isinstance(run, dict) or run.get("format") != "gridportal-run-bundle":
        raise refuse(f"{RUN_JSON} is not a GridPortal run bundle")
    inputs = _field("inputs", run.get("inputs", {}), dict, "an object")
    names: dict[str, list[str]] = {}
    for key in _INPUT_KEYS:
        value = inputs.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise refuse(f"{RUN_JSON}: inputs.{key} must be a list of names")
        for v in value:
            if v not in archive.by_name:
                raise refuse(f"{RUN_JSON} names {v[:80]!r}, which is not in the zip")
        names[key] = value
    return {
        "kind": _field("kind", run.get("kind"), str, "a string (an experiment kind)")[:100],
        "params": _field("params", run.get("params", {}), dict, "an object"),
        "seed": _field("seed", run.get("seed", 0), int, "an integer"),
        "name": _field("name", run.get("name") or "", str, "a string"),
        "engine_version": _field(
            "engine_version", run.get("engine_version") or "?", str, "a string"
        ),  # fmt: skip
        "inputs": names,
        "user_policies": _user_policy_fields(run.get("user_policies", []), archive),
    }


def _user_policy_fields(listed: Any, archive: CheckedArchive) -> list[dict[str, str]]:
    """run.json's ``user_policies``: each names its reference, class, sha256 and file, and
    the reference is the hash's prefix (a bundle cannot pass one file off as another)."""
    if not isinstance(listed, list):
        raise refuse(f"{RUN_JSON}: user_policies must be a list")
    out = []
    for i, item in enumerate(listed[: MAX_BUNDLE_POLICIES + 1]):
        where = f"user_policies[{i}]"
        if i == MAX_BUNDLE_POLICIES:
            raise refuse(f"{RUN_JSON}: more than {MAX_BUNDLE_POLICIES} user_policies")
        item = _field(where, item, dict, "an object")
        got = {k: _field(f"{where}.{k}", item.get(k), str, "a string")
               for k in ("policy", "class", "sha256", "file")}  # fmt: skip
        if not re.fullmatch(r"[0-9a-f]{64}", got["sha256"]) or (
            got["policy"] != f"user:{got['sha256'][:12]}"
        ):
            raise refuse(f"{RUN_JSON}: {where}: policy must be user:<the first 12 hex digits "
                         "of its sha256>")  # fmt: skip
        if got["file"] not in archive.by_name:
            raise refuse(f"{RUN_JSON} names {got['file'][:80]!r}, which is not in the zip")
        got["name"] = str(item.get("name") or got["class"])[:180]
        out.append(got)
    return out


def _verify_crate(archive: CheckedArchive, reads: list[str]) -> None:
    """Every file entity of ro-crate-metadata.json that has a sha256 matches its member, and
    every file the import reads (``reads``) has one: a bundle without its crate, or whose crate
    leaves out a file's checksum, cannot be verified and is refused naming what is missing (the
    portal's bundles carry a sha256 for each of their files)."""
    if CRATE_JSON not in archive.by_name:
        raise refuse(
            f"the bundle has no {CRATE_JSON}, the manifest whose sha256 checks each file: it "
            "cannot be verified (export the run again from its portal)"
        )
    crate = _member(archive, CRATE_JSON)
    graph = crate.get("@graph") if isinstance(crate, dict) else None
    if not isinstance(graph, list):
        raise refuse(f"{CRATE_JSON}: @graph: must be a list of entities")
    checked: set[str] = set()
    for entity in graph:
        if not isinstance(entity, dict) or "sha256" not in entity:
            continue
        path, want = entity.get("@id"), entity["sha256"]
        if not isinstance(path, str) or not isinstance(want, str):
            raise refuse(f"{CRATE_JSON}: an entity's @id and sha256 must be strings")
        if path not in archive.by_name:
            raise refuse(f"{path[:80]!r} has a sha256 in {CRATE_JSON} but is not in the zip")
        if archive.copy_to(path, _Discard()) != want.lower():
            raise refuse(f"{path}: its sha256 is not the one {CRATE_JSON} gives (the file was "
                         "changed or damaged)")  # fmt: skip
        checked.add(path)
    unchecked = [path for path in reads if path not in checked]
    if unchecked:
        raise refuse(f"{unchecked[0][:80]}: {CRATE_JSON} gives no sha256 for it, so it cannot "
                     "be verified")  # fmt: skip


class _Discard:
    def write(self, data: bytes) -> int:
        return len(data)


def _read_bundle(data: Any, label: str, outdir: str) -> dict[str, Any]:
    """(In a limited child) check the bundle whole, without touching the database: the zip,
    the crate's checksums, run.json, the result and the JSON inputs.  Input files are copied
    to ``outdir``, the checked result written there; only names, paths and small documents go
    back to the web process."""
    archive = open_archive(data, label=label)
    run = _run_fields(_member(archive, RUN_JSON), archive)
    result = _member(archive, RESULT_JSON)
    if not isinstance(result, dict) or result.get("kind") != run["kind"]:
        raise refuse(f"{RESULT_JSON} does not belong to {RUN_JSON}")
    check_result(result, name=RESULT_JSON)
    sources = [p["file"] for p in run["user_policies"]]
    _verify_crate(
        archive, [RUN_JSON, RESULT_JSON, *itertools.chain(*run["inputs"].values()), *sources]
    )
    files: dict[str, list[tuple[str, str, str]]] = {"traces": [], "workflows": []}
    for key in files:
        for k, name in enumerate(run["inputs"][key]):
            path = os.path.join(outdir, f"{key}-{k}")
            with open(path, "wb") as out:
                sha = archive.copy_to(name, out)
            files[key].append((path, name.rsplit("/", 1)[-1], sha))
    files["slurm_sites"] = _site_members(archive, run["inputs"]["slurm_sites"], outdir)
    docs = {key: [_member(archive, name) for name in run["inputs"][key]]
            for key in ("policies", "topology")}  # fmt: skip
    for k, policy in enumerate(run["user_policies"]):
        policy["path"] = os.path.join(outdir, f"policy-{k}.py")
        with open(policy["path"], "wb") as out:
            if archive.copy_to(policy["file"], out) != policy["sha256"]:
                raise refuse(f"{policy['file']}: its sha256 is not the one {RUN_JSON} names")
    result_path = os.path.join(outdir, "result.json")
    with open(result_path, "w", encoding="utf-8") as out:
        json.dump(result, out)
    meta = {"kind": result["kind"], "seed": result["seed"], "params": result["params"]}
    return {"run": run, "files": files, "docs": docs, "result": result_path, "meta": meta}


def _site_members(archive: CheckedArchive, names: list[str], outdir: str) -> list[dict]:
    """Each Slurm site's files (grouped by folder), copied to ``outdir``: role -> (path, name)."""
    sites: dict[str, dict] = {}
    for name in names:
        folder, _, base = name.rpartition("/")
        role = _SITE_ROLES.get(base)
        if role is None:
            raise refuse(f"{RUN_JSON}: inputs.slurm_sites: {name[:80]!r} is not one of a Slurm "
                         f"site's files ({', '.join(_SITE_ROLES)})")  # fmt: skip
        path = os.path.join(outdir, f"slurm-site-{len(sites)}-{role}")
        with open(path, "wb") as out:
            archive.copy_to(name, out)
        sites.setdefault(folder, {})[role] = (path, base)
    for folder, site in sites.items():
        missing = [r for r in ("dump", "slurm_conf") if r not in site]
        if missing:
            raise refuse(f"{RUN_JSON}: inputs.slurm_sites: {folder} has no {missing[0]}")
    return list(sites.values())


def bundle_import(*, owner, data: bytes | IO[bytes]) -> tuple[Experiment, Experiment]:
    """Import a run bundle: (the bundle's run, with its result; the queued re-run).

    The bundle is read and checked whole in a limited child (:func:`_read_bundle`); then the
    inputs, the re-run and the run are saved in one transaction, and the input files written
    by this import are removed again if anything fails: all or nothing."""
    from gridportal.inputs.services import upload_limited

    label = (getattr(data, "name", "") or "bundle.zip").rsplit("/", 1)[-1][:100]
    outdir = tempfile.mkdtemp(prefix="gridportal-bundle-")
    try:
        plan = upload_limited(_read_bundle, data, label, outdir, what=f"{label}: reading it")
        return _bundle_store(owner, plan)
    finally:
        shutil.rmtree(outdir, ignore_errors=True)


def _stored_site(owner, files: dict, written: list):
    """The importer's own copy of a bundle's Slurm site: an identical one they have, else new
    (read by the engine as an upload is)."""
    from gridportal.inputs.models import SlurmSite
    from gridportal.inputs.slurm_sites import slurm_site_create, slurm_site_sha256

    def text(role: str) -> str:
        if role not in files:
            return ""
        with open(files[role][0], "rb") as fh:
            return fh.read().decode("utf-8", errors="replace")

    with open(files["dump"][0], "rb") as fh:
        dump_sha = hashlib.sha256(fh.read()).hexdigest()
    sha = slurm_site_sha256(
        dump_sha, {r: text(r) for r in ("slurm_conf", "assoc", "qos", "sshare")}
    )
    same = SlurmSite.objects.filter(owner=owner, sha256=sha).first()
    if same is not None:
        return same
    opened = {role: open(path, "rb") for role, (path, _) in files.items()}  # noqa: SIM115
    try:
        row = slurm_site_create(
            owner=owner, name="Slurm site (bundle)",
            **{role: File(fh, name=files[role][1]) for role, fh in opened.items()},
        )  # fmt: skip
    finally:
        for fh in opened.values():
            fh.close()
    written.append((row.file.storage, row.file.name))
    return row


def _bundle_store(owner, plan: dict[str, Any]) -> tuple[Experiment, Experiment]:
    from gridportal.inputs.models import Trace, Workflow
    from gridportal.inputs.services import trace_create, workflow_create

    run = plan["run"]
    written: list = []  # files this import wrote: removed if it fails

    def stored(model, create, path: str, filename: str, sha: str):
        """The importer's own copy of an input file: an identical one they have, else new."""
        same = model.objects.filter(owner=owner, sha256=sha).first()
        if same is not None:
            return same
        with open(path, "rb") as fh:
            row = create(owner=owner, name=f"{filename} (bundle)", upload=File(fh, name=filename))
        written.append((row.file.storage, row.file.name))
        return row

    created = []  # the user policies this import added: removed if it fails
    try:
        for policy in run["user_policies"]:
            row, new = _stored_policy(owner, policy)
            if new:
                created.append(row)
        with transaction.atomic():
            traces = [stored(Trace, trace_create, *f) for f in plan["files"]["traces"]]
            workflows = [stored(Workflow, workflow_create, *f) for f in plan["files"]["workflows"]]
            sites = [_stored_site(owner, files, written) for files in plan["files"]["slurm_sites"]]
            rerun = experiment_create(
                owner=owner, kind=run["kind"], params=run["params"], traces=traces,
                workflows=workflows, slurm_sites=sites, policies=plan["docs"]["policies"],
                topologies=plan["docs"]["topology"], seed=run["seed"],
                name=f"re-run of bundle ({run['name'] or run['kind']})"[:200],
            )  # fmt: skip
            why = result_params_match(
                plan["meta"], kind=rerun.kind, seed=rerun.seed, params=rerun.params
            )
            if why:
                raise refuse(f"{RESULT_JSON}: {why}")
            with open(plan["result"], encoding="utf-8") as fh:
                result = json.load(fh)  # checked in the child: bounded and storable
            original = Experiment.objects.create(
                owner=owner, kind=rerun.kind, params=rerun.params, seed=rerun.seed,
                snapshot=rerun.snapshot, fingerprint="",
                name=f"from bundle (engine {run['engine_version']})"[:200],
                status=Experiment.Status.SUCCEEDED, progress=1.0,
                message="imported from a bundle", result=result, finished_at=timezone.now(),
                provenance={"computed": "elsewhere", "via": "a run bundle",
                            "engine_version": run["engine_version"][:40]},
            )  # fmt: skip
            original.traces.set(traces)
            original.workflows.set(workflows)
            original.slurm_sites.set(sites)
    except BaseException:
        for storage, name in written:
            storage.delete(name)
        for row in created:
            row.delete()
        raise
    return original, rerun


def _stored_policy(owner, policy: dict[str, str]):  # type: ignore[no-untyped-def]
    """The importer's copy of a bundle's user policy (checked in the sandbox as any upload;
    the same file they uploaded before is that version) and whether it is new."""
    from gridportal.inputs.models import PolicyFile
    from gridportal.inputs.policyfiles import policy_file_create

    if PolicyFile.objects.filter(owner=owner, sha256=policy["sha256"]).exists():
        return PolicyFile.objects.get(owner=owner, sha256=policy["sha256"]), False
    with open(policy["path"], "rb") as fh:
        data = fh.read()
    try:
        row = policy_file_create(
            owner=owner, name=f"{policy['name']} (bundle)", class_name=policy["class"],
            filename=policy["file"].rsplit("/", 1)[-1], data=data,
        )  # fmt: skip
    except ValidationError as exc:
        raise refuse(f"{policy['file']}: " + "; ".join(exc.messages)) from None
    return row, True
