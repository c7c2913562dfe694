"""Archive and incoming-result fuzzing: damaged zips and hostile result JSON sent to
both zip doors — run bundle import (``POST /api/experiments/import-bundle/``) and job-array
result upload (``POST /api/sweeps/{id}/upload-results/``).

Zip damage classes: bad CRC, hostile member names (absolute, ``..``, NUL, control characters,
backslashes, duplicates, over-long), broken deflate data, encrypted members, compression methods
other than stored/deflate, bombs (ratio, sizes that lie, too many members, too much in all) and
truncation.  Result classes: non-finite numbers (NaN, Infinity, 1e999), NUL characters and lone
surrogates in strings and keys, integers outside ±2**63, wrong shapes.  Every case must be a 400
under ``file`` (never a 500) with nothing saved: rows and files under MEDIA_ROOT are counted
before and after each case.  Deterministic (``derandomize=True``); the cases per class are
recorded (``fuzz_archive_cases``).
"""

from __future__ import annotations

import io
import json
import struct
import warnings
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_execute
from gridportal.inputs.models import Trace
from tests.reliability.figures import record_figure

from .factories import finished_experiment, stored_trace
from .test_bundles import _good_files, _rehashed
from .test_jobarray import _honest, _slurm_sweep

pytestmark = pytest.mark.django_db

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
CASES: dict[str, int] = {}
EXAMPLES = 60


def count(name: str) -> None:
    CASES[name] = CASES.get(name, 0) + 1


# Building damaged zips ---------------------------------------------------------------------


def build_zip(files: dict[str, bytes], stored: frozenset[str] = frozenset()) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are one of the damages
        with zipfile.ZipFile(buf, "w") as zf:
            for name, body in files.items():
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED
                zf.writestr(info, body)
    return buf.getvalue()


def _headers(data: bytes, name: bytes):
    """Offsets of the local and central headers of member ``name``."""
    local = central = None
    at = 0
    while (at := data.find(b"PK\x03\x04", at)) >= 0:
        n, e = struct.unpack_from("<HH", data, at + 26)
        if data[at + 30 : at + 30 + n] == name and local is None:
            local = at
        at += 4
    at = 0
    while (at := data.find(b"PK\x01\x02", at)) >= 0:
        n = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46 : at + 46 + n] == name and central is None:
            central = at
        at += 4
    assert local is not None and central is not None, name
    return local, central


def patch(data: bytes, name: str, *, local_off: int | None, central_off: int, fmt: str, value):
    out = bytearray(data)
    local, central = _headers(data, name.encode())
    if local_off is not None:
        struct.pack_into(fmt, out, local + local_off, value)
    struct.pack_into(fmt, out, central + central_off, value)
    return bytes(out)


def member_data_span(data: bytes, name: str) -> tuple[int, int]:
    local, central = _headers(data, name.encode())
    n, e = struct.unpack_from("<HH", data, local + 26)
    size = struct.unpack_from("<I", data, central + 20)[0]  # compressed size
    start = local + 30 + n + e
    return start, start + size


HOSTILE_NAMES = [
    "/etc/passwd", "../evil.txt", "results/../../x.json", "C:evil.json", "a\\b.json", "",
    "./run.json", "a//b.json", "bell\x07.json", "esc\x1b.json", "x" * 300, "del\x7f.json",
]  # fmt: skip
METHODS = [1, 6, 9, 12, 14, 93, 99]


