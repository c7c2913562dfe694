"""Parameter sweeps: expand a grid of runs, run it as a Celery group, aggregate the results.

A sweep varies one or two parameters of a kind (a list of values, or a range) and repeats every
point ``repetitions`` times with seeds ``seed, seed + 1, …``. Each run is an ordinary Experiment,
so it is executed, cancelled and exported like any other; a finished identical run (same kind,
parameters, seed and input contents, same owner) computed by the workers is re-used instead of
being computed again (a result computed elsewhere, e.g. uploaded from a Slurm job array, never
is).
The aggregate (mean, standard deviation and n per point, for every numeric summary metric) is
computed from the runs on request, so it is always consistent with what has finished.
"""

from __future__ import annotations

import itertools
import math
import re
from statistics import fmean, stdev
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Sum, TextField
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Cast, Length

from gridportal.inputs.policyfiles import owned_policies, refs_in
from scheduler import engine

from .models import Experiment, Sweep, SweepRun
from .services import (
    RunInputs,
    experiment_cancel,
    experiment_new,
    experiments_dispatch,
    experiments_mark_held,
    input_facts_of,
    run_fingerprint,
    submit_checks,
    validate_run,
)

MAX_RUNS = 2000
MAX_VALUES = 200


def _range_values(spec: dict[str, Any], where: str) -> list[float]:
    try:
        start, stop, step = (float(spec[k]) for k in ("start", "stop", "step"))
    except (KeyError, TypeError, ValueError):
        raise ValidationError(
            {"vary": [f"{where}.range needs numeric start, stop and step"]}
        ) from None
    if step <= 0 or stop < start or not all(map(math.isfinite, (start, stop, step))):
        raise ValidationError({"vary": [f"{where}.range: need step > 0 and stop >= start"]})
    span = (stop - start) / step  # may overflow to inf for ranges like -1e308..1e308
    if not math.isfinite(span) or span > MAX_VALUES:
        many = f"{int(span) + 1}" if span < 1e15 else "too many"
        raise ValidationError({"vary": [f"{where}.range gives {many} values (max {MAX_VALUES})"]})
    count = int(math.floor(span + 1e-9)) + 1
    if count > MAX_VALUES:
        raise ValidationError({"vary": [f"{where}.range gives {count} values (max {MAX_VALUES})"]})
    return [round(start + i * step, 10) for i in range(count)]


def expand_vary(spec: engine.ExperimentKind, vary: Any) -> list[dict[str, Any]]:
    """Normalise ``vary`` to ``[{"param", "values"}]`` with values cleaned by the schema."""
    if not isinstance(vary, list) or not 1 <= len(vary) <= 2:
        raise ValidationError({"vary": ["give one or two parameters to vary"]})
    params = {p.name: p for p in spec.params}
    out = []
    for i, item in enumerate(vary):
        where = f"vary[{i}]"
        if not isinstance(item, dict) or "param" not in item:
            raise ValidationError({"vary": [f"{where} needs a 'param'"]})
        name = item["param"]
        if name not in params:
            known = ", ".join(params) or "none"
            raise ValidationError(
                {"vary": [f"{where}: {spec.name} has no parameter {name!r} (known: {known})"]}
            )
        if any(o["param"] == name for o in out):
            raise ValidationError({"vary": [f"{where}: {name} is varied twice"]})
        if "range" in item:
            raw = _range_values(item["range"], where)
        elif isinstance(item.get("values"), list) and item["values"]:
            raw = item["values"]
        else:
            raise ValidationError(
                {"vary": [f"{where} needs a non-empty 'values' list or a 'range'"]}
            )
        if len(raw) > MAX_VALUES:
            raise ValidationError({"vary": [f"{where} has {len(raw)} values (max {MAX_VALUES})"]})
        values = []
        for j, value in enumerate(raw):
            try:
                values.append(params[name].clean(value))
            except ValueError as exc:
                raise ValidationError({"vary": [f"{where}.values[{j}]: {name} {exc}"]}) from None
        out.append({"param": name, "values": list(dict.fromkeys(values))})
    return out


