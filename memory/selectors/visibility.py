"""Which memories a principal may see: the one rule every read and every reference uses.

The project rule (who reads which project) and a key's binding come from ``accounts.access``;
this module turns them, with each memory's visibility and layer, into the query.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet

from accounts import access
from accounts.models import AccessKey, Member
from memory.models import Layer, Memory, Visibility

# Kept under its old name for the readers that list projects (console pages, the SQL tool).
projects_readable = access.projects_readable


def memories_visible(*, member: Member, include_forgotten: bool = False) -> QuerySet[Memory]:
    """Memories this member may read (tenant-scoped by the manager and RLS)."""
    if not member.is_active:
        return Memory.objects.none()
    # The member's teams and roles as subqueries of the one statement (not read first: two round trips
    # fewer on every read).
    team_ids = member.teams.values("pk")
    in_project = Q(project__in=access.projects_readable(member=member))
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


def memories_reachable(
    *, member: Member, key: AccessKey | None, include_forgotten: bool = False
) -> QuerySet[Memory]:
    """Memories this member may read through this key: a folder-bound key keeps to its folder (and what is
    shared enterprise-wide). Every read by id (update, forget, prev_event_id, derived_from, supersedes) uses it."""
    memories = memories_visible(member=member, include_forgotten=include_forgotten)
    if access.key_is_folder_bound(key):
        assert key is not None
        memories = memories.filter(Q(workspace_id=key.workspace_id) | Q(visibility=Visibility.ENTERPRISE))
    return memories


def memory_get_visible(
    *, member: Member, memory_id: str, include_forgotten: bool = False, key: AccessKey | None = None
) -> Memory | None:
    try:
        return (
            memories_reachable(member=member, key=key, include_forgotten=include_forgotten)
            .filter(pk=memory_id)
            .first()
        )
    except (ValidationError, ValueError, TypeError):
        # A malformed id is simply not there.
        return None