@st.composite
def damaged(draw, files: dict[str, bytes], targets: list[str]) -> tuple[str, str, bytes]:
    """(class, target member, zip bytes) with one damage of a drawn class."""
    kind = draw(st.sampled_from(["crc", "names", "deflate", "encryption", "method", "bomb",
                                 "truncated"]))  # fmt: skip
    target = draw(st.sampled_from(targets))
    if kind == "crc":
        data = build_zip(files, stored=frozenset([target]))
        a, b = member_data_span(data, target)
        i = draw(st.integers(a, b - 1))
        out = bytearray(data)
        out[i] ^= draw(st.integers(1, 255))
        return kind, target, bytes(out)
    if kind == "deflate":
        data = build_zip(files)
        a, b = member_data_span(data, target)
        i = draw(st.integers(a, max(a, b - 8)))
        junk = draw(st.binary(min_size=8, max_size=8))
        out = bytearray(data)
        out[i : i + 8] = junk if junk != bytes(out[i : i + 8]) else bytes(x ^ 0xFF for x in junk)
        return kind, target, bytes(out[: len(data)])
    if kind == "names":
        how = draw(st.sampled_from(["hostile", "nul", "duplicate"]))
        if how == "duplicate":
            body = draw(st.sampled_from([files[target], b"{}"]))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Duplicate name": the damage itself
                buf = io.BytesIO()
                with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                    for name, content in files.items():
                        zf.writestr(name, content)
                    zf.writestr(target, body)
            return kind, target, buf.getvalue()
        if how == "nul":
            placeholder = target[:-1] + "\x01"
            renamed = {(placeholder if k == target else k): v for k, v in files.items()}
            data = build_zip(renamed)
            return kind, target, data.replace(placeholder.encode(), target[:-1].encode() + b"\0")
        bad = draw(st.sampled_from(HOSTILE_NAMES))
        return kind, target, build_zip({**files, bad: files[target]})
    if kind == "encryption":
        data = build_zip(files)
        flags = struct.unpack_from("<H", data, _headers(data, target.encode())[1] + 8)[0]
        return kind, target, patch(data, target, local_off=6, central_off=8, fmt="<H",
                                   value=flags | 0x1)  # fmt: skip
    if kind == "method":
        data = build_zip(files)
        method = draw(st.sampled_from(METHODS))
        return kind, target, patch(data, target, local_off=8, central_off=10, fmt="<H",
                                   value=method)  # fmt: skip
    if kind == "bomb":
        how = draw(st.sampled_from(["ratio", "size-lie", "total", "members"]))
        if how == "ratio":
            zeros = b"0" * draw(st.integers(2, 6)) * 2**20
            return kind, target, build_zip({**files, target: zeros})
        data = build_zip(files)
        if how == "size-lie":
            size = draw(st.sampled_from([2**32 - 1, 300 * 2**20, 2**31]))
            return kind, target, patch(data, target, local_off=22, central_off=24, fmt="<I",
                                       value=size)  # fmt: skip
        if how == "total":
            for name in list(files)[:3]:
                data = patch(data, name, local_off=None, central_off=24, fmt="<I",
                             value=200 * 2**20)  # fmt: skip
            return kind, target, data
        many = {f"logs/{k}.out": b"" for k in range(5001)}
        return kind, target, build_zip({**files, **many})
    data = build_zip(files)
    return kind, target, data[: draw(st.integers(0, len(data) - 1))]


# Hostile result JSON ------------------------------------------------------------------------

PLACE = "__HOSTILE__"
TOKENS = {
    "non-finite": ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1E400"],
    "huge-integer": [str(2**63), str(-(2**63)), str(10**30), "9" * 5000],
}
STRINGS = {
    "nul": ["a\x00b", "\x00"],
    "surrogate": ["\ud800", "x\udfff", "\udbff"],
}
WRONG_SHAPES = [
    ("summary", []), ("summary", "x"), ("tables", {}), ("tables", [1]),
    ("tables", [{"columns": [], "rows": "x"}]), ("tables", [{"columns": [], "rows": [1]}]),
    ("charts", {}), ("charts", [1]), ("charts", [{"type": "pie", "series": []}]),
    ("charts", [{"type": "line", "series": {}}]), ("charts", [{"type": "line", "series": [1]}]),
    ("charts", [{"type": "line", "series": [{"points": 3}]}]), ("params", "x"), ("params", []),
    ("seed", "1"), ("seed", True), ("seed", 1.5), ("kind", 5), ("summary", {"x": [1]}),
    ("summary", {"x": {"y": 1}}),
]  # fmt: skip


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


