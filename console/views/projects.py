"""Projects, teams and their permissions (django-guardian), the public targets, setting Main."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts import access
from accounts.selectors.console import (
    members_list,
    project_get,
    public_targets_elsewhere,
    teams_list,
    teams_overview,
)
from accounts.services.console_projects import (
    project_open,
    project_revoke,
    team_member_add,
    team_member_remove,
    team_open,
)
from accounts.services.enterprises import project_grant
from accounts.services.targets import member_main_set, project_publish, project_unpublish
from console.decorators import attempt, console_view, forbidden, may_manage, not_found
from console.forms import GrantForm, ProjectCreateForm, TeamCreateForm, TeamMemberForm
from console.selectors import project_overview, projects_overview
from console.types import ConsoleRequest
from memory.selectors.visibility import projects_readable

ADMINS_ONLY = "Only the enterprise's owners and admins change projects and teams."


def _page(request: ConsoleRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    member = request.member
    teams = teams_list()
    members = members_list()
    context = {
        "rows": projects_overview(projects=projects_readable(member=member)),
        "publics": public_targets_elsewhere(enterprise_id=member.enterprise_id),
        "teams": teams_overview(),
        "may_manage": may_manage(request),
        "project_form": ProjectCreateForm(teams=teams),
        "team_form": TeamCreateForm(),
        "team_member_form": TeamMemberForm(teams=teams, members=members),
        **extra,
    }
    return render(request, "console/projects.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def projects(request: ConsoleRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request)
    if not may_manage(request):
        return forbidden(request, ADMINS_ONLY)
    member = request.member
    action = request.POST.get("action")
    if action == "create_project":
        form = ProjectCreateForm(request.POST, teams=teams_list())
        if not form.is_valid():
            return _page(request, project_form=form, status=400)
        team = next((t for t in teams_list() if str(t.pk) == form.cleaned_data["team"]), None)
        project, error = attempt(
            lambda: project_open(
                enterprise=member.enterprise,
                slug=form.cleaned_data["slug"],
                name=form.cleaned_data["name"],
                team=team,
            )
        )
        if error is not None:
            form.add_error("slug", error.message)
            return _page(request, project_form=form, status=error.http_status)
        return redirect("console:project", project_id=project.pk)  # type: ignore[union-attr]
    if action == "create_team":
        team_form = TeamCreateForm(request.POST)
        if not team_form.is_valid():
            return _page(request, team_form=team_form, status=400)
        _, error = attempt(
            lambda: team_open(
                enterprise=member.enterprise,
                slug=team_form.cleaned_data["slug"],
                name=team_form.cleaned_data["name"],
            )
        )
        if error is not None:
            team_form.add_error("slug", error.message)
            return _page(request, team_form=team_form, status=error.http_status)
        return redirect("console:projects")
    if action in ("team_member_add", "team_member_remove"):
        teams, members = teams_list(), members_list()
        member_form = TeamMemberForm(request.POST, teams=teams, members=members)
        if not member_form.is_valid():
            return _page(request, team_member_form=member_form, status=400)
        team = next(t for t in teams if str(t.pk) == member_form.cleaned_data["team"])
        who = next(m for m in members if str(m.pk) == member_form.cleaned_data["member"])
        change = team_member_add if action == "team_member_add" else team_member_remove
        change(team=team, member=who)
        return redirect("console:projects")
    return _page(request, action_error="Unknown action.", status=400)


def _project_page(request: ConsoleRequest, project: Any, *, status: int = 200, **extra: Any) -> HttpResponse:
    member = request.member
    teams, members = teams_list(), members_list()
    row = project_overview(member=member, project=project)
    context = {
        "row": row,
        "project": project,
        "may_manage": may_manage(request),
        "may_be_main": access.project_may_write(member=member, project=project),
        "is_main": member.main_project_id == project.pk,
        "grant_form": GrantForm(teams=teams, members=members),
        **extra,
    }
    return render(request, "console/project.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def project(request: ConsoleRequest, project_id: str) -> HttpResponse:
    member = request.member
    found = project_get(projects=projects_readable(member=member), project_id=project_id)
    if found is None:
        return not_found(request, "This project does not exist, or you may not see it.")
    if request.method == "GET":
        return _project_page(request, found)
    action = request.POST.get("action")
    if action == "main":
        if not access.project_may_write(member=member, project=found):
            return forbidden(request, "You may not save to this project, so it cannot be your Main.")
        member_main_set(member=member, project=found)
        return redirect("console:project", project_id=found.pk)
    if not may_manage(request):
        return forbidden(request, ADMINS_ONLY)
    if action in ("publish", "unpublish"):
        (project_publish if action == "publish" else project_unpublish)(project=found)
        return redirect("console:project", project_id=found.pk)
    if action == "grant":
        teams, members = teams_list(), members_list()
        form = GrantForm(request.POST, teams=teams, members=members)
        if not form.is_valid():
            return _project_page(request, found, grant_form=form, status=400)
        kind, _, holder_id = form.cleaned_data["holder"].partition(":")
        holder: dict[str, Any] = (
            {"team": next(t for t in teams if str(t.pk) == holder_id)}
            if kind == "team"
            else {"member": next(m for m in members if str(m.pk) == holder_id)}
        )
        service = project_grant if form.cleaned_data["change"] == "grant" else project_revoke
        _, error = attempt(
            lambda: service(project=found, permissions=form.cleaned_data["permissions"], **holder)
        )
        if error is not None:
            form.add_error(None, error.message)
            return _project_page(request, found, grant_form=form, status=error.http_status)
        if request.htmx:
            return _project_page(request, found, grant_form=GrantForm(teams=teams, members=members))
        return redirect("console:project", project_id=found.pk)
    return _project_page(request, found, action_error="Unknown action.", status=400)
