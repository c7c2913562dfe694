"""One label registry: every metric, series and parameter key a Result, a form, a
compare or sweep page, an export or an error message shows gets a human label and a unit.

``label_of(key)`` and ``unit_of(key)`` look the key up in :data:`LABELS`, then in
:data:`PATTERNS` (composed keys such as ``normal_UserA_at_100``), and otherwise compose a label
from the key's words (``easy_accurate_mean_wait`` → "EASY, accurate estimates: mean wait"), so a
raw key never reaches a reader.  ``format_value`` writes numbers for people: thousands
separators, 4 significant digits, no scientific notation for counts, durations in s/min/h/days,
bytes in kB/MB/GB.  A label a kind gives itself (``summary_labels``) wins over the registry.

Pure Python: the engine never imports Django.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = [
    "LABELS",
    "label_of",
    "unit_of",
    "known",
    "format_value",
    "describe",
    "fill_labels",
    "better_of",
]

#: key -> (label, unit).  Units: "s" (a duration, written in s/min/h/days), "bytes", "%",
#: "SU" (service units), "SU per processor-hour", "processors", "jobs", "" (a ratio/count).
LABELS: dict[str, tuple[str, str]] = {
    "jobs": ("jobs", "jobs"),
    "procs": ("processors", "processors"),
    "sites": ("sites", ""),
    "links": ("network links", ""),
    "utilization": ("utilisation", ""),
    "offered_load": ("offered load", ""),
    "time_bins": ("time-series bins", ""),
    "cdf_points": ("CDF points", ""),
    "procs_max": ("largest job", "processors"),
    "mean_wait": ("mean wait", "s"),
    "median_wait": ("median wait", "s"),
    "max_wait": ("longest wait", "s"),
    "mean_response": ("mean response time", "s"),
    "mean_bounded_slowdown": ("mean bounded slowdown", ""),
    "makespan": ("makespan", "s"),
    "span_s": ("trace span", "s"),
    "seed": ("random seed", ""),
    "limit": ("first jobs only", "jobs"),
    "policy": ("scheduling policy", ""),
    "estimates": ("runtime estimates", ""),
    "fraction": ("share of jobs with a reservation", ""),
    "alphas": ("price weights α", ""),
    "submissions": ("workflow submissions", ""),
    "extra_load": ("extra load", ""),
    "load_method": ("how load is raised", ""),
    "load_p": ("added-load share p", ""),
    "malleable_fraction": ("share of malleable jobs", ""),
    "interarrival": ("time between job arrivals", "s"),
    "unit_cost": ("unit cost", "SU per processor-hour"),
    "first_days": ("first days only", "days"),
    "start_day": ("window start (days into the trace)", ""),
    "submit_hour": ("workflow submitted (hours into the window)", ""),
    "size_bytes": ("file size", "bytes"),
    "bytes": ("size", "bytes"),
    # The Key results of every kind.  A composed key whose tail is one of these
    # ("easy_accurate_mean_wait", "spep.EUPV", "s1_mean_slots") takes its label and unit.
    # trace-stats
    "span_days": ("trace span", "days"),
    "machine_procs": ("machine size", "processors"),
    "median_runtime_s": ("median runtime", "s"),
    "mean_estimate_accuracy": ("mean actual / requested runtime", ""),
    # slot-advertisement
    "mean_slots": ("mean number of slots advertised", ""),
    "adverts": ("advertisements", ""),
    "edge_percent": ("edge slots", "%"),
    "corr_slots_jobs": ("correlation of slots and jobs in the system", ""),
    # provisioning, greedy provisioning (an "_aNN" suffix names the trade-off factor α)
    "be_makespan_h": ("best effort: mean makespan", "h"),
    "be_cost_su": ("best effort: allocation cost", "SU"),
    "prov_makespan_h": ("provisioned: mean makespan", "h"),
    "prov_cost_su": ("provisioned: mean allocation cost", "SU"),
    "prov_delay_su": ("provisioned: mean delay price Σf", "SU"),
    "makespan_ratio": ("provisioned / best-effort makespan", ""),
    "cost_ratio": ("provisioned / best-effort allocation cost", ""),
    # pricing
    "price_su": ("mean additive price f", "SU"),
    "resv_wait_h": ("mean wait of reservations", "h"),
    "be_wait_h": ("mean wait of best-effort jobs", "h"),
    "norm_wait": ("reservation wait / best-effort wait", ""),
    "free_share": ("share of reservations at price 0", ""),
    # provisioning-impact (completion time of the workflow)
    "none_min": ("workflow completion, no provisioning", "min"),
    "ar_min": ("workflow completion, advance reservation", "min"),
    "dp_min": ("workflow completion, dynamic provisioning", "min"),
    "mean_reduction_ar": ("mean completion-time reduction by advance reservation", "%"),
    "mean_reduction_dp": ("mean completion-time reduction by dynamic provisioning", "%"),
    # virtual-reservations
    "success_pct": ("success rate", "%"),
    "cost": ("mean normalised cost (successes)", ""),
    "cheaper_pct": ("cases where it was cheaper (both succeeded)", "%"),
    # co-allocation
    "requests": ("co-allocation requests", ""),
    "success": ("co-allocation success ratio", ""),
    "ip_solves_per_request": ("IP solves per request", ""),
    # malleability
    "mean_execution": ("mean execution time", "s"),
    "p95_response": ("95th percentile response time", "s"),
    "grows": ("grow operations", ""),
    "shrinks": ("shrink operations", ""),
    # usage-policy (Dumitrescu, Wilde & Foster's (2005) metrics)
    "EUPV": ("epoch usage-policy violation (fraction of capacity)", ""),
    "BUPV": ("burst usage-policy violation (fraction of capacity)", ""),
    "ARU": ("aggregated resource utilisation", ""),
    "ART": ("aggregated response time", "s"),
    "AJC": ("aggregated job completion (completed / submitted)", ""),
    "group_BUPV": ("group burst usage-policy violation (fraction of capacity)", ""),
    "group_EUPV": ("group epoch usage-policy violation (fraction of capacity)", ""),
    "suspensions": ("suspensions by the S-PEP", ""),
    # slurm-whatif (scheduler/slurm/whatif.py)
    "cpus": ("CPUs", "processors"),
    "overrides": ("changes to the Slurm configuration", ""),
    "share_bins": ("time bins of the share charts", ""),
    "wait_mean_changed": ("mean wait, changed configuration", "s"),
    "wait_mean_unchanged": ("mean wait, unchanged configuration", "s"),
    "wait_mean_recorded": ("mean wait, recorded", "s"),
    "start_error_median": ("median start error against the recorded starts", "s"),
    "start_error_p90": ("90th-percentile start error against the recorded starts", "s"),
    "start_error_median_changed": ("median start shift, changed configuration vs recorded", "s"),
    "rank_correlation": ("Spearman ρ of the start order against the recording", ""),
    "utilisation_changed": ("utilisation, changed configuration", ""),
    "utilisation_unchanged": ("utilisation, unchanged configuration", ""),
    "utilisation_recorded": ("utilisation, recorded", ""),
    "never_started_changed": ("jobs never started, changed configuration", "jobs"),
    "never_started_unchanged": ("jobs never started, unchanged configuration", "jobs"),
}

#: Words in composed keys -> words for people.
WORDS: dict[str, str] = {
    "easy": "EASY",
    "fcfs": "FCFS",
    "cb": "conservative backfilling",
    "conservative": "conservative",
    "accurate": "accurate estimates",
    "requested": "requested estimates",
    "be": "best effort",
    "ar": "advance reservations",
    "prov": "provisioned",
    "su": "SU",
    "h": "hours",
    "s": "seconds",
    "std": "std. dev.",
    "avg": "mean",
    "pct": "%",
    "util": "utilisation",
    "utilization": "utilisation",
    "resv": "reservation",
    "norm": "normalised",
    "ip": "IP",
    "var": "VAR",
    "pra": "PRA",
    "pwa": "PWA",
    "fpsma": "FPSMA",
    "egs": "EGS",
    "spep": "S-PEP",
    "spep-condor": "S-PEP over Condor",
    "spep-pbs": "S-PEP over OpenPBS/Maui",
    "rm-fairshare": "RM fair-share",
    "rm-condor": "Condor's fair share (RM)",
    "rm-pbs": "Maui's fair share (RM)",
    "none": "no policy",
    "procs": "processors",
    "cpus": "processors",
    "wm": "W_m",
    "dp": "DP",
    "hv": "hypervolume",
    "p95": "95th percentile",
    "fairshare": "fair share",
}

_DURATION_WORDS = {"wait", "runtime", "makespan", "response", "delay", "span", "time"}
_SCENARIOS = {"normal": "normal", "service_levels": "service levels", "admin_a": "option A",
              "admin_b": "option B", "load_balancing": "load balancing",
              "pref_domain": "(B1) preference by domain",
              "pref_cpus": "(B2) preference by # of CPUs"}  # fmt: skip

#: Composed keys: (regex, label template, unit).  Groups are passed through :func:`_words`.
PATTERNS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"^(?P<scn>[a-z_]+?)_(?P<user>User\w+)_at_(?P<load>\d+)$"),
     "{scn}: co-allocation success of {user} at {load} % load", ""),
    (re.compile(r"^(?P<scn>[a-z_]+?)_utilization$"), "{scn}: site utilisation", ""),
    (re.compile(r"^(?P<scn>[a-z_]+?)_ip_solves_per_request$"), "{scn}: IP solves per request", ""),
    (re.compile(r"^(?P<scn>[a-z_]+?)_util_(?P<raw>[^_.]+)$"),
     "{scn}: utilisation of domain {raw}", ""),
    (re.compile(r"^(?P<scn>[a-z_]+?)_success_at_(?P<load>\d+)$"),
     "{scn}: co-allocation success in the bin ending at {load} % load", ""),
    (re.compile(r"^a(?P<alpha>\d+)_(?P<rest>.+)$"), "α = {alpha} %: {rest}", "?"),
    (re.compile(r"^(?P<rest>[a-z_]+?)_a(?P<frac>\d+)$"), "{rest}, α = {frac}", "?"),
]  # fmt: skip


def _words(text: str) -> str:
    if text in _SCENARIOS:
        return _SCENARIOS[text]
    parts = re.split(r"[_.]", text)
    return " ".join(WORDS.get(p, WORDS.get(p.lower(), p)) for p in parts if p)


def _compose(key: str) -> str:
    """'easy_accurate_mean_wait' -> 'EASY, accurate estimates: mean wait'."""
    parts = [p for p in re.split(r"[_]", key) if p]
    if not parts:
        return key
    lead: list[str] = []
    while parts and parts[0].lower() in ("easy", "fcfs", "cb", "conservative", "accurate",
                                          "requested", "pra", "pwa", "fpsma", "egs", "spep",
                                          "normal", "be", "ar", "prov"):  # fmt: skip
        lead.append(WORDS.get(parts[0].lower(), parts[0]))
        parts.pop(0)
    rest = " ".join(WORDS.get(p.lower(), p) for p in parts)
    if lead and rest:
        return f"{', '.join(lead)}: {rest}"
    return ", ".join(lead) or rest


def _group(name: str, value: str) -> str:
    if name == "raw":  # a name from the input (a domain): shown as it is
        return value
    if name == "rest":
        return label_of(value)
    if name == "frac":  # "a50" -> α = 0.5
        return f"{int(value) / 100:g}"
    return _words(value)


def _tail(key: str) -> tuple[str, str] | None:
    """(context, metric) when the key ends in a registry key after '_' or '.': the longest
    such tail ('fcfs_accurate_mean_wait' -> ('fcfs_accurate', 'mean_wait'))."""
    for m in re.finditer(r"[_.]", key):
        tail = key[m.end() :]
        if tail in LABELS and m.start() > 0:
            return key[: m.start()], tail
    return None


def _context(prefix: str) -> str:
    if prefix in _SCENARIOS:
        return _SCENARIOS[prefix]
    m = re.fullmatch(r"(?:s|site)(\d+)", prefix)
    if m:
        return f"site {m.group(1)}"
    return _compose(prefix)


def label_of(key: str) -> str:
    """The human label of a metric, series or parameter key (never the raw key)."""
    if key in LABELS:
        return LABELS[key][0]
    for rx, template, _ in PATTERNS:
        m = rx.match(key)
        if m:
            groups = {k: _group(k, v) for k, v in m.groupdict().items()}
            return template.format(**groups)
    split = _tail(key)
    if split:
        return f"{_context(split[0])}: {LABELS[split[1]][0]}"
    return _compose(key)


def known(key: str) -> bool:
    """Whether the registry itself labels the key (an entry, a pattern, or a context before an
    entry) — not only words composed from it."""
    if key in LABELS or _tail(key):
        return True
    for rx, _, _ in PATTERNS:
        m = rx.match(key)
        if m:
            return "rest" not in m.groupdict() or known(m.group("rest"))
    return False


def unit_of(key: str) -> str:
    if key in LABELS:
        return LABELS[key][1]
    for rx, _, unit in PATTERNS:
        m = rx.match(key)
        if m:
            return unit_of(m.group("rest")) if unit == "?" else unit
    split = _tail(key)
    if split:
        return LABELS[split[1]][1]
    words = set(re.split(r"[_.]", key.lower()))
    if words & {"pct", "percent"}:
        return "%"
    if "bytes" in words:
        return "bytes"
    if "h" in words or "hours" in words:
        return "h"
    # a key that names its unit wins over the duration words ("span_days" is in days)
    for unit, names in (("days", {"days", "day", "d"}), ("min", {"min", "mins", "minutes"}),
                        ("ms", {"ms"})):  # fmt: skip
        if words & names and not words & {"per"}:
            return unit
    if words & {"s", "seconds"} or (
        words & _DURATION_WORDS and not words & {"ratio", "norm", "slowdown"}
    ):
        return "s"
    return ""


#: Which way a metric is better, for a sweep's best and worst points: the metric's key words.
#: Keys not named here have no direction (the sweep page says "highest" and "lowest").
_LOWER_BETTER = {"wait", "slowdown", "response", "makespan", "cost", "price", "delay",
                 "dropped", "killed", "runtime", "execution", "violation", "eupv", "bupv",
                 "art", "suspensions", "min"}  # fmt: skip
_HIGHER_BETTER = {"utilization", "utilisation", "util", "success", "aru", "ajc", "reduction",
                  "cheaper", "hv", "hypervolume", "free"}  # fmt: skip


def better_of(key: str) -> str | None:
    """'lower' or 'higher' when the metric is better that way (waits, costs and violations
    lower; utilisation, success and completion ratios higher), else None.  The metric's own
    words decide (its registry tail first: 'easy_accurate_mean_wait' -> 'mean_wait')."""
    split = _tail(key)
    metric = split[1] if split else key
    words = {w.lower() for w in re.split(r"[_.]", metric) if w}
    if words & {"ratio", "norm", "std", "n", "count"} or not words:
        return None
    up, down = bool(words & _HIGHER_BETTER), bool(words & _LOWER_BETTER)
    if up != down:
        return "higher" if up else "lower"
    return None


def describe(key: str) -> str:
    """'label (unit)' for column headers and error messages."""
    unit = unit_of(key)
    label = label_of(key)
    return f"{label} ({unit})" if unit and unit not in ("s", "bytes") else label


def fill_labels(summary: dict[str, Any], labels: dict[str, str] | None) -> dict[str, str]:
    """Labels for every summary key: the kind's own where it gave one, else the registry's."""
    labels = dict(labels or {})
    for key in summary:
        if not labels.get(key) or labels[key] == key:
            labels[key] = label_of(key)
        unit = unit_of(key)
        for tail in (f" ({unit})", f", {unit}") if unit else ():
            if labels[key].endswith(tail):  # the value carries the unit now ("111 min")
                labels[key] = labels[key][: -len(tail)]
    return labels


def units_for(summary: dict[str, Any]) -> dict[str, str]:
    return {k: u for k in summary if (u := unit_of(k))}


def _num(v: float, digits: int = 4) -> str:
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) < 1e15):
        return f"{int(v):,}"
    a = abs(v)
    if a >= 10 ** (digits - 1):  # 4 significant digits of 1234.5: the integer, with commas
        return f"{round(v):,}"
    if a and a < 1e-4:
        return f"{v:.1e}"
    text = f"{v:.{digits}g}"
    if "e" in text:  # 4 significant digits of a number >= 1000 print as 1.234e+03
        text = f"{round(v):,}"
    return text


def format_value(value: Any, *, key: str = "", unit: str | None = None) -> str:
    """A number for people (see the module doc); strings pass through."""
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    unit = unit_of(key) if unit is None and key else (unit or "")
    if unit == "s":
        a = abs(value)
        if a < 120:
            return f"{_num(value, 3)} s"
        if a < 7200:
            return f"{_num(value / 60, 3)} min"
        if a < 3 * 86400:
            return f"{_num(value / 3600, 3)} h"
        hours = round(a / 3600)  # days and hours ("18 d 3 h"), as the pages write them
        days, rest = divmod(hours, 24)
        return ("−" if value < 0 else "") + f"{days:,} d" + (f" {rest} h" if rest else "")
    if unit == "bytes":
        for scale, name in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if abs(value) >= scale:
                return f"{_num(value / scale, 3)} {name}"
        return f"{_num(value)} B"
    text = _num(value)
    return f"{text} {unit}" if unit and unit not in ("jobs", "processors") else text


def labelled(result: dict[str, Any]) -> dict[str, Any]:
    """A Result with a label for every summary key and the units the registry knows (a copy;
    stored results are never rewritten)."""
    if not isinstance(result, dict) or not isinstance(result.get("summary"), dict):
        return result
    out = dict(result)
    out["summary_labels"] = fill_labels(result["summary"], result.get("summary_labels"))
    out["summary_units"] = {**units_for(result["summary"]), **(result.get("summary_units") or {})}
    tables = []
    for tab in result.get("tables") or []:
        cols = tab.get("columns") or []
        if isinstance(tab, dict) and any(_is_key(c) for c in cols) and "column_labels" not in tab:
            tab = {**tab, "column_labels": [column_label(c) for c in cols]}
        if isinstance(tab, dict) and "column_units" not in tab:
            units = [column_unit(c) for c in cols]
            if any(units):  # the page writes those columns for people ("18 d 3 h")
                tab = {**tab, "column_units": units}
        tables.append(tab)
    out["tables"] = tables
    return out


def _is_key(name: Any) -> bool:
    return isinstance(name, str) and " " not in name and ("_" in name or name in LABELS)


def column_unit(name: Any) -> str:
    """The unit of a key column whose values the page rewrites for people: durations ("s",
    "min", "h", "days") and sizes ("bytes"); '' for the rest (a header says its own unit)."""
    if not isinstance(name, str):
        return ""
    m = re.fullmatch(r"(\S+) (mean|std)", name)
    key = m.group(1) if m else name
    if not _is_key(key):
        return ""
    unit = unit_of(key)
    return unit if unit in ("s", "min", "h", "days", "bytes") else ""


def column_label(name: str) -> str:
    """A table column: keys get their label ('first_submit_mean' -> 'first submit, mean')."""
    m = re.fullmatch(r"(\S+) (mean|std|n)", name) if isinstance(name, str) else None
    if m and _is_key(m.group(1)):  # a sweep aggregate's column ('first_submit mean')
        word = {"mean": "mean", "std": "std. dev.", "n": "n"}[m.group(2)]
        return f"{label_of(m.group(1))} ({word})"
    if not _is_key(name):
        return name
    for suffix, word in (("_mean", "mean"), ("_std", "std. dev."), ("_n", "n")):
        if name.endswith(suffix) and len(name) > len(suffix):
            return f"{label_of(name[: -len(suffix)])} ({word})"
    return label_of(name)


#: Words that name a member of a comparison inside a metric's key (a policy, an estimate mode,
#: a strategy, a scenario): metrics that differ only in them are one quantity.
_MEMBER_WORDS = {
    "easy", "fcfs", "cb", "conservative", "accurate", "requested", "backfill", "k", "inf",
    "fairshare", "pra", "pwa", "fpsma", "egs", "spep", "vpep", "rm", "condor", "pbs", "none",
    "normal", "be", "ar", "dp", "prov", "var", "combined", "adaptive",
}  # fmt: skip


def member_metric(key: str) -> tuple[str, str] | None:
    """(metric, member) when ``key`` is one member's value of a registry metric
    ('easy_accurate_mean_wait' -> ('mean_wait', 'easy_accurate')), else None."""
    split = _tail(key)
    if not split:
        return None
    words = [w for w in re.split(r"[_.=-]", split[0].lower()) if w]
    if not all(w in _MEMBER_WORDS or re.fullmatch(r"(s|site)?\d+", w) for w in words):
        return None
    return split[1], split[0]


def member_label(member: str) -> str:
    """A member's words ('easy_accurate' -> 'EASY, accurate estimates', 's2' -> 'site 2')."""
    return _context(member)


def name_label(name: str) -> str:
    """A single name's words (a policy, strategy or mode: 'cb' -> 'conservative
    backfilling'), the name itself when none is known."""
    return WORDS.get(name, name)
