"""A Slurm site as one input — its accounting dump and configuration — and the what-if on it:
the site replayed with changed parameters, against the same site unchanged and against what
its Slurm recorded.

* :func:`load_site` reads the four files a site has (``sacct -P`` dump, ``slurm.conf``,
  ``sacctmgr -P show assoc``, ``sacctmgr -P show qos``) and refuses, naming the file and
  line, what the replay could not run; :func:`site_facts` says what was understood.
* :func:`parse_overrides` reads the changes (``PriorityWeightAge=0 bf_window=60
  Fairshare:physics=40``) exactly as the run applies them (:meth:`SlurmSite.set`).
* :func:`whatif_figures` is the one computation behind the ``slurm-whatif`` experiment kind
  and ``python -m scheduler slurm-replay``: per user, account, partition and QOS the jobs,
  waits, bounded slowdowns, CPU shares and utilisation of the three schedules; the start
  comparison of each replay with the recording; and each account's share of the machine over
  time against its target, the normalised Fairshare of its association (the share charts of
  Dumitrescu, Wilde & Foster 2005, Figs 3–6, on Slurm's terms:
  https://slurm.schedmd.com/priority_multifactor.html, "Normalized Shares").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from ..traces.sacct import SacctError
from .config import (
    SlurmConf,
    SlurmConfigError,
    SlurmSite,
    parse_assoc,
    parse_qos,
    parse_slurm_conf,
    parse_sshare,
)
from .replay import SlurmDump, comparison, group_figures, load_dump, machine_cpus, replay

__all__ = [
    "SCHEDULES",
    "SiteInput",
    "SlurmSiteError",
    "load_site",
    "parse_overrides",
    "site_facts",
    "whatif_figures",
    "whatif_replays",
]

#: the three schedules a what-if compares, in the order they are shown
SCHEDULES = ("changed", "unchanged", "recorded")
MAX_OVERRIDES = 100
MAX_LISTED = 50  # accounts, users … listed by name in the facts


class SlurmSiteError(ValueError):
    """A site that cannot be read; ``errors`` are messages naming the file and line."""

    def __init__(self, errors: list[str], file: str = "dump") -> None:
        self.errors = list(errors)
        self.file = file  # which: dump, slurm_conf, assoc or qos
        super().__init__("; ".join(self.errors))


@dataclass
class SiteInput:
    """A loaded Slurm site: its configuration (no overrides) and its accounting dump."""

    site: SlurmSite
    dump: SlurmDump
    name: str = ""


def load_site(
    dump: bytes | str | IO[bytes], slurm_conf: bytes | str, assoc: bytes | str = "",
    qos: bytes | str = "", sshare: bytes | str = "", *, name: str = "",
    files: dict[str, str] | None = None,
) -> SiteInput:  # fmt: skip
    """Read a site's files (``files`` names them in errors: keys ``dump``, ``slurm_conf``,
    ``assoc``, ``qos``, ``sshare``; ``sshare -a -P``'s RawUsage is each user's usage before
    the first submission).  Raises :class:`SlurmSiteError` naming the file and line, also for a
    dump the configuration cannot run (a job wider than the machine, no jobs)."""
    names = {"dump": "sacct dump", "slurm_conf": "slurm.conf", "assoc": "assoc", "qos": "qos",
             "sshare": "sshare", **(files or {})}  # fmt: skip
    file = "slurm_conf"
    try:
        site = SlurmSite(parse_slurm_conf(slurm_conf, names["slurm_conf"]))
        file = "assoc"
        if _text(assoc).strip():
            site.assocs = parse_assoc(assoc, names["assoc"])
        file = "qos"
        if _text(qos).strip():
            site.qos = parse_qos(qos, names["qos"])
        file = "sshare"
        if _text(sshare).strip():
            site.usage = parse_sshare(sshare, names["sshare"])
    except SlurmConfigError as exc:
        raise SlurmSiteError([str(exc)], file) from None
    try:
        loaded = load_dump(dump)
    except SacctError as exc:
        raise SlurmSiteError(
            [f"{names['dump']}: {f'line {line}: ' if line else ''}{why}"
             for line, why in exc.errors[:20]]
        ) from None  # fmt: skip
    if not len(loaded):
        raise SlurmSiteError([f"{names['dump']}: no job that started and ended"])
    cpus = machine_cpus(site.params(), loaded)
    wide = np.flatnonzero(loaded.cpus > cpus)
    if wide.size:
        k = int(wide[0])
        raise SlurmSiteError([f"{names['dump']}: job {loaded.job_ids[k]}: {loaded.cpus[k]} CPUs; "
                              f"{names['slurm_conf']} has {cpus}"])  # fmt: skip
    return SiteInput(site, loaded, name)


def _text(x: bytes | str) -> str:
    return x.decode("utf-8", errors="replace") if isinstance(x, bytes) else x


def parse_overrides(text: str, field: str = "overrides") -> list[str]:
    """``Key=Value`` items separated by spaces, new lines or ``;``, each checked as the run
    applies it (:meth:`SlurmSite.set`); :class:`ValueError` naming the item otherwise."""
    items = [w for w in re.split(r"[\s;]+", text) if w]
    if len(items) > MAX_OVERRIDES:
        raise ValueError(f"at most {MAX_OVERRIDES} changes; got {len(items)}")
    scratch = SlurmSite(SlurmConf())
    for item in items:
        try:
            scratch.set(item)
        except SlurmConfigError as exc:
            raise ValueError(str(exc).replace("--set ", "", 1)) from None
    return items


def override_accounts(items: list[str]) -> list[str]:
    """The accounts whose shares the overrides set."""
    return [i.split("=", 1)[0].split(":")[1] for i in items if i.lower().startswith("fairshare:")]


def applied(site: SlurmSite, items: list[str]) -> SlurmSite:
    """A copy of ``site`` with the overrides applied (the site itself is left unchanged)."""
    out = site.copy()
    for item in items:
        out.set(item)
    return out


# ------------------------------------------------------------------ what was understood

#: SlurmParams fields -> the slurm.conf key (or SchedulerParameters option) they come from
SLURM_KEYS = {
    "multifactor": "PriorityType", "weight_age": "PriorityWeightAge",
    "weight_fairshare": "PriorityWeightFairshare", "weight_jobsize": "PriorityWeightJobSize",
    "weight_partition": "PriorityWeightPartition", "weight_qos": "PriorityWeightQOS",
    "decay_half_life": "PriorityDecayHalfLife", "max_age": "PriorityMaxAge",
    "favor_small": "PriorityFavorSmall", "calc_period": "PriorityCalcPeriod",
    "fair_tree": "PriorityFlags", "overtime": "OverTimeLimit",
    "enforce_limits": "AccountingStorageEnforce", "backfill": "SchedulerType",
    "sched_interval": "sched_interval", "default_queue_depth": "default_queue_depth",
    "bf_interval": "bf_interval", "bf_window": "bf_window", "bf_resolution": "bf_resolution",
    "bf_max_job_test": "bf_max_job_test", "bf_continue": "bf_continue",
}  # fmt: skip


def _shown(field: str, value: Any) -> Any:
    words = {
        "multifactor": ("priority/multifactor", "priority/basic"),
        "backfill": ("sched/backfill", "sched/builtin"),
        "fair_tree": ("Fair Tree", "NO_FAIR_TREE (classic)"),
    }
    if field in words:
        return words[field][0 if value else 1]
    return value


def scheduling_keys(site: SlurmSite) -> list[dict[str, Any]]:
    """Every scheduling key the model reads: its value (seconds for times) and whether the
    site's files set it or it is Slurm's default."""
    params = site.params()
    given = {**site.conf.values, **site.overrides}
    return [
        {"key": key, "value": _shown(f, getattr(params, f)),
         "from": "slurm.conf" if f in given else "default"}
        for f, key in SLURM_KEYS.items()
    ]  # fmt: skip


def targets(site: SlurmSite) -> dict[str, float]:
    """Each top-level account's normalised shares (its Fairshare over its siblings' under
    root; ``parent`` counts as 1); empty when the site lists no associations."""
    top = {a.account: max(a.shares, 1) if a.shares < 0 else a.shares
           for a in site.params().assocs if not a.user and a.parent in ("root", "")}  # fmt: skip
    total = sum(top.values())
    return {a: n / total for a, n in sorted(top.items())} if total else {}


def site_facts(loaded: SiteInput) -> dict[str, Any]:
    """What was understood of a site (its page and the submit checks read it)."""
    site, dump = loaded.site, loaded.dump
    conf = site.conf
    cpus = machine_cpus(site.params(), dump)
    partitions = [
        {"name": p.name, "nodes": "ALL" if "*" in p.nodes else len(p.nodes),
         "max_time": p.max_time, "priority_job_factor": p.job_factor, "default": p.default}
        for p in conf.partitions
    ]  # fmt: skip
    assocs = [{"account": a.account, "user": a.user, "parent": a.parent, "shares": a.shares,
               "max_jobs": a.max_jobs, "grp_cpus": a.grp_cpus} for a in site.assocs]  # fmt: skip
    qos = [{"name": q.name, "priority": q.priority, "max_jobs_pu": q.max_jobs_pu,
            "max_submit_pu": q.max_submit_pu, "grp_cpus": q.grp_cpus, "max_wall": q.max_wall}
           for q in site.qos]  # fmt: skip
    accounts = sorted(set(dump.account) | {a.account for a in site.assocs} - {""})
    return {
        "jobs": len(dump),
        "span_s": int((dump.real_start + dump.run).max() - dump.submit.min()),
        "nodes": len(conf.nodes),
        "cpus": cpus,
        "partitions": partitions,
        "keys": scheduling_keys(site),
        "ignored_keys": sorted(set(conf.ignored)),
        "ignored_scheduler_parameters": sorted(set(conf.sched_ignored)),
        "associations": assocs[:500],
        "qos": qos[:500],
        "targets": targets(site),
        "initial_usage": [
            {"account": a, "user": u, "raw_usage": x} for a, u, x in site.usage[:500]
        ],
        "accounts": accounts,
        "dump": {
            kind: _counted(getattr(dump, kind)) for kind in ("user", "account", "partition", "qos")
        },
        "notes": list(dump.notes)[:50],
    }


def _counted(values: list[str]) -> dict[str, Any]:
    names = sorted(set(values))
    return {"count": len(names), "names": names[:MAX_LISTED]}


# ------------------------------------------------------------------ the what-if


def shares_over_time(
    dump: SlurmDump, starts: dict[str, np.ndarray], cpus: int, bins: int
) -> dict[str, Any]:
    """Per account and schedule, the share of the machine's CPU time it used in each of
    ``bins`` equal intervals from the first submission to the last end of any schedule."""
    run = np.minimum(dump.run, np.where(dump.limit > 0, dump.limit, dump.run))
    t0 = int(dump.submit.min())
    t1 = max(int((s[s >= 0] + run[s >= 0]).max(initial=t0)) for s in starts.values())
    width = max(1.0, (t1 - t0) / bins)
    edges = t0 + width * np.arange(bins + 1)
    accounts = np.array(dump.account, dtype=object)
    out: dict[str, Any] = {"hours": [round((e - t0) / 3600, 4) for e in edges[:-1]]}
    for name, start in starts.items():
        ok = start >= 0
        a = np.where(ok, start, 0)[:, None]
        b = np.where(ok, start + run, 0)[:, None]
        overlap = np.clip(np.minimum(b, edges[None, 1:]) - np.maximum(a, edges[None, :-1]), 0, None)
        used = overlap * dump.cpus[:, None]
        out[name] = {
            acct or "(none)": np.round(
                used[accounts == acct].sum(axis=0) / (cpus * width), 4
            ).tolist()
            for acct in sorted(set(dump.account))
        }
    return out


def whatif_replays(loaded: SiteInput, overrides: list[str], progress: Any = None) -> dict:
    """The changed and the unchanged replays: ``starts`` per schedule (the recorded one too),
    the replays' ``info`` and the ``changed`` site."""
    step = progress or (lambda fraction, message: None)
    dump = loaded.dump
    changed = applied(loaded.site, overrides)
    step(0.05, "replaying the changed configuration")
    start_changed, info = replay(changed, dump)
    if overrides:
        step(0.45, "replaying the unchanged configuration")
        start_unchanged, info_unchanged = replay(loaded.site.copy(), dump)
    else:
        start_unchanged, info_unchanged = start_changed, info
    return {
        "starts": {"changed": start_changed, "unchanged": start_unchanged,
                   "recorded": dump.real_start},
        "info": {"changed": info, "unchanged": info_unchanged},
        "changed": changed,
    }  # fmt: skip


