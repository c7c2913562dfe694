from django.apps import AppConfig


class ExperimentsConfig(AppConfig):
    name = "gridportal.experiments"
    verbose_name = "Experiments"
