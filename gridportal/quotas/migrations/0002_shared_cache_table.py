"""The table of the database cache (settings: the default when no Redis is configured), which
holds the throttle counters every web process shares.  Made whatever the cache in use, so a
database migrated while Redis was configured still works without it."""

from django.conf import settings
from django.db import migrations


def create_cache_table(apps, schema_editor):
    from django.core.management.commands.createcachetable import Command

    command = Command()
    command.verbosity = 0
    command.create_table(schema_editor.connection.alias, settings.GRIDPORTAL_CACHE_TABLE, False)


def drop_cache_table(apps, schema_editor):
    schema_editor.execute(
        f"DROP TABLE IF EXISTS {schema_editor.quote_name(settings.GRIDPORTAL_CACHE_TABLE)}"
    )


class Migration(migrations.Migration):
    dependencies = [("quotas", "0001_initial")]

    operations = [migrations.RunPython(create_cache_table, drop_cache_table)]
