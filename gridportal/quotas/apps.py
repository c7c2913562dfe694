from django.apps import AppConfig


class QuotasConfig(AppConfig):
    name = "gridportal.quotas"
    verbose_name = "Quotas"
