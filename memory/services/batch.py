"""Many memories in one write (``save_memories``, ``POST /v1/memories:batch``, the importer).

    drafts ──► the author's write access to each folder named (a refusal refuses the whole batch)
           ──► the project's write lock
           ──► per item, in input order:
                 an item already refused while it was read                       ──► "error"
                 an import key already imported (or earlier in this batch)        ──► "duplicate"
                 Memory Guard (pure CPU): poisoning                               ──► "rejected"
                 the same source_id, source_hash and content (as stored, after redaction) live in
                 the project, or earlier in this batch                            ──► "duplicate"
           ──► the plan's room for the whole batch (the refusal says how many fit)
           ──► the rows, in bulk: memories, entity and tag links, next links, guard events, audit
               events, import records; one archivist wake                        ──► "created"

The stored result is ``memory_create``'s, memory for memory (the same row builder, scan, graph
helpers, audit details and wake): fact_key versions count up in input order, redactions and
guard_version are kept, every memory waits for the archivist. Everything runs in the caller's one
transaction: a poisoned item is rejected alone and its neighbours are saved; a failure outside the
items (the database) rolls the whole batch back, nothing half-written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, models
from django.db.models import Max

from accounts import access
from accounts.models import AuditEvent, Project
from accounts.services.audit import audit_event_build
from core.errors import LimitExceeded, MnemosError
from memory.models import (
    GuardEvent,
    ImportedRecord,
    Memory,
    MemoryCount,
    MemoryEntity,
    MemoryLink,
    MemoryTag,
)
from memory.services.events import EventType, guard_rejected_events_record, memory_events_record
from memory.services.guarding import GuardMemo, GuardRejected, Scanned, guard_redaction_event
from memory.services.locks import project_write_lock
from memory.services.memories import (
    MemoryDraft,
    archivist_wake,
    draft_scan,
    entities_get_or_create,
    memory_audit_details,
    memory_build,
    scanned_entities,
    scanned_tags,
    tags_get_or_create,
)

MAX_BATCH = 1000
# The plan's project, folder and enterprise limits, for a batch as a whole (the smallest room binds).
BATCH_LIMIT = "batch exceeds the plan's memory limit"
INSERT_CHUNK = 1000


@dataclass
class ItemResult:
    index: int
    status: str  # created | duplicate | rejected | error
    id: str | None = None
    error: str | None = None
    code: str | None = None


def batch_room(*, project: Project, workspace_ids: list[Any]) -> int:
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


def _room_check(*, project: Project, drafts: list[MemoryDraft]) -> None:
    room = batch_room(project=project, workspace_ids=[d.workspace.pk for d in drafts])
    if len(drafts) > room:
        raise LimitExceeded(
            f"{BATCH_LIMIT}: this batch has {len(drafts)} items, {room} fit", code="batch_limit"
        )


def _imported(project: Project, keys: set[str]) -> dict[str, str]:
    """Import keys already imported into the project, and their memory."""
    if not keys:
        return {}
    rows = ImportedRecord.objects.filter(project=project, key__in=list(keys)).values_list("key", "memory_id")
    return {key: str(memory_id) for key, memory_id in rows}


SourceKey = tuple[str, str | None, str]


def _source_key(scanned: Scanned) -> SourceKey | None:
    """What makes an item a re-send of a stored memory: its source_id, source_hash and content, as stored."""
    v = scanned.values
    if not v["source_id"]:
        return None
    return (v["source_id"], v["source_hash"] or None, v["content"])


def _live_sources(project: Project, keys: set[SourceKey]) -> dict[SourceKey, str]:
    """The live memories of the project with one of these sources (one query)."""
    if not keys:
        return {}
    found: dict[SourceKey, str] = {}
    rows = (
        Memory.objects.filter(
            project=project, source_id__in=list({k[0] for k in keys}), forgotten_at__isnull=True
        )
        .values_list("source_id", "source_hash", "content", "pk")
        .order_by("created_at")
    )
    for source_id, source_hash, content, pk in rows:
        key = (source_id, source_hash, content)
        if key in keys:
            found.setdefault(key, str(pk))
    return found


def _fact_versions(project: Project, keys: set[str]) -> dict[str, int]:
    """The highest fact_version of each fact_key in the project (0 for a new one)."""
    if not keys:
        return {}
    rows = (
        Memory.objects.filter(project=project, fact_key__in=list(keys))
        .values("fact_key")
        .annotate(n=Max("fact_version"))
        .values_list("fact_key", "n")
    )
    latest = dict.fromkeys(keys, 0)
    latest.update({key: n or 0 for key, n in rows})
    return latest


def memory_create_many(*, drafts: list[MemoryDraft | MnemosError], tool: str) -> list[ItemResult]:
    """Save each draft (an item already refused while it was read is passed as its error); one
    result per item, in input order. Every draft goes to one project. Refuses the whole batch when
    the author may not write to a folder named, or when the plan's room is smaller than the items
    that would be created, saying how many fit."""
    results: dict[int, ItemResult] = {}
    valid: list[tuple[int, MemoryDraft]] = []
    for index, item in enumerate(drafts):
        if isinstance(item, MnemosError):
            results[index] = ItemResult(index=index, status="error", error=str(item), code=item.code)
        else:
            valid.append((index, item))
    if valid:
        _create(valid, tool, results)
    return [results[i] for i in range(len(drafts))]


def _create(valid: list[tuple[int, MemoryDraft]], tool: str, results: dict[int, ItemResult]) -> None:
    project = valid[0][1].project
    if any(d.project.pk != project.pk for _, d in valid):
        raise ValueError("memory_create_many writes into one project")
    places = {(d.author.pk, d.access_key.pk, d.workspace.pk): d for _, d in valid}
    for d in places.values():
        access.place_write_check(
            member=d.author, key=d.access_key, project=project, workspace_id=d.workspace.pk
        )
    project_write_lock(project_id=project.pk)
    imported = _imported(project, {d.import_key for _, d in valid if d.import_key})
    rejections: list[GuardEvent] = []
    scanned: list[tuple[int, MemoryDraft, Scanned]] = []
    # An item that repeats an earlier one of this batch: the earlier one's index (it names its memory).
    repeats: dict[int, int] = {}
    first_by_import: dict[str, int] = {}
    memo = GuardMemo()  # the threshold read once, and a text seen in the batch checked once
    for index, draft in valid:
        if draft.import_key and draft.import_key in imported:
            results[index] = ItemResult(index=index, status="duplicate", id=imported[draft.import_key])
            continue
        if draft.import_key and draft.import_key in first_by_import:
            repeats[index] = first_by_import[draft.import_key]
            continue
        try:
            scan = draft_scan(draft, tool, memo)
        except GuardRejected as exc:
            rejections.append(exc.event())
            results[index] = ItemResult(index=index, status="rejected", error=str(exc), code=exc.code)
            continue
        if draft.import_key:
            first_by_import[draft.import_key] = index
        scanned.append((index, draft, scan))
    live = _live_sources(project, {k for _, _, s in scanned if (k := _source_key(s)) is not None})
    first_by_source: dict[SourceKey, int] = {}
    to_create: list[tuple[int, MemoryDraft, Scanned]] = []
    for index, draft, scan in scanned:
        key = _source_key(scan)
        if key is not None and key in live:
            results[index] = ItemResult(index=index, status="duplicate", id=live[key])
        elif key is not None and key in first_by_source:
            repeats[index] = first_by_source[key]
        else:
            if key is not None:
                first_by_source[key] = index
            to_create.append((index, draft, scan))
    _room_check(project=project, drafts=[d for _, d, _ in to_create])
    memories = _insert(project, to_create, tool, rejections)
    for (index, _, _), memory in zip(to_create, memories, strict=True):
        results[index] = ItemResult(index=index, status="created", id=str(memory.pk))
    for index in sorted(repeats):  # an earlier item is settled first, a repeat of a repeat included
        results[index] = ItemResult(index=index, status="duplicate", id=results[repeats[index]].id)


def _insert(
    project: Project,
    to_create: list[tuple[int, MemoryDraft, Scanned]],
    tool: str,
    rejections: list[GuardEvent],
) -> list[Memory]:
    latest = _fact_versions(project, {s.values["fact_key"] for _, _, s in to_create if s.values["fact_key"]})
    memories: list[Memory] = []
    for _, draft, scan in to_create:
        fact_key = scan.values["fact_key"]
        version = None
        if fact_key:
            latest[fact_key] += 1
            version = latest[fact_key]
        memories.append(memory_build(draft=draft, scanned=scan, fact_version=version))
    _insert_unnest(Memory, memories)
    _link_graph(to_create, memories)
    events = list(rejections)
    audits: list[AuditEvent] = []
    records: list[ImportedRecord] = []
    links: list[MemoryLink] = []
    for (_, draft, scan), memory in zip(to_create, memories, strict=True):
        redacted = guard_redaction_event(memory_id=memory.pk, scanned=scan, tool=tool)
        if redacted is not None:
            events.append(redacted)
        audits.append(
            audit_event_build(
                action="memory.create", target=memory, details=memory_audit_details(draft, scan, tool)
            )
        )
        if draft.prev is not None:
            links.append(
                MemoryLink(enterprise_id=memory.enterprise_id, kind="next", src=draft.prev, dst=memory)
            )
        if draft.import_key:
            records.append(
                ImportedRecord(
                    enterprise_id=memory.enterprise_id, project=project, key=draft.import_key, memory=memory
                )
            )
    MemoryLink.objects.bulk_create(links, batch_size=INSERT_CHUNK)
    GuardEvent.objects.bulk_create(events, batch_size=INSERT_CHUNK)
    _insert_unnest(AuditEvent, audits)
    _insert_unnest(ImportedRecord, records)
    memory_events_record(memories, EventType.MEMORY_CREATED, tool=tool)
    guard_rejected_events_record(events)
    if memories:
        archivist_wake(project=project)
    return memories


def _link_graph(to_create: list[tuple[int, MemoryDraft, Scanned]], memories: list[Memory]) -> None:
    """Every memory's entities and tags: one get-or-create over the whole batch, one insert of each link."""
    pairs = [(m, e) for (_, d, s), m in zip(to_create, memories, strict=True) for e in scanned_entities(d, s)]
    linked = entities_get_or_create([e for _, e in pairs])
    entity_rows: dict[tuple[Any, int], MemoryEntity] = {}
    for (memory, _), (entity, _) in zip(pairs, linked, strict=True):
        entity_rows.setdefault(
            (memory.pk, entity.pk),
            MemoryEntity(enterprise_id=memory.enterprise_id, memory=memory, entity=entity),
        )
    _insert_unnest(MemoryEntity, list(entity_rows.values()))
    paths_of = [(m, scanned_tags(d, s)) for (_, d, s), m in zip(to_create, memories, strict=True)]
    # tags_get_or_create answers the paths that name a node (not "" or "/"), in order.
    unique = list(dict.fromkeys(p for _, paths in paths_of for p in paths if _parts(p)))
    tag_of = dict(zip(unique, tags_get_or_create(unique), strict=True))
    tag_rows: dict[tuple[Any, int], MemoryTag] = {}
    for memory, paths in paths_of:
        for tag in (tag_of[p] for p in paths if p in tag_of):
            tag_rows.setdefault(
                (memory.pk, tag.pk), MemoryTag(enterprise_id=memory.enterprise_id, memory=memory, tag=tag)
            )
    _insert_unnest(MemoryTag, list(tag_rows.values()))


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p]


