"""Corrections of a saved memory (update_memory and the console's memory page): its entities, tags,
sequence, resolved-by links and entity renames. The stored text is never modified.

Each item is judged on its own: what cannot be done comes back among the result's refusals with a
reason, and the rest is applied.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, fields
from typing import Any

from django.utils import timezone

from accounts import access
from accounts.models import AccessKey, Member
from accounts.services.audit import audit_record
from accounts.tasks import enqueue
from core.errors import NotFound
from memory.models import Entity, EntityRename, LinkKind, Memory, MemoryEntity, MemoryLink, MemoryTag, Tag
from memory.selectors.entities import entity_by_ref
from memory.selectors.visibility import memory_get_visible
from memory.services.archivist import archivist_reembed
from memory.services.events import EventType, memory_events_record
from memory.services.guarding import guard_fields
from memory.services.memories import entity_get_or_create, link_tags
from memory.tasks import archivist_process
from memory.text import normal_tag, tag_rejection

# The tool whose name a correction's guard events and audit carry, from every surface.
TOOL = "update_memory"
REGISTERED_APPS = ("plan", "novel", "expectation", "intent")
CONFLICTING = "conflicting_request"
NOT_FOUND = "memory not found"
REALIZATION = "realization"


@dataclass(frozen=True)
class Corrections:
    """What to change: each list as the caller gave it (names or ids, event ids, tag paths)."""

    remove_entities: list[str] = field(default_factory=list)
    add_entities: list[tuple[str, str]] = field(default_factory=list)  # (name, type)
    add_entity_ids: list[int] = field(default_factory=list)
    add_tags: list[str] = field(default_factory=list)
    remove_tags: list[str] = field(default_factory=list)
    add_prev_events: list[str] = field(default_factory=list)
    remove_prev_events: list[str] = field(default_factory=list)
    add_resolved_by: list[tuple[str, str]] = field(default_factory=list)  # (event_id, relation)
    revoke_resolved_by: list[tuple[str, str]] = field(default_factory=list)
    add_entity_renames: list[tuple[str, str]] = field(default_factory=list)  # (old, new)
    remove_entity_renames: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Refusal:
    # The item as given: an entity id, a tag or event id, or {event_id, relation} / {old, new}.
    item: int | str | dict[str, str]
    reason: str


@dataclass
class CorrectionResult:
    """What was done. A list is None when nothing went into it (the tool leaves the key out)."""

    memory: Memory
    removed_count: int = 0
    added_count: int = 0
    now_linked_entities: list[Entity] = field(default_factory=list)
    orphaned_entities: list[Entity] = field(default_factory=list)  # left without a memory: deprecated
    added_tags: list[str] | None = None
    removed_tags: list[str] | None = None
    rejected_tags: list[Refusal] | None = None
    rejected_entity_ids: list[Refusal] | None = None
    added_prev_events: list[str] | None = None
    removed_prev_events: list[str] | None = None
    rejected_prev_events: list[Refusal] | None = None
    added_resolved_by: list[tuple[str, str]] | None = None
    already_linked_resolved_by: list[tuple[str, str]] | None = None
    revoked_resolved_by: list[tuple[str, str]] | None = None
    rejected_resolved_by: list[Refusal] | None = None
    added_entity_renames: list[tuple[str, str]] | None = None
    removed_entity_renames: list[tuple[str, str]] | None = None
    rejected_entity_renames: list[Refusal] | None = None
    # The derived layer's re-sync: entity participation and tags that actually changed.
    entities_added: list[str] = field(default_factory=list)
    entities_removed: list[str] = field(default_factory=list)
    tags_added: list[str] = field(default_factory=list)
    tags_removed: list[str] = field(default_factory=list)

    @property
    def participation_changed(self) -> bool:
        return bool(self.entities_added or self.entities_removed)

    @property
    def tags_changed(self) -> bool:
        return bool(self.tags_added or self.tags_removed)

    def push(self, name: str, value: Any) -> None:
        items = getattr(self, name)
        if items is None:
            items = []
            setattr(self, name, items)
        items.append(value)

    def rejected(self) -> list[Refusal]:
        """Every refusal, list by list (tags, entity ids, sequence, resolved-by, renames)."""
        return [
            *(self.rejected_tags or []),
            *(self.rejected_entity_ids or []),
            *(self.rejected_prev_events or []),
            *(self.rejected_resolved_by or []),
            *(self.rejected_entity_renames or []),
        ]

    def audit_details(self) -> dict[str, int]:
        """The counts: each number, and each list's length (lists nothing went into are left out)."""
        details: dict[str, int] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _DELTA or f.name == "memory":
                continue
            if isinstance(value, list):
                details[f.name] = len(value)
            elif isinstance(value, int):
                details[f.name] = value
        return details


_DELTA = ("entities_added", "entities_removed", "tags_added", "tags_removed")


def _resolved(event_id: str, relation: str) -> dict[str, str]:
    return {"event_id": event_id, "relation": relation}


def _rename(old: str, new: str) -> dict[str, str]:
    return {"old": old, "new": new}


