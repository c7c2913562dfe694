"""Sites and policies as the engine's policy document (the snapshot stored with a run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from scheduler.engine import (
    PolicyError,
    load_policy_document,
    policy_to_document,
    policy_warnings,
)

from .models import Group, Site, UsagePolicy, VirtualOrganization


def policy_document() -> dict[str, Any]:
    """The staff configuration as a ``gridportal-policies`` document (see scheduler.usage)."""
    policies = UsagePolicy.objects.select_related(
        "provider_site", "provider_vo", "consumer_vo", "consumer_group__vo"
    )
    return {
        "format": "gridportal-policies",
        "version": 1,
        "sites": [{"name": s.name, "cpus": s.processors} for s in Site.objects.all()],
        "vos": [
            {"name": vo.name, "groups": [g.name for g in vo.groups.all()]}
            for vo in VirtualOrganization.objects.prefetch_related("groups")
        ],
        "policies": [
            {
                "resource": p.resource,
                "provider": str(p.provider),
                "consumer": str(p.consumer),
                "epoch": {"interval": p.epoch_interval, "percent": p.epoch_percent},
                "burst": {"interval": p.burst_interval, "percent": p.burst_percent},
            }
            for p in policies
        ],
    }


def configuration_warnings() -> list[str]:
    """What the engine flags in the staff configuration: a provider whose epoch shares add up
    to more than 100 % (over-provisioning, allowed as in the seed's open problem), a burst share
    below the epoch share, a VO with no share anywhere."""
    try:
        return policy_warnings(load_policy_document(policy_document()))
    except PolicyError as exc:
        return [f"the configuration cannot be simulated: {exc}"]


def configuration_import(document: dict[str, Any]) -> dict[str, int]:
    """Create the sites, VOs, groups and policies of a policy document (validated by the
    engine first); existing objects with the same names are updated, nothing is deleted."""
    try:
        doc = policy_to_document(load_policy_document(document))
    except PolicyError as exc:
        raise ValidationError(str(exc)) from None
    counts = {"sites": 0, "vos": 0, "groups": 0, "policies": 0}
    with transaction.atomic():
        for site in doc["sites"]:
            Site.objects.update_or_create(name=site["name"], defaults={"processors": site["cpus"]})
            counts["sites"] += 1
        for vo in doc["vos"]:
            row, _ = VirtualOrganization.objects.get_or_create(name=vo["name"])
            counts["vos"] += 1
            for g in vo["groups"]:
                Group.objects.get_or_create(vo=row, name=g)
                counts["groups"] += 1
        for p in doc["policies"]:
            provider_site = Site.objects.filter(name=p["provider"]).first()
            provider_vo = (
                None if provider_site else VirtualOrganization.objects.get(name=p["provider"])
            )
            vo_name, dot, group = p["consumer"].partition(".")
            consumer_group = Group.objects.get(vo__name=vo_name, name=group) if dot else None
            consumer_vo = None if dot else VirtualOrganization.objects.get(name=vo_name)
            UsagePolicy.objects.update_or_create(
                resource=p["resource"],
                provider_site=provider_site,
                provider_vo=provider_vo,
                consumer_vo=consumer_vo,
                consumer_group=consumer_group,
                defaults={
                    "epoch_interval": p["epoch"]["interval"],
                    "epoch_percent": p["epoch"]["percent"],
                    "burst_interval": p["burst"]["interval"],
                    "burst_percent": p["burst"]["percent"],
                },
            )
            counts["policies"] += 1
    return counts


# Reservation quotes (thesis §5.2, queries 18 and 19) ---------------------------------------

INDEX_CACHE = 4  # replay indexes kept in memory per process (a few MB each)


def site_quote(
    *,
    site: Site,
    n: int,
    duration: int,
    at_hours: float,
    s_min_hours: float | None = None,
    estimates: str | None = None,
) -> dict[str, Any]:
    """The price list a site shows for ``n`` processors over ``duration`` seconds at
    ``at_hours`` into the site's trace (replayed under its policy).  Raises ValidationError
    naming the field."""
    from scheduler.engine import QuoteRequestError, check_quotable, price_list, site_state_at

    try:
        check_quotable(site.local_policy)  # before replaying anything
        state = site_state_at(_site_index(site, estimates or "auto"), float(at_hours))
        return price_list(state, n, duration, s_min_hours=s_min_hours)
    except QuoteRequestError as exc:
        raise ValidationError({k: [v] for k, v in exc.errors.items()}) from None


def site_start_prediction(
    *, site: Site, n: int, req_time: int, at_hours: float, estimates: str | None = None
) -> dict[str, Any]:
    """ "When would my job start?" (thesis ch. 6, QBETS-like): bounds on the start of a job of
    ``n`` processors asking ``req_time`` seconds, submitted ``at_hours`` into the site's trace.
    Raises ValidationError naming the field."""
    from scheduler.engine import PredictionRequestError, QuoteRequestError, predict_start_at

    try:
        return predict_start_at(
            _site_index(site, estimates or "auto"), float(at_hours), n, req_time
        )
    except (PredictionRequestError, QuoteRequestError) as exc:
        errors = dict(exc.errors)
        if "policy" in errors:
            del errors["policy"]
        raise ValidationError({k: [v] for k, v in errors.items()}) from None


def _site_index(site: Site, estimates: str):  # type: ignore[no-untyped-def]
    """The site's replay index (:mod:`scheduler.cluster.replay`): in this process's memory, else
    in ``VAR_DIR/site-index/`` (written by whichever process built it first, so a request
    served by a fresh process — or a forked child under the web limits — reads it in
    milliseconds), else built from the trace once.  Keyed by what the replay depends on: the
    trace's contents, the site's size, its policy and the estimate mode."""
    from scheduler.engine import QuoteRequestError, load_site_index, site_index

    if site.trace_id is None:
        raise ValidationError({"site": [f"site {site.name} has no background trace"]})
    trace = site.trace
    key = f"{trace.sha256}-{site.processors}-{site.local_policy}-{estimates}"
    index = _INDEXES.get(key)
    if index is None:
        path = Path(settings.VAR_DIR) / "site-index" / f"{key}.npz"
        index = load_site_index(path)
        if index is None:
            from gridportal.inputs.services import trace_open

            try:
                index = site_index(trace_open(trace), site.processors, site.local_policy, estimates)
            except QuoteRequestError as exc:
                raise ValidationError({k: [v] for k, v in exc.errors.items()}) from None
            index.save(path)
            # the prediction's checkpoints (saved beside the index) are built by the request
            # that builds the index, not by the first prediction after it
            from scheduler.engine import site_wait_checkpoints

            site_wait_checkpoints(index)
        while len(_INDEXES) >= INDEX_CACHE:
            _INDEXES.pop(next(iter(_INDEXES)))
        _INDEXES[key] = index
    return index


_INDEXES: dict[str, Any] = {}


# Co-allocation topologies (Takefusa et al. 2010) -----------------------------------------


def topology_plan(*, topology, request: Any, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Ranked plans for one co-allocation request against ``topology`` (nothing reserved).
    Raises ValidationError naming the field (``request.paths[0].between[1]``, …)."""
    from scheduler.engine import plan_coallocation

    try:
        return plan_coallocation(topology.document, request, options)
    except ValueError as exc:
        errors = getattr(exc, "errors", None) or {"request": str(exc)}
        raise ValidationError({k: [v] for k, v in errors.items()}) from None


def topology_load(*, name: str, document: dict[str, Any], description: str = "") -> Any:
    """Create or replace the topology ``name`` from a validated document."""
    from .models import Topology

    topology = Topology.objects.filter(name=name).first() or Topology(name=name)
    topology.document = document
    topology.description = description or document.get("title", "")[:200]
    topology.full_clean()
    topology.save()
    return topology


def topology_picture(topology) -> dict[str, Any]:
    """Nodes (x, y in [0, 1]) and links of ``topology`` for the SVG drawn on the pages."""
    from scheduler.engine import load_topology, topology_layout

    t = load_topology(topology.document)
    pos = topology_layout(t)
    doc = topology.document
    nodes = [
        {"name": s["name"], "kind": "site", "domain": s.get("domain", ""),
         "cpus": s.get("cpus"), "x": pos[s["name"]][0], "y": pos[s["name"]][1]}
        for s in doc.get("sites", [])
    ] + [
        {"name": x["name"], "kind": "exchange", "domain": ",".join(x.get("domains", [])),
         "cpus": None, "x": pos[x["name"]][0], "y": pos[x["name"]][1]}
        for x in doc.get("exchange_points", [])
    ]  # fmt: skip
    links = [
        {"a": ln["between"][0], "b": ln["between"][1], "bandwidth": ln.get("bandwidth"),
         "value": ln.get("value"),
         "x1": pos[ln["between"][0]][0], "y1": pos[ln["between"][0]][1],
         "x2": pos[ln["between"][1]][0], "y2": pos[ln["between"][1]][1]}
        for ln in doc.get("links", [])
    ]  # fmt: skip
    return {"nodes": nodes, "links": links}