def _insert_unnest(model: type[models.Model], rows: Sequence[models.Model]) -> None:
    """Insert unsaved rows with one plain statement and one array parameter per column,
    ``INSERT ... SELECT FROM unnest(...)``: ``bulk_create`` compiles a placeholder per value, which
    costs a batch more than the database's work does (bench/RESULTS.md, "Batch writes").

    Every concrete column but a serial id and a generated one; the values are each field's own
    ``get_db_prep_save``. A list column (``derived_from``) travels as its array literals (unnest would
    flatten an array of arrays). Row-level security checks every row as for any insert."""
    if not rows:
        return
    serial = (models.AutoField, models.BigAutoField, models.SmallAutoField)
    fields = [f for f in model._meta.concrete_fields if not isinstance(f, serial) and not f.generated]
    names, sources, selects, arrays = [], [], [], []
    for n, f in enumerate(fields):
        values = [f.get_db_prep_save(getattr(row, f.attname), connection) for row in rows]
        # The type without its length: an explicit cast to varchar(n) would cut a long value where
        # the insert must refuse it ("value too long"), as every other write does.
        db_type = re.sub(r"\([\d, ]+\)", "", str(f.db_type(connection)))
        names.append(connection.ops.quote_name(str(f.get_attname_column()[1])))
        if db_type.endswith("[]"):
            values = [None if v is None else "{" + ",".join(str(x) for x in v) + "}" for v in values]
            sources.append("%s::text[]")
            selects.append(f"c{n}::{db_type}")
        else:
            sources.append(f"%s::{db_type}[]")
            selects.append(f"c{n}")
        arrays.append(values)
    aliases = ", ".join(f"c{n}" for n in range(len(fields)))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {model._meta.db_table} ({', '.join(names)}) SELECT {', '.join(selects)}"
            f" FROM unnest({', '.join(sources)}) AS t({aliases})",
            arrays,
        )
