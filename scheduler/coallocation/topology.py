"""The resource graph G = (V, E) of co-allocation: compute sites, exchange points, links
(Takefusa et al. 2010).

Takefusa et al. 2010, "Resource and Request Notations": V holds compute sites (available
CPUs ``wc_i``, unit value ``vc_i``) and network-domain exchange points; E holds undirected links
whose two directions share one available bandwidth ``wb_k`` (unit value ``vb_k``).

A topology is a JSON document::

    {"name": "seed001", "title": "...",
     "sites": [{"name": "N0", "domain": "N", "cpus": 8, "value": 1, "quality": 1}, ...],
     "exchange_points": [{"name": "X1", "domains": ["N", "S", "U"]}, ...],
     "links": [{"between": ["N0", "N1"], "bandwidth": 5, "value": 5, "quality": 1}, ...]}

Units: ``bandwidth`` in Gbps (stored as integer Mbps, the unit of the per-link availability
profile), link ``value`` per Gbps-hour, site ``value`` per CPU-hour; ``quality`` (> 0, default
1, higher is better) is used by the user option "quality".  :func:`load_topology` validates a
document and raises :class:`TopologyError` naming the JSON path of the first offending field
(``links[3].bandwidth: must be > 0``); every problem found is in ``errors``.

The built-in ``SEED001`` document is the seed's testbed (slide "Simulation Settings"): domains
N (4 sites), S (3), U (3), exchange points X1{N, S, U} and X2{N, S}, CPUs N{8,16,32,64},
S{8,16,32}, U{8,16,32} of unit value 1.  The seed gives link classes, not the wiring; we read
"in-domain 5 Gbps / value 5" as a full mesh between the sites of a domain and "inter-domain
10 Gbps / value 3" as one link from each site to each exchange point of its domain, so every
pair of sites is at most two links apart — which is what the seed's P_max = 2 presumes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from pathlib import Path
from typing import Any

from ..bounds import (
    MAX_BANDWIDTH_GBPS,
    MAX_FACTOR,
    MAX_MONEY,
    MAX_PROCS,
    BoundError,
    check_text,
)

__all__ = [
    "Site",
    "ExchangePoint",
    "Link",
    "Topology",
    "TopologyError",
    "load_topology",
    "load_topology_file",
    "topology_as_json",
    "builtin_topologies",
    "seed001_document",
    "generated_document",
    "layout",
    "SEED001",
    "MBPS_PER_GBPS",
]

MBPS_PER_GBPS = 1000
MAX_NODES = 2000
MAX_LINKS = 20000
MAX_BYTES = 2_000_000


class TopologyError(ValueError):
    """An invalid topology document; ``path`` names the first offending field, ``errors`` maps
    every offending JSON path to its message."""

    def __init__(self, errors: dict[str, str]):
        self.errors = dict(errors)
        self.path = next(iter(self.errors), "")
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


@dataclass(frozen=True)
class Site:
    name: str
    domain: str
    cpus: int
    value: float = 1.0
    quality: float = 1.0


@dataclass(frozen=True)
class ExchangePoint:
    name: str
    domains: tuple[str, ...]


@dataclass(frozen=True)
class Link:
    """An undirected link; both directions share ``mbps``."""

    a: str
    b: str
    mbps: int
    value: float = 1.0
    quality: float = 1.0

    @property
    def key(self) -> tuple[str, str]:
        return (self.a, self.b)


@dataclass(frozen=True)
class Topology:
    name: str
    sites: tuple[Site, ...]
    exchange_points: tuple[ExchangePoint, ...]
    links: tuple[Link, ...]
    title: str = ""

    @cached_property
    def nodes(self) -> tuple[str, ...]:
        """Sites first (in document order), then exchange points."""
        return tuple(s.name for s in self.sites) + tuple(x.name for x in self.exchange_points)

    @cached_property
    def site_index(self) -> dict[str, int]:
        return {s.name: i for i, s in enumerate(self.sites)}

    @cached_property
    def node_index(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.nodes)}

    @cached_property
    def domains(self) -> tuple[str, ...]:
        """Domains in order of first appearance (sites, then exchange points)."""
        seen: dict[str, None] = {}
        for s in self.sites:
            seen.setdefault(s.domain, None)
        for x in self.exchange_points:
            for d in x.domains:
                seen.setdefault(d, None)
        return tuple(seen)

    @property
    def total_cpus(self) -> int:
        return sum(s.cpus for s in self.sites)


# ------------------------------------------------------------------------------ validation


def _describe(v: Any) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if v is None:
        return "null"
    if isinstance(v, str):
        return f"the string {v[:40]!r}"
    if isinstance(v, (int, float)):
        return repr(v)
    return f"a {type(v).__name__}"


def _number(errs: dict[str, str], obj: Mapping, key: str, path: str, *, default=None,
            positive: bool = False, integer: bool = False,
            hi: float = MAX_FACTOR) -> float | None:  # fmt: skip
    v = obj.get(key, default)
    where = f"{path}.{key}"
    if v is None:
        errs.setdefault(where, "is required")
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        errs.setdefault(where, f"must be a finite number, got {_describe(v)}")
        return None
    if integer and not float(v).is_integer():
        errs.setdefault(where, f"must be an integer, got {v!r}")
        return None
    if positive and v <= 0:
        errs.setdefault(where, f"must be > 0, got {v!r}")
        return None
    if not positive and v < 0:
        errs.setdefault(where, f"must be >= 0, got {v!r}")
        return None
    if v > hi:  # physical bounds (scheduler.bounds)
        errs.setdefault(where, f"must be at most {hi:.6g}, got {float(v):.6g}")
        return None
    return v


def _name(errs: dict[str, str], obj: Mapping, key: str, path: str) -> str | None:
    v = obj.get(key)
    if not isinstance(v, str) or not v.strip():
        errs.setdefault(f"{path}.{key}", f"must be a non-empty string, got {_describe(v)}")
        return None
    if len(v) > 100:
        errs.setdefault(f"{path}.{key}", "must be at most 100 characters")
        return None
    try:
        check_text(v, f"{path}.{key}")
    except BoundError as exc:
        errs.setdefault(exc.field, exc.message)
        return None
    return v


def _list(errs: dict[str, str], doc: Mapping, key: str, limit: int, required: bool) -> list:
    v = doc.get(key, None if required else [])
    if not isinstance(v, list):
        errs.setdefault(key, f"must be a JSON array, got {_describe(v)}")
        return []
    if len(v) > limit:
        errs.setdefault(key, f"at most {limit} entries, got {len(v)}")
        return []
    return v


def load_topology(doc: Any) -> Topology:
    """Validate a topology document (a dict, JSON text or a :class:`Topology`) and return it.

    Raises :class:`TopologyError` naming the JSON path, e.g. ``links[3].bandwidth: must be > 0``
    or ``links: the topology is disconnected: ...``.
    """
    if isinstance(doc, Topology):
        return doc
    if isinstance(doc, (str, bytes)):
        from ..jsonvalues import loads

        try:
            doc = loads(doc)
        except ValueError as exc:
            raise TopologyError({"$": str(exc)}) from None
    if not isinstance(doc, Mapping):
        raise TopologyError({"$": f"must be a JSON object, got {_describe(doc)}"})
    errs: dict[str, str] = {}
    name = doc.get("name", "topology")
    if not isinstance(name, str) or not name:
        errs["name"] = f"must be a non-empty string, got {_describe(name)}"
        name = "topology"
    title = doc.get("title", "")
    if not isinstance(title, str):
        errs["title"] = f"must be a string, got {_describe(title)}"
        title = ""
    for key, text in (("name", name), ("title", title)):
        try:
            check_text(text, key, max_length=1000)
        except BoundError as exc:
            errs.setdefault(key, exc.message)

    seen: dict[str, str] = {}  # node name -> path of its definition
    sites: list[Site] = []
    raw_sites = _list(errs, doc, "sites", MAX_NODES, required=True)
    if not raw_sites and "sites" not in errs:
        errs["sites"] = "needs at least one site"
    for k, item in enumerate(raw_sites):
        path = f"sites[{k}]"
        if not isinstance(item, Mapping):
            errs.setdefault(path, f"must be a JSON object, got {_describe(item)}")
            continue
        n = _name(errs, item, "name", path)
        dom = _name(errs, item, "domain", path)
        cpus = _number(errs, item, "cpus", path, integer=True, hi=MAX_PROCS)
        value = _number(errs, item, "value", path, default=1, hi=MAX_MONEY)
        quality = _number(errs, item, "quality", path, default=1, positive=True)
        if n is not None and n in seen:
            errs.setdefault(f"{path}.name", f"duplicate name {n!r} (also {seen[n]})")
            continue
        if None in (n, dom, cpus, value, quality):
            continue
        seen[n] = path
        sites.append(Site(n, dom, int(cpus), float(value), float(quality)))
    site_domains = {s.domain for s in sites}

    xps: list[ExchangePoint] = []
    for k, item in enumerate(_list(errs, doc, "exchange_points", MAX_NODES, required=False)):
        path = f"exchange_points[{k}]"
        if not isinstance(item, Mapping):
            errs.setdefault(path, f"must be a JSON object, got {_describe(item)}")
            continue
        n = _name(errs, item, "name", path)
        doms = item.get("domains", [])
        if (
            not isinstance(doms, list)
            or not all(isinstance(d, str) for d in doms)
            or (len(doms) > MAX_NODES)
        ):
            errs.setdefault(f"{path}.domains", "must be a JSON array of domain names")
            continue
        for i, d in enumerate(doms):
            if d not in site_domains:
                errs.setdefault(f"{path}.domains[{i}]", f"unknown domain {d!r} (no site in it)")
        if n is not None and n in seen:
            errs.setdefault(f"{path}.name", f"duplicate name {n!r} (also {seen[n]})")
            continue
        if n is None:
            continue
        seen[n] = path
        xps.append(ExchangePoint(n, tuple(doms)))

    links: list[Link] = []
    pairs: dict[frozenset, str] = {}
    for k, item in enumerate(_list(errs, doc, "links", MAX_LINKS, required=False)):
        path = f"links[{k}]"
        if not isinstance(item, Mapping):
            errs.setdefault(path, f"must be a JSON object, got {_describe(item)}")
            continue
        ends = item.get("between")
        ok = True
        if not (isinstance(ends, list) and len(ends) == 2):
            errs.setdefault(f"{path}.between", "must be a JSON array of two node names")
            ok = False
        else:
            for i, e in enumerate(ends):
                if not isinstance(e, str) or e not in seen:
                    errs.setdefault(f"{path}.between[{i}]", f"unknown node {_describe(e)}")
                    ok = False
            if ok and ends[0] == ends[1]:
                errs.setdefault(f"{path}.between", f"a link joins two nodes, not {ends[0]!r} twice")
                ok = False
        bw = _number(errs, item, "bandwidth", path, positive=True, hi=MAX_BANDWIDTH_GBPS)
        value = _number(errs, item, "value", path, default=1, hi=MAX_MONEY)
        quality = _number(errs, item, "quality", path, default=1, positive=True)
        if bw is not None:
            mbps = round(bw * MBPS_PER_GBPS)
            if mbps < 1:
                errs.setdefault(f"{path}.bandwidth", f"must be at least 0.001 Gbps, got {bw!r}")
                ok = False
        if not ok or None in (bw, value, quality):
            continue
        pair = frozenset(ends)
        if pair in pairs:
            errs.setdefault(f"{path}.between", f"duplicate link (also {pairs[pair]})")
            continue
        pairs[pair] = path
        links.append(Link(ends[0], ends[1], mbps, float(value), float(quality)))

    if not errs:
        _check_connected(errs, list(seen), links)
    if errs:
        raise TopologyError(errs)
    return Topology(str(name), tuple(sites), tuple(xps), tuple(links), title)


def _check_connected(errs: dict[str, str], nodes: list[str], links: list[Link]) -> None:
    if len(nodes) <= 1:
        return
    adj: dict[str, list[str]] = {n: [] for n in nodes}
    for ln in links:
        adj[ln.a].append(ln.b)
        adj[ln.b].append(ln.a)
    reached = {nodes[0]}
    stack = [nodes[0]]
    while stack:
        for m in adj[stack.pop()]:
            if m not in reached:
                reached.add(m)
                stack.append(m)
    missing = [n for n in nodes if n not in reached]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        errs["links"] = f"the topology is disconnected: {shown} cannot be reached from {nodes[0]}"


def load_topology_file(source: str | Path, **_: Any) -> Topology:
    """Read and validate a topology JSON file (the loader for input kind ``topology``)."""
    path = Path(source)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TopologyError({"$": f"cannot read {path}: {exc.strerror or exc}"}) from None
    if len(data) > MAX_BYTES:
        raise TopologyError({"$": f"{path} is larger than {MAX_BYTES} bytes"})
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TopologyError({"$": f"{path} is not UTF-8 text"}) from None
    return load_topology(text)


def topology_as_json(t: Topology) -> dict[str, Any]:
    """The document of ``t`` (``load_topology(topology_as_json(t)) == t``)."""

    def num(x: float) -> float | int:
        return int(x) if float(x).is_integer() else x

    doc: dict[str, Any] = {"name": t.name}
    if t.title:
        doc["title"] = t.title
    doc["sites"] = [
        {"name": s.name, "domain": s.domain, "cpus": s.cpus, "value": num(s.value)}
        | ({"quality": num(s.quality)} if s.quality != 1 else {})
        for s in t.sites
    ]
    doc["exchange_points"] = [
        {"name": x.name, "domains": list(x.domains)} for x in t.exchange_points
    ]
    doc["links"] = [
        {"between": [ln.a, ln.b], "bandwidth": num(ln.mbps / MBPS_PER_GBPS), "value": num(ln.value)}
        | ({"quality": num(ln.quality)} if ln.quality != 1 else {})
        for ln in t.links
    ]
    return doc


# ------------------------------------------------------------------------------ built-ins


def _domain_document(
    name: str,
    title: str,
    domains: dict[str, list[int]],
    xps: dict[str, list[str]],
    *,
    in_bw: float = 5,
    in_value: float = 5,
    inter_bw: float = 10,
    inter_value: float = 3,
) -> dict[str, Any]:
    """Sites ``<domain><k>`` with the given CPUs, a full mesh inside each domain and a link
    from every site to every exchange point of its domain (see the module docstring)."""
    sites = [
        {"name": f"{d}{k}", "domain": d, "cpus": c, "value": 1}
        for d, cpus in domains.items()
        for k, c in enumerate(cpus)
    ]
    links = []
    for d, cpus in domains.items():
        for i, j in combinations(range(len(cpus)), 2):
            links.append({"between": [f"{d}{i}", f"{d}{j}"], "bandwidth": in_bw, "value": in_value})
    for x, doms in xps.items():
        for d in doms:
            for k in range(len(domains[d])):
                links.append(
                    {"between": [f"{d}{k}", x], "bandwidth": inter_bw, "value": inter_value}
                )
    return {
        "name": name,
        "title": title,
        "sites": sites,
        "exchange_points": [{"name": x, "domains": d} for x, d in xps.items()],
        "links": links,
    }


def seed001_document() -> dict[str, Any]:
    """The testbed of Takefusa et al. 2010 (G-lambda / EnLIGHTened): 3 domains, 2 exchange points,
    10 sites."""
    return _domain_document(
        "seed001",
        "Takefusa et al. 2010 testbed: domains N (4 sites), S (3), U (3); X1{N,S,U}, X2{N,S}",
        {"N": [8, 16, 32, 64], "S": [8, 16, 32], "U": [8, 16, 32]},
        {"X1": ["N", "S", "U"], "X2": ["N", "S"]},
    )


def generated_document(scale: int = 10, seed: int = 0) -> dict[str, Any]:
    """A testbed ``scale`` times the seed's: 3·scale domains of 3–4 sites (CPUs from
    {8, 16, 32, 64}) and 2·scale exchange points, each joining 2–3 domains, chained so the
    graph is connected.  Deterministic in ``seed``."""
    import random

    rng = random.Random(seed)
    domains = {}
    for d in range(3 * scale):
        n = rng.choice((3, 4))
        domains[f"D{d}_"] = sorted(rng.choice((8, 16, 32, 64)) for _ in range(n))
    names = list(domains)
    xps: dict[str, list[str]] = {}
    for x in range(2 * scale):
        # exchange point x joins domain x (a chain keeps it connected) and 1-2 others
        first = names[x % len(names)]
        nxt = names[(x + 1) % len(names)]
        others = rng.sample([d for d in names if d not in (first, nxt)], rng.choice((0, 1)))
        xps[f"X{x}"] = [first, nxt, *others]
    for d in names:  # every domain reaches an exchange point
        if not any(d in v for v in xps.values()):
            xps[f"X{len(xps)}"] = [d, names[0]]
    return _domain_document(f"generated-x{scale}", f"Generated, {scale}x the seed", domains, xps)


SEED001: dict[str, Any] = seed001_document()


def builtin_topologies() -> dict[str, dict[str, Any]]:
    """Name -> document of the built-in topologies (``load_topology seed001``)."""
    return {"seed001": seed001_document(), "generated-x10": generated_document(10, 0)}


# ------------------------------------------------------------------------------ layout


def layout(t: Topology) -> dict[str, tuple[float, float]]:
    """Deterministic drawing positions in [0, 1]²: domain centres on a circle, each domain's
    sites on a small circle around its centre, each exchange point at the centroid of its
    domains' centres (pulled toward the middle so it sits between them)."""
    doms = t.domains
    nd = max(len(doms), 1)
    big = 0.0 if nd == 1 else 1.0
    centre = {
        d: (big * math.cos(2 * math.pi * k / nd + math.pi / 2),
            big * math.sin(2 * math.pi * k / nd + math.pi / 2))
        for k, d in enumerate(doms)
    }  # fmt: skip
    members: dict[str, list[str]] = {d: [] for d in doms}
    for s in t.sites:
        members[s.domain].append(s.name)
    small = 0.35 if nd > 1 else 1.0
    if nd > 6:
        small = 0.35 * 6 / nd * 1.5
    pos: dict[str, tuple[float, float]] = {}
    for d in doms:
        cx, cy = centre[d]
        ms = members[d]
        base = math.atan2(cy, cx) if (cx or cy) else 0.0
        for k, n in enumerate(ms):
            a = base + 2 * math.pi * k / max(len(ms), 1)
            r = small if len(ms) > 1 else 0.0
            pos[n] = (cx + r * math.cos(a), cy + r * math.sin(a))
    used: dict[tuple[float, float], int] = {}
    for x in t.exchange_points:
        pts = [centre[d] for d in x.domains] or [(0.0, 0.0)]
        cx = 0.55 * sum(p[0] for p in pts) / len(pts)
        cy = 0.55 * sum(p[1] for p in pts) / len(pts)
        key = (round(cx, 6), round(cy, 6))
        k = used.get(key, 0)
        used[key] = k + 1
        pos[x.name] = (cx + 0.12 * k, cy - 0.12 * k)  # several on one spot: fan them out
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    x0, y0 = min(xs), min(ys)
    span = max(max(xs) - x0, max(ys) - y0) or 1.0
    return {
        n: (round(0.05 + 0.9 * (p[0] - x0) / span, 4), round(0.05 + 0.9 * (p[1] - y0) / span, 4))
        for n, p in pos.items()
    }
