"""People over REST (scope ``admin``): members and invitations, teams, a project's member grants.

Adapters: parse, call one service or selector, render. Who may is ``accounts.access``'s (docs/people.md).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import access
from accounts.api.v1.base import TenantAPIView
from accounts.models import Member, OrgRole, Team
from accounts.selectors.console import project_get
from accounts.selectors.members import enterprise_current
from accounts.selectors.people import (
    member_get,
    member_grants,
    members_overview,
    project_grants,
    roles_by_ids,
    team_get,
    teams_by_ids,
    teams_with_members,
)
from accounts.services.people import (
    INVITATION_DAYS_DEFAULT,
    INVITATION_DAYS_MAX,
    member_deactivate,
    member_grant_project,
    member_invite,
    member_reactivate,
    member_revoke_project,
    member_set_job_roles,
    member_set_org_role,
    member_set_teams,
    team_add,
    team_delete,
    team_rename,
)
from core.errors import InvalidInput, NotFound
from core.schema import extra_error


def _id() -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=2**63 - 1)


TEAM_NOT_FOUND = "team not found: {ids}"
ROLE_NOT_FOUND = "job role not found: {ids}"


def _parsed(incoming: serializers.Serializer[Any], refusal: str) -> dict[str, Any]:
    if not incoming.is_valid():
        raise InvalidInput(refusal, code="invalid_input")
    return dict(incoming.validated_data)


def _teams(ids: list[int]) -> list[Team]:
    found, missing = teams_by_ids(team_ids=ids)
    if missing:
        raise NotFound(TEAM_NOT_FOUND.format(ids=", ".join(map(str, missing))), code="team_not_found")
    return found


def _member(member_id: Any) -> Member:
    member = member_get(member_id=member_id)
    if member is None:
        raise NotFound("member not found", code="not_found")
    return member


class TeamRefOut(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    name = serializers.CharField()


class GrantOut(serializers.Serializer[Any]):
    project = serializers.CharField(help_text="The project's slug.")
    project_id = serializers.CharField()
    permissions = serializers.ListField(child=serializers.ChoiceField(choices=["view", "write", "manage"]))


class MemberOut(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    org_role = serializers.ChoiceField(choices=OrgRole.values)
    active = serializers.BooleanField()
    teams = TeamRefOut(many=True)
    job_roles = TeamRefOut(many=True, help_text="The member's job roles (the role memory layer).")
    grants = GrantOut(many=True, help_text="Direct project grants (a team's come through the team).")
    created_at = serializers.DateTimeField()


def _member_out(member: Member, grants: dict[int, Any]) -> dict[str, Any]:
    return {
        "id": member.pk,
        "username": member.user.username,
        "email": member.user.email,
        "org_role": member.org_role,
        "active": member.is_active,
        "teams": [{"id": t.pk, "slug": t.slug, "name": t.name} for t in member.teams.all()],
        "job_roles": [{"id": r.pk, "slug": r.slug, "name": r.name} for r in member.roles.all()],
        "grants": [
            {"project": g.project.slug, "project_id": str(g.project.pk), "permissions": g.permissions}
            for g in grants.get(member.pk, [])
        ],
        "created_at": member.created_at,
    }


class InviteIn(serializers.Serializer[Any]):
    org_role = serializers.ChoiceField(choices=OrgRole.values, default=OrgRole.MEMBER)
    teams = serializers.ListField(child=_id(), default=list, max_length=100, help_text="Team ids to join.")
    email = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=254, help_text="Whom it is for (a note)."
    )
    days = serializers.IntegerField(
        required=False, default=INVITATION_DAYS_DEFAULT, min_value=1, max_value=INVITATION_DAYS_MAX
    )


class InviteOut(serializers.Serializer[Any]):
    invitation_id = serializers.CharField()
    url = serializers.CharField(help_text="The one-time sign-up link: shown this once, never again.")
    org_role = serializers.ChoiceField(choices=OrgRole.values)
    teams = serializers.ListField(child=serializers.IntegerField())
    email = serializers.CharField(allow_blank=True)
    expires_at = serializers.DateTimeField()


class MembersView(TenantAPIView):
    """The enterprise's members (owners, admins and auditors read them); invite one (owners and admins)."""

    required_scope = "admin"

    @extend_schema(responses=MemberOut(many=True), summary="Members, active or not, by username")
    def get(self, request: Request) -> Response:
        access.people_read_check(actor=self.access_key.member)
        members = list(members_overview())
        grants = member_grants(members=members)
        return Response([_member_out(m, grants) for m in members])

    @extend_schema(
        request=InviteIn,
        responses={201: InviteOut, 404: extra_error("A team named is not one of this enterprise's.")},
        summary="Invite a member: a one-time sign-up link (shown once)",
    )
    def post(self, request: Request) -> Response:
        data = _parsed(
            InviteIn(data=request.data),
            'send {"org_role": "member", "teams": [<team id>], "email": "...", "days": 1-30}',
        )
        made = member_invite(
            actor=self.access_key.member,
            enterprise=enterprise_current(),
            org_role=data["org_role"],
            teams=_teams(data["teams"]),
            email=data["email"],
            days=data["days"],
        )
        invitation = made.invitation
        return Response(
            {
                "invitation_id": str(invitation.pk),
                "url": made.url,
                "org_role": invitation.org_role,
                "teams": invitation.team_ids,
                "email": invitation.email,
                "expires_at": invitation.expires_at,
            },
            status=201,
        )


