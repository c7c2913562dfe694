"""Load a co-allocation topology (Takefusa et al. 2010) from a built-in testbed or a JSON document.

python manage.py load_topology seed001                 # the seed's testbed (N, S, U; X1, X2)
python manage.py load_topology generated-x10           # a 10x larger generated topology
python manage.py load_topology my-net.json --name my-net
"""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from gridportal.sites.services import topology_load
from scheduler.engine import builtin_topologies


class Command(BaseCommand):
    help = "Load a co-allocation topology from a built-in testbed or a JSON document."

    def add_arguments(self, parser):
        names = " | ".join(builtin_topologies())
        parser.add_argument("source", help=f"{names} | FILE.json")
        parser.add_argument("--name", help="name to store it under (default: the source's)")

    def handle(self, *args, source, name=None, **options):
        builtins = builtin_topologies()
        try:
            if source in builtins:
                doc = builtins[source]
                default = source
            else:
                with open(source, encoding="utf-8") as fh:
                    doc = json.load(fh)
                default = str(doc.get("name") or "").strip() if isinstance(doc, dict) else ""
                if not default:
                    raise CommandError(f"{source}: give --name (the document has no name)")
            topology = topology_load(name=name or default, document=doc)
        except (OSError, json.JSONDecodeError) as exc:
            raise CommandError(f"{source}: {exc}") from None
        except ValidationError as exc:
            raise CommandError(
                "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
            ) from None
        sites = len(topology.document.get("sites", []))
        links = len(topology.document.get("links", []))
        self.stdout.write(
            self.style.SUCCESS(f"loaded topology {topology.name}: {sites} sites, {links} links")
        )
