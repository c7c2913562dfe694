"""Load sites, VOs, groups and usage policies from a policy document (or a built-in scenario).

python manage.py load_policies seed004            # Dumitrescu, Wilde & Foster 2005: 2 sites,
                                                  # VO0 (G0, G1), VO1
python manage.py load_policies seed004-5sites
python manage.py load_policies my-grid.json       # a gridportal-policies document
"""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from gridportal.sites.services import configuration_import, configuration_warnings
from scheduler.engine import PolicyError, load_policy_file, seed004_document

SCENARIOS = {
    "seed004": lambda: seed004_document(sites=2),
    "seed004-5sites": lambda: seed004_document(sites=5),
}


class Command(BaseCommand):
    help = "Load sites, VOs, groups and usage policies from a policy document or a scenario."

    def add_arguments(self, parser):
        parser.add_argument("source", help=f"{' | '.join(SCENARIOS)} | FILE.json")

    def handle(self, *args, source, **options):
        try:
            doc = SCENARIOS[source]() if source in SCENARIOS else load_policy_file(source)
            counts = configuration_import(doc)
        except (PolicyError, ValidationError, OSError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            self.style.SUCCESS("loaded " + ", ".join(f"{n} {what}" for what, n in counts.items()))
        )
        for warning in configuration_warnings():
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))
