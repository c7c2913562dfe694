"""Bounds at the door: hostile numbers, depth, encoding, late validation and
resource-exhaustion-shaped inputs against every endpoint and every kind's parameters.

Every case must be answered 2xx or 4xx (never a server error), a 400 must name the field, and a
refused case must leave no row and no file behind (rows and files under MEDIA_ROOT are counted
around every case).  Cases are deterministic lists plus derandomized Hypothesis examples; the
number of cases per class is counted and recorded (``fuzz_bounds_cases``).  Hostile SWF traces
are here too: they must be refused at upload, not fail later in a worker.
"""

from __future__ import annotations

import json
import os

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from gridportal.experiments.models import Experiment, Sweep
from gridportal.inputs.models import Trace, Workflow
from gridportal.sites.models import Site, Topology, UsagePolicy
from scheduler.bounds import MAX_PROCS, MAX_SECONDS
from scheduler.coallocation.topology import seed001_document
from scheduler.experiments import kinds
from scheduler.experiments.schema import ParamError
from scheduler.jsonvalues import JSONLimitError, json_depth, loads
from scheduler.usage.scenarios import seed004_document
from tests.conftest import FULL
from tests.reliability.figures import record_figure

from .test_fuzz_uploads import files_under

pytestmark = pytest.mark.django_db

CASES: dict[str, int] = {}
MODELS = (Experiment, Sweep, Trace, Workflow, Site, Topology, UsagePolicy)
CREATED_AT = {"/api/experiments/": Experiment, "/api/sweeps/": Sweep, "/api/traces/": Trace,
              "/api/workflows/": Workflow, "/api/sites/": Site, "/api/policies/": UsagePolicy,
              "/api/topologies/": Topology}  # fmt: skip

NUMBERS = [
    1e308, -1e308, 1.7976931348623157e308, 5e-324, -0.0, 10**19, -(10**19), 2**31, 2**31 - 1,
    2**63, 2**63 - 1, 10**20 - 1, -1, 0, 1, 0.5, 1e7, 1e7 + 1, MAX_SECONDS + 1, 3.5,
    "1e308", "nan", "inf", "-inf", "NaN", "Infinity", "10^30", "1e30", "", " ", "0x10",
    "9" * 30, None, True, False, [], {}, [1, 2], {"a": 1},
]  # fmt: skip
TEXTS = [
    "nan,inf,-inf", "1e308", "1e308,1e308", "10^30,10^30,10^30", "-1", "-1e308", "0", "",
    ",", ",,,,", " , ", "1," * 100_000, "x" * 1_000_000, "0.5," * 20_000, "1e-400",
    "0x10", "1_000", "١٢", "１２", "\ud800", "a\x00b", "\u202e1", "PRA/FPSMA," * 50,
    "fcfs,fcfs,fcfs", "VO0=1e308", "VO0=nan", "=1", "a=b=c", "9" * 5000, "1;2;3",
    "2147483648", "9223372036854775808", "4,4,4,4,4,4,4", "1,2,3,4,5,6,7",
]  # fmt: skip


def count(name: str, n: int = 1) -> None:
    CASES[name] = CASES.get(name, 0) + n


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


@pytest.fixture
def staff_api(make_user):
    client = APIClient()
    client.force_authenticate(make_user("root", staff=True))
    return client


def snapshot(media_root) -> tuple[int, ...]:
    return (*(m.objects.count() for m in MODELS), files_under(media_root))


