"""Experiment kind ``coallocation``: advance-reservation co-allocation of sites and bandwidth
(Takefusa et al. 2010, "Comparison of Co-allocation Success Ratios",
"Comparison of service levels", "Comparison of Resource Utilizations with administrator
options (A) and (B)", "Comparison of planning times").

During a first day two users send Poisson requests (types 1–4, CPUs {1, 2, 4, 8} — one draw
for all sites of a request by default, see ``CALIBRATION`` — 1 Gbps per path,
D ∈ {30, 60, 120} min, LST − EST + D = 3D) for the next day until the requested load reaches
``max_load``; the GRC plans each over N frames with the 0-1 IP and reserves the first plan
all-or-nothing (:mod:`scheduler.coallocation`).  The same workload is replayed per
scenario: normal; service levels (UserB low priority, option C); load balancing (A);
preference by domain (B1); preference by CPU count (B2).

Success ratio vs load is reported per 10 % bin of requested load (the ratio among the requests
that brought the load from 40 to 50 %, …) and cumulatively.  Planning wall times are measured
only with ``measure_time`` (they are the one non-deterministic output).
"""

from __future__ import annotations

import dataclasses
import random
import statistics
from typing import Any

from ..coallocation.admin_options import domain_utilization
from ..coallocation.planner import PlannerConfig
from ..coallocation.requests import SHAPES
from ..coallocation.simulate import (
    Outcome,
    SimResult,
    expected_requests,
    seed_workload,
    simulate,
)
from ..coallocation.topology import Topology, TopologyError, builtin_topologies, load_topology
from .base import ExperimentKind, InputSpec, Preset, chart, register, result, series, table
from .claims import of
from .schema import Param, ParamError, split_list


def _domain_order(text: str) -> list[str]:
    """Comma-separated domain names (checked against the topology when the run starts)."""
    names = split_list(text, "domain_order", max_items=100)
    if any(len(n) > 100 for n in names):
        raise ParamError({"domain_order": "domain names have at most 100 characters"})
    return names


#: Most requests a run plans (expected, over all its workloads).  A drawn request and its
#: planning outcome take about 2 KiB (a run of 1.3 million grew to 2.6 GiB), so 20,000 stay
#: within ~40 MiB; the bound is checked on the expected count, before a request is drawn.
MAX_REQUESTS = 20_000

SCENARIOS = (
    ("normal", "normal", "none", False),
    ("service_levels", "service levels (UserB low priority)", "none", True),
    ("load_balancing", "(A) load balancing", "A", False),
    ("pref_domain", "(B1) preference by domain", "B-domain", False),
    ("pref_cpus", "(B2) preference by # of CPUs", "B-cpus", False),
)
USERS = ("UserA", "UserB")
#: Per-domain utilizations go into the summary for topologies with at most this many domains
#: (the "domain-utilization" chart shows every domain).
MAX_DOMAIN_KEYS = 20

# In-domain wiring of a built-in testbed.  The seed's "Simulation Settings" give link classes
# ("in-domain: 5 Gbps / value 5, inter domain: 10 / 3"), not which site pairs are linked.
WIRINGS = {
    "mesh": "every pair of sites of a domain linked (5 Gbps)",
    "star": "each site linked to its domain's largest site (5 Gbps)",
    "none": "no in-domain links: every path goes through an exchange point",
}
REQUEST_CPUS = {
    "per-site": "each requested site draws its CPUs from {1, 2, 4, 8}",
    "same": "one draw from {1, 2, 4, 8} per request, for all its sites",
}

