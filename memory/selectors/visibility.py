"""Which memories a member may see: the one rule every read and every reference uses."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from guardian.shortcuts import get_objects_for_user

from accounts.models import Member, Project
from memory.models import Layer, Memory, Visibility


def projects_readable(*, member: Member) -> QuerySet[Project]:
    """Projects the member may view: all for org owners/admins/auditors, else guardian grants."""
    if member.is_admin or member.org_role == "auditor":
        return Project.objects.all()
    granted = get_objects_for_user(member.user, "accounts.view_project", klass=Project.objects.all())
    return Project.objects.filter(pk__in=granted.values("pk"))


def memories_visible(*, member: Member, include_forgotten: bool = False) -> QuerySet[Memory]:
    """Memories this member may read (tenant-scoped by the manager and RLS)."""
    # The member's teams and roles as subqueries of the one statement (not read first: two round trips
    # fewer on every read).
    team_ids = member.teams.values("pk")
    in_project = Q(project__in=projects_readable(member=member))
    rule = (
        Q(visibility=Visibility.ENTERPRISE)
        | (in_project & Q(visibility=Visibility.PROJECT))
        | (in_project & Q(visibility=Visibility.TEAM, team_id__in=team_ids))
        | Q(visibility=Visibility.AUTHOR, author=member)
    )
    # The role layer is read by the holders of the role only.
    role_ids = member.roles.values("pk")
    memories = Memory.objects.filter(rule).exclude(Q(layer=Layer.ROLE) & ~Q(role_id__in=role_ids))
    if not include_forgotten:
        memories = memories.filter(forgotten_at__isnull=True)
    return memories


def memory_get_visible(*, member: Member, memory_id: str, include_forgotten: bool = False) -> Memory | None:
    try:
        return (
            memories_visible(member=member, include_forgotten=include_forgotten).filter(pk=memory_id).first()
        )
    except (ValidationError, ValueError, TypeError):
        # A malformed id is simply not there.
        return None
