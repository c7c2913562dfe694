"""A Slurm site's scheduling configuration, read from what the site already has.

* ``slurm.conf`` (https://slurm.schedmd.com/slurm.conf.html): the scheduling keys —
  ``SchedulerType``, ``SchedulerParameters`` (``bf_interval``, ``bf_window`` in minutes,
  ``bf_resolution``, ``bf_max_job_test``, ``bf_continue``, ``default_queue_depth``,
  ``sched_interval``), ``PriorityType``, ``PriorityWeight*``, ``PriorityDecayHalfLife``,
  ``PriorityMaxAge``, ``PriorityFavorSmall``, ``PriorityCalcPeriod`` (minutes),
  ``PriorityFlags``, ``OverTimeLimit`` (minutes), ``AccountingStorageEnforce``, the
  ``NodeName`` lines (``CPUs``) and the ``PartitionName`` lines (``Nodes``, ``MaxTime``,
  ``PriorityJobFactor``, ``Default``).  Every other key is ignored and listed
  (:attr:`SlurmConf.ignored`).
* ``sacctmgr -P show assoc`` and ``sacctmgr -P show qos`` (pipe-separated, header first;
  https://slurm.schedmd.com/sacctmgr.html): shares and limits of associations, priority and
  limits of QOS; ``sshare -a -P``: the users' RawUsage, their usage before the replay.

Bad input raises :class:`SlurmConfigError` naming the file, the line and the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from ..cluster.slurm import SlurmAssoc, SlurmParams, SlurmPartition, SlurmQOS
from ..traces.sacct import slurm_duration

__all__ = [
    "SlurmConf",
    "SlurmConfigError",
    "SlurmSite",
    "parse_assoc",
    "parse_qos",
    "parse_slurm_conf",
    "parse_sshare",
]

#: slurm.conf keys read, lower-cased -> SlurmParams field and how the value is read
_KEYS: dict[str, tuple[str, str]] = {
    "priorityweightage": ("weight_age", "int"),
    "priorityweightfairshare": ("weight_fairshare", "int"),
    "priorityweightjobsize": ("weight_jobsize", "int"),
    "priorityweightpartition": ("weight_partition", "int"),
    "priorityweightqos": ("weight_qos", "int"),
    "prioritydecayhalflife": ("decay_half_life", "time"),
    "prioritymaxage": ("max_age", "time"),
    "priorityfavorsmall": ("favor_small", "yesno"),
    "prioritycalcperiod": ("calc_period", "time"),
    "overtimelimit": ("overtime", "minutes"),
}
#: SchedulerParameters options read -> SlurmParams field, unit (seconds per unit)
_SCHED: dict[str, tuple[str, int]] = {
    "bf_interval": ("bf_interval", 1),
    "bf_window": ("bf_window", 60),
    "bf_resolution": ("bf_resolution", 1),
    "bf_max_job_test": ("bf_max_job_test", 1),
    "default_queue_depth": ("default_queue_depth", 1),
    "sched_interval": ("sched_interval", 1),
}
_OTHER_READ = (
    "schedulertype", "schedulerparameters", "prioritytype", "priorityflags",
    "accountingstorageenforce", "nodename", "partitionname",
)  # fmt: skip
_MAX_TEXT = 4_000_000
_NAME = re.compile(r"[A-Za-z0-9_.@+-]{1,64}")  # an account or user name in an override


class SlurmConfigError(ValueError):
    """A configuration that cannot be read; the message names the file, line and key."""


@dataclass
class SlurmConf:
    """What ``slurm.conf`` says about scheduling (:func:`parse_slurm_conf`)."""

    values: dict[str, Any] = field(default_factory=dict)  # SlurmParams fields
    nodes: list[tuple[str, int]] = field(default_factory=list)
    partitions: list[SlurmPartition] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    sched_ignored: list[str] = field(default_factory=list)


def _expand_hosts(text: str) -> list[str]:
    """Slurm's host lists: ``node[01-03,7],gpu1`` -> node01 node02 node03 node7 gpu1."""
    out: list[str] = []
    for m in re.finditer(r"([^,\[]*)(?:\[([^\]]*)\])?([^,]*)", text):
        prefix, ranges, suffix = m.groups()
        if not prefix and not ranges:
            continue
        if ranges is None:
            out.append(prefix + suffix)
            continue
        for part in ranges.split(","):
            a, _, b = part.partition("-")
            if not a.isdigit() or (b and not b.isdigit()):
                raise ValueError(f"bad host range [{ranges}]")
            if b and int(b) - int(a) > 100_000:
                raise ValueError(f"host range [{ranges}] is too long")
            for i in range(int(a), int(b or a) + 1):
                out.append(f"{prefix}{str(i).zfill(len(a))}{suffix}")
    return out