# What the seed does not give and how we chose it (shown on the Reproductions page).  Measured
# with bench/calibrate_coallocation.py (10 workloads, seed 0, normal + service levels, load up
# to 100 %): success ratio in the 70–80 % bin (paper: "over 0.61"), in the 40–50 % bin (paper:
# "about 0.90"), UserA / UserB in the 90–100 % bin with UserB at low priority (paper: 0.60 /
# 0.37).  ``fit`` is the sum of squared distances to the four paper values.
CALIBRATION: dict[str, Any] = {
    "unknowns": {
        "wiring": "the testbed's in-domain links (the seed gives link classes, not pairs): "
        + "; ".join(f"{k}: {v}" for k, v in WIRINGS.items()),
        "shape": "how a request's sites are joined (the seed's type figure is not in the "
        "text): star around the first site, or every pair (mesh)",
        "request_cpus": "whether 'Requested # of CPUs 1, 2, 4, 8 for all sites' is one draw per "
        "site or per request",
    },
    # what the choice is made on (claims/calibrations.py: these claims are "fitted", the
    # success ratios held out and counted); every printed ratio, for the splits' table
    "targets": {"service_levels_UserA_at_100": 0.60, "service_levels_UserB_at_100": 0.37},
    "printed": {"normal_success_at_50": 0.90, "normal_success_at_80": 0.61,
                "service_levels_UserA_at_100": 0.60, "service_levels_UserB_at_100": 0.37},
    "chosen": {"wiring": "mesh", "shape": "star", "request_cpus": "same"},
    "note": "calibrated: the seed gives neither the testbed's wiring nor the request types' "
    "shapes, and 'Requested # of CPUs 1, 2, 4, 8 for all sites' reads either way; we chose "
    "the set-up that fits the paper's four printed ratios best: in-domain full mesh, star "
    "requests, one CPU count per request (bench/calibrate_coallocation.py).  Since the "
    "planners of 2026-11-25 and 2026-11-27 pick other plans among equally cheap ones, star "
    "wiring fits as well (0.0034 both, within what tie-breaking alone moves): the ratios "
    "cannot tell the two in-domain wirings apart, and we keep the mesh.  Wiring 'none' "
    "is shown for sensitivity only: the seed lists an in-domain link class, so it is not a "
    "candidate.  Mesh-shaped requests (every pair of sites joined) fit worse with every wiring "
    "(0.0136 mesh, 0.0233 star, 0.1048 none: fewer requests fit, 0.44–0.55 at 80 % load), so "
    "the star shape stays.",
    # (wiring, shape, request_cpus, at 50 %, at 80 %, UserA at 100 %, UserB at 100 %, fit),
    # 10 workloads, seed 0, bench/calibrate_coallocation.py --shape star (measured 2026-11-27,
    # 43 s for the six).  The planners of 2026-11-25 (exact leaf pruning, its own branch and
    # bound) and 2026-11-27 (leaf pruning over tight links too) find the same optimum in every
    # frame but may return another of equally cheap plans; that alone moved the chosen
    # set-up's fit from 0.0014 to 0.0033 to 0.0034 (2026-11-23: mesh 0.9003 / 0.6325 / 0.5714
    # / 0.3636, star 0.0020, none 0.0037; 2026-11-25: mesh 0.9058 / 0.6535 / 0.5630 / 0.3719,
    # star 0.0031, none 0.0020).  Mesh and star wiring fit alike (0.0034 both), within what
    # tie-breaking alone moves: the data cannot tell the two wirings apart, and we keep the
    # in-domain mesh.
    "measured": [
        ("mesh", "star", "same", 0.9003, 0.6588, 0.5966, 0.3388, 0.0034),
        ("star", "star", "same", 0.9003, 0.6535, 0.5630, 0.3802, 0.0034),
        ("none", "star", "same", 0.8864, 0.5906, 0.5462, 0.3058, 0.0076),
        ("mesh", "star", "per-site", 0.9545, 0.6066, 0.4961, 0.2313, 0.0330),  # before
        ("star", "star", "per-site", 0.9574, 0.5873, 0.5039, 0.2090, 0.0390),
        ("none", "star", "per-site", 0.9375, 0.5845, 0.5118, 0.2090, 0.0358),
        # --shape mesh --cpus same (measured 2026-11-25 with that day's planner, 1,344 s for
        # the three on the loaded machine; before it one of them did not finish in 10 minutes)
        ("mesh", "mesh", "same", 0.8587, 0.5538, 0.5714, 0.2810, 0.0136),
        ("star", "mesh", "same", 0.8670, 0.5249, 0.5378, 0.2645, 0.0233),
        ("none", "mesh", "same", 0.7452, 0.4383, 0.4622, 0.1901, 0.1048),
    ],
    "paper": (0.90, 0.61, 0.60, 0.37),
}  # fmt: skip


