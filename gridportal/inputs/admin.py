from django.contrib import admin

from .models import Trace, Workflow


@admin.register(Trace)
class TraceAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "job_count", "machine_procs", "size_bytes", "created")
    list_filter = ("owner",)
    search_fields = ("name", "original_filename", "sha256")
    readonly_fields = ("sha256", "size_bytes", "job_count", "header", "summary", "created")


@admin.register(Workflow)
class WorkflowAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "format", "task_count", "edge_count", "created")
    list_filter = ("format", "owner")
    search_fields = ("name", "original_filename", "sha256")
    readonly_fields = (
        "sha256",
        "size_bytes",
        "task_count",
        "edge_count",
        "summary",
        "generator",
        "created",
    )