def _under(tag: Tag, group_id: int) -> bool:
    node: Tag | None = tag
    while node is not None:
        if node.pk == group_id:
            return True
        node = node.parent
    return False


def _uuid_or_none(value: str) -> str | None:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        return None


class _Correction:
    def __init__(self, *, memory: Memory, member: Member, key: AccessKey | None) -> None:
        self.memory, self.member, self.key = memory, member, key
        self.result = CorrectionResult(memory=memory)
        self.sequence_changed = False

    # Entities ------------------------------------------------------------------------------
    def remove_entities(self, refs: list[str]) -> None:
        for ref in refs:
            entity = entity_by_ref(ref)
            if entity is None:
                continue
            deleted, _ = MemoryEntity.objects.filter(memory=self.memory, entity=entity).delete()
            if deleted:
                self.result.removed_count += 1
                self.result.entities_removed.append(entity.name)
                if not MemoryEntity.objects.filter(entity=entity).exists():
                    entity.deprecated = True
                    entity.save(update_fields=["deprecated"])
                    self.result.orphaned_entities.append(entity)

    def _link(self, entity: Entity) -> None:
        _, created = MemoryEntity.objects.get_or_create(
            enterprise_id=self.memory.enterprise_id, memory=self.memory, entity=entity
        )
        if created:
            self.result.added_count += 1
            self.result.entities_added.append(entity.name)

    def add_entities(self, items: list[tuple[str, str]]) -> None:
        scanned = guard_fields({f"add_entities[{i}]": name for i, (name, _) in enumerate(items)}, tool=TOOL)
        for i, (_, type_) in enumerate(items):
            entity, _ = entity_get_or_create(name=scanned.values[f"add_entities[{i}]"], type=type_)
            self._link(entity)

    def add_entity_ids(self, ids: list[int]) -> None:
        for entity_id in ids:
            entity = Entity.objects.filter(pk=entity_id).first()
            if entity is None:
                self.result.push("rejected_entity_ids", Refusal(item=entity_id, reason="no such entity"))
                continue
            self._link(entity)

    # Tags ----------------------------------------------------------------------------------
    def add_tags(self, raw: list[str]) -> None:
        accepted = []
        for tag in raw:
            path = normal_tag(tag)
            reason = tag_rejection(path)
            if reason:
                self.result.push("rejected_tags", Refusal(item=tag, reason=reason))
            else:
                accepted.append(path)
        scanned = guard_fields({f"add_tags[{i}]": p for i, p in enumerate(accepted)}, tool=TOOL)
        before = set(MemoryTag.objects.filter(memory=self.memory).values_list("tag__path", flat=True))
        for linked in link_tags(
            self.memory, [scanned.values[f"add_tags[{i}]"] for i in range(len(accepted))]
        ):
            if linked.path not in before:
                self.result.push("added_tags", linked.path)
                self.result.tags_added.append(linked.path)

    def remove_tags(self, refs: list[str]) -> None:
        for ref in refs:
            text = str(ref).strip()
            links = MemoryTag.objects.filter(memory=self.memory).select_related("tag")
            matched = [
                link
                for link in links
                if link.tag.path == normal_tag(text)
                or link.tag.name == normal_tag(text)
                or str(link.tag_id) == text
                or (text.isdigit() and _under(link.tag, int(text)))
            ]
            for link in matched:
                link.delete()
                self.result.push("removed_tags", link.tag.path)
                self.result.tags_removed.append(link.tag.path)

    # Sequence ------------------------------------------------------------------------------
    def prev_events(self, add: list[str], remove: list[str]) -> None:
        both = set(add) & set(remove)
        for event_id in sorted(both):
            self.result.push("rejected_prev_events", Refusal(item=event_id, reason=CONFLICTING))
        for event_id in [e for e in add if e not in both]:
            other = memory_get_visible(member=self.member, key=self.key, memory_id=event_id)
            if other is None or other.pk == self.memory.pk:
                self.result.push("rejected_prev_events", Refusal(item=event_id, reason="unknown event"))
                continue
            _, created = MemoryLink.objects.get_or_create(
                enterprise_id=self.memory.enterprise_id, kind=LinkKind.NEXT, src=other, dst=self.memory
            )
            self.result.push("added_prev_events", str(other.pk))
            self.sequence_changed |= created
        for event_id in [e for e in remove if e not in both]:
            link = MemoryLink.objects.filter(
                kind=LinkKind.NEXT, src_id=_uuid_or_none(event_id), dst=self.memory
            ).first()
            if link is None:
                self.result.push("rejected_prev_events", Refusal(item=event_id, reason="not linked"))
            elif link.protected:
                self.result.push("rejected_prev_events", Refusal(item=event_id, reason="protected_source"))
            else:
                link.delete()
                self.result.push("removed_prev_events", event_id)
                self.sequence_changed = True
        if self.sequence_changed:  # the previous memory is the vector's context (embedding_contexts)
            archivist_reembed(memory_ids=[self.memory.pk], successors=False)

    # Resolved-by ---------------------------------------------------------------------------
    def resolved_by(self, add: list[tuple[str, str]], revoke: list[tuple[str, str]]) -> None:
        pairs = set(add) & set(revoke)
        for item in [*add, *revoke]:
            if item in pairs:
                self.result.push("rejected_resolved_by", Refusal(item=_resolved(*item), reason=CONFLICTING))
        for item in [i for i in add if i not in pairs]:
            event_id, relation = item
            evidence = memory_get_visible(member=self.member, key=self.key, memory_id=event_id)
            reason = self._resolved_by_refusal(relation, evidence)
            if reason:
                self.result.push("rejected_resolved_by", Refusal(item=_resolved(*item), reason=reason))
                continue
            link, created = MemoryLink.objects.get_or_create(
                enterprise_id=self.memory.enterprise_id,
                kind=LinkKind.RESOLVED_BY,
                src=self.memory,
                dst=evidence,
                defaults={"relation": relation},
            )
            if created or link.revoked_at is not None or link.relation != relation:
                link.revoked_at, link.relation, link.asserted_at = None, relation, timezone.now()
                link.save(update_fields=["revoked_at", "relation", "asserted_at"])
                self.result.push("added_resolved_by", item)
            else:
                self.result.push("already_linked_resolved_by", item)
        for item in [i for i in revoke if i not in pairs]:
            event_id, relation = item
            link = MemoryLink.objects.filter(
                kind=LinkKind.RESOLVED_BY,
                src=self.memory,
                dst_id=_uuid_or_none(event_id),
                relation=relation,
                revoked_at__isnull=True,
            ).first()
            if link is None:
                self.result.push("rejected_resolved_by", Refusal(item=_resolved(*item), reason="not linked"))
                continue
            link.revoked_at = timezone.now()
            link.save(update_fields=["revoked_at"])
            self.result.push("revoked_resolved_by", item)

    def _resolved_by_refusal(self, relation: str, evidence: Memory | None) -> str | None:
        if evidence is None or evidence.pk == self.memory.pk:
            return "unknown event"
        if relation == REALIZATION:
            tag_roots = {
                p.split("/", 1)[0].lstrip("#")
                for p in MemoryTag.objects.filter(memory=self.memory).values_list("tag__path", flat=True)
            }
            if not tag_roots & set(REGISTERED_APPS):
                return "realization needs this event to come from a registered app (#plan, #novel, ...)"
            if evidence.team_id != self.memory.team_id:
                return "realization needs both ends in the same team part"
        return None

    # Renames -------------------------------------------------------------------------------
    def renames(self, add: list[tuple[str, str]], remove: list[tuple[str, str]]) -> None:
        pairs = set(add) & set(remove)
        for item in [*add, *remove]:
            if item in pairs:
                self.result.push("rejected_entity_renames", Refusal(item=_rename(*item), reason=CONFLICTING))
        for item in [i for i in add if i not in pairs]:
            old, new = entity_by_ref(item[0]), entity_by_ref(item[1])
            if old is None or new is None or old.pk == new.pk:
                self.result.push(
                    "rejected_entity_renames",
                    Refusal(item=_rename(*item), reason="both entities must already exist and differ"),
                )
                continue
            EntityRename.objects.get_or_create(enterprise_id=self.memory.enterprise_id, old=old, new=new)
            self._link(old)
            self._link(new)
            self.result.push("added_entity_renames", item)
        for item in [i for i in remove if i not in pairs]:
            old, new = entity_by_ref(item[0]), entity_by_ref(item[1])
            deleted = EntityRename.objects.filter(old=old, new=new).delete()[0] if old and new else 0
            if deleted:
                self.result.push("removed_entity_renames", item)
            else:
                self.result.push(
                    "rejected_entity_renames", Refusal(item=_rename(*item), reason="no such rename")
                )


