"""Submit-time parity: whatever a run refuses for its parameters, the submit refused already.

For every kind of the catalogue, hostile values are generated from its parameter schema (each
field at its bounds and at values that pass a naive reading: empty lists, ",,,", 1e-320, 1e308,
NaN, unknown names, huge counts) over small, fast settings.  Each case goes through the
portal's submit check (``validate_run``, with the inputs as stored: the trace's summary from
upload).  A case the submit accepts is then run by the engine in a forked child under a short
CPU-time and memory budget (``gridportal.limits.run_limited``); if the run refuses it with
ParamError, InputError or ValueError, that refusal was reachable at submit and the test fails
naming the kind, field and value.  A run that outlives its budget is inconclusive and counted.
The budget is CPU time, not wall time: on a loaded machine (the whole suite in parallel on two
cores) a 0.3 s run took over 1.5 s of wall time, and every case of a kind came out
inconclusive.

Counted per kind in ``COUNTS`` (cases, refused at submit, run to completion, inconclusive).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from gridportal.experiments.services import RunInputs, validate_run
from gridportal.inputs.services import trace_open
from gridportal.inputs.slurm_sites import slurm_site_open
from gridportal.limits import LimitExceeded, run_limited
from scheduler import engine
from tests.conftest import rotating

from .factories import inputs_for_kind
from .test_every_kind import SMALL

pytestmark = pytest.mark.django_db

#: Strings that look like lists, numbers or names but mean nothing (or too much).
HOSTILE_TEXT = (
    "",
    " ",
    ",,,",
    "1e-320",
    "1e308",
    "NaN",
    "-1",
    "0",
    "nosuchname",
    "x=1",
    "=,=",
    "1,1",
    "1,2,3,4,5,6,7",
    "100000000",
    ",".join(["1"] * 101),
)
#: Strings a kind's own parser must weigh (names of things its inputs may or may not have).
KIND_TEXT: dict[str, dict[str, tuple[str, ...]]] = {
    "slurm-whatif": {
        "overrides": (
            "Fairshare:nobody=3", "Fairshare:physics=0", "Fairshare:physics:ann=5",
            "Fairshare:physics:nobody=5", "PriorityWeightAge=9999999999", "bf_window=0",
            "PriorityCalcPeriod=0", "SchedulerType=sched/other", "PriorityType=priority/basic",
            "PriorityDecayHalfLife=0", "PriorityMaxAge=UNLIMITED", "OverTimeLimit=UNLIMITED",
            "sched_interval=0 bf_interval=0 bf_resolution=0 bf_max_job_test=0",
            "AccountingStorageEnforce=limits PriorityFlags=NO_FAIR_TREE", "NodeName=n9 CPUs=4",
        ),
    },
}  # fmt: skip
#: CPU seconds a case may use (RLIMIT_CPU counts whole seconds); the wall clock only guards
#: against a child that waits instead of working.
BUDGET_S = 2
WALL_GUARD_S = 30.0
#: Settings that make a kind's base run finish well inside BUDGET_S (else nearly every accepted
#: case is inconclusive: provisioning-impact's SMALL run takes about 1.4 s of CPU).
FASTER: dict[str, dict[str, Any]] = {
    "provisioning-impact": {"days": 1.5, "policies": "fcfs,fairshare"}
}
MEMORY_MB = 768
COUNTS: dict[str, dict[str, int]] = {}


def numbers_for(p: engine.Param) -> list[Any]:
    """Each bound, just inside it, the tiniest and largest floats, and a NaN string."""
    values: list[Any] = [0, 1, 1e-320, 1e308, "NaN"]
    for bound in (p.min, p.max):
        if bound is not None:
            values += [bound, bound + 1 if p.type == "int" else math.nextafter(bound, 0)]
    if p.type == "int":
        values = [v for v in values if not isinstance(v, float) or v.is_integer()]
    return list(dict.fromkeys(values))


def base_for(name: str) -> dict[str, Any]:
    return {**SMALL.get(name, {}), **FASTER.get(name, {})}


def cases_for(kind: engine.ExperimentKind) -> list[dict[str, Any]]:
    base = base_for(kind.name)
    out: list[dict[str, Any]] = []
    for p in kind.params:
        if p.type in ("int", "float"):
            values: list[Any] = numbers_for(p)
        elif p.type == "str":
            values = list(HOSTILE_TEXT) + list(KIND_TEXT.get(kind.name, {}).get(p.name, ()))
        elif p.type == "choice":
            values = list(p.choices)
        else:
            values = [True, False]
        for v in values:
            if v != base.get(p.name, p.default):
                out.append({**base, p.name: v})
    # no scenario or strategy chosen: every boolean off at once
    bools = {p.name: False for p in kind.params if p.type == "bool"}
    if bools:
        out.append({**base, **bools})
    return out


def _run(kind: str, params: dict[str, Any], inputs: dict[str, list], seed: int) -> str:
    """(In the forked child) the engine's run; the name of its refusal, or "ran"."""
    try:
        engine.run_experiment(kind, params, inputs, seed=seed)
    except (engine.ParamError, engine.InputError, ValueError) as exc:
        return f"refused: {type(exc).__name__}: {exc}"[:300]
    except Exception as exc:  # noqa: BLE001  (a crash on accepted values fails the worker too)
        return f"crashed: {type(exc).__name__}: {exc}"[:300]
    return "ran"


