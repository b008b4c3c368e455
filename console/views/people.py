"""Members: the list, invitations (the link shown once), one member's role, teams, job roles, grants,
deactivation; and the sign-up page an invitation link opens (docs/people.md)."""

from __future__ import annotations

from functools import wraps
from typing import Any

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts import access
from accounts.selectors.console import teams_list
from accounts.selectors.people import (
    invitation_get,
    invitations_pending,
    member_get,
    member_grants,
    members_overview,
    roles_by_ids,
    roles_list,
    teams_by_ids,
)
from accounts.services.people import (
    invitation_accept,
    invitation_token_read,
    invitation_usable,
    invitation_withdraw,
    member_deactivate,
    member_grant_project,
    member_invite,
    member_reactivate,
    member_revoke_project,
    member_set_job_roles,
    member_set_org_role,
    member_set_teams,
)
from console.decorators import (
    SESSION_ENTERPRISE,
    attempt,
    console_view,
    forbidden,
    may_manage,
    not_found,
    sees_everything,
)
from console.forms import InviteForm, MemberChangeForm, MemberGrantForm, SignUpForm
from console.types import ConsoleRequest
from core.errors import MnemosError
from core.tenancy import tenant_context

OVERSIGHT_ONLY = "Only the enterprise's owners, admins and auditors see its people."
ADMINS_ONLY = "Only the enterprise's owners and admins change people."


