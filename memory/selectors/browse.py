"""The console's memory browser: the same visibility rule and hybrid search as the tools."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from accounts.models import JobRun, Member
from memory.guard import RULES_VERSION
from memory.models import GuardEvent, GuardReport, GuardReportKind, Memory
from memory.selectors.graph import surroundings
from memory.selectors.search import hybrid_rank
from memory.selectors.visibility import memories_visible, memory_get_visible
from memory.text import fold

BROWSE_LIMIT = 50


@dataclass(frozen=True)
class MemoryFilter:
    query: str = ""
    project_id: uuid.UUID | None = None
    workspace: str = ""
    layer: str = ""
    scope: str = ""
    status: str = ""
    tag: str = ""
    entity: str = ""
    since: datetime | None = None
    until: datetime | None = None


@dataclass
class BrowseRow:
    memory: Memory
    tags: list[str]
    entities: list[str]
    channels: list[str] = field(default_factory=list)


@dataclass
class BrowseResult:
    rows: list[BrowseRow]
    searched: bool
    vector_error: str | None = None


def _filtered(member: Member, where: MemoryFilter) -> QuerySet[Memory]:
    memories = memories_visible(member=member)
    if where.project_id:
        memories = memories.filter(project_id=where.project_id)
    if where.workspace:
        memories = memories.filter(workspace__name=where.workspace)
    if where.layer:
        memories = memories.filter(layer=where.layer)
    if where.scope:
        memories = memories.filter(scope=where.scope)
    if where.status:
        memories = memories.filter(status=where.status)
    if where.tag:
        path = where.tag.strip().lstrip("#").strip("/")
        memories = memories.filter(
            Q(tag_links__tag__path=path) | Q(tag_links__tag__path__startswith=f"{path}/")
        )
    if where.entity:
        memories = memories.filter(entity_links__entity__key=fold(where.entity))
    if where.since:
        memories = memories.filter(timestamp__gte=where.since)
    if where.until:
        memories = memories.filter(timestamp__lt=where.until)
    return memories.distinct() if where.tag or where.entity else memories


def memory_browse(*, member: Member, where: MemoryFilter, limit: int = BROWSE_LIMIT) -> BrowseResult:
    """Newest first, or ranked by the tools' hybrid search when there is a query."""
    memories = _filtered(member, where)
    channels: dict[uuid.UUID, list[str]] = {}
    vector_error = None
    if where.query.strip():
        ranked = hybrid_rank(memories=memories, query=where.query, depth=max(50, limit))
        ids = ranked.ids[:limit]
        channels, vector_error = ranked.channels, ranked.vector_error
        found = {m.pk: m for m in Memory.objects.filter(pk__in=ids).select_related("project", "workspace")}
        ordered = [found[pk] for pk in ids if pk in found]
    else:
        ordered = list(
            memories.select_related("project", "workspace").order_by("-timestamp", "-created_at")[:limit]
        )
    around = surroundings([m.pk for m in ordered])
    rows = [
        BrowseRow(
            memory=m,
            tags=around.tags.get(m.pk, []),
            entities=[name for _, name, _ in around.entities.get(m.pk, [])],
            channels=channels.get(m.pk, []),
        )
        for m in ordered
    ]
    return BrowseResult(rows=rows, searched=bool(where.query.strip()), vector_error=vector_error)


@dataclass
class MemoryPage:
    memory: Memory
    tags: list[str]
    entities: list[tuple[int, str, str]]
    versions: list[Memory]
    derived_from: list[Memory]
    derived_hidden: int
    relations: list[dict[str, Any]]
    prev: Memory | None
    next: Memory | None


def memory_page(*, member: Member, memory_id: str) -> MemoryPage | None:
    """One memory as its reader may see it: provenance, versions, sources, relations, sequence."""
    memory = memory_get_visible(member=member, memory_id=memory_id)
    if memory is None:
        return None
    memory = (
        Memory.objects.select_related("project", "workspace", "author__user", "access_key", "team")
        .filter(pk=memory.pk)
        .get()
    )
    visible = memories_visible(member=member)
    versions = (
        list(visible.filter(project_id=memory.project_id, fact_key=memory.fact_key).order_by("-fact_version"))
        if memory.fact_key
        else []
    )
    around = surroundings([memory.pk])
    linked_ids = {uuid.UUID(r["id"]) for r in around.relations.get(memory.pk, [])}
    wanted = linked_ids | set(memory.derived_from)
    readable = {m.pk: m for m in visible.filter(pk__in=wanted)} if wanted else {}
    relations = [
        {**r, "memory": readable[uuid.UUID(r["id"])]}
        for r in around.relations.get(memory.pk, [])
        if uuid.UUID(r["id"]) in readable and r["type"] != "next"
    ]
    prev_id, next_id = around.prev.get(memory.pk), around.next.get(memory.pk)
    return MemoryPage(
        memory=memory,
        tags=around.tags.get(memory.pk, []),
        entities=sorted(around.entities.get(memory.pk, []), key=lambda e: e[1].casefold()),
        versions=versions,
        derived_from=[readable[pk] for pk in memory.derived_from if pk in readable],
        derived_hidden=len([pk for pk in memory.derived_from if pk not in readable]),
        relations=relations,
        prev=readable.get(uuid.UUID(prev_id)) if prev_id else None,
        next=readable.get(uuid.UUID(next_id)) if next_id else None,
    )


@dataclass(frozen=True)
class GuardFilter:
    action: str = ""
    rule: str = ""


def guard_events_list(*, where: GuardFilter, limit: int = 100) -> list[GuardEvent]:
    """Newest first; each row says (``reported``) whether it is reported as a false positive."""
    reported = GuardReport.objects.filter(guard_event=OuterRef("pk"), kind=GuardReportKind.FALSE_POSITIVE)
    events = (
        GuardEvent.objects.select_related("access_key__member__user")
        .annotate(reported=Exists(reported))
        .order_by("-created_at", "-id")
    )
    if where.action:
        events = events.filter(action=where.action)
    if where.rule:
        events = events.filter(rules__contains=[where.rule])
    return list(events[:limit])


def guard_rescan_job() -> JobRun | None:
    """The re-scan job for the rules in force (None before one has started)."""
    return JobRun.objects.filter(name="guard.rescan", key=RULES_VERSION).first()


def guard_pending_count() -> int:
    """Live memories last scanned with older rules."""
    return Memory.objects.filter(forgotten_at__isnull=True).exclude(guard_version=RULES_VERSION).count()