def _cpu_seconds() -> float:
    """CPU time of this process and of its children waited for (a request's limited child):
    the work a request costs, not the wall clock of a loaded machine."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Door:
    """Send one case, check the invariants, undo what a 2xx created."""

    def __init__(self, client, media_root):
        self.client = client
        self.media_root = media_root
        self.failures: list[str] = []

    def send(self, method: str, url: str, body=None, *, raw: bytes | None = None,
             fields: set[str] | None = None, limit_s: float = 5.0, label: str = "") -> int:  # fmt: skip  # noqa: E501
        before = snapshot(self.media_root)
        t0 = _cpu_seconds()
        if raw is not None:
            resp = getattr(self.client, method)(url, raw, content_type="application/json")
        elif method == "get":
            resp = self.client.get(url, body or {})
        else:  # (json.dumps escapes lone surrogates and NUL, as a hostile client would send)
            raw = json.dumps(body).encode()
            resp = getattr(self.client, method)(url, raw, content_type="application/json")
        took = _cpu_seconds() - t0  # the work it took, whatever else the machine runs
        code = resp.status_code
        what = f"{method.upper()} {url} {label[:80]!r}"
        if code >= 500:
            self.failures.append(f"{what}: {code}")
        elif took > limit_s:
            self.failures.append(f"{what}: answered after {took:.1f} s of CPU")
        elif code == 400:
            after = snapshot(self.media_root)
            if after != before:
                self.failures.append(f"{what}: refused but rows/files changed {before}->{after}")
            data = resp.json()
            if fields is not None and isinstance(data, dict):
                named = {k.split(".")[0].split("[")[0] for k in data} - {"non_field_errors"}
                if not named or not (named <= fields | {"detail"}):
                    self.failures.append(f"{what}: 400 names {sorted(named)} not {fields}")
        elif code in (200, 201) and method != "get":
            self.undo(url, resp)
        return code

    def undo(self, url: str, resp) -> None:
        data = resp.json() if resp.get("Content-Type", "").startswith("application/json") else {}
        model = next((m for prefix, m in CREATED_AT.items() if url.startswith(prefix)), None)
        if model is not None:
            if isinstance(data, dict) and "id" in data:
                for row in model.objects.filter(pk=data["id"]):
                    if getattr(row, "file", None):
                        row.file.delete(save=False)
                    row.delete()

    def check(self) -> None:
        assert not self.failures, "\n".join(self.failures[:15]) + f"\n({len(self.failures)})"


def named_fields(spec, exc: ParamError, changed: str) -> bool:
    """A refusal names the changed field, or only fields of the kind's own form (a check across
    fields, such as a window's end before its start, names the field it reads as wrong)."""
    names = {p.name for p in spec.params}
    return changed in exc.errors or (bool(exc.errors) and set(exc.errors) <= names)


# 1. Numeric extremes: every parameter of every kind ------------------------------------------


#: Through REST, every REST_NUMBERS-th value of a parameter and every REST_TEXTS-th string
#: (the engine's own check sees them all), rotated by parameter so that every value goes
#: through REST somewhere; GRIDPORTAL_FULL_TESTS=1 sends twice as many.
REST_NUMBERS = 3 if FULL else 6
REST_TEXTS = 2 if FULL else 4


def test_every_parameter_refuses_extreme_numbers_at_submit(api, media_root):
    """Each value is tried for every parameter of every kind, through ``kind.validate`` (the
    engine's use) and, for a share of them (``REST_NUMBERS``), through REST (the portal's
    use): the same verdict, never a 500."""
    door = Door(api, media_root)
    for i, (spec, p) in enumerate([(k, p) for k in kinds() for p in k.params]):
        kind = spec.name
        for value in NUMBERS:
            count("numeric extremes")
            try:
                spec.validate({p.name: value})
                engine_ok = True
            except ParamError as exc:
                # the field itself, or (a cross-field check since the run's checks moved to
                # submit: window_end before window_start) another field of the same form
                assert named_fields(spec, exc, p.name), (p.name, value, exc.errors)
                engine_ok = False
            if (NUMBERS.index(value) + i) % REST_NUMBERS:
                continue
            count("numeric extremes")
            body = {"kind": kind, "params": {p.name: value}}
            code = door.send("post", "/api/experiments/", body,
                             fields={"params", "traces", "workflows", "policies", "topology"},
                             label=f"{p.name}={value!r}")  # fmt: skip
            if code == 400 and not engine_ok:
                continue
            if code == 201 and not engine_ok:
                door.failures.append(f"{p.name}={value!r}: REST accepted what the engine refuses")
    door.check()


# 2. Late validation: string-typed parameters parsed at submit ---------------------------------

STR_PARAMS = [(k.name, p.name) for k in kinds() for p in k.params if p.type == "str"]


def test_every_string_parameter_is_parsed_at_submit():
    """Each string-typed parameter declares the engine's parser (one schema, two uses)."""
    assert len(STR_PARAMS) >= 30
    missing = [f"{k}.{n}" for k in kinds() for p in k.params if p.type == "str" and p.parse is None
               for n in [p.name]]  # fmt: skip
    assert not missing, missing