def memory_correct(
    *, member: Member, key: AccessKey | None, memory_id: str, changes: Corrections
) -> CorrectionResult:
    """Apply the corrections to a memory this member may write (through this key), audited; entity
    participation that changed sends the archivist to recompute co-occurrence."""
    memory = memory_get_visible(member=member, key=key, memory_id=memory_id)
    if memory is None:
        raise NotFound(NOT_FOUND, code="not_found")
    access.place_write_check(member=member, key=key, project=memory.project, workspace_id=memory.workspace_id)
    correction = _Correction(memory=memory, member=member, key=key)
    correction.remove_entities(changes.remove_entities)
    correction.add_entities(changes.add_entities)
    correction.add_entity_ids(changes.add_entity_ids)
    correction.add_tags(changes.add_tags)
    correction.remove_tags(changes.remove_tags)
    correction.prev_events(changes.add_prev_events, changes.remove_prev_events)
    correction.resolved_by(changes.add_resolved_by, changes.revoke_resolved_by)
    correction.renames(changes.add_entity_renames, changes.remove_entity_renames)
    result = correction.result
    result.now_linked_entities = list(Entity.objects.filter(memory_links__memory=memory).order_by("name"))
    if result.participation_changed:
        enqueue(archivist_process, enterprise_id=str(memory.enterprise_id), memory_id=str(memory.pk))
    audit_record(action="memory.update", target=memory, details=result.audit_details())
    memory_events_record([memory], EventType.MEMORY_UPDATED)
    return result
