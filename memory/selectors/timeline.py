"""Chronological reads: the timeline of a domain, an entity or a tag group, and an entity's events.

Each reads what its scope reaches (``scoped_memories``) and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from core.errors import Unprocessable
from memory.models import Entity, Memory, MemoryEntity, MemoryTag, Tag
from memory.selectors.entities import entity_candidates, entity_family, entity_get, entity_named
from memory.selectors.graph import surroundings
from memory.selectors.search import ReadScope, scoped_memories

TIMELINE_COUNT_CAP = 10_000
ENTITY_UNKNOWN = "entity_id names no entity: find one with find_memories_by_entity"
TAG_GROUP_UNKNOWN = "cg_id names no tag group: take one from a search's hint.categories"


@dataclass
class TimelineEntry:
    memory: Memory
    tags: list[str]
    entities: list[str]


def timeline_entries(memories: list[Memory]) -> list[TimelineEntry]:
    """The memories in the order given, each with its tags and entity names (one statement)."""
    ids = [m.pk for m in memories]
    around = surroundings(ids, visible_ids=set(ids))
    return [
        TimelineEntry(
            memory=m,
            tags=around.tags.get(m.pk, []),
            entities=[n for _, n, _ in around.entities.get(m.pk, [])],
        )
        for m in memories
    ]


@dataclass
class Timeline:
    mode: str  # domain, entity, tag_group or entity_and_tag_group
    anchor: dict[str, Any] | None
    entries: list[TimelineEntry]
    total: int  # counted up to TIMELINE_COUNT_CAP


def timeline_list(
    *,
    scope: ReadScope,
    entity_id: int | None = None,
    cg_id: int | None = None,
    days: int | None = None,
    limit: int,
) -> Timeline:
    """The latest ``limit`` memories of the flow, oldest first: those involving the entity (renames
    included), under the tag group, within the last ``days``; all of them when nothing is named."""
    memories = scoped_memories(scope)
    anchor: dict[str, Any] | None = None
    mode = "domain"
    if entity_id is not None:
        entity = entity_get(entity_id=entity_id)
        if entity is None:
            raise Unprocessable(ENTITY_UNKNOWN, code="entity_unknown")
        related = entity_family([entity])
        memories = memories.filter(pk__in=MemoryEntity.objects.filter(entity__in=related).values("memory_id"))
        anchor, mode = {"entity_id": entity.pk, "name": entity.name, "type": entity.type}, "entity"
    if cg_id is not None:
        group = Tag.objects.filter(pk=cg_id).first()
        if group is None:
            raise Unprocessable(TAG_GROUP_UNKNOWN, code="tag_group_unknown")
        under = MemoryTag.objects.filter(Q(tag__path=group.path) | Q(tag__path__startswith=f"{group.path}/"))
        memories = memories.filter(pk__in=under.values("memory_id"))
        anchor = {**(anchor or {}), "cg_id": group.pk, "tag_group": group.path}
        mode = "tag_group" if mode == "domain" else "entity_and_tag_group"
    if days is not None:
        memories = memories.filter(timestamp__gte=timezone.now() - timedelta(days=days))
    # Counting stops at the cap: an exact count of a large domain reads every visible memory.
    total = memories.values("pk")[:TIMELINE_COUNT_CAP].count()
    latest = list(memories.select_related("project").order_by("-timestamp", "-created_at")[:limit])
    latest.reverse()
    return Timeline(mode=mode, anchor=anchor, entries=timeline_entries(latest), total=total)


@dataclass
class EntityEvents:
    """An entity's events, oldest first; or, when no entity matched, similar names (``candidates``)."""

    entity: Entity | None
    family: list[Entity] = field(default_factory=list)  # the entity and its renames, both ways
    entries: list[TimelineEntry] = field(default_factory=list)
    total: int = 0
    candidates: list[Entity] | None = None


def entity_events_list(
    *, scope: ReadScope, entity_id: int | None, name: str | None, limit: int, offset: int
) -> EntityEvents:
    """The page of the scope's memories involving the entity (named by id, else by a spelling of its name) or
    any recorded rename of it, oldest first."""
    entity = entity_get(entity_id=entity_id) if entity_id is not None else entity_named(name=name or "")
    if entity is None:
        return EntityEvents(entity=None, candidates=entity_candidates(name=name or ""))
    family = entity_family([entity])
    involved = scoped_memories(scope).filter(
        pk__in=MemoryEntity.objects.filter(entity__in=family).values("memory_id")
    )
    total = involved.count()
    page = list(
        involved.select_related("project").order_by("timestamp", "created_at")[offset : offset + limit]
    )
    return EntityEvents(entity=entity, family=family, entries=timeline_entries(page), total=total)