def _value(kind: str, text: str) -> Any:
    if kind == "int":
        if not re.fullmatch(r"\d{1,10}", text):
            raise ValueError("an integer >= 0")
        return int(text)
    if kind == "yesno":
        if text.upper() not in ("YES", "NO"):
            raise ValueError("YES or NO")
        return text.upper() == "YES"
    if kind == "minutes":
        return _value("int", text) * 60
    seconds = slurm_duration(text)  # "time": Slurm's time formats; a bare number is minutes
    return 0 if seconds < 0 else seconds


def _pairs(line: str) -> list[tuple[str, str]]:
    """``Key=Value`` words of one line (values may be quoted)."""
    out = []
    for word in re.findall(r'(\S+?=(?:"[^"]*"|\S*))', line):
        key, _, value = word.partition("=")
        out.append((key, value.strip('"')))
    return out


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Lines with comments cut and ``\\`` continuations joined, with their first line number."""
    out: list[tuple[int, str]] = []
    pending, first = "", 0
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not pending:
            first = n
        if line.endswith("\\"):
            pending += line[:-1]
            continue
        line, pending = pending + line, ""
        if line.strip():
            out.append((first, line.strip()))
    return out


def parse_slurm_conf(text: str | bytes, name: str = "slurm.conf") -> SlurmConf:
    """Read the scheduling keys of a ``slurm.conf`` (see the module); raise
    :class:`SlurmConfigError` naming the line and key of a value that cannot be read."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if len(text) > _MAX_TEXT:
        raise SlurmConfigError(f"{name}: longer than {_MAX_TEXT:,} characters")
    conf = SlurmConf()
    for n, line in _logical_lines(text):
        pairs = _pairs(line)
        if not pairs:
            raise SlurmConfigError(f"{name}: line {n}: not a Key=Value line: {line[:60]!r}")
        key, value = pairs[0]
        low = key.lower()
        try:
            if low == "nodename":
                _node_line(conf, value, pairs[1:])
            elif low == "partitionname":
                _partition_line(conf, value, pairs[1:])
            elif low in _KEYS:
                attr, kind = _KEYS[low]
                conf.values[attr] = _value(kind, value)
            elif low in _OTHER_READ:
                _other(conf, low, value)
            else:
                conf.ignored.append(key)
        except (ValueError, KeyError) as exc:
            raise SlurmConfigError(f"{name}: line {n}: {key}: {exc}") from None
    _check_partitions(conf, name)
    return conf


def _other(conf: SlurmConf, low: str, value: str) -> None:
    v = conf.values
    if low == "schedulertype":
        if value not in ("sched/backfill", "sched/builtin"):
            raise ValueError(f"{value!r}: sched/backfill or sched/builtin")
        v["backfill"] = value == "sched/backfill"
    elif low == "prioritytype":
        if value not in ("priority/multifactor", "priority/basic"):
            raise ValueError(f"{value!r}: priority/multifactor or priority/basic")
        v["multifactor"] = value == "priority/multifactor"
    elif low == "priorityflags":
        v["fair_tree"] = "NO_FAIR_TREE" not in value.upper().split(",")
    elif low == "accountingstorageenforce":
        words = {w.strip().lower() for w in value.split(",")}
        v["enforce_limits"] = bool(words & {"limits", "safe"})
    elif low == "schedulerparameters":
        for opt in filter(None, value.split(",")):
            k, eq, x = opt.partition("=")
            if k == "bf_continue":
                v["bf_continue"] = True
            elif k in _SCHED and eq:
                attr, unit = _SCHED[k]
                v[attr] = _value("int", x) * unit
            elif k in _SCHED:
                raise ValueError(f"{k} needs a value ({k}=N)")
            else:
                conf.sched_ignored.append(k)


def _node_line(conf: SlurmConf, names: str, rest: list[tuple[str, str]]) -> None:
    if names.upper() == "DEFAULT":
        return
    cpus = next((v for k, v in rest if k.lower() in ("cpus", "procs")), "1")
    n = _value("int", cpus)
    if n < 1:
        raise ValueError("CPUs must be >= 1")
    conf.nodes.extend((h, n) for h in _expand_hosts(names))


