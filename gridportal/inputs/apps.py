from django.apps import AppConfig


class InputsConfig(AppConfig):
    name = "gridportal.inputs"
    verbose_name = "Inputs (traces)"