@st.composite
def hostile_result(draw, base: dict) -> tuple[str, bytes]:
    """(class, JSON bytes): ``base`` with one hostile value at a drawn place."""
    kind = draw(st.sampled_from(["non-finite", "huge-integer", "nul", "surrogate", "shape"]))
    doc = json.loads(json.dumps(base))
    if kind == "shape":
        key, value = draw(st.sampled_from(WRONG_SHAPES))
        doc[key] = value
        return kind, json.dumps(doc).encode()
    paths = [p for p in _paths(doc) if p and p[0] not in ("kind", "seed", "params")]
    path = draw(st.sampled_from(paths))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    as_key = kind in STRINGS and isinstance(parent, dict) and draw(st.booleans())
    value = draw(st.sampled_from(TOKENS.get(kind) or STRINGS[kind]))
    if as_key:
        parent[value] = parent.pop(path[-1])
        return kind, json.dumps(doc).encode()
    parent[path[-1]] = PLACE if kind in TOKENS else value
    text = json.dumps(doc)
    if kind in TOKENS:
        text = text.replace(json.dumps(PLACE), value)
    return kind, text.encode()


# The doors ----------------------------------------------------------------------------------


def files_under(root) -> int:
    return sum(1 for p in root.rglob("*") if p.is_file()) if root.exists() else 0


def post(client: APIClient, url: str, data: bytes, name: str):
    up = io.BytesIO(data)
    up.name = name
    return client.post(url, {"file": up}, format="multipart")


def assert_refused(resp, state_before, state_now, *, names: str | None = None) -> None:
    assert resp.status_code == 400, (resp.status_code, resp.content[:500])
    errors = resp.json()
    assert set(errors) == {"file"} and all(isinstance(m, str) and m for m in errors["file"])
    if names is not None:
        assert names in errors["file"][0] or repr(names[:80]) in errors["file"][0], errors
    assert state_now == state_before, "a refused upload left a row or a file"


@pytest.fixture
def bundle_door(alice, bob, media_root):
    trace = stored_trace(alice, jobs=60)
    exp = finished_experiment(alice, trace, procs=64)
    client = APIClient()
    client.force_authenticate(alice)
    data = client.get(f"/api/experiments/{exp.pk}/bundle/").content
    importer = APIClient()
    importer.force_authenticate(bob)

    def state():
        return (Experiment.objects.count(), Trace.objects.count(), files_under(media_root))

    return importer, _good_files(data), state


@pytest.fixture
def jobarray_door(alice, media_root, monkeypatch, django_capture_on_commit_callbacks):
    client = APIClient()
    client.force_authenticate(alice)
    trace = stored_trace(alice, jobs=60)
    sweep = _slurm_sweep(client, trace, monkeypatch, django_capture_on_commit_callbacks)
    runs = list(sweep.runs.order_by("id"))
    experiment_execute(experiment_id=runs[0].pk)  # a real result to damage
    runs[0].refresh_from_db()
    honest = {r.pk: _honest(sweep, r)["provenance"] for r in runs[1:3]}  # as run-chunk.py writes
    base = {**runs[0].result, "params": runs[1].params, "seed": runs[1].seed,
            "provenance": honest[runs[1].pk]}  # fmt: skip
    files = {
        f"results/{runs[1].pk}.json": json.dumps(base).encode(),
        f"results/{runs[2].pk}.json": json.dumps(
            {
                **base,
                "params": runs[2].params,
                "seed": runs[2].seed,
                "provenance": honest[runs[2].pk],
            }
        ).encode(),  # fmt: skip
        "logs/task-0.out": b"done\n",
    }

    def state():
        return (
            sweep.runs.filter(status="succeeded").count(),
            sweep.runs.filter(provenance__isnull=False).count(),  # staged for their re-run
            Experiment.objects.count(),
            files_under(media_root),
        )

    return client, f"/api/sweeps/{sweep.pk}/upload-results/", files, base, state, runs[1]