def whatif_figures(
    loaded: SiteInput, overrides: list[str], *, bins: int = 48, progress: Any = None,
    replays: dict | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The what-if's figures (see the module): ``groups``, ``comparison`` and
    ``utilisation`` per schedule, ``shares`` over time against ``targets``, the jobs that
    never start (``rejected``) and the machine's ``cpus``; ``replays``: those of
    :func:`whatif_replays` when already made."""
    dump = loaded.dump
    replays = replays or whatif_replays(loaded, overrides, progress)
    (progress or (lambda fraction, message: None))(0.85, "figures")
    starts, info = replays["starts"], replays["info"]
    cpus = info["changed"]["cpus"]
    return {
        "jobs": len(dump),
        "cpus": cpus,
        "overrides": list(overrides),
        "groups": {name: group_figures(dump, s, cpus) for name, s in starts.items()},
        "comparison": {name: comparison(dump, starts[name]) for name in ("unchanged", "changed")},
        "utilisation": {name: _utilisation(dump, s, cpus) for name, s in starts.items()},
        "targets": targets(replays["changed"]),
        "targets_unchanged": targets(loaded.site),
        "shares": shares_over_time(dump, starts, cpus, bins),
        "rejected": {
            name: {dump.job_ids[k]: why for k, why in sorted(i["rejected"].items())}
            for name, i in info.items()
        },
    }


def _utilisation(dump: SlurmDump, start: np.ndarray, cpus: int) -> float:
    """CPU time used over the machine's CPU time from the first submission to the last end."""
    ok = start >= 0
    if not ok.any():
        return 0.0
    run = np.minimum(dump.run, np.where(dump.limit > 0, dump.limit, dump.run))
    span = max(1, int((start[ok] + run[ok]).max() - dump.submit.min()))
    return round(float((run[ok] * dump.cpus[ok]).sum()) / (cpus * span), 4)
