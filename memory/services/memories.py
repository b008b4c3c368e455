"""The one write path every dialect uses: guard, limits, versions, graph, audit, archivist."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Max
from django.utils import timezone

from accounts import access
from accounts.models import AccessKey, Member, Project, Role, Team, Workspace
from accounts.services.audit import audit_record
from accounts.tasks import enqueue
from core.errors import LimitExceeded, Unprocessable
from core.tenancy import TenantContextMissing, current_tenant
from memory.guard import RULES_VERSION
from memory.models import (
    ArchivistWake,
    Entity,
    Memory,
    MemoryCount,
    MemoryEntity,
    MemoryLink,
    MemoryTag,
    Tag,
    Task,
)
from memory.selectors.visibility import memories_reachable
from memory.services.events import EventType, memory_events_record
from memory.services.guarding import GuardMemo, Scanned, guard_fields, guard_record_redactions
from memory.services.locks import project_write_lock
from memory.text import fold

PROJECT_LIMIT = "project memory limit exceeded"
WORKSPACE_LIMIT = "maximum number of memories exceeded for workspace"
TENANT_LIMIT = "maximum number of memories exceeded for tenant"
DERIVED_TOO_MANY = "derived_from accepts at most 50 memory ids"
DERIVED_UNKNOWN = "derived_from contains unknown memory ids"
MAX_DERIVED = 50


@dataclass
class MemoryDraft:
    """Everything a new memory needs; each dialect's tool fills in what its contract names."""

    project: Project
    workspace: Workspace
    author: Member
    access_key: AccessKey
    content: str
    summary: str = ""
    kind: str = "fact"
    layer: str = "project"
    visibility: str = "project"
    scope: str = "shared"
    source: str = "owner"
    source_id: str | None = None
    source_hash: str | None = None
    source_revision: str | None = None
    origin: dict[str, Any] | None = None
    source_event_id: str | None = None
    source_event_revision: str | None = None
    fact_key: str | None = None
    confidence: float = 0.5
    derived_from: list[str] = field(default_factory=list)
    timestamp: datetime | None = None
    team: Team | None = None
    task: Task | None = None
    role: Role | None = None
    supersedes: Memory | None = None
    entities: list[tuple[str, str]] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    prev: Memory | None = None
    # Imports only (memory/services/imports.py): the stored creation time of the exported memory, and
    # the source item's key (memory.ImportedRecord) that makes a re-run create nothing new.
    created_at: datetime | None = None
    import_key: str | None = None


def _check_limits(draft: MemoryDraft) -> None:
    """The plan's three limits from the live counts the triggers keep (memory.MemoryCount), one query.

    Exact for the project and its folders: the caller holds the project's write lock. The plan comes
    from the access key the door loaded (with its enterprise and plan), not from a second read.
    """
    plan = draft.access_key.enterprise.plan
    # Raw SQL: a constant statement (prepared once per connection); the ORM compiled its three filtered
    # sums anew on every save (~1 ms of CPU). The tenant condition is explicit, RLS holds it too.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(live) FILTER (WHERE project_id = %s), 0),"
            " coalesce(sum(live) FILTER (WHERE workspace_id = %s), 0), coalesce(sum(live), 0)"
            f" FROM {MemoryCount._meta.db_table} WHERE enterprise_id = %s",
            [draft.project.pk, draft.workspace.pk, draft.project.enterprise_id],
        )
        project_count, workspace_count, enterprise_count = cursor.fetchone()
    for count, limit, message, code in (
        (project_count, plan.max_memories_per_project, PROJECT_LIMIT, "project_limit"),
        (workspace_count, plan.max_memories_per_workspace, WORKSPACE_LIMIT, "workspace_limit"),
        (enterprise_count, plan.max_memories_per_enterprise, TENANT_LIMIT, "tenant_limit"),
    ):
        if count >= limit:
            raise LimitExceeded(message, code=code)