# Zip damage at both doors -------------------------------------------------------------------


@settings(FUZZ, max_examples=EXAMPLES * 2)
@given(data=st.data())
def test_damaged_bundles_are_refused_with_nothing_saved(data, bundle_door):
    client, files, state = bundle_door
    targets = [n for n in files if not n.endswith(".svg")]
    kind, target, body = data.draw(damaged(files, targets))
    count(f"bundle zip: {kind}")
    before = state()
    resp = post(client, "/api/experiments/import-bundle/", body, "bundle.zip")
    named = target if kind in ("crc", "deflate", "encryption", "method") else None
    assert_refused(resp, before, state(), names=named)


@settings(FUZZ, max_examples=EXAMPLES * 2)
@given(data=st.data())
def test_damaged_result_zips_are_refused_with_nothing_saved(data, jobarray_door):
    client, url, files, _, state, _ = jobarray_door
    results = [n for n in files if n.startswith("results/")]
    kind, target, body = data.draw(damaged(files, results))
    count(f"job-array zip: {kind}")
    before = state()
    resp = post(client, url, body, "results.zip")
    named = target if kind in ("crc", "deflate", "encryption", "method") else None
    assert_refused(resp, before, state(), names=named)


# Hostile results at both doors --------------------------------------------------------------


@settings(FUZZ, max_examples=EXAMPLES * 2)
@given(data=st.data())
def test_hostile_uploaded_results_are_refused_naming_the_file(data, jobarray_door):
    client, url, _, base, state, run = jobarray_door
    kind, body = data.draw(hostile_result(base))
    count(f"job-array result: {kind}")
    before = state()
    resp = post(client, url, body, f"{run.pk}.json")
    assert_refused(resp, before, state(), names=f"{run.pk}.json")


@settings(FUZZ, max_examples=EXAMPLES)
@given(data=st.data())
def test_hostile_bundle_results_are_refused_naming_the_file(data, bundle_door):
    client, files, state = bundle_door
    base = json.loads(files["result/result.json"])
    kind, body = data.draw(hostile_result(base))
    if kind == "shape" and b'"kind": 5' in body:
        kind = "shape (kind)"
    count(f"bundle result: {kind}")
    before = state()
    damaged_files = _rehashed({**files, "result/result.json": body})
    resp = post(client, "/api/experiments/import-bundle/", build_zip(damaged_files), "b.zip")
    assert_refused(resp, before, state(), names="result/result.json")


@settings(FUZZ, max_examples=EXAMPLES)
@given(data=st.data())
def test_hostile_run_json_is_refused_naming_the_field(data, bundle_door):
    client, files, state = bundle_door
    run = json.loads(files["run.json"])
    field, value = data.draw(
        st.sampled_from(
            [("params", "x"), ("params", [1]), ("seed", "7"), ("seed", 1.5), ("kind", 3),
             ("name", 5), ("inputs", "x"), ("kind", "a\x00b"), ("name", "\ud800"),
             ("engine_version", ["x"])]
        )
    )  # fmt: skip
    count("bundle run.json")
    before = state()
    body = json.dumps({**run, field: value}).encode()
    resp = post(client, "/api/experiments/import-bundle/",
                build_zip(_rehashed({**files, "run.json": body})), "b.zip")  # fmt: skip
    assert_refused(resp, before, state(), names="run.json")
    assert field in resp.json()["file"][0]


def test_zz_archive_case_count():
    """The totals of this module (its tests run in file order)."""
    total = sum(CASES.values())
    record_figure("fuzz_archive_cases", dict(CASES, total=total))
    if len({k.split(":")[0] for k in CASES}) == 5:  # the whole module ran
        assert total >= 6 * EXAMPLES, CASES