def _partition_line(conf: SlurmConf, name: str, rest: list[tuple[str, str]]) -> None:
    if name.upper() == "DEFAULT":
        return
    opts = {k.lower(): v for k, v in rest}
    nodes = opts.get("nodes", "")
    hosts = ("*",) if nodes.upper() == "ALL" else tuple(_expand_hosts(nodes))
    max_time = opts.get("maxtime", "UNLIMITED")
    seconds = -1 if max_time.upper() in ("UNLIMITED", "INFINITE") else slurm_duration(max_time)
    factor = _value("int", opts.get("priorityjobfactor", "1"))
    default = _value("yesno", opts.get("default", "NO"))
    conf.partitions.append(SlurmPartition(name, hosts, seconds, factor, default))


def _check_partitions(conf: SlurmConf, name: str) -> None:
    known = {h for h, _ in conf.nodes}
    for p in conf.partitions:
        unknown = [h for h in p.nodes if h != "*" and h not in known]
        if unknown:
            raise SlurmConfigError(
                f"{name}: PartitionName={p.name}: Nodes: {unknown[0]!r} has no NodeName line"
            )


# ------------------------------------------------------------------ sacctmgr -P show …


def _table(text: str | bytes, name: str) -> list[tuple[int, dict[str, str]]]:
    """Rows of a ``sacctmgr -P`` table as dicts keyed by the header's names."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if len(text) > _MAX_TEXT:
        raise SlurmConfigError(f"{name}: longer than {_MAX_TEXT:,} characters")
    lines = [(n, ln) for n, ln in enumerate(text.splitlines(), start=1) if ln.strip()]
    if not lines or "|" not in lines[0][1]:
        raise SlurmConfigError(f"{name}: line 1: not sacctmgr -P output (a header with '|')")
    header = [h.strip() for h in lines[0][1].split("|")]
    rows = []
    for n, line in lines[1:]:
        parts = line.split("|")
        if len(parts) != len(header):
            raise SlurmConfigError(
                f"{name}: line {n}: {len(parts)} fields where the header has {len(header)}"
            )
        rows.append((n, dict(zip(header, (p.strip() for p in parts), strict=True))))
    return rows


def _limit(row: dict[str, str], key: str, kind: str, where: str) -> int:
    text = row.get(key, "")
    if not text:
        return -1
    try:
        if kind == "cpu":  # a TRES list: cpu=N,mem=…
            found = re.search(r"(?:^|,)cpu=(\d+)", text)
            return int(found.group(1)) if found else -1
        if kind == "time":
            return slurm_duration(text)
        return _value("int", text)
    except ValueError:
        raise SlurmConfigError(f"{where}: {key}: {text[:40]!r} is not a valid value") from None


def parse_qos(text: str | bytes, name: str = "qos") -> list[SlurmQOS]:
    """``sacctmgr -P show qos``: name, priority, MaxJobsPU, MaxSubmitPU, GrpTRES cpu, MaxWall."""
    out = []
    for n, row in _table(text, name):
        where = f"{name}: line {n}"
        if not row.get("Name"):
            raise SlurmConfigError(f"{where}: Name: empty")
        out.append(
            SlurmQOS(
                row["Name"], max(0, _limit(row, "Priority", "int", where)),
                _limit(row, "MaxJobsPU", "int", where), _limit(row, "MaxSubmitPU", "int", where),
                _limit(row, "GrpTRES", "cpu", where), _limit(row, "MaxWall", "time", where),
            )
        )  # fmt: skip
    return out


def parse_sshare(text: str | bytes, name: str = "sshare") -> list[tuple[str, str, float]]:
    """``sshare -a -P`` (https://slurm.schedmd.com/sshare.html): each association's RawUsage
    (decayed CPU-seconds) as (account, user, usage); accounts' own rows (no user) and root are
    left out, their usage being their users' sum."""
    out = []
    for n, row in _table(text, name):
        where = f"{name}: line {n}"
        account, user = row.get("Account", "").strip(), row.get("User", "").strip()
        if "RawUsage" not in row:
            raise SlurmConfigError(f"{where}: RawUsage: the header has no RawUsage column")
        if not account:
            raise SlurmConfigError(f"{where}: Account: empty")
        raw = row["RawUsage"] or "0"
        if not re.fullmatch(r"\d{1,15}", raw):
            raise SlurmConfigError(f"{where}: RawUsage: {raw[:40]!r} is not an integer >= 0")
        if user:
            out.append((account, user, float(raw)))
    return out


def parse_assoc(text: str | bytes, name: str = "assoc") -> list[SlurmAssoc]:
    """``sacctmgr -P show assoc``: accounts and users with Share, MaxJobs, GrpTRES cpu (and
    ``Par Name`` when listed; else accounts hang under root)."""
    out = []
    for n, row in _table(text, name):
        where = f"{name}: line {n}"
        account = row.get("Account", "")
        if not account:
            raise SlurmConfigError(f"{where}: Account: empty")
        share = row.get("Share", "1") or "1"
        if share.lower() == "parent":
            shares = -1
        elif share.isdigit():
            shares = int(share)
        else:
            raise SlurmConfigError(f"{where}: Share: {share[:40]!r} is not a number or 'parent'")
        parent = row.get("Par Name", "") or ("" if account == "root" else "root")
        out.append(
            SlurmAssoc(
                account, row.get("User", ""), parent, shares,
                _limit(row, "MaxJobs", "int", where), _limit(row, "GrpTRES", "cpu", where),
            )
        )  # fmt: skip
    return [a for a in out if a.account != "root" or a.user]  # root's users stay


@dataclass
class SlurmSite:
    """A site's configuration: slurm.conf, associations and QOS (:meth:`params` feeds the
    model)."""

    conf: SlurmConf
    assocs: list[SlurmAssoc] = field(default_factory=list)
    qos: list[SlurmQOS] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)
    usage: list[tuple[str, str, float]] = field(default_factory=list)  # sshare's RawUsage
    shares: dict[tuple[str, str], int] = field(default_factory=dict)  # set by Fairshare:…

    def set(self, assignment: str) -> None:
        """Apply ``Key=Value`` as a slurm.conf line would (``PriorityWeightAge=0``,
        ``bf_window=60``, ``SchedulerType=sched/builtin``), or an association's shares as
        ``sacctmgr modify account NAME set fairshare=N`` would (``Fairshare:NAME=N``, a user
        of it ``Fairshare:NAME:USER=N``); raise naming the key."""
        key, eq, value = assignment.partition("=")
        if not eq or not key.strip():
            raise SlurmConfigError(f"--set {assignment[:60]!r}: write Key=Value")
        key = key.strip()
        if key.lower().startswith("fairshare:"):
            self._set_share(key, value.strip())
            return
        line = f"SchedulerParameters={key}={value}" if key in _SCHED else f"{key}={value}"
        if key == "bf_continue":
            line = "SchedulerParameters=bf_continue"
        parsed = parse_slurm_conf(line, f"--set {key}")
        if parsed.ignored or parsed.sched_ignored or parsed.nodes or parsed.partitions:
            raise SlurmConfigError(f"--set {key}: not a scheduling key this model reads")
        self.overrides.update(parsed.values)

    def _set_share(self, key: str, value: str) -> None:
        """``Fairshare:ACCOUNT[:USER]=N`` (sacctmgr.html, "fairshare"): the association's
        shares; an association the site does not list is added under root."""
        parts = key.split(":")[1:]
        if not 1 <= len(parts) <= 2 or not all(_NAME.fullmatch(p) for p in parts):
            raise SlurmConfigError(f"--set {key[:60]}: write Fairshare:ACCOUNT=N or "
                                   "Fairshare:ACCOUNT:USER=N")  # fmt: skip
        if not re.fullmatch(r"\d{1,9}", value):
            raise SlurmConfigError(f"--set {key[:60]}: shares must be an integer >= 0")
        account, user = parts[0], parts[1] if len(parts) == 2 else ""
        self.shares[(account, user)] = int(value)

    def _assocs(self) -> tuple[SlurmAssoc, ...]:
        """The associations with the shares set by :meth:`set` applied."""
        left = dict(self.shares)
        out = [
            replace(a, shares=left.pop((a.account, a.user)))
            if (a.account, a.user) in left else a
            for a in self.assocs
        ]  # fmt: skip
        out += [SlurmAssoc(acct, user, "root" if not user else acct, n)
                for (acct, user), n in left.items()]  # fmt: skip
        return tuple(out)

    def copy(self) -> SlurmSite:
        """The same site without its overrides (a fresh what-if starts from it)."""
        return SlurmSite(self.conf, list(self.assocs), list(self.qos), usage=list(self.usage))

    def params(self, names: dict[str, dict[int, str]] | None = None) -> SlurmParams:
        """The model's parameters; ``names`` maps the trace's numbers to Slurm names."""
        base = SlurmParams(
            nodes=tuple(self.conf.nodes), partitions=tuple(self.conf.partitions),
            qos=tuple(self.qos), assocs=self._assocs(), names=names or {},
            initial_usage=tuple(self.usage),
        )  # fmt: skip
        return replace(base, **{**self.conf.values, **self.overrides})