def derived_from_check(*, member: Member, ids: list[str], key: AccessKey | None = None) -> list[str]:
    """Sorted, unique ids of existing memories this member can access (through this key); else the seed's errors."""
    if len(ids) > MAX_DERIVED:
        raise Unprocessable(DERIVED_TOO_MANY, code="derived_from_too_many")
    try:
        wanted = sorted({str(uuid.UUID(str(i))) for i in ids})
    except ValueError as exc:
        raise Unprocessable(DERIVED_UNKNOWN, code="derived_from_unknown") from exc
    found = {
        str(pk)
        for pk in memories_reachable(member=member, key=key)
        .filter(pk__in=wanted)
        .values_list("pk", flat=True)
    }
    if found != set(wanted):
        raise Unprocessable(DERIVED_UNKNOWN, code="derived_from_unknown")
    return wanted


def _tenant_id() -> uuid.UUID:
    """The enterprise rows made in bulk belong to (``bulk_create`` and raw inserts skip ``save``)."""
    enterprise_id = current_tenant().enterprise_id
    if enterprise_id is None:
        raise TenantContextMissing("entities and tags are created inside one enterprise's context")
    return enterprise_id


def entity_get_or_create(*, name: str, type: str) -> tuple[Entity, bool]:
    [linked] = entities_get_or_create([(name, type)])
    return linked


def entities_get_or_create(pairs: list[tuple[str, str]]) -> list[tuple[Entity, bool]]:
    """Each (name, type) as its enterprise's entity, and whether this call created it: one read,
    and for new names one ``INSERT ... ON CONFLICT DO NOTHING`` (a concurrent writer's entity is
    reused, never a unique-key error) and one read back. A deprecated entity named again revives."""
    if not pairs:
        return []
    keys = [fold(name) for name, _ in pairs]
    found = {e.key: e for e in Entity.objects.filter(key__in=set(keys))}
    missing: dict[str, tuple[str, str]] = {}
    for key, (name, type_) in zip(keys, pairs, strict=True):
        if key not in found and key not in missing:
            missing[key] = (" ".join(name.split()), type_)
    created: set[str] = set()
    if missing:
        table = Entity._meta.db_table
        rows = [(_tenant_id(), name, key, type_) for key, (name, type_) in missing.items()]
        values = ", ".join(["(%s, %s, %s, %s, false, now())"] * len(rows))
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} (enterprise_id, name, key, type, deprecated, created_at) VALUES {values} "
                "ON CONFLICT (enterprise_id, key) DO NOTHING RETURNING key",
                [v for row in rows for v in row],
            )
            created = {key for (key,) in cursor.fetchall()}
        found |= {e.key: e for e in Entity.objects.filter(key__in=list(missing))}
    revived = [e for e in found.values() if e.deprecated]
    if revived:
        Entity.objects.filter(pk__in=[e.pk for e in revived]).update(deprecated=False)
        for entity in revived:
            entity.deprecated = False
    linked, seen = [], set()
    for key in keys:
        linked.append((found[key], key in created and key not in seen))
        seen.add(key)
    return linked


def tags_get_or_create(paths: list[str]) -> list[Tag]:
    """Each slash path as a tag, with every ancestor: one read of all the nodes; new nodes are
    inserted a level at a time (parents first, ``ON CONFLICT DO NOTHING``) and read back."""
    split = [[p for p in path.split("/") if p] for path in paths]
    wanted = {"/".join(parts[:depth]) for parts in split for depth in range(1, len(parts) + 1)}
    nodes = {t.path: t for t in Tag.objects.filter(path__in=wanted)} if wanted else {}
    new = sorted(wanted - set(nodes), key=lambda p: (p.count("/"), p))
    for depth in sorted({p.count("/") for p in new}):
        level = [p for p in new if p.count("/") == depth]
        Tag.objects.bulk_create(
            [
                Tag(
                    enterprise_id=_tenant_id(),
                    path=path,
                    name=path.rsplit("/", 1)[-1],
                    parent=nodes[path.rsplit("/", 1)[0]] if "/" in path else None,
                )
                for path in level
            ],
            ignore_conflicts=True,
        )
        nodes |= {t.path: t for t in Tag.objects.filter(path__in=level)}
    return [nodes["/".join(parts)] for parts in split if parts]


