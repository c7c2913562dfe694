"""Create the demo user, a generated demo trace and workflow, and one example experiment.

The experiment is queued, not stored finished: the worker started next to the portal runs it,
which proves the whole path works on this machine.
"""

import io
import os

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.management.base import BaseCommand
from django.db import transaction

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import experiment_create
from gridportal.inputs.models import Trace, Workflow
from gridportal.inputs.services import trace_create, workflow_generate
from gridportal.sites.models import Site, Topology, VirtualOrganization
from gridportal.sites.services import configuration_import, topology_load
from scheduler.engine import builtin_topologies, generate_lublin99, seed004_document, write_swf

DEMO_JOBS, DEMO_PROCS, DEMO_SEED = 5000, 128, 1


def demo_credentials() -> list[dict[str, str]]:
    """The demo researcher and the demo staff account (``/admin/``); the login page shows
    them in development (DEBUG)."""
    return [
        {
            "role": "researcher",
            "username": os.environ.get("DEMO_USERNAME", "demo"),
            "password": os.environ.get("DEMO_PASSWORD", "demo-grid"),
        },
        {
            "role": "staff (admin pages)",
            "username": os.environ.get("DEMO_STAFF_USERNAME", "demo-staff"),
            "password": os.environ.get("DEMO_STAFF_PASSWORD", "demo-staff-grid"),
        },
    ]


class Command(BaseCommand):
    help = (
        "Create the demo user and a staff demo account, a generated demo trace and a queued "
        "example experiment."
    )

    def add_arguments(self, parser):
        demo, staff = demo_credentials()
        parser.add_argument("--username", default=demo["username"])
        parser.add_argument("--password", default=demo["password"])
        parser.add_argument("--staff-username", default=staff["username"])
        parser.add_argument("--staff-password", default=staff["password"])
        parser.add_argument(
            "--url",
            default=os.environ.get("PORTAL_URL")
            or f"http://{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}/",
            help="the portal's address, printed beside the accounts",
        )

    def handle(self, *args, username, password, staff_username, staff_password, url, **options):
        User = get_user_model()
        with transaction.atomic():
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(password)
                user.save()
            staff, staff_created = User.objects.get_or_create(
                username=staff_username, defaults={"is_staff": True, "is_superuser": True}
            )
            if staff_created:
                staff.set_password(staff_password)
                staff.save()
        name = f"Demo: Lublin-Feitelson model, {DEMO_JOBS} jobs on {DEMO_PROCS} processors"
        trace = Trace.objects.filter(owner=user, name=name).first()
        if trace is None:
            model = generate_lublin99(jobs=DEMO_JOBS, procs=DEMO_PROCS, seed=DEMO_SEED)
            text = io.StringIO()
            write_swf(model, text)
            upload = ContentFile(
                text.getvalue().encode(),
                name=f"lublin99-{DEMO_JOBS}jobs-{DEMO_PROCS}p-seed{DEMO_SEED}.swf",
            )
            trace = trace_create(owner=user, name=name, upload=upload)
            self.stdout.write(f"demo trace: {trace.name} ({trace.job_count} jobs)")
        wf_name = "Demo: random layered workflow (thesis §4.7: 100 tasks, 10 levels)"
        if not Workflow.objects.filter(owner=user, name=wf_name).exists():
            wf = workflow_generate(
                owner=user,
                model="layered",
                name=wf_name,
                params={"tasks": 100, "levels": 10, "seed": DEMO_SEED},
            )
            self.stdout.write(f"demo workflow: {wf.name} ({wf.task_count} tasks)")
        if not (Site.objects.exists() or VirtualOrganization.objects.exists()):
            counts = configuration_import(seed004_document(sites=2))
            self.stdout.write(
                f"grid configuration of Dumitrescu, Wilde & Foster 2005: {counts['sites']} sites, "
                f"{counts['vos']} VOs, {counts['policies']} usage policies"
            )
        # the demo sites replay the demo trace (quotes and predictions work), each as its own
        # copy (Site.save): the demo user's trace page never lists other users' runs
        for site in Site.objects.filter(trace__isnull=True):
            site.trace = trace
            site.save(update_fields=["trace"])
        if not Topology.objects.exists():
            topology = topology_load(name="seed001", document=builtin_topologies()["seed001"])
            self.stdout.write(
                f"co-allocation topology: {topology.name} (the testbed of Takefusa et al. 2010)"
            )
        if not Experiment.objects.filter(owner=user, traces=trace, kind="trace-stats").exists():
            exp = experiment_create(
                owner=user,
                kind="trace-stats",
                params={},
                traces=[trace],
                name="Demo: statistics of the generated trace",
            )
            self.stdout.write(f"example experiment #{exp.pk} queued for the worker")
        note = "created" if created else "exists (password unchanged)"
        staff_note = "created" if staff_created else "exists (password unchanged)"
        self.stdout.write(
            self.style.SUCCESS(
                f"GridPortal: {url}\n"
                f"  demo user {note}: username '{username}' password '{password}'\n"
                f"  staff demo user {staff_note} ({url}admin/): username '{staff_username}' "
                f"password '{staff_password}'\n"
                f"  API token: POST {url}api/auth/token/ with username and password"
            )
        )