class MemberIn(serializers.Serializer[Any]):
    org_role = serializers.ChoiceField(choices=OrgRole.values, required=False)
    teams = serializers.ListField(
        child=_id(), required=False, max_length=100, help_text="Exactly these teams."
    )
    job_roles = serializers.ListField(
        child=_id(), required=False, max_length=100, help_text="Exactly these job roles."
    )
    active = serializers.BooleanField(
        required=False, help_text="false: deactivate (its keys stop at once); true: reactivate."
    )


class MemberView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(responses=MemberOut, summary="One member")
    def get(self, request: Request, member_id: int) -> Response:
        access.people_read_check(actor=self.access_key.member)
        member = _member(member_id)
        return Response(_member_out(member, member_grants(members=[member])))

    @extend_schema(
        request=MemberIn,
        responses=MemberOut,
        summary="Change a member's org role, teams, job roles, or deactivate / reactivate it (audited)",
    )
    def patch(self, request: Request, member_id: int) -> Response:
        data = _parsed(
            MemberIn(data=request.data),
            'send any of {"org_role": "...", "teams": [<id>], "job_roles": [<id>], "active": true|false}',
        )
        actor = self.access_key.member
        access.people_manage_check(actor=actor)
        member = _member(member_id)
        if "teams" in data:
            member_set_teams(actor=actor, member=member, teams=_teams(data["teams"]))
        if "job_roles" in data:
            roles, missing = roles_by_ids(role_ids=data["job_roles"])
            if missing:
                raise NotFound(ROLE_NOT_FOUND.format(ids=", ".join(map(str, missing))), code="role_not_found")
            member_set_job_roles(actor=actor, member=member, roles=roles)
        if "org_role" in data:
            member_set_org_role(actor=actor, member=member, org_role=data["org_role"])
        if data.get("active") is False:
            member_deactivate(actor=actor, member=member)
        elif data.get("active") is True:
            member_reactivate(actor=actor, member=member)
        member = _member(member_id)
        return Response(_member_out(member, member_grants(members=[member])))


