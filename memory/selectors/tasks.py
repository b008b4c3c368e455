"""Task reads."""

from __future__ import annotations

import uuid

from memory.models import Task


def task_get(*, task_id: uuid.UUID | str) -> Task | None:
    """The task with this id in the tenant in context, or None (whether the caller may read it is access's)."""
    return Task.objects.filter(pk=task_id).first()
