"""Usage-policy documents: sites, VOs, groups and their shares (Dumitrescu, Wilde & Foster 2005,
slide 8).

A policy is ``<resource-type, provider, consumer, epoch-allocation, burst-allocation>``
(Dumitrescu, Wilde & Foster 2005, "Syntax and Semantics"): resource CPU | NET | STORAGE; provider a
site or a VO; consumer a VO or ``VO.group``; each allocation an ``(interval s, percent)`` pair.  A
site gives shares to VOs and a VO passes its share on to its groups — the recursive model.

The portal and the command line exchange a grid as one plain JSON **policy document**::

    {"format": "gridportal-policies", "version": 1,
     "sites": [{"name": "site0", "cpus": 100}],
     "vos": [{"name": "VO0", "groups": ["G0", "G1"]}, {"name": "VO1", "groups": []}],
     "policies": [
       {"resource": "CPU", "provider": "site0", "consumer": "VO0",
        "epoch": {"interval": 3600, "percent": 20}, "burst": {"interval": 5, "percent": 60}},
       {"resource": "CPU", "provider": "VO0", "consumer": "VO0.G0",
        "epoch": {"interval": 3600, "percent": 50}, "burst": {"interval": 5, "percent": 80}}]}

Rules (:func:`load_policy_document` reports every broken one as ``(JSON path, reason)`` in a
:class:`PolicyError`, and returns nothing half-read):

* names are non-empty strings, unique among sites and VOs together (a provider name must say
  whether it is a site or a VO); VO and group names contain no ``.``; groups unique in a VO;
* ``cpus`` is an integer >= 1;
* percentages are numbers in 0–100, intervals integers (seconds) > 0;
* a site provides to a VO; a VO provides to one of its own groups (``"VO0.G0"``) — the
  consumer must belong to the provider;
* at most one policy per ``(resource, provider, consumer)``;
* unknown keys inside a site, VO, policy or allocation are errors (a misspelt ``"percentage"``
  must not silently become 0 %); extra top-level keys (metadata) are kept out of the model
  and ignored.

:func:`policy_warnings` flags what is allowed but suspicious, above all a provider whose epoch
shares add up to more than 100 % — resource over-provisioning, the open problem of Dumitrescu, Wilde
& Foster's (2005) conclusions.  :func:`to_document` writes a :class:`PolicySet` back (round trip).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from scheduler.bounds import MAX_PROCS, MAX_SECONDS, BoundError, check_text
from scheduler.jsonvalues import describe
from scheduler.jsonvalues import loads as loads_bounded

__all__ = [
    "FORMAT",
    "VERSION",
    "RESOURCES",
    "Allocation",
    "Policy",
    "PolicyError",
    "PolicySet",
    "Site",
    "VO",
    "load_policy_document",
    "load_policy_file",
    "policy_warnings",
    "to_document",
]

FORMAT = "gridportal-policies"
VERSION = 1
RESOURCES = ("CPU", "NET", "STORAGE")
_MAX_ERRORS = 50
_MAX_BYTES = 5_000_000


class PolicyError(ValueError):
    """An invalid policy document; ``errors`` lists ``(JSON path, reason)``.

    ``str(err)`` gives one ``path: reason`` per line, e.g.
    ``$.policies[1].epoch.percent: must be between 0 and 100, got 120``.
    """

    def __init__(self, errors: Iterable[tuple[str, str]]):
        self.errors = [(str(p), str(r)) for p, r in errors] or [("$", "invalid policy document")]
        super().__init__("\n".join(f"{p}: {r}" for p, r in self.errors))


@dataclass(frozen=True)
class Allocation:
    """An epoch or burst allocation: ``percent`` of the provider over ``interval`` seconds."""

    interval: int
    percent: float

    @property
    def fraction(self) -> float:
        return self.percent / 100.0


@dataclass(frozen=True)
class Site:
    name: str
    cpus: int


@dataclass(frozen=True)
class VO:
    name: str
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Policy:
    """One usage policy (Dumitrescu, Wilde & Foster 2005, slide 8)."""

    resource: str
    provider: str
    consumer: str
    epoch: Allocation
    burst: Allocation

    @property
    def consumer_vo(self) -> str:
        return self.consumer.split(".", 1)[0]

    @property
    def consumer_group(self) -> str | None:
        parts = self.consumer.split(".", 1)
        return parts[1] if len(parts) == 2 else None


@dataclass(frozen=True)
class PolicySet:
    """A validated grid: sites, VOs (with groups) and policies, in document order."""

    sites: tuple[Site, ...]
    vos: tuple[VO, ...]
    policies: tuple[Policy, ...]

    def site(self, name: str) -> Site:
        for s in self.sites:
            if s.name == name:
                return s
        raise KeyError(name)

    def vo(self, name: str) -> VO:
        for v in self.vos:
            if v.name == name:
                return v
        raise KeyError(name)

    def policy(self, provider: str, consumer: str, resource: str = "CPU") -> Policy | None:
        """The policy ``provider → consumer`` for ``resource``, or None."""
        for p in self.policies:
            if (p.resource, p.provider, p.consumer) == (resource, provider, consumer):
                return p
        return None

    def of_resource(self, resource: str) -> tuple[Policy, ...]:
        return tuple(p for p in self.policies if p.resource == resource)

    def is_site(self, name: str) -> bool:
        return any(s.name == name for s in self.sites)


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


class _Errors:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, path: str, reason: str) -> None:
        self.items.append((path, reason))
        if len(self.items) >= _MAX_ERRORS:
            raise PolicyError(self.items + [("$", "too many errors; stopped")])


def _obj(errs: _Errors, value: Any, path: str, keys: tuple[str, ...] | None) -> dict | None:
    if not isinstance(value, dict):
        errs.add(path, f"must be a JSON object, got {describe(value)}")
        return None
    if keys is not None:
        for k in value:
            if k not in keys:
                errs.add(f"{path}.{k}", f"unknown key (expected {', '.join(keys)})")
        for k in keys:
            if k not in value:
                errs.add(path, f"missing required key {k!r}")
    return value


def _entries(
    errs: _Errors, top: dict, key: str, keys: tuple[str, ...]
) -> Iterator[tuple[str, dict]]:
    """``(path, object)`` of each entry of the document's array ``key`` that is a JSON object
    (errors for the rest, and for ``key`` when it is not an array; absent: no entries)."""
    raw = top.get(key, [])
    if not isinstance(raw, list):
        errs.add(f"$.{key}", f"must be a JSON array, got {describe(raw)}")
        return
    for k, item in enumerate(raw):
        path = f"$.{key}[{k}]"
        d = _obj(errs, item, path, keys)
        if d is not None:
            yield path, d


def _name(errs: _Errors, value: Any, path: str, *, dotless: bool) -> str | None:
    if not isinstance(value, str) or not value.strip():
        errs.add(path, f"must be a non-empty string, got {describe(value)}")
        return None
    if value != value.strip():
        errs.add(path, "must not start or end with white space")
        return None
    if dotless and "." in value:
        errs.add(path, f"must not contain '.' (it separates VO and group), got {value!r}")
        return None
    try:
        check_text(value, path, max_length=200)
    except BoundError as exc:
        errs.add(path, exc.message)
        return None
    return value


def _allocation(errs: _Errors, value: Any, path: str) -> Allocation | None:
    doc = _obj(errs, value, path, ("interval", "percent"))
    if doc is None or "interval" not in doc or "percent" not in doc:
        return None
    interval, percent = doc["interval"], doc["percent"]
    ok = True
    if isinstance(interval, bool) or not isinstance(interval, int | float):
        errs.add(f"{path}.interval", f"must be a number of seconds, got {describe(interval)}")
        ok = False
    elif not math.isfinite(interval) or interval <= 0 or float(interval) != int(interval):
        errs.add(f"{path}.interval", f"must be a whole number of seconds > 0, got {interval!r}")
        ok = False
    elif interval > MAX_SECONDS:  # physical bound (scheduler.bounds): 100 years
        errs.add(f"{path}.interval", f"must be at most {MAX_SECONDS:.0f} seconds (100 years), "
                 f"got {float(interval):.6g}")  # fmt: skip
        ok = False
    if isinstance(percent, bool) or not isinstance(percent, int | float):
        errs.add(f"{path}.percent", f"must be a number, got {describe(percent)}")
        ok = False
    elif not math.isfinite(percent) or not 0 <= percent <= 100:
        errs.add(f"{path}.percent", f"must be between 0 and 100, got {percent!r}")
        ok = False
    if not ok:
        return None
    return Allocation(interval=int(interval), percent=float(percent))


def load_policy_document(source: dict | str | Path) -> PolicySet:
    """Validate a policy document and return its :class:`PolicySet`.

    ``source`` is the parsed JSON (a dict), JSON text, or a path to a JSON file.  Raises
    :class:`PolicyError` listing every problem with its JSON path (``$.policies[2].consumer``).
    """
    if isinstance(source, str) and source.lstrip()[:1] == "{":
        doc = _read_json(source.encode("utf-8"), None)
    elif isinstance(source, str | Path):
        doc = _read_json(*_read_path(source, _MAX_BYTES))
    else:
        doc = source
    errs = _Errors()
    top = _obj(errs, doc, "$", None)
    if top is None:
        raise PolicyError(errs.items)
    if top.get("format") != FORMAT:
        errs.add("$.format", f"must be {FORMAT!r}, got {describe(top.get('format'))}")
    if top.get("version") != VERSION or isinstance(top.get("version"), bool):
        errs.add("$.version", f"must be {VERSION}, got {describe(top.get('version'))}")

    sites: list[Site] = []
    vos: list[VO] = []
    owner: dict[str, str] = {}  # name -> path of its definition

    for path, d in _entries(errs, top, "sites", ("name", "cpus")):
        name = _name(errs, d.get("name"), f"{path}.name", dotless=False) if "name" in d else None
        cpus = d.get("cpus")
        if "cpus" in d and (isinstance(cpus, bool) or not isinstance(cpus, int) or cpus < 1):
            errs.add(f"{path}.cpus", f"must be an integer >= 1, got {describe(cpus)}")
            cpus = None
        elif isinstance(cpus, int) and cpus > MAX_PROCS:
            errs.add(f"{path}.cpus", f"must be at most {MAX_PROCS}, got {cpus:.6g}")
            cpus = None
        if name is not None and name in owner:
            errs.add(f"{path}.name", f"{name!r} is already defined at {owner[name]}")
            name = None
        if name is not None:
            owner[name] = path
        if name is not None and isinstance(cpus, int):
            sites.append(Site(name, cpus))

    for path, d in _entries(errs, top, "vos", ("name", "groups")):
        name = _name(errs, d.get("name"), f"{path}.name", dotless=True) if "name" in d else None
        if name is not None and name in owner:
            errs.add(f"{path}.name", f"{name!r} is already defined at {owner[name]}")
            name = None
        groups: list[str] = []
        raw_groups = d.get("groups", [])
        if not isinstance(raw_groups, list):
            errs.add(f"{path}.groups", f"must be a JSON array, got {describe(raw_groups)}")
            raw_groups = []
        for g, gname in enumerate(raw_groups):
            gpath = f"{path}.groups[{g}]"
            gname = _name(errs, gname, gpath, dotless=True)
            if gname is None:
                continue
            if gname in groups:
                errs.add(gpath, f"group {gname!r} is listed twice")
                continue
            groups.append(gname)
        if name is not None:
            owner[name] = path
            vos.append(VO(name, tuple(groups)))

    site_names = {s.name for s in sites}
    vo_groups = {v.name: set(v.groups) for v in vos}
    policies: list[Policy] = []
    seen: dict[tuple[str, str, str], str] = {}
    keys = ("resource", "provider", "consumer", "epoch", "burst")
    for path, d in _entries(errs, top, "policies", keys):
        resource = d.get("resource")
        if "resource" in d and resource not in RESOURCES:
            errs.add(
                f"{path}.resource",
                f"must be one of {', '.join(RESOURCES)}, got {describe(resource)}",
            )
            resource = None
        provider = d.get("provider")
        consumer = d.get("consumer")
        ok_pc = "provider" in d and "consumer" in d
        if "provider" in d:
            provider = _name(errs, provider, f"{path}.provider", dotless=False)
            if provider is not None and provider not in site_names and provider not in vo_groups:
                errs.add(f"{path}.provider", f"unknown site or VO {provider!r}")
                provider = None
        if "consumer" in d:
            consumer = _name(errs, consumer, f"{path}.consumer", dotless=False)
        if ok_pc and provider is not None and consumer is not None:
            consumer = _check_consumer(errs, path, provider, consumer, site_names, vo_groups)
        epoch = _allocation(errs, d["epoch"], f"{path}.epoch") if "epoch" in d else None
        burst = _allocation(errs, d["burst"], f"{path}.burst") if "burst" in d else None
        if None in (resource, provider, consumer, epoch, burst):
            continue
        key = (resource, provider, consumer)
        if key in seen:
            errs.add(
                path,
                f"duplicate policy: {resource} {provider} → {consumer} is already "
                f"given at {seen[key]}",
            )
            continue
        seen[key] = path
        policies.append(Policy(resource, provider, consumer, epoch, burst))

    if errs.items:
        raise PolicyError(errs.items)
    return PolicySet(tuple(sites), tuple(vos), tuple(policies))


def _check_consumer(
    errs: _Errors,
    path: str,
    provider: str,
    consumer: str,
    site_names: set[str],
    vo_groups: dict[str, set[str]],
) -> str | None:
    """The consumer must belong to the provider: site → VO, VO → one of its groups."""
    vo, _, group = consumer.partition(".")
    if vo not in vo_groups:
        errs.add(f"{path}.consumer", f"unknown VO {vo!r}")
        return None
    if group and group not in vo_groups[vo]:
        errs.add(f"{path}.consumer", f"VO {vo!r} has no group {group!r}")
        return None
    if provider in site_names:
        if group:
            errs.add(
                f"{path}.consumer",
                f"a site gives shares to VOs, not to groups: give {consumer!r} its share "
                f"from VO {vo!r}",
            )
            return None
        return consumer
    if not group:
        errs.add(
            f"{path}.consumer",
            f"a VO gives shares to its own groups ('{provider}.<group>'), got {consumer!r}",
        )
        return None
    if vo != provider:
        errs.add(
            f"{path}.consumer",
            f"{consumer!r} does not belong to provider {provider!r} (its VO is {vo!r})",
        )
        return None
    return consumer


def _read_json(data: bytes, display: str | None) -> Any:
    where = display or "$"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PolicyError([(where, f"not UTF-8 text: {exc}")]) from None
    try:  # depth, integer digits and non-finite numbers bounded before parsing
        return loads_bounded(text)
    except ValueError as exc:
        cause = exc.__context__
        if isinstance(cause, json.JSONDecodeError):
            raise PolicyError(
                [(where, f"not JSON: {cause.msg} at line {cause.lineno} column {cause.colno}")]
            ) from None
        raise PolicyError([(where, str(exc))]) from None


def _read_path(source: str | os.PathLike[str], limit: int) -> tuple[bytes, str]:
    display = os.fspath(source)
    try:
        with open(source, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise PolicyError([(display, f"cannot read: {exc.strerror or exc}")]) from None
    if len(data) > limit:
        raise PolicyError([(display, f"larger than the limit of {limit} bytes")])
    return data, display


def load_policy_file(
    source: str | os.PathLike[str] | bytes | BinaryIO | dict,
    *,
    name: str | None = None,
    max_bytes: int | None = None,
) -> dict[str, Any]:
    """Read and validate a policy document; return it normalised (``to_document`` form).

    The input loader of kind ``"policies"`` (``scheduler.io.INPUT_LOADERS``): the returned dict
    is plain JSON, ready for :func:`load_policy_document` and for storing as a snapshot.
    ``name`` (accepted like the other loaders') only labels errors about the file as a whole.
    """
    if isinstance(source, dict):
        return to_document(load_policy_document(source))
    limit = _MAX_BYTES if max_bytes is None else max_bytes
    if isinstance(source, bytes | bytearray):
        data, display = bytes(source), name
    elif isinstance(source, str | os.PathLike):
        data, display = _read_path(source, limit)
    else:
        attr = getattr(source, "name", None)
        display = name or (attr if isinstance(attr, str) else None)
        data = source.read(limit + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
    if len(data) > limit:
        raise PolicyError([(display or "$", f"larger than the limit of {limit} bytes")])
    return to_document(load_policy_document(_read_json(data, display)))


# --------------------------------------------------------------------------------------------
# Writing and warnings
# --------------------------------------------------------------------------------------------


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


def to_document(policyset: PolicySet) -> dict[str, Any]:
    """The policy document of ``policyset`` (``load_policy_document(to_document(p)) == p``)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "sites": [{"name": s.name, "cpus": s.cpus} for s in policyset.sites],
        "vos": [{"name": v.name, "groups": list(v.groups)} for v in policyset.vos],
        "policies": [
            {
                "resource": p.resource,
                "provider": p.provider,
                "consumer": p.consumer,
                "epoch": {"interval": p.epoch.interval, "percent": _num(p.epoch.percent)},
                "burst": {"interval": p.burst.interval, "percent": _num(p.burst.percent)},
            }
            for p in policyset.policies
        ],
    }


