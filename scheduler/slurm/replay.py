"""Replay a Slurm accounting dump under the Slurm model (or FCFS / EASY) and compare the
simulated starts with the recorded ones.

The dump is read by :func:`scheduler.traces.sacct.convert_sacct` (the one sacct reader),
asking it for the ``Account``, ``Eligible`` and ``Priority`` columns besides what SWF keeps.
Per job the replay uses: user, account, partition, QOS, submit, start, end, time limit and
CPUs.  A job's simulated run is its recorded run, cut at its time limit plus
``OverTimeLimit`` (https://slurm.schedmd.com/slurm.conf.html); the scheduler plans with that
limit (a job without one — ``UNLIMITED`` — is planned with its partition's ``MaxTime``, else
its recorded run).

Figures (:func:`group_figures`, :func:`comparison`): per user, account, partition and QOS the
jobs, mean and median wait, mean bounded slowdown (runs under 10 s count as 10 s; Feitelson
et al., JSSPP 1997) and the share of the machine's CPU time over the replay; against the
recorded starts: per-job ``|simulated − real|`` start error (median, 90th percentile), mean
and median wait simulated and real, and Spearman's rank correlation of the start order.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from ..cluster.jobs import SimJob
from ..cluster.registry import BUILTIN, PolicyRef
from ..cluster.simulator import Simulator
from ..cluster.slurm import SlurmParams
from ..traces.sacct import convert_sacct
from .config import SlurmSite

__all__ = ["SlurmDump", "comparison", "group_figures", "load_dump", "replay", "write_schedule"]

_EXTRAS = ("Account", "Eligible", "Priority")
BSLD_TAU = 10


@dataclass
class SlurmDump:
    """The jobs of a sacct dump, in submit order, with their Slurm names."""

    job_ids: list[str]
    submit: np.ndarray  # seconds from the first submission
    real_start: np.ndarray
    run: np.ndarray
    limit: np.ndarray  # time limit (s), -1 unlimited
    cpus: np.ndarray
    user: list[str]
    account: list[str]
    partition: list[str]
    qos: list[str]
    notes: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.job_ids)


def load_dump(data: bytes | str | IO[bytes], *, lenient: bool = False) -> SlurmDump:
    """Read a sacct dump (any form :func:`~scheduler.traces.sacct.convert_sacct` reads; give
    ``--format`` with ``Account`` for the accounts).  Raises
    :class:`~scheduler.traces.sacct.SacctError` naming the line."""
    kept: list[dict[str, str]] = []
    _, jobs, report = convert_sacct(data, lenient=lenient, extras=_EXTRAS, kept=kept)
    inverse = {k: {v: n for n, v in m.items()} for k, m in report.mappings.items()}

    def name(kind: str, number: int) -> str:
        return inverse.get(kind, {}).get(number, "")

    notes = list(report.notes)
    if "Account" in report.missing_fields:
        notes.append("the dump has no Account column: accounts come from the associations")
    return SlurmDump(
        job_ids=[x["JobID"] for x in kept],
        submit=np.array([j.submit for j in jobs], dtype=np.int64),
        real_start=np.array([j.submit + j.wait for j in jobs], dtype=np.int64),
        run=np.array([j.run for j in jobs], dtype=np.int64),
        limit=np.array([j.req_time for j in jobs], dtype=np.int64),
        cpus=np.array([j.req_procs if j.req_procs > 0 else j.alloc_procs for j in jobs]),
        user=[name("user", j.user) for j in jobs],
        account=[x["Account"] for x in kept],
        partition=[name("partition", j.partition) for j in jobs],
        qos=[name("qos", j.queue) for j in jobs],
        notes=notes,
    )


def _numbering(values: list[str]) -> tuple[list[int], dict[int, str]]:
    table: dict[str, int] = {}
    numbers = [table.setdefault(v, len(table) + 1) if v else -1 for v in values]
    return numbers, {n: v for v, n in table.items()}


def _sim_jobs(dump: SlurmDump, params: SlurmParams) -> tuple[list[SimJob], dict]:
    """SimJobs (time limit + OverTimeLimit as the plan; the run cut there) and the names."""
    users, unames = _numbering(dump.user)
    accounts, anames = _numbering(dump.account)
    qos, qnames = _numbering(dump.qos)
    parts, pnames = _numbering(dump.partition)
    max_time = {p.name: p.max_time for p in params.partitions}
    jobs = []
    for k in range(len(dump)):
        run, limit = int(dump.run[k]), int(dump.limit[k])
        if limit <= 0:
            limit = max_time.get(dump.partition[k], -1)
        est = limit + params.overtime if limit > 0 else max(run, 1)
        jobs.append(
            SimJob(
                k, k + 1, int(dump.submit[k]), min(run, est), est, int(dump.cpus[k]), run > est,
                users[k], accounts[k], qos[k], parts[k],
            )
        )  # fmt: skip
    names = {"user": unames, "account": anames, "qos": qnames, "partition": pnames}
    return jobs, names


def machine_cpus(params: SlurmParams, dump: SlurmDump) -> int:
    """CPUs of the nodes in slurm.conf (else the widest job: one node set of that size)."""
    return sum(n for _, n in params.nodes) or int(dump.cpus.max())


def replay(site: SlurmSite, dump: SlurmDump, policy: str = "slurm") -> tuple[np.ndarray, dict]:
    """Simulated start of every job of ``dump`` (-1: never started, with the reasons) under
    ``policy``: ``slurm`` (the site's configuration), or a registry policy on the same
    machine (``fcfs``, ``easy``)."""
    base = site.params()
    jobs, names = _sim_jobs(dump, base)
    params = SlurmParams(**{**base.__dict__, "names": names})
    cpus = machine_cpus(params, dump)
    ref = PolicyRef(BUILTIN["slurm"], params) if policy == "slurm" else policy
    wide = [j for j in jobs if j.procs > cpus]
    if wide:
        raise ValueError(f"Slurm job {dump.job_ids[wide[0].index]} needs more CPUs than {cpus}")
    sim = Simulator(jobs, cpus, ref, estimates="requested")
    sim.run()
    info = {"cpus": cpus, "rejected": dict(getattr(sim.policy, "rejected", {}))}
    return np.array(sim.start, dtype=np.int64), info


def _rank(x: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties given their average rank (as ``scipy.stats.rankdata``, whose import
    alone takes seconds)."""
    ranks = np.empty(len(x))
    ranks[np.argsort(x, kind="stable")] = np.arange(1, len(x) + 1)
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    return (np.bincount(inverse, weights=ranks) / counts)[inverse]


def comparison(dump: SlurmDump, start: np.ndarray) -> dict[str, Any]:
    """Simulated against recorded starts, over the jobs that started in both."""
    ok = start >= 0
    sim, real, sub = start[ok], dump.real_start[ok], dump.submit[ok]
    if not sim.size:
        return {"jobs": 0}
    err = np.abs(sim - real)
    rho = None  # undefined for fewer than two jobs, or when every start is the same
    if sim.size > 1 and np.ptp(sim) > 0 and np.ptp(real) > 0:
        rho = round(float(np.corrcoef(_rank(sim), _rank(real))[0, 1]), 4)
    return {
        "jobs": int(sim.size),
        "never_started": int((~ok).sum()),
        "start_error_median": float(np.median(err)),
        "start_error_p90": float(np.percentile(err, 90)),
        "wait_mean_sim": float(np.mean(sim - sub)),
        "wait_mean_real": float(np.mean(real - sub)),
        "wait_median_sim": float(np.median(sim - sub)),
        "wait_median_real": float(np.median(real - sub)),
        "rank_correlation": rho,
    }


def group_figures(dump: SlurmDump, start: np.ndarray, cpus: int) -> dict[str, dict]:
    """Per user, account, partition and QOS: jobs, waits, bounded slowdown, the share of the
    machine's CPU time over the replay (``utilisation``) and of the CPU time delivered
    (``cpu_share``)."""
    ok = start >= 0
    wait = np.where(ok, start - dump.submit, 0)
    run = np.minimum(dump.run, np.where(dump.limit > 0, dump.limit, dump.run))
    bsld = np.maximum(1.0, (wait + run) / np.maximum(run, BSLD_TAU))
    span = max(1, int((np.where(ok, start + run, 0)).max() - dump.submit.min()))
    used = run * dump.cpus
    total = max(1.0, float(used[ok].sum()))
    out: dict[str, dict] = {}
    for kind in ("user", "account", "partition", "qos"):
        values = np.array(getattr(dump, kind), dtype=object)
        table = {}
        for v in sorted(set(values.tolist())):
            m = (values == v) & ok
            if not m.any():
                continue
            table[v or "(none)"] = {
                "jobs": int(m.sum()),
                "wait_mean": round(float(wait[m].mean()), 1),
                "wait_median": float(np.median(wait[m])),
                "bsld_mean": round(float(bsld[m].mean()), 3),
                "utilisation": round(float(used[m].sum()) / (cpus * span), 4),
                "cpu_share": round(float(used[m].sum()) / total, 4),
            }
        out[kind] = table
    return out


def write_schedule(dump: SlurmDump, start: np.ndarray, out: IO[str] | None = None) -> str:
    """The simulated schedule as CSV (Slurm JobID, names, submit, start, end, CPUs and the
    recorded start), times in seconds from the first submission."""
    buf = out or io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["job_id", "user", "account", "partition", "qos", "submit", "start", "end",
                "cpus", "real_start"])  # fmt: skip
    for k in range(len(dump)):
        s = int(start[k])
        end = s + int(dump.run[k]) if s >= 0 else -1
        w.writerow([dump.job_ids[k], dump.user[k], dump.account[k], dump.partition[k],
                    dump.qos[k], int(dump.submit[k]), s, end, int(dump.cpus[k]),
                    int(dump.real_start[k])])  # fmt: skip
    return buf.getvalue() if out is None else ""
