"""Narrowings of a read scope's memories that the remember dialect's search asks for."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.db.models import Q, QuerySet

from memory.models import Memory
from memory.selectors.search import ReadScope, scoped_memories


def scoped_memories_narrowed(
    *, scope: ReadScope, project_id: uuid.UUID, workspace: str | None, label: str | None
) -> QuerySet[Memory]:
    """The scope's memories, only in the project's workspace named ``workspace`` and only with the scope
    label ``label`` (each when given)."""
    memories = scoped_memories(scope)
    if workspace is not None:
        memories = memories.filter(workspace__name=workspace, project_id=project_id)
    if label is not None:
        memories = memories.filter(scope=label)
    return memories


def scoped_linked_ids(*, scope: ReadScope, ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
    """The scope's memories linked from or to any of ``ids`` (either direction, any link)."""
    return set(
        scoped_memories(scope)
        .filter(Q(links_in__src_id__in=ids) | Q(links_out__dst_id__in=ids))
        .values_list("pk", flat=True)
    )
