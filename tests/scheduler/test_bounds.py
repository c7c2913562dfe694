"""Bounds at the door in the engine: the bounds module, the bounded JSON loader,
string-typed parameters parsed by the same schema at submit and at run time, and the parsers,
generators and documents refusing values beyond the physical bounds with the field named."""

from __future__ import annotations

import json
import time

import pytest

from scheduler.bounds import MAX_PROCS, MAX_SECONDS, BoundError, check_int, check_number, check_text
from scheduler.coallocation import planner_config
from scheduler.coallocation.requests import RequestError, parse_request
from scheduler.coallocation.topology import TopologyError, load_topology, seed001_document
from scheduler.experiments import get_kind, kinds
from scheduler.experiments.schema import ParamError
from scheduler.jsonvalues import JSONLimitError, check_value, json_depth, loads, loads_strict
from scheduler.usage.config import PolicyError, load_policy_document
from scheduler.usage.scenarios import seed004_document
from scheduler.workflows import generate_layered
from scheduler.workflows.dag import WorkflowError
from scheduler.workflows.loader import parse_workflow_bytes


@pytest.mark.parametrize("value", [1e308, float("nan"), float("inf"), 10**30, -1, "1e308", True])
def test_check_number_refuses_with_the_field(value):
    with pytest.raises(BoundError) as err:
        check_number(value, "procs", hi=MAX_PROCS, integer=True)
    assert err.value.field == "procs" and str(err.value).startswith("procs: ")


def test_check_number_and_int_accept_what_is_in_bounds():
    assert check_number("64", "n", hi=MAX_PROCS, integer=True) == 64
    assert check_number(2.5, "t", hi=MAX_SECONDS) == 2.5
    assert check_int(2**31 - 1, "id") == 2**31 - 1
    with pytest.raises(BoundError):
        check_int(2**31, "id")


@pytest.mark.parametrize("text", ["\ud800", "a\x00b", "x" * 10_001])
def test_check_text_refuses_what_cannot_be_stored(text):
    with pytest.raises(BoundError):
        check_text(text, "name")


@pytest.mark.parametrize("depth", [65, 1000, 100_000])
def test_deep_json_is_refused_before_parsing(depth):
    for doc in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        t0 = time.perf_counter()
        with pytest.raises(JSONLimitError, match="nested"):
            loads(doc)
        assert time.perf_counter() - t0 < 1


def test_loader_bounds_integers_and_non_finite_numbers():
    for doc in ("9" * 5000, "[" + "1" * 21 + "]", "[NaN]", "[Infinity]", "[1e400]"):
        with pytest.raises(JSONLimitError):
            loads(doc)
    assert loads('{"a": [1, 2.5, "[[[[", 99999999999999999999]}') == {
        "a": [1, 2.5, "[[[[", 99999999999999999999]
    }
    assert json_depth('["[[[[", {"a": []}]') == 3


def test_strict_loader_refuses_surrogates_and_nul_naming_the_path():
    with pytest.raises(JSONLimitError, match=r"\$\.tasks\[0\]\.name"):
        loads_strict('{"tasks": [{"name": "\\ud800"}]}')
    with pytest.raises(JSONLimitError, match="NUL"):
        loads_strict('{"a": "x\\u0000"}')
    assert loads_strict('{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}
    with pytest.raises(JSONLimitError):
        check_value({"a": [[[[1]]]]}, max_depth=3)


def test_every_string_parameter_has_the_engines_parser():
    params = [(k.name, p) for k in kinds() for p in k.params if p.type == "str"]
    assert len(params) >= 30
    assert all(p.parse is not None for _, p in params), [n for n, p in params if not p.parse]


@pytest.mark.parametrize(
    "kind,name,text",
    [
        ("malleability", "clusters", "10^30,10^30,10^30"),
        ("malleability", "clusters", "100000000000"),
        ("malleability", "combos", "PRA/FPSMA," * 100),
        ("pricing", "alphas", "nan,inf,-inf"),
        ("pricing", "alphas", "0.5," * 100_000),
        ("provisioning", "procs", "1e308"),
        ("provisioning", "unit_cost", "inf"),
        ("provisioning-impact", "xs", "1e308"),
        ("provisioning-impact", "policies", "fcfs," * 10_000),
        ("virtual-reservations", "durations_h", "1e308"),
        ("virtual-reservations", "sizes", "100000000"),
        ("usage-policy", "weights", "VO0=nan"),
        ("coallocation", "domain_order", "x" * 1_000_000),
        ("slot-advertisement", "load_p", "2"),
    ],
)
def test_string_parameters_are_refused_at_validation(kind, name, text):
    """What used to fail only in the worker is refused by ``kind.validate`` (the portal's
    submit check), naming the parameter, with a short message."""
    with pytest.raises(ParamError) as err:
        get_kind(kind).validate({name: text})
    assert set(err.value.errors) == {name} and len(err.value.errors[name]) < 300


def test_workflow_parsers_refuse_values_beyond_the_bounds():
    dax = b'<adag name="w"><job id="a" name="a" runtime="1e308"/></adag>'
    with pytest.raises(WorkflowError, match="100 years"):
        parse_workflow_bytes(dax)
    native = {"format": "gridportal-workflow", "version": 1, "name": "w",
              "tasks": [{"id": "a", "runtime": 1, "processors": 10**8}]}  # fmt: skip
    with pytest.raises(WorkflowError, match="processors"):
        parse_workflow_bytes(json.dumps(native).encode())
    native["tasks"][0] = {"id": "\ud800", "runtime": 1}
    with pytest.raises(WorkflowError, match="UTF-8"):
        parse_workflow_bytes(json.dumps(native).encode())
    with pytest.raises(WorkflowError, match="digits"):
        parse_workflow_bytes(b'{"format": "gridportal-workflow", "x": ' + b"9" * 500 + b"}")


def test_generator_refuses_explosive_sizes_before_drawing():
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="parents_per_task"):
        generate_layered(tasks=100_000, levels=10, parents_per_task=10**6)
    with pytest.raises(ValueError, match="dependencies"):
        generate_layered(tasks=100_000, levels=2, parents_per_task=1000)
    with pytest.raises(ValueError, match="mean_runtime"):
        generate_layered(tasks=10, levels=2, mean_runtime=1e308)
    assert time.perf_counter() - t0 < 2


def test_topology_request_and_options_bounds():
    doc = seed001_document()
    doc["sites"][0]["cpus"] = 1e308
    doc["links"][0]["bandwidth"] = 1e308
    with pytest.raises(TopologyError) as err:
        load_topology(doc)
    assert "sites[0].cpus" in err.value.errors and "links[0].bandwidth" in err.value.errors
    request = {"sites": [{"name": "A", "cpus": 1}], "frame": {"start": 0, "end": 10**19}}
    with pytest.raises(RequestError, match="frame.end"):
        parse_request(request)
    for options in (5, [1, 2], "x"):
        with pytest.raises(RequestError, match="options"):
            planner_config(options)


def test_policy_document_interval_is_bounded():
    doc = seed004_document()
    doc["policies"][0]["epoch"]["interval"] = 1e308
    with pytest.raises(PolicyError, match="interval"):
        load_policy_document(doc)
