"""The grids of seed 004's simulations, as policy documents (SPEC §11; seed 004 slides 19–22).

Slide 19 ("Architecture Simulations") allocates the CPUs of two sites to two VOs::

    CPU, Site1, VO0, (3600, 20), (5, 60)      CPU, Site2, VO0, (3600, 20), (5, 60)
    CPU, Site1, VO1, (3600, 80), (5, 90)      CPU, Site2, VO1, (3600, 80), (5, 90)

and VO0 passes its share on to two groups (Figures 6–9), whose shares the slides do not give;
we give each group epoch (3600 s, 50 %) and burst (5 s, 80 %) of VO0's share (the portal
contract's example).  Figures 12–13 repeat the set-up on 5 sites.  Site sizes are not given
either; the experiment's ``site_cpus`` parameter sets them.
"""

from __future__ import annotations

from typing import Any

from .config import FORMAT, VERSION

__all__ = ["SCENARIOS", "SEED_WEIGHTS", "seed004_document"]

SCENARIOS = ("seed004-2sites", "seed004-5sites")

#: Relative arrival rates of the seed scenarios' Poisson streams (not given by the seed): VO1,
#: the VO with the large share, submits two thirds of the jobs; inside VO0, Group0 twice as
#: many as Group1, so that VO0 and Group0 ask for more than their epoch shares.
SEED_WEIGHTS = "VO0.G0=2, VO0.G1=1, VO1=6"

VO0_SITE = ((3600, 20), (5, 60))
VO1_SITE = ((3600, 80), (5, 90))
GROUPS = {"G0": ((3600, 50), (5, 80)), "G1": ((3600, 50), (5, 80))}


def _policy(provider: str, consumer: str, shares: tuple[tuple[int, int], ...]) -> dict[str, Any]:
    (ei, ep), (bi, bp) = shares
    return {
        "resource": "CPU",
        "provider": provider,
        "consumer": consumer,
        "epoch": {"interval": ei, "percent": ep},
        "burst": {"interval": bi, "percent": bp},
    }


def seed004_document(sites: int = 2, cpus: int = 100) -> dict[str, Any]:
    """Seed 004's policy set on ``sites`` sites of ``cpus`` CPUs each (a policy document)."""
    names = [f"site{k}" for k in range(sites)]
    policies = []
    for name in names:
        policies.append(_policy(name, "VO0", VO0_SITE))
        policies.append(_policy(name, "VO1", VO1_SITE))
    for group, shares in GROUPS.items():
        policies.append(_policy("VO0", f"VO0.{group}", shares))
    return {
        "format": FORMAT,
        "version": VERSION,
        "sites": [{"name": n, "cpus": cpus} for n in names],
        "vos": [{"name": "VO0", "groups": list(GROUPS)}, {"name": "VO1", "groups": []}],
        "policies": policies,
    }
