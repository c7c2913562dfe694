from django.contrib import admin

from .models import Experiment


@admin.register(Experiment)
class ExperimentAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "kind", "owner", "status", "progress", "created")
    list_filter = ("status", "kind")
    search_fields = ("name", "kind")
    readonly_fields = ("result", "created", "started_at", "finished_at")
    filter_horizontal = ("traces",)
