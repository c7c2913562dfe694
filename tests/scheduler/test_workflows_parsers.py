"""Workflow readers: the shared real files, DAX 2.x/3.x, WfFormat 1.4–1.6, native JSON, and
every malformed case giving a WorkflowError that names the place."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest

from scheduler.io import INPUT_LOADERS, load_input
from scheduler.workflows import (
    Edge,
    Task,
    Workflow,
    WorkflowError,
    dumps_native,
    generate_layered,
    load_workflow,
    summarize,
    to_native,
    with_virtual_endpoints,
    write_native,
)
from tests.conftest import SHARED_DATA, require

ROOT = Path(__file__).resolve().parents[2]
SHARED_WORKFLOWS = SHARED_DATA / "workflows"

# From shared/data/workflows/README.md: tasks, edges, levels, roots, sinks, Σ runtime (s)
REAL = {
    "Montage_25.xml": (25, 45, 9, 5, 1, 227.75),
    "Montage_100.xml": (100, 233, 9, 16, 1, 1079.34),
    "Montage_1000.xml": (1000, 2485, 9, 166, 1, 11378.69),
    "CyberShake_30.xml": (30, 52, 4, 2, 2, 760.53),
    "CyberShake_100.xml": (100, 180, 4, 8, 2, 3215.75),
    "Epigenomics_24.xml": (24, 27, 8, 1, 1, 17720.15),
    "Epigenomics_100.xml": (100, 122, 8, 1, 1, 403400.2),
    "Inspiral_30.xml": (30, 35, 6, 7, 1, 6617.07),
    "montage-chameleon-2mass-01d-001.json": (103, 231, 8, 21, 4, 362.63),
    "seismology-chameleon-100p-001.json": (101, 100, 2, 100, 1, 71.89),
    "epigenomics-chameleon-hep-1seq-100k-001.json": (41, 48, 9, 1, 1, 539.31),
    "1000genome-chameleon-2ch-100k-001.json": (52, 76, 3, 22, 28, 2771.29),
    "blast-chameleon-small-001.json": (43, 120, 3, 1, 2, 382.91),
}


def shared_file(name: str) -> Path:
    if not SHARED_WORKFLOWS.is_dir():
        require(False, f"shared workflow files not found at {SHARED_WORKFLOWS}")
    path = SHARED_WORKFLOWS / name
    if not path.is_file():
        require(False, f"shared workflow file {name} not found in {SHARED_WORKFLOWS}")
    return path


def errors_of(data: bytes | str, **kwargs) -> list[tuple[str, str]]:
    if isinstance(data, str):
        data = data.encode()
    with pytest.raises(WorkflowError) as info:
        load_workflow(data, **kwargs)
    return info.value.errors


def the_error(data: bytes | str, **kwargs) -> tuple[str, str]:
    errors = errors_of(data, **kwargs)
    assert len(errors) == 1, errors
    return errors[0]


# ------------------------------------------------------------------------------------------
# the real files of ../shared/data/workflows
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REAL))
def test_shared_file_counts(name):
    tasks, edges, levels, roots, sinks, runtime = REAL[name]
    w = load_workflow(shared_file(name))
    s = summarize(w)
    assert (s["tasks"], s["edges"], s["levels"]) == (tasks, edges, levels)
    assert (s["roots"], s["sinks"]) == (roots, sinks)
    assert s["total_runtime"] == pytest.approx(runtime, abs=0.01)
    assert s["max_processors"] == 1  # none of these files gives processor counts above 1
    assert s["average_parallelism"] == pytest.approx(s["total_runtime"] / s["critical_path"])


def test_shared_dax_details():
    w = load_workflow(shared_file("Montage_25.xml"))
    assert w.name == "Montage_25"
    first = w.task("ID00000")
    assert (first.runtime, first.processors, first.module) == (13.39, 1, "mProjectPP")
    # edge data: files ID00000 writes that its child mDiffFit reads (both projection outputs)
    child = next(c for c in w.children("ID00000") if w.task(c).module == "mDiffFit")
    assert w.edge("ID00000", child).data == 4167312 * 2
    counts = {}
    for t in w.tasks:
        counts[t.module] = counts.get(t.module, 0) + 1
    assert counts == {
        "mProjectPP": 5,
        "mDiffFit": 9,
        "mConcatFit": 1,
        "mBgModel": 1,
        "mBackground": 5,
        "mImgTbl": 1,
        "mAdd": 1,
        "mShrink": 1,
        "mJPEG": 1,
    }


def test_shared_wfformat_details():
    path = shared_file("blast-chameleon-small-001.json")
    w = load_workflow(path)
    assert w.name == "makeflow-blast-small"
    split = w.task("split_fasta_ID000001")
    assert split.runtime == pytest.approx(0.054023) and split.module == "split_fasta"
    assert len(w.children("split_fasta_ID000001")) == 40
    # WfFormat 1.6 changes nothing this reader uses
    doc = json.loads(path.read_bytes())
    doc["schemaVersion"] = "1.6"
    w16 = load_workflow(json.dumps(doc).encode())
    assert summarize(w16)["edges"] == 120 and w16.tasks == w.tasks


def test_input_loader_registered():
    assert INPUT_LOADERS["workflow"] is load_workflow
    w = load_input("workflow", str(shared_file("Inspiral_30.xml")))
    assert len(w.tasks) == 30


# ------------------------------------------------------------------------------------------
# Pegasus DAX 2.x and 3.x
# ------------------------------------------------------------------------------------------

DAX2 = """<?xml version="1.0" encoding="UTF-8"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="2.1" name="tiny">
  <job id="a" name="split" runtime="10.5">
    <uses file="in" link="input" size="7"/>
    <uses file="f1" link="output" size="100"/>
    <uses file="f2" link="output" size="50"/>
  </job>
  <job id="b" name="work" runtime="20">
    <uses file="f1" link="input" size="100"/>
    <uses file="f3" link="input" size="1"/>
  </job>
  <job id="c" name="work" runtime="0"/>
  <child ref="b">
    <parent ref="a"/>
    <parent ref="a"/>
  </child>
  <child ref="c"><parent ref="a"/></child>