def policy_warnings(policyset: PolicySet) -> list[str]:
    """Allowed but suspicious configurations, one sentence each (deterministic order).

    * a provider whose epoch shares for one resource add up to more than 100 %
      (over-provisioning: Dumitrescu, Wilde & Foster's (2005) open problem, "a policy that allocates
      40 % of CPU to VO0 and 80 % to VO1") — every consumer cannot get its share at the same time;
    * a burst share below the epoch share (the consumer can never reach its epoch share in a
      burst window);
    * a VO with no CPU share at any site (its jobs cannot run anywhere).
    """
    out: list[str] = []
    totals: dict[tuple[str, str], list[Policy]] = {}
    for p in policyset.policies:
        totals.setdefault((p.provider, p.resource), []).append(p)
    for (provider, resource), group in totals.items():
        total = sum(p.epoch.percent for p in group)
        if total > 100 + 1e-9:
            parts = ", ".join(f"{p.consumer} {_num(p.epoch.percent)} %" for p in group)
            out.append(
                f"{provider} gives {_num(round(total, 6))} % of its {resource} in epoch shares "
                f"({parts}): over-provisioned — its consumers cannot all get their share at once"
            )
    for p in policyset.policies:
        if p.burst.percent < p.epoch.percent:
            out.append(
                f"{p.resource} {p.provider} → {p.consumer}: burst share {_num(p.burst.percent)} % "
                f"is below the epoch share {_num(p.epoch.percent)} %"
            )
    with_cpu = {p.consumer for p in policyset.policies if p.resource == "CPU"}
    for v in policyset.vos:
        if v.name not in with_cpu and policyset.sites:
            out.append(f"VO {v.name} has no CPU share at any site: its jobs cannot run")
    return out
