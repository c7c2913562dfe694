"""``manage.py reproduce``: ``make reproduce`` — every preset with claims, over the Celery
workers when some are running, else in this process.

    python manage.py reproduce --traces ../shared/data/traces --out var/reproduce/report.json \
        --docs docs/reproductions [--max-preset-minutes M] [--kind K] [--preset P]

With workers, the archive traces found in ``--traces`` are stored for the ``--owner`` (once:
an existing trace of that name is reused), every runnable preset becomes a run (like the
Reproductions page's "Run all"), and the command waits for them, printing progress; the report
is built by the engine (:mod:`scheduler.experiments.reproduce_report`) exactly as in process.
The total wall time is printed either way.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from gridportal.celery import app
from gridportal.experiments.models import Experiment
from gridportal.experiments.reproductions import _user_traces, reproduction_run
from gridportal.inputs.services import trace_create
from scheduler.engine import (
    build_reproduce_report,
    merge_reproduce_reports,
    reproduce_in_process,
    reproductions,
    set_pass_workers,
    write_reproduce_report,
)

DONE = {Experiment.Status.SUCCEEDED, Experiment.Status.FAILED, Experiment.Status.CANCELLED}


def workers_running(timeout: float = 1.5) -> int:
    """How many Celery workers answer a ping (0 when none, or no broker)."""
    try:
        return len(app.control.ping(timeout=timeout) or [])
    except Exception:  # noqa: BLE001 — no broker is "no workers"
        return 0


class Command(BaseCommand):
    help = "Run every preset with claims (over the workers if running); write the scoreboard."

    def add_arguments(self, parser):
        parser.add_argument("--kind")
        parser.add_argument("--preset")
        parser.add_argument("--traces", action="append", default=[], metavar="DIR")
        parser.add_argument("--max-preset-minutes", type=float, default=None)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--out", default="var/reproduce/report.json")
        parser.add_argument("--docs", default=None, metavar="PATH")
        parser.add_argument(
            "--owner",
            default="reproduce",
            help="user owning the runs and traces (created if missing)",
        )
        parser.add_argument(
            "--workers",
            action="store_true",
            help="use the workers without pinging them (a broker without broadcast)",
        )
        parser.add_argument(
            "--in-process",
            action="store_true",
            help="do not use the workers even if they are running",
        )
        parser.add_argument("--poll", type=float, default=5.0, help="seconds between checks")
        parser.add_argument(
            "--jobs", type=int, default=1, metavar="N",
            help="in process: run a preset's independent passes (pricing: one per α) in N "
            "processes; the results are the same as with 1",
        )  # fmt: skip
        parser.add_argument(
            "--merge", nargs="+", metavar="REPORT", default=None,
            help="run nothing: merge these reports (JSON with Results, e.g. one per long "
            "preset), rescore them together and write --out/--docs",
        )  # fmt: skip

    def handle(self, *args, **o):
        if o["merge"]:
            return self._merge(o)
        reps = reproductions(o["kind"], o["preset"])
        if not reps:
            raise CommandError("no preset with claims matches")
        n = 0 if o["in_process"] else (1 if o["workers"] else workers_running())
        log = lambda message: self.stderr.write(message)  # noqa: E731
        if n:
            executor = f"{n} Celery worker(s)"
            execute = self._over_workers(o["owner"], o["seed"], o["poll"], log)
        else:
            try:
                set_pass_workers(o["jobs"])
            except ValueError as err:
                raise CommandError(str(err)) from None
            executor = "in process"
            if o["jobs"] > 1:
                executor += f", passes in {o['jobs']} processes"
            execute = reproduce_in_process(o["seed"], log)
        log(f"running on {executor}")
        Path(o["out"]).parent.mkdir(parents=True, exist_ok=True)
        try:
            report = build_reproduce_report(
                reps, trace_dirs=tuple(o["traces"]), seed=o["seed"],
                max_preset_minutes=o["max_preset_minutes"], log=log, execute=execute,
                executor=executor,
            )  # fmt: skip
        finally:
            set_pass_workers(1)  # the process's default again (call_command from a test, a shell)
        report["command"] = "manage.py reproduce"
        written = write_reproduce_report(report, o["out"], docs=o["docs"])
        self.stdout.write(json.dumps(report["scoreboard"]["tally"]["counts"]))
        self.stdout.write(
            f"total time {report['elapsed_s']:.0f} s on {executor}; wrote "
            + ", ".join(map(str, written))
        )

    def _merge(self, o):
        reports = []
        for name in o["merge"]:
            try:
                reports.append(json.loads(Path(name).read_text()))
            except (OSError, ValueError) as exc:
                raise CommandError(f"{name}: not a reproduce report ({exc})") from exc
            if not isinstance(reports[-1], dict) or "rows" not in reports[-1]:
                raise CommandError(f"{name}: not a reproduce report (no 'rows')")
        report = merge_reproduce_reports(reports)
        Path(o["out"]).parent.mkdir(parents=True, exist_ok=True)
        written = write_reproduce_report(report, o["out"], docs=o["docs"])
        self.stdout.write(json.dumps(report["scoreboard"]["tally"]["counts"]))
        self.stdout.write(
            f"merged {len(reports)} reports ({report['elapsed_s']:.0f} s of runs); wrote "
            + ", ".join(map(str, written))
        )

    def _over_workers(self, owner_name, seed, poll, log):
        user, created = get_user_model().objects.get_or_create(username=owner_name)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])

        def execute(jobs):
            started = {}
            for rep, files in jobs:
                _, missing = _user_traces(user, rep.preset.traces)
                for name, path in zip(rep.preset.traces, files, strict=True):
                    if name in missing:
                        with open(path, "rb") as fh:
                            try:
                                trace_create(
                                    owner=user, name=name, upload=File(fh, name=Path(path).name)
                                )
                            except ValidationError as exc:
                                yield rep.key, "; ".join(exc.messages), 0.0
                                break
                        missing.remove(name)
                else:
                    exp = reproduction_run(
                        user=user, kind=rep.kind.name, preset=rep.preset.name, seed=seed
                    )
                    started[exp.pk] = (rep.key, time.monotonic())
                    log(f"queued {rep.key} as run #{exp.pk}")
            while started:
                time.sleep(poll)
                for exp in Experiment.objects.filter(pk__in=list(started)).defer("result"):
                    if exp.status not in DONE:
                        continue
                    key, t0 = started.pop(exp.pk)
                    seconds = round(time.monotonic() - t0, 1)
                    if exp.status == Experiment.Status.SUCCEEDED:
                        result = Experiment.objects.values_list("result", flat=True).get(pk=exp.pk)
                        log(f"done {key} (run #{exp.pk}, {seconds} s)")
                        yield key, result, seconds
                    else:
                        yield key, f"run #{exp.pk} {exp.status}: {exp.error or ''}", seconds
                if started:
                    log(f"{len(started)} run(s) still queued or running")

        return execute