</adag>
"""

DAX3 = """<?xml version="1.0" encoding="UTF-8"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="3.6" name="three">
  <file name="f1"><pfn url="file:///f1" site="local"/></file>
  <executable name="mpi"/>
  <job id="p" namespace="x" name="pre">
    <argument>-v</argument>
    <profile namespace="pegasus" key="runtime">42</profile>
    <uses name="f1" link="output" size="2048"/>
  </job>
  <job id="q" name="mpi" runtime="300">
    <profile namespace="pegasus" key="cores">16</profile>
    <uses name="f1" link="input"/>
  </job>
  <job id="r" name="post" runtime="1">
    <profile namespace="globus" key="count">4</profile>
  </job>
  <child ref="q"><parent ref="p"/></child>
  <child ref="r"><parent ref="q"/></child>
</adag>
"""


def test_dax2_runtime_files_and_edges():
    w = load_workflow(DAX2.encode(), name="upload.dax")
    assert w.name == "upload"
    assert [t.runtime for t in w.tasks] == [10.5, 20.0, 0.0]
    # a → b: f1 only (f2 is not read by b; f3 not written by a); the repeated parent is one edge
    assert w.edges == (Edge("a", "b", 100), Edge("a", "c", 0))
    assert w.task("b").module == "work"


def test_dax3_profiles_and_name_attribute():
    w = load_workflow(DAX3.encode())
    assert w.name == "three"
    assert w.task("p").runtime == 42 and w.task("p").processors == 1
    assert w.task("q").processors == 16 and w.task("r").processors == 4
    assert w.edge("p", "q").data == 2048
    assert summarize(w)["levels"] == 3


def test_dax_negative_runtime_and_size_read_as_zero_and_unknown_naming_the_job():
    """Classic traces carry negative runtimes and sizes (Epigenomics_997.xml: -1.03 s): each is
    read as 0 s or an unknown size, and the notes name the job."""
    text = DAX2.replace('runtime="20"', 'runtime="-1.03"').replace(
        '<uses file="f1" link="output" size="100"/>', '<uses file="f1" link="output" size="-9"/>'
    )
    w = load_workflow(text.encode())
    assert w.task("b").runtime == 0.0
    assert w.edge("a", "b").data == 100  # the parent's size is unknown: the child's 100 bytes
    assert w.notes == (
        "negative runtime read as 0 s (a measurement artefact of the trace) for 1 of 3 jobs: "
        "b (-1.03 s)",
        "negative file size read as unknown (the size the other job gives, else 0 bytes) for "
        "1 file use: a f1 (-9 bytes)",
        "default of 1 processor (no pegasus cores or globus count profile) for all 3 jobs",
    )
    assert load_workflow(DAX2.encode()).notes == w.notes[2:]  # nothing else assumed


def test_dax_missing_runtime_is_an_error_unless_defaulted():
    text = DAX2.replace(' runtime="20"', "")
    where, reason = the_error(text)
    assert where == "line 8" and "job 'b' has no runtime" in reason
    w = load_workflow(text.encode(), default_runtime=60)
    assert w.task("b").runtime == 60
    assert (
        "default runtime of 60 s (no runtime attribute or pegasus runtime profile) for 1 of 3 "
        "jobs: b"
    ) in w.notes


@pytest.mark.parametrize(
    ("old", "new", "where", "reason"),
    [
        ('runtime="20"', 'runtime="fast"', "line 8", "not a number"),
        (
            '<parent ref="a"/>\n  </child>',
            '<parent ref="zz"/>\n  </child>',
            "line 15",
            "<parent ref='zz'> names no job",
        ),
        ('<child ref="c">', '<child ref="nope">', "line 17", "<child ref='nope'> names no job"),
        ('<job id="c"', '<job id="a"', "line 12", "duplicate job id 'a'"),
        ('size="50"', 'size="-inf"', "line 6", "must be bytes >= 0"),
        ('runtime="20"', 'runtime="nan"', "line 8", "must be finite"),
        ("</adag>", "</adog>", "line 18", "not well-formed XML: mismatched tag"),
        ('version="2.1"', 'version="5.0"', "line 2", "DAX version '5.0' is not supported"),
        (
            '<job id="c" name="work" runtime="0"/>',
            "<dax id='c' file='sub.dax'/>",
            "line 12",
            "sub-workflows are not supported",
        ),
    ],
)
def test_dax_errors_name_the_line(old, new, where, reason):
    assert old in DAX2
    errors = errors_of(DAX2.replace(old, new, 1))
    assert any(w == where and reason in r for w, r in errors), errors


def test_dax_cycle_names_the_job_line():
    text = DAX2.replace("</adag>", '<child ref="a"><parent ref="b"/></child>\n</adag>')
    where, reason = the_error(text)
    assert where == "line 3 (job 'a')"
    assert "dependency cycle: 'a' -> 'b' -> 'a'" in reason


def test_dax_root_must_be_adag():
    where, reason = the_error(b"<?xml version='1.0'?>\n<workflow/>")
    assert where == "line 2" and "not a Pegasus DAX" in reason
    where, reason = the_error(b"<adag version='2.1'></adag>")
    assert where == "<adag>" and "no <job> elements" in reason


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE adag [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<adag version="2.1"><job id="&lol9;" runtime="1"/></adag>
"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE adag [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<adag version="2.1"><job id="a" name="&xxe;" runtime="1"/></adag>
"""

EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE adag SYSTEM "http://example.invalid/dax.dtd">
<adag version="2.1"><job id="a" runtime="1"/></adag>
"""


@pytest.mark.parametrize("text", [BILLION_LAUGHS, EXTERNAL_ENTITY, EXTERNAL_DTD])
def test_xml_bombs_entities_and_dtds_refused(text):
    where, reason = the_error(text)
    assert where == "line 2"
    assert "document type declarations" in reason and "refused" in reason


# ------------------------------------------------------------------------------------------
# WfFormat 1.4 / 1.5
# ------------------------------------------------------------------------------------------


def wf15() -> dict:
    return {
        "name": "mini",
        "schemaVersion": "1.5",
        "workflow": {
            "specification": {
                "tasks": [
                    {
                        "name": "a",
                        "id": "a",
                        "parents": [],
                        "children": ["b"],
                        "inputFiles": [],
                        "outputFiles": ["x", "y"],
                    },
                    {
                        "name": "b",
                        "id": "b",
                        "parents": ["a"],
                        "children": [],
                        "inputFiles": ["x", "z"],
                        "outputFiles": [],
                    },
                    {
                        "name": "c",
                        "id": "c",
                        "parents": ["a"],
                        "children": [],
                        "inputFiles": ["y"],
                        "outputFiles": [],
                    },
                ],
                "files": [
                    {"id": "x", "sizeInBytes": 1000},
                    {"id": "y", "sizeInBytes": 5},
                    {"id": "z", "sizeInBytes": 7},
                ],
            },
            "execution": {
                "makespanInSeconds": 10,
                "executedAt": "2020-01-01T00:00:00Z",
                "tasks": [
                    {"id": "a", "runtimeInSeconds": 1.5, "command": {"program": "split"}},
                    {"id": "b", "runtimeInSeconds": 2, "coreCount": 4},
                    {"id": "c", "runtimeInSeconds": 3, "coreCount": 1.5},
                ],
            },
        },
    }


def load_doc(doc: dict, **kwargs) -> Workflow:
    return load_workflow(json.dumps(doc).encode(), **kwargs)


def doc_errors(doc: dict, **kwargs) -> list[tuple[str, str]]:
    return errors_of(json.dumps(doc, indent=1), **kwargs)


def test_wfformat_15_mapping():
    w = load_doc(wf15())
    assert w.name == "mini"
    assert [(t.id, t.runtime, t.processors) for t in w.tasks] == [
        ("a", 1.5, 1),
        ("b", 2.0, 4),
        ("c", 3.0, 2),  # 1.5 cores → 2 processors
    ]
    assert w.task("a").module == "split"
    # parents and children lists are merged into distinct pairs; data = files a→b: x only
    assert w.edges == (Edge("a", "b", 1000), Edge("a", "c", 5))


def test_wfformat_14_layout():
    doc = {
        "name": "old",
        "schemaVersion": "1.4",
        "workflow": {
            "makespanInSeconds": 1,
            "executedAt": "2020",
            "tasks": [
                {
                    "name": "first",
                    "id": "ID1",
                    "type": "compute",
                    "runtimeInSeconds": 4,
                    "cores": 2,
                    "parents": [],
                    "files": [{"link": "output", "name": "o", "sizeInBytes": 64}],
                },
                {
                    "name": "second",
                    "type": "compute",
                    "runtimeInSeconds": 6,
                    "parents": ["first"],
                    "files": [{"link": "input", "name": "o", "sizeInBytes": 64}],
                },
                {"name": "third", "runtimeInSeconds": 1, "parents": ["ID1"]},
            ],
        },
    }
    w = load_doc(doc)
    assert [t.id for t in w.tasks] == ["first", "second", "third"]
    assert w.task("first").processors == 2
    assert w.edges == (Edge("first", "second", 64), Edge("first", "third", 0))


def test_wfformat_errors_name_the_json_path():
    doc = wf15()
    doc["workflow"]["execution"]["tasks"][1]["runtimeInSeconds"] = -2
    doc["workflow"]["specification"]["tasks"][2]["parents"] = ["a", "ghost"]
    doc["workflow"]["execution"]["tasks"][0]["coreCount"] = 0
    errors = dict(doc_errors(doc))
    assert "must be >= 0" in errors["$.workflow.execution.tasks[1].runtimeInSeconds"]
    assert "names no task: 'ghost'" in errors["$.workflow.specification.tasks[2].parents[1]"]
    assert "must be >= 1" in errors["$.workflow.execution.tasks[0].coreCount"]


def test_wfformat_cycle_and_missing_runtime():
    doc = wf15()
    doc["workflow"]["specification"]["tasks"][0]["parents"] = ["b"]
    where, reason = the_error(json.dumps(doc))
    assert where == "$.workflow.specification.tasks[0] (task 'a')" and "cycle" in reason
    doc = wf15()
    del doc["workflow"]["execution"]
    errors = doc_errors(doc)
    assert errors[0][0] == "$.workflow.specification.tasks[0]"
    assert "no runtimeInSeconds" in errors[0][1]
    assert load_doc(doc, default_runtime=1).task("b").runtime == 1


@pytest.mark.parametrize(
    ("mutate", "where", "reason"),
    [
        (lambda d: d.update(schemaVersion="1.2"), "$.schemaVersion", "'1.2' is not supported"),
        (
            lambda d: d["workflow"].pop("specification"),
            "$.workflow",
            "missing required key 'specification'",
        ),
        (
            lambda d: d["workflow"]["specification"].update(tasks={}),
            "$.workflow.specification.tasks",
            "must be a JSON array",
        ),
        (
            lambda d: d["workflow"]["specification"]["tasks"][1].update(id=7),
            "$.workflow.specification.tasks[1].id",
            "must be a non-empty string",
        ),
        (
            lambda d: d["workflow"]["specification"]["files"][0].update(sizeInBytes="big"),
            "$.workflow.specification.files[0].sizeInBytes",
            "must be a number of bytes",
        ),
    ],
)
def test_wrong_wfformat_schema(mutate, where, reason):
    doc = copy.deepcopy(wf15())
    mutate(doc)
    errors = doc_errors(doc)
    assert any(w == where and reason in r for w, r in errors), errors


# ------------------------------------------------------------------------------------------
# native JSON
# ------------------------------------------------------------------------------------------


def native(**extra) -> dict:
    doc = {
        "format": "gridportal-workflow",
        "version": 1,
        "name": "n",
        "tasks": [
            {"id": "a", "runtime": 10, "processors": 2, "runtimes": {"ctc": 8, "sdsc": 12}},
            {"id": "b", "runtime": 5.5, "name": "bee", "module": "m"},
        ],
        "edges": [{"parent": "a", "child": "b", "data": 1024}],
    }
    doc.update(extra)
    return doc


def test_native_reads_every_field():
    w = load_doc(native())
    a, b = w.tasks
    assert (a.processors, a.runtime_on("sdsc"), a.mean_runtime) == (2, 12, 10)
    assert (b.processors, b.name, b.module, b.runtime) == (1, "bee", "m", 5.5)
    assert w.edges == (Edge("a", "b", 1024),)


def test_native_round_trip(tmp_path):
    for w in (
        load_doc(native()),
        generate_layered(60, 6, mean_data=1e6, seed=3),
        with_virtual_endpoints(generate_layered(20, 4, seed=1)),
        load_workflow(shared_file("CyberShake_30.xml")),
    ):
        again = load_workflow(dumps_native(w).encode())
        assert again == w
        assert to_native(again) == to_native(w)
        path = tmp_path / "w.json"
        write_native(w, path)
        assert load_workflow(path) == w
        buf = io.StringIO()
        write_native(w, buf)
        assert buf.getvalue() == path.read_text()


@pytest.mark.parametrize(
    ("doc", "where", "reason"),
    [
        (native(version=2), "$.version", "must be 1"),
        (native(format="other"), "$.format", "unknown format 'other'"),
        (native(extra=1), "$.extra", "unknown key"),
        (native(tasks=[]), "$.tasks", "no tasks"),
        (
            native(tasks=[{"id": "a", "runtime": "long"}], edges=[]),
            "$.tasks[0].runtime",
            "must be a number",
        ),
        (
            native(tasks=[{"id": "a", "runtime": -1}], edges=[]),
            "$.tasks[0].runtime",
            "must be >= 0",
        ),
        (
            native(tasks=[{"id": "a", "runtime": 1, "processors": 0}], edges=[]),
            "$.tasks[0].processors",
            "must be >= 1",
        ),
        (
            native(tasks=[{"id": "a", "runtime": 1, "runtimes": {"x": -1}}], edges=[]),
            "$.tasks[0].runtimes.x",
            "must be >= 0",
        ),
        (
            native(tasks=[{"id": "a", "runtime": 1}, {"id": "a", "runtime": 1}], edges=[]),
            "$.tasks[1].id",
            "duplicate task id 'a'",
        ),
        (native(edges=[{"parent": "a", "child": "zz"}]), "$.edges[0].child", "names no task: 'zz'"),
        (
            native(edges=[{"parent": "a", "child": "b", "data": -1}]),
            "$.edges[0].data",
            "must be >= 0",
        ),
        (
            native(edges=[{"parent": "a", "child": "b"}, {"parent": "a", "child": "b"}]),
            "$.edges[1]",
            "duplicate edge",
        ),
        (
            native(edges=[{"parent": "a", "child": "b"}, {"parent": "b", "child": "a"}]),
            "$.tasks[0] (task 'a')",
            "dependency cycle: 'a' -> 'b' -> 'a'",
        ),
    ],
)
def test_native_errors_name_the_json_path(doc, where, reason):
    errors = doc_errors(doc)
    assert any(w == where and reason in r for w, r in errors), errors


# ------------------------------------------------------------------------------------------
# not a workflow at all, truncated, limits
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "where", "reason"),
    [
        (b"hello world", "line 1", "neither XML (Pegasus DAX), Pegasus 5 YAML"),
        (b"", "file", "empty"),
        (b"\x1f\x8b\x08\x00rest", "file", "gzip-compressed"),
        (b"[1, 2]", "$", "must be an object"),
        (b'{"tasks": []}', "$", "neither a Pegasus 5 workflow"),
        (
            b'{"name": "x",\n "schemaVersion": "1.5",\n "workflow": {"specification',
            "line 3 column 15",
            "invalid JSON",
        ),
        (b'{"a": "\xff"}', "line 1", "UTF-8"),
    ],
)
def test_not_a_workflow(data, where, reason):
    got_where, got_reason = the_error(data)
    assert got_where == where and reason in got_reason, (got_where, got_reason)


def test_truncated_native_json():
    text = dumps_native(generate_layered(30, 3, seed=2))
    cut = text[: len(text) // 2]
    where, reason = the_error(cut)
    assert where.startswith("line ") and "column" in where and "invalid JSON" in reason


def test_size_limits():
    text = dumps_native(generate_layered(30, 3, seed=2)).encode()
    assert the_error(text, max_bytes=100) == ("file", "larger than the limit of 100 bytes")
    where, reason = the_error(text, max_tasks=10)
    assert where == "$.tasks" and "more than 10 tasks" in reason
    where, reason = the_error(text, max_edges=5)
    assert where == "$.edges" and "more than 5 edges" in reason
    where, reason = the_error(DAX2, max_tasks=2)
    assert where == "line 12" and "more than 2 jobs" in reason
    where, reason = the_error(DAX2, max_edges=1)
    assert where == "line 15" and "more than 1 dependencies" in reason
    doc = wf15()
    where, reason = the_error(json.dumps(doc), max_tasks=2)
    assert where == "$.workflow.specification.tasks" and "limit of 2" in reason


def test_unreadable_path(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(WorkflowError) as info:
        load_workflow(missing)
    assert info.value.errors[0][0] == str(missing) and "cannot read" in info.value.errors[0][1]


def test_sources_path_bytes_and_file_objects(tmp_path):
    w = Workflow((Task("a", 1),), ())
    text = dumps_native(w)
    path = tmp_path / "one.json"
    path.write_text(text)
    assert load_workflow(path) == load_workflow(str(path)) == w
    assert load_workflow(io.BytesIO(text.encode())) == w
    with path.open("rb") as fh:
        assert load_workflow(fh) == w


def test_dax_with_an_unknown_encoding_names_line_1():
    data = b'<?xml version="1.0" encoding="TF-8"?><adag><job id="a" runtime="1"/></adag>'
    with pytest.raises(WorkflowError) as err:
        load_workflow(data, name="bad.xml")
    assert "line 1" in str(err.value) and "encoding" in str(err.value)
