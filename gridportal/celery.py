"""The one Celery app; configuration comes from Django settings (namespace CELERY)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridportal.settings")

app = Celery("gridportal")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
