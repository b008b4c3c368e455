"""Many memories in one write (``save_memories``, ``POST /v1/memories:batch``, the importer).

    drafts ──► limits for the whole batch (how many fit) ──► per item, in input order:
               duplicate?  (an import key already imported; or the same source_id with the same
                            content and source_hash, live in the project)          ──► "duplicate"
               savepoint ─► memory_create (guard, versions, graph, audit, archivist wake)
                            ├─ GuardRejected ─► rolled back alone, guard event kept ─► "rejected"
                            └─ any other refusal ─► rolled back alone            ─► "error"
                            └─ saved (and its ImportedRecord when it has a key)   ─► "created"

Everything runs in the caller's one transaction: a poisoned item is rejected alone and its
neighbours are saved; a failure outside the items (the database) rolls the whole batch back.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction

from accounts.models import Project
from core.errors import LimitExceeded, MnemosError
from memory.models import ImportedRecord, Memory, MemoryCount
from memory.services.guarding import GuardRejected
from memory.services.locks import project_write_lock
from memory.services.memories import MemoryDraft, memory_create

MAX_BATCH = 1000
# The plan's project, folder and enterprise limits, for a batch as a whole (the smallest room binds).
BATCH_LIMIT = "batch exceeds the plan's memory limit"


@dataclass
class ItemResult:
    index: int
    status: str  # created | duplicate | rejected | error
    id: str | None = None
    error: str | None = None
    code: str | None = None


def batch_room(*, project: Project, workspace_ids: list[object]) -> int:
    """How many new memories the plan still lets into this project (and each of its folders named)."""
    plan = project.enterprise.plan
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(live) FILTER (WHERE project_id = %s), 0), coalesce(sum(live), 0)"
            f" FROM {MemoryCount._meta.db_table} WHERE enterprise_id = %s",
            [project.pk, project.enterprise_id],
        )
        project_count, enterprise_count = cursor.fetchone()
        room = min(
            plan.max_memories_per_project - project_count, plan.max_memories_per_enterprise - enterprise_count
        )
        for workspace_id in set(workspace_ids):
            cursor.execute(
                f"SELECT coalesce(sum(live), 0) FROM {MemoryCount._meta.db_table} WHERE workspace_id = %s",
                [workspace_id],
            )
            room = min(room, plan.max_memories_per_workspace - cursor.fetchone()[0])
    return max(0, room)


def _duplicate_of(draft: MemoryDraft) -> str | None:
    if draft.import_key:
        found = (
            ImportedRecord.objects.filter(project=draft.project, key=draft.import_key)
            .values_list("memory_id", flat=True)
            .first()
        )
        return str(found) if found else None
    if draft.source_id:
        found = (
            Memory.objects.filter(
                project=draft.project,
                source_id=draft.source_id,
                source_hash=draft.source_hash,
                content=draft.content,
                forgotten_at__isnull=True,
            )
            .values_list("pk", flat=True)
            .first()
        )
        return str(found) if found else None
    return None


def memory_create_many(*, drafts: list[MemoryDraft | MnemosError], tool: str) -> list[ItemResult]:
    """Save each draft (an item already refused while it was read is passed as its error); one
    result per item, in input order. Refuses the whole batch when the plan's room is smaller than
    the items that would be created, saying how many fit."""
    results: list[ItemResult] = []
    valid = [d for d in drafts if isinstance(d, MemoryDraft)]
    if valid:
        project = valid[0].project
        project_write_lock(project_id=project.pk)
        room = batch_room(project=project, workspace_ids=[d.workspace.pk for d in valid])
        if len(valid) > room:
            raise LimitExceeded(
                f"{BATCH_LIMIT}: this batch has {len(valid)} items, {room} fit", code="batch_limit"
            )
    for index, draft in enumerate(drafts):
        if isinstance(draft, MnemosError):
            results.append(ItemResult(index=index, status="error", error=str(draft), code=draft.code))
            continue
        duplicate = _duplicate_of(draft)
        if duplicate:
            results.append(ItemResult(index=index, status="duplicate", id=duplicate))
            continue
        try:
            with transaction.atomic():
                memory = memory_create(draft=draft, tool=tool)
                if draft.import_key:
                    ImportedRecord.objects.create(project=draft.project, key=draft.import_key, memory=memory)
        except GuardRejected as exc:
            exc.record_after_rollback()
            results.append(ItemResult(index=index, status="rejected", error=str(exc), code=exc.code))
        except MnemosError as exc:
            results.append(ItemResult(index=index, status="error", error=str(exc), code=exc.code))
        else:
            results.append(ItemResult(index=index, status="created", id=str(memory.pk)))
    return results