def _all_policies(params: dict[str, Any], vary: list[dict[str, Any]]) -> dict[str, str]:
    """Every policy name of a sweep's fixed and varied parameters, as one ``policies`` text
    (what :func:`~gridportal.inputs.policyfiles.refs_in` reads)."""
    texts = [params.get(k) for k in ("policies", "policy")]
    texts += [v for item in vary if item["param"] in ("policies", "policy") for v in item["values"]]
    return {"policies": ", ".join(t for t in texts if isinstance(t, str))}


def sweep_policy_params(sweep: Sweep) -> dict[str, str]:
    """The user policies a sweep's runs name, fixed or varied (for its bundle and page)."""
    return _all_policies(sweep.params, sweep.vary)


def sweep_points(vary: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = [v["param"] for v in vary]
    return [
        dict(zip(names, combo, strict=True))
        for combo in itertools.product(*(v["values"] for v in vary))
    ]


def sweep_create(
    *,
    owner,
    kind: str,
    params: dict[str, Any] | None,
    traces=(),
    workflows=(),
    policies=(),
    topologies=(),
    slurm_sites=(),
    seed: int = 0,
    vary: Any,
    repetitions: int = 1,
    name: str = "",
    executor: str = "workers",
) -> Sweep:
    """Validate the whole grid, save it, and enqueue the new runs as one Celery group.

    With ``executor="slurm"`` nothing is enqueued: the runs wait, queued, for their results to
    be uploaded from the exported Slurm job array (:mod:`.jobarray`).
    """
    if executor not in ("workers", "slurm"):
        raise ValidationError({"executor": ["must be 'workers' or 'slurm'"]})
    inputs = RunInputs.of(traces, workflows, policies, topologies, slurm_sites)
    if executor == "slurm" and inputs.slurm_sites:
        raise ValidationError(
            {"executor": ["a Slurm site's what-if runs on the portal's workers only"]}
        )
    spec, base = validate_run(kind=kind, params=params, inputs=inputs, seed=seed)
    vary = expand_vary(spec, vary)
    if executor == "slurm" and refs_in(_all_policies(base, vary)):
        raise ValidationError(
            {"executor": ["a user policy runs only in the portal's sandbox, not on Slurm"]}
        )
    if not isinstance(repetitions, int) or repetitions < 1:
        raise ValidationError({"repetitions": ["must be a positive integer"]})
    points = sweep_points(vary)
    total = len(points) * repetitions
    if total > MAX_RUNS:
        raise ValidationError({"vary": [f"the sweep has {total} runs; the limit is {MAX_RUNS}"]})
    if seed + repetitions - 1 > 2**31 - 1:
        raise ValidationError({"seed": ["seed + repetitions is too large"]})
    facts = input_facts_of(inputs.for_kind(spec), spec)
    plan = [  # (index, point, repetition, clean parameters, fingerprint)
        (
            index,
            point,
            rep,
            *_clean_point(spec, {**base, **point}, seed + rep, inputs, facts, point),
        )
        for index, point in enumerate(points)
        for rep in range(repetitions)
    ]
    new_ids: list[int] = []
    with transaction.atomic():
        reusable = _reusable_runs(owner, {key for *_, key in plan}, executor)
        # quotas (stored bytes; queued runs: the runs this adds, re-used ones not counted)
        adding = len({key for *_, key in plan} - set(reusable)) if executor == "workers" else 0
        submit_checks(owner=owner, runs=adding)
        sweep = Sweep.objects.create(
            owner=owner,
            kind=kind,
            params=base,
            seed=seed,
            vary=vary,
            repetitions=repetitions,
            name=name[:200],
            snapshot=inputs.snapshot(),
            executor=executor,
        )
        sweep.traces.set(inputs.traces)
        sweep.workflows.set(inputs.workflows)
        sweep.slurm_sites.set(inputs.slurm_sites)
        for index, point, rep, clean, key in plan:
            exp = reusable.get(key)
            reused = exp is not None
            if exp is None:
                exp = reusable[key] = experiment_new(
                    owner=owner,
                    kind=spec.name,
                    params=clean,
                    inputs=inputs,
                    seed=seed + rep,
                    name=f"{sweep} · {_point_text(list(point), point)} · seed {seed + rep}",
                )
                new_ids.append(exp.id)
            SweepRun.objects.create(
                sweep=sweep, experiment=exp, point=point, index=index, repetition=rep, reused=reused
            )
        if executor == "slurm":
            Experiment.objects.filter(id__in=new_ids).update(
                message="waiting for results from the Slurm job array"
            )
        else:
            transaction.on_commit(lambda: _enqueue_group(new_ids))
    return sweep


def _label(point: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


def _clean_point(
    spec, params, seed: int, inputs: RunInputs, facts, point: dict[str, Any] | None = None
) -> tuple[dict, str]:
    """A point's parameters as the schema cleans them, and the run's fingerprint; a refusal
    names the point (which one of many is refused)."""
    try:
        clean = spec.validate(params)
        spec.check_facts(clean, facts)
    except engine.ParamError as exc:
        where = f"point {_label(point)}: " if point else ""
        raise ValidationError(
            {"vary": [f"{where}{k}: {v}" for k, v in exc.errors.items()]}
        ) from None
    return clean, run_fingerprint(kind=spec.name, params=clean, seed=seed, inputs=inputs)


def _reusable_runs(owner, keys: set[str], executor: str = "workers") -> dict[str, Experiment]:
    """The owner's runs identical to some of these (by fingerprint) that are not failed or
    cancelled: a finished one first, then the oldest.

    Only results the portal's workers computed (or will compute) are reused: never a result
    computed elsewhere (``provenance``: uploaded from a Slurm job array, imported from a
    bundle), nor a run of a Slurm sweep still waiting for its upload. A Slurm sweep reuses
    only finished runs (a queued one would be both exported and sent to the workers)."""
    runs = Experiment.objects.filter(owner=owner, fingerprint__in=keys, provenance__isnull=True)
    if executor == "slurm":
        runs = runs.filter(status=Experiment.Status.SUCCEEDED)
    else:
        waiting = Experiment.objects.filter(sweeps__executor="slurm").exclude(
            status=Experiment.Status.SUCCEEDED
        )
        runs = runs.exclude(pk__in=waiting.values("pk"))
    found: dict[str, Experiment] = {}
    for exp in (
        runs.exclude(status__in=[Experiment.Status.FAILED, Experiment.Status.CANCELLED])
        .defer("result")
        .order_by("-status", "id")
    ):
        found.setdefault(exp.fingerprint, exp)
    return found


def _enqueue_group(ids: list[int]) -> None:
    """(After the sweep's commit) its new runs are held; the owner's turns publish as many
    as their in-flight limit allows, the rest start as theirs finish, users taking turns. A
    broker outage holds them with a message saying so (the sweeper publishes them later)."""
    if not ids:
        return
    owners = list(Experiment.objects.filter(pk__in=ids).values_list("owner_id", flat=True)[:1])
    experiments_dispatch(owner_ids=owners)
    experiments_mark_held(ids=ids)


def sweep_cancel(*, sweep: Sweep) -> int:
    """Cancel the sweep's queued and running runs; returns how many were cancelled."""
    cancelled = 0
    for exp in sweep.runs.filter(status__in=[Experiment.Status.QUEUED, Experiment.Status.RUNNING]):
        try:
            experiment_cancel(experiment=exp)
            cancelled += 1
        except ValidationError:
            pass  # it finished meanwhile
    return cancelled


def sweep_delete(*, sweep: Sweep) -> None:
    """Delete a sweep and the runs that no other sweep uses."""
    with transaction.atomic():
        ids = list(sweep.runs.values_list("id", flat=True))
        sweep.delete()
        Experiment.objects.filter(id__in=ids, sweeps__isnull=True).delete()


def sweep_status(sweep: Sweep, *, with_runs: bool = True) -> dict[str, Any]:
    """Overall state and progress (and, ``with_runs``, each run's) for the page and API.

    Lists ask without runs: counts and progress come from one aggregate query then, however
    large the sweep.
    """
    finished = [s.value for s in Experiment.FINISHED]
    if with_runs:
        rows = list(sweep.points.select_related("experiment").defer("experiment__result"))
        statuses = [r.experiment.status for r in rows]
        done = sum(1.0 if r.experiment.is_finished else r.experiment.progress for r in rows)
    else:
        rows = []
        per_status = sweep.points.values("experiment__status").annotate(
            n=Count("id"), p=Sum("experiment__progress")
        )
        statuses = [row["experiment__status"] for row in per_status for _ in range(row["n"])]
        done = sum(
            row["n"] if row["experiment__status"] in finished else row["p"] or 0.0
            for row in per_status
        )
    counts = {s.value: 0 for s in Experiment.Status}
    for status in statuses:
        counts[status] += 1
    n = len(statuses)
    if counts["queued"] + counts["running"]:
        state = "running" if counts["running"] or counts["succeeded"] else "queued"
    elif counts["cancelled"] and not counts["succeeded"]:
        state = "cancelled"
    elif counts["failed"] or counts["cancelled"]:
        state = "partial" if counts["succeeded"] else "failed"
    else:
        state = "succeeded"
    out: dict[str, Any] = {"status": state, "progress": done / n if n else 1.0, "counts": counts}
    if with_runs:
        out["runs"] = [
            {
                "id": r.experiment.id,
                "point": r.point,
                "repetition": r.repetition,
                "seed": r.experiment.seed,
                "status": r.experiment.status,
                "progress": r.experiment.progress,
                "error": r.experiment.error,
                "reused": r.reused,
                "computed_elsewhere": r.experiment.provenance is not None,
            }
            for r in rows
        ]
        out["uploads"] = [u.as_json() for u in sweep.uploads.all()[:20]]
    return out


def sweep_aggregate(sweep: Sweep) -> dict[str, Any]:
    """Mean, standard deviation and n per point of every numeric summary metric, as a Result
    (summary, tables, charts with error bars) that the generic renderer and exports accept."""
    rows = list(sweep.points.select_related("experiment").defer("experiment__result"))
    points = sweep_points(sweep.vary)
    per_point: list[list[dict[str, Any]]] = [[] for _ in points]
    labels: dict[str, str] = {}
    failed = elsewhere = 0
    summaries_of, unreadable = _run_summaries(
        {r.experiment_id for r in rows if r.experiment.status == Experiment.Status.SUCCEEDED}
    )
    declared: dict[str, None] = {}  # the runs' Key results, in order: the sweep's main metrics
    for r in rows:
        exp = r.experiment
        if exp.pk in summaries_of:
            summary, run_labels, key = summaries_of[exp.pk]
            per_point[r.index].append(summary)
            labels.update(run_labels)
            declared.update(dict.fromkeys(key))
            elsewhere += exp.provenance is not None
        elif exp.status == Experiment.Status.FAILED:
            failed += 1
    metrics = sorted(
        {k for summaries in per_point for s in summaries for k, v in s.items() if _is_number(v)}
    )
    stats: list[dict[str, tuple[float | None, float | None, int]]] = []
    for summaries in per_point:
        entry = {}
        for m in metrics:
            values = [float(s[m]) for s in summaries if _is_number(s.get(m))]
            entry[m] = (*_mean_sd(values), len(values))
        stats.append(entry)

    names = [v["param"] for v in sweep.vary]
    columns = [*names, "runs"]
    for m in metrics:
        columns += [f"{m} mean", f"{m} std", f"{m} n"]
    table_rows = []
    for point, summaries, entry in zip(points, per_point, stats, strict=True):
        row: list[Any] = [point[n] for n in names] + [len(summaries)]
        for m in metrics:
            mean, sd, n = entry[m]
            row += [_round(mean), _round(sd), n]
        table_rows.append(row)

    main = _main_metrics([m for m in declared if m in metrics], metrics)
    mine = _user_policies_of(sweep)
    shown = [{n: _policy_words(n, p[n], mine) for n in names} for p in points]
    charts = _metric_charts(metrics, main, labels, names, shown, stats)
    extremes = [x for m in main if (x := _extremes(m, labels, names, shown, stats))]
    return {
        "kind": sweep.kind,
        "params": sweep.params,
        "seed": sweep.seed,
        **({"user_policies": list(mine.values())} if mine else {}),
        "summary": {
            "points": len(points),
            "runs": len(rows),
            "succeeded_runs": sum(len(s) for s in per_point),
            "failed_runs": failed,
            "repetitions": sweep.repetitions,
            "unreadable_runs": unreadable,
            "computed_elsewhere_runs": elsewhere,
        },
        "summary_labels": {
            "computed_elsewhere_runs": "finished runs computed elsewhere (uploaded from a "
            "Slurm job array or imported), not by the portal's workers",
            "unreadable_runs": "finished runs whose summary cannot be read",
            "points": "sweep points",
            "runs": "runs",
            "succeeded_runs": "finished runs",
            "failed_runs": "failed runs",
            "repetitions": "repetitions per point",
        },
        "extremes": extremes,
        "extremes_note": _extremes_note(sweep, per_point),
        "tables": [
            {
                **engine.table(
                    "points", "Mean, standard deviation and n per point", columns, table_rows
                ),
                "export_only": True,  # one row per point, 3 columns per metric: the CSV
            },
            _by_metric_table(metrics, labels, names, shown, stats),
        ],
        "charts": charts,
    }


def _user_policies_of(sweep: Sweep) -> dict[str, dict[str, str]]:
    """The owner's uploads the sweep names: reference -> its label, class and sha256."""
    try:
        rows = owned_policies(owner=sweep.owner, params=sweep_policy_params(sweep))
    except ValidationError:  # (deleted uploads are refused while runs name them)
        return {}
    return {
        ref: {"policy": ref, "label": f"{row.title or row.name} ({ref})", "name": row.name,
              "class": row.class_name, "sha256": row.sha256}
        for ref, row in rows.items()
    }  # fmt: skip


def _policy_words(name: str, value: Any, mine: dict[str, dict[str, str]]) -> Any:
    """A swept policy as people read it ("EASY", "SJF + EASY (user:3f2a9c0d41b7)"); any
    other value as it is."""
    if name not in ("policy", "policies") or not isinstance(value, str):
        return value
    words = []
    for part in (p.strip() for p in value.split(",")):
        words.append(mine[part]["label"] if part in mine else engine.scheduling_policy_label(part))
    return ", ".join(words)


def _round(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, 6)


def _is_number(v: Any) -> bool:
    """A summary value the aggregate counts: what the tolerant reader keeps as a number (at
    most 20 digits, finite), never a bool or a text."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _mean_sd(values: list[float]) -> tuple[float | None, float | None]:
    """Mean and standard deviation, None where they overflow a float (1e308 + 1e308)."""
    if not values:
        return None, None
    try:
        mean = fmean(values)
        sd = stdev(values) if len(values) > 1 else 0.0
    except (OverflowError, ValueError, ZeroDivisionError):
        return None, None
    return (mean if math.isfinite(mean) else None), (sd if math.isfinite(sd) else None)


def _run_summaries(ids: set[int]) -> tuple[dict[int, tuple[dict, dict]], int]:
    """The finished runs' summaries and labels as the tolerant reader shows them, read alone
    (``result -> 'summary'``: never the whole Result) and only when under MAX_SUMMARY_CHARS;
    and how many runs were left out for that."""
    from .results import MAX_SUMMARY_CHARS

    def size(key: str):
        return Length(Cast(KeyTransform(key, "result"), TextField()))

    sizes = Experiment.objects.filter(pk__in=ids).annotate(
        s=size("summary"), lab=size("summary_labels")
    )
    small = [pk for pk, a, b in sizes.values_list("pk", "s", "lab")
             if (a or 0) <= MAX_SUMMARY_CHARS and (b or 0) <= MAX_SUMMARY_CHARS]  # fmt: skip
    out = {}
    rows = Experiment.objects.filter(pk__in=small).values_list(
        "pk", "result__summary", "result__summary_labels", "result__key"
    )
    for pk, summary, run_labels, key in rows:
        view = engine.read_result({"summary": summary, "summary_labels": run_labels})
        keys = [k for k in key if isinstance(k, str)][:12] if isinstance(key, list) else []
        out[pk] = (view["summary"], view["summary_labels"], keys)
    return out, len(ids) - len(out)


#: Summary keys that describe the inputs (counts of jobs, processors, dropped lines) rather
#: than an outcome: the sweep's charts of them come last, folded.
_CONTEXT = re.compile(
    r"^(sites|submissions|workflow_tasks|jobs|simulated_jobs|dropped(_\w+)?|machine_procs|"
    r"processors|procs|requests|links|cpus|cases|days|first_day|trace_jobs|reservations|"
    r"change_points|submit_offset_hours|repetitions|time_bins|cdf_points|span_\w+|"
    r"first_submit|last_submit)$|(^|_)std(_|$)|_n$"
)
MAIN_MAX = 6


def _main_metrics(declared: list[str], metrics: list[str]) -> list[str]:
    """The metrics a sweep answers on: the runs' own Key results, else the first outcomes."""
    if declared:
        return declared[:MAIN_MAX]
    outcomes = [m for m in metrics if not _CONTEXT.search(m)]
    return outcomes[:4]


def _family(metric: str) -> tuple[str, str]:
    """(family, member): 'easy_accurate_mean_wait' -> ('mean_wait', 'easy_accurate') — the
    metrics of one quantity under different policies or sites share a chart; any other metric
    is a family of its own."""
    split = engine.member_metric(metric)
    return split if split else (metric, "")


def _member_label(metric: str, member: str, labels: dict[str, str]) -> str:
    """'EASY, accurate' for 'easy_accurate_mean_wait': the run's own label before its ': ',
    else the registry's words for the member."""
    own = labels.get(metric, "")
    if ": " in own:
        return own.split(": ", 1)[0]
    return engine.member_label(member)


_UNIT_SUFFIX = re.compile(r"\s*\((s|seconds|h|min|days|bytes)\)$")


def _metric_label(metric: str, labels: dict[str, str]) -> str:
    """The metric's label without the unit its values are now written in ('mean wait (s)')."""
    return _UNIT_SUFFIX.sub("", labels.get(metric) or engine.label_of(metric))


def _point_text(names: list[str], point: dict[str, Any]) -> str:
    return ", ".join(
        f"{engine.label_of(n)} = {engine.format_value(point[n], key=n)}" for n in names
    )


def _metric_charts(metrics, main, labels, names, points, stats) -> list[dict[str, Any]]:
    """One chart per quantity against the (first) swept parameter: a family's members (the
    policies, sites or strategies of a run) are its series, each repeated per value of a second
    swept parameter; the main metrics' charts first, the inputs' counts last and folded."""
    families: dict[str, list[tuple[str, str]]] = {}
    for m in metrics:
        fam, member = _family(m)
        if _CONTEXT.search(m) or _CONTEXT.search(fam):  # counts of the inputs stand alone
            fam, member = m, ""
        families.setdefault(fam, []).append((m, member))
    # a family of one metric keeps the metric's own name and chart id
    out = []
    main_families = {_family(m)[0] for m in main}
    for order, (fam, members) in enumerate(families.items()):
        context = all(_CONTEXT.search(m) for m, _ in members)
        if len(members) == 1:
            metric = members[0][0]
            spec = _metric_chart(
                f"sweep-{metric}", _metric_label(metric, labels), [(metric, "")],
                "" if context else engine.unit_of(metric), names, points, stats, labels,
            )  # fmt: skip
        else:
            spec = _metric_chart(
                f"sweep-family-{fam}", engine.label_of(fam), members, engine.unit_of(fam),
                names, points, stats, labels,
            )  # fmt: skip
        spec["priority"] = 10 if fam in main_families else 80 if context else 40
        spec["section"] = "Inputs and counts" if context else "Outcomes"
        spec["order"] = order
        out.append(spec)
    out.sort(key=lambda c: (c["priority"], c.pop("order")))
    return out


def _metric_chart(chart_id, label, members, unit, names, points, stats, labels):
    x_name = names[0]
    numeric = all(
        isinstance(p[x_name], (int, float)) and not isinstance(p[x_name], bool) for p in points
    )
    groups: dict[Any, list[int]] = {}
    for i, p in enumerate(points):
        groups.setdefault(p[names[1]] if len(names) > 1 else None, []).append(i)
    series = []
    for metric, member in members:
        for key, idxs in groups.items():
            pts, errs = [], []
            for i in idxs:
                mean, sd, _ = stats[i][metric]
                x = points[i][x_name]
                if mean is None and numeric:
                    continue  # a line just skips the point; bars keep their category
                pts.append([x if numeric else engine.format_value(x, key=x_name), _round(mean)])
                errs.append(_round(sd))
            part = _member_label(metric, member, labels) if member else ""
            second = (
                f"{engine.label_of(names[1])} = {engine.format_value(key, key=names[1])}"
                if key is not None
                else ""
            )
            title = ", ".join(t for t in (part, second) if t) or label
            one = engine.series(title, pts, errs)
            if part and second:  # one hue per member, a shade and a dash per second value
                one.update(part=part, group=second)
            series.append(one)
    x_label = engine.label_of(x_name)
    spec = engine.chart(
        chart_id,
        "line" if numeric else "bar",
        f"{label[:1].upper()}{label[1:]} by {x_label}",
        x=x_label,
        y=label,
        series=series,
    )
    if any(n > 1 for entry in stats for _, _, n in [entry[m] for m, _ in members]):
        spec["note"] = "Each point is the mean over its repetitions; the bars are ± 1 std. dev."
    spec["y"]["shared"] = True  # one quantity: never split over two axes
    if unit in ("s", "bytes"):
        spec["y"]["unit"] = unit
    return spec


def _extremes(metric, labels, names, points, stats) -> dict[str, Any] | None:
    """The best and worst point of a metric (by its mean over repetitions) with their
    parameters; 'highest' and 'lowest' when the metric has no better direction."""
    better_of = engine.better_of
    values = [(stats[i][metric][0], i) for i in range(len(points))]
    values = [(v, i) for v, i in values if v is not None]
    if not values:
        return None
    better = better_of(metric)
    lo, hi = min(values), max(values, key=lambda t: (t[0], -t[1]))
    best, worst = (lo, hi) if better == "lower" else (hi, lo)
    out = {
        "metric": metric,
        "label": _metric_label(metric, labels),
        "unit": engine.unit_of(metric),
        "better": better,
        "best": {"value": _round(best[0]), "point": _point_text(names, points[best[1]])},
    }
    if len(values) > 1 and best[0] != worst[0]:
        out["worst"] = {"value": _round(worst[0]), "point": _point_text(names, points[worst[1]])}
    else:
        out["best"]["point"] = "every point" if len(values) > 1 else out["best"]["point"]
    return out


def _extremes_note(sweep: Sweep, per_point: list[list[dict]]) -> str:
    done = sum(len(s) for s in per_point)
    reps = sweep.repetitions
    means = f"means of {reps} repetitions" if reps > 1 else "one run per point"
    return f"Over {len(per_point)} points ({done} finished runs; {means})."


def _by_metric_table(metrics, labels, names, points, stats) -> dict[str, Any]:
    """The page's table: one row per metric, one column per point, 'mean ± std. dev.' in
    words and units (the raw numbers are in the per-point CSV)."""
    columns = ["metric", *[_point_text(names, p) for p in points]]
    rows = []
    for m in metrics:
        cells = []
        for entry in stats:
            mean, sd, n = entry[m]
            text = engine.format_value(mean, key=m)
            if sd and n > 1:
                text += " ± " + engine.format_value(sd, key=m)
            cells.append(text)
        rows.append([_metric_label(m, labels), *cells])
    return engine.table("by-metric", "Mean ± standard deviation per point", columns, rows)
