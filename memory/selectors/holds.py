"""Legal holds, read: which holds are active, and which memories they cover (docs/lifecycle.md).

A memory is held when its project is held, when it is linked to a held entity (or to a rename of one,
either way: the same subject under another spelling), or when it carries a held tag or a tag below it
(tags are slash paths: a hold on ``clients`` covers ``clients/acme``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Exists, F, OuterRef, Q, QuerySet

from memory.models import Entity, HoldTarget, LegalHold, Memory, MemoryEntity, MemoryTag, Tag
from memory.selectors.entities import entity_family


def holds_active(*, target: str | None = None) -> QuerySet[LegalHold]:
    """The holds in force (not released), oldest first, with what they hold."""
    holds = LegalHold.objects.filter(released_at__isnull=True).select_related("project", "entity", "tag")
    if target:
        holds = holds.filter(target=target)
    return holds.order_by("created_at", "id")


def holds_list(*, include_released: bool = True, limit: int = 200) -> list[LegalHold]:
    """Holds for a list (the console's, the auditors'): active ones first, then released, newest first."""
    holds = LegalHold.objects.select_related("project", "entity", "tag", "created_by", "released_by")
    if not include_released:
        holds = holds.filter(released_at__isnull=True)
    return list(holds.order_by(F("released_at").desc(nulls_first=True), "-created_at")[:limit])


def hold_label(hold: LegalHold) -> str:
    """What a hold holds, as its refusal names it: ``project acme-web``, ``entity Dana``, ``tag legal``."""
    if hold.target == HoldTarget.PROJECT and hold.project is not None:
        return f"project {hold.project.slug}"
    if hold.target == HoldTarget.ENTITY and hold.entity is not None:
        return f"entity {hold.entity.name}"
    if hold.target == HoldTarget.TAG and hold.tag is not None:
        return f"tag {hold.tag.path}"
    return hold.target


@dataclass
class HeldScope:
    """The active holds and what each reaches: projects, entities (with their renames), tags (with the
    tags below them)."""

    holds: list[LegalHold] = field(default_factory=list)
    by_project: dict[uuid.UUID, LegalHold] = field(default_factory=dict)
    by_entity: dict[int, LegalHold] = field(default_factory=dict)
    by_tag: dict[int, LegalHold] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.holds

    def q(self) -> Q:
        """The memories these holds cover, as a filter on ``Memory`` (matches nothing when none)."""
        if self.empty:
            return Q(pk__in=[])
        condition = Q(pk__in=[])
        if self.by_project:
            condition |= Q(project_id__in=list(self.by_project))
        if self.by_entity:
            condition |= Q(
                Exists(MemoryEntity.objects.filter(memory=OuterRef("pk"), entity_id__in=list(self.by_entity)))
            )
        if self.by_tag:
            condition |= Q(
                Exists(MemoryTag.objects.filter(memory=OuterRef("pk"), tag_id__in=list(self.by_tag)))
            )
        return condition

    def hold_of(self, memory_id: uuid.UUID | str) -> LegalHold | None:
        """The hold that covers one memory (a project hold first, then an entity's, then a tag's)."""
        row = Memory.objects.filter(pk=memory_id).values("project_id").first()
        if row is None:
            return None
        if row["project_id"] in self.by_project:
            return self.by_project[row["project_id"]]
        for entity_id in MemoryEntity.objects.filter(memory_id=memory_id).values_list("entity_id", flat=True):
            if entity_id in self.by_entity:
                return self.by_entity[entity_id]
        for tag_id in MemoryTag.objects.filter(memory_id=memory_id).values_list("tag_id", flat=True):
            if tag_id in self.by_tag:
                return self.by_tag[tag_id]
        return None


def held_scope() -> HeldScope:
    """The active holds of the tenant, resolved to the projects, entities and tags they reach."""
    scope = HeldScope(holds=list(holds_active()))
    for hold in scope.holds:
        if hold.target == HoldTarget.PROJECT and hold.project_id is not None:
            scope.by_project.setdefault(hold.project_id, hold)
        elif hold.target == HoldTarget.ENTITY and hold.entity is not None:
            for entity in entity_family([hold.entity]):
                scope.by_entity.setdefault(entity.pk, hold)
        elif hold.target == HoldTarget.TAG and hold.tag is not None:
            path = hold.tag.path
            below = Tag.objects.filter(Q(path=path) | Q(path__startswith=f"{path}/")).values_list(
                "pk", flat=True
            )
            for tag_id in below:
                scope.by_tag.setdefault(tag_id, hold)
    return scope


def memories_held(memories: QuerySet[Memory], *, scope: HeldScope | None = None) -> QuerySet[Memory]:
    """The memories of ``memories`` that an active hold covers."""
    scope = scope if scope is not None else held_scope()
    return memories.filter(scope.q()) if not scope.empty else memories.none()


def memories_not_held(memories: QuerySet[Memory], *, scope: HeldScope | None = None) -> QuerySet[Memory]:
    """The memories of ``memories`` that no active hold covers."""
    scope = scope if scope is not None else held_scope()
    return memories.exclude(scope.q()) if not scope.empty else memories


def memory_hold_first(
    memories: QuerySet[Memory] | Iterable[uuid.UUID | str], *, scope: HeldScope | None = None
) -> tuple[LegalHold, int] | None:
    """The first hold covering any of these memories and how many of them are held; None when none is."""
    scope = scope if scope is not None else held_scope()
    if scope.empty:
        return None
    queryset = memories if isinstance(memories, QuerySet) else Memory.objects.filter(pk__in=list(memories))
    held = list(memories_held(queryset, scope=scope).order_by("pk").values_list("pk", flat=True))
    if not held:
        return None
    hold = scope.hold_of(held[0])
    assert hold is not None
    return hold, len(held)


def entity_held(*, entity: Entity) -> LegalHold | None:
    """The hold on this entity or one of its renames, when one is active."""
    family = {e.pk for e in entity_family([entity])}
    return holds_active(target=HoldTarget.ENTITY).filter(entity_id__in=family).first()