#: The columns of ``CALIBRATION["measured"]`` that hold the four printed ratios.
_MEASURED_COLUMNS = ("normal_success_at_50", "normal_success_at_80",
                     "service_levels_UserA_at_100", "service_levels_UserB_at_100")  # fmt: skip


def calibration_splits(
    measured: tuple | list | None = None, tolerance: float = 0.05
) -> list[dict[str, Any]]:
    """Both ways to split Takefusa et al.'s (2010) four printed ratios into calibration targets
    and held-out checks: choose the candidate set-up (wiring "none" is no candidate: the seed
    lists an in-domain link class) closest to the targets, then read the held-out ratios of
    that set-up and whether each lies within ``tolerance`` of the paper's (the 80 % ratio,
    printed as 'over 0.61', also when above).  From the measured table, without running anything."""
    rows = [r for r in (measured or CALIBRATION["measured"]) if r[0] != "none"]
    printed = CALIBRATION["printed"]
    halves = (_MEASURED_COLUMNS[2:], _MEASURED_COLUMNS[:2])
    out = []
    for targets, held in (halves, halves[::-1]):

        def fit(row: tuple, names: tuple = targets) -> float:
            return sum((row[3 + _MEASURED_COLUMNS.index(n)] - printed[n]) ** 2 for n in names)

        best = min(rows, key=fit)
        checks = {}
        for name in held:
            ours = best[3 + _MEASURED_COLUMNS.index(name)]
            ok = abs(ours - printed[name]) <= tolerance or (
                name == "normal_success_at_80" and ours >= printed[name]
            )
            checks[name] = {"ours": ours, "paper": printed[name], "within": ok}
        out.append({"targets": list(targets), "chosen": dict(zip(
            ("wiring", "shape", "request_cpus"), best[:3], strict=True)),
            "fit": round(fit(best), 5), "held_out": checks})  # fmt: skip
    return out


def wire(doc: dict[str, Any], wiring: str) -> dict[str, Any]:
    """``doc`` (a topology document) with its in-domain site-to-site links per ``wiring``."""
    if wiring not in WIRINGS:
        raise ParamError({"wiring": f"unknown wiring {wiring!r}"})
    if wiring == "mesh":
        return doc
    domain = {s["name"]: s["domain"] for s in doc["sites"]}
    cpus = {s["name"]: s["cpus"] for s in doc["sites"]}
    hub: dict[str, str] = {}
    for s in doc["sites"]:  # the largest site of each domain (the first one on ties)
        h = hub.get(s["domain"])
        if h is None or s["cpus"] > cpus[h]:
            hub[s["domain"]] = s["name"]
    links = []
    for ln in doc["links"]:
        a, b = ln["between"]
        if a in domain and b in domain and domain[a] == domain[b]:
            if wiring == "none" or hub[domain[a]] not in (a, b):
                continue
        links.append(ln)
    return {**doc, "links": links}


def same_cpus(requests: list) -> list:  # type: ignore[type-arg]
    """Requests whose sites all ask the first site's CPUs (``request_cpus = same``)."""
    out = []
    for r in requests:
        c = r.sites[0].cpus
        sites = tuple(dataclasses.replace(s, cpus=c) for s in r.sites)
        out.append(dataclasses.replace(r, sites=sites))
    return out


