"""Upload fuzzing: more than 10,000 generated and mutated documents, 0 server errors, 0 half-saved.

SWF traces (plain and gzipped), Pegasus DAX, Pegasus 5 / WfFormat / native workflow JSON,
usage-policy documents and co-allocation topologies are mutated (bytes inserted, deleted and
replaced, fields swapped for random text or JSON values, truncation, gzip corruption, XML
DOCTYPEs and entities) and sent through the upload services (what a worker and the pages call),
the REST endpoints and the upload form. Every case must be either stored whole (exactly one row
and one file) or refused with a message under the field it concerns (``file``, ``policies``...),
naming the line or JSON path; the database rows and the files under MEDIA_ROOT are counted after
every case. Deterministic (``derandomize=True``): CI replays the same cases every time.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import textwrap

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from gridportal.inputs.models import Trace, Workflow
from gridportal.inputs.services import trace_create, workflow_create
from scheduler.coallocation.topology import TopologyError, load_topology, seed001_document
from scheduler.usage.scenarios import seed004_document
from scheduler.workflows import dumps_native, generate_layered
from tests.conftest import FULL, ROOT, examples
from tests.reliability.figures import record_figure

pytestmark = pytest.mark.django_db

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)
CASES: dict[str, int] = {}

SWF = (
    b"; Version: 2.2\n; MaxProcs: 64\n; UnixStartTime: 0\n"
    b"1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n"
    b"2 10 0 50 1 -1 -1 1 60 -1 1 2 1 1 1 1 -1 -1\n"
    b"3 20 3 70 8 -1 -1 8 90 -1 1 3 1 1 1 1 -1 -1\n"
)
DAX = b"""<?xml version="1.0" encoding="UTF-8"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="2.1" name="tiny">
  <job id="ID1" name="a" runtime="10"/>
  <job id="ID2" name="b" runtime="5"/>
  <child ref="ID2"><parent ref="ID1"/></child>
