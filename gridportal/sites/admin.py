from django.contrib import admin, messages

from .api.serializers import NO_USER_POLICY
from .models import Group, Site, Topology, UsagePolicy, VirtualOrganization
from .services import configuration_warnings


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    list_display = ("name", "processors", "local_policy", "trace", "unit_cost", "fixed_cost")
    search_fields = ("name", "description")
    raw_id_fields = ("trace",)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "local_policy" and field is not None:
            field.help_text = f"Built-in policies only: {NO_USER_POLICY}."
        return field


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

    # The configuration's warnings (over-provisioning …) on every page that shows policies;
    # after a save the admin redirects to one of them, so each warning appears once.
    def _warn(self, request) -> None:
        if request.method == "GET":
            for warning in configuration_warnings():
                messages.warning(request, warning)

    def changelist_view(self, request, extra_context=None):
        self._warn(request)
        return super().changelist_view(request, extra_context)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        self._warn(request)
        return super().change_view(request, object_id, form_url, extra_context)


@admin.register(Topology)
class TopologyAdmin(admin.ModelAdmin):
    list_display = ("name", "description")
    search_fields = ("name", "description")
