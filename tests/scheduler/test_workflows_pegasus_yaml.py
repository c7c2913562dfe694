# ruff: noqa: E501  (YAML documents are kept as written)
"""Pegasus 5 YAML abstract workflows: read in any key order; refusals name the path.

Fixtures are written here after the shape of Pegasus 5's schema ``wf-5.0.yml`` and its
``diamond`` example (jobs with ``uses``, ``jobDependencies``, an inline transformation catalog,
profiles and hooks).
"""

from __future__ import annotations

import pytest

from scheduler.workflows import WorkflowError, load_workflow, summarize
from scheduler.workflows.loader import detect_format
from scheduler.workflows.pegasus_yaml import DEFAULT_RUNTIME

DIAMOND = b"""\
x-pegasus: {createdBy: tester, apiLang: python}
jobDependencies:
  - id: ID4
    parents: [ID2, ID3]
  - id: ID1
    children: [ID2, ID3]
hooks:
  shell:
    - {_on: error, cmd: /bin/true}
name: diamond
pegasus: "5.0"
profiles: {env: {JAVA_HOME: /opt/java}}
transformationCatalog:
  transformations:
    - namespace: diamond
      name: findrange
      sites:
        - {name: condorpool, type: installed, pfn: /bin/findrange,
           profiles: {pegasus: {runtime: "30"}}}
      profiles: {pegasus: {runtime: "999"}}
    - name: analyze
      profiles: {pegasus: {runtime: 20, cores: 4}}
jobs:
  - type: job
    namespace: diamond
    name: preprocess
    id: ID1
    arguments: [-a, preprocess, -i, f.a]
    uses:
      - {lfn: f.a, type: input}
      - {lfn: f.b1, type: output, size: 100, stageOut: false}
      - {lfn: f.b2, type: output, size: "200"}
    profiles: {pegasus: {runtime: "60.5"}, globus: {count: 2}}
  - {type: job, namespace: diamond, name: findrange, id: ID2, arguments: [],
     uses: [{lfn: f.b1, type: input}, {lfn: f.c1, type: output, size: 7}]}
  - {type: job, namespace: diamond, name: findrange, id: ID3, arguments: [],
     uses: [{lfn: f.b2, type: input}, {lfn: f.c2, type: output}]}
  - {type: job, name: analyze, id: ID4, arguments: [],
     uses: [{lfn: f.c1, type: input}, {lfn: f.c2, type: input, size: 5}]}
"""


def test_diamond_in_any_key_order():
    assert detect_format(DIAMOND) == "yaml"
    wf = load_workflow(DIAMOND, name="d.yml")
    assert wf.name == "diamond"
    rt = {t.id: (t.runtime, t.processors, t.module) for t in wf.tasks}
    # job profile > transformation site entry > transformation > workflow; globus count
    assert rt == {
        "ID1": (60.5, 2, "preprocess"),
        "ID2": (30.0, 1, "findrange"),
        "ID3": (30.0, 1, "findrange"),
        "ID4": (20.0, 4, "analyze"),
    }
    data = {(e.parent, e.child): e.data for e in wf.edges}
    assert data == {("ID1", "ID2"): 100, ("ID1", "ID3"): 200, ("ID2", "ID4"): 7, ("ID3", "ID4"): 5}
    info = summarize(wf)
    assert info["levels"] == 3 and info["critical_path"] == 60.5 + 30 + 20
    # every runtime came from a profile; ID2 and ID3 give no processor count
    assert info["notes"] == [
        "default of 1 processor (no pegasus.cores or globus.count profile) for 2 of 4 jobs: "
        "ID2, ID3"
    ]


def test_jobs_without_runtime_take_the_documented_default_and_say_so():
    doc = b'pegasus: "5.0"\nname: w\njobs:\n  - {type: job, name: a, id: j1, arguments: [], uses: []}\n'
    wf = load_workflow(doc)
    assert wf.tasks[0].runtime == DEFAULT_RUNTIME
    assert summarize(wf)["notes"] == [
        "default runtime of 60 s (no pegasus.runtime profile) for all 1 job",
        "default of 1 processor (no pegasus.cores or globus.count profile) for all 1 job",
    ]
    assert load_workflow(doc, default_runtime=5).tasks[0].runtime == 5


BAD = {
    "version": (b'pegasus: "4.0"\nname: w\njobs: []\n', "$.pegasus"),
    "no jobs key": (b'pegasus: "5.0"\nname: w\n', "missing required key 'jobs'"),
    "sub-workflow": (
        b'pegasus: "5.0"\nname: w\njobs:\n  - {type: pegasusWorkflow, file: x.yml, id: j1, arguments: [], uses: []}\n',
        "$.jobs[0].type",
    ),
    "unknown child": (
        b'pegasus: "5.0"\nname: w\njobs:\n  - {type: job, name: a, id: j1, arguments: [], uses: []}\n'
        b"jobDependencies:\n  - {id: j1, children: [j9]}\n",
        "$.jobDependencies[0].children[0]",
    ),
    "text runtime": (
        b'pegasus: "5.0"\nname: w\njobs:\n  - {type: job, name: a, id: j1, arguments: [], uses: [],'
        b" profiles: {pegasus: {runtime: soon}}}\n",
        "$.jobs[0].profiles.pegasus.runtime",
    ),
    "text size in metadata": (
        b'pegasus: "5.0"\nname: w\njobs:\n  - {type: job, name: a, id: j1, arguments: [],'
        b" uses: [{lfn: f, type: output, metadata: {size: big}}]}\n",
        "$.jobs[0].uses[0].metadata.size",
    ),
    "infinite runtime": (
        b'pegasus: "5.0"\nname: w\njobs:\n  - {type: job, name: a, id: j1, arguments: [], uses: [],'
        b" profiles: {pegasus: {runtime: .inf}}}\n",
        "$.jobs[0].profiles.pegasus.runtime",
    ),
    "duplicate id": (
        b'pegasus: "5.0"\nname: w\njobs:\n  - {type: job, name: a, id: j1, arguments: [], uses: []}\n'
        b"  - {type: job, name: b, id: j1, arguments: [], uses: []}\n",
        "duplicate job id",
    ),
    "cycle": (
        b'pegasus: "5.0"\nname: w\njobs:\n  - {type: job, name: a, id: j1, arguments: [], uses: []}\n'
        b"  - {type: job, name: b, id: j2, arguments: [], uses: []}\n"
        b"jobDependencies:\n  - {id: j1, children: [j2]}\n  - {id: j2, children: [j1]}\n",
        "cycle",
    ),
    "alias bomb": (
        b'pegasus: "5.0"\na: &a ["x","x"]\nb: &b [*a,*a]\nc: [*b,*b]\nname: w\njobs: []\n',
        "anchors",
    ),
    "deep nesting": (b'pegasus: "5.0"\nx: ' + b"[" * 500 + b"]" * 500 + b"\n", "nested deeper"),
    "huge integer": (
        b'pegasus: "5.0"\nname: w\njobs:\n  - {type: job, name: a, id: j1, arguments: [], uses: [],'
        b" profiles: {pegasus: {cores: " + b"9" * 5000 + b"}}}\n",
        "out of range",
    ),
    "not yaml": (b'pegasus: "5.0"\njobs: [\n', "invalid YAML"),
    "python tag": (
        b'pegasus: "5.0"\nname: !!python/object:os.system x\njobs: []\n',
        "invalid YAML",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_documents_are_refused_naming_the_place(case):
    data, where = BAD[case]
    with pytest.raises(WorkflowError) as err:
        load_workflow(data)
    assert where in str(err.value)