def _members_page(request: ConsoleRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    members = list(members_overview())
    grants = member_grants(members=members)
    for row in members:
        row.direct_grants = grants.get(row.pk, [])  # type: ignore[attr-defined]
    teams = teams_list()
    context = {
        "members": members,
        "invitations": invitations_pending(),
        "may_manage": may_manage(request),
        "invite_form": InviteForm(teams=teams) if may_manage(request) else None,
        **extra,
    }
    return render(request, "console/members.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def members(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    if request.method == "GET":
        return _members_page(request)
    if not may_manage(request):
        return forbidden(request, ADMINS_ONLY)
    form = InviteForm(request.POST, teams=teams_list())
    if not form.is_valid():
        return _members_page(request, invite_form=form, status=400)
    teams, _ = teams_by_ids(team_ids=form.cleaned_data["teams"])
    made, error = attempt(
        lambda: member_invite(
            actor=request.member,
            enterprise=request.member.enterprise,
            org_role=form.cleaned_data["org_role"],
            teams=teams,
            email=form.cleaned_data["email"],
            days=form.cleaned_data["days"],
        )
    )
    if error is not None:
        form.add_error(None, error.message)
        return _members_page(request, invite_form=form, status=error.http_status)
    # The link is in this response only: the invitation keeps a digest of its secret.
    return _members_page(request, made=made)


@require_POST
@console_view
def invitation_withdraw_view(request: ConsoleRequest, invitation_id: str) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, ADMINS_ONLY)
    invitation = invitation_get(invitation_id=invitation_id)
    if invitation is None:
        return not_found(request, "This invitation does not exist.")
    _, error = attempt(lambda: invitation_withdraw(actor=request.member, invitation=invitation))
    if error is not None:
        return forbidden(request, error.message)
    return redirect("console:members")


def _member_page(request: ConsoleRequest, found: Any, *, status: int = 200, **extra: Any) -> HttpResponse:
    teams, roles = teams_list(), roles_list()
    change_form = MemberChangeForm(
        teams=teams,
        roles=roles,
        initial={
            "org_role": found.org_role,
            "teams": [str(t.pk) for t in found.teams.all()],
            "job_roles": [str(r.pk) for r in found.roles.all()],
        },
    )
    context = {
        "found": found,
        "grants": member_grants(members=[found]).get(found.pk, []),
        "may_manage": may_manage(request),
        "change_form": change_form,
        "grant_form": MemberGrantForm(
            projects=list(access.projects_readable(member=request.member).order_by("slug"))
        ),
        **extra,
    }
    return render(request, "console/member.html", context, status=status)


@require_http_methods(["GET", "POST"])
@console_view
def member(request: ConsoleRequest, member_id: str) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    found = member_get(member_id=member_id)
    if found is None:
        return not_found(request, "This member does not exist.")
    if request.method == "GET":
        return _member_page(request, found)
    if not may_manage(request):
        return forbidden(request, ADMINS_ONLY)
    actor, action = request.member, request.POST.get("action")
    error: MnemosError | None = None
    if action == "change":
        form = MemberChangeForm(request.POST, teams=teams_list(), roles=roles_list())
        if not form.is_valid():
            return _member_page(request, found, change_form=form, status=400)
        teams, _ = teams_by_ids(team_ids=form.cleaned_data["teams"])
        roles, _ = roles_by_ids(role_ids=form.cleaned_data["job_roles"])

        def change() -> None:
            member_set_teams(actor=actor, member=found, teams=teams)
            member_set_job_roles(actor=actor, member=found, roles=roles)
            member_set_org_role(actor=actor, member=found, org_role=form.cleaned_data["org_role"])

        _, error = attempt(change)
    elif action == "grant":
        projects = list(access.projects_readable(member=actor).order_by("slug"))
        grant_form = MemberGrantForm(request.POST, projects=projects)
        if not grant_form.is_valid():
            return _member_page(request, found, grant_form=grant_form, status=400)
        project = next(p for p in projects if str(p.pk) == grant_form.cleaned_data["project"])
        service = (
            member_grant_project if grant_form.cleaned_data["change"] == "grant" else member_revoke_project
        )
        _, error = attempt(
            lambda: service(
                actor=actor, member=found, project=project, permissions=grant_form.cleaned_data["permissions"]
            )
        )
    elif action in ("deactivate", "reactivate"):
        toggle = member_deactivate if action == "deactivate" else member_reactivate
        _, error = attempt(lambda: toggle(actor=actor, member=found))
    else:
        return _member_page(request, found, action_error="Unknown action.", status=400)
    if error is not None:
        return _member_page(
            request, member_get(member_id=member_id), action_error=error.message, status=error.http_status
        )
    return redirect("console:member", member_id=found.pk)


# -- the sign-up page: its own door ------------------------------------------------------------------


def _join_door(view: Any) -> Any:
    """The invitation link's door: the signed token names the enterprise, whose tenant context the view
    runs in (one transaction); no session is needed (the link is the credential, once)."""

    @wraps(view)
    def wrapper(request: HttpRequest, token: str) -> HttpResponse:
        try:
            read = invitation_token_read(token)
        except MnemosError as exc:
            return _join_refused(request, exc)
        with tenant_context(enterprise_id=read.enterprise_id, door="signup") as ctx:
            response: HttpResponse = view(request, read, ctx)
            if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                response.render()
            return response

    wrapper.tenant_door = True  # type: ignore[attr-defined]
    return wrapper


def _join_refused(request: HttpRequest, exc: MnemosError) -> HttpResponse:
    title = "Invitation not valid" if exc.http_status == 404 else "Invitation no longer valid"
    return render(
        request,
        "console/message.html",
        {"title": title, "message": exc.message[:1].upper() + exc.message[1:] + "."},
        status=exc.http_status,
    )


@require_http_methods(["GET", "POST"])
@_join_door
def join(request: HttpRequest, token: Any, ctx: Any) -> HttpResponse:
    try:
        invitation = invitation_usable(token=token)
    except MnemosError as exc:
        return _join_refused(request, exc)
    form = SignUpForm(request.POST if request.method == "POST" else None)
    context = {"invitation": invitation, "form": form}
    if request.method == "GET" or not form.is_valid():
        return render(request, "console/join.html", context, status=200 if request.method == "GET" else 400)
    joined, error = attempt(
        lambda: invitation_accept(
            token=token, username=form.cleaned_data["username"], password=form.cleaned_data["password"]
        )
    )
    if error is not None:
        if error.http_status == 409 and error.code != "username_taken":
            return _join_refused(request, error)
        form.add_error(None, error.message)
        return render(request, "console/join.html", context, status=error.http_status)
    assert joined is not None
    login(request, joined.user, backend="django.contrib.auth.backends.ModelBackend")
    request.session[SESSION_ENTERPRISE] = str(joined.enterprise_id)
    return redirect("console:home")
