"""Project and team changes the console makes (owners and admins), each audited in its transaction."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from guardian.shortcuts import remove_perm

from accounts.models import Enterprise, Member, Project, Team, TeamMembership
from accounts.services.audit import audit_record
from accounts.services.enterprises import PROJECT_PERMISSIONS, project_create, team_create
from core.errors import Conflict, InvalidInput

PROJECT_SLUG_TAKEN = "a project with this slug already exists"
TEAM_SLUG_TAKEN = "a team with this slug already exists"


@transaction.atomic
def project_open(*, enterprise: Enterprise, slug: str, name: str, team: Team | None = None) -> Project:
    """A new project; its team (if any) may view and write it, as ``project_create`` grants."""
    if Project.objects.filter(slug=slug).exists():
        raise Conflict(PROJECT_SLUG_TAKEN, code="project_exists")
    return project_create(enterprise=enterprise, slug=slug, name=name, team=team)


@transaction.atomic
def team_open(*, enterprise: Enterprise, slug: str, name: str) -> Team:
    if Team.objects.filter(slug=slug).exists():
        raise Conflict(TEAM_SLUG_TAKEN, code="team_exists")
    return team_create(enterprise=enterprise, slug=slug, name=name)


@transaction.atomic
def project_revoke(
    *,
    project: Project,
    permissions: Iterable[str],
    member: Member | None = None,
    team: Team | None = None,
) -> None:
    """Take view / write / manage on one project back from a member or a team."""
    if (member is None) == (team is None):
        raise InvalidInput("revoke from exactly one of a member or a team", code="invalid_grant")
    holder = member.user if member is not None else team.group  # type: ignore[union-attr]
    names = list(permissions)
    for name in names:
        if name not in PROJECT_PERMISSIONS:
            raise InvalidInput(f"unknown project permission {name!r}", code="invalid_permission")
        remove_perm(PROJECT_PERMISSIONS[name], holder, project)
    audit_record(
        action="project.revoke",
        target=project,
        details={
            "permissions": names,
            "member": str(member.pk) if member else None,
            "team": team.slug if team else None,
        },
    )


@transaction.atomic
def team_member_add(*, team: Team, member: Member) -> bool:
    """Put a member in a team (its project grants follow); a repeat changes nothing."""
    _, created = TeamMembership.objects.get_or_create(
        enterprise_id=team.enterprise_id, member=member, team=team
    )
    if created:
        member.user.groups.add(team.group)
        audit_record(action="team.member_add", target=team, details={"member": str(member.pk)})
    return created


@transaction.atomic
def team_member_remove(*, team: Team, member: Member) -> bool:
    deleted, _ = TeamMembership.objects.filter(member=member, team=team).delete()
    if deleted:
        member.user.groups.remove(team.group)
        audit_record(action="team.member_remove", target=team, details={"member": str(member.pk)})
    return bool(deleted)
