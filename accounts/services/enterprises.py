"""Enterprises and what they are made of: teams, roles, projects, members, grants."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.contrib.auth.models import Group, User
from django.db import transaction
from guardian.shortcuts import assign_perm

from accounts.models import (
    Enterprise,
    Member,
    OrgRole,
    Plan,
    Project,
    Role,
    RoleAssignment,
    SubscriptionState,
    Team,
    TeamMembership,
)
from accounts.services.audit import audit_record
from core.errors import InvalidInput
from core.tenancy import current_tenant, tenant_context

PROJECT_PERMISSIONS = {
    "view": "accounts.view_project",
    "write": "accounts.write_project",
    "manage": "accounts.manage_project",
}


def enterprise_create(*, slug: str, name: str, plan: Plan | None = None) -> Enterprise:
    """A new tenant; runs in its own context (nested in the caller's door)."""
    enterprise_id = uuid.uuid4()
    door = current_tenant().door
    with tenant_context(enterprise_id=enterprise_id, door=door):
        enterprise = Enterprise.objects.create(
            id=enterprise_id,
            slug=slug,
            name=name,
            plan=plan or Plan.objects.get(slug="team"),
        )
        audit_record(action="enterprise.create", target=enterprise, details={"slug": slug})
    return enterprise


@transaction.atomic
def enterprise_set_subscription(*, enterprise: Enterprise, state: str) -> Enterprise:
    if state not in SubscriptionState.values:
        raise InvalidInput(f"unknown subscription state {state!r}", code="invalid_state")
    previous = enterprise.subscription_state
    enterprise.subscription_state = state
    enterprise.save(update_fields=["subscription_state"])
    audit_record(action="enterprise.subscription", target=enterprise, details={"from": previous, "to": state})
    return enterprise


@transaction.atomic
def team_create(*, enterprise: Enterprise, slug: str, name: str) -> Team:
    group = Group.objects.create(name=f"team:{enterprise.pk}:{slug}")
    team = Team.objects.create(enterprise=enterprise, slug=slug, name=name, group=group)
    audit_record(action="team.create", target=team, details={"slug": slug})
    return team


@transaction.atomic
def role_create(*, enterprise: Enterprise, slug: str, name: str) -> Role:
    role = Role.objects.create(enterprise=enterprise, slug=slug, name=name)
    audit_record(action="role.create", target=role, details={"slug": slug})
    return role


@transaction.atomic
def project_create(
    *,
    enterprise: Enterprise,
    slug: str,
    name: str,
    team: Team | None = None,
    save_domain: str = "",
    save_group: str = "",
) -> Project:
    project = Project.objects.create(
        enterprise=enterprise,
        slug=slug,
        name=name,
        team=team,
        save_domain=save_domain or enterprise.slug,
        save_group=save_group or (team.slug if team else ""),
    )
    if team is not None:
        project_grant(project=project, team=team, permissions=["view", "write"])
    audit_record(action="project.create", target=project, details={"slug": slug})
    return project


@transaction.atomic
def member_add(
    *,
    enterprise: Enterprise,
    user: User,
    org_role: str = OrgRole.MEMBER,
    teams: Iterable[Team] = (),
    roles: Iterable[Role] = (),
    main_project: Project | None = None,
) -> Member:
    if org_role not in OrgRole.values:
        raise InvalidInput(f"unknown org role {org_role!r}", code="invalid_role")
    member = Member.objects.create(
        enterprise=enterprise, user=user, org_role=org_role, main_project=main_project
    )
    for team in teams:
        TeamMembership.objects.create(enterprise=enterprise, member=member, team=team)
        user.groups.add(team.group)
    for role in roles:
        RoleAssignment.objects.create(enterprise=enterprise, member=member, role=role)
    audit_record(action="member.add", target=member, details={"user": user.username, "org_role": org_role})
    return member


@transaction.atomic
def project_grant(
    *,
    project: Project,
    permissions: Iterable[str],
    member: Member | None = None,
    team: Team | None = None,
) -> None:
    """Grant view / write / manage on one project to a member or a team (django-guardian)."""
    if (member is None) == (team is None):
        raise InvalidInput("grant to exactly one of a member or a team", code="invalid_grant")
    holder = member.user if member is not None else team.group  # type: ignore[union-attr]
    names = list(permissions)
    for name in names:
        if name not in PROJECT_PERMISSIONS:
            raise InvalidInput(f"unknown project permission {name!r}", code="invalid_permission")
        assign_perm(PROJECT_PERMISSIONS[name], holder, project)
    audit_record(
        action="project.grant",
        target=project,
        details={
            "permissions": names,
            "member": str(member.pk) if member else None,
            "team": team.slug if team else None,
        },
    )
