"""The read-only admin for auditors.

Superusers see every enterprise; members whose org role is auditor see only
their own. Nobody adds, changes, deletes or runs an action here: the admin is
for looking, and that is enforced on the server (permissions return False and
the views run in a tenant context whose RLS scopes every row).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.forms import AuthenticationForm
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver

from accounts import access
from accounts import models as m
from core.tenancy import tenant_context


class AuditorLoginForm(AuthenticationForm):
    """Admin sign-in for superusers and auditors (who are not Django staff)."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "not_auditor": "This sign-in is for auditors: your membership has no auditor role.",
    }

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        if not access.admin_may_enter(user=user):
            raise forms.ValidationError(self.error_messages["not_auditor"], code="not_auditor")


class AuditorAdminSite(admin.AdminSite):
    login_form = AuditorLoginForm
    site_header = "Mnemos audit"
    site_title = "Mnemos audit"
    index_title = "Read-only view of your enterprise"

    def has_permission(self, request: HttpRequest) -> bool:
        return access.admin_may_enter(user=request.user)

    def admin_view(  # type: ignore[override]
        self, view: Callable[..., HttpResponse], cacheable: bool = False
    ) -> Callable[..., HttpResponse]:
        inner = super().admin_view(view, cacheable)

        def tenant_admin_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            reach = access.admin_reach(user=request.user)
            if reach is None:
                return inner(request, *args, **kwargs)  # login redirect, no data
            with tenant_context(
                enterprise_id=reach.enterprise_id,
                all_tenants=reach.all_tenants,
                session_key=request.session.session_key or "",
                door="admin",
            ):
                response = inner(request, *args, **kwargs)
                if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                    response.render()
                return response

        tenant_admin_view.tenant_door = True  # type: ignore[attr-defined]
        return tenant_admin_view

    def get_urls(self) -> list[URLPattern | URLResolver]:
        # No model here has a page on the site, so the "view on site" shortcut (/admin/r/<type>/<id>/)
        # links nowhere; it looked an object up by any content type and id (a malformed id was a 500).
        return [url for url in super().get_urls() if getattr(url, "name", None) != "view_on_site"]


site = AuditorAdminSite(name="admin")


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    actions = None
    view_on_site = False  # the site's shortcut is not routed (AuditorAdminSite.get_urls)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.admin_site.has_permission(request)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.admin_site.has_permission(request)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        return {}


def _register(model: type[models.Model], **options: Any) -> None:
    site.register(model, type(f"{model.__name__}Admin", (ReadOnlyAdmin,), options))


_register(
    m.Plan, list_display=["slug", "name", "max_memories_per_project", "tool_calls_per_minute_per_project"]
)
_register(
    m.Enterprise,
    list_display=["slug", "name", "plan", "subscription_state", "created_at"],
    search_fields=["slug", "name"],
)
_register(m.Team, list_display=["slug", "name", "enterprise"])
_register(m.Role, list_display=["slug", "name", "enterprise"])
_register(m.Project, list_display=["slug", "name", "team", "save_domain", "save_group", "enterprise"])
_register(m.Workspace, list_display=["name", "project", "created_at", "deleted_at"])
_register(
    m.Member, list_display=["user", "org_role", "is_active", "enterprise", "main_project", "main_paused"]
)
_register(
    m.AccessKey,
    list_display=[
        "prefix",
        "label",
        "member",
        "project",
        "workspace",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
    ],
    exclude=["digest"],
)
_register(
    m.AuditEvent,
    list_display=[
        "created_at",
        "action",
        "door",
        "actor_member",
        "access_key",
        "target_type",
        "target_id",
        "request_id",
    ],
    list_filter=["action", "door"],
    search_fields=["action", "target_id", "request_id"],
)
_register(
    m.Invitation,
    list_display=["email", "org_role", "invited_by", "created_at", "expires_at", "accepted_at", "revoked_at"],
    exclude=["digest"],
)
_register(m.PublicTarget, list_display=["slug", "name", "team", "enterprise_id", "published_at"])
_register(m.JobRun, list_display=["name", "key", "state", "attempts", "created_at", "finished_at"])
_register(
    m.Job,
    list_display=["task", "state", "created_at", "sent_at", "sends", "attempts", "failed_at"],
    list_filter=["state", "task"],
)
