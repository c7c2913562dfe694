"""The grids of the simulations of Dumitrescu, Wilde & Foster 2005 (slides 19–22), as policy
documents.

Slide 19 ("Architecture Simulations") allocates the CPUs of two sites to two VOs::

    CPU, Site1, VO0, (3600, 20), (5, 60)      CPU, Site2, VO0, (3600, 20), (5, 60)
    CPU, Site1, VO1, (3600, 80), (5, 90)      CPU, Site2, VO1, (3600, 80), (5, 90)

and VO0 passes its share on to two groups (Figures 6–9), whose shares the slides do not give;
we give each group epoch (3600 s, 50 %) and burst (5 s, 80 %) of VO0's share (the portal
contract's example).  Figures 12–13 repeat the set-up on 5 sites.  Site sizes are not given
either; the experiment's ``site_cpus`` parameter sets them.

Slide 23 ("Architecture Experiments") is the testbed the 'Comparison Results' table (slide 26)
was measured on: one site and the two VOs, with a longer burst window and a shorter epoch::

    CPU, Site0, VO0, (3000s,20),(30s,60)      CPU, Site0, VO1, (3000s,80),(30s,90)

"Workloads identical" to the simulations'; no group policy is listed, so the testbed's VO0 has
no groups (:func:`seed004_testbed_document`) and its workload keeps the simulations' arrival
rate per VO (``TESTBED_WEIGHTS``: VO0 = G0 + G1 of ``SEED_WEIGHTS``).
"""

from __future__ import annotations

from typing import Any

from .config import FORMAT, VERSION

__all__ = [
    "SCENARIOS",
    "SEED_WEIGHTS",
    "TESTBED_WEIGHTS",
    "scenario_document",
    "scenario_weights",
    "seed004_document",
    "seed004_testbed_document",
]

SCENARIOS = ("seed004-2sites", "seed004-5sites", "seed004-testbed")

#: Relative arrival rates of the seed scenarios' Poisson streams (not given by the seed): VO1,
#: the VO with the large share, submits two thirds of the jobs; inside VO0, Group0 twice as
#: many as Group1, so that VO0 and Group0 ask for more than their epoch shares.
SEED_WEIGHTS = "VO0.G0=2, VO0.G1=1, VO1=6"
#: The same per-VO rates for the testbed, whose VO0 has no groups.
TESTBED_WEIGHTS = "VO0=3, VO1=6"

VO0_SITE = ((3600, 20), (5, 60))
VO1_SITE = ((3600, 80), (5, 90))
GROUPS = {"G0": ((3600, 50), (5, 80)), "G1": ((3600, 50), (5, 80))}
VO0_TESTBED = ((3000, 20), (30, 60))
VO1_TESTBED = ((3000, 80), (30, 90))


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
    """Dumitrescu, Wilde & Foster's (2005) policy set on ``sites`` sites of ``cpus`` CPUs each (a
    policy document)."""
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


def seed004_testbed_document(cpus: int = 200) -> dict[str, Any]:
    """Dumitrescu, Wilde & Foster's (2005) testbed (slide 23): one site, ``Site0``, of ``cpus`` CPUs
    shared by VO0 (3000 s, 20 %), (30 s, 60 %) and VO1 (3000 s, 80 %), (30 s, 90 %); no groups."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "sites": [{"name": "Site0", "cpus": cpus}],
        "vos": [{"name": "VO0", "groups": []}, {"name": "VO1", "groups": []}],
        "policies": [_policy("Site0", "VO0", VO0_TESTBED), _policy("Site0", "VO1", VO1_TESTBED)],
    }


def scenario_document(scenario: str, cpus: int) -> dict[str, Any]:
    """The policy document of one of :data:`SCENARIOS` with sites of ``cpus`` CPUs."""
    if scenario == "seed004-testbed":
        return seed004_testbed_document(cpus)
    if scenario in ("seed004-2sites", "seed004-5sites"):
        return seed004_document(2 if scenario == "seed004-2sites" else 5, cpus)
    raise ValueError(f"unknown scenario {scenario!r} (known: {', '.join(SCENARIOS)})")


def scenario_weights(scenario: str) -> str:
    """The default arrival rates (``weights``) of a scenario's Poisson streams."""
    return TESTBED_WEIGHTS if scenario == "seed004-testbed" else SEED_WEIGHTS