def run_only_refusals(
    kind_name: str, traces: list, slurm_sites: list = ()
) -> tuple[list[str], dict[str, int]]:
    kind = engine.get_kind(kind_name)
    inputs = RunInputs.of(traces, slurm_sites=slurm_sites)
    loaded = RunInputs.of(
        [trace_open(t) for t in traces], slurm_sites=[slurm_site_open(s) for s in slurm_sites]
    ).for_kind(kind)
    counts = {"generated": 0, "cases": 0, "refused_at_submit": 0, "ran": 0, "inconclusive": 0}
    failures = []
    # ordinary runs: every other case, alternating by kind (every case under
    # GRIDPORTAL_FULL_TESTS=1)
    at = [k.name for k in engine.kinds()].index(kind_name)
    cases = cases_for(kind)
    counts["generated"] = len(cases)
    for params in rotating(cases, at, 2) if len(cases) > 20 else cases:
        counts["cases"] += 1
        try:
            validate_run(kind=kind_name, params=params, inputs=inputs)
        except ValidationError:
            counts["refused_at_submit"] += 1
            continue
        try:
            outcome = run_limited(
                _run, kind_name, params, loaded, 0,
                timeout=WALL_GUARD_S, cpu_s=BUDGET_S, memory_mb=MEMORY_MB,
            )  # fmt: skip
        except LimitExceeded:
            counts["inconclusive"] += 1
            continue
        if outcome == "ran":
            counts["ran"] += 1
        else:
            changed = {k: v for k, v in params.items() if base_for(kind_name).get(k) != v}
            failures.append(f"{kind_name} {changed}: accepted at submit, run {outcome}")
    return failures, counts


@pytest.mark.parametrize("kind_name", [k.name for k in engine.kinds()])
def test_every_run_refusal_is_a_submit_refusal(kind_name, alice, media_root):
    kind = engine.get_kind(kind_name)
    failures, counts = run_only_refusals(kind_name, **inputs_for_kind(alice, kind))
    COUNTS[kind_name] = counts
    print(kind_name, counts)  # noqa: T201  (the counts, with -s)
    assert counts["generated"] >= 10
    accepted = counts["ran"] + counts["inconclusive"]
    assert accepted < 5 or counts["ran"], f"every accepted case used {BUDGET_S} s of CPU: {counts}"
    assert not failures, "\n".join(failures)
