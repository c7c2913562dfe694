from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "gridportal.web"
    verbose_name = "Pages"
