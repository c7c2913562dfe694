"""Sites and policies as the engine's policy document (the snapshot stored with a run)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from .models import Site, UsagePolicy, VirtualOrganization


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


def epoch_share_warnings() -> list[str]:
    """Providers whose consumers' epoch shares add up to more than 100 % (over-provisioning:
    allowed, as in the seed's open problem, but flagged)."""
    totals: dict[tuple[str, str], float] = {}
    for p in UsagePolicy.objects.select_related("provider_site", "provider_vo"):
        key = (p.resource, str(p.provider))
        totals[key] = totals.get(key, 0.0) + p.epoch_percent
    return [
        f"{provider} gives {total:g} % of its {resource} epoch share (over 100 %: over-provisioned)"
        for (resource, provider), total in sorted(totals.items())
        if total > 100 + 1e-9
    ]


def policy_save(policy: UsagePolicy) -> tuple[UsagePolicy, list[str]]:
    """Validate and save a policy; return it with the configuration's warnings."""
    policy.full_clean()
    with transaction.atomic():
        policy.save()
    return policy, epoch_share_warnings()
