from django.contrib import admin, messages

from .models import Group, Site, UsagePolicy, VirtualOrganization
from .services import epoch_share_warnings


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    list_display = ("name", "processors", "local_policy", "trace", "unit_cost", "fixed_cost")
    search_fields = ("name", "description")
    raw_id_fields = ("trace",)


class GroupInline(admin.TabularInline):
    model = Group
    extra = 1


@admin.register(VirtualOrganization)
class VirtualOrganizationAdmin(admin.ModelAdmin):
    list_display = ("name", "description")
    search_fields = ("name",)
    inlines = [GroupInline]


@admin.register(Group)
class GroupAdmin(admin.ModelAdmin):
    list_display = ("__str__", "vo")
    list_filter = ("vo",)


@admin.register(UsagePolicy)
class UsagePolicyAdmin(admin.ModelAdmin):
    list_display = ("__str__", "resource", "epoch_percent", "burst_percent")
    list_filter = ("resource", "provider_site", "provider_vo")
    fieldsets = [
        (None, {"fields": ["resource"]}),
        ("Provider (one of)", {"fields": ["provider_site", "provider_vo"]}),
        ("Consumer (one of)", {"fields": ["consumer_vo", "consumer_group"]}),
        (
            "Shares",
            {"fields": [("epoch_interval", "epoch_percent"), ("burst_interval", "burst_percent")]},
        ),
    ]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        for warning in epoch_share_warnings():
            messages.warning(request, warning)

    def changelist_view(self, request, extra_context=None):
        for warning in epoch_share_warnings():
            messages.warning(request, warning)
        return super().changelist_view(request, extra_context)
