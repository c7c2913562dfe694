"""The models and the migrations agree: a model change without its migration fails here
(a deployment would otherwise migrate to a schema the code does not describe)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exc:  # --check exits 1 when a migration is missing
        pytest.fail(f"missing migrations (exit {exc.code}):\n{out.getvalue()}")
