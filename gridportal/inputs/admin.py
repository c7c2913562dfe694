from django.contrib import admin

from .models import Trace


@admin.register(Trace)
class TraceAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "job_count", "machine_procs", "size_bytes", "created")
    list_filter = ("owner",)
    search_fields = ("name", "original_filename", "sha256")
    readonly_fields = ("sha256", "size_bytes", "job_count", "header", "summary", "created")
