"""Co-allocation requests G_r = (V_r, E_r) with their time frame (Takefusa et al. 2010).

Takefusa et al. 2010, "Resource Requirement Parameters": CPUs ``rc_j`` per requested site, bandwidth
``rb_l`` per requested path between two requested sites, and a time frame, either exact
(ST, ET) or a range (EST, LST, D): start anywhere in [EST, LST] and hold for D.

A request document::

    {"sites": [{"name": "a", "cpus": 4}, {"name": "b", "cpus": 2}],
     "paths": [{"between": ["a", "b"], "bandwidth": 1}],
     "frame": {"earliest_start": 0, "latest_start": 3600, "duration": 1800},
     "user": "UserA"}

or ``"frame": {"start": ST, "end": ET}``.  Times are integer seconds, bandwidth in Gbps (kept
as integer Mbps).  :func:`parse_request` raises :class:`RequestError` naming the field
(``paths[0].between[1]: unknown requested site 'z'``, ``frame.latest_start: ...``).

:func:`seed_request` draws one request of the seed's evaluation ("Resource Requirement
Settings"): types 1–4 uniformly, CPUs per site uniform in {1, 2, 4, 8}, 1 Gbps per path,
D uniform in {30, 60, 120} min, LST − EST + D = 3D.  The seed does not spell the types out; we
take type t as t + 1 requested sites (its planning times grow with "the # of sites in the
requirement types") joined pairwise (its worked example is a triangle of 3 sites and 3 paths),
or as a star around the first site with ``shape="star"``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..bounds import MAX_BANDWIDTH_GBPS, MAX_PROCS, MAX_SECONDS
from .topology import MBPS_PER_GBPS

__all__ = [
    "RequestedSite",
    "RequestedPath",
    "TimeFrame",
    "Request",
    "RequestError",
    "parse_request",
    "request_as_json",
    "seed_request",
    "SEED_CPUS",
    "SEED_DURATIONS",
    "SHAPES",
]

SEED_CPUS = (1, 2, 4, 8)
SEED_DURATIONS = (1800, 3600, 7200)
SHAPES = ("mesh", "star")
MAX_REQUEST_SITES = 50
MAX_TIME = int(MAX_SECONDS)  # 100 years (scheduler.bounds)


class RequestError(ValueError):
    """An invalid request (or planning option); ``path`` names the offending field."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.errors = {path: message}
        super().__init__(f"{path}: {message}")


@dataclass(frozen=True)
class RequestedSite:
    name: str
    cpus: int


@dataclass(frozen=True)
class RequestedPath:
    """A requested network between requested sites ``a`` and ``b`` (indices into sites)."""

    a: int
    b: int
    mbps: int


@dataclass(frozen=True)
class TimeFrame:
    """Start anywhere in [earliest_start, latest_start], hold for ``duration`` seconds."""

    earliest_start: int
    latest_start: int
    duration: int

    @property
    def exact(self) -> bool:
        return self.earliest_start == self.latest_start

    def starts(self, n: int) -> list[int]:
        """N equidistant candidate starts in [EST, LST] (seed step 2i: N frames selected
        equidistantly from [EST, LST + D]); distinct integers, so fewer when the range is
        shorter than N − 1 seconds."""
        lo, hi = self.earliest_start, self.latest_start
        if n <= 1 or hi == lo:
            return [lo]
        out = sorted({lo + round(k * (hi - lo) / (n - 1)) for k in range(n)})
        return out


@dataclass(frozen=True)
class Request:
    sites: tuple[RequestedSite, ...]
    paths: tuple[RequestedPath, ...]
    frame: TimeFrame
    user: str = "user"
    id: int = 0
    submit: int = 0

    @property
    def cpus(self) -> int:
        return sum(s.cpus for s in self.sites)

    @property
    def demand(self) -> int:
        """CPU-seconds asked for (the seed's load is in these units)."""
        return self.cpus * self.frame.duration