class TeamOut(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    name = serializers.CharField()
    members = serializers.ListField(child=serializers.CharField(), help_text="Usernames.")
    projects = serializers.ListField(
        child=serializers.CharField(), help_text="Project slugs it is the team of."
    )


def _team_out(team: Team) -> dict[str, Any]:
    return {
        "id": team.pk,
        "slug": team.slug,
        "name": team.name,
        "members": [m.user.username for m in team.members.all()],
        "projects": [p.slug for p in team.projects.all()],
    }


class TeamIn(serializers.Serializer[Any]):
    slug = serializers.SlugField(max_length=50)
    name = serializers.CharField(max_length=200, trim_whitespace=False)


class TeamRenameIn(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=200, trim_whitespace=False, required=False)


class TeamsView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(responses=TeamOut(many=True), summary="Teams, with their members and projects")
    def get(self, request: Request) -> Response:
        access.people_read_check(actor=self.access_key.member)
        return Response([_team_out(t) for t in teams_with_members()])

    @extend_schema(
        request=TeamIn,
        responses={201: TeamOut, 409: extra_error("A team with this slug already exists.")},
        summary="Create a team (owners and admins; audited)",
    )
    def post(self, request: Request) -> Response:
        data = _parsed(TeamIn(data=request.data), 'send {"slug": "...", "name": "..."}')
        team = team_add(
            actor=self.access_key.member,
            enterprise=enterprise_current(),
            slug=data["slug"],
            name=data["name"],
        )
        return Response({**TeamRefOut(team).data, "members": [], "projects": []}, status=201)


class TeamView(TenantAPIView):
    required_scope = "admin"

    def _team(self, team_id: Any) -> Team:
        team = team_get(team_id=team_id)
        if team is None:
            raise NotFound("team not found", code="not_found")
        return team

    @extend_schema(request=TeamRenameIn, responses=TeamOut, summary="Rename a team (audited)")
    def patch(self, request: Request, team_id: int) -> Response:
        data = _parsed(TeamRenameIn(data=request.data), 'send {"name": "..."}')
        access.people_manage_check(actor=self.access_key.member)
        team = self._team(team_id)
        if "name" in data:
            team = team_rename(actor=self.access_key.member, team=team, name=data["name"])
        found = next(t for t in teams_with_members() if t.pk == team.pk)
        return Response(_team_out(found))

    @extend_schema(request=None, responses={204: None}, summary="Delete a team and the grants it gave")
    def delete(self, request: Request, team_id: int) -> Response:
        access.people_manage_check(actor=self.access_key.member)
        team_delete(actor=self.access_key.member, team=self._team(team_id))
        return Response(status=204)


class GrantHolderOut(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=["member", "team"])
    id = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    permissions = serializers.ListField(child=serializers.ChoiceField(choices=["view", "write", "manage"]))


class GrantIn(serializers.Serializer[Any]):
    member = _id()
    permissions = serializers.ListField(
        child=serializers.ChoiceField(choices=["view", "write", "manage"]), min_length=1, max_length=3
    )
    revoke = serializers.BooleanField(default=False, help_text="true: take these permissions back.")


class ProjectGrantsView(TenantAPIView):
    """Who holds view / write / manage on a project; grant or revoke a member's (owners and admins)."""

    required_scope = "admin"

    def _project(self, project_id: Any) -> Any:
        project = project_get(
            projects=access.projects_readable(member=self.access_key.member), project_id=str(project_id)
        )
        if project is None:
            raise NotFound("project not found", code="not_found")
        return project

    @extend_schema(responses=GrantHolderOut(many=True), summary="A project's grants, members' and teams'")
    def get(self, request: Request, project_id: str) -> Response:
        access.people_read_check(actor=self.access_key.member)
        return Response(project_grants(project=self._project(project_id)))

    @extend_schema(
        request=GrantIn,
        responses=GrantHolderOut(many=True),
        summary="Grant (or revoke) a member's view / write / manage on the project (audited)",
    )
    def post(self, request: Request, project_id: str) -> Response:
        data = _parsed(
            GrantIn(data=request.data),
            'send {"member": <member id>, "permissions": ["view"|"write"|"manage"], "revoke": false}',
        )
        actor = self.access_key.member
        access.people_manage_check(actor=actor)
        project = self._project(project_id)
        member = _member(data["member"])
        change = member_revoke_project if data["revoke"] else member_grant_project
        change(actor=actor, member=member, project=project, permissions=data["permissions"])
        return Response(project_grants(project=project))
