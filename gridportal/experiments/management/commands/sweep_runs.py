"""``manage.py sweep_runs``: repair runs no worker will finish (see experiment_sweep_stale).

Run it periodically next to the workers (``scripts/run-portal.sh`` runs it every minute;
``--every N`` loops here). Each pass enqueues the runs held while the broker was down, and
re-queues ``running`` runs whose worker died (or marks them failed after repeated losses).
It also reports (logs, never deletes) orphan files under MEDIA_ROOT, at most every
``--orphans-every`` seconds (``manage.py orphans --delete`` removes them).
"""

import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections

from gridportal.experiments.services import MAX_WORKER_LOSSES, experiment_sweep_stale
from gridportal.inputs.orphans import report_orphans


class Command(BaseCommand):
    help = "Enqueue runs held by a broker outage; re-queue or fail runs whose worker died."

    def add_arguments(self, parser):
        parser.add_argument(
            "--grace",
            type=float,
            default=settings.GRIDPORTAL_SWEEP_GRACE,
            help="seconds a run must have been running before it can be declared lost, or "
            "queued without a task message before it is enqueued again",
        )
        parser.add_argument(
            "--inspect-timeout",
            type=float,
            default=3.0,
            help="seconds to wait for the workers to say what they are running",
        )
        parser.add_argument(
            "--max-losses",
            type=int,
            default=MAX_WORKER_LOSSES,
            help="lost workers after which a run is marked failed instead of re-queued",
        )
        parser.add_argument(
            "--every", type=float, default=0.0, help="repeat every N seconds (0: run once)"
        )
        parser.add_argument(
            "--orphans-every",
            type=float,
            default=3600.0,
            help="report orphan files under MEDIA_ROOT at most every N seconds (0: never)",
        )
        parser.add_argument(
            "--heartbeat",
            type=Path,
            default=None,
            help="a file touched after each successful pass (a container's health check)",
        )

    def handle(
        self, *args, grace, inspect_timeout, max_losses, every, orphans_every, heartbeat, **options
    ):
        last_orphans = float("-inf")
        while True:
            try:
                counts = experiment_sweep_stale(
                    grace_s=grace, inspect_timeout=inspect_timeout, max_worker_losses=max_losses
                )
            except DatabaseError as exc:
                if every <= 0:
                    raise
                self.stderr.write(f"sweep_runs: database unavailable ({exc}); next pass later")
            else:
                if orphans_every > 0 and time.monotonic() - last_orphans >= orphans_every:
                    last_orphans = time.monotonic()
                    try:
                        counts["orphan_files"], counts["orphan_bytes"] = report_orphans()
                    except OSError as exc:  # a report only: the sweep itself went through
                        self.stderr.write(f"sweep_runs: cannot list MEDIA_ROOT ({exc})")
                self.stdout.write(" ".join(f"{k}={v}" for k, v in counts.items()))
                if heartbeat is not None:
                    heartbeat.touch()
            if every <= 0:
                return
            time.sleep(every)
            close_old_connections()  # a restarted database gets a fresh connection
