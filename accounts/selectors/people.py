"""Reads for people administration: members with their teams, roles and grants; teams; invitations."""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from accounts.models import (
    Invitation,
    Member,
    Project,
    ProjectTeamPermission,
    ProjectUserPermission,
    Role,
    Team,
)
from accounts.selectors.console import PERMISSION_NAMES


def _int(value: Any) -> int | None:
    try:
        number = int(str(value))
    except ValueError:
        return None
    return number if 0 < number < 2**63 else None


def members_overview() -> QuerySet[Member]:
    """Every member, active or not, with user, teams and job roles (two prefetches), by username."""
    return (
        Member.objects.select_related("user")
        .prefetch_related(
            Prefetch("teams", queryset=Team.objects.order_by("name")),
            Prefetch("roles", queryset=Role.objects.order_by("name")),
        )
        .order_by("user__username")
    )


def member_get(*, member_id: Any) -> Member | None:
    """A member of the enterprise in context; a malformed or foreign id is simply not there."""
    pk = _int(member_id)
    return None if pk is None else members_overview().filter(pk=pk).first()


def team_get(*, team_id: Any) -> Team | None:
    pk = _int(team_id)
    return None if pk is None else Team.objects.select_related("group").filter(pk=pk).first()


def teams_by_ids(*, team_ids: list[Any]) -> tuple[list[Team], list[Any]]:
    """The teams with these ids, and the ids that name none (malformed or foreign)."""
    wanted = {pk for pk in (_int(t) for t in team_ids) if pk is not None}
    found = list(Team.objects.select_related("group").filter(pk__in=wanted))
    known = {t.pk for t in found}
    return found, [t for t in team_ids if _int(t) not in known]


def roles_by_ids(*, role_ids: list[Any]) -> tuple[list[Role], list[Any]]:
    wanted = {pk for pk in (_int(r) for r in role_ids) if pk is not None}
    found = list(Role.objects.filter(pk__in=wanted))
    known = {r.pk for r in found}
    return found, [r for r in role_ids if _int(r) not in known]


def roles_list() -> list[Role]:
    return list(Role.objects.order_by("name"))


def teams_with_members() -> list[Team]:
    """Teams with their members and the projects they are the team of."""
    return list(
        Team.objects.order_by("name").prefetch_related(
            Prefetch("members", queryset=Member.objects.select_related("user").order_by("user__username")),
            Prefetch("projects", queryset=Project.objects.order_by("slug")),
        )
    )


def invitations_pending() -> list[Invitation]:
    """Invitations neither used, withdrawn nor expired, newest first."""
    return list(
        Invitation.objects.select_related("invited_by__user")
        .filter(accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=timezone.now())
        .order_by("-created_at")
    )


def invitation_get(*, invitation_id: Any) -> Invitation | None:
    try:
        pk = uuid.UUID(str(invitation_id))
    except ValueError:
        return None
    return Invitation.objects.filter(pk=pk).first()


@dataclass(frozen=True)
class ProjectGrant:
    project: Project
    permissions: list[str]  # view / write / manage


def member_grants(*, members: list[Member]) -> dict[int, list[ProjectGrant]]:
    """Each member's direct project grants (not its teams'), in one query."""
    rows = (
        ProjectUserPermission.objects.filter(user_id__in=[m.user_id for m in members])
        .select_related("permission", "content_object")
        .order_by("content_object__slug")
    )
    by_user: dict[int, dict[Any, list[str]]] = defaultdict(dict)
    projects: dict[Any, Project] = {}
    for row in rows:
        projects[row.content_object_id] = row.content_object
        name = PERMISSION_NAMES.get(row.permission.codename, row.permission.codename)
        by_user[row.user_id].setdefault(row.content_object_id, []).append(name)
    order = ["view", "write", "manage"]
    return {
        m.pk: [
            ProjectGrant(project=projects[pid], permissions=sorted(perms, key=order.index))
            for pid, perms in by_user.get(m.user_id, {}).items()
        ]
        for m in members
    }


def project_grants(*, project: Project) -> list[dict[str, Any]]:
    """Who holds what on one project: members directly and teams, by name."""
    holders: dict[tuple[str, Any], dict[str, Any]] = {}
    for row in ProjectUserPermission.objects.filter(content_object=project).select_related(
        "permission", "user"
    ):
        entry = holders.setdefault(
            ("member", row.user_id),
            {"kind": "member", "id": None, "name": row.user.username, "permissions": []},
        )
        entry["user_id"] = row.user_id
        entry["permissions"].append(PERMISSION_NAMES.get(row.permission.codename, row.permission.codename))
    members = {m.user_id: m.pk for m in Member.objects.filter(user_id__in=[k[1] for k in holders])}
    for (_kind, user_id), entry in holders.items():
        entry["id"] = members.get(user_id)
        entry.pop("user_id", None)
    teams = {t.group_id: t for t in Team.objects.all()}
    for row in ProjectTeamPermission.objects.filter(content_object=project).select_related("permission"):
        team = teams.get(row.group_id)
        if team is None:
            continue
        entry = holders.setdefault(
            ("team", team.pk), {"kind": "team", "id": team.pk, "name": team.name, "permissions": []}
        )
        entry["permissions"].append(PERMISSION_NAMES.get(row.permission.codename, row.permission.codename))
    order = ["view", "write", "manage"]
    for entry in holders.values():
        entry["permissions"] = sorted(set(entry["permissions"]), key=order.index)
    return sorted(holders.values(), key=lambda e: (e["kind"], e["name"]))