def test_hostile_strings_are_refused_at_submit(api, media_root):
    door = Door(api, media_root)
    cases = [(i, k, n, t) for i, (k, n) in enumerate(STR_PARAMS) for t in TEXTS]
    for i, kind, name, text in cases:
        spec = next(k for k in kinds() if k.name == kind)
        count("late validation")
        try:
            spec.validate({name: text})
            engine_ok = True
        except ParamError as exc:
            assert named_fields(spec, exc, name), exc.errors
            assert all(len(m) < 1000 for m in exc.errors.values()), "quotes megabytes of input"
            engine_ok = False
        if any(bad in text for bad in ("nan", "inf", "1e308", "10^30", "\ud800", "\x00")):
            if kind != "coallocation" and name not in ("site_names", "cluster_names"):
                assert not engine_ok, f"{kind}.{name} accepted {text[:40]!r}"
        if len(text) > 10_000:
            assert not engine_ok, f"{kind}.{name} accepted {len(text)} characters"
        if (TEXTS.index(text) + i) % REST_TEXTS:
            continue
        count("late validation")
        code = door.send("post", "/api/experiments/", {"kind": kind, "params": {name: text}},
                         fields={"params", "traces", "workflows", "policies", "topology",
                                 "detail"}, label=f"{name}={text[:30]!r}")  # fmt: skip
        if code == 201 and not engine_ok:
            door.failures.append(f"{name}={text[:30]!r}: REST accepted what the engine refuses")
    door.check()


def test_the_run_form_refuses_hostile_strings_under_the_field(client, alice, media_root):
    """The page form (not REST): each string parameter's field shows the engine's refusal."""
    client.force_login(alice)
    before = snapshot(media_root)
    for kind, name in STR_PARAMS:
        for text in ("nan,inf,-inf", "10^30,10^30", "1e308", "x" * 20_000, "1," * 5000):
            count("late validation")
            resp = client.post(f"/experiments/new/?kind={kind}",
                               {"kind": kind, "name": "", "seed": 0, f"p_{name}": text})  # fmt: skip  # noqa: E501
            assert resp.status_code in (200, 400), (kind, name, resp.status_code)
            errors = resp.context["form"].errors
            if name not in FREE_TEXT or len(text) > 10_000:
                assert f"p_{name}" in errors, (kind, name, text[:30], dict(errors))
    assert snapshot(media_root) == before


ITEMS = ["PRA/FPSMA", "PWA/EGS/Wm", "fcfs", "original", "VO0=1", "VO0.G0=2", "nan", "inf",
         "-inf", "1e308", "-1", "0", "1", "0.5", "64", "10^30", "1e-400", "", " ", "x", "é",
         "\ud800", "9" * 25, "2147483648", "1.5e7", "NaN", "Infinity", "=", "a=b"]  # fmt: skip