def _int(doc: Mapping, key: str, path: str, *, lo: int = 0, hi: int = MAX_TIME) -> int:
    where = f"{path}.{key}" if path else key
    if key not in doc:
        raise RequestError(where, "is required")
    v = doc[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise RequestError(where, f"must be an integer, got {v!r}")
    if not float(v).is_integer():
        raise RequestError(where, f"must be an integer, got {v!r}")
    if v < lo or v > hi:
        raise RequestError(where, f"must be in [{lo}, {hi}], got {v!r}")
    return int(v)


def parse_request(doc: Any, *, id: int = 0) -> Request:
    """Validate a request document and return the :class:`Request`."""
    if isinstance(doc, Request):
        return doc
    if not isinstance(doc, Mapping):
        raise RequestError("request", "must be a JSON object")
    raw_sites = doc.get("sites")
    if not isinstance(raw_sites, list) or not raw_sites:
        raise RequestError("sites", "must be a non-empty JSON array of requested sites")
    if len(raw_sites) > MAX_REQUEST_SITES:
        raise RequestError("sites", f"at most {MAX_REQUEST_SITES} requested sites")
    sites: list[RequestedSite] = []
    index: dict[str, int] = {}
    for k, item in enumerate(raw_sites):
        path = f"sites[{k}]"
        if not isinstance(item, Mapping):
            raise RequestError(path, "must be a JSON object")
        name = item.get("name", f"r{k}")
        if not isinstance(name, str) or not name:
            raise RequestError(f"{path}.name", f"must be a non-empty string, got {name!r}")
        if name in index:
            raise RequestError(f"{path}.name", f"duplicate requested site {name!r}")
        cpus = _int(item, "cpus", path, lo=1, hi=MAX_PROCS)
        index[name] = k
        sites.append(RequestedSite(name, cpus))
    raw_paths = doc.get("paths", [])
    if not isinstance(raw_paths, list):
        raise RequestError("paths", "must be a JSON array")
    paths: list[RequestedPath] = []
    pairs: set[frozenset] = set()
    for k, item in enumerate(raw_paths):
        path = f"paths[{k}]"
        if not isinstance(item, Mapping):
            raise RequestError(path, "must be a JSON object")
        ends = item.get("between")
        if not (isinstance(ends, list) and len(ends) == 2):
            raise RequestError(f"{path}.between", "must be a JSON array of two requested sites")
        for i, e in enumerate(ends):
            if not isinstance(e, str) or e not in index:
                raise RequestError(f"{path}.between[{i}]", f"unknown requested site {e!r}")
        if ends[0] == ends[1]:
            raise RequestError(f"{path}.between", f"a path joins two sites, not {ends[0]!r} twice")
        if frozenset(ends) in pairs:
            raise RequestError(f"{path}.between", "duplicate path")
        pairs.add(frozenset(ends))
        bw = item.get("bandwidth")
        if isinstance(bw, bool) or not isinstance(bw, (int, float)) or not math.isfinite(bw):
            raise RequestError(f"{path}.bandwidth", f"must be a number (Gbps), got {bw!r}")
        if bw < 0:
            raise RequestError(f"{path}.bandwidth", f"must be >= 0, got {bw!r}")
        if bw > MAX_BANDWIDTH_GBPS:
            raise RequestError(f"{path}.bandwidth", f"must be at most {MAX_BANDWIDTH_GBPS:.0e} "
                               f"Gbps, got {bw:.6g}")  # fmt: skip
        paths.append(RequestedPath(index[ends[0]], index[ends[1]], round(bw * MBPS_PER_GBPS)))
    frame = _parse_frame(doc.get("frame"))
    user = doc.get("user", "user")
    if not isinstance(user, str) or not user:
        raise RequestError("user", f"must be a non-empty string, got {user!r}")
    return Request(tuple(sites), tuple(paths), frame, user, id)


def _parse_frame(doc: Any) -> TimeFrame:
    if not isinstance(doc, Mapping):
        raise RequestError("frame", "must be an object {start, end} or {earliest_start, "
                           "latest_start, duration}")  # fmt: skip
    if "start" in doc or "end" in doc:
        st = _int(doc, "start", "frame")
        et = _int(doc, "end", "frame")
        if et <= st:
            raise RequestError("frame.end", f"must be after frame.start ({st}), got {et}")
        return TimeFrame(st, st, et - st)
    est = _int(doc, "earliest_start", "frame")
    lst = _int(doc, "latest_start", "frame")
    d = _int(doc, "duration", "frame", lo=1)
    if est > lst:
        raise RequestError(
            "frame.earliest_start", f"must not be after latest_start ({lst}), got {est}"
        )
    return TimeFrame(est, lst, d)


def request_as_json(r: Request) -> dict[str, Any]:
    f = r.frame
    return {
        "sites": [{"name": s.name, "cpus": s.cpus} for s in r.sites],
        "paths": [
            {
                "between": [r.sites[p.a].name, r.sites[p.b].name],
                "bandwidth": p.mbps / MBPS_PER_GBPS,
            }
            for p in r.paths
        ],
        "frame": {
            "earliest_start": f.earliest_start,
            "latest_start": f.latest_start,
            "duration": f.duration,
        },
        "user": r.user,
    }


def seed_request(
    rng: random.Random,
    *,
    id: int,
    user: str,
    submit: int,
    window: tuple[int, int],
    shape: str = "mesh",
    types: tuple[int, ...] = (1, 2, 3, 4),
    gbps: float = 1.0,
) -> Request:
    """One request of Takefusa et al.'s (2010) evaluation whose whole range [EST, LST + D] lies in
    ``window`` (the next day); EST is uniform over the whole minutes that allow it."""
    t = rng.choice(types)
    n = t + 1
    sites = tuple(RequestedSite(f"r{j}", rng.choice(SEED_CPUS)) for j in range(n))
    mbps = round(gbps * MBPS_PER_GBPS)
    if shape == "star":
        paths = tuple(RequestedPath(0, j, mbps) for j in range(1, n))
    else:
        paths = tuple(RequestedPath(a, b, mbps) for a in range(n) for b in range(a + 1, n))
    d = rng.choice(SEED_DURATIONS)
    lo, hi = window
    slack = (hi - lo - 3 * d) // 60
    est = lo + 60 * rng.randint(0, max(slack, 0))
    return Request(sites, paths, TimeFrame(est, est + 2 * d, d), user, id, submit)
