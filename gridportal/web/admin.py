"""The admin's ways in and its user forms: the capped login form (an over-long password is
refused before it is hashed) and, for accounts staff create or rename, the same name rules as
sign-up (one alphabet, no look-alike of another account's name; reserved names are allowed to
staff). The login view's throttle is in ``gridportal/urls.py``; axes' lockout applies to it as
to every login (its "Access attempts" pages are where staff unlock)."""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from gridportal.web.account import PortalAdminAuthenticationForm
from gridportal.web.usernames import check_new_username

admin.site.login_form = PortalAdminAuthenticationForm


class PortalAdminUserCreationForm(AdminUserCreationForm):
    def clean_username(self):
        username = super().clean_username()
        if username:
            check_new_username(username, reserved=False)
        return username


class PortalUserChangeForm(UserChangeForm):
    def clean_username(self):
        username = self.cleaned_data.get("username")
        if username and username != self.instance.username:
            check_new_username(username, exclude_pk=self.instance.pk, reserved=False)
        return username


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class PortalUserAdmin(UserAdmin):
    add_form = PortalAdminUserCreationForm
    form = PortalUserChangeForm
