"""The click-to-switch page a switch_link opens, and the tool catalogue."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from accounts import access
from accounts.selectors.console import switch_target_get
from accounts.selectors.projects import project_active_target
from accounts.services.targets import connection_retarget, member_main_set
from accounts.switch_links import SwitchLinkExpired, SwitchLinkInvalid, switch_token_read
from console.decorators import console_view, not_found
from console.types import ConsoleRequest
from core.registry import TOOLSETS, registry


@console_view
def tools(request: ConsoleRequest) -> HttpResponse:
    """The tool catalogue, generated from the registry like MCP tools/list and the docs."""
    groups = [
        {"toolset": name, "about": about, "tools": [t for t in registry.all() if t.toolset == name]}
        for name, about in TOOLSETS.items()
    ]
    return render(request, "console/tools.html", {"groups": groups})


def _token_enterprise(request: HttpRequest, token: str) -> str | None:
    try:
        return str(switch_token_read(token).enterprise_id)
    except SwitchLinkInvalid:
        # An expired or broken link still needs a signed-in page to say so.
        return None


@require_http_methods(["GET", "POST"])
# The view answers an auditor itself: "not found" for a link that is not theirs, else 403.
@console_view(enterprise_from=_token_enterprise, auditor_may_post=True)
def switch(request: ConsoleRequest, token: str) -> HttpResponse:
    try:
        link = switch_token_read(token)
    except SwitchLinkExpired:
        return render(
            request,
            "console/message.html",
            {
                "title": "This switch link has expired",
                "message": "Ask your agent to list your memory projects again for a fresh link.",
            },
            status=410,
        )
    except SwitchLinkInvalid:
        return not_found(request, "This switch link is not valid.")
    member = request.member
    if link.member_id != member.pk:
        return not_found(request, "This switch link is not valid.")
    target = switch_target_get(member=member, key_id=link.key_id, project_id=link.project_id)
    if target is None:
        return not_found(request, "This switch link is not valid.")
    if target.project is None and target.public is None:
        return not_found(request, "This project no longer exists.")
    key, project = target.key, target.project
    folder_bound = key.workspace_id is not None
    current = project_active_target(key=key)
    context = {
        "key": key,
        "project": project,
        "public": target.public,
        "folder_bound": folder_bound,
        "current": current,
        "may_save": target.may_save and access.member_may_write(member),
        "main": member.main_project,
        "main_paused": member.main_paused,
        "done": False,
    }
    if request.method == "POST":
        if not context["may_save"]:
            return render(request, "console/switch.html", context, status=403)
        if folder_bound:
            connection_retarget(key=key, project=project)  # type: ignore[arg-type]
        else:
            member_main_set(member=member, project=project)  # type: ignore[arg-type]
        context.update(done=True, current=project)
    return render(request, "console/switch.html", context)
