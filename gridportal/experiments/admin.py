from django.contrib import admin

from .models import Experiment, ResultUpload, Sweep, SweepRun


@admin.register(Experiment)
class ExperimentAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "kind", "owner", "status", "progress", "created")
    list_filter = ("status", "kind")
    search_fields = ("name", "kind")
    readonly_fields = ("result", "provenance", "created", "started_at", "finished_at")
    filter_horizontal = ("traces",)


class SweepRunInline(admin.TabularInline):
    model = SweepRun
    extra = 0
    raw_id_fields = ("experiment",)
    readonly_fields = ("point", "index", "repetition", "reused")


@admin.register(Sweep)
class SweepAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "kind", "owner", "repetitions", "created")
    list_filter = ("kind",)
    search_fields = ("name", "kind")
    inlines = [SweepRunInline]
    filter_horizontal = ("traces",)


@admin.register(SweepRun)
class SweepRunAdmin(admin.ModelAdmin):
    list_display = ("id", "sweep", "experiment", "index", "repetition", "reused")
    raw_id_fields = ("sweep", "experiment")


@admin.register(ResultUpload)
class ResultUploadAdmin(admin.ModelAdmin):
    list_display = ("id", "sweep", "status", "created")
    list_filter = ("status",)
    raw_id_fields = ("sweep",)
    readonly_fields = ("created", "runs", "sample", "checked")
