from django.contrib import admin

from .models import PolicyFile, SacctImport, SlurmSite, Trace, Workflow


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


@admin.register(PolicyFile)
class PolicyFileAdmin(admin.ModelAdmin):
    """Users' scheduling policies: staff read them (and delete one); an upload is checked in
    the sandbox, so none is added or edited here."""

    list_display = ("name", "owner", "class_name", "sha256", "created")
    list_filter = ("owner",)
    search_fields = ("name", "class_name", "sha256")
    readonly_fields = (
        "owner", "name", "class_name", "source", "original_filename", "size_bytes", "sha256",
        "title", "description", "dry_run", "created",
    )  # fmt: skip

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(SacctImport)
class SacctImportAdmin(admin.ModelAdmin):
    """Large Slurm accounting uploads a worker is converting (or refused): staff read them and
    may delete one; they are made by uploads only."""

    list_display = ("original_filename", "owner", "status", "created")
    list_filter = ("status",)
    readonly_fields = (
        "owner", "name", "original_filename", "file", "options", "status", "error", "created",
    )  # fmt: skip

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(SlurmSite)
class SlurmSiteAdmin(admin.ModelAdmin):
    """Users' Slurm sites (what-if inputs): staff read them and may delete an unused one; they
    are made by uploads only (the engine reads every file)."""

    list_display = ("name", "owner", "job_count", "size_bytes", "created")
    list_filter = ("owner",)
    search_fields = ("name", "original_filename", "sha256")
    readonly_fields = (
        "owner", "name", "file", "original_filename", "slurm_conf", "slurm_conf_filename",
        "assoc", "assoc_filename", "qos", "qos_filename", "sshare", "sshare_filename",
        "size_bytes", "sha256", "job_count", "summary", "created",
    )  # fmt: skip

    def has_add_permission(self, request) -> bool:
        return False
