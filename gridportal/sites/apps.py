from django.apps import AppConfig


class SitesConfig(AppConfig):
    name = "gridportal.sites"
    verbose_name = "Sites and VO usage policies"
