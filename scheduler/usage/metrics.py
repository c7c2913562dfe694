"""Usage-policy metrics of Dumitrescu, Wilde & Foster 2005 (slides 25 and 29): BUPV, EUPV, ARU, ART,
AJC.

The seed defines, for ``cpus`` processors observed over ``Δt`` seconds::

    BUPV = Σ_i BET_i / (cpus · Δt)     burst usage-policy violation
    EUPV = Σ_i EET_i / (cpus · Δt)     epoch usage-policy violation
    ARU  = Σ_i ET_i  / (cpus · Δt)     aggregated resource utilization
    ART  = Σ_i RT_i / N                 aggregated response time
    AJC  = jobs completed / jobs submitted

Measured here (the slides name the quantities but not how they are sampled):

* ``Δt`` is the simulated horizon; the usage of consumer *i* at a site is recorded per step
  (CPU-seconds, a job finishing inside a step counted for the part it ran);
* ``BA_i(k)`` — the burst allocation at the *end* of step *k* — is the CPU-seconds of *i* over
  the burst window ending there (``w_b = round(burst interval / step)`` steps, time before 0
  counting as unused) divided by ``cpus · w_b · step``; ``EA_i(k)`` likewise over the epoch
  window;
* ``BET_i`` is the CPU-time over the burst share: ``Σ_k max(0, BA_i(k) − BP_i) · cpus · step``
  (a VO 10 % over its burst share of a 100-CPU site for 30 s adds 10 CPUs × 30 s = 300
  CPU-seconds); ``EET_i`` the same with ``EA_i`` and ``EP_i``.  Using CPU-seconds, like
  ``ET_i`` in ARU, makes the three ratios fractions of the capacity ``cpus · Δt``;
* ``ET_i`` is the CPU-seconds job *i* executed within the horizon (finished or not);
* ``RT_i`` = completion − submission, over the jobs completed within the horizon;
* "submitted" = the jobs that arrived within the horizon (rejected ones included).

The sums run over VOs (the seed's *i*).  Per site they use that site's ``cpus``; per VO and
per group the grid's, so that the per-VO values add up to the overall one.  Group violations
(against the absolute group shares of :mod:`.shares`) are reported separately as
``group_BUPV`` / ``group_EUPV``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .shares import GridModel
from .simulator import SimOutcome
from .state import DONE

__all__ = [
    "METRICS",
    "downsample",
    "over_share",
    "outcome_metrics",
    "trailing_average",
]

METRICS = ("BUPV", "EUPV", "ARU", "ART", "AJC")


def trailing_average(values: np.ndarray, window: int) -> np.ndarray:
    """Mean of ``values`` over the ``window`` steps ending at each step (zeros before 0)."""
    values = np.asarray(values, dtype=float)
    cum = np.concatenate(([0.0], np.cumsum(values)))
    idx = np.arange(1, values.size + 1)
    return (cum[idx] - cum[np.maximum(0, idx - window)]) / window


def over_share(usage: np.ndarray, *, cpus: int, step: int, interval: int, share: float) -> float:
    """CPU-seconds spent over ``share`` (BET or EET) by a consumer with per-step ``usage``.

    ``usage[k]`` is the consumer's CPU-seconds in step *k*; the allocation is its trailing
    average over ``interval`` seconds as a fraction of ``cpus``.
    """
    window = max(1, round(interval / step))
    alloc = trailing_average(usage, window) / (cpus * step)
    return float(np.maximum(alloc - share, 0.0).sum() * cpus * step)


def downsample(values: np.ndarray, points: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin means of ``values`` in at most ``points`` bins; returns ``(first index, mean)``."""
    values = np.asarray(values, dtype=float)
    n = values.size
    if n <= points:
        return np.arange(n), values
    edges = np.floor(np.linspace(0, n, points + 1)).astype(int)
    sums = np.add.reduceat(values, edges[:-1])
    return edges[:-1], sums / np.diff(edges)


def _ratio(num: float, den: float) -> float | None:
    return num / den if den > 0 else None


def outcome_metrics(outcome: SimOutcome, model: GridModel) -> dict[str, Any]:
    """The five metrics overall, per site, per VO and per group, plus counters.

    Returns ``{"overall": {...}, "sites": {name: {...}}, "vos": {name: {...}},
    "groups": {name: {...}}, "counts": {...}}`` — values are floats or None (no job done).
    """
    step, horizon = outcome.step, outcome.horizon
    total_cpus = model.total_cpus
    capacity = total_cpus * horizon
    n_nodes = len(model.nodes)
    bet = np.zeros((len(model.sites), n_nodes))
    eet = np.zeros((len(model.sites), n_nodes))
    used = np.zeros((len(model.sites), n_nodes))
    for s, site in enumerate(model.sites):
        usage = outcome.usage[s]
        used[s] = usage.sum(axis=1)
        for n in range(n_nodes):
            for out, share, interval in (
                (bet, site.burst[n], site.burst_interval[n]),
                (eet, site.epoch[n], site.epoch_interval[n]),
            ):
                if share is not None:
                    out[s, n] = over_share(
                        usage[n], cpus=site.cpus, step=step, interval=interval, share=share
                    )
    vos = list(model.vo_nodes)
    groups = [n.index for n in model.nodes if n.is_group]

    jobs = outcome.jobs
    done = [j for j in jobs if j.state == DONE]

    def job_stats(selected_done: list, submitted: int) -> dict[str, float | None]:
        rts = [j.end - j.job.submit for j in selected_done]
        return {
            "ART": float(np.mean(rts)) if rts else None,
            "AJC": _ratio(len(selected_done), submitted),
        }

    overall = {
        "BUPV": float(bet[:, vos].sum()) / capacity,
        "EUPV": float(eet[:, vos].sum()) / capacity,
        "ARU": float(used[:, vos].sum()) / capacity,
        **job_stats(done, len(jobs)),
        "group_BUPV": float(bet[:, groups].sum()) / capacity if groups else 0.0,
        "group_EUPV": float(eet[:, groups].sum()) / capacity if groups else 0.0,
    }
    sites = {}
    for s, site in enumerate(model.sites):
        cap = site.cpus * horizon
        sent = [j for j in jobs if j.site == s]
        sites[site.name] = {
            "BUPV": float(bet[s, vos].sum()) / cap,
            "EUPV": float(eet[s, vos].sum()) / cap,
            "ARU": float(used[s, vos].sum()) / cap,
            **job_stats([j for j in sent if j.state == DONE], len(sent)),
        }
    per_node = {}
    for n in vos + groups:
        mine = [j for j in jobs if n in j.path]
        per_node[model.nodes[n].name] = {
            "BUPV": float(bet[:, n].sum()) / capacity,
            "EUPV": float(eet[:, n].sum()) / capacity,
            "ARU": float(used[:, n].sum()) / capacity,
            **job_stats([j for j in mine if j.state == DONE], len(mine)),
        }
    counts = {
        "submitted": len(jobs),
        "completed": len(done),
        "rejected": sum(1 for j in jobs if j.state == "rejected"),
        "suspensions": outcome.suspensions,
        "releases": outcome.releases,
        "suspended_jobs": sum(1 for j in jobs if j.suspensions),
        "resumed_and_completed": sum(1 for j in done if j.suspensions),
    }
    return {
        "overall": overall,
        "sites": sites,
        "vos": {model.nodes[n].name: per_node[model.nodes[n].name] for n in vos},
        "groups": {model.nodes[n].name: per_node[model.nodes[n].name] for n in groups},
        "counts": counts,
    }