def _r(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(float(x), digits)


def _ratio(outs: list[Outcome]) -> float | None:
    return sum(o.success for o in outs) / len(outs) if outs else None


@register
class Coallocation(ExperimentKind):
    name = "coallocation"
    title = "Co-allocation of compute sites and network bandwidth (advance reservation)"
    description = (
        "Plans co-allocation requests (CPUs at several sites and bandwidth between them, at "
        "the same time) as a 0-1 integer program per candidate time frame, solved by HiGHS, "
        "and reserves all or nothing; reports the success ratio vs requested load, per user "
        "priority, site utilization under the administrator options and planning times."
    )
    reproduces = (
        "Takefusa et al. 2010: success ratios, service levels, administrator options "
        "(A)/(B), planning times"
    )
    params = (
        Param("topology", "choice", "seed001", choices=tuple(builtin_topologies()),
              help="Built-in testbed used when no topology input is given."),
        Param("max_load", "float", 100, min=1, max=300, label="requested load at the end (%)",
              help="Requests arrive until the next day's requested CPU load reaches this."),
        Param("day", "int", 86400, min=21600, max=7 * 86400, label="day length (s)",
              help="Requests arrive over [0, day) for resources in [day, 2·day)."),
        Param("workloads", "int", 10, min=1, max=100, label="independent workloads",
              help="Day-ahead workloads simulated and pooled (seeded): a 10 % load bin holds "
              "only a few dozen requests of one workload, so one alone is noisy."),
        Param("shape", "choice", "star", choices=SHAPES, label="request shape",
              help="Type t has t + 1 requested sites, joined as a star around the first site "
              "or pairwise (mesh).  Not in the seed: calibrated (CALIBRATION)."),
        Param("wiring", "choice", "mesh", choices=tuple(WIRINGS), label="in-domain wiring",
              help="In-domain links of the built-in testbed (ignored for an uploaded "
              "topology): " + "; ".join(f"{k}: {v}" for k, v in WIRINGS.items())
              + ".  Not in the seed: calibrated (CALIBRATION)."),
        Param("request_cpus", "choice", "same", choices=tuple(REQUEST_CPUS),
              label="requested CPUs drawn",
              help="; ".join(f"{k}: {v}" for k, v in REQUEST_CPUS.items())
              + ".  The seed's wording allows both: calibrated (CALIBRATION)."),
        Param("frames", "int", 10, min=1, max=50, label="time frames N"),
        Param("option", "choice", "earliest", choices=("earliest", "cheapest", "quality"),
              label="user option"),
        Param("p_max", "int", 2, min=0, max=100, label="P_max (0: no constraint (11))"),
        Param("two_way", "bool", True, label="constraint (10): no two-way use of a link"),
        Param("solver", "choice", "highs", choices=("highs", "scipy")),
        Param("time_limit", "float", 5.0, min=0.1, max=60, label="IP time limit (s)"),
        Param("solve_all_frames", "bool", False,
              help="Solve the IP of every frame as the seed does; off, the user option "
              "'earliest' stops at the first frame with a plan (the same plan is chosen)."),
        Param("domain_order", "str", "",
              help="Domain preference for (B1), comma-separated (default: topology order).",
              parse=_domain_order),
        Param("normal", "bool", True, label="scenario: normal"),
        Param("service_levels", "bool", True, label="scenario: service levels (C)"),
        Param("load_balancing", "bool", False, label="scenario: (A) load balancing"),
        Param("pref_domain", "bool", False, label="scenario: (B1) preference by domain"),
        Param("pref_cpus", "bool", False, label="scenario: (B2) preference by CPUs"),
        Param("measure_time", "bool", False, label="report planning wall times",
              help="Wall times differ from run to run; off keeps the result deterministic."),
    )  # fmt: skip
    inputs = (
        InputSpec("topology", "topology", 0, 1,
                  "topology document; absent: the testbed of Takefusa et al. 2010"),
    )  # fmt: skip
    presets = (
        Preset(
            "seed001-success-ratios",
            "As in Takefusa et al. 2010, 'Comparison of Co-allocation Success Ratios' and "
            "'Comparison of service levels': normal vs UserB at low priority, load up to 100 %",
            {"normal": True, "service_levels": True, "load_balancing": False,
             "pref_domain": False, "pref_cpus": False},
            minutes=0.5, published=of("coallocation", "seed001-success-ratios"),  # 7 s
        ),
        Preset(
            "seed001-admin-options",
            "As in Takefusa et al. 2010, 'Comparison of Resource Utilizations with administrator "
            "options (A) and (B)': site utilization under load balancing and preference by domain "
            "(N > S > U) and by # of CPUs",
            {"normal": True, "service_levels": False, "load_balancing": True,
             "pref_domain": True, "pref_cpus": True, "domain_order": "N,S,U"},
            minutes=0.5, published=of("coallocation", "seed001-admin-options"),  # 16 s
        ),
        Preset(
            "seed001-planning-times",
            "As in Takefusa et al. 2010, 'Comparison of planning times' (GLPK-st): every frame's "
            "IP solved, P_max = 2, planning time per request measured",
            {"normal": True, "service_levels": False, "solve_all_frames": True,
             "measure_time": True, "p_max": 2, "two_way": True},
        ),
    )  # fmt: skip

    def run(
        self, params: dict[str, Any], inputs: dict[str, list[Any]], seed: int, progress
    ) -> dict[str, Any]:
        topology = self._topology(params, inputs)
        order, chosen = self._checked(params, topology)
        day = params["day"]
        W = params["workloads"]
        # W independent day-ahead workloads (the first one is the single-workload run's), so
        # the per-10 %-of-load success ratios rest on W times more requests
        workloads = [
            seed_workload(
                topology, params["max_load"] / 100,
                random.Random(seed if w == 0 else seed * 1009 + w), users=USERS,
                shape=params["shape"], day=day,
            )
            for w in range(W)
        ]  # fmt: skip
        if params["request_cpus"] == "same":
            workloads = [same_cpus(requests) for requests in workloads]
        total = sum(len(r) for r in workloads)
        results: dict[str, list[SimResult]] = {}
        for n, (key, label, admin, sl) in enumerate(chosen):
            config = PlannerConfig(
                frames=params["frames"],
                option=params["option"],
                admin=admin,
                domain_order=order,
                p_max=params["p_max"] or None,
                two_way=params["two_way"],
                solver=params["solver"],
                time_limit=params["time_limit"],
                stop_at_first=not params["solve_all_frames"],
            )

            results[key] = []
            for w, requests in enumerate(workloads):

                def tick(done: int, total: int, n: int = n, w: int = w, label: str = label) -> None:
                    if done % 20 == 0 or done == total:
                        part = (w + done / max(total, 1)) / W
                        progress((n + part) / len(chosen) * 0.95, label)

                results[key].append(simulate(
                    topology, requests, config,
                    low_priority=frozenset({"UserB"}) if sl else frozenset(),
                    window=(day, 2 * day), on_request=tick,
                ))  # fmt: skip
        body = _report(topology, params, chosen, results, total)
        progress(1.0, "done")
        return body

    def check_facts(self, params: dict[str, Any], facts: dict[str, list[dict[str, Any]]]) -> None:
        """The run's refusals, at submit: the topology document of the facts (or the built-in
        testbed) read as the run reads it, then :meth:`_checked`."""
        docs = [f["document"] for f in facts.get("topology", []) if f.get("document")]
        self._checked(params, self._topology(params, {"topology": docs}))

    @staticmethod
    def _checked(
        params: dict[str, Any], topology: Topology
    ) -> tuple[tuple[str, ...], list[tuple[str, str, str, bool]]]:
        """The domain order and the scenarios chosen, or :class:`ParamError` naming the field:
        a domain the topology does not have, no scenario, more than :data:`MAX_REQUESTS`
        requests expected (computed from the topology's CPUs before any is drawn).  The one
        check of both the submit (:meth:`check_facts`) and the run."""
        order = tuple(_domain_order(params["domain_order"]))
        unknown = [d for d in order if d not in topology.domains]
        if unknown:
            raise ParamError(
                {"domain_order": f"unknown domain {unknown[0]!r} "
                 f"(known: {', '.join(topology.domains)})"}
            )  # fmt: skip
        chosen = [s for s in SCENARIOS if params[s[0]]]
        if not chosen:
            raise ParamError({"normal": "choose at least one scenario"})
        each = expected_requests(topology.total_cpus, params["max_load"] / 100, day=params["day"])
        expected = each * params["workloads"]
        if expected > MAX_REQUESTS:
            raise ParamError({"max_load": (
                f"about {expected:,.0f} requests ({params['workloads']} workloads of "
                f"{each:,.0f} on {topology.total_cpus:,} CPUs over a {params['day']:,} s day): "
                f"at most {MAX_REQUESTS:,}; lower the load, the day or the workloads"
            )})  # fmt: skip
        return order, chosen

    @staticmethod
    def _topology(params: dict[str, Any], inputs: dict[str, list[Any]]) -> Topology:
        given = inputs.get("topology") or []
        try:
            if given:
                return load_topology(given[0])
            return load_topology(wire(builtin_topologies()[params["topology"]], params["wiring"]))
        except TopologyError as exc:
            raise ParamError({"topology": str(exc)}) from None


def _bins(outs: list[Outcome], edges: list[float]) -> list[tuple[float, float | None, float]]:
    """Per bin ``(upper edge %, success ratio in the bin, cumulative ratio)``."""
    out = []
    lo = 0.0
    for hi in edges:
        inside = [o for o in outs if lo < o.load <= hi + 1e-12]
        upto = [o for o in outs if o.load <= hi + 1e-12]
        out.append((round(hi * 100, 6), _ratio(inside), _ratio(upto) or 0.0))
        lo = hi
    return out


def _at(bins: list[tuple[float, float | None, float]], pct: float) -> float | None:
    for hi, r, _ in bins:
        if abs(hi - pct) < 1e-6:
            return _r(r)
    return None


def _report(
    topology: Topology,
    params: dict[str, Any],
    chosen: list[tuple[str, str, str, bool]],
    runs: dict[str, list[SimResult]],
    n_requests: int,
) -> dict[str, Any]:
    # outcomes pooled over the workloads; utilization averaged over them
    results = {k: [o for r in rs for o in r.outcomes] for k, rs in runs.items()}
    top = params["max_load"] / 100
    edges = [round(top * k / 10, 10) for k in range(1, 11)]
    summary: dict[str, Any] = {
        "requests": n_requests,
        "sites": len(topology.sites),
        "links": len(topology.links),
        "cpus": topology.total_cpus,
    }
    labels: dict[str, str] = {"requests": "requests", "cpus": "CPUs in the topology"}
    success_series, sl_series, rows = [], [], []
    util_series = []
    domain_points: dict[str, list[list[Any]]] = {}
    for key, label, _, _ in chosen:
        outs = results[key]
        bins = _bins(outs, edges)
        summary[f"{key}_success"] = _r(_ratio(outs))
        labels[f"{key}_success"] = f"success ratio, {label}"
        for pct in (50, 80, 100):
            summary[f"{key}_success_at_{pct}"] = _at(bins, pct)
            labels[f"{key}_success_at_{pct}"] = (
                f"success ratio in the bin ending at {pct} % load, {label}"
            )
        success_series.append(series(label, [[x, _r(r)] for x, r, _ in bins]))
        for x, r, c in bins:
            rows.append([label, "all", x, _r(r), _r(c)])
        for user in USERS:
            ub = _bins([o for o in outs if o.user == user], edges)
            sl_series.append(series(f"{label}: {user}", [[x, _r(r)] for x, r, _ in ub]))
            for x, r, c in ub:
                rows.append([label, user, x, _r(r), _r(c)])
            summary[f"{key}_{user}_at_100"] = _at(ub, 100)
        a, b = runs[key][0].window
        each = [r.managers.site_busy_seconds(a, b) for r in runs[key]]
        busy = [sum(col) / len(each) for col in zip(*each, strict=True)]
        util = [
            bz / (s.cpus * (b - a)) if s.cpus else 0.0
            for bz, s in zip(busy, topology.sites, strict=True)
        ]
        util_series.append(
            series(label, [[s.name, _r(u)] for s, u in zip(topology.sites, util, strict=True)])
        )
        summary[f"{key}_utilization"] = _r(sum(busy) / (topology.total_cpus * (b - a)))
        # per domain (Takefusa et al. 2010, (B1): "Preferred resources are selected first",
        # N > S > U): the domain's reserved CPU-seconds over its CPUs × the day
        per_domain = domain_utilization(topology, busy, b - a)
        for domain, u in per_domain.items():
            domain_points.setdefault(label, []).append([domain, _r(u)])
            if len(per_domain) <= MAX_DOMAIN_KEYS:  # more: the chart only
                summary[f"{key}_util_{domain}"] = _r(u)
                labels[f"{key}_util_{domain}"] = f"CPU utilization of domain {domain}, {label}"
        summary[f"{key}_ip_solves_per_request"] = _r(
            statistics.mean(o.solves for o in outs) if outs else None
        )
        if params["measure_time"] and outs:
            secs = [o.seconds for o in outs]
            summary[f"{key}_planning_avg_s"] = _r(statistics.mean(secs), 6)
            summary[f"{key}_planning_max_s"] = _r(max(secs), 6)
            solves = [s for o in outs for s in o.solve_seconds]
            if solves:
                summary[f"{key}_ip_solve_avg_s"] = _r(statistics.mean(solves), 6)
    charts = [
        chart("success-vs-load", "line", "Co-allocation success ratio vs requested load",
              x="requested load (%)", y="success ratio (per 10 % of load)", series=success_series),
        chart("service-levels", "line", "Success ratio per user (UserB low priority in SL)",
              x="requested load (%)", y="success ratio (per 10 % of load)", series=sl_series),
        chart("site-utilization", "bar", "Site utilization on the reserved day per scenario",
              x="site", y="CPU utilization", series=util_series),
        chart("domain-utilization", "bar",
              "Domain utilization on the reserved day per scenario",
              x="domain", y="CPU utilization",
              series=[series(label, pts) for label, pts in domain_points.items()]),
    ]  # fmt: skip
    by_sites: dict[tuple[str, int], list[int]] = {}
    for key, label, _, _ in chosen:
        for o in results[key]:
            by_sites.setdefault((label, o.sites), []).append(o.solves)
    charts.append(
        chart("ip-solves", "bar", "IPs solved per request by # of requested sites",
              x="requested sites", y="IPs solved (mean)",
              series=[series(label, [[str(k), _r(statistics.mean(by_sites[label, k]))]
                                     for k in sorted(k for (lb, k) in by_sites if lb == label)])
                      for _, label, _, _ in chosen])
    )  # fmt: skip
    if params["measure_time"]:
        pts = []
        for key, label, _, _ in chosen:
            outs = results[key]
            step = max(1, len(outs) // 1000)
            pts.append(series(label, [[o.request, _r(o.seconds, 6)] for o in outs[::step]]))
        charts.append(chart("planning-time", "scatter", "Planning time per request",
                            x="request", y="planning time (s)", series=pts,
                            y_scale="log"))  # fmt: skip
    tables = [
        table("success-ratios", "Success ratio per 10 % of requested load",
              ["scenario", "user", "load (%)", "success ratio in bin", "cumulative"], rows),
    ]  # fmt: skip
    # Key results: how many co-allocations succeed and how busy the sites are, per
    # scenario (at most three)
    scns = [key for key, _, _, _ in chosen][:3]
    key = [f"{k}_success" for k in scns] + [f"{k}_utilization" for k in scns]
    if len(scns) == 1:
        key += [f"{scns[0]}_success_at_100", f"{scns[0]}_ip_solves_per_request", "requests"]
    elif len(scns) == 2:
        key.append("requests")
    return result(summary, labels, key, tables, charts)


def calibrate(
    grid: dict[str, tuple[str, ...]] | None = None,
    *,
    workloads: int = 10,
    seed: int = 0,
    on_row=None,  # type: ignore[no-untyped-def]
) -> list[dict[str, Any]]:
    """Run the success-ratio set-up (normal + service levels, load to 100 %) for every
    combination of the unknowns in ``grid`` and score each against the paper's four printed
    ratios it is calibrated on (``CALIBRATION["targets"]``, the service levels; the success
    ratios are held out): ``fit`` = Σ (ours − paper)², lower is better.
    ``on_row(row)`` is called as each combination finishes."""
    from .base import run_experiment

    grid = grid or {"wiring": tuple(WIRINGS), "shape": SHAPES,
                    "request_cpus": tuple(REQUEST_CPUS)}  # fmt: skip
    names = list(grid)
    combos: list[dict[str, str]] = [{}]
    for n in names:
        combos = [{**c, n: v} for c in combos for v in grid[n]]
    targets = CALIBRATION["targets"]
    rows = []
    for combo in combos:
        params = {"normal": True, "service_levels": True, "max_load": 100,
                  "workloads": workloads, **combo}  # fmt: skip
        s = run_experiment("coallocation", params, {}, seed=seed)["summary"]
        got = {k: s.get(k) for k in CALIBRATION["printed"]}
        fit = sum((got[k] - v) ** 2 for k, v in targets.items() if got[k] is not None)
        row = {**combo, **got, "fit": round(fit, 4)}
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return sorted(rows, key=lambda r: r["fit"])
