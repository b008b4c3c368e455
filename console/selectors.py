"""What the console's overview pages read: projects with their grants and sizes, usage against the plan.

These read both apps' tables (accounts' grants, memory's trigger-kept counts), so they live here, above
both, not in accounts (which imports nothing of memory).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db.models import Q, QuerySet, Sum
from django.utils import timezone

from accounts import access
from accounts.models import (
    Enterprise,
    Member,
    Project,
    ProjectTeamPermission,
    ProjectUserPermission,
    PublicTarget,
    ToolCallWindow,
)
from accounts.selectors.console import PERMISSION_NAMES
from accounts.services.enterprises import PROJECT_PERMISSIONS
from memory.models import MemoryCount


@dataclass
class ProjectRow:
    project: Project
    team_grants: dict[str, list[str]] = field(default_factory=dict)  # team name -> view/write/manage
    member_grants: dict[str, list[str]] = field(default_factory=dict)  # username -> ...
    public: bool = False
    memories: int = 0


def project_overview(*, member: Member, project: Project) -> ProjectRow:
    """One project the member may read, as ``projects_overview`` shows it."""
    [row] = projects_overview(projects=access.projects_readable(member=member).filter(pk=project.pk))
    return row


def projects_overview(*, projects: QuerySet[Project]) -> list[ProjectRow]:
    """The given projects with who holds which permission on each, and whether each is published."""
    rows = {p.pk: ProjectRow(project=p) for p in projects.select_related("team").order_by("slug")}
    ids = list(rows)
    for grant in ProjectTeamPermission.objects.filter(content_object_id__in=ids).select_related(
        "permission", "group__team"
    ):
        holder = getattr(grant.group, "team", None)
        name = holder.name if holder else grant.group.name
        rows[grant.content_object_id].team_grants.setdefault(name, []).append(
            PERMISSION_NAMES.get(grant.permission.codename, grant.permission.codename)
        )
    for grant in ProjectUserPermission.objects.filter(content_object_id__in=ids).select_related(
        "permission", "user"
    ):
        rows[grant.content_object_id].member_grants.setdefault(grant.user.username, []).append(
            PERMISSION_NAMES.get(grant.permission.codename, grant.permission.codename)
        )
    for project_id in PublicTarget.objects.filter(project_id__in=ids).values_list("project_id", flat=True):
        rows[project_id].public = True
    # Live memories from the trigger-kept per-folder counts (memory.models.MemoryCount), not a count.
    counts = MemoryCount.objects.filter(project_id__in=ids).values("project_id").annotate(n=Sum("live"))
    for row in counts:
        rows[row["project_id"]].memories = row["n"] or 0
    for row in rows.values():
        for grants in (*row.team_grants.values(), *row.member_grants.values()):
            grants.sort(key=list(PROJECT_PERMISSIONS).index)
    return list(rows.values())


@dataclass
class UsageRow:
    project: Project
    memories: int
    calls_this_minute: int
    calls_last_5_minutes: int


def usage_overview(*, enterprise: Enterprise, projects: QuerySet[Project]) -> dict[str, Any]:
    """Live memories per project against the plan's limits, tool calls per minute, the subscription."""
    now = timezone.now().replace(second=0, microsecond=0)
    listed = list(projects.select_related("team").order_by("slug"))
    ids = [p.pk for p in listed]
    counts = dict(
        MemoryCount.objects.filter(project_id__in=ids)
        .values_list("project_id")
        .annotate(n=Sum("live"))
        .values_list("project_id", "n")
    )
    calls = {
        row["project_id"]: row
        for row in ToolCallWindow.objects.filter(
            project_id__in=ids, window_start__gte=now - timedelta(minutes=4)
        )
        .values("project_id")
        .annotate(
            total=Sum("calls"),
            current=Sum("calls", filter=Q(window_start=now)),
        )
    }
    rows = [
        UsageRow(
            project=p,
            memories=counts.get(p.pk) or 0,
            calls_this_minute=(calls.get(p.pk) or {}).get("current") or 0,
            calls_last_5_minutes=(calls.get(p.pk) or {}).get("total") or 0,
        )
        for p in listed
    ]
    total = MemoryCount.objects.aggregate(n=Sum("live"))["n"] or 0
    return {"rows": rows, "total": total, "plan": enterprise.plan, "enterprise": enterprise}
