"""Run bundles: a run or a sweep as a zip a reviewer can cite, and import into another portal.

The zip is a Workflow Run RO-Crate of the **Process Run Crate** profile
(https://w3id.org/ro/wfrun/process/0.5, RO-Crate 1.1): one ``CreateAction`` per run whose
``instrument`` is the engine (``gridportal-sim``, with its version), whose ``object`` lists the
input files and one ``PropertyValue`` per parameter (and the seed), and whose ``result`` lists
the outputs::

    ro-crate-metadata.json      the crate (JSON-LD)
    run.json                    kind, parameters, seed, snapshot documents, engine version
    inputs/trace-1.swf …        the traces and workflows exactly as stored (sha256 in the crate)
    inputs/policies-1.json …    configuration documents copied into the run
    result/result.json          the Result (summary, tables, charts)
    result/summary.csv, result/table-<id>.csv, result/chart-<id>.csv
    result/chart-<id>.svg       each chart drawn (SVG: the portal has no server-side PNG
                                renderer; the result page downloads PNGs)

A sweep bundle holds the sweep (``sweep.json``: fixed parameters, varied values, seeds), its
inputs once, every run's result under ``runs/<id>/`` and the aggregate under ``result/``.

:func:`bundle_import` takes a run bundle back (hostile input: bounded zip, names, JSON), stores
its inputs as the importing user's own, records the bundle's result as a finished run and
queues a re-run with the same kind, parameters, seed and inputs — the two can then be compared
side by side.  Everything is saved or nothing.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
import re
import zipfile
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from scheduler import engine

from .jobarray import check_result
from .models import Experiment, Sweep
from .results import result_files, stored_result_files, stored_size
from .services import experiment_create, run_inputs_of
from .sweeps import sweep_aggregate

__all__ = ["bundle_import", "experiment_bundle_zip", "sweep_bundle_zip"]

PROFILE = "https://w3id.org/ro/wfrun/process/0.5"
CONTEXT = "https://w3id.org/ro/crate/1.1/context"
MAX_BUNDLE_BYTES = 256 * 1024 * 1024
MAX_MEMBERS = 2000
MAX_RATIO = 200
_SAFE = re.compile(r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$")
_DATE = (2020, 1, 1, 0, 0, 0)


def engine_version() -> str:
    return engine.engine_version()


def _safe_id(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in str(text))[:80]


class _Crate:
    """Collects files and JSON-LD entities, then writes the zip."""

    def __init__(self, name: str, description: str) -> None:
        self.files: dict[str, bytes] = {}
        self.entities: list[dict[str, Any]] = []
        self.parts: list[dict[str, str]] = []
        self.name, self.description = name, description

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
        root = {
            "@id": "./",
            "@type": "Dataset",
            "name": self.name,
            "description": self.description,
            "datePublished": timezone.now().date().isoformat(),
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
                "@id": "#gridportal-sim",
                "@type": "SoftwareApplication",
                "name": "gridportal-sim (GridPortal's engine, python -m scheduler)",
                "version": engine_version(),
                "softwareRequirements": f"Python {platform.python_version()}",
            },
            *self.entities,
        ]  # fmt: skip
        meta = json.dumps({"@context": CONTEXT, "@graph": graph}, indent=1, sort_keys=True)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for path, body in [("ro-crate-metadata.json", meta.encode()), *self.files.items()]:
                zf.writestr(zipfile.ZipInfo(path, date_time=_DATE), body, zipfile.ZIP_DEFLATED)
        return buf.getvalue()


def _add_inputs(crate: _Crate, inputs) -> tuple[list[dict], dict[str, list[str]]]:
    objects: list[dict] = []
    names: dict[str, list[str]] = {"traces": [], "workflows": [], "policies": [], "topology": []}
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
    for key, docs in (("policies", inputs.policies), ("topology", inputs.topologies)):
        for k, doc in enumerate(docs):
            path = f"inputs/{key}-{k + 1}.json"
            objects.append(
                crate.add(path, json.dumps(doc, indent=1, sort_keys=True), fmt="application/json")
            )
            names[key].append(path)
    return objects, names


def _action(exp: Experiment, objects: list[dict], results: list[dict], prefix: str) -> list:
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
        "instrument": {"@id": "#gridportal-sim"},
        "object": objects + [{"@id": p["@id"]} for p in params],
        "result": results,
        "actionStatus": "http://schema.org/CompletedActionStatus",
    }
    if exp.started_at:
        action["startTime"] = exp.started_at.isoformat()
    if exp.finished_at:
        action["endTime"] = exp.finished_at.isoformat()
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
    run = {
        "format": "gridportal-run-bundle",
        "version": 1,
        "kind": experiment.kind,
        "params": experiment.params,
        "seed": experiment.seed,
        "name": experiment.name,
        "inputs": names,
        "engine_version": engine_version(),
    }
    crate.add("run.json", json.dumps(run, indent=1, sort_keys=True) + "\n",
              fmt="application/json", about="kind, parameters, seed, inputs")  # fmt: skip
    results = crate.add_stored_result("result", experiment)
    entities = _action(experiment, objects, results, f"run-{experiment.pk}")
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
    rows = list(
        sweep.points.select_related("experiment")
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
             "seed": r.experiment.seed, "status": r.experiment.status}
            for r in rows
        ],
        "engine_version": engine_version(),
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
        entities = _action(exp, objects, results, f"run-{exp.pk}")
        crate.entities.extend(entities)
        mentions.append({"@id": entities[0]["@id"]})
    crate.add_result("result", sweep_aggregate(sweep))
    return crate.zip(mentions)


# --- import ---------------------------------------------------------------------------------


def _open_bundle(data: bytes) -> dict[str, bytes]:
    if len(data) > MAX_BUNDLE_BYTES:
        raise ValidationError({"file": [f"larger than {MAX_BUNDLE_BYTES:,} bytes"]})
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in zf.infolist() if not m.is_dir()]
    except zipfile.BadZipFile as exc:
        raise ValidationError({"file": [f"not a zip file ({exc})"]}) from None
    if len(members) > MAX_MEMBERS:
        raise ValidationError({"file": [f"{len(members)} files in the zip (max {MAX_MEMBERS})"]})
    total = sum(m.file_size for m in members)
    if total > MAX_BUNDLE_BYTES or total > MAX_RATIO * max(len(data), 1) + 1_000_000:
        raise ValidationError({"file": ["the zip unpacks to too much data"]})
    out: dict[str, bytes] = {}
    for m in members:
        if not _SAFE.match(m.filename) or ".." in m.filename.split("/"):
            raise ValidationError({"file": [f"unsafe file name in the zip: {m.filename[:80]!r}"]})
        with zf.open(m) as fh:
            body = fh.read(MAX_BUNDLE_BYTES + 1)
        if len(body) > m.file_size:
            raise ValidationError({"file": [f"{m.filename}: larger than its zip header says"]})
        out[m.filename] = body
    return out


def _json_member(files: dict[str, bytes], name: str) -> Any:
    if name not in files:
        raise ValidationError({"file": [f"the bundle has no {name}"]})
    try:
        return json.loads(files[name].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValidationError({"file": [f"{name}: not valid JSON ({exc})"]}) from None


def bundle_import(*, owner, data: bytes) -> tuple[Experiment, Experiment]:
    """Import a run bundle: (the bundle's run, with its result; the queued re-run)."""
    from gridportal.inputs.models import Trace, Workflow
    from gridportal.inputs.services import trace_create, workflow_create

    files = _open_bundle(data)
    run = _json_member(files, "run.json")
    if not isinstance(run, dict) or run.get("format") != "gridportal-run-bundle":
        raise ValidationError({"file": ["run.json is not a GridPortal run bundle"]})
    result = _json_member(files, "result/result.json")
    if not isinstance(result, dict) or result.get("kind") != run.get("kind"):
        raise ValidationError({"file": ["result/result.json does not belong to run.json"]})
    names = run.get("inputs")
    if not isinstance(names, dict):
        raise ValidationError({"file": ["run.json: 'inputs' must be an object"]})

    def listed(key: str) -> list[str]:
        value = names.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValidationError({"file": [f"run.json: inputs.{key} must be a list of names"]})
        for v in value:
            if v not in files:
                raise ValidationError({"file": [f"run.json names {v!r}, which is not in the zip"]})
        return value

    def stored(model, create, path: str):
        """The importer's own copy of an input file: an identical one they have, else new."""
        body = files[path]
        same = model.objects.filter(owner=owner, sha256=hashlib.sha256(body).hexdigest()).first()
        filename = path.rsplit("/", 1)[-1]
        return same or create(
            owner=owner, name=f"{filename} (bundle)", upload=ContentFile(body, name=filename)
        )

    with transaction.atomic():
        traces = [stored(Trace, trace_create, p) for p in listed("traces")]
        workflows = [stored(Workflow, workflow_create, p) for p in listed("workflows")]
        policies = [_json_member(files, p) for p in listed("policies")]
        topologies = [_json_member(files, p) for p in listed("topology")]
        seed = run.get("seed", 0)
        rerun = experiment_create(
            owner=owner, kind=str(run.get("kind")), params=run.get("params"),
            traces=traces, workflows=workflows, policies=policies, topologies=topologies,
            seed=seed if isinstance(seed, int) else -1,
            name=f"re-run of bundle ({run.get('name') or run.get('kind')})"[:200],
        )  # fmt: skip
        original = Experiment.objects.create(
            owner=owner, kind=rerun.kind, params=rerun.params, seed=rerun.seed,
            snapshot=rerun.snapshot, fingerprint="",
            name=f"from bundle (engine {run.get('engine_version', '?')})"[:200],
            status=Experiment.Status.SUCCEEDED, progress=1.0, message="imported from a bundle",
            result=check_result("result/result.json", result, rerun), finished_at=timezone.now(),
        )  # fmt: skip
        original.traces.set(traces)
        original.workflows.set(workflows)
    return original, rerun