def tag_get_or_create(path: str) -> Tag:
    """The tag and every ancestor of it: the tree is built from slash paths."""
    [tag] = tags_get_or_create([path])
    return tag


def link_entities(memory: Memory, entities: list[tuple[str, str]]) -> list[tuple[Entity, bool]]:
    linked = entities_get_or_create(entities)
    MemoryEntity.objects.bulk_create(
        [
            MemoryEntity(enterprise_id=memory.enterprise_id, memory=memory, entity=entity)
            for entity in {e.pk: e for e, _ in linked}.values()
        ],
        ignore_conflicts=True,
    )
    return linked


def link_tags(memory: Memory, paths: list[str]) -> list[Tag]:
    tags = tags_get_or_create(paths)
    MemoryTag.objects.bulk_create(
        [
            MemoryTag(enterprise_id=memory.enterprise_id, memory=memory, tag=tag)
            for tag in {t.pk: t for t in tags}.values()
        ],
        ignore_conflicts=True,
    )
    return tags


def draft_scan(draft: MemoryDraft, tool: str, memo: GuardMemo | None = None) -> Scanned:
    """Memory Guard over every text of the draft (refuses poisoning, redacts secrets): pure CPU."""
    fields: dict[str, str | None] = {
        "content": draft.content,
        "summary": draft.summary,
        "source": draft.source,
        "source_id": draft.source_id,
        "source_hash": draft.source_hash,
        "source_revision": draft.source_revision,
        "fact_key": draft.fact_key,
        "scope": draft.scope,
    }
    for i, (name, type_) in enumerate(draft.entities):
        fields[f"entities[{i}].name"] = name
        fields[f"entities[{i}].type"] = type_
    for i, tag in enumerate(draft.tags):
        fields[f"tags[{i}]"] = tag
    for part in ("provider", "address", "version"):
        value = (draft.origin or {}).get(part)
        if isinstance(value, str):
            fields[f"source.{part}"] = value
    return guard_fields(fields, tool=tool, memo=memo)


def memory_create(*, draft: MemoryDraft, tool: str) -> Memory:
    """Store one memory (in the caller's transaction), or refuse with nothing written."""
    # The one write path asks the access policy now, whatever the key was made for: the author's grant
    # on the project, and a folder-bound key's folder (a run key is bound to its task, not a folder).
    access.place_write_check(
        member=draft.author,
        key=draft.access_key,
        project=draft.project,
        workspace_id=draft.workspace.pk,
    )
    scanned = draft_scan(draft, tool)
    project_write_lock(project_id=draft.project.pk)
    _check_limits(draft)
    fact_version = None
    if draft.fact_key:
        latest = Memory.objects.filter(project=draft.project, fact_key=scanned.values["fact_key"]).aggregate(
            n=Max("fact_version")
        )
        fact_version = (latest["n"] or 0) + 1
    memory = memory_build(draft=draft, scanned=scanned, fact_version=fact_version)
    memory.save(force_insert=True)
    memory._linked_entities = link_entities(memory, scanned_entities(draft, scanned))  # type: ignore[attr-defined]
    memory._linked_tags = link_tags(memory, scanned_tags(draft, scanned))  # type: ignore[attr-defined]
    if draft.prev is not None:
        MemoryLink.objects.create(enterprise_id=memory.enterprise_id, kind="next", src=draft.prev, dst=memory)
    guard_record_redactions(memory_id=memory.pk, scanned=scanned, tool=tool)
    audit_record(action="memory.create", target=memory, details=memory_audit_details(draft, scanned, tool))
    memory_events_record([memory], EventType.MEMORY_CREATED, tool=tool)
    archivist_wake(project=draft.project)
    return memory


