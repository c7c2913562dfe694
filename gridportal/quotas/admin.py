from django.contrib import admin

from .models import UserQuota


@admin.register(UserQuota)
class UserQuotaAdmin(admin.ModelAdmin):
    list_display = ("user", "max_running", "max_queued", "storage_bytes", "note")
    search_fields = ("user__username", "note")
    raw_id_fields = ("user",)