</adag>
"""
WFFORMAT = {
    "name": "mini",
    "schemaVersion": "1.5",
    "workflow": {
        "specification": {
            "tasks": [
                {"name": "a", "id": "a", "parents": [], "children": ["b"]},
                {"name": "b", "id": "b", "parents": ["a"], "children": []},
            ],
            "files": [],
        },
        "execution": {
            "tasks": [{"id": "a", "runtimeInSeconds": 10}, {"id": "b", "runtimeInSeconds": 5}]
        },
    },
}
NATIVE = json.loads(dumps_native(generate_layered(tasks=6, levels=3, seed=1)))
#: A Pegasus 5 workflow as its Python API writes it with ``_format="json"`` (the YAML's schema)
PEGASUS = {
    "pegasus": "5.0.4",
    "name": "mini",
    "jobs": [
        {"type": "job", "name": "a", "id": "ID1", "arguments": [],
         "uses": [{"lfn": "f", "type": "output", "size": 10}],
         "profiles": {"pegasus": {"runtime": "10", "cores": 2}}},
        {"type": "job", "name": "b", "id": "ID2", "arguments": [],
         "uses": [{"lfn": "f", "metadata": {"size": "10"}, "type": "input"}]},
    ],
    "jobDependencies": [{"id": "ID1", "children": ["ID2"]}],
}  # fmt: skip
XML_ATTACKS = [
    # entity expansion (billion laughs), external entities, a plain DOCTYPE
    b'<?xml version="1.0"?><!DOCTYPE adag [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;'
    b'&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]><adag name="&c;"></adag>',
    b'<?xml version="1.0"?><!DOCTYPE adag [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    b'<adag name="&x;"><job id="1" name="&x;" runtime="1"/></adag>',
    b'<?xml version="1.0"?><!DOCTYPE adag SYSTEM "http://example.invalid/x.dtd"><adag/>',
    b'<?xml version="1.0"?><!DOCTYPE adag [<!ENTITY % p SYSTEM "http://example.invalid/p">%p;]>'
    b"<adag/>",
]

# Strategies ---------------------------------------------------------------------------------

junk = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=20).map(str.encode),
    st.sampled_from(
        [b"-1", b"0", b"-5", b"1e309", b"nan", b"inf", b"99999999999999999999", b"\x00", b";",
         b"\n", b"\r\n", b" ", b"\xef\xbb\xbf", b"\xff\xfe", b"<", b"&", b'"', b"{", b"]"]
    ),
)  # fmt: skip


@st.composite
def mutated(draw, base: bytes) -> bytes:
    """``base`` with 1-4 random edits: insert, delete, replace, truncate, repeat a slice."""
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "truncate", "repeat"]))
        i = draw(st.integers(0, len(data)))
        j = draw(st.integers(i, min(len(data), i + 40)))
        if op == "insert":
            data[i:i] = draw(junk)
        elif op == "delete":
            del data[i:j]
        elif op == "replace":
            data[i:j] = draw(junk)
        elif op == "truncate":
            del data[i:]
        else:
            data[i:i] = bytes(data[i:j]) * draw(st.integers(1, 50))
    return bytes(data)


@st.composite
def swf_documents(draw) -> tuple[str, bytes]:
    content = draw(mutated(SWF))
    name = draw(st.sampled_from(["t.swf", "t.swf.gz", "trace", "../../x.swf", "a" * 300]))
    wrap = draw(st.sampled_from(["plain", "gzip", "gzip-corrupt", "gzip-truncated"]))
    if wrap != "plain":
        content = gzip.compress(content, mtime=0)
        if wrap == "gzip-corrupt":
            content = draw(mutated(content))
        elif wrap == "gzip-truncated":
            content = content[: draw(st.integers(0, len(content)))]
    return name, content


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


@st.composite
def mutated_json(draw, base) -> object:
    """``base`` with 1-3 values (anywhere in the tree) replaced, deleted or given extra keys."""
    doc = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            return draw(json_values)
        path = draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        op = draw(st.sampled_from(["replace", "delete", "add"]))
        if op == "delete":
            del parent[path[-1]]
        elif op == "add" and isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = draw(json_values)
        else:
            parent[path[-1]] = draw(json_values)
    return doc


@st.composite
def workflow_documents(draw) -> tuple[str, bytes]:
    which = draw(
        st.sampled_from(["dax", "dax-attack", "wfformat", "native", "json-bytes", "pegasus-json"])
    )
    if which == "dax":
        return "w.dax", draw(mutated(DAX))
    if which == "dax-attack":
        return "w.xml", draw(st.sampled_from(XML_ATTACKS))
    if which == "json-bytes":
        return "w.json", draw(mutated(json.dumps(WFFORMAT).encode()))
    base = {"wfformat": WFFORMAT, "native": NATIVE, "pegasus-json": PEGASUS}[which]
    return "w.json", json.dumps(draw(mutated_json(base)), allow_nan=True).encode()


# Invariants ----------------------------------------------------------------------------------


def files_under(root) -> int:
    return sum(1 for p in root.rglob("*") if p.is_file()) if root.exists() else 0


def check_refusal(errors: dict, field: str, filename: str = "") -> None:
    """A refusal says which field, and each message is a sentence (naming the file's line or
    JSON path when the file is the problem)."""
    assert errors and set(errors) <= {field, "name", "non_field_errors"}, errors
    for message in errors.get(field, []):
        assert isinstance(message, str) and message.strip(), errors
        if filename:
            assert message.startswith(filename[:255].rsplit("/", 1)[-1] + ":"), message


def settle(model, media_root, stored) -> None:
    """Exactly the stored object has a row and a file; then remove both for the next case."""
    rows, files = model.objects.count(), files_under(media_root)
    if stored is None:
        assert (rows, files) == (0, 0), "a refused upload left a row or a file"
        return
    assert (rows, files) == (1, 1), "a stored upload has not exactly one row and one file"
    stored.file.delete(save=False)
    stored.delete()


def count(name: str) -> None:
    CASES[name] = CASES.get(name, 0) + 1


# Service path (what the pages and the API call) -----------------------------------------------


@settings(FUZZ, max_examples=examples(3500, 0.5))
@given(doc=swf_documents())
def test_trace_service_fuzz(doc, alice, media_root):
    name, content = doc
    count("swf service")
    try:
        stored = trace_create(owner=alice, name="", upload=ContentFile(content, name=name))
    except ValidationError as exc:
        check_refusal(exc.message_dict, "file", name)
        stored = None
    settle(Trace, media_root, stored)


@settings(FUZZ, max_examples=examples(400, 0.5))
@given(line=st.integers(0, 2), field=st.integers(0, 17), value=st.sampled_from(
    [b"abc", b"-7", b"1.5.2", b"0x10", b"--1", b"\xff"]
))  # fmt: skip
def test_a_corrupt_job_line_is_named(line, field, value, alice, media_root):
    """Corrupting field ``field`` of job line ``line`` is refused naming that line."""
    count("swf line")
    lines = SWF.split(b"\n")
    job = 3 + line  # three header lines first
    parts = lines[job].split()
    parts[field] = value
    lines[job] = b" ".join(parts)
    try:
        trace_create(owner=alice, name="", upload=ContentFile(b"\n".join(lines), "t.swf"))
    except ValidationError as exc:
        assert f"line {job + 1}" in " ".join(exc.message_dict["file"]), exc.message_dict
    else:
        pytest.fail(f"accepted {value!r} in field {field + 1} of job line {job + 1}")
    settle(Trace, media_root, None)


@settings(FUZZ, max_examples=examples(2500, 0.5))
@given(doc=workflow_documents())
def test_workflow_service_fuzz(doc, alice, media_root):
    name, content = doc
    count("workflow service")
    try:
        stored = workflow_create(owner=alice, name="", upload=ContentFile(content, name=name))
    except ValidationError as exc:
        check_refusal(exc.message_dict, "file", name)
        stored = None
    if content in XML_ATTACKS:
        assert stored is None, "an XML document with a DOCTYPE was accepted"
    settle(Workflow, media_root, stored)


@settings(FUZZ, max_examples=examples(1000, 0.5))
@given(doc=mutated_json(seed001_document()))
def test_topology_fuzz(doc):
    count("topology engine")
    try:
        load_topology(doc)
    except TopologyError as exc:
        assert exc.errors and all(isinstance(k, str) and k for k in exc.errors), exc.errors


def test_dax_with_an_unknown_encoding_is_a_refusal_not_a_server_error(api, media_root):
    """Found by the fuzzer: expat raised LookupError for encoding="TF-8" (a 500)."""
    content = DAX.replace(b"UTF-8", b"TF-8")
    resp = api.post(
        "/api/workflows/", {"file": SimpleUploadedFile("w.dax", content)}, format="multipart"
    )
    assert resp.status_code == 400
    assert "unknown encoding" in resp.json()["file"][0]
    assert Workflow.objects.count() == 0 and files_under(media_root) == 0


# REST endpoints and the upload form --------------------------------------------------------


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


@settings(FUZZ, max_examples=examples(1200, 0.5))
@given(doc=swf_documents())
def test_trace_rest_fuzz(doc, api, media_root):
    name, content = doc
    count("swf REST")
    resp = api.post("/api/traces/", {"file": SimpleUploadedFile(name, content)}, format="multipart")
    assert resp.status_code in (201, 400), resp.content
    stored = None
    if resp.status_code == 400:
        check_refusal(resp.json(), "file", name)
    else:
        stored = Trace.objects.get(pk=resp.json()["id"])
    settle(Trace, media_root, stored)


@settings(FUZZ, max_examples=examples(800, 0.5))
@given(doc=workflow_documents())
def test_workflow_rest_fuzz(doc, api, media_root):
    name, content = doc
    count("workflow REST")
    resp = api.post(
        "/api/workflows/", {"file": SimpleUploadedFile(name, content)}, format="multipart"
    )
    assert resp.status_code in (201, 400), resp.content
    stored = None
    if resp.status_code == 400:
        check_refusal(resp.json(), "file", name)
    else:
        stored = Workflow.objects.get(pk=resp.json()["id"])
    settle(Workflow, media_root, stored)


@settings(FUZZ, max_examples=examples(300, 0.5))
@given(doc=swf_documents())
def test_trace_form_fuzz(doc, client, alice, media_root):
    name, content = doc
    count("swf form")
    client.force_login(alice)
    resp = client.post("/traces/", {"file": SimpleUploadedFile(name, content)})
    assert resp.status_code in (302, 400), resp.status_code
    stored = None
    if resp.status_code == 400:
        errors = resp.context["form"].errors
        check_refusal(dict(errors), "file", name)
    else:
        stored = Trace.objects.get()
    settle(Trace, media_root, stored)


@settings(FUZZ, max_examples=examples(800, 0.5))
@given(doc=st.one_of(mutated_json(seed004_document()), json_values))
def test_policy_document_rest_fuzz(doc, api):
    """Policy documents given with a run: a refusal names ``policies`` and the JSON path."""
    count("policy REST")
    document_with_a_run(api, "usage-policy", "policies", doc, {"policies", "params", "traces"})


@settings(FUZZ, max_examples=examples(400, 0.5))
@given(doc=st.one_of(mutated_json(seed001_document()), json_values))
def test_topology_document_rest_fuzz(doc, api):
    """Topology documents given with a run: a refusal names ``topology`` (and the JSON path
    in its message); nothing is saved."""
    count("topology REST")
    document_with_a_run(api, "coallocation", "topology", doc, {"topology", "params"})


def document_with_a_run(api, kind: str, field: str, doc, allowed: set[str]) -> None:
    """POST a run of ``kind`` with configuration document ``doc`` in ``field``: 201 saves one
    run, 400 names only ``allowed`` fields (or is a JSON parse error) and saves nothing."""
    from gridportal.experiments.models import Experiment

    before = Experiment.objects.count()
    body = json.dumps({"kind": kind, field: doc}, allow_nan=True)  # NaN too
    resp = api.post("/api/experiments/", body, content_type="application/json")
    assert resp.status_code in (201, 400), resp.content
    if resp.status_code == 400:
        errors = resp.json()
        if "detail" in errors:  # NaN / Infinity: not JSON at all
            assert errors["detail"].startswith("JSON parse error"), errors
        else:
            assert set(errors) <= allowed, errors
        assert Experiment.objects.count() == before
    else:
        assert Experiment.objects.count() == before + 1
        Experiment.objects.filter(pk=resp.json()["id"]).delete()


def test_zz_fuzz_case_count():
    """The totals (this module's tests run in file order): at least 10,000 cases."""
    total = sum(CASES.values())
    record_figure("fuzz_cases", dict(CASES, total=total))
    if len(CASES) == 9 and FULL:  # the whole module ran, every example (half otherwise)
        assert total >= 10_000, CASES


# Gzip bomb: peak memory -------------------------------------------------------------------

BOMB = textwrap.dedent(
    """
    import gzip, io, resource, sys
    from django.core.files.uploadedfile import SimpleUploadedFile
    import django
    django.setup()
    from django.conf import settings
    from django.core.exceptions import ValidationError
    from gridportal.inputs.services import trace_validate_file

    unit = {"zeros": b"\\0" * (1 << 20),
            "comments": (b"; " + b"x" * 98 + b"\\n") * 10486}[sys.argv[1]]
    member = gzip.compress(unit * (64 * (1 << 20) // len(unit)), compresslevel=9)
    bomb = member * 17  # 17 x 64 MiB: more than GRIDPORTAL_MAX_TRACE_BYTES (1 GiB)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        trace_validate_file(upload=SimpleUploadedFile("b.swf.gz", bomb), filename="b.swf.gz")
        print("accepted")
    except ValidationError as exc:
        print("refused", exc.message_dict["file"][0])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(len(bomb), settings.GRIDPORTAL_MAX_TRACE_BYTES, (peak - base) // 1024)
    """
)


def bomb_peak(kind: str) -> tuple[str, int, int]:
    out = subprocess.run(
        [sys.executable, "-c", BOMB, kind],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"DJANGO_SETTINGS_MODULE": "gridportal.settings", "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    verdict, sizes = out.stdout.strip().splitlines()
    compressed, _, extra_mib = map(int, sizes.split())
    return verdict, compressed, extra_mib


def test_gzip_bomb_of_zeros_is_refused_without_filling_memory():
    verdict, compressed, extra_mib = bomb_peak("zeros")
    record_figure(
        "gzip_bomb_zeros_1GiB", {"compressed_bytes": compressed, "peak_extra_MiB": extra_mib}
    )
    assert verdict.startswith("refused") and "b.swf.gz" in verdict
    assert extra_mib < 64, extra_mib


def test_gzip_bomb_of_comment_lines_is_refused_without_filling_memory():
    verdict, compressed, extra_mib = bomb_peak("comments")
    record_figure(
        "gzip_bomb_comments_1GiB", {"compressed_bytes": compressed, "peak_extra_MiB": extra_mib}
    )
    assert verdict.startswith("refused")
    assert extra_mib < 256, extra_mib
