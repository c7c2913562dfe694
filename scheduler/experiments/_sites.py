"""Sites of the slot and provisioning experiments: one simulated cluster per trace input.

Per-site settings are scalar string parameters holding comma-separated lists, one value per
site; a list shorter than the number of sites repeats its last value (so ``"1"`` means 1
everywhere).  ``site_traces`` maps sites to the trace inputs (1-based), so one uploaded trace
can feed several sites at different loads (thesis §4.9 built six sites from CTC-SP2 and
SDSC-SP2); by default each trace input is one site.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..bounds import MAX_MONEY, MAX_PROCS
from ..cluster import prepare_jobs
from ..cluster.jobs import SimJob
from ..cluster.simulator import Simulator
from ..traces.load import offered_load, shifted_copy
from ..traces.swf import Trace
from ._facts import check_trace_facts
from .schema import Param, ParamError, number_list, split_list

MAX_SITES = 6


def _names(text: str) -> list[str]:
    """Comma-separated distinct, non-empty site names (at most 6 of 100 characters)."""
    names = split_list(text, "site_names", max_items=MAX_SITES)
    if text.strip() and len(names) != len(text.split(",")):  # ",,," or "a,,b"
        raise ParamError({"site_names": "a site name is empty: give non-empty names"})
    if len(set(names)) != len(names) or any(len(n) > 100 for n in names):
        raise ParamError({"site_names": "give distinct names of at most 100 characters"})
    return names


#: The parsers of the per-site string parameters: run by ``Param.clean`` at submit and again
#: when the run starts (one schema, two uses); :func:`build_sites` then maps them.
SITE_PARSERS = {
    "procs": lambda t: number_list(t, "procs", lo=0, hi=MAX_PROCS, integer=True,
                                   max_items=MAX_SITES),
    "site_traces": lambda t: number_list(t, "site_traces", lo=1, hi=MAX_SITES, integer=True,
                                         max_items=MAX_SITES, allow_empty=True),
    "site_names": _names,
    "load_p": lambda t: number_list(t, "load_p", lo=0, hi=1, max_items=MAX_SITES),
    "unit_cost": lambda t: number_list(t, "unit_cost", lo=0, hi=MAX_MONEY, max_items=MAX_SITES),
    "fixed_cost": lambda t: number_list(t, "fixed_cost", lo=0, hi=MAX_MONEY,
                                        max_items=MAX_SITES),
}  # fmt: skip

__all__ = ["SITE_PARAMS", "SiteSetup", "build_sites", "per_site"]

SITE_PARAMS: tuple[Param, ...] = (
    Param(
        "procs", "str", "0", label="processors per site",
        help="Comma-separated, one per site (a short list repeats its last value); 0 takes "
        "MaxProcs from the trace header. The thesis ran CTC-SP2 with 430 and SDSC-SP2 with 128.",
        parse=SITE_PARSERS["procs"],
    ),
    Param(
        "site_traces", "str", "", label="trace of each site",
        help="Comma-separated 1-based trace numbers, one per site (e.g. 1,2,1,2,1,2 builds six "
        "sites from two traces); empty: one site per trace.",
        parse=SITE_PARSERS["site_traces"],
    ),
    Param(
        "num_sites", "int", 0, min=0, max=6, label="number of sites used",
        help="Use the first k sites only (0: all). Sweep it for thesis Figure 19.",
    ),
    Param(
        "site_names", "str", "", label="site names",
        help="Comma-separated names (per-site task runtimes refer to them); default site1, "
        "site2, …",
        parse=SITE_PARSERS["site_names"],
    ),
    Param(
        "load_p", "str", "0", label="load scaling p per site",
        help="Thesis §4.7: a copy of the trace one week later is added, each job kept with "
        "probability p (0: the trace as is). Comma-separated per site.",
        parse=SITE_PARSERS["load_p"],
    ),
    Param("unit_cost", "str", "1", label="unit cost c per site",
          help="SU per processor-hour of a slot (thesis: 1). Comma-separated per site.",
          parse=SITE_PARSERS["unit_cost"]),
    Param("fixed_cost", "str", "0", label="fixed cost f per site",
          help="SU per slot provisioned (thesis: 0). Comma-separated per site.",
          parse=SITE_PARSERS["fixed_cost"]),
)  # fmt: skip


@dataclass
class SiteSetup:
    """One simulated site: its trace (after load scaling), jobs and prices."""

    name: str
    trace_index: int
    procs: int
    load_p: float
    unit_cost: float
    fixed_cost: float
    trace: Trace
    jobs: list[SimJob]
    offered_load: float | None

    def simulator(self) -> Simulator:
        return Simulator(self.jobs, self.procs, "conservative")


def site_layout(params: dict[str, Any], k: int) -> tuple[list[int], list[str], list[list[Any]]]:
    """The sites over ``k`` trace inputs: the 1-based trace of each site (the first
    ``num_sites`` of them), their names and the per-site lists (procs, load p, unit and fixed
    cost), or :class:`ParamError` naming the field.  The one check of :func:`build_sites` and
    of the submit (:func:`check_site_facts`): it needs only how many traces there are."""
    if params["site_traces"].strip():
        try:
            mapping = [int(p) for p in params["site_traces"].split(",")]
        except ValueError:
            raise ParamError({"site_traces": "give 1-based trace numbers, e.g. 1,2,1"}) from None
        bad = [m for m in mapping if not 1 <= m <= k]
        if bad:
            raise ParamError({"site_traces": f"no trace number {bad[0]} ({k} given)"})
        if len(mapping) > MAX_SITES:
            raise ParamError({"site_traces": f"at most {MAX_SITES} sites"})
    else:
        mapping = list(range(1, k + 1))
    n = len(mapping)
    lists = [
        per_site(params, "procs", n, int),
        per_site(params, "load_p", n, _nonneg("load_p")),
        per_site(params, "unit_cost", n, _nonneg("unit_cost")),
        per_site(params, "fixed_cost", n, _nonneg("fixed_cost")),
    ]
    if any(p > 1 for p in lists[1]):
        raise ParamError({"load_p": "probabilities must be <= 1"})
    names_text = params["site_names"].strip()
    names = [x.strip() for x in names_text.split(",")] if names_text else []
    if len(names) > n or len(set(names)) != len(names) or any(not x for x in names):
        raise ParamError({"site_names": f"give up to {n} distinct, non-empty names"})
    names += [f"site{r + 1}" for r in range(len(names), n)]
    if params["num_sites"]:  # the first k sites of those described
        if params["num_sites"] > n:
            raise ParamError({"num_sites": f"only {n} sites are defined"})
        mapping = mapping[: params["num_sites"]]
    return mapping, names, lists


def check_site_facts(params: dict[str, Any], traces: list[dict[str, Any]]) -> None:
    """What :func:`build_sites` refuses given only how many traces there are and their
    summaries (the kinds' ``check_facts``: at submit and before the run)."""
    mapping, _, (procs, *_) = site_layout(params, len(traces))
    for r, m in enumerate(mapping):
        if traces[m - 1] and not (procs[r] or traces[m - 1].get("machine_procs")):
            raise ParamError({"procs": f"site {r + 1}: the machine size is unknown"})
        # a site whose machine no job of its trace fits has nothing to simulate
        check_trace_facts(traces[m - 1], procs[r], where=f"site {r + 1}'s trace")


def per_site(
    params: dict[str, Any], name: str, sites: int, cast: Callable[[str], Any]
) -> list[Any]:
    """The per-site list held by string parameter ``name`` (short lists repeat the last)."""
    text = str(params[name]).strip()
    parts = [p.strip() for p in text.split(",")] if text else []
    if len(parts) > sites:
        raise ParamError({name: f"{len(parts)} values for {sites} sites"})
    try:
        values = [cast(p) for p in parts]
    except ParamError:
        raise
    except ValueError:
        raise ParamError({name: f"cannot read {text!r} as a comma-separated list"}) from None
    if not values:
        raise ParamError({name: "give at least one value"})
    return values + [values[-1]] * (sites - len(values))


def _nonneg(name: str) -> Callable[[str], float]:
    def cast(text: str) -> float:
        value = float(text)
        if not math.isfinite(value) or value < 0:
            raise ParamError({name: f"values must be finite and >= 0, got {text!r}"})
        return value

    return cast


def build_sites(
    params: dict[str, Any], traces: list[Trace], seed: int, estimates: str = "accurate"
) -> list[SiteSetup]:
    """The sites described by ``params`` over the trace inputs (load scaling seeded by
    ``seed`` and the site number), their jobs prepared with ``estimates``."""
    mapping, names, (procs, loads, unit, fixed) = site_layout(params, len(traces))
    sites = []
    for r, m in enumerate(mapping):
        trace = traces[m - 1]
        machine = procs[r] or trace.machine_procs
        if machine < 1:
            raise ParamError({"procs": f"site {r + 1}: the machine size is unknown"})
        if loads[r] > 0:
            trace = shifted_copy(trace, loads[r], seed=seed + 1000 * (r + 1))
        jobs, _ = prepare_jobs(trace.jobs, machine, estimates)
        if not jobs:
            raise ParamError({"site_traces": f"site {r + 1}: the trace has no job to simulate"})
        sites.append(
            SiteSetup(
                names[r], m, machine, loads[r], unit[r], fixed[r], trace, jobs,
                offered_load(trace, machine),
            )
        )  # fmt: skip
    return sites