def comma_lists(rng, n: int):
    """``n`` seeded comma-separated lists mixing numbers, names and hostile items."""
    for _ in range(n):
        items = []
        for _ in range(rng.randint(0, 12)):
            pick = rng.random()
            if pick < 0.5:
                items.append(rng.choice(ITEMS))
            elif pick < 0.7:
                items.append(repr(rng.uniform(-1e3, 1e3) * 10 ** rng.randint(-320, 308)))
            elif pick < 0.85:
                items.append(str(rng.randint(-(10**40), 10**40) // 10 ** rng.randint(0, 40)))
            else:
                items.append("".join(chr(rng.randint(32, 0x2FF)) for _ in range(rng.randint(0, 6))))
        yield ",".join(items)


def test_string_parameters_same_verdict_twice():
    """Submit and run time use the same parser: the verdict never changes, and an accepted
    value holds no NaN or infinity.  Deterministic (seeded) generated lists."""
    import random

    rng = random.Random(19)
    for kind, name in STR_PARAMS:
        spec = next(k for k in kinds() if k.name == kind)
        for text in comma_lists(rng, 330):
            count("late validation")
            verdicts = []
            for _ in range(2):
                try:
                    verdicts.append(spec.validate({name: text})[name])
                except ParamError as exc:
                    assert set(exc.errors) == {name}, exc.errors
                    verdicts.append("refused")
            assert verdicts[0] == verdicts[1]
            if verdicts[0] != "refused" and name not in FREE_TEXT:
                low = text.lower()
                assert "nan" not in low and "inf" not in low, (kind, name, text)


FREE_TEXT = ("site_names", "cluster_names", "weights", "domain_order")


# 3. Depth: JSON nested before the parser recurses ---------------------------------------------

DEPTHS = [1, 10, 63, 64, 65, 100, 1000, 10_000, 100_000]


def nested(depth: int, kind: str) -> str:
    return ("[" * depth + "]" * depth) if kind == "list" else ('{"a":' * depth + "1" + "}" * depth)


def test_deep_json_is_refused_everywhere(api, staff_api, media_root, alice):
    topo = Topology.objects.create(name="t", document=seed001_document())
    targets = [
        ("post", "/api/experiments/", '{{"kind": "trace-stats", "params": {doc}}}'),
        ("post", "/api/experiments/", '{{"kind": "usage-policy", "policies": [{doc}]}}'),
        ("post", "/api/experiments/", '{{"kind": "coallocation", "topology": {doc}}}'),
        ("post", "/api/experiments/", "{doc}"),
        ("post", "/api/sweeps/", '{{"kind": "trace-stats", "vary": {doc}}}'),
        ("post", "/api/workflows/generate/", '{{"model": "layered", "params": {doc}}}'),
        ("post", f"/api/topologies/{topo.pk}/plan/", '{{"request": {doc}}}'),
        ("post", f"/api/topologies/{topo.pk}/plan/", '{{"request": {{}}, "options": {doc}}}'),
        ("post", "/api/topologies/", '{{"name": "x", "document": {doc}}}'),
        ("post", "/api/policies/", "{doc}"),
        ("post", "/api/sites/", "{doc}"),
        ("post", "/api/experiments/1/clone/", '{{"params": {doc}}}'),
    ]
    for client in (api, staff_api):
        door = Door(client, media_root)
        for method, url, template in targets:
            for depth in DEPTHS:
                for shape in ("list", "dict"):
                    count("depth")
                    body = template.format(doc=nested(depth, shape))
                    code = door.send(method, url, raw=body.encode(), label=f"depth {depth}")
                    if depth > 64:
                        assert code in (400, 403, 404), (url, depth, code)
        door.check()
    # the plan form (a page, not REST)
    from django.test import Client

    web = Client()
    web.force_login(alice)
    for depth in DEPTHS:
        for shape in ("list", "dict"):
            count("depth")
            resp = web.post(f"/sites/topologies/{topo.pk}/",
                            {"request": nested(depth, shape), "option": "earliest",
                             "admin": "none", "priority": "normal", "frames": 1})  # fmt: skip
            assert resp.status_code == 200, resp.status_code
            if depth > 64:
                assert resp.context["form"].errors, depth


def test_bounded_loader_never_recurses():
    """Any nesting, balanced or truncated, is parsed or refused with a ValueError; strings
    holding brackets do not count.  Deterministic (seeded) generated documents."""
    import random

    rng = random.Random(64)
    for _ in range(5000):
        count("depth")
        depth = rng.choice([rng.randint(0, 70), rng.randint(0, 3000)])
        shape = [rng.choice(["[", '{"k":', '"s[{",', "1,"]) for _ in range(rng.randint(1, 4))]
        opening = "".join(shape[i % len(shape)] for i in range(depth))
        closing = "".join({"[": "]", '{"k":': "}"}.get(shape[i % len(shape)], "")
                          for i in reversed(range(depth)))  # fmt: skip
        text = opening + "0" + closing
        cut = rng.randint(0, 3)
        text = text[: len(text) - cut] if cut else text
        try:
            value = loads(text)
        except JSONLimitError:
            continue
        assert json_depth(json.dumps(value)) <= 64


# 4. Encoding: surrogates, NUL, invalid UTF-8 --------------------------------------------------

BAD_STRINGS = ["\\ud800", "\\udfff", "a\\u0000b", "\\udc80x", "x\\ud83d"]
GOOD_STRINGS = ["é", "\\ud83d\\ude00", "\\u202e", "\\ufeff"]


def test_strings_that_cannot_be_stored_are_refused(api, staff_api, media_root):
    topo = Topology.objects.create(name="t", document=seed001_document())
    templates = [
        ("post", "/api/experiments/", '{{"kind": "trace-stats", "name": "{s}"}}'),
        ("post", "/api/experiments/", '{{"kind": "malleability", "params": {{"cluster_names": "{s}"}}}}'),  # noqa: E501
        ("post", "/api/experiments/", '{{"kind": "coallocation", "params": {{"domain_order": "{s}"}}}}'),  # noqa: E501
        ("post", "/api/sweeps/", '{{"kind": "trace-stats", "name": "{s}", "vary": []}}'),
        ("post", "/api/workflows/generate/", '{{"model": "layered", "name": "{s}"}}'),
        ("post", "/api/workflows/generate/", '{{"model": "layered", "params": {{"name": "{s}"}}}}'),
        ("post", "/api/topologies/", '{{"name": "{s}", "document": {{}}}}'),
        ("post", "/api/sites/", '{{"name": "x", "description": "{s}", "processors": 1}}'),
        ("post", "/api/vos/", '{{"name": "{s}"}}'),
        ("post", f"/api/topologies/{topo.pk}/plan/", '{{"request": {{"user": "{s}"}}}}'),
        ("post", "/api/experiments/", '{{"kind": "coallocation", "{s}": 1}}'),
    ]  # fmt: skip
    for client in (api, staff_api):
        door = Door(client, media_root)
        for method, url, template in templates:
            for s in BAD_STRINGS + GOOD_STRINGS:
                count("encoding")
                code = door.send(method, url, raw=template.format(s=s).encode(), label=s)
                if s in BAD_STRINGS:
                    assert code in (400, 403), (url, s, code)
            for raw in (b"\xff\xfe{}", b'{"name": "\xc3"}', b"\xef\xbb\xbf{}", b"\x00"):
                count("encoding")
                door.send(method, url, raw=raw, label=repr(raw))
        door.check()


def test_workflow_and_topology_documents_with_surrogates_are_refused(api, media_root):
    door = Door(api, media_root)
    native = {"format": "gridportal-workflow", "version": 1, "name": "w",
              "tasks": [{"id": "a", "runtime": 1}]}  # fmt: skip
    for s in BAD_STRINGS:
        for where in ("name", "task", "module"):
            count("encoding")
            doc = json.dumps(native)
            if where == "name":
                doc = doc.replace('"name": "w"', f'"name": "{s}"')
            elif where == "task":
                doc = doc.replace('"id": "a"', f'"id": "{s}"')
            else:
                doc = doc.replace('"runtime": 1', f'"runtime": 1, "module": "{s}"')
            resp = api.post("/api/workflows/",
                            {"file": SimpleUploadedFile("w.json", doc.encode())},
                            format="multipart")  # fmt: skip
            assert resp.status_code == 400, (s, where, resp.content[:200])
            assert Workflow.objects.count() == 0 and files_under(media_root) == 0
        count("encoding")
        topo = json.dumps(seed001_document()).replace('"N0"', f'"{s}"')
        door.send("post", "/api/experiments/",
                  raw=f'{{"kind": "coallocation", "topology": {topo}}}'.encode(),
                  fields={"topology", "detail"}, label=s)  # fmt: skip
    door.check()


# 5. Resource exhaustion: sizes that would explode, refused cheaply -----------------------------


def test_explosive_sizes_are_refused_quickly(api, staff_api, media_root):
    topo = Topology.objects.create(name="t", document=seed001_document())
    door = Door(api, media_root)
    gen = "/api/workflows/generate/"
    for tasks in (100_000, 10**6, 10**12, 1e308, -1, "1e5"):
        for parents in (1000, 10**4, 10**6, 1e308):
            for levels in (2, 10, 100):
                count("resource exhaustion")
                door.send("post", gen, {"model": "layered", "params": {
                    "tasks": tasks, "levels": levels, "parents_per_task": parents}},
                    fields={"params"}, limit_s=3, label=f"{tasks}x{parents}x{levels}")  # fmt: skip
    for model, params in [
        ("layered", {"mean_runtime": 1e308}), ("layered", {"mean_processors": 1e308}),
        ("layered", {"mean_data": 1e308}), ("layered", {"max_processors": 10**19}),
        ("layered", {"mean_runtime": MAX_SECONDS * 2}), ("layered", {"seed": 10**19}),
        ("cybershake", {"pairs": 10**9}), ("cybershake", {"edge_data": 1e308}),
        ("montage", {"images": 10**9}), ("montage", {"runtime_jitter": 1e308}),
    ]:  # fmt: skip
        count("resource exhaustion")
        door.send(
            "post",
            gen,
            {"model": model, "params": params},
            fields={"params"},
            limit_s=3,
            label=str(params),
        )
    big_site = {"name": "S", "domain": "D", "cpus": MAX_PROCS + 1}
    for cpus in (1e308, 10**19, MAX_PROCS + 1, 2**31):
        doc = seed001_document()
        doc["sites"][0]["cpus"] = cpus
        for client, url, body in (
            (api, "/api/experiments/", {"kind": "coallocation", "topology": doc}),
            (staff_api, "/api/topologies/", {"name": "big", "document": doc}),
        ):
            count("resource exhaustion")
            one = Door(client, media_root)
            assert one.send("post", url, body) == 400, (url, cpus)
            one.check()
    for bw in (1e308, 1e7, 10**19):
        doc = seed001_document()
        doc["links"][0]["bandwidth"] = bw
        count("resource exhaustion")
        resp = api.post("/api/experiments/", {"kind": "coallocation", "topology": doc},
                        format="json")  # fmt: skip
        assert resp.status_code == 400 and "topology" in resp.json(), resp.content[:200]
    doc = seed001_document()
    doc["sites"] = [dict(big_site, name=f"S{i}", cpus=8) for i in range(5000)]
    count("resource exhaustion")
    door.send(
        "post",
        "/api/experiments/",
        {"kind": "coallocation", "topology": doc},
        fields={"topology"},
        limit_s=3,
    )
    plan = f"/api/topologies/{topo.pk}/plan/"
    request = {"sites": [{"name": "A", "cpus": 4}, {"name": "B", "cpus": 4}],
               "paths": [{"between": ["A", "B"], "bandwidth": 1}],
               "frame": {"earliest_start": 0, "latest_start": 7200, "duration": 3600}}  # fmt: skip
    for options in (5, [1, 2], "x", None, True, {"frames": 10**9}, {"frames": 1e308},
                    {"time_limit": 1e308}, {"p_max": 10**19}, {"domain_order": "N"},
                    {"domain_order": [1]}, {"frames": "5"}):  # fmt: skip
        count("resource exhaustion")
        code = door.send("post", plan, {"request": request, "options": options},
                         fields={"options", "request"}, label=repr(options))  # fmt: skip
        if options not in (None,):
            assert code == 400, (options, code)
    for frame in ({"earliest_start": 0, "latest_start": 1e308, "duration": 1},
                  {"earliest_start": 0, "latest_start": 10**19, "duration": 10**19},
                  {"start": 0, "end": 1e308}, {"start": -1e308, "end": 0}):  # fmt: skip
        count("resource exhaustion")
        assert door.send("post", plan, {"request": {**request, "frame": frame}}) == 400
    for sizes in ({"cpus": 1e308}, {"cpus": 10**19}, {"cpus": MAX_PROCS + 1}):
        count("resource exhaustion")
        bad = {**request, "sites": [{"name": "A", **sizes}]}
        assert door.send("post", plan, {"request": bad, "paths": []}) == 400
    for rng in (
        {"start": -1e308, "stop": 1e308, "step": 1e308},
        {"start": 0, "stop": 1e308, "step": 1},
        {"start": 0, "stop": 1e9, "step": 1e-9},
        {"start": 0, "stop": 1, "step": 1e-308},
        {"start": 1, "stop": 0, "step": 1},
    ):
        count("resource exhaustion")
        assert (
            door.send(
                "post",
                "/api/sweeps/",
                {"kind": "pricing", "vary": [{"param": "procs", "range": rng}]},
                fields={"vary", "traces"},
                limit_s=2,
            )
            == 400
        )
    for text in ("0.5," * 100_000, "x" * 1_000_000):
        for kind, name in (("pricing", "alphas"), ("malleability", "clusters"),
                           ("virtual-reservations", "sizes"), ("usage-policy", "weights")):  # fmt: skip  # noqa: E501
            count("resource exhaustion")
            assert (
                door.send(
                    "post",
                    "/api/experiments/",
                    {"kind": kind, "params": {name: text}},
                    fields={"params"},
                    limit_s=2,
                )
                == 400
            )
    for interval in (1e308, 10**19, 2**31, MAX_SECONDS * 2):
        doc = seed004_document()
        doc["policies"][0]["epoch"]["interval"] = interval
        count("resource exhaustion")
        assert (
            door.send(
                "post",
                "/api/experiments/",
                {"kind": "usage-policy", "policies": [doc]},
                fields={"policies", "detail"},
            )
            == 400
        ), interval
    sdoor = Door(staff_api, media_root)
    for field, value in (
        ("processors", 10**19),
        ("processors", MAX_PROCS + 1),
        ("unit_cost", 1e308),
        ("fixed_cost", 1e300),
        ("processors", 1e308),
    ):
        count("resource exhaustion")
        assert (
            sdoor.send(
                "post", "/api/sites/", {"name": "s", "processors": 1, field: value}, fields={field}
            )
            == 400
        ), (field, value)
    site = Site.objects.create(name="q", processors=64)
    for query in (
        {"n": 10**19, "duration": 1},
        {"n": 1, "duration": 1e308},
        {"n": 1, "duration": 1, "at": 1e308},
        {"n": "1e308", "duration": 1},
        {"n": 1, "duration": 1, "s_min": "nan"},
        {"n": 1, "req_time": 10**19},
    ):
        for action in ("quote", "predict"):
            count("resource exhaustion")
            code = door.send("get", f"/api/sites/{site.pk}/{action}/", query)
            assert code == 400, (action, query, code)
    door.check()
    sdoor.check()


# 6. Hostile SWF traces: refused at upload, not in a worker ------------------------------------

HEADER = b"; Version: 2.2\n; MaxProcs: 64\n; UnixStartTime: 0\n"
JOB = [b"1", b"0", b"5", b"100", b"4", b"-1", b"-1", b"4", b"200", b"-1", b"1", b"1", b"1",
       b"1", b"1", b"1", b"-1", b"-1"]  # fmt: skip
HOSTILE_VALUES = [b"1e308", b"10000000000000000000", b"1" + b"0" * 30, b"9223372036854775808",
                  b"-9223372036854775809", b"inf", b"nan", b"1e19", b"1e11"]  # fmt: skip


def hostile_swf_cases():
    job_line = b" ".join(JOB) + b"\n"
    for value in HOSTILE_VALUES:
        for header in (b"MaxProcs", b"MaxNodes", b"MaxJobs", b"UnixStartTime", b"MaxRuntime"):
            text = HEADER.replace(b"; MaxProcs: 64\n", b"") + b"; " + header + b": " + value
            if header != b"MaxProcs":
                text += b"\n; MaxProcs: 64"
            yield f"header {header.decode()}={value.decode()}", text + b"\n" + job_line
        for field in (1, 2, 3, 4, 7, 8):  # submit, wait, runtime, size, requested size, time
            job = list(JOB)
            job[field] = value
            yield f"field {field + 1}={value.decode()}", HEADER + b" ".join(job) + b"\n"
    yield "MaxProcs -5", HEADER.replace(b"64", b"-5") + job_line
    for value in (b"2147483648", b"10000001"):  # sizes beyond 10^7 processors
        for field in (4, 7):
            job = list(JOB)
            job[field] = value
            yield f"field {field + 1}={value.decode()}", HEADER + b" ".join(job) + b"\n"


def test_hostile_swf_traces_are_refused_at_upload(api, media_root):
    failures = []
    for label, content in hostile_swf_cases():
        count("hostile SWF")
        resp = api.post("/api/traces/", {"file": SimpleUploadedFile("h.swf", content)},
                        format="multipart")  # fmt: skip
        if resp.status_code != 400:
            failures.append(f"{label}: {resp.status_code}")
            if resp.status_code == 201:
                row = Trace.objects.get(pk=resp.json()["id"])
                row.file.delete(save=False)
                row.delete()
        assert Trace.objects.count() == 0 and files_under(media_root) == 0
    record_figure("hostile_swf_not_refused", {"cases": failures})
    assert not failures, "\n".join(failures)


# Totals ---------------------------------------------------------------------------------------


def test_zz_bounds_case_count():
    """Recorded per class; the whole module holds at least 20,000 cases."""
    total = sum(CASES.values())
    record_figure("fuzz_bounds_cases", dict(CASES, total=total))
    if len(CASES) == 6 and FULL:  # the whole module ran, with every REST case
        assert total >= 20_000, CASES
