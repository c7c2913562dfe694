"""Small builders for the usage-policy tests (not a test module)."""

from __future__ import annotations

from scheduler.usage import GridModel, load_policy_document, simulate
from scheduler.usage.simulator import SimOutcome
from scheduler.usage.workload import UsageJob


def document(sites: dict[str, int], vos: dict[str, list[str]], policies: list[tuple]) -> dict:
    """A policy document; ``policies`` rows are
    ``(provider, consumer, epoch %, burst %[, epoch s[, burst s[, resource]]])``."""
    out = []
    for p in policies:
        provider, consumer, ep, bp, *rest = p
        ei = rest[0] if len(rest) > 0 else 3600
        bi = rest[1] if len(rest) > 1 else 5
        resource = rest[2] if len(rest) > 2 else "CPU"
        out.append(
            {
                "resource": resource,
                "provider": provider,
                "consumer": consumer,
                "epoch": {"interval": ei, "percent": ep},
                "burst": {"interval": bi, "percent": bp},
            }
        )
    return {
        "format": "gridportal-policies",
        "version": 1,
        "sites": [{"name": n, "cpus": c} for n, c in sites.items()],
        "vos": [{"name": n, "groups": g} for n, g in vos.items()],
        "policies": out,
    }


def model_of(doc: dict) -> GridModel:
    return GridModel.from_policyset(load_policy_document(doc))


def jobs(spec: list[tuple]) -> list[UsageJob]:
    """``(consumer, submit, runtime, procs[, count])`` rows → jobs with ids in row order."""
    out: list[UsageJob] = []
    for row in spec:
        consumer, submit, runtime, procs, *rest = row
        vo, _, group = consumer.partition(".")
        for _ in range(rest[0] if rest else 1):
            out.append(UsageJob(len(out) + 1, submit, runtime, procs, vo, group or None))
    return out


def run(doc: dict, spec: list[tuple], strategy, horizon: int, step: int = 1) -> SimOutcome:
    model = model_of(doc)
    return simulate(model, jobs(spec), strategy, horizon=horizon, step=step)


def cpus_at(out: SimOutcome, model: GridModel, node: str, t: int, site: int = 0) -> float:
    """CPUs ``node`` held during step ``t`` (step = 1 s) at ``site``."""
    return float(out.usage[site][model.index[node], t])
