"""Task reads."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Prefetch, QuerySet

from accounts import access
from accounts.models import AccessKey, Member
from memory.models import Task, TaskVersion


def task_get(*, task_id: uuid.UUID | str) -> Task | None:
    """The task with this id in the tenant in context, or None (whether the caller may read it is access's)."""
    return Task.objects.filter(pk=task_id).first()


def tasks_readable(*, member: Member, key: AccessKey | None = None) -> QuerySet[Task]:
    """The tasks whose project the member may read (a folder-bound key: its own project's; a run key:
    its task), newest first, with project, team and versions (newest first) in two queries."""
    tasks = Task.objects.filter(project__in=access.projects_readable(member=member))
    if key is not None and key.workspace_id is not None:
        tasks = tasks.filter(project_id=key.project_id)
    if key is not None and key.bound_task_id is not None:
        tasks = tasks.filter(pk=key.bound_task_id)
    return (
        tasks.select_related("project", "team", "clone_of")
        .prefetch_related(Prefetch("versions", queryset=TaskVersion.objects.order_by("-number")))
        .order_by("-created_at")
    )


def task_readable_get(*, member: Member, key: AccessKey | None = None, task_id: Any) -> Task | None:
    """One readable task; a malformed, foreign or unreadable id is simply not there."""
    try:
        pk = uuid.UUID(str(task_id))
    except ValueError:
        return None
    return tasks_readable(member=member, key=key).filter(pk=pk).first()
