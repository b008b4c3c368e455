"""Reads the console's account pages need: enterprises to pick, projects and grants, keys, audit, usage."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from accounts import access
from accounts.models import (
    AccessKey,
    AuditEvent,
    Member,
    Project,
    PublicTarget,
    Team,
)
from accounts.services.enterprises import PROJECT_PERMISSIONS
from core.tenancy import identity_lookup

PERMISSION_NAMES = {perm.split(".", 1)[1]: name for name, perm in PROJECT_PERMISSIONS.items()}


def enterprise_choices(*, user_id: int) -> list[dict[str, Any]]:
    """Every enterprise the user is an active member of, with its name (before one is chosen)."""
    with identity_lookup(user_id=user_id):
        rows = (
            Member.objects.filter(user_id=user_id, is_active=True)
            .select_related("enterprise")
            .order_by("created_at")
        )
        return [
            {
                "enterprise_id": str(m.enterprise_id),
                "slug": m.enterprise.slug,
                "name": m.enterprise.name,
                "org_role": m.org_role,
                "role_label": m.get_org_role_display(),
            }
            for m in rows
        ]


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def project_get(*, projects: QuerySet[Project], project_id: str) -> Project | None:
    """One of the given projects; a malformed or foreign id is simply not there."""
    pk = _uuid(project_id)
    return None if pk is None else projects.select_related("team").filter(pk=pk).first()


def teams_overview() -> list[Team]:
    """Teams with their members (``team.members.all`` is prefetched)."""
    return list(Team.objects.order_by("name").prefetch_related("members__user"))


def teams_list() -> list[Team]:
    return list(Team.objects.order_by("name"))


def members_list() -> list[Member]:
    return list(Member.objects.select_related("user").filter(is_active=True).order_by("user__username"))


def public_targets_elsewhere(*, enterprise_id: Any) -> list[PublicTarget]:
    """Projects other enterprises published (the shared demo): readable by every account."""
    return list(PublicTarget.objects.exclude(enterprise_id=enterprise_id).order_by("slug"))


def projects_by_slug(*, member: Member) -> list[Project]:
    """The projects this member may read (the access policy), by slug."""
    return list(access.projects_readable(member=member).order_by("slug"))


def projects_writable(*, member: Member) -> list[Project]:
    """The readable projects this member may save to (the access policy), by slug."""
    readable = access.projects_readable(member=member).order_by("slug")
    return list(readable.filter(pk__in=access.projects_writable(member=member).values("pk")))


@dataclass(frozen=True)
class SwitchTarget:
    """What a switch link points at, as the member who holds it may see it."""

    key: AccessKey
    project: Project | None
    public: PublicTarget | None
    may_save: bool


def switch_target_get(*, member: Member, key_id: Any, project_id: Any) -> SwitchTarget | None:
    """The member's live key and the link's project (or public target, or neither when it went).

    None when the key is not the member's or is revoked."""
    key = AccessKey.objects.select_related("project", "workspace").filter(pk=key_id, member=member).first()
    if key is None or key.revoked_at is not None:
        return None
    project = Project.objects.select_related("team").filter(pk=project_id).first()
    public = None if project is not None else PublicTarget.objects.filter(project_id=project_id).first()
    may_save = project is not None and access.project_may_write(member=member, project=project)
    return SwitchTarget(key=key, project=project, public=public, may_save=may_save)


def access_keys_list(*, member: Member, everyone: bool) -> QuerySet[AccessKey]:
    """Connection keys (not a run's short-lived keys, ``TaskRun.run_key``): the member's own, or everyone's,
    with what ``save_targets_explained`` reads (the member's Main project) in the same query."""
    keys = AccessKey.objects.filter(run__isnull=True).select_related(
        "member__user", "member__main_project", "project", "workspace"
    )
    if not everyone:
        keys = keys.filter(member=member)
    return keys.order_by("revoked_at", "-created_at")


def access_key_get(*, member: Member, key_id: str, everyone: bool) -> AccessKey | None:
    pk = _uuid(key_id)
    return None if pk is None else access_keys_list(member=member, everyone=everyone).filter(pk=pk).first()


@dataclass(frozen=True)
class AuditFilter:
    action: str = ""
    door: str = ""
    actor: str = ""  # username
    target: str = ""  # target id
    since: datetime | None = None
    until: datetime | None = None
    reads: bool = False  # only tool calls that returned memories


def audit_events_filtered(*, where: AuditFilter) -> QuerySet[AuditEvent]:
    events = AuditEvent.objects.select_related("actor_member__user", "access_key").order_by(
        "-created_at", "-id"
    )
    if where.action:
        events = events.filter(action__startswith=where.action)
    if where.door:
        events = events.filter(door=where.door)
    if where.actor:
        events = events.filter(actor_member__user__username=where.actor)
    if where.target:
        events = events.filter(target_id=where.target)
    if where.since:
        events = events.filter(created_at__gte=where.since)
    if where.until:
        events = events.filter(created_at__lt=where.until)
    if where.reads:
        events = events.filter(details__has_key="read_ids")
    return events


def audit_actions() -> list[str]:
    return list(AuditEvent.objects.order_by("action").values_list("action", flat=True).distinct())