def memory_build(*, draft: MemoryDraft, scanned: Scanned, fact_version: int | None) -> Memory:
    """The row a draft becomes, unsaved, with the guard's values (``memory_create`` saves one,
    ``memory_create_many`` inserts many at once)."""
    v = scanned.values
    origin = dict(draft.origin) if draft.origin else None
    if origin:
        origin.update({k: v[f"source.{k}"] for k in ("provider", "address", "version") if f"source.{k}" in v})
    return Memory(
        enterprise_id=draft.project.enterprise_id,
        project=draft.project,
        workspace=draft.workspace,
        team=draft.team if draft.team is not None else draft.project.team,
        author=draft.author,
        access_key=draft.access_key,
        task=draft.task,
        role=draft.role,
        timestamp=draft.timestamp or timezone.now(),
        **({"created_at": draft.created_at} if draft.created_at is not None else {}),
        summary=v["summary"],
        content=v["content"],
        kind=draft.kind,
        layer=draft.layer,
        visibility=draft.visibility,
        scope=v["scope"],
        source=v["source"],
        source_id=v["source_id"] or None,
        source_hash=v["source_hash"] or None,
        source_revision=v["source_revision"] or None,
        origin=origin,
        source_event_id=draft.source_event_id,
        source_event_revision=draft.source_event_revision,
        fact_key=v["fact_key"] or None,
        fact_version=fact_version,
        confidence=draft.confidence,
        derived_from=draft.derived_from,
        supersedes=draft.supersedes,
        redactions=scanned.redactions,
        guard_version=RULES_VERSION,
        archivist_waiting=True,
    )


def scanned_entities(draft: MemoryDraft, scanned: Scanned) -> list[tuple[str, str]]:
    """The draft's entities as the guard left them."""
    v = scanned.values
    return [(v[f"entities[{i}].name"], v[f"entities[{i}].type"]) for i in range(len(draft.entities))]


def scanned_tags(draft: MemoryDraft, scanned: Scanned) -> list[str]:
    """The draft's tag paths as the guard left them."""
    return [scanned.values[f"tags[{i}]"] for i in range(len(draft.tags))]


def memory_audit_details(draft: MemoryDraft, scanned: Scanned, tool: str) -> dict[str, Any]:
    """What the ``memory.create`` audit event says about a new memory."""
    return {
        "tool": tool,
        "project": str(draft.project.pk),
        "workspace": draft.workspace.name,
        "layer": draft.layer,
        "redactions": scanned.rules,
    }


# A drain pending longer than this is taken for lost (its message never reached a worker: a broker
# restarted without persistence) and the next save sends another; a repeat drain changes nothing.
ARCHIVIST_WAKE_STALE = timedelta(seconds=60)


def archivist_wake(*, project: Project) -> bool:
    """After a save, in its transaction and under the project's write lock: send the archivist a drain
    of the project's waiting memories, unless one is already pending (then it takes this memory too).

    One statement on every save instead of one broker message per save: the message is sent once for a
    burst of saves (after commit), and again only when the archivist has taken the last one. Returns
    whether this save sent it.
    """
    table = ArchivistWake._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {table} (enterprise_id, project_id, pending_since) VALUES (%s, %s, now())
            ON CONFLICT (project_id) DO UPDATE SET pending_since = now()
            WHERE {table}.pending_since IS NULL OR {table}.pending_since < now() - make_interval(secs => %s)
            RETURNING 1
            """,
            [project.enterprise_id, project.pk, ARCHIVIST_WAKE_STALE.total_seconds()],
        )
        woke = cursor.fetchone() is not None
    if woke:
        enqueue(
            "memory.archivist_drain", enterprise_id=str(project.enterprise_id), project_id=str(project.pk)
        )
    return woke
