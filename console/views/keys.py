"""Access keys: create (the secret shown once), revoke, last use."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts import access
from accounts.selectors.console import access_key_get, access_keys_list, project_get, projects_writable
from accounts.selectors.projects import save_target_explained, save_targets_explained
from accounts.services.keys import access_key_create, access_key_revoke
from console.decorators import attempt, console_view, forbidden, may_manage, not_found, sees_everything
from console.forms import KeyCreateForm
from console.types import ConsoleRequest
from memory.selectors.visibility import projects_readable


def _writable_projects(request: ConsoleRequest) -> list[Any]:
    member = request.member
    return projects_writable(member=member)


def _page(request: ConsoleRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    member = request.member
    everyone = sees_everything(request)
    context = {
        "keys": save_targets_explained(keys=access_keys_list(member=member, everyone=everyone)),
        "everyone": everyone,
        "may_create": access.member_may_write(member),
        "form": KeyCreateForm(projects=_writable_projects(request))
        if access.member_may_write(member)
        else None,
        **extra,
    }
    return render(request, "console/keys.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def keys(request: ConsoleRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request)
    member = request.member
    writable = _writable_projects(request)
    form = KeyCreateForm(request.POST, projects=writable)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    project = project_get(projects=projects_readable(member=member), project_id=form.cleaned_data["project"])
    if project is None:
        return not_found(request, "This project does not exist, or you may not see it.")
    created, error = attempt(
        lambda: access_key_create(
            member=member,
            project=project,
            scopes=form.cleaned_data["scopes"],
            workspace_name=form.cleaned_data["workspace"] or None,
            label=form.cleaned_data["label"],
            expires_at=form.expires_at(),
            toolsets=form.cleaned_data["toolsets"],
        )
    )
    if error is not None:
        form.add_error(None, error.message)
        return _page(request, form=form, status=error.http_status)
    key, secret = created  # type: ignore[misc]
    # The secret is in this response only: it is stored as a digest and cannot be shown again.
    return _page(request, new_key=key, secret=secret, save_target=save_target_explained(key=key))


@require_POST
@console_view
def key_revoke(request: ConsoleRequest, key_id: str) -> HttpResponse:
    member = request.member
    key = access_key_get(member=member, key_id=key_id, everyone=sees_everything(request))
    if key is None:
        return not_found(request, "This key does not exist.")
    if key.member_id != member.pk and not may_manage(request):
        return forbidden(request, "Only its owner or an admin can revoke this key.")
    access_key_revoke(key=key)
    if request.htmx:
        # A revoked key's row names no save target; "everyone" keeps an admin's Member column.
        row = {"key": key, "everyone": sees_everything(request), "may_create": True}
        return render(request, "console/keys.html#key_row", row)
    return redirect("console:keys")
