"""Teams: who is in each, which projects are theirs; create, rename, delete (owners and admins)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.selectors.people import team_get, teams_with_members
from accounts.services.people import team_add, team_delete, team_rename
from console.decorators import attempt, console_view, forbidden, may_manage, not_found, sees_everything
from console.forms import TeamCreateForm, TeamRenameForm
from console.types import ConsoleRequest

OVERSIGHT_ONLY = "Only the enterprise's owners, admins and auditors see its teams."
ADMINS_ONLY = "Only the enterprise's owners and admins change teams."


def _page(request: ConsoleRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    context = {
        "teams": teams_with_members(),
        "may_manage": may_manage(request),
        "team_form": TeamCreateForm(),
        **extra,
    }
    return render(request, "console/teams.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def teams(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    if request.method == "GET":
        return _page(request)
    if not may_manage(request):
        return forbidden(request, ADMINS_ONLY)
    action = request.POST.get("action")
    if action == "create":
        form = TeamCreateForm(request.POST)
        if not form.is_valid():
            return _page(request, team_form=form, status=400)
        _, error = attempt(
            lambda: team_add(
                actor=request.member,
                enterprise=request.member.enterprise,
                slug=form.cleaned_data["slug"],
                name=form.cleaned_data["name"],
            )
        )
        if error is not None:
            form.add_error("slug", error.message)
            return _page(request, team_form=form, status=error.http_status)
        return redirect("console:teams")
    if action not in ("rename", "delete"):
        return _page(request, action_error="Unknown action.", status=400)
    team = team_get(team_id=request.POST.get("team", ""))
    if team is None:
        return not_found(request, "This team does not exist.")
    if action == "rename":
        rename = TeamRenameForm(request.POST)
        if not rename.is_valid():
            return _page(request, action_error="A team's name is 1 to 200 characters.", status=400)
        _, error = attempt(
            lambda: team_rename(actor=request.member, team=team, name=rename.cleaned_data["name"])
        )
    else:
        _, error = attempt(lambda: team_delete(actor=request.member, team=team))
    if error is not None:
        return _page(request, action_error=error.message, status=error.http_status)
    return redirect("console:teams")
